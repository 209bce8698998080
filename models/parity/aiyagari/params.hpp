#pragma once
// Aiyagari (1994): a continuum of households insure against idiosyncratic labour-endowment risk by
// saving in capital, with a borrowing limit; a Cobb-Douglas firm rents the capital. The stationary
// equilibrium is the net interest rate r at which the households' mean assets equal the firm's
// capital demand. Plain parameters and their checks (no Kokkos).
#include <cmath>
#include <string>

#include "parity/run/errors.hpp"

namespace parity::aiyagari {

enum class Discretisation { tauchen, rouwenhorst };
inline char const* to_string(Discretisation d) { return d == Discretisation::rouwenhorst ? "rouwenhorst" : "tauchen"; }

struct Params {
  // Households: u(c) = c^(1-crra) / (1-crra) (log for crra = 1), discount factor beta.
  double crra = 3;
  double beta = 0.96;
  // log l' = rho log l + sigma sqrt(1 - rho^2) eps: sigma is the unconditional standard deviation
  // of log labour (Aiyagari's convention), discretised into income_states states and normalised
  // to mean 1, so aggregate labour is 1.
  double rho = 0.6;
  double sigma = 0.2;
  int income_states = 7;
  Discretisation discretisation = Discretisation::tauchen;
  double tauchen_width = 3;  // Tauchen's grid spans +- this many unconditional deviations
  // Firm: Y = K^alpha L^(1-alpha), depreciation delta.
  double alpha = 0.36;
  double delta = 0.08;
  // Assets: a >= borrowing_limit (<= 0), on asset_points nodes up to asset_max, clustered near the
  // limit: a_i = limit + (max - limit) (i / (n - 1))^grid_curvature.
  double borrowing_limit = 0;
  int asset_points = 1000;
  double asset_max = 150;
  double grid_curvature = 2;
  // Tolerances: the bracket of r, the sup change of consumption (endogenous grid method) and of
  // the distribution's masses per sweep; evaluations of the market-clearing condition at most.
  double rate_tol = 1e-8;
  double policy_tol = 1e-10;
  double distribution_tol = 1e-12;
  int max_iter = 60;
};

// Throws InvalidInput naming the parameter.
inline void validate(Params const& p) {
  auto finite = [](double x) { return std::isfinite(x); };
  require(finite(p.crra) && p.crra > 0, "crra must be > 0");
  require(finite(p.beta) && p.beta > 0 && p.beta < 1, "beta must lie in (0, 1)");
  require(finite(p.rho) && std::abs(p.rho) < 1, "rho must lie in (-1, 1)");
  require(finite(p.sigma) && p.sigma >= 0 && p.sigma <= 2, "sigma must lie in [0, 2]");
  require(p.income_states >= 1 && p.income_states <= 101, "income_states must lie in [1, 101]");
  require(p.discretisation == Discretisation::tauchen || p.income_states >= 2,
          "income_states must be at least 2 for the Rouwenhorst discretisation");
  require(finite(p.tauchen_width) && p.tauchen_width > 0 && p.tauchen_width <= 10, "tauchen_width must lie in (0, 10]");
  require(finite(p.alpha) && p.alpha > 0 && p.alpha < 1, "alpha must lie in (0, 1)");
  require(finite(p.delta) && p.delta > 0 && p.delta <= 1, "delta must lie in (0, 1]");
  require(finite(p.borrowing_limit) && p.borrowing_limit <= 0, "borrowing_limit must be <= 0 (the least assets)");
  require(p.asset_points >= 10 && p.asset_points <= 10'000'000, "asset_points must lie in [10, 1e7]");
  require(finite(p.asset_max) && p.asset_max > p.borrowing_limit + 1e-6, "asset_max must exceed borrowing_limit");
  require(finite(p.grid_curvature) && p.grid_curvature >= 1 && p.grid_curvature <= 10,
          "grid_curvature must lie in [1, 10]");
  require(finite(p.rate_tol) && p.rate_tol > 0 && p.rate_tol < 0.01, "rate_tol must lie in (0, 0.01)");
  require(finite(p.policy_tol) && p.policy_tol > 0 && p.policy_tol < 1, "policy_tol must lie in (0, 1)");
  require(finite(p.distribution_tol) && p.distribution_tol > 0 && p.distribution_tol < 1,
          "distribution_tol must lie in (0, 1)");
  require(p.max_iter >= 2 && p.max_iter <= 1000, "max_iter must lie in [2, 1000]");
}

}  // namespace parity::aiyagari
