// Writes known arrays as .npy into the folder argv[1]; test_npy.py reads them back with numpy.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "parity/report/npy.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FOLDER\n", argv[0]);
    return 2;
  }
  std::string const dir = argv[1];
  parity::report::ensure_directory(dir);
  std::vector<double> a(2 * 3 * 4);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = 0.5 * double(i) - 3.0;
  parity::report::write_npy(dir + "/f8_2x3x4.npy", a, {2, 3, 4});
  std::vector<float> b(7);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0f / float(i + 1);
  parity::report::write_npy(dir + "/f4_7.npy", b, {7});
  std::vector<std::int32_t> c(10);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = std::int32_t(i * i) - 5;
  parity::report::write_npy(dir + "/i4_5x2.npy", c, {5, 2});
  // Header padding is length-dependent: a long shape exercises another padding length.
  std::vector<double> d(1);
  parity::report::write_npy(dir + "/f8_1x1x1.npy", d, {1, 1, 1});
  return 0;
}
