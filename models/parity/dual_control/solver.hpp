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
// are all-gathered (device to device through NCCL where the build has it, else through host
// memory), so every rank holds the whole grid for the next sweep;
// the sweep statistics are global maxima, minima and integer sums. Every point's value depends only
// on V_old, and max, min and integer sums are exact in any order, so V, u and the iteration
// history are bit-identical to a one-rank run for any rank count.
//
// The pieces live in detail/: problem.hpp (the model on the device), objective.hpp (the
// minimisation over u), sweep.hpp (one sweep and the slabs' exchange), iterate.hpp (the
// fixed-point loop), solve.hpp (the stages of a solve over one state), diagnostics.hpp (reference
// values, simulation) and host_copy.hpp.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "parity/dual_control/detail/diagnostics.hpp"
#include "parity/dual_control/detail/host_copy.hpp"
#include "parity/dual_control/detail/iterate.hpp"
#include "parity/dual_control/detail/objective.hpp"
#include "parity/dual_control/detail/problem.hpp"
#include "parity/dual_control/detail/solve.hpp"
#include "parity/dual_control/detail/sweep.hpp"
#include "parity/dual_control/estimate.hpp"
#include "parity/dual_control/params.hpp"
#include "parity/dual_control/result.hpp"
#include "parity/run/communicator.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/run/solve_options.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::dual_control {

struct Options : run::SolveOptions {
  // Where checkpoints go and resume from (iteration_state.hpp; checkpoint.hpp's
  // file_store(params, precision) reads and writes the files that Params::resume and
  // Params::checkpoint name: a solve given those names needs that store). Default: none.
  StateStore store;
};

// Solves for the value and policy of params.policy.
template <class ExecutionSpace, class Real>
Result solve(ExecutionSpace const& space, Params const& params, Options const& options = {}) {
  validate(params);
  require(
      params.checkpoint.empty() || bool(options.store.save),
      "checkpoint names a file: pass file_store(params, precision) (models/parity/dual_control/checkpoint.hpp) as the "
      "solve's Options::store");
  require(params.resume.empty() || options.store.resume.has_value(),
          "resume names a file: pass file_store(params, precision) (models/parity/dual_control/checkpoint.hpp) as the "
          "solve's Options::store");
  // A null progress is silent; null phases are timed into a record of the call's own.
  run::SilentProgress silent;
  run::PhaseTimes own_phases;
  return detail::Solve<ExecutionSpace, Real>(space, params, options.progress ? *options.progress : silent,
                                             options.phases ? *options.phases : own_phases, options.ranks,
                                             options.store)
      .run();
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
