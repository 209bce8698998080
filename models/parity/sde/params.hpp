#pragma once
// Parameters of the SDE-ensemble commands (plain structs) and their checks.
#include <cstdint>
#include <string>
#include <vector>

#include "parity/cli/sweep.hpp"
#include "parity/run/parameter_name.hpp"

namespace parity::sde {

using cli::parse_sweep;
using cli::SweepSpec;  // one swept parameter (parity/cli/sweep.hpp)

// Josephson junction, defaults of Januszewski & Kostur (2010), Fig. 2.
struct JosephsonParams {
  double gamma = 0.9, a = 4.2, omega = 4.9, D = 0.001, f = 0.1;
  int steps_per_period = 100;  // dt = (2 pi / omega) / steps_per_period
  long periods = 2000;  // run length in drive periods
  long transient_periods = 200;  // <<v>> averages over periods (transient, periods]
  int paths = 1 << 19;  // per parameter value
  int sample_every = 100;  // steps between ensemble samples
  int bins = 64;  // histogram of x mod 1 at the end
  std::uint64_t seed = 1;
  std::string stepper = "srk2";  // srk2 | euler | milstein | weak2 (stepper.hpp)
  std::string noise_law = "gaussian";  // gaussian | five-point (weak noise: ensemble statistics only)
  std::vector<SweepSpec> sweeps;  // at most two of a, f, D, gamma
  bool covariance = true;  // covariance of x and v and standard errors at each sample
  int terminal_states = 0;  // final (x, v) of the first this many paths of each point
  int trajectories = 0;  // unwrapped x of the first this many paths of each point at every sample
  // Density of the unwrapped x at every sample over [density_lo, density_hi) periods in
  // density_bins bins (0: off).
  double density_lo = 0, density_hi = 0;
  int density_bins = 0;
};

// Throws InvalidInput naming the parameter through `name`: by default the field (`D must be ...`);
// the command passes its options (`--noise (-D) must be ...`).
void validate(JosephsonParams const& p, ParameterName const& name = field_name);

// Noisy Kuramoto model; paper's case omega_i = 0, K = 4, T = D = 1 (gamma = 1), N = 2^24.
struct KuramotoParams {
  int oscillators = 1 << 16;
  double K = 4, gamma = 1, D = 1;
  double omega_mean = 0, omega_spread = 0;
  double dt = 0.01;
  long steps = 2000;
  int sample_every = 20;
  int bins = 64;
  std::uint64_t seed = 1;
  std::string stepper = "srk2";  // srk2 | euler
  std::string noise_law = "gaussian";  // gaussian | five-point (weak noise: ensemble statistics only)
  std::string coupling = "mean-field";  // mean-field | all-pairs
  int tile = 128;  // all pairs: oscillators per team tile
  int column_splits = 0;  // all pairs: teams per row tile (0: chosen for the device)
};

void validate(KuramotoParams const& p, ParameterName const& name = field_name);  // the same

}  // namespace parity::sde
