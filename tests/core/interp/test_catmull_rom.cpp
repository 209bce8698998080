// Catmull-Rom interpolation: exact for (bi)quadratics on non-uniform grids, third-order
// convergence for smooth functions, and continuity across cell boundaries.
#include <gtest/gtest.h>

#include <cmath>

#include "parity/grid/axis.hpp"
#include "parity/grid/spacing.hpp"
#include "parity/interp/catmull_rom.hpp"
#include "test_backend.hpp"

namespace parity_test_catmull_rom {

using parity::test::ExecSpace;
using parity::test::MemSpace;
using Axis = parity::grid::Axis<double, MemSpace>;

KOKKOS_INLINE_FUNCTION double biquad(double x, double y) {
  return (1 + 2 * x - 0.5 * x * x) * (0.3 - y + 0.8 * y * y) + 0.25 * x * x * y;
}

double biquadratic_max_error(int n) {
  auto const nx = parity::grid::power_nodes(0.0, 5.0, n, 2.5);
  auto const ny = parity::grid::clustered_nodes(-2.0, 2.0, n + 2, 0.5, 4.0);
  Axis ax("x", nx), ay("y", ny);
  Kokkos::View<double**, MemSpace> v("values", nx.size(), ny.size());
  auto vh = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < nx.size(); ++i)
    for (std::size_t j = 0; j < ny.size(); ++j) vh(i, j) = biquad(nx[i], ny[j]);
  Kokkos::deep_copy(v, vh);
  double max_err = 0;
  Kokkos::parallel_reduce(
      "parity::test::catmull_rom_exact", Kokkos::RangePolicy<ExecSpace>(0, 4000),
      KOKKOS_LAMBDA(int s, double& e) {
        double const x = 5.0 * ((s * 37) % 1000) / 999.0;
        double const y = -2.0 + 4.0 * ((s * 91) % 997) / 996.0;
        e = Kokkos::max(e, Kokkos::abs(parity::interp::catmull_rom(ax, ay, v, x, y) - biquad(x, y)));
      },
      Kokkos::Max<double>(max_err));
  return max_err;
}

// Max error on a fine sample for a smooth function on an n-node non-uniform grid.
double smooth_max_error(int n) {
  auto const nx = parity::grid::power_nodes(0.0, 3.0, n, 1.5);
  Axis ax("x", nx);
  std::vector<double> f(n);
  for (int i = 0; i < n; ++i) f[i] = std::sin(2 * nx[i]) + std::exp(-nx[i]);
  auto v = parity::test::to_device(f);
  double max_err = 0;
  Kokkos::parallel_reduce(
      "parity::test::catmull_rom_order", Kokkos::RangePolicy<ExecSpace>(0, 20001),
      KOKKOS_LAMBDA(int s, double& e) {
        double const x = 3.0 * s / 20000.0;
        double const exact = Kokkos::sin(2 * x) + Kokkos::exp(-x);
        e = Kokkos::max(e, Kokkos::abs(parity::interp::catmull_rom(ax, v, x) - exact));
      },
      Kokkos::Max<double>(max_err));
  return max_err;
}

// Per node: the jump across it and the deviation from the node value.
void continuity(std::vector<double>& jump_out, std::vector<double>& node_err_out) {
  auto const nx = parity::grid::clustered_nodes(-1.0, 1.0, 12, 0.0, 6.0);
  Axis ax("x", nx);
  std::vector<double> f(nx.size());
  for (std::size_t i = 0; i < nx.size(); ++i) f[i] = std::cos(3 * nx[i]);
  auto v = parity::test::to_device(f);
  auto nodes = parity::test::to_device(nx);
  int const n = int(nx.size());
  Kokkos::View<double*, MemSpace> jump("jump", n), at_node("at_node", n);
  Kokkos::parallel_for(
      "parity::test::catmull_rom_continuity", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int i) {
        double const x = nodes(i), eps = 1e-9;
        jump(i) =
            Kokkos::abs(parity::interp::catmull_rom(ax, v, x - eps) - parity::interp::catmull_rom(ax, v, x + eps));
        at_node(i) = Kokkos::abs(parity::interp::catmull_rom(ax, v, x) - v(i));
      });
  jump_out = parity::test::to_host(jump);
  node_err_out = parity::test::to_host(at_node);
}

TEST(CatmullRom, ExactForBiquadraticsOnNonUniformGrids) {
  for (int n : {3, 4, 9}) EXPECT_LT(biquadratic_max_error(n), 1e-11) << "n = " << n;
}

TEST(CatmullRom, ThirdOrderConvergence) {
  double const e1 = smooth_max_error(41), e2 = smooth_max_error(81), e3 = smooth_max_error(161);
  EXPECT_GT(std::log2(e1 / e2), 2.7);
  EXPECT_GT(std::log2(e2 / e3), 2.7);
  EXPECT_LT(e3, 5e-5);  // sanity bound; the one-sided boundary slopes dominate
}

TEST(CatmullRom, ContinuousAcrossCellsAndInterpolatesNodes) {
  std::vector<double> jump, node_err;
  continuity(jump, node_err);
  for (double j : jump) EXPECT_LT(j, 1e-7);
  for (double e : node_err) EXPECT_LT(e, 1e-14);
}

}  // namespace parity_test_catmull_rom
