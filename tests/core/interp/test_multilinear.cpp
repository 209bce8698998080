// Multilinear interpolation reproduces multilinear functions exactly on non-uniform grids and
// holds the boundary value outside the box.
#include <gtest/gtest.h>

#include "parity/grid/axis.hpp"
#include "parity/grid/spacing.hpp"
#include "parity/interp/multilinear.hpp"
#include "test_backend.hpp"

// Kernels live in named free functions: CUDA forbids extended lambdas in gtest's private TestBody.
namespace parity_test_multilinear {

using parity::test::ExecSpace;
using parity::test::MemSpace;
using Axis = parity::grid::Axis<double, MemSpace>;

// A function linear in each coordinate separately (including the xyz term).
KOKKOS_INLINE_FUNCTION double trilin(double x, double y, double z) {
  return 1.5 - 2 * x + 0.5 * y + 3 * z + 0.7 * x * y - 1.1 * y * z + 0.3 * x * z + 0.9 * x * y * z;
}

double trilinear_max_error() {
  auto const nx = parity::grid::power_nodes(0.0, 2.0, 9, 2.0);
  auto const ny = parity::grid::clustered_nodes(-1.0, 1.0, 7, 0.0, 5.0);
  auto const nz = parity::grid::uniform_nodes(0.5, 3.0, 5);
  Axis ax("x", nx), ay("y", ny), az("z", nz);
  Kokkos::View<double***, MemSpace> v("values", nx.size(), ny.size(), nz.size());
  auto vh = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < nx.size(); ++i)
    for (std::size_t j = 0; j < ny.size(); ++j)
      for (std::size_t k = 0; k < nz.size(); ++k) vh(i, j, k) = trilin(nx[i], ny[j], nz[k]);
  Kokkos::deep_copy(v, vh);
  double max_err = 0;
  Kokkos::parallel_reduce(
      "parity::test::trilinear", Kokkos::RangePolicy<ExecSpace>(0, 5000),
      KOKKOS_LAMBDA(int s, double& m) {
        // A deterministic scatter of points inside the box.
        double const x = 2.0 * ((s * 37) % 1000) / 999.0;
        double const y = -1.0 + 2.0 * ((s * 91) % 997) / 996.0;
        double const z = 0.5 + 2.5 * ((s * 53) % 991) / 990.0;
        m = Kokkos::max(m, Kokkos::abs(parity::interp::trilinear(ax, ay, az, v, x, y, z) - trilin(x, y, z)));
      },
      Kokkos::Max<double>(max_err));
  return max_err;
}

std::vector<double> clamped_values() {
  auto const nx = parity::grid::uniform_nodes(0.0, 1.0, 4);
  auto const ny = parity::grid::uniform_nodes(0.0, 1.0, 3);
  Axis ax("x", nx), ay("y", ny);
  Kokkos::View<double**, MemSpace> v("values", 4, 3);
  auto vh = Kokkos::create_mirror_view(v);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) vh(i, j) = 10 * nx[i] + ny[j];
  Kokkos::deep_copy(v, vh);
  Kokkos::View<double*, MemSpace> out("out", 4);
  Kokkos::parallel_for(
      "parity::test::clamp", Kokkos::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(int) {
        auto column = Kokkos::subview(v, Kokkos::ALL, 0);
        out(0) = parity::interp::bilinear(ax, ay, v, -3.0, 0.5);  // x clamped to 0
        out(1) = parity::interp::bilinear(ax, ay, v, 7.0, 9.0);  // both clamped to 1
        out(2) = parity::interp::linear(ax, column, 0.5);
        out(3) = parity::interp::linear(ax, column, -1.0);
      });
  return parity::test::to_host(out);
}

TEST(Multilinear, TrilinearExactForMultilinearFunctions) { EXPECT_LT(trilinear_max_error(), 1e-12); }

TEST(Multilinear, ClampsOutsideTheBox) {
  auto const h = clamped_values();
  EXPECT_NEAR(h[0], 0.5, 1e-14);
  EXPECT_NEAR(h[1], 11.0, 1e-14);
  EXPECT_NEAR(h[2], 5.0, 1e-14);
  EXPECT_NEAR(h[3], 0.0, 1e-14);
}

}  // namespace parity_test_multilinear
