#pragma once
// Bayesian dual control on a tensor grid (x, mu, Sigma), written once in Kokkos.
//
// Given the state S = (x, mu, Sigma) and the control u, the next observation is predicted as
//   x' ~ N(alpha + mu u + gamma x, s^2),  s^2 = u^2 Sigma + sigma_eps^2,
// and Bayes' rule (Kalman form, well defined at Sigma = 0) gives, with x' = m + s z,
//   mu' = mu + Sigma u z / s,  Sigma' = Sigma sigma_eps^2 / s^2.
// So E V(S') is a one-dimensional Gauss-Hermite sum over z, each term a trilinear interpolation
// of V (held constant outside the box). The expected one-period loss is
//   L(S, u) = (alpha + mu u + gamma x - xbar)^2 + u^2 Sigma + sigma_eps^2 + omega (u - ubar)^2.
// Every sweep is one thread per grid point; the convergence test is a device reduction giving the
// MacQueen-Porteus bound delta/(1-delta) (max dV - min dV), relative to max |V|.
//
// Across ranks (run::Communicator): the points, in memory order, are cut into contiguous slabs, one per
// rank. A sweep updates this rank's slab only (reading all of V_old), then the slabs of V (and u)
// are all-gathered through host memory, so every rank holds the whole grid for the next sweep;
// the sweep statistics are global maxima, minima and integer sums. Every point's value depends only
// on V_old, and max, min and integer sums are exact in any order, so V, u and the iteration
// history are bit-identical to a one-rank run for any rank count.
//
// The pieces live in detail/: problem.hpp (the model on the device), objective.hpp (the
// minimisation over u), sweep.hpp (one sweep and the slabs' exchange), iterate.hpp (the
// fixed-point loop), diagnostics.hpp (reference values, simulation) and host_copy.hpp.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "models/dual_control/checkpoint.hpp"
#include "models/dual_control/detail/diagnostics.hpp"
#include "models/dual_control/detail/host_copy.hpp"
#include "models/dual_control/detail/iterate.hpp"
#include "models/dual_control/detail/objective.hpp"
#include "models/dual_control/detail/problem.hpp"
#include "models/dual_control/detail/sweep.hpp"
#include "models/dual_control/estimate.hpp"
#include "models/dual_control/params.hpp"
#include "models/dual_control/result.hpp"
#include "parity/run/communicator.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::dual_control {

template <class ExecutionSpace, class Real>
Result solve(ExecutionSpace const& space, Params const& params, run::Progress& progress, run::PhaseTimes& phases,
             run::Communicator const& ranks = {}) {
  using Mem = typename ExecutionSpace::memory_space;
  validate(params);
  Kokkos::Timer timer;
  Result result;
  result.policy = params.policy;
  result.inert = inert_closed_form(params);
  result.tolerance = params.tolerance();
  result.tolerance_effective = std::max(result.tolerance, detail::tolerance_floor<Real>(params.delta));
  double const tol_myopic = std::max(params.tol_myopic, detail::tolerance_floor<Real>(params.delta));
  long const points = long(params.nx) * params.nmu * params.nsigma;
  std::string const print = fingerprint(params, sizeof(Real) == sizeof(float) ? "float" : "double");
  IterationState resumed;
  if (!params.resume.empty()) resumed = read_iteration_state(params.resume, print, points);

  detail::Problem<Real, Mem> problem;
  detail::Grid3<Real, Mem> v, v_next, u, v_myopic, u_myopic;
  {
    timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::setup");
    problem = detail::make_problem<Real, Mem>(params);
    v = detail::Grid3<Real, Mem>("parity::dual_control::V", params.nx, params.nmu, params.nsigma);
    v_next = detail::Grid3<Real, Mem>("parity::dual_control::V_next", params.nx, params.nmu, params.nsigma);
    u = detail::Grid3<Real, Mem>("parity::dual_control::u", params.nx, params.nmu, params.nsigma);
  }
  detail::SlabBuffers<Real> slabs(ranks, long(params.nx) * params.nmu * params.nsigma);
  detail::BrentSettings const bs{params.brent_starts, params.scan_points, params.brent_max_iter, params.brent_tol};
  int const evaluation_sweeps = params.evaluation_sweeps_effective();
  double const delta = params.delta, scale = delta / (1 - delta);

  // Checkpoints between sweeps, at most one per checkpoint_every seconds (and after the sweep
  // that converges, so a finished stage is never redone).
  double last_checkpoint = timer.seconds();
  auto save = [&](IterationState state, detail::IterationOutcome const& out) {
    if (params.checkpoint.empty()) return;
    if (!out.converged && !out.out_of_time && timer.seconds() - last_checkpoint < params.checkpoint_every) return;
    state.iterations = out.iterations;
    state.residual = out.residual;
    state.mp_mid = out.mp_mid;
    state.converged = out.converged;
    state.residuals = out.residuals;
    if (ranks.rank != 0) return;  // every rank holds the whole grid; one writes it
    Kokkos::fence();
    state.V = detail::to_vector(v);
    state.u = detail::to_vector(u);
    if (state.stage == 1) state.V_myopic = detail::to_vector(v_myopic);
    run::write_checkpoint(params.checkpoint, to_checkpoint(state, print));
    last_checkpoint = timer.seconds();
  };
  // Whether the time limit has passed; on several ranks whether it has on any, so all stop together.
  auto out_of_time = [&] {
    if (params.time_limit <= 0) return false;
    double late = timer.seconds() >= params.time_limit ? 1.0 : 0.0;
    if (ranks.several()) late = ranks.max(late);
    return late > 0;
  };
  auto restore = [](IterationState const& st) {
    detail::IterationOutcome out;
    out.iterations = st.iterations;
    out.residual = st.residual;
    out.mp_mid = st.mp_mid;
    out.converged = st.converged;
    out.residuals = st.residuals;
    return out;
  };

  // Policy evaluation of inert (u = 0) or myopic, from V = 0.
  Policy const first = params.policy == Policy::inert ? Policy::inert : Policy::myopic;
  bool const skip_first = !params.resume.empty() && resumed.stage == 1;
  detail::IterationOutcome eval;
  if (skip_first) {
    eval.iterations = resumed.myopic_iterations;
    eval.converged = true;  // value iteration starts only from a converged myopic solve
  } else {
    timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::policy_evaluation");
    detail::fill_policy(space, problem, first, u);
    detail::IterationOutcome start;
    if (!params.resume.empty()) {
      detail::from_vector(resumed.V, v);
      start = restore(resumed);
    }
    auto sweep = [&] {
      auto const st = detail::global_stats(ranks, detail::evaluate_policy(space, problem, v, u, v_next, ranks));
      detail::gather_slabs(space, ranks, v_next, slabs);
      std::swap(v, v_next);
      return st;
    };
    eval = detail::iterate<Real>(
        sweep, delta, params.policy == Policy::optimal ? tol_myopic : result.tolerance_effective, params.max_iter,
        progress, to_string(first) + " evaluation", timer, start,
        [&](detail::IterationOutcome const& out) { save(IterationState{}, out); }, out_of_time);
    if (params.mp_correction && eval.converged) detail::add_constant(space, v, Real(eval.mp_mid));
  }

  if (params.policy != Policy::optimal) {
    result.iterations = eval.iterations;
    result.residual = eval.residual;
    result.converged = eval.converged;
    result.mp_shift = params.mp_correction && eval.converged ? eval.mp_mid : 0.0;
    result.residual_history = eval.residuals;
    result.time_limited = eval.out_of_time;
    if (!eval.converged) result.stopped_in = "policy evaluation";
  } else {
    result.myopic_iterations = eval.iterations;
    {
      timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::setup");
      v_myopic = detail::Grid3<Real, Mem>("parity::dual_control::V_myopic", params.nx, params.nmu, params.nsigma);
      u_myopic = detail::Grid3<Real, Mem>("parity::dual_control::u_myopic", params.nx, params.nmu, params.nsigma);
      if (skip_first) {
        detail::from_vector(resumed.V_myopic, v_myopic);
        detail::fill_policy(space, problem, Policy::myopic, u_myopic);
        detail::from_vector(resumed.V, v);
        detail::from_vector(resumed.u, u);
      } else {
        Kokkos::deep_copy(space, v_myopic, v);
        Kokkos::deep_copy(space, u_myopic, u);
      }
    }
    if (!eval.converged) {
      result.residual = eval.residual;
      result.residual_history = eval.residuals;
      result.converged = false;
      result.time_limited = eval.out_of_time;
      result.stopped_in = "myopic warm start";
    } else {
      timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::value_iteration");
      // Modified policy iteration: `evaluation_sweeps` sweeps of the current policy after each
      // Bellman sweep; the stopping test is on the Bellman sweeps. Once the Bellman residual stalls
      // near the tolerance (falls by less than half, below 10 tol), the rest is plain value
      // iteration: in float the residual can stall at the rounding noise of the minimum over u,
      // which the evaluation sweeps at a fixed u do not share, while successive Bellman sweeps do.
      IterationState vi_state;
      vi_state.stage = 1;
      vi_state.myopic_iterations = eval.iterations;
      vi_state.evaluation_sweeps_now = evaluation_sweeps;
      detail::IterationOutcome start;
      if (skip_first) {
        vi_state = resumed;
        start = restore(resumed);
      }
      auto sweep = [&] {
        auto const st = detail::global_stats(ranks, detail::bellman_update(space, problem, v, v_next, u, bs, ranks));
        detail::gather_slabs(space, ranks, v_next, slabs);
        detail::gather_slabs(space, ranks, u, slabs);
        vi_state.bellman_evaluations += st.evaluations;
        std::swap(v, v_next);
        double const vmax = std::max(double(st.vmax), std::numeric_limits<double>::min());
        double const residual = scale * (double(st.dmax) - double(st.dmin)) / vmax;
        bool const done = residual <= result.tolerance_effective;
        if (residual > 0.5 * vi_state.previous_residual && residual < 10 * result.tolerance_effective)
          vi_state.evaluation_sweeps_now = 0;
        vi_state.previous_residual = residual;
        vi_state.evaluation_sweeps_history.push_back(done ? 0 : vi_state.evaluation_sweeps_now);
        if (!done)
          for (int m = 0; m < vi_state.evaluation_sweeps_now; ++m) {
            detail::evaluate_policy(space, problem, v, u, v_next, ranks);
            detail::gather_slabs(space, ranks, v_next, slabs);
            std::swap(v, v_next);
            ++vi_state.evaluation_sweeps;
          }
        return st;
      };
      auto const vi = detail::iterate<Real>(
          sweep, delta, result.tolerance_effective, params.max_iter, progress, "value iteration", timer, start,
          [&](detail::IterationOutcome const& out) { save(vi_state, out); }, out_of_time);
      result.iterations = vi.iterations;
      result.residual = vi.residual;
      result.converged = vi.converged;
      result.time_limited = vi.out_of_time;
      result.evaluation_sweeps = vi_state.evaluation_sweeps;
      result.bellman_evaluations = vi_state.bellman_evaluations;
      result.evaluation_sweeps_history.assign(vi_state.evaluation_sweeps_history.begin(),
                                              vi_state.evaluation_sweeps_history.end());
      result.mp_shift = params.mp_correction && vi.converged ? vi.mp_mid : 0.0;
      result.residual_history = vi.residuals;
      if (!vi.converged) result.stopped_in = "value iteration";
      if (params.mp_correction && vi.converged) detail::add_constant(space, v, Real(vi.mp_mid));
    }
  }

  // A solve stopped by the time limit is not simulated; a simulation that reaches the limit stops
  // between chunks and reports nothing.
  if (params.simulate_paths > 0 && !result.time_limited) {
    timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::simulation");
    for (Policy which : {Policy::inert, Policy::myopic, Policy::optimal}) {
      if (which == Policy::optimal && params.policy != Policy::optimal) continue;
      auto sim = detail::simulate(space, problem, which, v, bs, params, progress, timer, out_of_time);
      if (!sim) {
        result.time_limited = true;
        result.stopped_in = "simulation";
        result.simulation.clear();
        break;
      }
      result.simulation.push_back(*sim);
    }
  }

  {
    timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::results");
    detail::reference_values(space, problem, params.policy, v, params.policy == Policy::optimal ? v_myopic : v, bs,
                             params.reference_states, result.references);
    result.x = detail::to_vector<Real, Mem>(problem.ax.nodes());
    result.mu = detail::to_vector<Real, Mem>(problem.amu.nodes());
    result.Sigma = detail::to_vector<Real, Mem>(problem.asg.nodes());
    result.V = detail::to_vector(v);
    result.u = detail::to_vector(u);
    if (params.policy == Policy::optimal) {
      result.V_myopic = detail::to_vector(v_myopic);
      result.u_myopic = detail::to_vector(u_myopic);
    }
  }
  return result;
}

// The same for library use without the command line's reporting: silent, phases not recorded.
template <class ExecutionSpace, class Real>
Result solve(ExecutionSpace const& space, Params const& params) {
  run::SilentProgress progress;
  run::PhaseTimes phases;
  return solve<ExecutionSpace, Real>(space, params, progress, phases);
}

// The same problem on a grid of about `target` points (the whole grid if it is not larger): x and
// mu shrink alike; Sigma keeps up to 32 nodes, since the search evaluates the objective at a kink
// per Sigma node below S.
inline Params calibration_params(Params p, long target) {
  double const points = double(p.nx) * p.nmu * p.nsigma;
  if (points <= double(target)) return p;
  auto clamp_nodes = [](double n, int most) { return int(std::clamp(std::lround(n), 2L, long(most))); };
  int const ns = clamp_nodes(std::max(p.nsigma * std::cbrt(double(target) / points), 32.0), p.nsigma);
  double const f = std::sqrt(double(target) / ns / (double(p.nx) * p.nmu));
  p.nx = clamp_nodes(p.nx * f, p.nx);
  int nmu = clamp_nodes(p.nmu * f, p.nmu);
  if (p.nmu % 2 == 1 && nmu % 2 == 0) ++nmu;  // an odd count keeps the node at mu = 0 and the mirror symmetry
  p.nmu = std::min(nmu, p.nmu);
  p.nsigma = ns;
  return p;
}

// Times the solve's kernels on smaller grids of the same problem, for estimate() (estimate.hpp):
// policy-evaluation sweeps of the policy the solve evaluates (inert or myopic) on about
// max(4096, 4 x concurrency) points, and for the optimal policy Bellman sweeps on about
// max(512, concurrency) points, both from V = V0(x). Each figure is the mean of two sweeps after a
// first that also starts the kernels. Three sweeps of each kind, on a host as on a GPU a fraction of
// one sweep of a grid large enough to need an estimate.
template <class ExecutionSpace, class Real>
Calibration calibrate(ExecutionSpace const& space, Params const& params) {
  using Mem = typename ExecutionSpace::memory_space;
  long const concurrency = std::max(1L, long(space.concurrency()));
  Calibration c;
  auto grid_of = [](Params const& q) { return std::array<int, 3>{q.nx, q.nmu, q.nsigma}; };
  auto per_sweep = [&](auto&& sweep) {
    sweep();  // also starts the kernel and the threads
    space.fence("parity::dual_control::calibration");
    Kokkos::Timer t;
    for (int r = 0; r < 2; ++r) sweep();
    space.fence("parity::dual_control::calibration");
    return t.seconds() / 2;
  };
  {
    Params const q = calibration_params(params, std::max(4096L, 4 * concurrency));
    auto const problem = detail::make_problem<Real, Mem>(q);
    detail::Grid3<Real, Mem> v("parity::dual_control::calibration_V", q.nx, q.nmu, q.nsigma),
        v_next("parity::dual_control::calibration_V_next", q.nx, q.nmu, q.nsigma),
        u("parity::dual_control::calibration_u", q.nx, q.nmu, q.nsigma);
    detail::fill_inert_value(space, problem, v);
    detail::fill_policy(space, problem, params.policy == Policy::inert ? Policy::inert : Policy::myopic, u);
    double const seconds = per_sweep([&] {
      detail::evaluate_policy(space, problem, v, u, v_next);
      std::swap(v, v_next);
    });
    c.evaluation_grid = grid_of(q);
    c.evaluation_seconds_per_point = seconds / (double(q.nx) * q.nmu * q.nsigma);
  }
  if (params.policy == Policy::optimal) {
    Params const q = calibration_params(params, std::max(512L, concurrency));
    auto const problem = detail::make_problem<Real, Mem>(q);
    detail::Grid3<Real, Mem> v("parity::dual_control::calibration_V", q.nx, q.nmu, q.nsigma),
        v_next("parity::dual_control::calibration_V_next", q.nx, q.nmu, q.nsigma),
        u("parity::dual_control::calibration_u", q.nx, q.nmu, q.nsigma);
    detail::fill_inert_value(space, problem, v);
    detail::fill_policy(space, problem, Policy::myopic, u);
    detail::BrentSettings const bs{params.brent_starts, params.scan_points, params.brent_max_iter, params.brent_tol};
    long evaluations = 0;
    double const seconds = per_sweep([&] {
      evaluations = detail::bellman_update(space, problem, v, v_next, u, bs).evaluations;
      std::swap(v, v_next);
    });
    double const points = double(q.nx) * q.nmu * q.nsigma;
    c.bellman_grid = grid_of(q);
    c.bellman_seconds_per_point = seconds / points;
    c.bellman_evaluations_per_point = double(evaluations) / points;
  }
  return c;
}

}  // namespace parity::dual_control
