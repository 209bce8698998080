#pragma once
// What a dual-control solve returns: plain host data (no Kokkos, no JSON).
#include <string>
#include <vector>

#include "parity/dual_control/params.hpp"

namespace parity::dual_control {

struct ReferenceValue {
  State state;
  double V = 0;  // value function interpolated at the state
  double u = 0;  // the policy at the state (closed form, or the minimisation run there)
  double V_myopic = 0;  // optimal runs: the myopic cost-to-go there (else equal to V)
  double V_inert = 0;  // the inert closed form there
};

// Average realised discounted loss of one policy over the simulated paths.
struct SimulationSummary {
  std::string policy;
  double mean_loss = 0;
  double std_error = 0;
  double mean_final_Sigma = 0;  // average belief variance at the horizon
  double mean_abs_final_mu_error = 0;  // no true beta: |mu_T - beta| with beta drawn from the prior
};

struct Result {
  Policy policy = Policy::optimal;
  std::vector<double> x, mu, Sigma;  // axes
  std::vector<double> V, u;  // nx * nmu * nsigma, C order (Sigma fastest)
  std::vector<double> V_myopic, u_myopic;  // optimal runs only: the myopic solve it started from
  long iterations = 0;  // Bellman / evaluation iterations of the requested policy
  long myopic_iterations = 0;  // optimal runs: iterations of the preliminary myopic solve
  long evaluation_sweeps = 0;  // optimal runs: policy-evaluation sweeps in total
  long bellman_evaluations = 0;  // optimal runs: objective evaluations of all Bellman sweeps (searches over u)
  double residual = 0;  // final MacQueen-Porteus relative bound delta/(1-delta) span(dV)/max|V|
  double tolerance = 0;  // requested
  double tolerance_effective = 0;  // raised to a precision floor for float
  double mp_shift = 0;  // MacQueen-Porteus midpoint added to V at the end
  // Convergence history of the requested policy's iterations: the residual after each sweep
  // (optimal: each Bellman sweep) and, for optimal runs, the evaluation sweeps that followed it.
  std::vector<double> residual_history;
  std::vector<int> evaluation_sweeps_history;
  bool converged = false;
  bool time_limited = false;  // stopped by Params::time_limit (in the stage stopped_in names)
  std::string stopped_in;  // not converged or time-limited: the stage that ended it (policy evaluation, myopic warm
                           // start, value iteration; simulation when the time limit came there)
  InertClosedForm inert;
  std::vector<ReferenceValue> references;
  std::vector<SimulationSummary> simulation;
};

}  // namespace parity::dual_control
