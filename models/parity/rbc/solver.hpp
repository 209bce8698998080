#pragma once
// The RBC model of Aldrich et al. (2011) on the dynamic-programming engine (models/parity/dp/): the
// planner's reward on the capital grid, a Tauchen chain for log productivity, value iteration from
// the deterministic steady state's value, and the Euler equation errors of the solution.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

#include "parity/dp/value_iteration.hpp"
#include "parity/markov/ar1.hpp"
#include "parity/rbc/params.hpp"
#include "parity/rbc/result.hpp"
#include "parity/run/solve_options.hpp"

namespace parity::rbc {

// The period utility of consuming Z K^alpha + (1 - delta) K - K'; -infinity where that is <= 0.
struct Planner {
  double crra, alpha, delta;
  template <class Real>
  KOKKOS_FUNCTION Real reward(Real z, Real k, Real k_next) const {
    Real const c = z * Kokkos::pow(k, Real(alpha)) + Real(1 - delta) * k - k_next;
    if (!(c > 0)) return -Kokkos::Experimental::infinity<Real>::value;
    return crra == 1 ? Kokkos::log(c) : Kokkos::pow(c, Real(1 - crra)) / Real(1 - crra);
  }
};

// Productivity Z = exp(log Z) on Tauchen's chain.
inline markov::Chain productivity_chain(Params const& p) {
  auto c = markov::tauchen(markov::Ar1{p.rho, p.sigma, 0.0}, p.productivity_states, p.tauchen_width);
  for (double& v : c.values) v = std::exp(v);
  return c;
}

inline std::vector<double> capital_grid(Params const& p) {
  double const ks = steady_state(p).capital, lo = (1 - p.capital_span) * ks, hi = (1 + p.capital_span) * ks;
  std::vector<double> g(p.capital_points);
  for (int i = 0; i < p.capital_points; ++i) g[i] = lo + (hi - lo) * i / (p.capital_points - 1);
  return g;
}

// The unit-free Euler equation errors of a solution, over the states whose choice is an interior
// grid node (at an end the first-order condition need not hold): their largest and mean log10.
inline void euler_errors(Params const& p, Result& r) {
  std::size_t const nz = r.productivity.size(), nk = r.capital.size();
  double worst = 0, sum = 0;
  long n = 0;
  for (std::size_t z = 0; z < nz; ++z)
    for (std::size_t i = 0; i < nk; ++i) {
      std::size_t const at = z * nk + i;
      double const kn = r.capital_next[at];
      auto const j = std::size_t(std::lower_bound(r.capital.begin(), r.capital.end(), kn) - r.capital.begin());
      if (j == 0 || j + 1 >= nk) continue;
      double rhs = 0;
      for (std::size_t zn = 0; zn < nz; ++zn) {
        double const zv = r.productivity[zn], cn = r.consumption[zn * nk + j];
        rhs += r.productivity_transition[z * nz + zn] * std::pow(cn, -p.crra) *
               (p.alpha * zv * std::pow(kn, p.alpha - 1) + 1 - p.delta);
      }
      double const e = std::abs(1 - std::pow(p.beta * rhs, -1 / p.crra) / r.consumption[at]);
      worst = std::max(worst, e);
      sum += e;
      ++n;
    }
  r.euler_error_max = n > 0 ? std::log10(std::max(worst, 1e-300)) : 0;
  r.euler_error_mean = n > 0 ? std::log10(std::max(sum / double(n), 1e-300)) : 0;
}

template <class ExecutionSpace, class Real>
Result solve(ExecutionSpace const& space, Params const& p, run::SolveOptions const& options = {}) {
  validate(p);
  auto const ss = steady_state(p);
  dp::GridChoiceProblem<Planner> problem{Planner{p.crra, p.alpha, p.delta}, capital_grid(p), productivity_chain(p),
                                         p.beta};
  dp::Options opt;
  opt.tolerance = p.tol;
  opt.max_iterations = p.max_iter;
  opt.howard_steps = p.howard_steps;
  opt.search = p.search == Search::binary ? dp::Search::concave : dp::Search::exhaustive;
  opt.monotone = p.monotone;
  // The paper's start: the deterministic steady state's value everywhere.
  opt.initial_value.assign(problem.grid.size() * problem.exogenous.size(), ss.value);
  opt.progress = options.progress;
  opt.phases = options.phases;
  auto const d = dp::solve<Real>(space, problem, opt);

  Result r;
  r.converged = d.status == dp::Status::converged;
  r.non_finite = d.status == dp::Status::non_finite;
  r.iterations = d.iterations;
  r.residual = d.residual;
  r.lower_bound = d.lower_bound;
  r.upper_bound = d.upper_bound;
  r.residual_history = d.residual_history;
  r.steady_capital = ss.capital;
  r.capital = problem.grid;
  r.productivity = problem.exogenous.values;
  r.productivity_transition = problem.exogenous.transition;
  r.value = d.value;
  r.capital_next = d.policy_value;
  std::size_t const nk = r.capital.size();
  r.consumption.resize(r.value.size());
  for (std::size_t z = 0; z < r.productivity.size(); ++z)
    for (std::size_t i = 0; i < nk; ++i) {
      double const k = r.capital[i];
      r.consumption[z * nk + i] =
          r.productivity[z] * std::pow(k, p.alpha) + (1 - p.delta) * k - r.capital_next[z * nk + i];
    }
  if (!r.non_finite) euler_errors(p, r);
  return r;
}

}  // namespace parity::rbc
