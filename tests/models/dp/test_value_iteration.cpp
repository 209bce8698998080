// Value function iteration against the stochastic growth model's closed form (log utility,
// Cobb-Douglas output, full depreciation: k' = alpha beta z k^alpha, V = A(z) + B ln k) with a
// derived bound on the grid's error; the concave search, Howard steps and MacQueen-Porteus bounds
// against the plain method's fixed point; and refused or infeasible problems.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "parity/dp/value_iteration.hpp"
#include "parity/markov/ar1.hpp"
#include "test_backend.hpp"

namespace parity_test_dp_value_iteration {

using parity::test::ExecSpace;

struct Growth {
  double alpha;
  template <class Real>
  KOKKOS_FUNCTION Real reward(Real z, Real k, Real k_next) const {
    Real const c = z * Kokkos::pow(k, Real(alpha)) - k_next;
    return c > 0 ? Kokkos::log(c) : -Kokkos::Experimental::infinity<Real>::value;
  }
};

constexpr double alpha = 0.36, beta = 0.95;

parity::dp::GridChoiceProblem<Growth> growth_problem(int nk) {
  // log z: Tauchen's 5 states for rho = 0.9, sigma_eps = 0.02; the chain carries z itself.
  auto chain = parity::markov::tauchen(parity::markov::Ar1{0.9, 0.02, 0.0}, 5, 3.0);
  for (double& v : chain.values) v = std::exp(v);
  double const ks = std::pow(alpha * beta, 1 / (1 - alpha));  // steady state at z = 1
  std::vector<double> grid(nk);
  for (int i = 0; i < nk; ++i) grid[i] = 0.2 * ks + (2.0 * ks - 0.2 * ks) * i / (nk - 1);
  return {Growth{alpha}, grid, chain, beta};
}

// A(z) of V(k, z) = A(z) + B ln k: A = c + beta P A, c(z) = ln(1 - ab) + beta B ln(ab) + (1 + beta B) ln z.
std::vector<double> closed_form_constants(parity::markov::Chain const& chain) {
  double const ab = alpha * beta, B = alpha / (1 - ab);
  std::size_t const n = chain.size();
  std::vector<double> A(n, 0.0), c(n);
  for (std::size_t z = 0; z < n; ++z)
    c[z] = std::log(1 - ab) + beta * B * std::log(ab) + (1 + beta * B) * std::log(chain.values[z]);
  for (int it = 0; it < 3000; ++it) {  // a contraction by beta: 3000 steps reach rounding
    std::vector<double> next(n);
    for (std::size_t z = 0; z < n; ++z) {
      next[z] = c[z];
      for (std::size_t zn = 0; zn < n; ++zn) next[z] += beta * chain.probability(z, zn) * A[zn];
    }
    A = next;
  }
  return A;
}

TEST(DpValueIteration, GrowthModelMatchesTheClosedForm) {
  int const nk = 201;
  auto const p = growth_problem(nk);
  parity::dp::Options opt;
  opt.tolerance = 1e-10;
  opt.howard_steps = 30;  // the same fixed point in fewer sweeps (checked in the next test)
  auto const r = parity::dp::solve<double>(ExecSpace{}, p, opt);
  ASSERT_EQ(r.status, parity::dp::Status::converged);
  double const h = p.grid[1] - p.grid[0], B = alpha / (1 - alpha * beta);
  auto const A = closed_form_constants(p.exogenous);
  // The grid's error in V: choosing the grid point nearest the optimum, at most h/2 away, loses at
  // most (1/2) max|Q''| (h/2)^2 a period, Q(k') = ln(z k^a - k') + beta E[A + B ln k'], so
  // 0 <= V - V_grid <= that / (1 - beta) (plus the iteration's beta/(1-beta) tolerance).
  double q2 = 0;
  for (std::size_t z = 0; z < p.exogenous.size(); ++z)
    for (double k : p.grid) {
      double const zv = p.exogenous.values[z], kn = alpha * beta * zv * std::pow(k, alpha);
      double const c = zv * std::pow(k, alpha) - kn - h;  // the smallest consumption within h of the optimum
      q2 = std::max(q2, 1 / (c * c) + beta * B / ((kn - h) * (kn - h)));
    }
  double const v_bound = 0.5 * q2 * (h / 2) * (h / 2) / (1 - beta) + beta / (1 - beta) * opt.tolerance;
  double worst_v = 0;
  for (std::size_t z = 0; z < p.exogenous.size(); ++z)
    for (int i = 0; i < nk; ++i) {
      std::size_t const at = z * nk + i;
      double const k = p.grid[i], zv = p.exogenous.values[z];
      EXPECT_LE(std::abs(r.policy_value[at] - alpha * beta * zv * std::pow(k, alpha)), h) << z << " " << i;
      double const v = A[z] + B * std::log(k);
      EXPECT_LE(r.value[at], v + beta / (1 - beta) * opt.tolerance + 1e-12);  // a grid only restricts choices
      worst_v = std::max(worst_v, v - r.value[at]);
    }
  EXPECT_LE(worst_v, v_bound);
  EXPECT_GT(worst_v, 0.0);
  EXPECT_EQ(r.residual_history.size(), std::size_t(r.iterations));
  EXPECT_LT(r.residual, opt.tolerance);
}

TEST(DpValueIteration, ConcaveSearchAndHowardStepsReachTheSameFixedPoint) {
  auto const p = growth_problem(101);
  parity::dp::Options plain;
  plain.tolerance = 1e-9;
  auto const a = parity::dp::solve<double>(ExecSpace{}, p, plain);
  auto concave = plain;
  concave.search = parity::dp::Search::concave;
  auto const b = parity::dp::solve<double>(ExecSpace{}, p, concave);
  EXPECT_EQ(a.policy, b.policy);  // the same maximiser in every state
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.iterations, b.iterations);
  auto howard = plain;
  howard.howard_steps = 40;
  auto const c = parity::dp::solve<double>(ExecSpace{}, p, howard);
  ASSERT_EQ(c.status, parity::dp::Status::converged);
  EXPECT_LT(c.iterations * 4, a.iterations);
  EXPECT_EQ(a.policy, c.policy);
  for (std::size_t i = 0; i < a.value.size(); ++i)
    EXPECT_NEAR(a.value[i], c.value[i], 2 * beta / (1 - beta) * plain.tolerance);
}

// The growth model's policy rises with k: the monotone search (alone and with the concave one)
// finds the exhaustive search's maximiser in every state, on grids whose size is and is not
// 2^m + 1 (the levels' points then fall on and between integers).
TEST(DpValueIteration, MonotoneSearchFindsTheExhaustiveMaximiser) {
  for (int nk : {2, 3, 33, 64}) {
    SCOPED_TRACE(nk);
    auto const p = growth_problem(nk);
    parity::dp::Options plain;
    plain.tolerance = 1e-5;  // every sweep's maximiser is compared, not only the last one's
    auto const a = parity::dp::solve<double>(ExecSpace{}, p, plain);
    for (auto search : {parity::dp::Search::exhaustive, parity::dp::Search::concave}) {
      auto mono = plain;
      mono.monotone = true;
      mono.search = search;
      auto const b = parity::dp::solve<double>(ExecSpace{}, p, mono);
      EXPECT_EQ(a.policy, b.policy);
      EXPECT_EQ(a.value, b.value);
      EXPECT_EQ(a.iterations, b.iterations);
    }
  }
}

// A reward whose best choice falls as k rises (k' = n-1-k on a grid of integers): the monotone
// search, declared wrongly, does not find it, so the test above is not vacuous.
struct Falling {
  template <class Real>
  KOKKOS_FUNCTION Real reward(Real, Real k, Real k_next) const {
    Real const d = k_next - (Real(20) - k);
    return -d * d;
  }
};

TEST(DpValueIteration, MonotoneSearchDeclaredWronglyMissesAFallingPolicy) {
  std::vector<double> grid(21);
  for (int i = 0; i < 21; ++i) grid[i] = i;
  parity::dp::GridChoiceProblem<Falling> p{Falling{}, grid, parity::markov::Chain{{1.0}, {1.0}}, 0.5};
  parity::dp::Options opt;
  opt.max_iterations = 3;
  auto const a = parity::dp::solve<double>(ExecSpace{}, p, opt);
  for (int i = 0; i < 21; ++i) EXPECT_EQ(a.policy[i], 20 - i);
  opt.monotone = true;
  auto const b = parity::dp::solve<double>(ExecSpace{}, p, opt);
  EXPECT_NE(a.policy, b.policy);
}

TEST(DpValueIteration, MacQueenPorteusBoundsContainTheFixedPoint) {
  auto const p = growth_problem(101);
  parity::dp::Options exact;
  exact.tolerance = 1e-11;
  exact.howard_steps = 30;
  auto const ref = parity::dp::solve<double>(ExecSpace{}, p, exact);
  parity::dp::Options loose;
  loose.tolerance = 1e-2;
  auto const r = parity::dp::solve<double>(ExecSpace{}, p, loose);
  ASSERT_EQ(r.status, parity::dp::Status::converged);
  EXPECT_LT(r.lower_bound, r.upper_bound);
  for (std::size_t i = 0; i < ref.value.size(); ++i) {
    EXPECT_GE(ref.value[i], r.value[i] + r.lower_bound - 1e-9) << i;
    EXPECT_LE(ref.value[i], r.value[i] + r.upper_bound + 1e-9) << i;
  }
  parity::dp::Options mqp;
  mqp.tolerance = 1e-6;
  mqp.macqueen_porteus = true;
  auto const m = parity::dp::solve<double>(ExecSpace{}, p, mqp);
  ASSERT_EQ(m.status, parity::dp::Status::converged);
  parity::dp::Options plain;
  plain.tolerance = 1e-6;
  EXPECT_LT(m.iterations, parity::dp::solve<double>(ExecSpace{}, p, plain).iterations / 2);
  for (std::size_t i = 0; i < ref.value.size(); ++i) EXPECT_NEAR(m.value[i], ref.value[i], 1e-6);
}

TEST(DpValueIteration, FloatPolicyWithinOneGridStepOfTheClosedForm) {
  auto const p = growth_problem(101);
  parity::dp::Options opt;
  opt.tolerance = 1e-4;
  auto const r = parity::dp::solve<float>(ExecSpace{}, p, opt);
  ASSERT_EQ(r.status, parity::dp::Status::converged);
  double const h = p.grid[1] - p.grid[0];
  for (std::size_t z = 0; z < p.exogenous.size(); ++z)
    for (std::size_t i = 0; i < p.grid.size(); ++i)
      EXPECT_LE(std::abs(r.policy_value[z * p.grid.size() + i] -
                         alpha * beta * p.exogenous.values[z] * std::pow(p.grid[i], alpha)),
                h * 1.01);
}

TEST(DpValueIteration, RefusesBadProblemsAndReportsInfeasibleOnes) {
  auto p = growth_problem(11);
  p.beta = 1.0;
  EXPECT_THROW(parity::dp::solve<double>(ExecSpace{}, p), parity::InvalidInput);
  p = growth_problem(11);
  std::swap(p.grid[2], p.grid[3]);
  EXPECT_THROW(parity::dp::solve<double>(ExecSpace{}, p), parity::InvalidInput);
  p = growth_problem(11);
  parity::dp::Options opt;
  opt.initial_value = {1.0, 2.0};
  EXPECT_THROW(parity::dp::solve<double>(ExecSpace{}, p, opt), parity::InvalidInput);
  // No feasible choice from the lowest capital when every k' costs more than output.
  p = growth_problem(11);
  for (double& k : p.grid) k += 10.0;
  auto const r = parity::dp::solve<double>(ExecSpace{}, p);
  EXPECT_EQ(r.status, parity::dp::Status::non_finite);
}

}  // namespace parity_test_dp_value_iteration
