#pragma once
// Where a dual-control solve stands between sweeps, as plain host data, and where such states go
// and come from. The solver saves states through a StateStore and resumes from one, so an
// interrupted solve continues where it was and ends bit for bit as the uninterrupted one; the
// file format (checkpoint.hpp) lives outside the header-only solver. Kokkos-free.
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

namespace parity::dual_control {

struct IterationState {
  int stage = 0;  // 0: evaluating the inert or myopic policy; 1: value iteration (optimal policy)
  // The iteration of the current stage.
  long iterations = 0;
  double residual = 0, mp_mid = 0;
  bool converged = false;
  std::vector<double> residuals;
  std::vector<double> V, u;  // the grid's values and policy, in the solve's precision widened to double
  // Value iteration only: the myopic solve it started from and the modified-policy-iteration state.
  long myopic_iterations = 0;
  std::vector<double> V_myopic;
  long evaluation_sweeps = 0, bellman_evaluations = 0;
  int evaluation_sweeps_now = 0;
  double previous_residual = std::numeric_limits<double>::infinity();
  std::vector<std::int64_t> evaluation_sweeps_history;
};

struct StateStore {
  // Called on rank 0 between sweeps, at most once per Params::checkpoint_every seconds of solve
  // time and after the sweep that ends a stage or meets the time limit; empty: nothing saved.
  std::function<void(IterationState const&)> save;
  // A state of the same parameters and grid to continue from; empty: a fresh solve.
  std::optional<IterationState> resume;
};

}  // namespace parity::dual_control
