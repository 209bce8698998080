#pragma once
// Plain results of the SDE ensembles (no Kokkos, no JSON): filled by the solvers, written by the
// commands.
#include <cstdint>
#include <string>
#include <vector>

namespace parity::sde {

// Ensemble statistics of a small system over a sweep (ensemble.hpp). C order; P = sweep points,
// S = samples, dim = state components.
struct EnsembleResult {
  int params = 0, dim = 0, samples = 0, bins = 0;
  std::vector<long> sample_steps;  // [S] step count at each sample
  std::vector<double> mean, variance;  // [S][P][dim] ensemble moments at each sample
  std::vector<double> time_average;  // [P][dim] mean over paths of each path's time average
                                     // (NaN for components the system does not average)
  std::vector<double> time_average_error;  // [P][dim] spread of those over paths / sqrt(paths)
  std::vector<std::int32_t> histogram;  // [P][bins] wrapped component mod period, at the end
  long steps_done = 0;
  // With EnsembleConfig::covariance or a system observable (observables.hpp), else empty:
  std::vector<double> mean_error;  // [S][P][dim] standard error of mean, sqrt(variance / (paths - 1))
  std::vector<double> covariance;  // [S][P][dim][dim] over the paths (divided by paths, as variance)
  int observed = 0;  // M, the components of the system's observable F (0: none)
  std::vector<double> observable_mean, observable_variance, observable_error;  // [S][P][M] of F
  std::vector<double> observable_covariance;  // [S][P][M][M]
  // States of the first terminal_paths (trajectory_paths) paths of each sweep point, wrapped
  // components unwrapped: at the end [P][terminal_paths][dim], at every sample [S][P][n][dim].
  int terminal_paths = 0, trajectory_paths = 0;
  std::vector<double> terminal_states, trajectories;
  // With EnsembleConfig::density: counts of the unwrapped wrapped component over [density_lo,
  // density_hi) periods in density_bins bins, [S][P][bins], and the paths below and above, [S][P][2].
  int density_bins = 0;
  double density_lo = 0, density_hi = 0;
  std::vector<std::int32_t> density, density_outside;
};

struct KuramotoResult {
  int samples = 0, bins = 0;
  std::vector<long> sample_steps;  // [S]
  std::vector<double> r, psi;  // [S] order parameter r e^{i psi} = mean_j e^{i x_j}
  std::vector<std::int32_t> histogram;  // [S][bins] of x mod 2 pi (the density P(x, t))
  std::vector<double> positions;  // [N] final phases, only when asked for
  long steps_done = 0;
  int column_splits = 1;  // all pairs: teams per row tile (column shares)
};

struct JosephsonResult {
  EnsembleResult ensemble;  // components: 0 = x (position), 1 = v (velocity)
  std::vector<std::string> axis_names;  // swept parameters (0, 1 or 2)
  std::vector<std::vector<double>> axis_values;
  double dt = 0;
  long steps = 0, paths_total = 0;
  double flops_per_step = 0;  // our count (see solver.hpp)
  double bytes_per_step = 0;  // global-memory traffic per path step, amortized
};

struct KuramotoRunResult {
  KuramotoResult kuramoto;
  double dt = 0;
  double flops_per_step = 0;  // per oscillator step
  double bytes_per_step = 0;  // per oscillator step
};

}  // namespace parity::sde
