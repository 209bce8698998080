#pragma once
// The two paper models on top of the general ensemble integrator (ensemble.hpp) and the Kuramoto
// kernels (kuramoto.hpp).
//
// Operation counts (flops_per_step) follow one stated convention: add, subtract and multiply count
// 1, a fused multiply-add 2, each sin, cos, log, sqrt 1; Philox's integer work is not counted,
// Box-Muller is (8 per pair of normals: log, sqrt, 2 multiplies, cos, sin, 2 multiplies). The
// paper counts 79 FLOP for a Josephson SRK2 step with its own generator and conventions; both
// numbers go into the report (flops_per_step and flops_per_step_paper).
#include <Kokkos_Core.hpp>
#include <cmath>
#include <numbers>

#include "models/sde/ensemble.hpp"
#include "models/sde/josephson.hpp"
#include "models/sde/kuramoto.hpp"
#include "models/sde/params.hpp"
#include "models/sde/result.hpp"

namespace parity::sde {

// Josephson step counts: normal 4 + dW 1; drift 10 (phase 1, cos 1, a* 1, 2 pi x 1, cos 1, 2 pi * 1,
// gamma v 1, three adds 3); g dW 1; predictor 3 per component; corrector 4 per component; time
// sums 2.
inline double josephson_flops_per_step(bool srk2) { return srk2 ? 5 + 10 + 1 + 6 + 10 + 8 + 2 : 5 + 10 + 1 + 6 + 2; }
// Kuramoto mean field, per oscillator step: normal 5; drift 8 (cos, sin, 2 products, subtract,
// K/N, + omega, / gamma); update 3; sums of the new phase 4 (sin, cos, 2 adds).
inline double kuramoto_mean_field_flops_per_step(bool srk2) { return srk2 ? (5 + 8 + 3 + 4) + (5 + 8 + 3 + 8 + 4 + 4) : 5 + 8 + 3 + 4; }
// All pairs: 3 per pair (subtract, sin, add) per drift evaluation, plus the update.
inline double kuramoto_all_pairs_flops_per_step(bool srk2, double n) { return srk2 ? 2 * 3 * n + 2 * 5 + 3 + 4 : 3 * n + 5 + 3; }

template <class ExecutionSpace, class Real>
JosephsonResult solve(ExecutionSpace const& space, JosephsonParams const& p, run::Progress& progress,
                      run::PhaseTimes& times) {
  validate(p);
  JosephsonSystem<Real> sys;
  sys.gamma = Real(p.gamma);
  sys.a = Real(p.a);
  sys.f = Real(p.f);
  sys.D = Real(p.D);
  sys.steps_per_period = p.steps_per_period;
  sys.update();

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
  cfg.stepper = p.stepper == "euler" ? Stepper::euler_maruyama : Stepper::srk2;
  r.ensemble = integrate(space, sys, sweep, cfg, progress, times, "josephson");
  r.dt = cfg.dt;
  r.steps = cfg.steps;
  r.paths_total = long(p.paths) * sweep.size();
  r.flops_per_step = josephson_flops_per_step(cfg.stepper == Stepper::srk2);
  // Per launch each path reads and writes its state (2 Real), winding (int) and time sums
  // (2 double), and the sampling pass reads the state and winding once more.
  double const per_launch = 2 * (2 * sizeof(Real) + 4 + 16) + (2 * sizeof(Real) + 4);
  r.bytes_per_step = per_launch / p.sample_every;
  return r;
}

template <class ExecutionSpace, class Real>
KuramotoRunResult solve(ExecutionSpace const& space, KuramotoParams const& p, run::Progress& progress,
                        run::PhaseTimes& times) {
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
  c.coupling = p.coupling == "all-pairs" ? Coupling::all_pairs : Coupling::mean_field;
  c.tile = p.tile;
  KuramotoRunResult r;
  r.kuramoto = integrate_kuramoto<ExecutionSpace, Real>(space, c, progress, times);
  r.dt = p.dt;
  bool const srk2 = c.stepper == Stepper::srk2;
  double const n = p.oscillators;
  if (c.coupling == Coupling::mean_field) {
    r.flops_per_step = kuramoto_mean_field_flops_per_step(srk2);
    r.bytes_per_step = (srk2 ? 5.0 : 3.0) * sizeof(Real);  // x, omega read per pass; x written once
  } else {
    r.flops_per_step = kuramoto_all_pairs_flops_per_step(srk2, n);
    // Each team streams all N phases through scratch per drift: N / tile reads per oscillator.
    double const drift = (n / p.tile + 2) * sizeof(Real);
    r.bytes_per_step = srk2 ? 2 * drift + 7.0 * sizeof(Real) : drift + 3.0 * sizeof(Real);
  }
  return r;
}

}  // namespace parity::sde
