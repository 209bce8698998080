#pragma once
// What integrate_kuramoto (kuramoto.hpp) integrates: the noisy Kuramoto model's parameters, the
// coupling kernel and, with the entry point's options (run::SolveOptions), progress, phases and the
// ranks the oscillators are split over.
#include <cstdint>

#include "parity/run/solve_options.hpp"
#include "parity/sde/ensemble.hpp"
#include "parity/sde/noise.hpp"
#include "parity/sde/stepper.hpp"

namespace parity::sde {

enum class Coupling { mean_field, all_pairs };

struct KuramotoConfig : run::SolveOptions {
  int n = 1 << 16;  // oscillators
  double K = 4, gamma = 1, D = 1;
  double omega_mean = 0, omega_spread = 0;  // omega_i = omega_mean + omega_spread * N(0,1)
  double dt = 0.01;
  long steps = 2000;
  int sample_every = 10;
  int bins = 64;  // histogram of x mod 2 pi at each sample (0: none)
  std::uint64_t seed = 1;
  Stepper stepper = Stepper::srk2;
  NoiseLaw noise = NoiseLaw::gaussian;  // five_point: weak noise (noise.hpp)
  Coupling coupling = Coupling::mean_field;
  int tile = 128;  // all pairs: oscillators per team tile (128 fastest on an H200)
  int column_splits = 0;  // all pairs: teams sharing a row tile, each over a share of the
                          // column tiles (0: enough to fill the device, see all_pairs_splits)
  bool keep_positions = false;  // copy the final phases to the host (tests)
};

}  // namespace parity::sde
