#include "parity/report/output_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
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

constexpr int max_link_hops = 40;  // as the kernel's ELOOP limit

// The original standard output once reserve_standard_output has pointed descriptor 1 elsewhere.
int reserved_stdout = -1;

std::string folder_of(std::string const& path) {
  fs::path const parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// The open descriptor a name stands for, or -1: names of the process's own descriptors are
// written through that descriptor, at its position (reopening /proc/self/fd/1 of a redirected
// standard output would start at the file's beginning, and a rename would replace the link).
int descriptor_named(std::string const& path) {
  std::string const p = fs::path(path).lexically_normal().string();
  if (p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  if (p == "/dev/stdin") return 0;
  for (std::string const prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (p.rfind(prefix, 0) != 0) continue;
    std::string const n = p.substr(prefix.size());
    if (n.empty() || n.size() > 9 || !std::all_of(n.begin(), n.end(), [](char c) { return std::isdigit(c); }))
      return -1;
    return std::stoi(n);
  }
  return -1;
}

// Where a result file named `path` lands.
struct Landing {
  enum Kind { descriptor, missing, regular, stream, folder, special, unreachable } kind = missing;
  int fd = -1;  // descriptor: the one to write
  std::string path;  // the name after following symbolic links (a missing file: the name to create)
  struct stat st {};  // regular, stream, folder, special: what lstat says
  int error = 0;  // unreachable: why
};

Landing land(std::string const& path) {
  Landing l;
  if (path == standard_output_name) {
    l.kind = Landing::descriptor;
    l.fd = 1;
    return l;
  }
  std::string p = path;
  for (int hop = 0;; ++hop) {
    if (int const fd = descriptor_named(p); fd >= 0) {
      l.kind = Landing::descriptor;
      l.fd = fd;
      l.path = p;
      return l;
    }
    l.path = p;
    if (::lstat(p.c_str(), &l.st) != 0) {
      l.error = errno;
      // A missing folder on the way (or a file where one is needed) is the folder check's to name.
      l.kind = errno == ENOENT || errno == ENOTDIR ? Landing::missing : Landing::unreachable;
      return l;
    }
    if (!S_ISLNK(l.st.st_mode)) break;
    if (hop == max_link_hops) {
      l.kind = Landing::unreachable;
      l.error = ELOOP;
      return l;
    }
    std::string target(std::size_t(l.st.st_size > 0 ? l.st.st_size : 4096) + 1, '\0');
    ssize_t const n = ::readlink(p.c_str(), target.data(), target.size());
    if (n < 0 || std::size_t(n) >= target.size()) {
      l.kind = Landing::unreachable;
      l.error = n < 0 ? errno : ENAMETOOLONG;
      return l;
    }
    target.resize(std::size_t(n));
    // A relative target is relative to the link's folder; the kernel resolves what is left.
    p = fs::path(target).is_absolute() ? target : (fs::path(p).parent_path() / target).string();
  }
  auto const m = l.st.st_mode;
  l.kind = S_ISREG(m)                  ? Landing::regular
           : S_ISDIR(m)                ? Landing::folder
           : S_ISFIFO(m) || S_ISCHR(m) ? Landing::stream
                                       : Landing::special;
  return l;
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

// Throws InvalidInput starting with `what` unless `dir` is a folder that takes new files or can be
// created: its nearest existing ancestor is a folder that takes new files. Creates nothing.
void check_folder(std::string const& dir, std::string const& what, char const* not_a_folder) {
  std::error_code ec;
  auto const st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) throw InvalidInput(fmt::format("{}{}", what, not_a_folder));
    probe_folder(dir, what);
    return;
  }
  fs::path p = fs::absolute(fs::path(dir), ec).lexically_normal();
  while (p.has_parent_path() && p != p.parent_path()) {
    p = p.parent_path();
    auto const ps = fs::status(p, ec);
    if (!fs::exists(ps)) continue;
    if (!fs::is_directory(ps))
      throw InvalidInput(
          fmt::format("{}: the folder '{}' cannot be created: '{}' is a file, not a folder", what, dir, p.string()));
    probe_folder(p.string(), fmt::format("{}: the folder '{}' cannot be created", what, dir));
    return;
  }
  throw InvalidInput(fmt::format("{}: the folder '{}' cannot be created", what, dir));
}

void write_all(int fd, std::string_view bytes, std::string const& path) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t const n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    }
    done += std::size_t(n);
  }
}

// Replaces (or creates) the regular file `l.path` atomically: a unique temporary beside it, then a
// rename. A replaced file keeps its permissions; a new one gets 0666 less the umask.
void replace_atomically(Landing const& l, std::string_view bytes, bool sync, std::string const& path) {
  std::string const dir = folder_of(l.path);
  if (l.kind == Landing::missing) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
      throw std::runtime_error(fmt::format("cannot create the folder '{}' for '{}': {}", dir, path, ec.message()));
  }
  std::string tmp;
  int const fd = make_temporary(dir, fs::path(l.path).filename().string(), tmp);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  auto fail = [&](std::string const& why) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error(why);
  };
  try {
    write_all(fd, bytes, path);
  } catch (std::runtime_error const& e) {
    fail(e.what());
  }
  mode_t mode = l.st.st_mode & 07777;
  if (l.kind != Landing::regular) {
    mode_t const mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  if (::fchmod(fd, mode) != 0) fail(fmt::format("cannot write '{}' (chmod): {}", path, std::strerror(errno)));
  if (sync && ::fsync(fd) != 0) fail(fmt::format("cannot write '{}' (fsync): {}", path, std::strerror(errno)));
  if (::close(fd) != 0) {
    int const err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
  }
  if (std::rename(tmp.c_str(), l.path.c_str()) != 0) {
    int const err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot move the new '{}' into place: {}", path, std::strerror(err)));
  }
}

// What check_distinct_outputs compares: the landing place's absolute name with symbolic links and
// `..` resolved (descriptors as /dev/fd/N), and the file's identity where it exists.
struct Spot {
  std::string key;
  bool exists = false, device = false;
  dev_t dev = 0;
  ino_t ino = 0;
};

// The absolute name of `path` with every symbolic link (a dangling one too) and `..` resolved, as
// the kernel resolves it once the missing folders on the way exist.
std::string resolved_name(std::string const& path) {
  std::error_code ec;
  fs::path const abs = fs::absolute(path, ec);
  std::deque<std::string> rest;
  for (auto const& part : abs.relative_path()) rest.push_back(part.string());
  fs::path done = "/";
  int hops = 0;
  while (!rest.empty()) {
    std::string const part = rest.front();
    rest.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      done = done.parent_path();
      continue;
    }
    fs::path const next = done / part;
    struct stat st {};
    if (::lstat(next.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      if (++hops > max_link_hops) return abs.lexically_normal().string();
      fs::path const target = fs::read_symlink(next, ec);
      if (ec) return abs.lexically_normal().string();
      fs::path const relative = target.relative_path();
      std::vector<fs::path> const parts(relative.begin(), relative.end());
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) rest.push_front(it->string());
      if (target.is_absolute()) done = "/";
      continue;
    }
    done = next;
  }
  return done.string();
}

Spot spot_of(std::string const& path) {
  Spot s;
  Landing const l = land(path);
  struct stat st {};
  if (l.kind == Landing::descriptor) {
    s.key = fmt::format("/dev/fd/{}", l.fd);
    s.exists = ::fstat(l.fd, &st) == 0;
  } else {
    s.key = resolved_name(l.path);
    s.exists = l.kind != Landing::missing && l.kind != Landing::unreachable;
    st = l.st;
  }
  if (s.exists) {
    s.device = S_ISCHR(st.st_mode);
    s.dev = st.st_dev;
    s.ino = st.st_ino;
  }
  return s;
}

bool inside(std::string const& inner, std::string const& outer) {
  return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
         (outer.back() == '/' || inner[outer.size()] == '/');
}

std::string named(PlannedOutput const& o) { return fmt::format("{} '{}'", o.option, o.path); }

}  // namespace

void check_output_file(std::string const& path, std::string const& option, bool standard_output_allowed) {
  require(!path.empty(), option + ": the file name is empty");
  std::string const what = fmt::format("{} '{}'", option, path);
  require(path != standard_output_name || standard_output_allowed,
          what + ": '-' (standard output) is taken by --json -; name a file (./- for a file called '-')");
  Landing const l = land(path);
  switch (l.kind) {
    case Landing::descriptor: {
      int const flags = ::fcntl(l.fd, F_GETFL);
      require(flags >= 0, fmt::format("{}: descriptor {} is not open", what, l.fd));
      require((flags & O_ACCMODE) != O_RDONLY, fmt::format("{}: descriptor {} is open only for reading", what, l.fd));
      return;
    }
    case Landing::folder:
      throw InvalidInput(what + " is a directory (give a file name, e.g. " + path + "/report.json)");
    case Landing::special:
      throw InvalidInput(what +
                         " is a socket or another special file (Parity writes regular files, character devices such "
                         "as /dev/null and named pipes)");
    case Landing::unreachable:
      throw InvalidInput(fmt::format("{}: cannot write: {}", what, std::strerror(l.error)));
    case Landing::stream:
      require(::access(l.path.c_str(), W_OK) == 0, fmt::format("{}: cannot write: {}", what, std::strerror(errno)));
      return;
    case Landing::missing:
    case Landing::regular:
      check_folder(folder_of(l.path), what, " cannot be written: its folder is a file");
      return;
  }
}

void check_output_folder(std::string const& dir, std::string const& option) {
  require(!dir.empty(), option + ": the folder name is empty");
  std::string const what = fmt::format("{} '{}'", option, dir);
  require(dir != standard_output_name,
          what + ": '-' (standard output) takes one file, not a folder of arrays (./- for a folder called '-')");
  check_folder(dir, what, " is a file, not a folder (give a folder for the arrays)");
}

void check_distinct_outputs(std::vector<PlannedOutput> const& outputs) {
  std::vector<Spot> spots;
  for (auto const& o : outputs) spots.push_back(spot_of(o.path));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = 0; j < outputs.size(); ++j) {
      if (i == j) continue;
      auto const &a = outputs[i], &b = outputs[j];
      auto const &sa = spots[i], &sb = spots[j];
      if (a.folder && b.folder) continue;  // one --output and the model folders inside it
      if (sa.device || sb.device) continue;  // writing /dev/null (or a terminal) twice clobbers nothing
      bool const same = sa.key == sb.key || (sa.exists && sb.exists && sa.dev == sb.dev && sa.ino == sb.ino);
      if (same && i < j)
        throw InvalidInput(fmt::format("{} and {} name the same {}; give them different names", named(a), named(b),
                                       a.folder || b.folder ? "path (one a folder, the other a file)" : "file"));
      if (!a.folder && inside(sb.key, sa.key))
        throw InvalidInput(fmt::format("{} lies inside {}: the run would need '{}' as a file and as a folder", named(b),
                                       named(a), a.path));
      if (a.folder && a.arrays && !b.folder && fs::path(sb.key).parent_path() == fs::path(sa.key)) {
        std::string const name = fs::path(sb.key).filename().string();
        bool const written = name == "manifest.json" || fs::path(name).extension() == ".npy" ||
                             std::find(a.files.begin(), a.files.end(), name) != a.files.end();
        if (written)
          throw InvalidInput(
              fmt::format("{} lands on {} in {}, a file the run writes there; give {} another name "
                          "or folder",
                          named(b), name, named(a), b.option));
      }
    }
  }
}

void reserve_standard_output() {
  if (reserved_stdout >= 0) return;
  std::fflush(stdout);
  int const fd = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot keep standard output for --json -: {}", std::strerror(errno)));
  if (::dup2(2, 1) < 0) {
    int const err = errno;
    ::close(fd);
    throw std::runtime_error(fmt::format("cannot point standard output at standard error: {}", std::strerror(err)));
  }
  reserved_stdout = fd;
}

void write_file(std::string const& path, std::string_view bytes, bool sync) {
  Landing const l = land(path);
  switch (l.kind) {
    case Landing::descriptor:
      std::fflush(nullptr);  // what stdio holds for the descriptor goes first
      write_all(l.fd == 1 && reserved_stdout >= 0 ? reserved_stdout : l.fd, bytes, path);
      return;
    case Landing::stream: {
      int const fd = ::open(l.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd < 0) throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
      try {
        write_all(fd, bytes, path);
      } catch (...) {
        ::close(fd);
        throw;
      }
      if (::close(fd) != 0) throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
      return;
    }
    case Landing::folder:
      throw std::runtime_error(fmt::format("cannot write '{}': it is a folder", path));
    case Landing::special:
      throw std::runtime_error(fmt::format("cannot write '{}': it is a socket or another special file", path));
    case Landing::unreachable:
      throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(l.error)));
    case Landing::missing:
    case Landing::regular:
      replace_atomically(l, bytes, sync, path);
      return;
  }
}

bool lands_in_regular_file(std::string const& path) {
  auto const kind = land(path).kind;
  return kind == Landing::regular || kind == Landing::missing;
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
  write_file(path(file), content);
}

void OutputFolder::write_manifest(std::optional<std::string> const& report) {
  nlohmann::json arrays = nlohmann::json::object();
  for (auto const& [name, file] : arrays_) arrays[name] = file;
  nlohmann::json report_name = nullptr;
  if (report && lands_in_regular_file(*report)) {
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
  write_file(path("manifest.json"), doc.dump(2) + "\n");
}

}  // namespace parity::report
