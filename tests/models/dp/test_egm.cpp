// The endogenous grid method against the closed form of the consumption-saving problem without
// income (CRRA: c = kappa R a) and against value function iteration on the same problem with
// income risk (a second method); Young's distribution against closed forms (identity and constant
// savings) and its conservation of mass and of the mean.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "parity/dp/distribution.hpp"
#include "parity/dp/egm.hpp"
#include "parity/dp/value_iteration.hpp"
#include "test_backend.hpp"

namespace parity_test_dp_egm {

using parity::test::ExecSpace;

struct Household {
  double gamma, R, w;
  template <class Real>
  KOKKOS_FUNCTION Real marginal_utility(Real c) const {
    return Kokkos::pow(c, Real(-gamma));
  }
  template <class Real>
  KOKKOS_FUNCTION Real inverse_marginal_utility(Real m) const {
    return Kokkos::pow(m, Real(-1 / gamma));
  }
  template <class Real>
  KOKKOS_FUNCTION Real cash(Real z, Real a) const {
    return Real(R) * a + Real(w) * z;
  }
  template <class Real>
  KOKKOS_FUNCTION Real assets_for_cash(Real z, Real m) const {
    return (m - Real(w) * z) / Real(R);
  }
  // The same household for value function iteration: u(c) = c^(1-gamma) / (1-gamma).
  template <class Real>
  KOKKOS_FUNCTION Real reward(Real z, Real a, Real a_next) const {
    Real const c = cash(z, a) - a_next;
    return c > 0 ? Kokkos::pow(c, Real(1 - gamma)) / Real(1 - gamma) : -Kokkos::Experimental::infinity<Real>::value;
  }
};

std::vector<double> linear_grid(double lo, double hi, int n) {
  std::vector<double> g(n);
  for (int i = 0; i < n; ++i) g[i] = lo + (hi - lo) * i / (n - 1);
  return g;
}

TEST(DpEgm, NoIncomeMatchesTheClosedForm) {
  // Without income, c = kappa R a with kappa = 1 - (beta R^(1-gamma))^(1/gamma): linear, so the
  // interpolation is exact and the method's fixed point is the closed form itself.
  double const gamma = 2, R = 1.06, beta = 0.96;
  Household const h{gamma, R, 0.0};
  parity::dp::EndogenousGridProblem<Household> p{h, linear_grid(1.0, 50.0, 60), {{1.0}, {1.0}}, beta, R};
  parity::dp::PolicyOptions opt;
  opt.tolerance = 1e-12;
  auto const r = parity::dp::solve<double>(ExecSpace{}, p, opt);
  ASSERT_EQ(r.status, parity::dp::Status::converged) << r.iterations;
  double const kappa = 1 - std::pow(beta * std::pow(R, 1 - gamma), 1 / gamma);
  for (std::size_t i = 0; i < p.grid.size(); ++i) {
    EXPECT_NEAR(r.consumption[i] / (kappa * R * p.grid[i]), 1.0, 1e-8) << i;
    EXPECT_NEAR(r.saving[i] / ((1 - kappa) * R * p.grid[i]), 1.0, 1e-8) << i;
  }
}

TEST(DpEgm, IncomeRiskAgreesWithValueFunctionIteration) {
  // Two income states, borrowing limit 0: EGM's continuous a' and VFI's best grid point differ by
  // less than one grid step wherever both are interior.
  double const gamma = 2, R = 1.03, beta = 0.95;
  Household const h{gamma, R, 1.0};
  parity::markov::Chain const income{{0.5, 1.5}, {0.8, 0.2, 0.2, 0.8}};
  auto const grid = linear_grid(0.0, 12.0, 241);
  parity::dp::EndogenousGridProblem<Household> p{h, grid, income, beta, R};
  parity::dp::PolicyOptions opt;
  opt.tolerance = 1e-11;
  auto const egm = parity::dp::solve<double>(ExecSpace{}, p, opt);
  ASSERT_EQ(egm.status, parity::dp::Status::converged);
  parity::dp::Options vopt;
  vopt.tolerance = 1e-9;
  vopt.howard_steps = 50;
  vopt.search = parity::dp::Search::concave;
  auto const vfi =
      parity::dp::solve<double>(ExecSpace{}, parity::dp::GridChoiceProblem<Household>{h, grid, income, beta}, vopt);
  ASSERT_EQ(vfi.status, parity::dp::Status::converged);
  double const step = grid[1] - grid[0];
  int compared = 0;
  for (std::size_t at = 0; at < egm.saving.size(); ++at) {
    if (grid[at % grid.size()] > 10.0) continue;  // near the top, a' would leave the grid
    EXPECT_LE(std::abs(egm.saving[at] - vfi.policy_value[at]), step) << at;
    ++compared;
    // Budget: c + a' = R a + w z.
    EXPECT_NEAR(egm.consumption[at] + egm.saving[at], R * grid[at % grid.size()] + income.values[at / grid.size()],
                1e-12);
  }
  EXPECT_GT(compared, 300);
  // The limit binds for the poor in the low state: they save nothing.
  EXPECT_EQ(egm.saving[0], 0.0);
}

TEST(DpDistribution, ClosedFormsAndConservation) {
  parity::markov::Chain const chain{{0.5, 1.5}, {0.9, 0.1, 0.3, 0.7}};  // stationary (0.75, 0.25)
  auto const grid = linear_grid(0.0, 9.0, 10);
  // Identity: each a stays; the chain's stationary distribution, spread evenly, is stationary.
  std::vector<double> keep(20);
  for (int i = 0; i < 20; ++i) keep[i] = grid[i % 10];
  auto const d = parity::dp::stationary_distribution<double>(ExecSpace{}, grid, chain, keep);
  ASSERT_EQ(d.status, parity::dp::Status::converged);
  for (int i = 0; i < 10; ++i) {
    EXPECT_NEAR(d.mass[i], 0.075, 1e-13);
    EXPECT_NEAR(d.mass[10 + i], 0.025, 1e-13);
  }
  // Everyone saves 3.25, between grid points 3 and 4: mass 0.75 and 0.25 there, times pi(z).
  std::vector<double> constant(20, 3.25);
  auto const c = parity::dp::stationary_distribution<double>(ExecSpace{}, grid, chain, constant);
  ASSERT_EQ(c.status, parity::dp::Status::converged);
  EXPECT_NEAR(c.mass[3], 0.75 * 0.75, 1e-13);
  EXPECT_NEAR(c.mass[4], 0.75 * 0.25, 1e-13);
  EXPECT_NEAR(c.mass[13], 0.25 * 0.75, 1e-13);
  EXPECT_NEAR(c.mass[14], 0.25 * 0.25, 1e-13);
  EXPECT_NEAR(parity::dp::mean(grid, c.mass), 3.25, 1e-13);  // the lottery keeps the mean
  // A saving rule that mixes: the stationary mean equals the mean of the savings it implies, and
  // the masses sum to 1.
  std::vector<double> mix(20);
  for (int i = 0; i < 10; ++i) mix[i] = 0.6 * grid[i] + 0.7, mix[10 + i] = std::min(0.8 * grid[i] + 2.2, 9.0);
  auto const m = parity::dp::stationary_distribution<double>(ExecSpace{}, grid, chain, mix);
  ASSERT_EQ(m.status, parity::dp::Status::converged);
  double total = 0, implied = 0;
  for (int at = 0; at < 20; ++at) total += m.mass[at], implied += m.mass[at] * mix[at];
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_NEAR(parity::dp::mean(grid, m.mass), implied, 1e-10);
  // A non-monotone rule (a permutation of the grid) takes the general path: the even spread stays.
  std::vector<double> swap(20);
  for (int i = 0; i < 20; ++i) swap[i] = grid[(i * 7) % 10];
  auto const s = parity::dp::stationary_distribution<double>(ExecSpace{}, grid, chain, swap);
  ASSERT_EQ(s.status, parity::dp::Status::converged);
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(s.mass[i], 0.075, 1e-13);
}

// Savings flat over long stretches (the borrowing limit binding over thousands of points, and a
// plateau inside the grid) send long runs of cells into one grid point; their masses come from
// block sums. Checked against the explicit Young transition iterated on the host, cell by cell.
TEST(DpDistribution, LongRunsMatchTheExplicitTransition) {
  parity::markov::Chain const chain{{0.5, 1.5}, {0.9, 0.1, 0.3, 0.7}};
  int const nk = 5000;
  auto const grid = linear_grid(0.0, 10.0, nk);
  std::vector<double> saving(2 * nk);
  for (int i = 0; i < nk; ++i) {
    double const a = grid[i];
    saving[i] = a < 4.0 ? 0.0 : 0.9 * (a - 4.0);  // 2,000 cells at the limit
    saving[nk + i] = a < 2.0 ? 0.2 * a : (a < 6.0 ? 3.00013 : 0.95 * a);  // a plateau between nodes
  }
  parity::dp::DistributionOptions opt;
  opt.tolerance = 1e-14;
  auto const d = parity::dp::stationary_distribution<double>(ExecSpace{}, grid, chain, saving, opt);
  ASSERT_EQ(d.status, parity::dp::Status::converged);

  // The host reference: the same lottery (weight to the lower node) and chain, one step at a time.
  std::vector<double> mu(2 * nk), next(2 * nk);
  for (int z = 0; z < 2; ++z)
    for (int i = 0; i < nk; ++i) mu[z * nk + i] = (z == 0 ? 0.75 : 0.25) / nk;
  double const h = grid[1] - grid[0];
  for (int step = 0; step < 20000; ++step) {
    std::fill(next.begin(), next.end(), 0.0);
    for (int z = 0; z < 2; ++z)
      for (int i = 0; i < nk; ++i) {
        double const a = std::clamp(saving[z * nk + i], grid[0], grid[nk - 1]);
        int const j = std::min(int(a / h), nk - 2);
        double const w = (grid[j + 1] - a) / (grid[j + 1] - grid[j]);
        for (int zn = 0; zn < 2; ++zn) {
          next[zn * nk + j] += chain.probability(z, zn) * w * mu[z * nk + i];
          next[zn * nk + j + 1] += chain.probability(z, zn) * (1 - w) * mu[z * nk + i];
        }
      }
    double change = 0;
    for (int at = 0; at < 2 * nk; ++at) change = std::max(change, std::abs(next[at] - mu[at]));
    mu.swap(next);
    if (change < 1e-15) break;
  }
  double worst = 0, total = 0;
  for (int at = 0; at < 2 * nk; ++at) worst = std::max(worst, std::abs(d.mass[at] - mu[at])), total += d.mass[at];
  EXPECT_LT(worst, 1e-11);
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_GT(d.mass[0], 0.3);  // the limit holds much of the mass: the long run was exercised
}

}  // namespace parity_test_dp_egm
