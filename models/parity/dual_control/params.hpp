#pragma once
// Parameters of the Bayesian dual-control problem (Morozov & Mathur 2012; Beck & Wieland 2002
// without parameter drift):
//   minimise E sum_t delta^t [ (x_t - xbar)^2 + omega (u_t - ubar)^2 ]
//   subject to x_t = alpha + beta u_t + gamma x_{t-1} + eps_t,  eps_t ~ N(0, sigma_eps^2),
//   beta unknown with Gaussian belief N(mu, Sigma), updated by Bayes' rule.
// Plain data plus validate(); no Kokkos, so the CLI and the solver share it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parity/run/errors.hpp"
#include "parity/run/parameter_name.hpp"

namespace parity::dual_control {

enum class Policy { inert, myopic, optimal };

// How the optimal policy is solved (both reach the same fixed point; see README):
//  paper: plain value iteration, every Bellman sweep a full safeguarded search at every point
//         (the algorithm of Morozov & Mathur, as their Table 2 times it);
//  accelerated: modified policy iteration (evaluation sweeps of the current policy between
//         Bellman sweeps, until the Bellman residual stalls near the tolerance), the same search.
enum class Algorithm { paper, accelerated };

inline std::string to_string(Algorithm a) { return a == Algorithm::paper ? "paper" : "accelerated"; }

inline Algorithm parse_algorithm(std::string const& s) {
  if (s == "paper") return Algorithm::paper;
  if (s == "accelerated") return Algorithm::accelerated;
  throw InvalidInput("algorithm must be paper or accelerated, got '" + s + "'");
}

// Policy-evaluation sweeps after each Bellman sweep of the accelerated algorithm when
// evaluation_sweeps is not set.
constexpr int accelerated_evaluation_sweeps = 20;

inline std::string to_string(Policy p) {
  return p == Policy::inert ? "inert" : (p == Policy::myopic ? "myopic" : "optimal");
}

inline Policy parse_policy(std::string const& s) {
  if (s == "inert") return Policy::inert;
  if (s == "myopic") return Policy::myopic;
  if (s == "optimal") return Policy::optimal;
  throw InvalidInput("policy must be inert, myopic or optimal, got '" + s + "'");
}

// A state (x, mu, Sigma) at which the report gives V and u.
struct State {
  double x = 0, mu = 0, Sigma = 0;
};

struct Params {
  Policy policy = Policy::optimal;
  // Model. gamma, delta, sigma_eps, alpha, xbar, ubar: the fixed-parameter case of Beck & Wieland
  // (2002) as used by Morozov & Mathur (2012); omega > 0 is our choice (README).
  double alpha = 0.0;
  double gamma = 0.8;
  double delta = 0.95;
  double omega = 0.1;
  double xbar = 0.0;
  double ubar = 0.0;
  double sigma_eps = 1.0;
  // Grid: nodes per axis and the box; x and mu clustered around xbar and 0, Sigma uniform.
  int nx = 16, nmu = 16, nsigma = 16;
  double x_lo = -10.0, x_hi = 10.0, x_concentration = 3.0;
  double mu_lo = -4.0, mu_hi = 4.0, mu_concentration = 3.0;
  double sigma_lo = 0.0, sigma_hi = 4.0;  // of Sigma, the belief variance
  // Numerics.
  int quad_nodes = 32;
  std::optional<double> tol;  // empty: 1e-6 for inert/myopic, 1e-4 for optimal
  double tol_myopic = 1e-6;  // the myopic solve that starts the optimal one
  long max_iter = 5000;
  Algorithm algorithm = Algorithm::accelerated;
  // Policy-evaluation sweeps between Bellman steps (modified policy iteration); empty: the
  // algorithm's default (paper 0, accelerated 20).
  std::optional<int> evaluation_sweeps;
  int scan_points = 16;  // objective evaluations spread over the bracket before the searches
  int brent_starts = 3;  // Brent searches around the lowest local minima of that scan
  int brent_max_iter = 60;  // function evaluations per Brent search, at most
  double brent_tol = 1e-6;  // tolerance on u: brent_tol * (|u| + 1)
  bool mp_correction = true;  // shift V by the MacQueen-Porteus midpoint at convergence
  std::vector<State> reference_states = {{0.0, 1.0, 0.5}, {2.0, 1.0, 0.5}, {-2.0, 0.5, 1.0}, {1.0, 0.0, 1.0}};
  // Simulation of the controlled system (0 paths: none).
  long simulate_paths = 0;
  int horizon = 100;
  std::uint64_t seed = 20120101;
  State initial_state = {2.0, 1.0, 1.0};
  // Run options, not part of the model: where to write the iteration state (empty: nowhere), how
  // often (seconds of solve time between writes), a checkpoint to resume from (empty: none), and
  // the seconds of solve time after which the solve stops at the end of a sweep (0: no limit).
  std::string checkpoint;
  double checkpoint_every = 30.0;
  std::string resume;
  double time_limit = 0.0;

  double tolerance() const { return tol ? *tol : (policy == Policy::optimal ? 1e-4 : 1e-6); }
  int evaluation_sweeps_effective() const {
    if (evaluation_sweeps) return *evaluation_sweeps;
    return algorithm == Algorithm::paper ? 0 : accelerated_evaluation_sweeps;
  }
};

// validate() names each parameter through a ParameterName: by default the field of Params (`delta`,
// `sigma_eps`; `nx,nmu,nsigma` for the grid); the command passes the option that sets it.
using parity::field_name;
using parity::ParameterName;

// A number as messages show it: the shortest of %.15g .. %.17g that reads back as v (0.95, not
// 0.94999999999999996).
inline std::string number_text(double v) {
  char buf[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

inline std::string state_text(State const& s) {
  return number_text(s.x) + "," + number_text(s.mu) + "," + number_text(s.Sigma);
}

inline void validate(Params const& p, ParameterName name = field_name) {
  auto finite = [](double v) { return std::isfinite(v); };
  auto n = [&](char const* field) { return name(field); };
  auto t = [](double v) { return number_text(v); };
  auto range = [&](double lo, double hi) { return t(lo) + "," + t(hi); };
  for (auto const& [field, v] :
       {std::pair<char const*, double>{"alpha", p.alpha}, {"gamma", p.gamma}, {"xbar", p.xbar}, {"ubar", p.ubar}})
    require(finite(v), n(field) + " must be a finite number, got " + t(v));
  require(p.delta > 0 && p.delta < 1, n("delta") + " (discount factor) must lie in (0, 1), got " + t(p.delta));
  require(p.delta * p.gamma * p.gamma < 1,
          "need delta * gamma^2 < 1 for the inert policy's cost-to-go to be finite, got " + n("delta") + " " +
              t(p.delta) + " and " + n("gamma") + " " + t(p.gamma));
  require(finite(p.omega) && p.omega >= 0, n("omega") + " (weight on the control) must be >= 0, got " + t(p.omega));
  require(finite(p.sigma_eps) && p.sigma_eps > 0, n("sigma_eps") + " must be > 0, got " + t(p.sigma_eps));
  std::string const grid = std::to_string(p.nx) + "," + std::to_string(p.nmu) + "," + std::to_string(p.nsigma);
  require(p.nx >= 2 && p.nmu >= 2 && p.nsigma >= 2,
          n("nx,nmu,nsigma") + " needs at least 2 nodes on each axis, got " + grid);
  require(finite(p.x_lo) && finite(p.x_hi) && p.x_lo < p.x_hi,
          n("x_lo,x_hi") + " needs finite lower < upper, got " + range(p.x_lo, p.x_hi));
  require(finite(p.mu_lo) && finite(p.mu_hi) && p.mu_lo < p.mu_hi,
          n("mu_lo,mu_hi") + " needs finite lower < upper, got " + range(p.mu_lo, p.mu_hi));
  require(
      finite(p.sigma_lo) && finite(p.sigma_hi) && p.sigma_lo >= 0 && p.sigma_lo < p.sigma_hi,
      n("sigma_lo,sigma_hi") + " needs 0 <= lower < upper (Sigma is a variance), got " + range(p.sigma_lo, p.sigma_hi));
  require(p.xbar >= p.x_lo && p.xbar <= p.x_hi, n("xbar") + " " + t(p.xbar) + " must lie inside " + n("x_lo,x_hi") +
                                                    " " + range(p.x_lo, p.x_hi) + " (the x nodes cluster there)");
  require(p.mu_lo <= 0 && p.mu_hi >= 0,
          n("mu_lo,mu_hi") + " must contain 0 (the mu nodes cluster there), got " + range(p.mu_lo, p.mu_hi));
  require(finite(p.x_concentration) && p.x_concentration >= 0,
          n("x_concentration") + " must be >= 0 (0: uniform nodes), got " + t(p.x_concentration));
  require(finite(p.mu_concentration) && p.mu_concentration >= 0,
          n("mu_concentration") + " must be >= 0 (0: uniform nodes), got " + t(p.mu_concentration));
  require(p.omega > 0 || p.sigma_lo > 0, "need " + n("omega") + " > 0 or a " + n("sigma_lo,sigma_hi") +
                                             " above 0: the myopic rule divides by Sigma + mu^2 + omega");
  require(p.quad_nodes >= 1 && p.quad_nodes <= 200,
          n("quad_nodes") + " must lie in [1, 200], got " + std::to_string(p.quad_nodes));
  // Both are relative bounds on V: 1 or more would accept any V at all.
  require(!p.tol || (finite(*p.tol) && *p.tol > 0 && *p.tol < 1),
          n("tol") + " (a relative tolerance) must lie in (0, 1), got " + t(p.tol.value_or(0)));
  require(finite(p.tol_myopic) && p.tol_myopic > 0 && p.tol_myopic < 1,
          n("tol_myopic") + " (a relative tolerance) must lie in (0, 1), got " + t(p.tol_myopic));
  require(p.max_iter >= 1, n("max_iter") + " must be >= 1, got " + std::to_string(p.max_iter));
  require(!p.evaluation_sweeps || (*p.evaluation_sweeps >= 0 && *p.evaluation_sweeps <= 1000),
          n("evaluation_sweeps") + " must lie in [0, 1000], got " + std::to_string(p.evaluation_sweeps.value_or(0)));
  require(!p.evaluation_sweeps || p.policy == Policy::optimal,
          n("evaluation_sweeps") + " applies to " + n("policy") +
              " optimal only (the inert and myopic solves evaluate a fixed rule)");
  require(p.scan_points >= 3 && p.scan_points <= 64,
          n("scan_points") + " must lie in [3, 64], got " + std::to_string(p.scan_points));
  require(p.brent_starts >= 1 && p.brent_starts <= p.scan_points,
          n("brent_starts") + " must lie in [1, " + std::to_string(p.scan_points) + "] (at most " + n("scan_points") +
              "), got " + std::to_string(p.brent_starts));
  require(p.brent_max_iter >= 3 && p.brent_max_iter <= 1000,
          n("brent_max_iter") + " must lie in [3, 1000], got " + std::to_string(p.brent_max_iter));
  require(finite(p.brent_tol) && p.brent_tol > 0 && p.brent_tol < 1,
          n("brent_tol") + " must lie in (0, 1), got " + t(p.brent_tol));
  require(finite(p.checkpoint_every) && p.checkpoint_every >= 0,
          n("checkpoint_every") + " must be a number of seconds >= 0, got " + t(p.checkpoint_every));
  require(finite(p.time_limit) && p.time_limit >= 0,
          n("time_limit") + " must be a number of seconds >= 0 (0: none), got " + t(p.time_limit));
  require(p.simulate_paths >= 0, n("simulate_paths") + " must be >= 0, got " + std::to_string(p.simulate_paths));
  require(p.horizon >= 1 && p.horizon <= 100000,
          n("horizon") + " must lie in [1, 100000], got " + std::to_string(p.horizon));
  auto const& s = p.initial_state;
  require(finite(s.x) && finite(s.mu) && finite(s.Sigma) && s.Sigma >= 0,
          n("initial_state") + " needs finite x, mu and Sigma >= 0, got " + state_text(s));
  for (auto const& r : p.reference_states) {
    require(finite(r.x) && finite(r.mu) && finite(r.Sigma) && r.Sigma >= 0,
            n("reference_states") + " needs finite x, mu and Sigma >= 0, got " + state_text(r));
    // V is held constant outside the box: there it is the edge's value, not V.
    require(r.x >= p.x_lo && r.x <= p.x_hi && r.mu >= p.mu_lo && r.mu <= p.mu_hi && r.Sigma >= p.sigma_lo &&
                r.Sigma <= p.sigma_hi,
            n("reference_states") + " " + state_text(r) + " lies outside the grid: x in [" + t(p.x_lo) + ", " +
                t(p.x_hi) + "], mu in [" + t(p.mu_lo) + ", " + t(p.mu_hi) + "], Sigma in [" + t(p.sigma_lo) + ", " +
                t(p.sigma_hi) + "] (" + n("x_lo,x_hi") + ", " + n("mu_lo,mu_hi") + ", " + n("sigma_lo,sigma_hi") +
                "); V is not known there");
  }
}

// Closed form of the inert policy's (u = 0) cost-to-go: V0(x) = a + b x + c x^2 solves
//   V0(x) = (alpha + gamma x - xbar)^2 + omega ubar^2 + sigma^2 + delta E V0(alpha + gamma x + eps).
// Matching coefficients (m = alpha - xbar):
//   c = gamma^2 / (1 - delta gamma^2)
//   b = 2 gamma (m + delta c alpha) / (1 - delta gamma)
//   a = (m^2 + omega ubar^2 + sigma^2 + delta (b alpha + c (alpha^2 + sigma^2))) / (1 - delta)
struct InertClosedForm {
  double a = 0, b = 0, c = 0;
  double operator()(double x) const { return a + b * x + c * x * x; }
};

inline InertClosedForm inert_closed_form(Params const& p) {
  double const s2 = p.sigma_eps * p.sigma_eps;
  double const m = p.alpha - p.xbar;
  InertClosedForm f;
  f.c = p.gamma * p.gamma / (1 - p.delta * p.gamma * p.gamma);
  f.b = 2 * p.gamma * (m + p.delta * f.c * p.alpha) / (1 - p.delta * p.gamma);
  f.a = (m * m + p.omega * p.ubar * p.ubar + s2 + p.delta * (f.b * p.alpha + f.c * (p.alpha * p.alpha + s2))) /
        (1 - p.delta);
  return f;
}

}  // namespace parity::dual_control
