#pragma once
// The dynamic-programming engine's plain types (no Kokkos): the problem's host data, options,
// result and status, and their checks. value_iteration.hpp holds the algorithm.
#include <cmath>
#include <string>
#include <vector>

#include "parity/markov/chain.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/solve_options.hpp"

namespace parity::dp {

// An infinite-horizon problem whose choice is next period's endogenous state, picked from the
// same grid:  V(z, k) = max_{k' in grid} reward(z, k, k') + beta E[V(z', k') | z].
// `Model` supplies the per-period reward (model.hpp says how).
template <class Model>
struct GridChoiceProblem {
  Model model;
  std::vector<double> grid;  // the endogenous state's nodes, strictly increasing (also the choices)
  markov::Chain exogenous;  // the exogenous state z: its values and transition matrix
  double beta = 0.95;  // discount factor, in (0, 1)
};

// How the maximum over the choices is found.
//   exhaustive  every grid point: exact for any reward;
//   concave     a bisection on the sign of successive differences: exact, and log2(n) evaluations
//               instead of n, when the objective reward(z, k, k') + beta EV(z, k') is strictly
//               concave in k' (the user declares it; e.g. concave utility and a concave V).
enum class Search { exhaustive, concave };
inline char const* to_string(Search s) { return s == Search::concave ? "concave" : "exhaustive"; }

enum class Status { converged, not_converged, non_finite };
inline char const* to_string(Status s) {
  return s == Status::converged ? "converged" : (s == Status::non_finite ? "non_finite" : "not_converged");
}

// With the entry point's options (run::SolveOptions): progress, a line per sweep, and phases, fenced
// seconds per phase (both optional). Every engine of this folder runs in one process: ranks is not
// read.
struct Options : run::SolveOptions {
  double tolerance = 1e-8;  // on the sup norm of the change of V in one Bellman sweep
  int max_iterations = 10000;  // Bellman sweeps at most
  int howard_steps = 0;  // policy-evaluation steps after each Bellman sweep (modified policy iteration)
  Search search = Search::exhaustive;
  // The user declares that the best k' does not decrease in k (true of the growth model and most
  // savings problems): each sweep then searches only between its neighbours' choices (bellman.hpp),
  // about 2 n_k log2(n_k) evaluations per exogenous state instead of n_k^2. Combines with concave.
  bool monotone = false;
  // Stop on the MacQueen-Porteus bounds instead: when their width, beta / (1 - beta) times the
  // spread of TV - V, is below `tolerance`, and return TV shifted to the bounds' midpoint.
  bool macqueen_porteus = false;
  std::vector<double> initial_value;  // V at the start, n_z x n_k row-major; empty: zero
};

struct Result {
  Status status = Status::not_converged;
  int iterations = 0;  // Bellman sweeps
  double residual = 0;  // sup |TV - V| of the last sweep
  // V* lies in [V + lower_bound, V + upper_bound] pointwise (MacQueen-Porteus, from the last sweep);
  // with macqueen_porteus the returned V is already shifted to their midpoint.
  double lower_bound = 0, upper_bound = 0;
  std::vector<double> residual_history;  // one per sweep
  std::vector<double> value;  // V(z, k), n_z x n_k row-major
  std::vector<int> policy;  // the index of k' in the grid, n_z x n_k
  std::vector<double> policy_value;  // grid[policy]
};

// Throws InvalidInput naming the parameter.
template <class Model>
void validate(GridChoiceProblem<Model> const& p, Options const& opt) {
  require(p.grid.size() >= 2, "dp: the grid needs at least 2 nodes");
  for (std::size_t i = 0; i < p.grid.size(); ++i) {
    require(std::isfinite(p.grid[i]), "dp: grid node " + std::to_string(i) + " is not finite");
    require(i == 0 || p.grid[i - 1] < p.grid[i], "dp: the grid must be strictly increasing");
  }
  markov::check(p.exogenous, 1e-10);
  require(std::isfinite(p.beta) && p.beta > 0 && p.beta < 1, "dp: beta must lie in (0, 1)");
  require(std::isfinite(opt.tolerance) && opt.tolerance > 0, "dp: tolerance must be > 0");
  require(opt.max_iterations >= 1, "dp: max_iterations must be at least 1");
  require(opt.howard_steps >= 0, "dp: howard_steps must be >= 0");
  require(opt.initial_value.empty() || opt.initial_value.size() == p.grid.size() * p.exogenous.size(),
          "dp: initial_value must have n_z x n_k entries");
}

}  // namespace parity::dp
