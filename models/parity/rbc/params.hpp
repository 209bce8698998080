#pragma once
// The real business cycle model of Aldrich, Fernández-Villaverde, Gallant and Rubio-Ramírez (2011),
// "Tapping the supercomputer under your desk: Solving dynamic equilibrium models with graphics
// processors", JEDC 35(3): a planner chooses next period's capital,
//
//   V(K, Z) = max_{K'} C^(1-crra) / (1-crra) + beta E[V(K', Z') | Z],   C = Z K^alpha + (1-delta) K - K',
//   log Z' = rho log Z + eps,  eps ~ N(0, sigma^2),
//
// by value function iteration with K' on the capital grid, log Z on a Tauchen chain. Their
// calibration and grid (K in [0.95, 1.05] of the deterministic steady state, equally spaced, four
// productivity states) are the defaults. Plain parameters and their checks (no Kokkos).
#include <cmath>
#include <string>

#include "parity/run/errors.hpp"

namespace parity::rbc {

enum class Search { exhaustive, binary };  // binary: the bisection of a concave objective (the paper's)
inline char const* to_string(Search s) { return s == Search::binary ? "binary" : "exhaustive"; }

struct Params {
  double crra = 2;  // relative risk aversion (1: log utility)
  double beta = 0.984;
  double alpha = 0.35;  // capital share
  double delta = 0.01;  // depreciation
  double rho = 0.95;  // persistence of log productivity
  double sigma = 0.005;  // standard deviation of its innovation
  int productivity_states = 4;
  double tauchen_width = 3;  // Tauchen's grid spans +- this many unconditional deviations
  int capital_points = 1000;
  double capital_span = 0.05;  // the grid spans [1 - span, 1 + span] times the steady state
  double tol = 1e-8;  // sup norm of the change of V in one sweep
  int max_iter = 100000;
  int howard_steps = 0;  // policy-evaluation steps after each sweep (0: plain value iteration)
  Search search = Search::binary;
  bool monotone = false;  // also search only between the neighbours' choices (the policy rises in K)
};

// The deterministic steady state (Z = 1): capital, consumption and the value of staying there.
struct SteadyState {
  double capital, consumption, value;
};
inline SteadyState steady_state(Params const& p) {
  double const k = std::pow((1 / p.beta - 1 + p.delta) / p.alpha, 1 / (p.alpha - 1));
  double const c = std::pow(k, p.alpha) - p.delta * k;
  double const u = p.crra == 1 ? std::log(c) : std::pow(c, 1 - p.crra) / (1 - p.crra);
  return {k, c, u / (1 - p.beta)};
}

// Throws InvalidInput naming the parameter.
inline void validate(Params const& p) {
  auto finite = [](double x) { return std::isfinite(x); };
  require(finite(p.crra) && p.crra > 0, "crra must be > 0");
  require(finite(p.beta) && p.beta > 0 && p.beta < 1, "beta must lie in (0, 1)");
  require(finite(p.alpha) && p.alpha > 0 && p.alpha < 1, "alpha must lie in (0, 1)");
  require(finite(p.delta) && p.delta > 0 && p.delta <= 1, "delta must lie in (0, 1]");
  require(finite(p.rho) && std::abs(p.rho) < 1, "rho must lie in (-1, 1)");
  require(finite(p.sigma) && p.sigma >= 0 && p.sigma <= 1, "sigma must lie in [0, 1]");
  require(p.productivity_states >= 1 && p.productivity_states <= 101, "productivity_states must lie in [1, 101]");
  require(finite(p.tauchen_width) && p.tauchen_width > 0 && p.tauchen_width <= 10, "tauchen_width must lie in (0, 10]");
  require(p.capital_points >= 2 && p.capital_points <= 1'000'000, "capital_points must lie in [2, 1e6]");
  require(finite(p.capital_span) && p.capital_span > 0 && p.capital_span < 1, "capital_span must lie in (0, 1)");
  require(finite(p.tol) && p.tol > 0, "tol must be > 0");
  require(p.max_iter >= 1, "max_iter must be at least 1");
  require(p.howard_steps >= 0 && p.howard_steps <= 10000, "howard_steps must lie in [0, 10000]");
}

}  // namespace parity::rbc
