#pragma once
// How long a dual-control solve takes, estimated before it starts. Plain host data, Kokkos-free:
// the command prints it and puts it in the report; calibrate() (solver.hpp) times the kernels.
//
// The model: sweeps x seconds per sweep.
//  - Seconds per sweep: the real policy-evaluation and Bellman kernels, timed on a smaller grid of
//    the same problem on this device, per grid point, times the grid's points (over the ranks).
//  - Sweeps: the relative MacQueen-Porteus bound of a sweep falls about like delta^n, so a stage
//    with tolerance tol takes about n = ln(tol) / ln(delta) sweeps (at most --max-iter); the inert
//    policy, which leaves the belief alone, like (delta |gamma|)^n. The optimal policy's myopic
//    start is one such stage; its value iteration with m evaluation sweeps after each Bellman
//    sweep about n / (m + 1) + 1 Bellman sweeps and m evaluation sweeps after each but the last.
//  - The simulation of the optimal policy: one search over u per path and period.
// It is meant to tell minutes from hours, not to time a run. With the defaults it says 270 sweeps
// where a myopic solve took 235-238 (16^3 to 64^3), 50 where an inert one took 33-42, 10 Bellman
// sweeps where the accelerated optimal solve took 6-9 and 180 where the paper's algorithm took
// 41-97; float solves near their rounding floor need more Bellman sweeps than double. A loaded
// machine, or one whose speed changes, makes the times wrong by as much.
#include <algorithm>
#include <array>
#include <cmath>

#include "parity/dual_control/params.hpp"

namespace parity::dual_control {

// What calibrate() measured: seconds per grid point of one sweep of each kind, and the grids.
struct Calibration {
  std::array<int, 3> evaluation_grid{}, bellman_grid{};
  double evaluation_seconds_per_point = 0;  // one policy-evaluation sweep
  double bellman_seconds_per_point = 0;  // one Bellman sweep (a search over u); 0: not timed (inert, myopic)
  double bellman_evaluations_per_point = 0;  // objective evaluations of that search
};

struct Estimate {
  long evaluation_sweeps = 0;  // policy-evaluation sweeps: the inert/myopic solve and those between Bellman sweeps
  long bellman_sweeps = 0;
  double evaluation_sweep_seconds = 0, bellman_sweep_seconds = 0;
  double simulation_seconds = 0;
  double seconds = 0;  // in all
};

// Sweeps until rate^n <= tol (at least 1, at most max_iter).
inline long sweeps_to(double tol, double rate, long max_iter) {
  double const n = rate > 0 ? std::ceil(std::log(tol) / std::log(rate)) : 1.0;
  return std::clamp(long(std::min(n, 1e15)), 1L, std::max(max_iter, 1L));
}

inline Estimate estimate(Params const& p, bool single_precision, Calibration const& c, int ranks) {
  // The tolerances as the solver raises them to the precision's floor (tolerance_floor).
  double const eps = single_precision ? 1.1920929e-07 : 2.220446049250313e-16;
  double const floor = 32 * eps * p.delta / (1 - p.delta);
  double const points = double(p.nx) * p.nmu * p.nsigma / std::max(ranks, 1);
  Estimate e;
  e.evaluation_sweep_seconds = c.evaluation_seconds_per_point * points;
  e.bellman_sweep_seconds = c.bellman_seconds_per_point * points;
  double const tol = std::max(p.tolerance(), floor);
  if (p.policy == Policy::inert) {
    // u = 0 leaves the belief as it is; only x moves, at the rate gamma.
    e.evaluation_sweeps = sweeps_to(tol, p.delta * std::abs(p.gamma), p.max_iter);
  } else if (p.policy == Policy::myopic) {
    e.evaluation_sweeps = sweeps_to(tol, p.delta, p.max_iter);
  } else {
    long const myopic = sweeps_to(std::max(p.tol_myopic, floor), p.delta, p.max_iter);
    long const m = p.evaluation_sweeps_effective();
    long const n = sweeps_to(tol, p.delta, p.max_iter);
    e.bellman_sweeps = std::min((n + m) / (m + 1) + (m > 0 ? 1 : 0), p.max_iter);
    e.evaluation_sweeps = myopic + m * (e.bellman_sweeps - 1);
    e.simulation_seconds = double(p.simulate_paths) * p.horizon * c.bellman_seconds_per_point;
  }
  e.seconds = double(e.evaluation_sweeps) * e.evaluation_sweep_seconds +
              double(e.bellman_sweeps) * e.bellman_sweep_seconds + e.simulation_seconds;
  return e;
}

}  // namespace parity::dual_control
