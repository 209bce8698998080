// Axis construction and the device cell lookup, checked against a brute-force scan.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "parity/grid/axis.hpp"
#include "parity/grid/spacing.hpp"
#include "test_backend.hpp"

namespace parity_test_axis {

using parity::test::ExecSpace;
using parity::test::MemSpace;

template <class Real>
std::vector<int> device_cells(parity::grid::Axis<Real, MemSpace> const& ax, std::vector<Real> const& xs) {
  auto x = parity::test::to_device(xs);
  Kokkos::View<int*, MemSpace> cells("cells", xs.size());
  Kokkos::parallel_for(
      "parity::test::axis_cells", Kokkos::RangePolicy<ExecSpace>(0, xs.size()),
      KOKKOS_LAMBDA(int i) { cells(i) = ax.cell(x(i)); });
  return parity::test::to_host(cells);
}

// The reference: last node <= clamp(x), capped at n-2.
template <class Real>
int brute_force_cell(std::vector<Real> const& nodes, Real x) {
  int const n = int(nodes.size());
  x = std::clamp(x, nodes.front(), nodes.back());
  int c = 0;
  for (int i = 0; i < n - 1; ++i)
    if (nodes[i] <= x) c = i;
  return c;
}

template <class Real>
void check_lookup(std::vector<double> const& nodes_d) {
  parity::grid::Axis<Real, MemSpace> ax("test", nodes_d);
  std::vector<Real> nodes(nodes_d.begin(), nodes_d.end());
  std::vector<Real> xs;
  std::mt19937 rng(7);
  double const lo = nodes_d.front(), hi = nodes_d.back(), span = hi - lo;
  std::uniform_real_distribution<double> u(lo - 0.2 * span, hi + 0.2 * span);
  for (int i = 0; i < 20000; ++i) xs.push_back(Real(u(rng)));
  for (auto v : nodes) xs.push_back(v);  // exactly on nodes
  for (auto v : nodes) xs.push_back(std::nextafter(v, Real(-1e30)));
  auto const cells = device_cells(ax, xs);
  for (std::size_t i = 0; i < xs.size(); ++i) ASSERT_EQ(cells[i], brute_force_cell(nodes, xs[i])) << "x = " << xs[i];
}

TEST(Axis, LookupUniform) {
  check_lookup<double>(parity::grid::uniform_nodes(-1.0, 2.0, 37));
  check_lookup<float>(parity::grid::uniform_nodes(-1.0, 2.0, 37));
}

TEST(Axis, LookupPowerSpaced) {
  // Strongly non-uniform: many nodes packed near the lower end, as in capital grids.
  check_lookup<double>(parity::grid::power_nodes(0.0, 1000.0, 100, 7.0));
  check_lookup<float>(parity::grid::power_nodes(0.0, 1000.0, 100, 4.0));
}

TEST(Axis, LookupClustered) {
  check_lookup<double>(parity::grid::clustered_nodes(-5.0, 5.0, 64, 1.0, 20.0));
  check_lookup<double>(parity::grid::clustered_nodes(-5.0, 5.0, 2, 0.0, 3.0));
}

TEST(Axis, SpacingGenerators) {
  auto const u = parity::grid::uniform_nodes(0.0, 1.0, 11);
  EXPECT_DOUBLE_EQ(u[3], 0.3);
  auto const p = parity::grid::power_nodes(0.0, 100.0, 11, 2.0);
  EXPECT_NEAR(p[5], 25.0, 1e-12);  // 100 * 0.5^2
  EXPECT_LT(p[1] - p[0], p[10] - p[9]);
  auto const c = parity::grid::clustered_nodes(-1.0, 1.0, 41, 0.25, 10.0);
  EXPECT_EQ(c.front(), -1.0);
  EXPECT_EQ(c.back(), 1.0);
  // Spacing is smallest around the center and grows away from it.
  auto const closest =
      std::min_element(c.begin(), c.end(), [](double a, double b) { return std::abs(a - 0.25) < std::abs(b - 0.25); });
  auto const k = closest - c.begin();
  EXPECT_LT(c[k + 1] - c[k], c[1] - c[0]);
  EXPECT_LT(c[k + 1] - c[k], c[40] - c[39]);
  for (std::size_t i = 0; i + 1 < c.size(); ++i) EXPECT_LT(c[i], c[i + 1]);
}

// An interior center is a node for every node count, odd or even, on symmetric and lopsided ranges,
// with and without concentration; the nodes stay strictly increasing and end at the range's ends.
// Odd counts on a symmetric range keep the mirror-symmetric placement.
TEST(Axis, ClusteredNodesContainTheCenter) {
  struct Case {
    double lo, hi, center, concentration;
  };
  Case const cases[] = {{-4.0, 4.0, 0.0, 3.0}, {-10.0, 10.0, 0.0, 3.0}, {-1.0, 3.0, 0.0, 5.0},
                        {-4.0, 4.0, 0.0, 0.0}, {0.0, 1.0, 0.9, 2.0},    {-4.0, 4.0, 3.9, 20.0}};
  for (auto const& c : cases)
    for (int n = 3; n <= 260; n += (n < 20 ? 1 : 13)) {
      auto const x = parity::grid::clustered_nodes(c.lo, c.hi, n, c.center, c.concentration);
      ASSERT_EQ(int(x.size()), n);
      EXPECT_EQ(x.front(), c.lo);
      EXPECT_EQ(x.back(), c.hi);
      EXPECT_EQ(std::count(x.begin(), x.end(), c.center), 1) << "n = " << n << ", center " << c.center;
      for (int i = 0; i + 1 < n; ++i) ASSERT_LT(x[i], x[i + 1]) << "n = " << n << ", i = " << i;
      if (c.lo == -c.hi && c.center == 0 && n % 2 == 1)
        for (int i = 0; i < n; ++i) EXPECT_EQ(x[i], -x[n - 1 - i]) << "n = " << n;
    }
  // An even count on a symmetric range: the nodes on the two sides differ by one.
  auto const x = parity::grid::clustered_nodes(-4.0, 4.0, 16, 0.0, 3.0);
  auto const below = std::count_if(x.begin(), x.end(), [](double v) { return v < 0; });
  EXPECT_EQ(std::abs(2 * below - 15), 1);
}

TEST(Axis, RejectsBadNodes) {
  using Ax = parity::grid::Axis<double, MemSpace>;
  EXPECT_THROW(Ax("bad", std::vector<double>{1.0}), parity::InvalidInput);
  EXPECT_THROW(Ax("bad", std::vector<double>{0.0, 1.0, 1.0}), parity::InvalidInput);
  EXPECT_THROW(Ax("bad", std::vector<double>{0.0, 2.0, 1.0}), parity::InvalidInput);
  EXPECT_THROW(parity::grid::uniform_nodes(1.0, 1.0, 5), parity::InvalidInput);
  EXPECT_THROW(parity::grid::uniform_nodes(0.0, 1.0, 1), parity::InvalidInput);
  EXPECT_THROW(parity::grid::clustered_nodes(0.0, 1.0, 5, 2.0, 1.0), parity::InvalidInput);
  // Distinct in double, equal in float: rejected for float.
  EXPECT_THROW((parity::grid::Axis<float, MemSpace>("bad", {0.0, 1.0, 1.0 + 1e-12})), parity::InvalidInput);
}

}  // namespace parity_test_axis
