#pragma once
// The stationary equilibrium of Aiyagari (1994) on the dynamic-programming engine: for a net
// interest rate r, the firm's first-order conditions give the wage w(r) and the capital demand
// K(r) = (alpha / (r + delta))^(1/(1-alpha)) (labour is 1); the households' saving policy comes from
// the endogenous grid method and their mean assets from Young's stationary distribution. Brent's
// method closes a bracket of r inside (-delta, 1/beta - 1) on the excess supply of capital,
// warm-starting each evaluation from the last one's policy and distribution.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "parity/aiyagari/params.hpp"
#include "parity/aiyagari/result.hpp"
#include "parity/dp/distribution.hpp"
#include "parity/dp/egm.hpp"
#include "parity/markov/ar1.hpp"
#include "parity/optimize/root.hpp"
#include "parity/run/progress.hpp"
#include "parity/run/solve_options.hpp"

namespace parity::aiyagari {

// CRRA household with cash R a + w l.
struct Household {
  double crra, R, w;
  template <class Real>
  KOKKOS_FUNCTION Real marginal_utility(Real c) const {
    return Kokkos::pow(c, Real(-crra));
  }
  template <class Real>
  KOKKOS_FUNCTION Real inverse_marginal_utility(Real m) const {
    return Kokkos::pow(m, Real(-1 / crra));
  }
  template <class Real>
  KOKKOS_FUNCTION Real cash(Real l, Real a) const {
    return Real(R) * a + Real(w) * l;
  }
  template <class Real>
  KOKKOS_FUNCTION Real assets_for_cash(Real l, Real m) const {
    return (m - Real(w) * l) / Real(R);
  }
};

// The labour chain: log labour discretised, then labour normalised to mean 1.
inline markov::Chain labour_chain(Params const& p) {
  auto const ar1 = markov::Ar1::from_unconditional(p.rho, p.sigma);
  auto c = p.discretisation == Discretisation::rouwenhorst ? markov::rouwenhorst(ar1, p.income_states)
                                                           : markov::tauchen(ar1, p.income_states, p.tauchen_width);
  for (double& v : c.values) v = std::exp(v);
  auto const pi = markov::stationary_distribution(c);
  double mean = 0;
  for (std::size_t z = 0; z < c.size(); ++z) mean += pi[z] * c.values[z];
  for (double& v : c.values) v /= mean;
  return c;
}

inline std::vector<double> asset_grid(Params const& p) {
  std::vector<double> g(p.asset_points);
  for (int i = 0; i < p.asset_points; ++i)
    g[i] = p.borrowing_limit +
           (p.asset_max - p.borrowing_limit) * std::pow(double(i) / (p.asset_points - 1), p.grid_curvature);
  return g;
}

inline double capital_demand(Params const& p, double r) { return std::pow(p.alpha / (r + p.delta), 1 / (1 - p.alpha)); }
inline double wage(Params const& p, double r) { return (1 - p.alpha) * std::pow(capital_demand(p, r), p.alpha); }

// The Gini coefficient of a distribution of values (any order) with masses summing to 1.
inline double gini(std::vector<double> values, std::vector<double> masses) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  double total = 0;
  for (std::size_t i = 0; i < values.size(); ++i) total += masses[i] * values[i];
  if (total == 0) return 0;
  // G = 1 - sum_k m_k (L_{k-1} + L_k), L the Lorenz curve's wealth share after node k.
  double cum = 0, g = 1;
  for (std::size_t k : order) {
    double const next = cum + masses[k] * values[k] / total;
    g -= masses[k] * (cum + next);
    cum = next;
  }
  return g;
}

template <class ExecutionSpace, class Real>
Result solve(ExecutionSpace const& space, Params const& p, run::SolveOptions const& options = {}) {
  validate(p);
  run::SilentProgress silent;
  run::Progress& progress = options.progress ? *options.progress : silent;
  struct NonFinite {};  // an inner solve met a value that is not finite
  auto const chain = labour_chain(p);
  auto const grid = asset_grid(p);
  std::size_t const nz = chain.size(), nk = grid.size();

  Result res;
  std::vector<double> consumption, mass;  // the last evaluation's, to start the next one from
  dp::PolicyResult policy;
  dp::DistributionResult distribution;
  bool inner_converged = true;
  auto excess_supply = [&](double r) {
    dp::EndogenousGridProblem<Household> const problem{Household{p.crra, 1 + r, wage(p, r)}, grid, chain, p.beta,
                                                       1 + r};
    dp::PolicyOptions popt;
    popt.tolerance = p.policy_tol;
    popt.phases = options.phases;
    // The last policy is a good start unless it spends more than the new cash allows.
    if (!consumption.empty()) {
      popt.initial_consumption = consumption;
      for (std::size_t at = 0; at < consumption.size(); ++at) {
        double const cash = problem.model.cash(chain.values[at / nk], grid[at % nk]) - grid[0];
        if (!(popt.initial_consumption[at] < cash)) popt.initial_consumption[at] = cash;
      }
    }
    policy = dp::solve<Real>(space, problem, popt);
    dp::DistributionOptions dopt;
    dopt.tolerance = p.distribution_tol;
    dopt.phases = options.phases;
    dopt.initial_mass = mass;
    distribution = dp::stationary_distribution<Real>(space, grid, chain, policy.saving, dopt);
    inner_converged = policy.status == dp::Status::converged && distribution.status == dp::Status::converged;
    if (policy.status == dp::Status::non_finite || distribution.status == dp::Status::non_finite) throw NonFinite{};
    consumption = policy.consumption;
    mass = distribution.mass;
    double const supply = dp::mean(grid, mass), demand = capital_demand(p, r);
    res.history.push_back({r, supply, demand, policy.iterations, distribution.iterations});
    return supply - demand;
  };

  // Demand is infinite as r falls to -delta, and supply grows without bound as r rises to the
  // complete-markets rate 1/beta - 1 (where the distribution also converges ever more slowly). The
  // bracket is found from below that rate: r_k = 1/beta - 1 - span 2^-k, k = 1, 2, ..., until
  // supply exceeds demand; the r before (or one near -delta) has supply below demand.
  double const top = 1 / p.beta - 1, span = top + p.delta;
  double lo = std::nan(""), hi = std::nan(""), f_lo = 0, f_hi = 0;
  try {
    for (int k = 1; k <= 24 && std::isnan(hi); ++k) {
      double const r = top - span * std::ldexp(1.0, -k);
      double const f = excess_supply(r);
      if (f > 0)
        hi = r, f_hi = f;
      else
        lo = r, f_lo = f;
    }
    require(!std::isnan(hi),
            "no equilibrium interest rate below 1/beta - 1 on this asset grid: households' "
            "assets stay below the firm's demand; raise asset_max (now " +
                std::to_string(p.asset_max) + ")");
    if (std::isnan(lo)) {
      lo = -p.delta + 0.01 * span;
      f_lo = excess_supply(lo);
      require(f_lo < 0,
              "no equilibrium interest rate: capital supply exceeds demand even at r = " + std::to_string(lo));
    }
  } catch (NonFinite const&) {
    res.non_finite = true;
    return res;
  }
  optimize::RootOptions ropt;
  ropt.x_tol = p.rate_tol;
  ropt.max_evaluations = p.max_iter;
  ropt.f_lower = f_lo;
  ropt.f_upper = f_hi;
  Kokkos::Timer timer;
  ropt.on_step = [&](int k, double r, double f, double a, double b) {
    progress.update({"equilibrium r", k, b - a, timer.seconds(),
                     "r " + std::to_string(r) + ", K supply - demand " + std::to_string(f), p.max_iter, p.rate_tol});
  };
  optimize::RootResult root;
  try {
    root = optimize::find_root(excess_supply, lo, hi, ropt);
  } catch (NonFinite const&) {
    res.non_finite = true;
    return res;
  }
  // Leave the state of the best point: evaluate it again if the last evaluation was elsewhere.
  if (res.history.back().interest_rate != root.x) {
    try {
      excess_supply(root.x);
    } catch (NonFinite const&) {
      res.non_finite = true;
      return res;
    }
  }

  double const r = root.x;
  res.converged = root.converged && inner_converged && !res.non_finite;
  res.interest_rate = r;
  res.wage = wage(p, r);
  res.capital = res.history.back().capital_supply;
  res.capital_demand = capital_demand(p, r);
  res.output = std::pow(res.capital, p.alpha);
  res.saving_rate = p.delta * res.capital / res.output;
  res.rate_lower = root.lower;
  res.rate_upper = root.upper;
  std::vector<double> wealth(nz * nk);
  for (std::size_t at = 0; at < wealth.size(); ++at) wealth[at] = grid[at % nk];
  res.gini = gini(wealth, mass);
  for (std::size_t z = 0; z < nz; ++z) res.mass_at_top += mass[z * nk + nk - 1];
  res.assets = grid;
  res.labour = chain.values;
  res.labour_transition = chain.transition;
  res.labour_distribution = markov::stationary_distribution(chain);
  res.mass = mass;
  res.consumption = policy.consumption;
  res.saving = policy.saving;
  return res;
}

}  // namespace parity::aiyagari
