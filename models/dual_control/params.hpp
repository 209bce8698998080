#pragma once
// Parameters of the Bayesian dual-control problem (Morozov & Mathur 2012; Beck & Wieland 2002
// without parameter drift):
//   minimise E sum_t delta^t [ (x_t - xbar)^2 + omega (u_t - ubar)^2 ]
//   subject to x_t = alpha + beta u_t + gamma x_{t-1} + eps_t,  eps_t ~ N(0, sigma_eps^2),
//   beta unknown with Gaussian belief N(mu, Sigma), updated by Bayes' rule.
// Plain data plus validate(); no Kokkos, so the CLI and the solver share it.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"

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
  throw InvalidInput("--algorithm must be paper or accelerated, got '" + s + "'");
}

// Policy-evaluation sweeps after each Bellman sweep when --evaluation-sweeps is not given.
constexpr int accelerated_evaluation_sweeps = 20;

inline std::string to_string(Policy p) {
  return p == Policy::inert ? "inert" : (p == Policy::myopic ? "myopic" : "optimal");
}

inline Policy parse_policy(std::string const& s) {
  if (s == "inert") return Policy::inert;
  if (s == "myopic") return Policy::myopic;
  if (s == "optimal") return Policy::optimal;
  throw InvalidInput("--policy must be inert, myopic or optimal, got '" + s + "'");
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
  double tol = -1.0;  // < 0: 1e-6 for inert/myopic, 1e-4 for optimal
  double tol_myopic = 1e-6;  // the myopic solve that starts the optimal one
  long max_iter = 5000;
  Algorithm algorithm = Algorithm::accelerated;
  int evaluation_sweeps = -1;  // policy-evaluation sweeps between Bellman steps (modified policy iteration);
                               // < 0: the algorithm's default (paper 0, accelerated 20)
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

  double tolerance() const { return tol >= 0 ? tol : (policy == Policy::optimal ? 1e-4 : 1e-6); }
  int evaluation_sweeps_effective() const {
    if (evaluation_sweeps >= 0) return evaluation_sweeps;
    return algorithm == Algorithm::paper ? 0 : accelerated_evaluation_sweeps;
  }
};

inline void validate(Params const& p) {
  auto finite = [](double v) { return std::isfinite(v); };
  require(finite(p.alpha) && finite(p.gamma) && finite(p.xbar) && finite(p.ubar),
          "alpha, gamma, xbar and ubar must be finite");
  require(p.delta > 0 && p.delta < 1, "--delta (discount factor) must lie in (0, 1)");
  require(p.delta * p.gamma * p.gamma < 1, "need delta * gamma^2 < 1 for the inert policy's cost-to-go to be finite");
  require(finite(p.omega) && p.omega >= 0, "--omega (weight on the control) must be >= 0");
  require(finite(p.sigma_eps) && p.sigma_eps > 0, "--sigma-eps must be > 0");
  require(p.nx >= 2 && p.nmu >= 2 && p.nsigma >= 2, "--grid needs at least 2 nodes on each axis");
  require(finite(p.x_lo) && finite(p.x_hi) && p.x_lo < p.x_hi, "--x-range needs finite lower < upper");
  require(finite(p.mu_lo) && finite(p.mu_hi) && p.mu_lo < p.mu_hi, "--mu-range needs finite lower < upper");
  require(finite(p.sigma_lo) && finite(p.sigma_hi) && p.sigma_lo >= 0 && p.sigma_lo < p.sigma_hi,
          "--sigma-range needs 0 <= lower < upper (Sigma is a variance)");
  require(p.xbar >= p.x_lo && p.xbar <= p.x_hi, "xbar must lie inside --x-range (the x nodes cluster there)");
  require(p.mu_lo <= 0 && p.mu_hi >= 0, "--mu-range must contain 0 (the mu nodes cluster there)");
  require(finite(p.x_concentration) && p.x_concentration >= 0 && finite(p.mu_concentration) && p.mu_concentration >= 0,
          "clustering concentrations must be >= 0");
  require(p.omega > 0 || p.sigma_lo > 0,
          "need --omega > 0 or a Sigma range above 0: the myopic rule divides by Sigma + mu^2 + omega");
  require(p.quad_nodes >= 1 && p.quad_nodes <= 200, "--quad-nodes must lie in [1, 200]");
  // Both are relative bounds on V: 1 or more would accept any V at all.
  require(p.tol < 0 || (finite(p.tol) && p.tol > 0 && p.tol < 1), "--tol (a relative tolerance) must lie in (0, 1)");
  require(finite(p.tol_myopic) && p.tol_myopic > 0 && p.tol_myopic < 1,
          "--tol-myopic (a relative tolerance) must lie in (0, 1)");
  require(p.max_iter >= 1, "--max-iter must be >= 1");
  require(p.evaluation_sweeps >= -1 && p.evaluation_sweeps <= 1000,
          "--evaluation-sweeps must lie in [0, 1000] (or -1: the algorithm's default)");
  require(p.evaluation_sweeps < 0 || p.policy == Policy::optimal,
          "--evaluation-sweeps applies to --policy optimal only (the inert and myopic solves evaluate a fixed rule)");
  require(p.scan_points >= 3 && p.scan_points <= 64, "--scan-points must lie in [3, 64]");
  require(p.brent_starts >= 1 && p.brent_starts <= p.scan_points, "--brent-starts must lie in [1, scan points]");
  require(p.brent_max_iter >= 3 && p.brent_max_iter <= 1000, "--brent-max-iter must lie in [3, 1000]");
  require(finite(p.brent_tol) && p.brent_tol > 0 && p.brent_tol < 1, "--brent-tol must lie in (0, 1)");
  require(std::isfinite(p.checkpoint_every) && p.checkpoint_every >= 0,
          "--checkpoint-every must be a number of seconds >= 0");
  require(std::isfinite(p.time_limit) && p.time_limit >= 0, "--time-limit must be a number of seconds >= 0 (0: none)");
  require(p.simulate_paths >= 0, "--simulate-paths must be >= 0");
  require(p.horizon >= 1 && p.horizon <= 100000, "--horizon must lie in [1, 100000]");
  auto const& s = p.initial_state;
  require(finite(s.x) && finite(s.mu) && finite(s.Sigma) && s.Sigma >= 0,
          "--initial-state needs finite x, mu and Sigma >= 0");
  for (auto const& r : p.reference_states)
    require(finite(r.x) && finite(r.mu) && finite(r.Sigma) && r.Sigma >= 0,
            "reference states need finite x, mu and Sigma >= 0");
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
