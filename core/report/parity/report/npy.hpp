#pragma once
// Arrays to NumPy's .npy format (version 1.0, little-endian, C order), which numpy.load and
// xarray (via numpy) read directly. Models write one .npy per array into an output folder, with
// the grid axes as their own 1-D arrays.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace parity::report {

void write_npy(std::string const& path, std::span<const double> data, std::vector<std::size_t> const& shape);
void write_npy(std::string const& path, std::span<const float> data, std::vector<std::size_t> const& shape);
void write_npy(std::string const& path, std::span<const std::int32_t> data, std::vector<std::size_t> const& shape);

// Creates the folder (and parents) if needed; throws with a clear message if it cannot.
void ensure_directory(std::string const& path);

}  // namespace parity::report
