// Where the Euler-equation errors of the default Krusell-Smith policy lie. The policy is solved
// by the endogenous-grid iteration for the default calibration and the law of motion the default
// solve converges to; its errors |1 - c_euler / c| are then measured at every grid node and at
// every midpoint between nodes (k and K).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "parity/krusell_smith/calibration.hpp"
#include "parity/krusell_smith/solver.hpp"
#include "test_backend.hpp"

namespace parity_test_krusell_smith_euler {

using parity::test::ExecSpace;
using parity::test::MemSpace;
namespace ks = parity::krusell_smith;

struct Solved {
  ks::Params p;
  std::vector<double> k_nodes, K_nodes;
  // The device's layout (LayoutLeft on CUDA), so that mirrors of device Views assign to them.
  using HostGrid = Kokkos::View<double***, parity::test::MemSpace::execution_space::array_layout, Kokkos::HostSpace>;
  HostGrid g;  // g(s, i, j)
  HostGrid on, off;  // errors at nodes / midpoints
  double solve_on_max = 0, solve_off_max = 0, on_mean = 0, off_mean = 0;
};

Solved solve_default_policy() {
  Solved r;
  auto const& p = r.p;
  auto const chain = ks::build_chain(p);
  r.k_nodes = parity::grid::power_nodes(p.k_min, p.k_max, p.nk, p.k_power);
  r.K_nodes = parity::grid::uniform_nodes(p.K_min, p.K_max, p.nK);
  using Axis = parity::grid::Axis<double, MemSpace>;
  Axis const axk("k", r.k_nodes), axK("K", r.K_nodes);
  ExecSpace space;
  Kokkos::View<double***, MemSpace> g("g", 4, p.nk, p.nK), g2("g2", 4, p.nk, p.nK), ke("ke", 4, p.nk, p.nK);
  auto gh = Kokkos::create_mirror_view(g);
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i < p.nk; ++i)
      for (int j = 0; j < p.nK; ++j) gh(s, i, j) = 0.9 * r.k_nodes[i];
  Kokkos::deep_copy(g, gh);
  // The default solve's converged law of motion (its coeffs.txt).
  auto const model = ks::detail::make_model<double>(
      p, chain, {0.13751715280577195, 0.963308153885579, 0.12593808092383507, 0.96500625399691509});
  double change = 1;
  int it = 0;
  for (; it < p.policy_max_iter && change > p.policy_tol; ++it) {
    change = ks::detail::kernels::euler_update(space, model, axk, axK, g, g2, ke, true);
    std::swap(g, g2);
  }
  EXPECT_LE(change, p.policy_tol) << "the Euler iteration converges (" << it << " iterations)";
  double const cap = std::min(p.k_max, 5.0 * p.K_max);
  ks::detail::kernels::euler_errors(space, model, axk, axK, g, true, false, cap, r.solve_on_max, r.on_mean);
  ks::detail::kernels::euler_errors(space, model, axk, axK, g, true, true, cap, r.solve_off_max, r.off_mean);
  r.on = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), ks::detail::kernels::euler_error_field(space, model, axk, axK, g, true, false));
  r.off = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), ks::detail::kernels::euler_error_field(space, model, axk, axK, g, true, true));
  r.g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g);
  return r;
}

// The default solve reports an off-grid maximum of about 0.18 against 1.5e-3 on the nodes. It
// lies where the policy of the unemployed in good times meets the borrowing constraint: there
// g = max(k_min, smooth) has a kink between two k nodes (and between K nodes, as the kink moves
// with K), and the bicubic interpolant of the node values cannot follow it, so at midpoints whose
// interpolation stencil holds a constrained node the interpolated saving is wrong by a fraction
// of the small consumption there. Everywhere else the interpolation is accurate: off-grid errors
// of cells whose 4-node k stencil holds no constrained node stay within 1e-2 (measured: max
// 3.9e-3, for the unemployed in bad times just above their own kink; mean 1.1e-4 over 777 of the
// points with k <= 250).
TEST(KrusellSmithEulerErrors, OffGridMaximumLiesAtTheBorrowingConstraintKink) {
  Solved const r = solve_default_policy();
  auto const& p = r.p;
  double const cap = std::min(p.k_max, 5.0 * p.K_max);
  // A node of cell i's 4-point k stencil where the policy is constrained, at any K node.
  auto constrained_near = [&](int s, int i) {
    for (int q = std::max(i - 1, 0); q <= std::min(i + 2, p.nk - 1); ++q)
      for (int j = 0; j < p.nK; ++j)
        if (r.g(s, q, j) <= p.k_min) return true;
    return false;
  };
  double worst = 0, max_away = 0, sum_away = 0;
  long count_away = 0;
  int ws = 0, wi = 0, wj = 0, as = 0, ai = 0, aj = 0;
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i + 1 < p.nk; ++i)
      for (int j = 0; j + 1 < p.nK; ++j) {
        double const k = 0.5 * (r.k_nodes[i] + r.k_nodes[i + 1]), e = r.off(s, i, j);
        if (k > cap) continue;
        if (e > worst) worst = e, ws = s, wi = i, wj = j;
        if (constrained_near(s, i)) continue;
        if (e > max_away) max_away = e, as = s, ai = i, aj = j;
        sum_away += e, ++count_away;
      }
  std::printf(
      "off-grid max %.4g at state (z %d, employed %d), k in [%.4g, %.4g], K in [%.4g, %.4g]; policy at the "
      "cell's k nodes and lower K node: %.4g %.4g\n",
      worst, ws / 2, ws % 2, r.k_nodes[wi], r.k_nodes[wi + 1], r.K_nodes[wj], r.K_nodes[wj + 1], r.g(ws, wi, wj),
      r.g(ws, wi + 1, wj));
  std::printf(
      "away from the constraint: max %.4g at state (z %d, employed %d), k in [%.4g, %.4g], K in [%.4g, %.4g]; "
      "mean %.3g over %ld points; on-grid max %.4g\n",
      max_away, as / 2, as % 2, r.k_nodes[ai], r.k_nodes[ai + 1], r.K_nodes[aj], r.K_nodes[aj + 1],
      sum_away / double(count_away), count_away, r.solve_on_max);
  EXPECT_EQ(worst, r.solve_off_max) << "the field and the solve's reduction measure the same points";
  EXPECT_GT(worst, 0.05) << "the kink's error (0.18 measured); if it is gone, update this test and the docs";
  EXPECT_TRUE(constrained_near(ws, wi)) << "the largest off-grid error lies at the borrowing constraint";
  EXPECT_EQ(ws, 0) << "the unemployed in good times (the constraint binds for them at k < 0.3 or so)";
  EXPECT_LT(max_away, 1e-2) << "away from the constraint the interpolated policy is accurate";
  EXPECT_LT(sum_away / double(count_away), 5e-4);
  EXPECT_LT(r.solve_on_max, 2e-3);
  EXPECT_GT(count_away, 4L * 60 * 3) << "most points are away from the constraint";
}

}  // namespace parity_test_krusell_smith_euler
