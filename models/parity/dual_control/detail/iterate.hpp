#pragma once
// The fixed-point loop around a sweep (solver.hpp) and its MacQueen-Porteus stopping rule.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "parity/dual_control/detail/sweep.hpp"
#include "parity/run/progress.hpp"

namespace parity::dual_control::detail {

// Iterates a sweep until the MacQueen-Porteus relative bound is below tol (or max_iter sweeps).
struct IterationOutcome {
  long iterations = 0;
  double residual = 0;
  double mp_mid = 0;  // delta/(1-delta) (min dV + max dV)/2 of the last sweep
  bool converged = false;
  bool out_of_time = false;  // stopped by the time limit before converging
  std::vector<double> residuals;  // after each sweep
};

// Sweeps continue from `out` (a resumed solve starts where its checkpoint was); after each one,
// after_sweep(out) may save the state. A sweep that does not converge ends the stage when
// out_of_time() says the time limit has passed.
template <class Real, class Sweep, class AfterSweep, class OutOfTime>
IterationOutcome iterate(Sweep&& sweep, double delta, double tol, long max_iter, run::Progress& progress,
                         std::string const& stage, Kokkos::Timer const& timer, IterationOutcome out,
                         AfterSweep&& after_sweep, OutOfTime&& out_of_time) {
  double const scale = delta / (1 - delta);
  for (long it = out.iterations + 1; it <= max_iter && !out.converged; ++it) {
    SweepStats<Real> const st = sweep();
    double const vmax = std::max(double(st.vmax), std::numeric_limits<double>::min());
    out.iterations = it;
    out.residual = scale * (double(st.dmax) - double(st.dmin)) / vmax;
    out.mp_mid = scale * 0.5 * (double(st.dmin) + double(st.dmax));
    out.residuals.push_back(out.residual);
    run::ProgressLine line{stage, it, out.residual, timer.seconds(), ""};
    line.target = tol;
    progress.update(line);
    if (!std::isfinite(out.residual)) break;
    out.converged = out.residual <= tol;
    out.out_of_time = !out.converged && it < max_iter && out_of_time();
    after_sweep(out);
    if (out.out_of_time) break;
  }
  return out;
}

template <class Real>
double tolerance_floor(double delta) {
  return 32.0 * double(std::numeric_limits<Real>::epsilon()) * delta / (1 - delta);
}

}  // namespace parity::dual_control::detail
