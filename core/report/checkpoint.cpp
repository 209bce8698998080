#include "parity/run/checkpoint.hpp"

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "parity/report/output_files.hpp"
#include "parity/run/errors.hpp"

namespace parity::run {
namespace {

static_assert(std::endian::native == std::endian::little, "the checkpoint format assumes a little-endian host");

constexpr char magic[8] = {'P', 'A', 'R', 'I', 'T', 'Y', 'C', 'K'};
constexpr std::uint32_t format_version = 1;
constexpr std::uint8_t kind_double = 0, kind_int64 = 1;

std::uint64_t fnv1a(std::string const& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

template <class T>
void put(std::string& out, T const& v) {
  out.append(reinterpret_cast<char const*>(&v), sizeof v);
}

void put_text(std::string& out, std::string const& s) {
  put(out, std::uint64_t(s.size()));
  out += s;
}

template <class T>
void put_entry(std::string& out, std::uint8_t kind, std::string const& name, std::vector<T> const& v) {
  put(out, kind);
  put_text(out, name);
  put(out, std::uint64_t(v.size()));
  out.append(reinterpret_cast<char const*>(v.data()), v.size() * sizeof(T));
}

// Reads the serialised bytes front to back; any read past the end is a truncated file.
class Reader {
 public:
  Reader(std::string const& bytes, std::string const& path, std::size_t end) : b_(bytes), path_(path), end_(end) {}
  template <class T>
  T get(char const* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::string text(char const* what) {
    auto const n = get<std::uint64_t>(what);
    need(n, what);
    std::string s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  template <class T>
  std::vector<T> array(std::uint64_t count, std::string const& name) {
    if (count > (end_ - pos_) / sizeof(T)) truncated("the values of '" + name + "'");
    std::vector<T> v(count);
    std::memcpy(v.data(), b_.data() + pos_, count * sizeof(T));
    pos_ += count * sizeof(T);
    return v;
  }
  std::size_t pos() const { return pos_; }

 private:
  void need(std::uint64_t n, char const* what) {
    if (n > end_ - pos_) truncated(what);
  }
  [[noreturn]] void truncated(std::string const& what) {
    throw CheckpointError(fmt::format("checkpoint '{}' is truncated or corrupt: it ends inside {}", path_, what));
  }
  std::string const& b_;
  std::string const& path_;
  std::size_t pos_ = 0, end_;
};

template <class T>
std::vector<T> const& lookup(std::map<std::string, std::vector<T>> const& own, bool other_has, std::string const& name,
                             long expected, char const* kind, std::string const& source) {
  std::string const from = source.empty() ? std::string() : fmt::format("checkpoint '{}': ", source);
  auto it = own.find(name);
  if (it == own.end())
    throw CheckpointError(fmt::format("{}{}", from,
                                      other_has ? fmt::format("entry '{}' does not hold {} values", name, kind)
                                                : fmt::format("no entry '{}'", name)));
  if (expected >= 0 && it->second.size() != std::size_t(expected))
    throw CheckpointError(
        fmt::format("{}entry '{}' holds {} values, expected {}", from, name, it->second.size(), expected));
  return it->second;
}

std::string first_line_difference(std::string const& saved, std::string const& mine) {
  std::istringstream a(saved), b(mine);
  std::string la, lb;
  while (true) {
    bool const ha = bool(std::getline(a, la)), hb = bool(std::getline(b, lb));
    if (!ha && !hb) return "the fingerprints differ";
    if (!ha) return fmt::format("this run has '{}', the checkpoint has no such line", lb);
    if (!hb) return fmt::format("the checkpoint has '{}', this run has no such line", la);
    if (la != lb) return fmt::format("the checkpoint has '{}', this run '{}'", la, lb);
  }
}

}  // namespace

void Checkpoint::set(std::string const& name, std::vector<double> values) {
  integers_.erase(name);
  doubles_[name] = std::move(values);
}

void Checkpoint::set(std::string const& name, std::vector<std::int64_t> values) {
  doubles_.erase(name);
  integers_[name] = std::move(values);
}

std::vector<double> const& Checkpoint::doubles(std::string const& name, long expected_size) const {
  return lookup(doubles_, integers_.count(name) > 0, name, expected_size, "double", source);
}

std::vector<std::int64_t> const& Checkpoint::integers(std::string const& name, long expected_size) const {
  return lookup(integers_, doubles_.count(name) > 0, name, expected_size, "integer", source);
}

void write_checkpoint(std::string const& path, Checkpoint const& c) {
  std::string bytes(magic, sizeof magic);
  put(bytes, format_version);
  put(bytes, std::uint32_t(c.all_doubles().size() + c.all_integers().size()));
  put_text(bytes, c.fingerprint);
  for (auto const& [name, v] : c.all_doubles()) put_entry(bytes, kind_double, name, v);
  for (auto const& [name, v] : c.all_integers()) put_entry(bytes, kind_int64, name, v);
  put(bytes, fnv1a(bytes));

  // Synced before the rename: a crash right after it must not leave an empty checkpoint.
  try {
    report::write_file(path, bytes, true);
  } catch (std::runtime_error const& e) {
    throw CheckpointError(fmt::format("checkpoint: {}", e.what()));
  }
}

Checkpoint read_checkpoint(std::string const& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw CheckpointError(fmt::format("checkpoint '{}' does not exist", path));
  if (std::filesystem::is_directory(path, ec))
    throw CheckpointError(fmt::format("checkpoint '{}' is a directory, not a checkpoint file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError(fmt::format("checkpoint '{}' cannot be read", path));
  std::string const bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof magic || std::memcmp(bytes.data(), magic, sizeof magic) != 0)
    throw CheckpointError(fmt::format("'{}' is not a Parity checkpoint (it does not start with PARITYCK)", path));
  if (bytes.size() < sizeof magic + 8 + 8 + 8)
    throw CheckpointError(fmt::format("checkpoint '{}' is truncated ({} bytes)", path, bytes.size()));
  std::size_t const body = bytes.size() - 8;
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, 8);
  Reader r(bytes, path, body);
  r.array<char>(sizeof magic, "magic");
  auto const version = r.get<std::uint32_t>("the version");
  if (version != format_version)
    throw CheckpointError(fmt::format("checkpoint '{}' has format version {}, this build reads version {}", path,
                                      version, format_version));
  if (stored != fnv1a(bytes.substr(0, body)))
    throw CheckpointError(
        fmt::format("checkpoint '{}' is truncated or corrupt: its checksum does not match its contents ({} bytes)",
                    path, bytes.size()));
  auto const entries = r.get<std::uint32_t>("the entry count");
  Checkpoint c;
  c.fingerprint = r.text("the fingerprint");
  for (std::uint32_t q = 0; q < entries; ++q) {
    auto const kind = r.get<std::uint8_t>("an entry's kind");
    std::string const name = r.text("an entry's name");
    auto const count = r.get<std::uint64_t>("an entry's size");
    if (kind == kind_double)
      c.set(name, r.array<double>(count, name));
    else if (kind == kind_int64)
      c.set(name, r.array<std::int64_t>(count, name));
    else
      throw CheckpointError(fmt::format("checkpoint '{}': entry '{}' has an unknown kind {}", path, name, int(kind)));
  }
  if (r.pos() != body)
    throw CheckpointError(
        fmt::format("checkpoint '{}' is corrupt: {} bytes after the last entry", path, body - r.pos()));
  c.source = path;
  return c;
}

Checkpoint read_checkpoint(std::string const& path, std::string const& fingerprint) {
  Checkpoint c = read_checkpoint(path);
  if (c.fingerprint != fingerprint)
    throw CheckpointMismatch(fmt::format("checkpoint '{}' was written for other parameters: {}", path,
                                         first_line_difference(c.fingerprint, fingerprint)));
  return c;
}

void check_checkpoint_path(std::string const& path) {
  try {
    report::check_output_file(path, "checkpoint");
  } catch (InvalidInput const& e) {
    throw CheckpointError(e.what());
  }
}

}  // namespace parity::run
