#include "parity/report/output_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "parity/report/npy.hpp"
#include "parity/run/errors.hpp"

namespace parity::report {
namespace fs = std::filesystem;
namespace {

std::string folder_of(std::string const& path) {
  fs::path const parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// A new, uniquely named file in `dir` (O_EXCL through mkstemp); returns its descriptor and name,
// or -1 with errno set.
int make_temporary(std::string const& dir, std::string const& stem, std::string& name) {
  std::string templ = dir + "/." + stem + ".tmp.XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  int const fd = ::mkstemp(buf.data());
  if (fd >= 0) name.assign(buf.data());
  return fd;
}

// Whether `dir` takes a new file: a uniquely named probe is created and removed again.
void probe_folder(std::string const& dir, std::string const& what) {
  std::string name;
  int const fd = make_temporary(dir, "parity-probe", name);
  if (fd < 0)
    throw InvalidInput(fmt::format("{}: cannot write files in folder '{}': {}", what, dir, std::strerror(errno)));
  ::close(fd);
  ::unlink(name.c_str());
}

}  // namespace

void check_output_file(std::string const& path, std::string const& option) {
  std::string const what = fmt::format("{} '{}'", option, path);
  require(!path.empty(), option + ": the file name is empty");
  std::error_code ec;
  auto const st = fs::status(path, ec);
  if (fs::is_directory(st))
    throw InvalidInput(what + " is a directory (give a file name, e.g. " + path + "/report.json)");
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw InvalidInput(what + " exists and is not a regular file (a device, socket or pipe)");
  std::string const dir = folder_of(path);
  auto const dst = fs::status(dir, ec);
  if (!fs::exists(dst)) throw InvalidInput(fmt::format("{}: cannot write: its folder '{}' does not exist", what, dir));
  if (!fs::is_directory(dst)) throw InvalidInput(fmt::format("{}: cannot write: '{}' is not a folder", what, dir));
  probe_folder(dir, what);
}

void check_output_folder(std::string const& dir, std::string const& option) {
  std::string const what = fmt::format("{} '{}'", option, dir);
  require(!dir.empty(), option + ": the folder name is empty");
  std::error_code ec;
  auto const st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) throw InvalidInput(what + " is a file, not a folder (give a folder for the arrays)");
    probe_folder(dir, what);
    return;
  }
  // The nearest existing ancestor must be a folder that takes new entries.
  fs::path p = fs::absolute(fs::path(dir), ec).lexically_normal();
  while (p.has_parent_path() && p != p.parent_path()) {
    p = p.parent_path();
    auto const ps = fs::status(p, ec);
    if (!fs::exists(ps)) continue;
    if (!fs::is_directory(ps))
      throw InvalidInput(fmt::format("{} cannot be created: '{}' is a file, not a folder", what, p.string()));
    probe_folder(p.string(), what + " cannot be created");
    return;
  }
  throw InvalidInput(what + " cannot be created");
}

void write_file_atomic(std::string const& path, std::string_view bytes) {
  std::string const dir = folder_of(path);
  std::string tmp;
  int const fd = make_temporary(dir, fs::path(path).filename().string(), tmp);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  auto fail = [&](char const* stage) {
    int const err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write '{}' ({}): {}", path, stage, std::strerror(err)));
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t const n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    done += std::size_t(n);
  }
  // mkstemp creates 0600; a result file gets the usual permissions (0666 less the umask).
  mode_t const mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) fail("chmod");
  if (::close(fd) != 0) {
    int const err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int const err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot move the new '{}' into place: {}", path, std::strerror(err)));
  }
}

OutputFolder::OutputFolder(std::string dir, std::string command, std::string model)
    : dir_(std::move(dir)), command_(std::move(command)), model_(std::move(model)) {}

void OutputFolder::ensure() {
  if (created_) return;
  ensure_directory(dir_);
  created_ = true;
}

void OutputFolder::npy(std::string const& name, std::span<const double> data, std::vector<std::size_t> const& shape) {
  ensure();
  write_npy(path(name + ".npy"), data, shape);
  arrays_[name] = name + ".npy";
}
void OutputFolder::npy(std::string const& name, std::span<const float> data, std::vector<std::size_t> const& shape) {
  ensure();
  write_npy(path(name + ".npy"), data, shape);
  arrays_[name] = name + ".npy";
}
void OutputFolder::npy(std::string const& name, std::span<const std::int32_t> data,
                       std::vector<std::size_t> const& shape) {
  ensure();
  write_npy(path(name + ".npy"), data, shape);
  arrays_[name] = name + ".npy";
}

void OutputFolder::text(std::string const& file, std::string const& content) {
  ensure();
  write_file_atomic(path(file), content);
}

void OutputFolder::write_manifest(std::optional<std::string> const& report) {
  nlohmann::json arrays = nlohmann::json::object();
  for (auto const& [name, file] : arrays_) arrays[name] = file;
  nlohmann::json report_name = nullptr;
  if (report) {
    std::error_code ec;
    fs::path const folder = fs::weakly_canonical(fs::absolute(dir_, ec), ec);
    fs::path const file = fs::weakly_canonical(fs::absolute(*report, ec), ec);
    fs::path const rel = file.lexically_relative(folder);
    report_name = rel.empty() ? *report : rel.string();
  }
  nlohmann::json const doc = {{"schema", output_manifest_schema},
                              {"command", command_},
                              {"model", model_},
                              {"arrays", arrays},
                              {"report", report_name}};
  ensure();
  write_file_atomic(path("manifest.json"), doc.dump(2) + "\n");
}

}  // namespace parity::report
