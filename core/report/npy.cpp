#include "parity/report/npy.hpp"

#include <bit>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace parity::report {
namespace {

static_assert(std::endian::native == std::endian::little, "the .npy writer assumes a little-endian host");

template <class T>
void write_array(std::string const& path, std::span<const T> data, std::vector<std::size_t> const& shape,
                 char const* dtype) {
  std::size_t count = 1;
  for (auto s : shape) count *= s;
  if (count != data.size())
    throw std::invalid_argument(fmt::format("write_npy('{}'): shape holds {} values, data has {}", path, count, data.size()));
  std::string shape_text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) shape_text += fmt::format("{}{}", shape[i], shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  shape_text += ")";
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", dtype, shape_text);
  // magic(6) + version(2) + header length(2) + header, padded with spaces to a multiple of 64, ending in '\n'.
  std::size_t const unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", path));
  out.write("\x93NUMPY\x01\x00", 8);
  std::uint16_t const len = static_cast<std::uint16_t>(header.size());
  out.write(reinterpret_cast<char const*>(&len), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<char const*>(data.data()), static_cast<std::streamsize>(data.size_bytes()));
  if (!out) throw std::runtime_error(fmt::format("error while writing '{}'", path));
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

void ensure_directory(std::string const& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec || !std::filesystem::is_directory(path))
    throw std::runtime_error(fmt::format("cannot create output folder '{}': {}", path, ec.message()));
}

}  // namespace parity::report
