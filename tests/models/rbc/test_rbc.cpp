// The RBC model against the closed form of its log-utility, full-depreciation case (Brock and
// Mirman: K' = alpha beta Z K^alpha), the paper's bisection and the monotone search against every
// choice, float against double, and refused parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "parity/rbc/solver.hpp"
#include "test_backend.hpp"

namespace parity_test_rbc {

using parity::test::ExecSpace;
namespace rbc = parity::rbc;

rbc::Result solve(rbc::Params const& p, bool in_float = false) {
  return in_float ? rbc::solve<ExecSpace, float>(ExecSpace{}, p) : rbc::solve<ExecSpace, double>(ExecSpace{}, p);
}

// With gamma = 1 and delta = 1, V(K, Z) = A(Z) + B ln K, B = alpha / (1 - alpha beta), and
// K' = alpha beta Z K^alpha. The grid's V lies below V by at most (1/2) max|Q''| (h/2)^2 / (1 - beta)
// (Q(K') = ln(C) + beta E[V(K', Z')], the node nearest the optimum at most h/2 away, lost every
// period); its policy then lies within sqrt((2 beta dV + max|Q''| (h/2)^2) / min|Q''|) of the
// optimum, since Q falls at least min|Q''| (K' - K'*)^2 / 2 away from it.
TEST(Rbc, LogUtilityFullDepreciationMatchesTheClosedForm) {
  rbc::Params p;
  p.crra = 1;
  p.delta = 1;
  p.capital_points = 301;
  p.capital_span = 0.5;  // K' = alpha beta Z K^alpha stays inside the grid: no choice is cut off
  p.tol = 1e-11;
  p.howard_steps = 50;
  auto const r = solve(p);
  ASSERT_TRUE(r.converged);
  double const h = r.capital[1] - r.capital[0], ab = p.alpha * p.beta, B = p.alpha / (1 - ab);
  EXPECT_NEAR(r.steady_capital, std::pow(ab, 1 / (1 - p.alpha)), 1e-14);
  std::size_t const nz = r.productivity.size(), nk = r.capital.size();
  // A(Z) = ln(1 - ab) + beta B ln(ab) + (1 + beta B) ln Z + beta E[A(Z')], by iteration.
  std::vector<double> A(nz, 0.0);
  for (int it = 0; it < 5000; ++it) {
    std::vector<double> next(nz);
    for (std::size_t z = 0; z < nz; ++z) {
      next[z] = std::log(1 - ab) + p.beta * B * std::log(ab) + (1 + p.beta * B) * std::log(r.productivity[z]);
      for (std::size_t zn = 0; zn < nz; ++zn) next[z] += p.beta * r.productivity_transition[z * nz + zn] * A[zn];
    }
    A = next;
  }
  double q_max = 0, q_min = 1e300;
  for (std::size_t z = 0; z < nz; ++z)
    for (double k : r.capital) {
      double const y = r.productivity[z] * std::pow(k, p.alpha), kn = ab * y;
      q_max = std::max(q_max, 1 / ((y - kn - h) * (y - kn - h)) + p.beta * B / ((kn - h) * (kn - h)));
      q_min = std::min(q_min, 1 / (y * y) + p.beta * B / (r.capital.back() * r.capital.back()));
    }
  double const dv = 0.5 * q_max * (h / 2) * (h / 2) / (1 - p.beta) + p.beta / (1 - p.beta) * p.tol;
  double const dk = std::sqrt((2 * p.beta * dv + q_max * (h / 2) * (h / 2)) / q_min);
  int interior = 0;
  for (std::size_t z = 0; z < nz; ++z)
    for (std::size_t i = 0; i < nk; ++i) {
      double const v = A[z] + B * std::log(r.capital[i]), got = r.value[z * nk + i];
      EXPECT_LE(got, v + 1e-9);  // a grid only restricts the choices
      EXPECT_GE(got, v - dv) << z << " " << i;
      double const kn = ab * r.productivity[z] * std::pow(r.capital[i], p.alpha);
      ASSERT_GT(kn, r.capital.front());
      ASSERT_LT(kn, r.capital.back());
      EXPECT_LE(std::abs(r.capital_next[z * nk + i] - kn), dk) << z << " " << i;
      ++interior;
    }
  EXPECT_EQ(interior, int(nz * nk));
  EXPECT_LT(dk, 20 * h);  // the bound says something at this grid
}

// 100 sweeps from the steady state's value (not yet converged): every search gives the same
// iterates, bit for bit.
TEST(Rbc, BisectionAndMonotoneSearchFindEveryChoicesMaximiser) {
  rbc::Params p;
  p.capital_points = 60;
  p.tol = 1e-14;
  p.max_iter = 100;
  p.search = rbc::Search::exhaustive;
  auto const all = solve(p);
  EXPECT_FALSE(all.converged);
  for (bool monotone : {false, true})
    for (auto search : {rbc::Search::binary, rbc::Search::exhaustive}) {
      p.search = search;
      p.monotone = monotone;
      auto const r = solve(p);
      EXPECT_EQ(r.capital_next, all.capital_next);
      EXPECT_EQ(r.value, all.value);
      EXPECT_EQ(r.residual_history, all.residual_history);
    }
}

// At the fixed point the Euler equation holds to about the grid's resolution: the choice is at
// most h from the optimum, which moves C by h against C of about 3.5 (and C' likewise).
TEST(Rbc, EulerErrorsAreOfTheGridsResolution) {
  rbc::Params p;
  p.capital_points = 200;
  p.tol = 1e-6;
  auto const r = solve(p);
  ASSERT_TRUE(r.converged);
  double const h = r.capital[1] - r.capital[0];
  double const c_min = *std::min_element(r.consumption.begin(), r.consumption.end());
  EXPECT_LT(r.euler_error_max, std::log10(4 * h / c_min));
  EXPECT_LT(r.euler_error_mean, r.euler_error_max);
  EXPECT_GT(r.euler_error_max, std::log10(1e-3 * h / c_min));  // not vacuous: a grid leaves an error
}

// Each stops within beta / (1 - beta) of its tolerance of the fixed point.
TEST(Rbc, FloatValueWithinItsToleranceOfDouble) {
  rbc::Params p;
  p.capital_points = 100;
  p.tol = 2e-5;
  auto const f = solve(p, true);
  p.tol = 1e-7;
  auto const d = solve(p);
  ASSERT_TRUE(f.converged && d.converged);
  double const bound = p.beta / (1 - p.beta) * (2e-5 + 1e-7) + 1e-4;  // + the rounding of |V| ~ 60 in float
  for (std::size_t a = 0; a < d.value.size(); ++a) EXPECT_NEAR(f.value[a], d.value[a], bound) << a;
}

TEST(Rbc, RefusesBadParameters) {
  rbc::Params p;
  p.beta = 1;
  EXPECT_THROW(solve(p), parity::InvalidInput);
  p = {};
  p.capital_span = 1.5;
  EXPECT_THROW(solve(p), parity::InvalidInput);
  p = {};
  p.capital_points = 1;
  EXPECT_THROW(solve(p), parity::InvalidInput);
}

// A library user set fields of Params, so the messages name them (the command rewrites them into
// its options, which the CLI tests check).
TEST(Rbc, MessagesNameTheField) {
  auto refusal = [](auto change) -> std::string {
    rbc::Params p;
    change(p);
    try {
      rbc::validate(p);
    } catch (parity::InvalidInput const& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refusal([](rbc::Params& p) { p.beta = 1; }), "beta must lie in (0, 1)");
  EXPECT_EQ(refusal([](rbc::Params& p) { p.capital_points = 1; }), "capital_points must lie in [2, 1e6]");
  EXPECT_EQ(refusal([](rbc::Params& p) { p.howard_steps = -1; }), "howard_steps must lie in [0, 10000]");
}

}  // namespace parity_test_rbc
