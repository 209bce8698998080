#pragma once
// Geometric Brownian motion and the Ornstein-Uhlenbeck process as ensembles of parity::sde, for the
// SDE peer comparison (perf/suites/sde_peers.json): the host side's view, Kokkos-free.
#include <string>
#include <vector>

#include "parity/precision.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"

namespace parity::linear_sde {

// gbm: dX = mu X dt + sigma X dW (Ito). ou: dX = theta (mean - X) dt + sigma dW. X(0) = x0.
struct Params {
  std::string system = "gbm";  // gbm | ou
  double mu = 1, theta = 1, mean = 0, sigma = 0.5, x0 = 1, horizon = 1;
  long steps = 64;  // fixed steps of dt = horizon / steps
  int paths = 1 << 20;
  unsigned long long seed = 1;
  std::string stepper = "euler";  // euler | srk2 | milstein | weak2
  std::string noise_law = "gaussian";  // gaussian | five-point
};

// X_T over the paths: its sample mean and variance (divided by paths) and their standard errors.
struct Result {
  double mean = 0, mean_error = 0, variance = 0, variance_error = 0;
};

Result run(Params const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times);

// adaptive-pulse: dX = -a(t) X dt + sigma dW, a(t) = a0 + pulse exp(-((t - t0) / width)^2),
// X(0) = 1, through parity::sde::integrate_adaptive, against fixed steps of at least the same work
// (Euler steps per path) on the same Brownian trees. Double precision.
struct PulseParams {
  double a0 = 1, pulse = 800, t0 = 0.8, width = 0.005, sigma = 0.5, horizon = 1;
  double tolerance = 1e-3;  // atol = rtol
  int max_level = 6, min_level = 13;  // steps horizon / 2^6 .. horizon / 2^13
  int paths = 1 << 14;
  unsigned long long seed = 1;
};

struct PulseResult {
  double adaptive_error = 0, fixed_error = 0;  // mean |X_T - exact X_T| over the paths
  double adaptive_work = 0, fixed_work = 0;  // Euler steps per path (3 per adaptive attempt)
  double rejected = 0;  // rejected adaptive steps per path
  long capped = 0;
  double adaptive_mean = 0, fixed_mean = 0, mean_error = 0, exact_mean = 0;
};

PulseResult run_pulse(PulseParams const& p, run::PhaseTimes& times);

}  // namespace parity::linear_sde
