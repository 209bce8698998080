#include "parity/sde/params.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "parity/run/errors.hpp"

namespace parity::sde {

void validate(JosephsonParams const& p, ParameterName const& name) {
  auto n = [&](char const* field) { return name(field); };
  require(std::isfinite(p.gamma) && p.gamma > 0, n("gamma") + " must be positive");
  require(std::isfinite(p.omega) && p.omega > 0, n("omega") + " must be positive");
  require(std::isfinite(p.a), n("a") + " must be finite");
  require(std::isfinite(p.f), n("f") + " must be finite");
  require(std::isfinite(p.D) && p.D >= 0, n("D") + ", the noise intensity, must be >= 0");
  require(p.steps_per_period >= 4 && p.steps_per_period <= 1000000, n("steps_per_period") + " must be in [4, 1e6]");
  require(p.periods >= 1, n("periods") + " must be >= 1");
  require(p.periods <= (long(1) << 40) / p.steps_per_period,
          n("periods") + " * " + n("steps_per_period") + " is too large");
  require(p.transient_periods >= 0 && p.transient_periods < p.periods,
          n("transient_periods") + " must be in [0, periods)");
  require(p.paths >= 1, n("paths") + " must be >= 1");
  require(p.sample_every >= 1, n("sample_every") + " must be >= 1");
  require(p.bins >= 1 && p.bins <= 100000, n("bins") + " must be in [1, 100000]");
  require(p.terminal_states >= 0 && p.terminal_states <= p.paths,
          n("terminal_states") + " must be in [0, " + n("paths") + "]");
  require(p.trajectories >= 0 && p.trajectories <= p.paths, n("trajectories") + " must be in [0, " + n("paths") + "]");
  require(p.density_bins >= 0 && p.density_bins <= 100000, n("density_bins") + " must be in [0, 100000]");
  require(p.density_bins == 0 || (std::isfinite(p.density_lo) && std::isfinite(p.density_hi) &&
                                  p.density_lo < p.density_hi && p.density_hi - p.density_lo <= 1e9),
          n("density_range") + " must be XMIN,XMAX (periods) with XMIN < XMAX");
  require(
      (p.periods * p.steps_per_period + p.sample_every - 1) / p.sample_every <= 10000000L / std::max(1, p.density_bins),
      "too many samples * " + n("density_bins") + " to record; raise " + n("sample_every"));
  require(p.stepper == "srk2" || p.stepper == "euler" || p.stepper == "milstein" || p.stepper == "weak2",
          n("stepper") + " must be srk2, euler, milstein or weak2");
  require(p.noise_law == "gaussian" || p.noise_law == "five-point", n("noise_law") + " must be gaussian or five-point");
  require(p.sweeps.size() <= 2, "at most two parameters may be swept (a 2-D sweep), got " +
                                    std::to_string(p.sweeps.size()) + " in " + n("sweeps"));
  long points = 1;
  for (std::size_t i = 0; i < p.sweeps.size(); ++i) {
    auto const& s = p.sweeps[i];
    require(s.name == "a" || s.name == "f" || s.name == "D" || s.name == "gamma",
            n("sweeps") + ": parameter '" + s.name + "' cannot be swept (choose a, f, D or gamma; omega sets dt)");
    if (s.name == "D") require(s.lo >= 0 && s.hi >= 0, n("sweeps") + " D: values must be >= 0");
    if (s.name == "gamma") require(s.lo > 0 && s.hi > 0, n("sweeps") + " gamma: values must be positive");
    if (i == 1) require(s.name != p.sweeps[0].name, n("sweeps") + ": the two swept parameters must differ");
    points *= s.n;
  }
  long const samples = (p.periods * p.steps_per_period + p.sample_every - 1) / p.sample_every;
  require(points * long(p.paths) <= (long(1) << 31) - 1, "sweep points * " + n("paths") + " must be below 2^31");
  require(samples * points <= 100000000L, "too many samples * sweep points to record; raise " + n("sample_every"));
}

void validate(KuramotoParams const& p, ParameterName const& name) {
  auto n = [&](char const* field) { return name(field); };
  require(p.oscillators >= 2 && p.oscillators <= (1 << 30), n("oscillators") + " must be in [2, 2^30]");
  require(std::isfinite(p.K), n("K") + " must be finite");
  require(std::isfinite(p.gamma) && p.gamma > 0, n("gamma") + " must be positive");
  require(std::isfinite(p.D) && p.D >= 0, n("D") + ", the noise intensity, must be >= 0");
  require(std::isfinite(p.omega_mean), n("omega_mean") + " must be finite");
  require(std::isfinite(p.omega_spread) && p.omega_spread >= 0, n("omega_spread") + " must be >= 0");
  require(std::isfinite(p.dt) && p.dt > 0, n("dt") + " must be positive");
  // One step may move a phase by at most about a radian through the drift and the noise: beyond
  // that the scheme no longer follows the SDE and r(t) is noise.
  double const rate = (std::abs(p.K) + std::abs(p.omega_mean) + 3 * p.omega_spread + 2 * p.D) / p.gamma;
  if (rate > 0) {
    std::ostringstream m;
    m << n("dt") << " " << p.dt << " is too large: a step moves a phase by about dt (|K| + |omega_mean| + "
      << "3 omega_spread + 2 D) / gamma = " << p.dt * rate << " radians; use " << n("dt") << " <= " << 0.5 / rate;
    require(p.dt * rate <= 0.5, m.str());
  }
  require(p.steps >= 1, n("steps") + " must be >= 1");
  require(p.sample_every >= 1, n("sample_every") + " must be >= 1");
  require(p.bins >= 1 && p.bins <= 100000, n("bins") + " must be in [1, 100000]");
  require(p.stepper == "srk2" || p.stepper == "euler", n("stepper") + " must be srk2 or euler");
  require(p.noise_law == "gaussian" || p.noise_law == "five-point", n("noise_law") + " must be gaussian or five-point");
  require(p.coupling == "mean-field" || p.coupling == "all-pairs", n("coupling") + " must be mean-field or all-pairs");
  require(p.tile >= 1 && p.tile <= 4096, n("tile") + " must be in [1, 4096]");
  require(p.column_splits >= 0 && p.column_splits <= 16, n("column_splits") + " must be in [0, 16] (0: automatic)");
  require(p.coupling != "all-pairs" || p.oscillators <= (1 << 20),
          n("coupling") + " all-pairs costs N^2 per step: use at most 2^20 oscillators (mean-field for more)");
  require((p.steps + p.sample_every - 1) / p.sample_every <= 10000000L / p.bins,
          "too many samples * bins to record; raise " + n("sample_every"));
}

}  // namespace parity::sde
