#pragma once
// The two paper models on top of the general ensemble integrator (ensemble.hpp) and the Kuramoto
// kernels (kuramoto.hpp).
//
// Operation counts (flops_per_step) follow one stated convention: add, subtract and multiply count
// 1, a fused multiply-add 2, each sin, cos, log, sqrt 1 (sincos_2pi = a sin and a cos = 2, although
// its polynomials take about 20 float / 35 double operations); Philox's integer work is not counted,
// Box-Muller is (7 per pair of normals: log, -2 *, sqrt, sin, cos, 2 multiplies). The counts are
// of what the kernels do (e.g. the SRK2 predictor adds g dW = 0 to x). The paper counts 79 FLOP for
// a Josephson SRK2 step with its own generator and conventions; both numbers go into the report
// (flops_per_step and flops_per_step_paper).
#include <Kokkos_Core.hpp>
#include <cmath>
#include <numbers>

#include "parity/run/solve_options.hpp"
#include "parity/sde/ensemble.hpp"
#include "parity/sde/josephson.hpp"
#include "parity/sde/kuramoto.hpp"
#include "parity/sde/params.hpp"
#include "parity/sde/result.hpp"

namespace parity::sde {

// Josephson step: one normal (half a Box-Muller pair, 3.5; a five-point variate is selected, 0)
// and dW = sqrt(dt) z (1); each drift evaluation 7 (cos 2 pi x, gamma v, 2 pi cos, a drive(phase)
// from the table, three adds); g dW 1; predictor 3 per component; corrector 4 per component; the
// time sum of v 1 (x is not averaged). Milstein: the column 1, its weight 3, the supporting value
// 4 per component, g there 1, the difference 2, the update 2 (x) and 6 (v). weak2: column and g dW
// 2, x + f dt 4, Yb 2, the weights 3 + 4, the supporting values R+- 8, g there 2, the noise sum 8,
// the update 9.
inline double josephson_flops_per_step(Stepper s, bool gaussian = true) {
  double const noise = (gaussian ? 3.5 : 0.0) + 1;
  switch (s) {
    case Stepper::srk2:
      return noise + 2 * 7 + 1 + 6 + 8 + 1;
    case Stepper::milstein:
      return noise + 7 + 1 + 3 + 8 + 1 + 2 + 2 + 6 + 1;
    case Stepper::weak2:
      return noise + 2 * 7 + 2 + 4 + 2 + 7 + 8 + 2 + 8 + 9 + 1;
    default:
      return noise + 7 + 1 + 6 + 1;
  }
}
// Kuramoto mean field, per oscillator step. Euler, one pass: a normal 3.5 (half a Box-Muller pair: the
// oscillators of one Philox block share it, kuramoto.hpp) and g dW 1; drift 9 (x / 2 pi, sincos 2,
// cos S - sin C 3, K/N, + omega, / gamma); update 3; sums of the new phase 5 (x / 2 pi, sincos 2,
// 2 adds). SRK2: the predictor pass (normal and g dW 4.5, drift 9, predicted phase 3, corrector base
// y = x + f0 dt/2 + g dW 3, sums 5) and the corrector pass (drift 9, x = y + f1 dt/2 2, sums 5).
// A five-point variate instead of a normal counts 0 instead of 3.5.
inline double kuramoto_mean_field_flops_per_step(bool srk2, bool gaussian = true) {
  double const noise = gaussian ? 0.0 : -3.5;
  return noise + (srk2 ? (4.5 + 9 + 3 + 3 + 5) + (9 + 2 + 5) : 4.5 + 9 + 3 + 5);
}
// All pairs, per oscillator and drift evaluation: per pair 2 adds (constant K, factored out) or 2
// multiply-adds = 4 (matrix K); per column tile 3 per column (x / 2 pi, sincos) and 4 to combine the
// row's partial sums; own sincos 3 and 6 to form the drift. Per step add normal + g dW 7 and the
// updates (3, or 3 + 4 for SRK2).
// With S > 1 column shares per row tile, 2 (S - 1) adds combine the shares' partial sums.
inline double kuramoto_all_pairs_drift_flops(double n, double tile, bool matrix, int splits = 1) {
  return (matrix ? 4 : 2) * n + 7 * std::ceil(n / tile) + 9 + 2.0 * (splits - 1);
}
inline double kuramoto_all_pairs_flops_per_step(bool srk2, double n, double tile, bool matrix = false, int splits = 1,
                                                bool gaussian = true) {
  double const d = kuramoto_all_pairs_drift_flops(n, tile, matrix, splits);
  double const noise = gaussian ? 7 : 1;  // a five-point variate: only g dW
  return srk2 ? 2 * d + noise + 3 + 4 : d + noise + 3;
}

inline NoiseLaw noise_law(std::string const& name) {
  return name == "five-point" ? NoiseLaw::five_point : NoiseLaw::gaussian;
}

// options.ranks: the ranks the paths and sweep points are split over (ensemble.hpp); default one.
template <class ExecutionSpace, class Real>
JosephsonResult solve(ExecutionSpace const& space, JosephsonParams const& p, run::SolveOptions const& options = {}) {
  validate(p);
  JosephsonSystem<Real> sys;
  sys.gamma = Real(p.gamma);
  sys.a = Real(p.a);
  sys.f = Real(p.f);
  sys.D = Real(p.D);
  sys.steps_per_period = p.steps_per_period;
  sys.update();
  // Drive table cos(2 pi k / steps_per_period), computed in double; the kernels read it per step.
  Kokkos::View<Real*, typename ExecutionSpace::memory_space> drive(
      Kokkos::view_alloc(space, "parity::sde::josephson_drive"), p.steps_per_period);
  {
    auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), drive);
    for (int k = 0; k < p.steps_per_period; ++k) h(k) = Real(std::cos(2 * std::numbers::pi * k / p.steps_per_period));
    Kokkos::deep_copy(space, drive, h);
    space.fence("parity::sde::josephson_drive");
  }
  sys.drive_table = drive.data();

  JosephsonResult r;
  Sweep sweep;
  for (std::size_t i = 0; i < p.sweeps.size(); ++i) {
    auto const& s = p.sweeps[i];
    int const field = s.name == "gamma" ? JosephsonSystem<Real>::gamma_field
                      : s.name == "a"   ? JosephsonSystem<Real>::a_field
                      : s.name == "f"   ? JosephsonSystem<Real>::f_field
                                        : JosephsonSystem<Real>::D_field;
    sweep.axis[i] = SweepAxis{field, s.lo, s.hi, s.n};
    r.axis_names.push_back(s.name);
    std::vector<double> values;
    for (int k = 0; k < s.n; ++k) values.push_back(sweep.axis[i].value(k));
    r.axis_values.push_back(values);
  }

  EnsembleConfig cfg;
  cfg.paths = p.paths;
  cfg.steps = p.periods * p.steps_per_period;
  cfg.dt = 2 * std::numbers::pi / p.omega / p.steps_per_period;
  cfg.sample_every = p.sample_every;
  cfg.average_from = p.transient_periods * p.steps_per_period;
  cfg.bins = p.bins;
  cfg.seed = p.seed;
  cfg.stepper = p.stepper == "euler"      ? Stepper::euler_maruyama
                : p.stepper == "milstein" ? Stepper::milstein
                : p.stepper == "weak2"    ? Stepper::weak2
                                          : Stepper::srk2;
  cfg.noise = noise_law(p.noise_law);
  cfg.covariance = p.covariance;
  cfg.terminal_states = p.terminal_states;
  cfg.trajectories = p.trajectories;
  cfg.density = {p.density_lo, p.density_hi, p.density_bins};
  cfg.progress = options.progress;
  cfg.phases = options.phases;
  cfg.ranks = options.ranks;
  cfg.label = "josephson";
  r.ensemble = integrate(space, sys, sweep, cfg);
  r.dt = cfg.dt;
  r.steps = cfg.steps;
  r.paths_total = long(p.paths) * sweep.size();
  r.flops_per_step = josephson_flops_per_step(cfg.stepper, cfg.noise == NoiseLaw::gaussian);
  // Per launch each path reads and writes its state (2 Real), winding (int) and time sum of v
  // (double), and the sampling pass reads the state and winding once more (twice with the
  // covariance, a second reduction).
  double const per_launch = 2 * (2 * sizeof(Real) + 4 + 8) + (p.covariance ? 2 : 1) * (2 * sizeof(Real) + 4);
  r.bytes_per_step = per_launch / p.sample_every;
  return r;
}

template <class ExecutionSpace, class Real>
KuramotoRunResult solve(ExecutionSpace const& space, KuramotoParams const& p, run::SolveOptions const& options = {}) {
  validate(p);
  KuramotoConfig c;
  c.n = p.oscillators;
  c.K = p.K;
  c.gamma = p.gamma;
  c.D = p.D;
  c.omega_mean = p.omega_mean;
  c.omega_spread = p.omega_spread;
  c.dt = p.dt;
  c.steps = p.steps;
  c.sample_every = p.sample_every;
  c.bins = p.bins;
  c.seed = p.seed;
  c.stepper = p.stepper == "euler" ? Stepper::euler_maruyama : Stepper::srk2;
  c.noise = noise_law(p.noise_law);
  c.coupling = p.coupling == "all-pairs" ? Coupling::all_pairs : Coupling::mean_field;
  c.tile = p.tile;
  c.column_splits = p.column_splits;
  c.progress = options.progress;
  c.phases = options.phases;
  c.ranks = options.ranks;
  KuramotoRunResult r;
  r.kuramoto = integrate_kuramoto<ExecutionSpace, Real>(space, c);
  r.dt = p.dt;
  bool const srk2 = c.stepper == Stepper::srk2;
  double const n = p.oscillators;
  if (c.coupling == Coupling::mean_field) {
    r.flops_per_step = kuramoto_mean_field_flops_per_step(srk2, c.noise == NoiseLaw::gaussian);
    // Euler: x read and written. SRK2: the predictor reads x and writes y, xp; the corrector reads
    // y, xp and writes x. omega_i read per pass only when the frequencies differ.
    double const om = p.omega_spread == 0 ? 0.0 : 1.0;
    r.bytes_per_step = (srk2 ? 6.0 + 2 * om : 2.0 + om) * sizeof(Real);
  } else {
    int const splits = r.kuramoto.column_splits;
    r.flops_per_step = kuramoto_all_pairs_flops_per_step(srk2, n, p.tile, false, splits, c.noise == NoiseLaw::gaussian);
    // Each team streams all N phases through scratch per drift: N / tile reads per oscillator, plus
    // its own phase, omega_i (when they differ) and the drift written; with column shares, two
    // partial sums per share written and read back.
    double const om = p.omega_spread == 0 ? 0.0 : 1.0;
    double const shares = splits > 1 ? 4.0 * splits : 0.0;
    double const drift = (std::ceil(n / p.tile) + 2 + om + shares) * sizeof(Real);
    r.bytes_per_step = srk2 ? 2 * drift + 7.0 * sizeof(Real) : drift + 3.0 * sizeof(Real);
  }
  return r;
}

}  // namespace parity::sde
