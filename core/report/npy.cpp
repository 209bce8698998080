#include "parity/report/npy.hpp"

#include <bit>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "parity/report/output_files.hpp"

namespace parity::report {
namespace {

static_assert(std::endian::native == std::endian::little, "the .npy writer assumes a little-endian host");

template <class T>
void write_array(std::string const& path, std::span<const T> data, std::vector<std::size_t> const& shape,
                 char const* dtype) {
  std::size_t count = 1;
  for (auto s : shape) count *= s;
  if (count != data.size())
    throw std::invalid_argument(
        fmt::format("write_npy('{}'): shape holds {} values, data has {}", path, count, data.size()));
  std::string shape_text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i)
    shape_text += fmt::format("{}{}", shape[i], shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  shape_text += ")";
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", dtype, shape_text);
  // magic(6) + version(2) + header length(2) + header, padded with spaces to a multiple of 64, ending in '\n'.
  std::size_t const unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string bytes("\x93NUMPY\x01\x00", 8);
  std::uint16_t const len = static_cast<std::uint16_t>(header.size());
  bytes.append(reinterpret_cast<char const*>(&len), 2);
  bytes += header;
  bytes.append(reinterpret_cast<char const*>(data.data()), data.size_bytes());
  write_file(path, bytes);
}

}  // namespace

void write_npy(std::string const& path, std::span<const double> data, std::vector<std::size_t> const& shape) {
  write_array(path, data, shape, "<f8");
}
void write_npy(std::string const& path, std::span<const float> data, std::vector<std::size_t> const& shape) {
  write_array(path, data, shape, "<f4");
}
void write_npy(std::string const& path, std::span<const std::int32_t> data, std::vector<std::size_t> const& shape) {
  write_array(path, data, shape, "<i4");
}

namespace {

[[noreturn]] void npy_fail(std::string const& path, std::string const& why) {
  throw NpyReadError(fmt::format("'{}' is not a .npy file this reader accepts: {}", path, why));
}

// The value text of `'key':` in a header dict, up to the next top-level comma or closing brace.
std::string header_value(std::string const& path, std::string const& header, std::string const& key) {
  auto const at = header.find("'" + key + "'");
  if (at == std::string::npos) npy_fail(path, fmt::format("the header has no '{}' (header: {})", key, header));
  auto pos = header.find(':', at + key.size() + 2);
  if (pos == std::string::npos) npy_fail(path, "malformed header: " + header);
  ++pos;
  while (pos < header.size() && std::isspace(static_cast<unsigned char>(header[pos]))) ++pos;
  std::size_t end = pos;
  if (pos < header.size() && header[pos] == '(') {
    end = header.find(')', pos);
    if (end == std::string::npos) npy_fail(path, "malformed shape in header: " + header);
    return header.substr(pos, end + 1 - pos);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  std::string v = header.substr(pos, end - pos);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  return v;
}

}  // namespace

NpyArray read_npy(std::string const& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw NpyReadError(fmt::format("'{}' does not exist or is not a file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NpyReadError(fmt::format("cannot open '{}'", path));
  std::string const bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) npy_fail(path, "no NumPy magic string");
  int const major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = std::size_t(static_cast<unsigned char>(bytes[8])) | std::size_t(static_cast<unsigned char>(bytes[9]))
                                                                         << 8;
    offset = 10;
  } else if (major == 2 && bytes.size() >= 12) {
    for (int b = 0; b < 4; ++b) header_len |= std::size_t(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
    offset = 12;
  } else {
    npy_fail(path, fmt::format("format version {}.{} (expected 1.0 or 2.0)", major,
                               int(static_cast<unsigned char>(bytes[7]))));
  }
  if (offset + header_len > bytes.size()) npy_fail(path, "the header is longer than the file");
  std::string const header = bytes.substr(offset, header_len);
  offset += header_len;

  NpyArray a;
  std::string descr = header_value(path, header, "descr");
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'') npy_fail(path, "malformed descr: " + descr);
  a.dtype = descr.substr(1, descr.size() - 2);
  std::size_t item = 0;
  if (a.dtype == "<f8")
    item = 8;
  else if (a.dtype == "<f4" || a.dtype == "<i4")
    item = 4;
  else
    npy_fail(path,
             fmt::format("dtype '{}' (this reader accepts little-endian float64 '<f8', float32 '<f4' and int32 '<i4')",
                         a.dtype));
  std::string const order = header_value(path, header, "fortran_order");
  if (order == "True") npy_fail(path, "Fortran order (this reader accepts C order only)");
  if (order != "False") npy_fail(path, "malformed fortran_order: " + order);
  std::string const shape = header_value(path, header, "shape");
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') npy_fail(path, "malformed shape: " + shape);
  std::size_t count = 1;
  for (std::size_t pos = 1; pos + 1 < shape.size();) {
    while (pos + 1 < shape.size() && (shape[pos] == ' ' || shape[pos] == ',')) ++pos;
    if (pos + 1 >= shape.size()) break;
    std::size_t end = pos;
    while (end + 1 < shape.size() && std::isdigit(static_cast<unsigned char>(shape[end]))) ++end;
    if (end == pos) npy_fail(path, "malformed shape: " + shape);
    std::size_t const n = std::stoull(shape.substr(pos, end - pos));
    a.shape.push_back(n);
    count *= n;
    pos = end;
  }
  std::size_t const data_bytes = bytes.size() - offset;
  if (data_bytes != count * item)
    npy_fail(path, fmt::format("shape {} of {} needs {} data bytes, the file holds {}", shape, a.dtype, count * item,
                               data_bytes));
  a.values.resize(count);
  char const* data = bytes.data() + offset;
  for (std::size_t i = 0; i < count; ++i) {
    if (item == 8) {
      double v;
      std::memcpy(&v, data + 8 * i, 8);
      a.values[i] = v;
    } else if (a.dtype == "<f4") {
      float v;
      std::memcpy(&v, data + 4 * i, 4);
      a.values[i] = double(v);
    } else {
      std::int32_t v;
      std::memcpy(&v, data + 4 * i, 4);
      a.values[i] = double(v);
    }
  }
  return a;
}

void ensure_directory(std::string const& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec || !std::filesystem::is_directory(path))
    throw std::runtime_error(fmt::format("cannot create output folder '{}': {}", path, ec.message()));
}

}  // namespace parity::report
