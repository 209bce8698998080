#pragma once
// Adaptive time steps per trajectory, inside the kernel: parity::sde::integrate_adaptive(space,
// system, config) integrates `paths` trajectories of a system (system.hpp) to t_end, each with its
// own dyadic step sizes chosen by step doubling on a virtual Brownian tree, and returns the
// ensemble's terminal moments (detail/adaptive_integrator.hpp has the controller,
// detail/brownian_tree.hpp the noise).
//
// Time: steps are t_end / 2^j; the system's Tick counts units of the finest half step,
// time = t.step * adaptive_time_unit(config) = t.step * t_end / 2^(finest level + 1).
// The moments are summed in chunks of 1024 paths, each in path order, and the chunk sums in chunk
// order: the same bits for any thread count and team size.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/solve_options.hpp"
#include "parity/sde/detail/adaptive_integrator.hpp"
#include "parity/sde/stepper.hpp"
#include "parity/sde/system.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::sde {

struct AdaptiveConfig : run::SolveOptions {
  long paths = 4096;
  double t_end = 1;
  std::uint64_t seed = 1;
  double atol = 1e-3, rtol = 1e-3;  // a step passes when |x_h - x_h/2| <= atol + rtol |x| in every component
  double initial_step = 0;  // rounded down to t_end / 2^j; 0: t_end / 16
  double min_step = 0;  // rounded down to t_end / 2^j, j <= 39; 0: t_end / 2^20
  double max_step = 0;  // rounded down to t_end / 2^j; 0: t_end. Below a feature's width in time
                        // (a pulse in a coefficient), so that no step steps over it unseen
  long max_steps = 1'000'000;  // attempts (accepted + rejected) per path before it is capped
  // milstein, or euler_maruyama for additive noise only: with multiplicative noise its
  // step-doubling estimate is the Milstein term, and rejecting steps on it biases the increments
  // kept, so the paths converge to a wrong solution (Gaines & Lyons 1997).
  Stepper stepper = Stepper::milstein;
  bool adaptive = true;  // false: fixed steps of initial_step on the same Brownian trees
  int terminal_paths = 0;  // keep the terminal states of the first n paths
  std::string label = "sde";  // phases: parity::<label>::adaptive_integrate, adaptive_moments
};

enum class AdaptiveStatus { completed, step_cap };

struct AdaptiveResult {
  int dim = 0;
  long paths = 0;
  std::vector<double> mean, variance, mean_error;  // [dim] at t_end; variance divided by paths,
                                                   // mean_error = sqrt(variance / (paths - 1))
  double mean_accepted = 0, mean_rejected = 0;  // steps per path (each costs three scheme steps
                                                // when adaptive, one when not)
  long capped_paths = 0;  // paths stopped by max_steps before t_end (their states enter the moments)
  AdaptiveStatus status = AdaptiveStatus::completed;  // step_cap when capped_paths > 0
  int coarsest_level = 0, initial_level = 0, finest_level = 0;  // steps t_end / 2^level
  double time_unit = 0;  // time of one Tick step
  std::vector<double> terminal_states;  // [terminal_paths][dim]
};

namespace detail {

// The level j of the largest dyadic step t_end / 2^j not above `step`.
inline int dyadic_level(double t_end, double step) {
  int j = 0;
  while (j < brownian_max_depth && t_end / std::ldexp(1.0, j) > step) ++j;
  return j;
}

inline AdaptiveRun adaptive_run(AdaptiveConfig const& c) {
  require(c.paths >= 2, "sde::integrate_adaptive: paths must be at least 2 (got " + std::to_string(c.paths) + ")");
  require(std::isfinite(c.t_end) && c.t_end > 0, "sde::integrate_adaptive: t_end must be positive and finite");
  require(std::isfinite(c.atol) && std::isfinite(c.rtol) && c.atol >= 0 && c.rtol >= 0 && c.atol + c.rtol > 0,
          "sde::integrate_adaptive: atol and rtol must be non-negative and finite, not both zero");
  require(std::isfinite(c.initial_step) && c.initial_step >= 0 && std::isfinite(c.min_step) && c.min_step >= 0,
          "sde::integrate_adaptive: initial_step and min_step must be non-negative (0: the default)");
  require(c.max_steps >= 1, "sde::integrate_adaptive: max_steps must be at least 1");
  require(!c.ranks.several(), "sde::integrate_adaptive: runs on one rank (the paths are not split over ranks)");
  require(c.terminal_paths >= 0 && c.terminal_paths <= c.paths,
          "sde::integrate_adaptive: terminal_paths must be in 0 .. paths");
  require(c.stepper == Stepper::euler_maruyama || c.stepper == Stepper::milstein,
          "sde::integrate_adaptive: the stepper must be euler_maruyama or milstein (srk2 and weak2 evaluate the "
          "drift one Tick ahead, which is not the end of an adaptive step)");
  AdaptiveRun r;
  r.seed = c.seed;
  r.horizon = c.t_end;
  r.atol = c.atol;
  r.rtol = c.rtol;
  require(std::isfinite(c.max_step) && c.max_step >= 0, "sde::integrate_adaptive: max_step must be non-negative");
  r.coarsest_level = c.max_step > 0 ? dyadic_level(c.t_end, c.max_step) : 0;
  r.initial_level = c.initial_step > 0 ? dyadic_level(c.t_end, c.initial_step) : 4;
  if (r.initial_level < r.coarsest_level) r.initial_level = r.coarsest_level;
  r.finest_level = c.min_step > 0 ? dyadic_level(c.t_end, c.min_step) : 20;
  require(r.finest_level < brownian_max_depth, "sde::integrate_adaptive: min_step must be at least t_end / 2^39");
  require(r.initial_level <= r.finest_level && r.coarsest_level <= r.finest_level,
          "sde::integrate_adaptive: initial_step and max_step must not be below min_step");
  r.max_steps = c.max_steps;
  r.adaptive = c.adaptive;
  return r;
}

}  // namespace detail

// The time of one Tick step of a run with this configuration (throws InvalidInput as
// integrate_adaptive does).
inline double adaptive_time_unit(AdaptiveConfig const& config) {
  detail::AdaptiveRun const r = detail::adaptive_run(config);
  return r.horizon / std::ldexp(1.0, r.depth());
}

namespace detail {

inline constexpr long adaptive_chunk = 1024;

template <Stepper S, class ExecSpace, class System, class StateView, class CountView>
void integrate_paths(ExecSpace const& space, System const& system, AdaptiveRun const& run, StateView const& x,
                     CountView const& counts) {
  Kokkos::parallel_for(
      "parity::sde::adaptive_integrate", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(long const p) {
        State<System> xp;
        long accepted, rejected;
        bool capped;
        integrate_path<S>(system, run, std::int64_t(p), xp, accepted, rejected, capped);
        for (int k = 0; k < System::dim; ++k) x(p, k) = double(xp[k]);
        counts(p, 0) = accepted;
        counts(p, 1) = rejected;
        counts(p, 2) = capped ? 1 : 0;
      });
}

// sums(c, k) = sum over the paths of chunk c, in path order, of (x(p, k) - shift[k])^power
// (power 1 or 2); sums(c, dim + i) = the counts' column i (power 1 only).
template <class ExecSpace, class StateView, class CountView, class SumView, class ShiftView>
void chunk_sums(ExecSpace const& space, StateView const& x, CountView const& counts, ShiftView const& shift, int power,
                SumView const& sums) {
  long const paths = long(x.extent(0));
  int const dim = int(x.extent(1));
  Kokkos::parallel_for(
      power == 1 ? "parity::sde::adaptive_sums" : "parity::sde::adaptive_squares",
      Kokkos::RangePolicy<ExecSpace>(space, 0, sums.extent(0)), KOKKOS_LAMBDA(long const c) {
        long const begin = c * adaptive_chunk, end = begin + adaptive_chunk < paths ? begin + adaptive_chunk : paths;
        for (int k = 0; k < dim; ++k) {
          double s = 0;
          for (long p = begin; p < end; ++p) {
            double const d = x(p, k) - shift(k);
            s += power == 1 ? d : d * d;
          }
          sums(c, k) = s;
        }
        if (power == 1)
          for (int i = 0; i < 3; ++i) {
            double s = 0;
            for (long p = begin; p < end; ++p) s += double(counts(p, i));
            sums(c, dim + i) = s;
          }
      });
}

}  // namespace detail

// Integrates config.paths paths of `system` to config.t_end with per-path adaptive steps (see
// above). Throws InvalidInput for a bad configuration.
template <class ExecSpace, class System>
AdaptiveResult integrate_adaptive(ExecSpace const& space, System const& system, AdaptiveConfig const& config) {
  static_assert(detail::check_system<System>());
  static_assert(System::noise_dim < detail::initial_state_component,
                "parity::sde::integrate_adaptive: noise_dim must be below 65535");
  static_assert(wrapped_of<System>() < 0, "parity::sde::integrate_adaptive: wrapped components are not supported");
  using Mem = typename ExecSpace::memory_space;
  constexpr int dim = System::dim;
  detail::AdaptiveRun const run = detail::adaptive_run(config);
  run::PhaseTimes own_times;
  run::PhaseTimes& times = config.phases ? *config.phases : own_times;
  long const paths = config.paths, chunks = (paths + detail::adaptive_chunk - 1) / detail::adaptive_chunk;
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> x(Kokkos::view_alloc(space, "parity::sde::adaptive_states"), paths,
                                                    dim);
  Kokkos::View<long* [3], Kokkos::LayoutLeft, Mem> counts(Kokkos::view_alloc(space, "parity::sde::adaptive_counts"),
                                                          paths);
  {
    timing::ScopedPhase<ExecSpace> phase(space, times, "parity::" + config.label + "::adaptive_integrate");
    if (config.stepper == Stepper::milstein) {
      detail::integrate_paths<Stepper::milstein>(space, system, run, x, counts);
    } else if constexpr (scheme_applies<System>(Stepper::euler_maruyama)) {
      detail::integrate_paths<Stepper::euler_maruyama>(space, system, run, x, counts);
    } else {
      require(false, "sde::integrate_adaptive: a Stratonovich system takes the milstein stepper");
    }
  }
  AdaptiveResult r;
  r.dim = dim;
  r.paths = paths;
  r.coarsest_level = run.coarsest_level;
  r.initial_level = run.initial_level;
  r.finest_level = run.finest_level;
  r.time_unit = run.horizon / std::ldexp(1.0, run.depth());
  timing::ScopedPhase<ExecSpace> phase(space, times, "parity::" + config.label + "::adaptive_moments");
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> sums(Kokkos::view_alloc(space, "parity::sde::adaptive_sums"), chunks,
                                                        dim + 3);
  Kokkos::View<double*, Mem> shift(Kokkos::view_alloc(space, "parity::sde::adaptive_shift"), dim);
  auto shift_host = Kokkos::create_mirror_view(shift);
  auto sums_host = Kokkos::create_mirror_view(sums);
  // Pass 1: means and counts; pass 2: squared deviations from the mean (two passes keep the
  // variance accurate when it is small against the mean).
  detail::chunk_sums(space, x, counts, shift, 1, sums);
  Kokkos::deep_copy(space, sums_host, sums);
  space.fence();
  std::vector<double> total(dim + 3, 0.0);
  for (long c = 0; c < chunks; ++c)
    for (int k = 0; k < dim + 3; ++k) total[k] += sums_host(c, k);
  r.mean.resize(dim);
  for (int k = 0; k < dim; ++k) r.mean[k] = shift_host(k) = total[k] / double(paths);
  r.mean_accepted = total[dim] / double(paths);
  r.mean_rejected = total[dim + 1] / double(paths);
  r.capped_paths = long(total[dim + 2]);
  r.status = r.capped_paths > 0 ? AdaptiveStatus::step_cap : AdaptiveStatus::completed;
  Kokkos::deep_copy(space, shift, shift_host);
  detail::chunk_sums(space, x, counts, shift, 2, sums);
  Kokkos::deep_copy(space, sums_host, sums);
  space.fence();
  r.variance.assign(dim, 0.0);
  r.mean_error.resize(dim);
  for (long c = 0; c < chunks; ++c)
    for (int k = 0; k < dim; ++k) r.variance[k] += sums_host(c, k);
  for (int k = 0; k < dim; ++k) {
    r.variance[k] /= double(paths);
    r.mean_error[k] = std::sqrt(r.variance[k] / double(paths - 1));
  }
  if (config.terminal_paths > 0) {
    auto kept = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace{}, Kokkos::subview(x, std::make_pair(0L, long(config.terminal_paths)), Kokkos::ALL));
    r.terminal_states.resize(std::size_t(config.terminal_paths) * dim);
    for (int p = 0; p < config.terminal_paths; ++p)
      for (int k = 0; k < dim; ++k) r.terminal_states[std::size_t(p) * dim + k] = kept(p, k);
  }
  return r;
}

}  // namespace parity::sde
