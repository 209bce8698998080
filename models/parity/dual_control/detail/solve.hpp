#pragma once
// One dual-control solve as one object: the grids, the settings and the stages, each a short
// method over that state. run() is the whole solve: evaluate the inert or myopic policy, then
// (optimal) value iteration from the myopic solve, then the optional simulation and the results.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "parity/dual_control/detail/diagnostics.hpp"
#include "parity/dual_control/detail/host_copy.hpp"
#include "parity/dual_control/detail/iterate.hpp"
#include "parity/dual_control/detail/objective.hpp"
#include "parity/dual_control/detail/problem.hpp"
#include "parity/dual_control/detail/sweep.hpp"
#include "parity/dual_control/iteration_state.hpp"
#include "parity/dual_control/params.hpp"
#include "parity/dual_control/result.hpp"
#include "parity/run/communicator.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::dual_control::detail {

template <class ExecutionSpace, class Real>
class Solve {
  using Mem = typename ExecutionSpace::memory_space;

 public:
  Solve(ExecutionSpace const& space, Params const& params, run::Progress& progress, run::PhaseTimes& phases,
        run::Communicator const& ranks, StateStore const& store)
      : space_(space),
        params_(params),
        progress_(progress),
        phases_(phases),
        ranks_(ranks),
        store_(store),
        slabs_(ranks, long(params.nx) * params.nmu * params.nsigma),
        bs_{params.brent_starts, params.scan_points, params.brent_max_iter, params.brent_tol},
        scale_(params.delta / (1 - params.delta)) {
    result_.policy = params.policy;
    result_.inert = inert_closed_form(params);
    result_.tolerance = params.tolerance();
    result_.tolerance_effective = std::max(result_.tolerance, tolerance_floor<Real>(params.delta));
    tol_myopic_ = std::max(params.tol_myopic, tolerance_floor<Real>(params.delta));
    long const points = long(params.nx) * params.nmu * params.nsigma;
    if (store.resume) {
      require(long(store.resume->V.size()) == points, "resume: the saved state holds " +
                                                          std::to_string(store.resume->V.size()) +
                                                          " grid points, this solve " + std::to_string(points));
      resumed_ = *store.resume;
    }
    last_save_ = timer_.seconds();
  }

  Result run() {
    setup();
    IterationOutcome const first = evaluate_first();
    if (params_.policy != Policy::optimal)
      finish_evaluation(first);
    else
      value_iteration(first);
    simulate();
    collect();
    return std::move(result_);
  }

 private:
  bool resuming() const { return store_.resume.has_value(); }

  void setup() {
    timing::ScopedPhase<ExecutionSpace> phase(space_, phases_, "parity::dual_control::setup");
    problem_ = make_problem<Real, Mem>(params_);
    v_ = Grid3<Real, Mem>("parity::dual_control::V", params_.nx, params_.nmu, params_.nsigma);
    v_next_ = Grid3<Real, Mem>("parity::dual_control::V_next", params_.nx, params_.nmu, params_.nsigma);
    u_ = Grid3<Real, Mem>("parity::dual_control::u", params_.nx, params_.nmu, params_.nsigma);
  }

  // Saves between sweeps, at most once per checkpoint_every seconds (and after the sweep that
  // converges or meets the time limit, so a finished stage is never redone).
  void save(IterationState state, IterationOutcome const& out) {
    if (!store_.save) return;
    if (!out.converged && !out.out_of_time && timer_.seconds() - last_save_ < params_.checkpoint_every) return;
    state.iterations = out.iterations;
    state.residual = out.residual;
    state.mp_mid = out.mp_mid;
    state.converged = out.converged;
    state.residuals = out.residuals;
    if (ranks_.rank != 0) return;  // every rank holds the whole grid; one saves it
    Kokkos::fence();
    state.V = to_vector(v_);
    state.u = to_vector(u_);
    if (state.stage == 1) state.V_myopic = to_vector(v_myopic_);
    store_.save(state);
    last_save_ = timer_.seconds();
  }

  // Whether the time limit has passed; on several ranks whether it has on any, so all stop together.
  bool out_of_time() const {
    if (params_.time_limit <= 0) return false;
    double late = timer_.seconds() >= params_.time_limit ? 1.0 : 0.0;
    if (ranks_.several()) late = ranks_.max(late);
    return late > 0;
  }

  static IterationOutcome restore(IterationState const& st) {
    IterationOutcome out;
    out.iterations = st.iterations;
    out.residual = st.residual;
    out.mp_mid = st.mp_mid;
    out.converged = st.converged;
    out.residuals = st.residuals;
    return out;
  }

  // Policy evaluation of inert (u = 0) or myopic, from V = 0 (or the saved state). A resume in
  // value iteration skips it: that stage starts only from a converged myopic solve.
  IterationOutcome evaluate_first() {
    Policy const first = params_.policy == Policy::inert ? Policy::inert : Policy::myopic;
    IterationOutcome eval;
    if (resuming() && resumed_.stage == 1) {
      eval.iterations = resumed_.myopic_iterations;
      eval.converged = true;
      return eval;
    }
    timing::ScopedPhase<ExecutionSpace> phase(space_, phases_, "parity::dual_control::policy_evaluation");
    fill_policy(space_, problem_, first, u_);
    IterationOutcome start;
    if (resuming()) {
      from_vector(resumed_.V, v_);
      start = restore(resumed_);
    }
    auto sweep = [&] {
      auto const st = global_stats(ranks_, evaluate_policy(space_, problem_, v_, u_, v_next_, ranks_));
      gather_slabs(space_, ranks_, v_next_, slabs_);
      std::swap(v_, v_next_);
      return st;
    };
    eval = iterate<Real>(
        sweep, params_.delta, params_.policy == Policy::optimal ? tol_myopic_ : result_.tolerance_effective,
        params_.max_iter, progress_, to_string(first) + " evaluation", timer_, start,
        [&](IterationOutcome const& out) { save(IterationState{}, out); }, [&] { return out_of_time(); });
    if (params_.mp_correction && eval.converged) add_constant(space_, v_, Real(eval.mp_mid));
    return eval;
  }

  void finish_evaluation(IterationOutcome const& eval) {
    result_.iterations = eval.iterations;
    result_.residual = eval.residual;
    result_.converged = eval.converged;
    result_.mp_shift = params_.mp_correction && eval.converged ? eval.mp_mid : 0.0;
    result_.residual_history = eval.residuals;
    result_.time_limited = eval.out_of_time;
    if (!eval.converged) result_.stopped_in = "policy evaluation";
  }

  // The myopic solve kept beside the optimal one (its value starts value iteration).
  void keep_myopic() {
    timing::ScopedPhase<ExecutionSpace> phase(space_, phases_, "parity::dual_control::setup");
    v_myopic_ = Grid3<Real, Mem>("parity::dual_control::V_myopic", params_.nx, params_.nmu, params_.nsigma);
    u_myopic_ = Grid3<Real, Mem>("parity::dual_control::u_myopic", params_.nx, params_.nmu, params_.nsigma);
    if (resuming() && resumed_.stage == 1) {
      from_vector(resumed_.V_myopic, v_myopic_);
      fill_policy(space_, problem_, Policy::myopic, u_myopic_);
      from_vector(resumed_.V, v_);
      from_vector(resumed_.u, u_);
    } else {
      Kokkos::deep_copy(space_, v_myopic_, v_);
      Kokkos::deep_copy(space_, u_myopic_, u_);
    }
  }

  // Modified policy iteration: `evaluation_sweeps` sweeps of the current policy after each
  // Bellman sweep; the stopping test is on the Bellman sweeps. Once the Bellman residual stalls
  // near the tolerance (falls by less than half, below 10 tol), the rest is plain value
  // iteration: in float the residual can stall at the rounding noise of the minimum over u,
  // which the evaluation sweeps at a fixed u do not share, while successive Bellman sweeps do.
  void value_iteration(IterationOutcome const& eval) {
    result_.myopic_iterations = eval.iterations;
    keep_myopic();
    if (!eval.converged) {
      result_.residual = eval.residual;
      result_.residual_history = eval.residuals;
      result_.converged = false;
      result_.time_limited = eval.out_of_time;
      result_.stopped_in = "myopic warm start";
      return;
    }
    timing::ScopedPhase<ExecutionSpace> phase(space_, phases_, "parity::dual_control::value_iteration");
    IterationState state;
    state.stage = 1;
    state.myopic_iterations = eval.iterations;
    state.evaluation_sweeps_now = params_.evaluation_sweeps_effective();
    IterationOutcome start;
    if (resuming() && resumed_.stage == 1) {
      state = resumed_;
      start = restore(resumed_);
    }
    double const tol = result_.tolerance_effective;
    auto sweep = [&] {
      auto const st = global_stats(ranks_, bellman_update(space_, problem_, v_, v_next_, u_, bs_, ranks_));
      gather_slabs(space_, ranks_, v_next_, slabs_);
      gather_slabs(space_, ranks_, u_, slabs_);
      state.bellman_evaluations += st.evaluations;
      std::swap(v_, v_next_);
      double const vmax = std::max(double(st.vmax), std::numeric_limits<double>::min());
      double const residual = scale_ * (double(st.dmax) - double(st.dmin)) / vmax;
      bool const done = residual <= tol;
      if (residual > 0.5 * state.previous_residual && residual < 10 * tol) state.evaluation_sweeps_now = 0;
      state.previous_residual = residual;
      state.evaluation_sweeps_history.push_back(done ? 0 : state.evaluation_sweeps_now);
      if (!done)
        for (int m = 0; m < state.evaluation_sweeps_now; ++m) {
          evaluate_policy(space_, problem_, v_, u_, v_next_, ranks_);
          gather_slabs(space_, ranks_, v_next_, slabs_);
          std::swap(v_, v_next_);
          ++state.evaluation_sweeps;
        }
      return st;
    };
    auto const vi = iterate<Real>(
        sweep, params_.delta, tol, params_.max_iter, progress_, "value iteration", timer_, start,
        [&](IterationOutcome const& out) { save(state, out); }, [&] { return out_of_time(); });
    result_.iterations = vi.iterations;
    result_.residual = vi.residual;
    result_.converged = vi.converged;
    result_.time_limited = vi.out_of_time;
    result_.evaluation_sweeps = state.evaluation_sweeps;
    result_.bellman_evaluations = state.bellman_evaluations;
    result_.evaluation_sweeps_history.assign(state.evaluation_sweeps_history.begin(),
                                             state.evaluation_sweeps_history.end());
    result_.mp_shift = params_.mp_correction && vi.converged ? vi.mp_mid : 0.0;
    result_.residual_history = vi.residuals;
    if (!vi.converged) result_.stopped_in = "value iteration";
    if (params_.mp_correction && vi.converged) add_constant(space_, v_, Real(vi.mp_mid));
  }

  // A solve stopped by the time limit is not simulated; a simulation that reaches the limit stops
  // between chunks and reports nothing.
  void simulate() {
    if (params_.simulate_paths <= 0 || result_.time_limited) return;
    timing::ScopedPhase<ExecutionSpace> phase(space_, phases_, "parity::dual_control::simulation");
    for (Policy which : {Policy::inert, Policy::myopic, Policy::optimal}) {
      if (which == Policy::optimal && params_.policy != Policy::optimal) continue;
      auto sim =
          detail::simulate(space_, problem_, which, v_, bs_, params_, progress_, timer_, [&] { return out_of_time(); });
      if (!sim) {
        result_.time_limited = true;
        result_.stopped_in = "simulation";
        result_.simulation.clear();
        break;
      }
      result_.simulation.push_back(*sim);
    }
  }

  void collect() {
    timing::ScopedPhase<ExecutionSpace> phase(space_, phases_, "parity::dual_control::results");
    bool const optimal = params_.policy == Policy::optimal;
    reference_values(space_, problem_, params_.policy, v_, optimal ? v_myopic_ : v_, bs_, params_.reference_states,
                     result_.references);
    result_.x = to_vector<Real, Mem>(problem_.ax.nodes());
    result_.mu = to_vector<Real, Mem>(problem_.amu.nodes());
    result_.Sigma = to_vector<Real, Mem>(problem_.asg.nodes());
    result_.V = to_vector(v_);
    result_.u = to_vector(u_);
    if (optimal) {
      result_.V_myopic = to_vector(v_myopic_);
      result_.u_myopic = to_vector(u_myopic_);
    }
  }

  ExecutionSpace space_;
  Params const& params_;
  run::Progress& progress_;
  run::PhaseTimes& phases_;
  run::Communicator const& ranks_;
  StateStore const& store_;
  IterationState resumed_;
  Kokkos::Timer timer_;
  double last_save_ = 0;
  Result result_;
  double tol_myopic_ = 0;
  Problem<Real, Mem> problem_;
  Grid3<Real, Mem> v_, v_next_, u_, v_myopic_, u_myopic_;
  SlabBuffers<Real> slabs_;
  BrentSettings const bs_;
  double const scale_;
};

}  // namespace parity::dual_control::detail
