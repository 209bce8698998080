// Aiyagari's stationary equilibrium: the Gini coefficient against closed forms; market clearing
// and the firm's conditions at the solution; Aiyagari's (1994) qualitative results (r below the
// complete-markets rate 1/beta - 1, falling with income risk and persistence); float against double.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/execution_space.hpp"
#include "parity/aiyagari/solver.hpp"
#include "test_backend.hpp"

namespace parity_test_aiyagari {

using parity::test::ExecSpace;
namespace ai = parity::aiyagari;

TEST(Aiyagari, GiniOfClosedForms) {
  EXPECT_NEAR(ai::gini({2, 2, 2}, {0.2, 0.3, 0.5}), 0.0, 1e-15);
  EXPECT_NEAR(ai::gini({1, 0}, {0.5, 0.5}), 0.5, 1e-15);  // half hold everything
  EXPECT_NEAR(ai::gini({0, 0, 0, 1}, {0.25, 0.25, 0.25, 0.25}), 0.75, 1e-15);
  // Uniform wealth on [0, 1] (a fine grid): 1/3.
  int const n = 20000;
  std::vector<double> v(n), m(n, 1.0 / n);
  for (int i = 0; i < n; ++i) v[i] = (i + 0.5) / n;
  EXPECT_NEAR(ai::gini(v, m), 1.0 / 3.0, 1e-6);
}

// Seconds per solve: few nodes, tolerances that leave r accurate to ~1e-7.
ai::Params small() {
  ai::Params p;
  p.income_states = 5;
  p.asset_points = 100;
  p.asset_max = 60;
  p.rate_tol = 1e-7;
  p.policy_tol = 1e-8;
  p.distribution_tol = 1e-10;
  return p;
}

ai::Result solve(ai::Params const& p) { return ai::solve<ExecSpace, double>(ExecSpace{}, p); }

// The base case, solved once for the tests that read it (host data only).
ai::Result const& base() {
  static ai::Result const r = solve(small());
  return r;
}

TEST(Aiyagari, EquilibriumClearsTheMarket) {
  auto const p = small();
  auto const& r = base();
  ASSERT_TRUE(r.converged);
  // The firm: r = alpha K^(alpha-1) - delta and w = (1-alpha) K^alpha at its demand (labour is 1).
  EXPECT_NEAR(p.alpha * std::pow(r.capital_demand, p.alpha - 1) - p.delta, r.interest_rate, 1e-12);
  EXPECT_NEAR((1 - p.alpha) * std::pow(r.capital_demand, p.alpha), r.wage, 1e-12);
  // The excess supply of capital changes sign over the final bracket, which holds r.
  EXPECT_LE(r.rate_upper - r.rate_lower, p.rate_tol);
  EXPECT_LE(r.rate_lower, r.interest_rate);
  EXPECT_GE(r.rate_upper, r.interest_rate);
  bool below = false, above = false;
  for (auto const& s : r.history) {
    below = below || (s.interest_rate <= r.rate_lower + 1e-15 && s.capital_supply < s.capital_demand);
    above = above || (s.interest_rate >= r.rate_upper - 1e-15 && s.capital_supply > s.capital_demand);
  }
  EXPECT_TRUE(below && above);
  EXPECT_NEAR(r.capital / r.capital_demand, 1.0, 1e-5);
  // The distribution: masses sum to 1, labour marginals are the chain's.
  double total = 0;
  for (double x : r.mass) total += x;
  EXPECT_NEAR(total, 1.0, 1e-10);
  std::size_t const nk = r.assets.size();
  for (std::size_t z = 0; z < r.labour.size(); ++z) {
    double mz = 0;
    for (std::size_t i = 0; i < nk; ++i) mz += r.mass[z * nk + i];
    EXPECT_NEAR(mz, r.labour_distribution[z], 1e-9);
  }
  EXPECT_GT(r.gini, 0.0);
  EXPECT_LT(r.gini, 1.0);
  EXPECT_LT(r.mass_at_top, 1e-8);
}

TEST(Aiyagari, PrecautionarySavingLowersTheRate) {
  // Aiyagari's Table II: r lies below 1/beta - 1 and falls as risk (sigma) or persistence (rho) rise.
  auto p = small();
  double const complete_markets = 1 / p.beta - 1;
  auto const& base = parity_test_aiyagari::base();
  p.sigma = 0.4;
  auto const riskier = solve(p);
  p = small();
  p.rho = 0.9;
  auto const persistent = solve(p);
  ASSERT_TRUE(base.converged && riskier.converged && persistent.converged);
  EXPECT_LT(base.interest_rate, complete_markets);
  EXPECT_LT(riskier.interest_rate, base.interest_rate);
  EXPECT_LT(persistent.interest_rate, base.interest_rate);
  EXPECT_GT(riskier.capital, base.capital);
}

TEST(Aiyagari, FloatAgreesWithDouble) {
  auto p = small();
  p.policy_tol = 1e-5;
  p.distribution_tol = 1e-8;
  p.rate_tol = 1e-6;
  auto const f = ai::solve<ExecSpace, float>(ExecSpace{}, p);
  EXPECT_NEAR(f.interest_rate, base().interest_rate, 2e-4);
}

TEST(Aiyagari, RefusesBadParameters) {
  auto p = small();
  p.beta = 1.0;
  EXPECT_THROW(solve(p), parity::InvalidInput);
  p = small();
  p.borrowing_limit = 1;
  EXPECT_THROW(solve(p), parity::InvalidInput);
  p = small();
  p.asset_max = 0.5;  // the households' savings cannot reach the firm's demand
  EXPECT_THROW(solve(p), parity::InvalidInput);
}

// A library user set fields of Params, so the messages name them (the command rewrites them into
// its options, which the CLI tests check).
TEST(Aiyagari, MessagesNameTheField) {
  auto refusal = [](auto change) -> std::string {
    ai::Params p;
    change(p);
    try {
      ai::validate(p);
    } catch (parity::InvalidInput const& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refusal([](ai::Params& p) { p.beta = 1; }), "beta must lie in (0, 1)");
  EXPECT_EQ(refusal([](ai::Params& p) { p.asset_max = p.borrowing_limit; }), "asset_max must exceed borrowing_limit");
  EXPECT_EQ(refusal([](ai::Params& p) { p.rate_tol = 1; }), "rate_tol must lie in (0, 0.01)");
}

}  // namespace parity_test_aiyagari
