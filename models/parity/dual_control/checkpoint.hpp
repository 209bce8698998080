#pragma once
// The checkpoint file of a dual-control solve (--checkpoint, --checkpoint-every, --resume): the
// IterationState (iteration_state.hpp) in run::Checkpoint's format, compiled with the report
// library, so only a program that writes or reads files links it. Kokkos-free.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "parity/dual_control/iteration_state.hpp"
#include "parity/dual_control/params.hpp"
#include "parity/run/checkpoint.hpp"
#include "parity/run/errors.hpp"

namespace parity::dual_control {

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

// The store of a solve whose Params name files: Params::resume read now (checked against these
// parameters and the grid), every saved state written to Params::checkpoint.
inline StateStore file_store(Params const& p, char const* precision) {
  StateStore store;
  std::string const print = fingerprint(p, precision);
  if (!p.resume.empty()) store.resume = read_iteration_state(p.resume, print, long(p.nx) * p.nmu * p.nsigma);
  if (!p.checkpoint.empty())
    store.save = [path = p.checkpoint, print](IterationState const& state) {
      run::write_checkpoint(path, to_checkpoint(state, print));
    };
  return store;
}

}  // namespace parity::dual_control
