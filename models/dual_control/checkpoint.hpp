#pragma once
// Where a dual-control solve stands, as plain host data, and its checkpoint file. Written between
// sweeps (--checkpoint, --checkpoint-every) and read back by --resume, so an interrupted solve
// continues where it was and ends bit for bit as the uninterrupted one. Kokkos-free.
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "models/dual_control/params.hpp"
#include "parity/run/checkpoint.hpp"
#include "parity/run/errors.hpp"

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

// What a checkpoint belongs to: every parameter that changes the iteration, one "key=value" line
// each, so a mismatch names the parameter. The iteration cap, the simulation and the reference
// states are left out: a solve may resume with a larger --max-iter or other outputs.
inline std::string fingerprint(Params const& p, char const* precision) {
  std::ostringstream f;
  f.precision(17);
  f << "model=dual_control\nprecision=" << precision << "\npolicy=" << to_string(p.policy)
    << "\nalgorithm=" << (p.algorithm == Algorithm::paper ? "paper" : "accelerated") << "\nalpha=" << p.alpha
    << "\ngamma=" << p.gamma << "\ndelta=" << p.delta << "\nomega=" << p.omega << "\nxbar=" << p.xbar
    << "\nubar=" << p.ubar << "\nsigma_eps=" << p.sigma_eps << "\ngrid=" << p.nx << "," << p.nmu << "," << p.nsigma
    << "\nx_range=" << p.x_lo << "," << p.x_hi << "," << p.x_concentration << "\nmu_range=" << p.mu_lo << "," << p.mu_hi
    << "," << p.mu_concentration << "\nsigma_range=" << p.sigma_lo << "," << p.sigma_hi
    << "\nquad_nodes=" << p.quad_nodes << "\ntol=" << p.tolerance() << "\ntol_myopic=" << p.tol_myopic
    << "\nevaluation_sweeps=" << p.evaluation_sweeps_effective() << "\nscan_points=" << p.scan_points
    << "\nbrent=" << p.brent_starts << "," << p.brent_max_iter << "," << p.brent_tol
    << "\nmp_correction=" << p.mp_correction << "\n";
  return f.str();
}

inline run::Checkpoint to_checkpoint(IterationState const& s, std::string const& fingerprint) {
  run::Checkpoint c;
  c.fingerprint = fingerprint;
  c.set_scalar("stage", std::int64_t(s.stage));
  c.set_scalar("iterations", std::int64_t(s.iterations));
  c.set_scalar("residual", s.residual);
  c.set_scalar("mp_mid", s.mp_mid);
  c.set_scalar("converged", std::int64_t(s.converged));
  c.set("residuals", s.residuals);
  c.set("V", s.V);
  c.set("u", s.u);
  c.set_scalar("myopic_iterations", std::int64_t(s.myopic_iterations));
  c.set("V_myopic", s.V_myopic);
  c.set_scalar("evaluation_sweeps", std::int64_t(s.evaluation_sweeps));
  c.set_scalar("bellman_evaluations", std::int64_t(s.bellman_evaluations));
  c.set_scalar("evaluation_sweeps_now", std::int64_t(s.evaluation_sweeps_now));
  c.set_scalar("previous_residual", s.previous_residual);
  c.set("evaluation_sweeps_history", s.evaluation_sweeps_history);
  return c;
}

// Reads the state written for these parameters and grid size; a missing, corrupt or foreign file
// is bad input (the message names the file and what is wrong).
inline IterationState read_iteration_state(std::string const& path, std::string const& fingerprint, long points) {
  try {
    auto const c = run::read_checkpoint(path, fingerprint);
    IterationState s;
    s.stage = int(c.integer("stage"));
    s.iterations = long(c.integer("iterations"));
    s.residual = c.scalar("residual");
    s.mp_mid = c.scalar("mp_mid");
    s.converged = c.integer("converged") != 0;
    s.residuals = c.doubles("residuals", s.iterations);
    s.V = c.doubles("V", points);
    s.u = c.doubles("u", points);
    s.myopic_iterations = long(c.integer("myopic_iterations"));
    s.V_myopic = c.doubles("V_myopic", s.stage == 1 ? points : 0);
    s.evaluation_sweeps = long(c.integer("evaluation_sweeps"));
    s.bellman_evaluations = long(c.integer("bellman_evaluations"));
    s.evaluation_sweeps_now = int(c.integer("evaluation_sweeps_now"));
    s.previous_residual = c.scalar("previous_residual");
    s.evaluation_sweeps_history = c.integers("evaluation_sweeps_history", s.stage == 1 ? s.iterations : 0);
    require(s.stage == 0 || s.stage == 1, "checkpoint '" + path + "' holds an unknown stage");
    return s;
  } catch (run::CheckpointError const& e) {
    throw InvalidInput(std::string("--resume: ") + e.what());
  }
}

}  // namespace parity::dual_control
