#pragma once
// What the SDE commands take alike on the command line: the refusal of a noise law without noise,
// and for the all-to-all and the network Kuramoto commands the options of the time steps and the
// samples, and those parameters in the report. Host code (the commands), no Kokkos.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "parity/cli/numbers.hpp"
#include "parity/run/errors.hpp"

namespace parity::sde {

// Refuses --noise-law where the noise it draws is multiplied by zero.
inline void require_noise(CLI::Option const* noise_law, bool noisy, std::string const& why) {
  require(noise_law->count() == 0 || noisy, "--noise-law applies only with noise: " + why);
}

// --dt, --steps, --sample-every and --bins into the fields of the same names of a Kuramoto
// command's parameters (KuramotoParams, NetworkKuramotoParams).
template <class Params>
void add_sampling_options(CLI::App& sub, Params& p) {
  sub.add_option("--dt", p.dt, "Time step")->capture_default_str();
  sub.add_option("--steps", p.steps, "Number of steps")->transform(cli::count<long>(1))->capture_default_str();
  sub.add_option("--sample-every", p.sample_every, "Steps between samples of r(t) and the histogram")
      ->transform(cli::count<int>(1))
      ->capture_default_str();
  sub.add_option("--bins", p.bins, "Bins of the histogram of x mod 2 pi")
      ->transform(cli::count<int>(1, 100000))
      ->capture_default_str();
}

// The report's parameters of the time steps, the samples and the noise, and the initial phases.
template <class Params>
nlohmann::json sampling_parameters(Params const& p) {
  return {{"dt", p.dt},
          {"steps", p.steps},
          {"sample_every", p.sample_every},
          {"bins", p.bins},
          {"seed", p.seed},
          {"stepper", p.stepper},
          {"noise_law", p.noise_law},
          {"initial_conditions", "x uniform in [0, 2 pi)"}};
}

}  // namespace parity::sde
