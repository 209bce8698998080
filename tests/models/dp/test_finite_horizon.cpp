// Backward induction against the finite-horizon growth model's closed form (log utility,
// Cobb-Douglas output, full depreciation: with n periods left after this one, k' = s_n z k^alpha,
// s_n = ab (1 - ab^n) / (1 - ab^(n+1)), ab = alpha beta, whatever the chain of z), and against a
// plain host loop of the same recursion with an age-dependent reward; refused problems.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "parity/dp/finite_horizon.hpp"
#include "parity/markov/ar1.hpp"
#include "test_backend.hpp"

namespace parity_test_dp_finite_horizon {

using parity::test::ExecSpace;

constexpr double alpha = 0.36, beta = 0.95;

struct Growth {
  double alpha;
  template <class Real>
  KOKKOS_FUNCTION Real reward(Real z, Real k, Real k_next) const {
    Real const c = z * Kokkos::pow(k, Real(alpha)) - k_next;
    return c > 0 ? Kokkos::log(c) : -Kokkos::Experimental::infinity<Real>::value;
  }
};

// Output scaled by an age profile (rising, then falling): the reward depends on t.
struct AgedGrowth {
  double alpha;
  KOKKOS_FUNCTION static double profile(int t) { return 1.0 + 0.05 * t - 0.002 * t * t; }
  template <class Real>
  KOKKOS_FUNCTION Real reward(int t, Real z, Real k, Real k_next) const {
    Real const c = Real(profile(t)) * z * Kokkos::pow(k, Real(alpha)) - k_next;
    return c > 0 ? Kokkos::log(c) : -Kokkos::Experimental::infinity<Real>::value;
  }
};

template <class Model>
parity::dp::GridChoiceProblem<Model> problem(Model m, int nk, double lo, double hi) {
  auto chain = parity::markov::tauchen(parity::markov::Ar1{0.9, 0.02, 0.0}, 5, 3.0);
  for (double& v : chain.values) v = std::exp(v);
  std::vector<double> grid(nk);
  for (int i = 0; i < nk; ++i) grid[i] = lo + (hi - lo) * i / (nk - 1);
  return {m, grid, chain, beta};
}

TEST(DpFiniteHorizon, GrowthModelPolicyMatchesTheClosedFormInEveryPeriod) {
  double const ks = std::pow(alpha * beta, 1 / (1 - alpha));
  auto const p = problem(Growth{alpha}, 301, 0.02 * ks, 2.0 * ks);
  parity::dp::FiniteHorizonOptions opt;
  opt.periods = 12;
  opt.monotone = true;
  opt.search = parity::dp::Search::concave;
  auto const r = parity::dp::solve_finite_horizon<double>(ExecSpace{}, p, opt);
  ASSERT_EQ(r.status, parity::dp::Status::converged);
  double const h = p.grid[1] - p.grid[0], ab = alpha * beta;
  int checked = 0;
  for (int t = 0; t < opt.periods; ++t) {
    int const n = opt.periods - 1 - t;  // periods left after this one
    double const s = ab * (1 - std::pow(ab, n)) / (1 - std::pow(ab, n + 1));
    for (int z = 0; z < 5; ++z)
      for (int i = 0; i < 301; ++i) {
        double const kn = s * p.exogenous.values[z] * std::pow(p.grid[i], alpha);
        double const want = std::clamp(kn, p.grid.front(), p.grid.back());
        // Within two nodes: the nearest node to the optimum, and one more because V_{t+1} is itself
        // the grid's value, not the closed form's.
        EXPECT_LE(std::abs(r.policy_value[r.at(t, z, i)] - want), 2 * h) << t << " " << z << " " << i;
        checked += kn > p.grid.front();
      }
  }
  EXPECT_GT(checked, 5 * 301 * (opt.periods - 1) / 2);  // most states have an interior optimum
  for (int i = 0; i < 301; ++i) EXPECT_EQ(r.value_at(opt.periods, 0, i), 0.0);  // V_T = 0
}

// The same recursion written out on the host, in double, every choice tried.
std::vector<double> host_backward_induction(parity::dp::GridChoiceProblem<AgedGrowth> const& p, int T,
                                            std::vector<double> terminal) {
  int const nz = int(p.exogenous.size()), nk = int(p.grid.size());
  std::vector<double> V = terminal, all;
  for (int t = T - 1; t >= 0; --t) {
    std::vector<double> next(V.size());
    for (int z = 0; z < nz; ++z)
      for (int i = 0; i < nk; ++i) {
        double best = -std::numeric_limits<double>::infinity();
        for (int j = 0; j < nk; ++j) {
          double ev = 0;
          for (int zn = 0; zn < nz; ++zn) ev += p.exogenous.probability(z, zn) * V[zn * nk + j];
          best = std::max(best, p.model.reward(t, p.exogenous.values[z], p.grid[i], p.grid[j]) + p.beta * ev);
        }
        next[z * nk + i] = best;
      }
    V = next;
    all.insert(all.begin(), V.begin(), V.end());
  }
  return all;  // V_0 .. V_{T-1}
}

TEST(DpFiniteHorizon, AgeDependentRewardMatchesAHostLoop) {
  double const ks = std::pow(alpha * beta, 1 / (1 - alpha));
  auto const p = problem(AgedGrowth{alpha}, 41, 0.1 * ks, 2.0 * ks);
  int const T = 8;
  std::vector<double> terminal(5 * 41);
  for (int z = 0; z < 5; ++z)
    for (int i = 0; i < 41; ++i) terminal[z * 41 + i] = 0.5 * std::log(p.grid[i]);  // a bequest motive
  parity::dp::FiniteHorizonOptions opt;
  opt.periods = T;
  opt.terminal_value = terminal;
  auto const r = parity::dp::solve_finite_horizon<double>(ExecSpace{}, p, opt);
  ASSERT_EQ(r.status, parity::dp::Status::converged);
  auto const want = host_backward_induction(p, T, terminal);
  for (std::size_t a = 0; a < want.size(); ++a) EXPECT_NEAR(r.value[a], want[a], 1e-12 * (1 + std::abs(want[a]))) << a;
  for (std::size_t a = 0; a < terminal.size(); ++a) EXPECT_EQ(r.value[T * terminal.size() + a], terminal[a]);
  // The age profile matters: a reward without it gives other values.
  auto const flat =
      parity::dp::solve_finite_horizon<double>(ExecSpace{}, problem(Growth{alpha}, 41, 0.1 * ks, 2.0 * ks), opt);
  EXPECT_GT(std::abs(flat.value[0] - r.value[0]), 1e-3);
}

TEST(DpFiniteHorizon, RefusesBadOptions) {
  auto const p = problem(Growth{alpha}, 11, 0.1, 1.0);
  parity::dp::FiniteHorizonOptions opt;
  opt.periods = 0;
  EXPECT_THROW(parity::dp::solve_finite_horizon<double>(ExecSpace{}, p, opt), parity::InvalidInput);
  opt.periods = 3;
  opt.terminal_value = {1.0};
  EXPECT_THROW(parity::dp::solve_finite_horizon<double>(ExecSpace{}, p, opt), parity::InvalidInput);
}

}  // namespace parity_test_dp_finite_horizon
