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

}  // namespace parity::linear_sde
