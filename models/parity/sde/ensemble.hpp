#pragma once
// Ensemble integration of a small SDE system: one trajectory per thread, `paths` trajectories per
// parameter value, and a 1-D or 2-D sweep of parameter values, all in one launch.
//
// A system (system.hpp checks it, with messages) provides what stepper.hpp asks for and
//   KOKKOS_FUNCTION void initial(random::PhiloxStream<real_type>& rng, State& x) const;
// and optionally
//   static constexpr int wrapped;   // component kept modulo period() (a phase); default none
//   KOKKOS_FUNCTION real_type period() const;            // required with a wrapped component
//   KOKKOS_FUNCTION void set(int field, double value);   // a swept parameter (field ids are the system's)
//   static constexpr unsigned advance_min_blocks;  // launch bounds, see below
//   static constexpr unsigned time_averaged;  // bit k set = time-average component k
//                                             // (default: none); the others cost nothing per step
//                                             // and report NaN as their time average
//   static constexpr int observed;  // with observe(): a functional of the state (observables.hpp)
// The wrapped component is stored in [0, period) plus an integer winding count per path, so
// positions keep full precision in float however far a particle runs; moments use the unwrapped
// value.
//
// Launches advance every path by `sample_every` steps; after each, ensemble means and variances of
// every component (per parameter value) are reduced on the device into a samples array, and with
// them (detail/sample_statistics.hpp) the covariance, the system's observables and any kept
// states. Time averages of the chosen components over steps (average_from, steps] accumulate per
// path. Nothing else of the per-path state leaves the device; the host copies only the reduced
// arrays at the end.
//
// Across ranks (run::Communicator): the sums run over chunks of 1024 paths of one sweep point, and the
// P * chunks chunks are dealt out to the ranks in contiguous runs, so each rank integrates a
// contiguous range of global path indices (noise and initial states are keyed by the global index:
// the ensemble is the same for any rank count). Each rank sums its chunks; the chunk sums are
// gathered in chunk order and added by the same kernel as on one rank, so the statistics are
// bit-identical to a one-rank run of the same backend and team size.
#include <Kokkos_Core.hpp>
#include <Kokkos_ScatterView.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "parity/random/philox.hpp"
#include "parity/run/communicator.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/run/solve_options.hpp"
#include "parity/sde/correlated_noise.hpp"
#include "parity/sde/density_range.hpp"
#include "parity/sde/detail/sample_statistics.hpp"
#include "parity/sde/detail/unwrapped_density.hpp"
#include "parity/sde/ensemble_layout.hpp"
#include "parity/sde/noise.hpp"
#include "parity/sde/observables.hpp"
#include "parity/sde/result.hpp"
#include "parity/sde/stepper.hpp"
#include "parity/sde/system.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::sde {

// Up to two swept parameters; point p of the sweep is (i0, i1) = (p / n1, p % n1).
struct SweepAxis {
  int field = -1;  // the system's field id; -1: no sweep along this axis
  double lo = 0, hi = 0;
  int n = 1;
  KOKKOS_INLINE_FUNCTION double value(int i) const { return n == 1 ? lo : lo + (hi - lo) * double(i) / double(n - 1); }
};

struct Sweep {
  SweepAxis axis[2];
  KOKKOS_INLINE_FUNCTION int size() const { return axis[0].n * axis[1].n; }
  template <class System>
  KOKKOS_INLINE_FUNCTION void apply(int p, System& s) const {
    int const i0 = p / axis[1].n, i1 = p % axis[1].n;
    if constexpr (sweepable<System>) {
      if (axis[0].field >= 0) s.set(axis[0].field, axis[0].value(i0));
      if (axis[1].field >= 0) s.set(axis[1].field, axis[1].value(i1));
    }
  }
};

// Whether component k of a system enters the per-path time averages (System::time_averaged, or
// none: a system asks for the averages it reports, and without any the ensemble keeps no per-path
// sums).
template <class System>
KOKKOS_INLINE_FUNCTION constexpr bool time_averaged(int k) {
  if constexpr (requires { System::time_averaged; })
    return ((System::time_averaged >> k) & 1u) != 0;
  else
    return false;
}
template <class System>
constexpr bool any_time_averaged() {
  for (int k = 0; k < System::dim; ++k)
    if (time_averaged<System>(k)) return true;
  return false;
}

// Launch bounds of the advance kernel: System::advance_min_blocks (blocks of 256 threads that must
// fit on one multiprocessor, i.e. a register cap of 65536 / (256 * that)), or 0 (the compiler's
// choice).
template <class System>
constexpr unsigned advance_min_blocks() {
  if constexpr (requires { System::advance_min_blocks; })
    return System::advance_min_blocks;
  else
    return 0;
}

// With the entry point's options (run::SolveOptions): progress, phases and the ranks (uses all_gather
// and sum).
struct EnsembleConfig : run::SolveOptions {
  int paths = 1024;  // per parameter value
  long steps = 1000;
  double dt = 0.01;
  int sample_every = 100;  // steps per launch; moments are sampled after each launch
  long average_from = 0;  // time averages over steps (average_from, steps]
  int bins = 0;  // histogram of the wrapped component at the end (0: none)
  std::uint64_t seed = 1;
  Stepper stepper = Stepper::srk2;
  NoiseLaw noise = NoiseLaw::gaussian;  // five_point: weak noise, ensemble statistics only (noise.hpp)
  // Beside mean and variance at each sample (detail/sample_statistics.hpp): the state covariance and
  // standard errors (on by default; the system's observables are reported whenever it has them),
  // and the states of the first terminal_states paths of each point at the end, of the first
  // trajectories paths at every sample.
  bool covariance = true;
  int terminal_states = 0, trajectories = 0;
  // Histogram of the unwrapped wrapped component at every sample (detail/unwrapped_density.hpp);
  // bins = 0: none.
  DensityRange density;
  // Correlation of the Wiener processes, noise_dim x noise_dim row-major (correlated_noise.hpp);
  // empty: independent.
  std::vector<double> correlation;
  // Each step's increment is the sum of this many increments of a grid that many times finer (fine
  // step k reads variates k * noise_dim + q), so runs at dt with refinement r and at dt / r with 1
  // see the same Brownian paths: strong convergence studies compare them path by path.
  int noise_refinement = 1;
  std::string label = "sde";  // names the phases ("parity::<label>::integrate") and progress lines
};

namespace detail {

template <int K>
struct Sums {
  double v[K];
  KOKKOS_INLINE_FUNCTION Sums() {
    for (int k = 0; k < K; ++k) v[k] = 0;
  }
  KOKKOS_INLINE_FUNCTION Sums& operator+=(Sums const& o) {
    for (int k = 0; k < K; ++k) v[k] += o.v[k];
    return *this;
  }
};

}  // namespace detail
}  // namespace parity::sde

template <int K>
struct Kokkos::reduction_identity<parity::sde::detail::Sums<K>> {
  KOKKOS_FORCEINLINE_FUNCTION static parity::sde::detail::Sums<K> sum() { return {}; }
};

namespace parity::sde::detail {

// How a launch turns variates into increments: `refinement` variates of variance `scale`^2 summed per
// Wiener process and step, then correlated by the factor L (null: independent).
template <class Real>
struct Increments {
  int refinement = 1;
  Real scale = 1;  // sqrt(dt / refinement)
  Real const* factor = nullptr;
};

template <class Real, class Mem>
using States = Kokkos::View<Real**, Mem>;  // (global path, component)

// Value of component k of path g, the wrapped component unwrapped.
template <class Real, class Mem>
struct StateValue {
  Kokkos::View<Real**, Mem> x;
  Kokkos::View<int*, Mem> wind;
  int wrapped;
  double period;
  KOKKOS_INLINE_FUNCTION double operator()(int g, int k) const {
    double v = double(x(g, k));
    if (k == wrapped) v += period * double(wind(g));
    return v;
  }
};

template <class Mem>
struct ScaledValue {
  Kokkos::View<double**, Mem> a;
  double scale;
  KOKKOS_INLINE_FUNCTION double operator()(int g, int k) const { return a(g, k) * scale; }
};

// Chunk sums of the chunks first_chunk .. first_chunk + partial.extent(0) - 1 (chunk u: point
// u / chunks, its paths (u % chunks) * moment_chunk ...): partial(t, 2k) = sum over the chunk's paths
// of value(l, k), partial(t, 2k+1) = sum of squares, where l = global path - first_path is the
// index into this rank's arrays. Teams reduce chunks (coalesced on GPUs): the sums are the same on
// every run of a backend and team size (other team sizes add in another order).
template <int Dim, class ExecSpace, class Value, class Partial>
void moment_partials(ExecSpace const& space, Value const& value, int paths, long first_chunk, long first_path,
                     Partial const& partial) {
  constexpr int K = 2 * Dim;
  long const chunk = moment_chunk, chunks = moment_chunks(paths);
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  Kokkos::parallel_for(
      "parity::sde::moment_partials", Policy(space, int(partial.extent(0)), Kokkos::AUTO),
      KOKKOS_LAMBDA(Member const& team) {
        long const u = first_chunk + team.league_rank();
        int const p = int(u / chunks);
        // long: the last chunk of 2^31 - 1 paths ends past int's range before it is clipped.
        long const begin = (u % chunks) * chunk, end = begin + chunk < paths ? begin + chunk : long(paths);
        Sums<K> s;
        // A long index: a team's loop steps i past the range's end before it stops, and past
        // int's range in the last chunk of 2^31 - 1 paths (then it wraps to negative paths).
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, begin, end),
            [&](long i, Sums<K>& acc) {
              int const l = int(long(p) * paths + i - first_path);
              for (int k = 0; k < Dim; ++k) {
                double const v = value(l, k);
                acc.v[2 * k] += v;
                acc.v[2 * k + 1] += v * v;
              }
            },
            s);
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          for (int k = 0; k < K; ++k) partial(team.league_rank(), k) = s.v[k];
        });
      });
}

// Per sweep point p: out(p, k) = the sum of its chunk sums partial(p * chunks + c, k), one team per
// point (one thread adding them in turn took ~50 us for the 512 chunks of 2^19 paths on an H200:
// 10 % of a 100-step Josephson launch in double).
template <int Dim, class ExecSpace, class Partial, class Out>
void moment_totals(ExecSpace const& space, int params, int paths, Partial const& partial, Out const& out) {
  constexpr int K = 2 * Dim;
  int const chunks = int(moment_chunks(paths));
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  Kokkos::parallel_for(
      "parity::sde::moment_totals", Policy(space, params, Kokkos::AUTO), KOKKOS_LAMBDA(Member const& team) {
        int const p = team.league_rank();
        Sums<K> t;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, chunks),
            [&](int c, Sums<K>& acc) {
              for (int k = 0; k < K; ++k) acc.v[k] += partial(long(p) * chunks + c, k);
            },
            t);
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          for (int k = 0; k < K; ++k) out(p, k) = t.v[k];
        });
      });
}

template <class ExecSpace, class System>
void initialize_states(ExecSpace const& space, System const& base, Sweep const& sweep, int paths, std::uint64_t seed,
                       int first_path, States<typename System::real_type, typename ExecSpace::memory_space> const& x,
                       Kokkos::View<int*, typename ExecSpace::memory_space> const& wind) {
  using Real = typename System::real_type;
  int const local = int(wind.extent(0));
  Kokkos::parallel_for(
      "parity::sde::initialize", Kokkos::RangePolicy<ExecSpace>(space, 0, local), KOKKOS_LAMBDA(int l) {
        int const g = first_path + l;
        System s = base;
        sweep.apply(g / paths, s);
        random::PhiloxStream<Real> rng(seed, std::uint64_t(g) | initial_state_stream_bit);
        State<System> st;
        s.initial(rng, st);
        int w = 0;
        if constexpr (wrapped_of<System>() >= 0) {
          Real const L = s.period();
          int const wc = wrapped_of<System>();  // a local: Kokkos::Array::operator[] takes a reference
          Real const n = Kokkos::floor(st[wc] / L);
          st[wc] -= n * L;
          w = int(n);
        }
        for (int k = 0; k < System::dim; ++k) x(l, k) = st[k];
        wind(l) = w;
      });
}

// Advances every path from step0 by nsteps; accumulates time averages over steps > average_from.
// Noise: when whole units of variates (noise.hpp) fall on whole steps (step0 * noise_dim a
// multiple of the variates per unit, nsteps a multiple of the steps per unit), each unit is read
// once and consumed by an unrolled run of steps (no dynamically indexed buffer); otherwise a
// VariateCursor. Both give variate number step * noise_dim + q of stream g for component q.
// With a refinement r > 1, step s reads the variates of fine steps s r .. s r + r - 1 (a cursor).
// weak2 with several Wiener processes takes its pair signs from Philox block `step` of stream
// g | area_stream_bit (noise.hpp). This rank's paths are first_path, first_path + 1, ... (l = g -
// first_path in x, wind, acc).
template <Stepper S, NoiseLaw Law, class ExecSpace, class System>
void advance(ExecSpace const& space, System const& base, Sweep const& sweep, int paths, std::uint64_t seed,
             int first_path, typename System::real_type dt, Increments<typename System::real_type> const& inc,
             long step0, int nsteps, long average_from,
             States<typename System::real_type, typename ExecSpace::memory_space> const& x,
             Kokkos::View<int*, typename ExecSpace::memory_space> const& wind,
             Kokkos::View<double**, typename ExecSpace::memory_space> const& acc) {
  using Real = typename System::real_type;
  constexpr int dim = System::dim, nd = System::noise_dim;
  constexpr int per_unit = variates_per_unit<Law, Real>;
  constexpr int steps_per_unit = per_unit % nd == 0 ? per_unit / nd : 0;
  int const local = int(wind.extent(0));
  Real const sqrt_dt = inc.scale;
  Real const* const correlation_factor = inc.factor;
  int const refinement = inc.refinement;
  // Steps j >= first_avg of this launch (step0 + j + 1 > average_from) enter the time averages.
  int const first_avg = int(std::clamp<long>(average_from - step0, 0, nsteps));
  bool const blocked = refinement == 1 && steps_per_unit > 0 && (std::uint64_t(step0) * nd) % per_unit == 0 &&
                       nsteps % steps_per_unit == 0;
  // Occupancy: a system may ask for launch bounds (System::advance_min_blocks blocks of 256 threads
  // per multiprocessor; GPU backends only, ignored elsewhere).
  using Bounds = Kokkos::LaunchBounds<(advance_min_blocks<System>() > 0 ? 256 : 0), advance_min_blocks<System>()>;
  Kokkos::parallel_for(
      "parity::sde::advance", Kokkos::RangePolicy<ExecSpace, Bounds>(space, 0, local), KOKKOS_LAMBDA(int l) {
        int const g = first_path + l;
        System s = base;
        sweep.apply(g / paths, s);
        State<System> st;
        for (int k = 0; k < dim; ++k) st[k] = x(l, k);
        int w = wind(l);
        Real L = 0;
        if constexpr (wrapped_of<System>() >= 0) L = s.period();
        Tick t = tick_at(s, step0);
        int const w0 = w;
        Real sum[dim];
        for (int k = 0; k < dim; ++k) sum[k] = 0;
        long wsum = 0;  // sum of (w - w0) over the averaged steps
        int j = 0;
        auto one_step = [&](Noise<System> const& dW) {
          std::uint64_t area_signs = 0;
          if (S == Stepper::weak2 && nd > 1) {
            auto const b = random::philox_block(seed, std::uint64_t(g) | area_stream_bit, std::uint64_t(t.step));
            area_signs = std::uint64_t(b.v[0]) | std::uint64_t(b.v[1]) << 32;
          }
          step_correlated<S>(s, correlation_factor, t, dt, st, dW, area_signs);
          t = t.next();
          if constexpr (wrapped_of<System>() >= 0) {
            int const wc = wrapped_of<System>();  // a local: Kokkos::Array::operator[] takes a reference
            Real& y = st[wc];
            if (y >= L || y < Real(0)) {
              Real const n = Kokkos::floor(y / L);
              y -= n * L;
              w += int(n);
            }
          }
          if (j >= first_avg) {
            for (int k = 0; k < dim; ++k)
              if (time_averaged<System>(k)) sum[k] += st[k];
            // unwrapped relative to the launch's start: no float cancellation
            if constexpr (wrapped_of<System>() >= 0 && time_averaged<System>(wrapped_of<System>())) wsum += w - w0;
          }
          ++j;
        };
        if (blocked) {
          VariateUnits<Law, Real> units(seed, std::uint64_t(g), std::uint64_t(step0) * nd / per_unit, sqrt_dt);
          for (int jb = 0; jb < nsteps; jb += steps_per_unit) {
            Real z[per_unit];
            units.next(z);
            for (int u = 0; u < (steps_per_unit > 0 ? steps_per_unit : 1); ++u) {
              Noise<System> dW;
              // already times sqrt(dt); "% per_unit" keeps the never-taken case of a unit shorter than
              // a step (steps_per_unit = 0) inside z
              for (int q = 0; q < nd; ++q) dW[q] = z[(u * nd + q) % per_unit];
              one_step(dW);
            }
          }
        } else {
          VariateCursor<Law, Real> z(seed, std::uint64_t(g), std::uint64_t(step0) * refinement * nd, sqrt_dt);
          for (int jj = 0; jj < nsteps; ++jj) {
            Noise<System> dW;
            for (int q = 0; q < nd; ++q) dW[q] = z.next();
            for (int i = 1; i < refinement; ++i)
              for (int q = 0; q < nd; ++q) dW[q] += z.next();
            one_step(dW);
          }
        }
        for (int k = 0; k < dim; ++k) x(l, k) = st[k];
        wind(l) = w;
        int const counted = nsteps - first_avg;
        if (counted > 0) {
          for (int k = 0; k < dim; ++k)
            if (time_averaged<System>(k)) acc(l, k) += double(sum[k]);
          if constexpr (wrapped_of<System>() >= 0 && time_averaged<System>(wrapped_of<System>()))
            acc(l, int(wrapped_of<System>())) += double(L) * (double(w0) * counted + double(wsum));
        }
      });
}

}  // namespace parity::sde::detail

namespace parity::sde {

// Integrates the ensemble of `system` over the sweep; see the top of this file.
template <class ExecSpace, class System>
EnsembleResult integrate(ExecSpace const& space, System const& system, Sweep const& sweep, EnsembleConfig const& cfg) {
  static_assert(detail::check_system<System>());
  using Real = typename System::real_type;
  using Mem = typename ExecSpace::memory_space;
  constexpr int dim = System::dim;
  // A null progress is silent; null phases are timed into a record of the call's own.
  run::SilentProgress silent;
  run::PhaseTimes own_times;
  run::Progress& progress = cfg.progress ? *cfg.progress : silent;
  run::PhaseTimes& times = cfg.phases ? *cfg.phases : own_times;
  std::string const& label = cfg.label;
  require(sweepable<System> || (sweep.axis[0].field < 0 && sweep.axis[1].field < 0),
          "sde::integrate: the system has no set(field, value), so it cannot be swept");
  require(cfg.terminal_states >= 0 && cfg.trajectories >= 0,
          "sde::integrate: terminal_states and trajectories count paths per sweep point, at least 0");
  require(
      cfg.density.bins == 0 || (wrapped_of<System>() >= 0 && cfg.density.bins > 0 && cfg.density.lo < cfg.density.hi),
      "sde::integrate: a density needs a wrapped component, bins > 0 and lo < hi");
  int const P = sweep.size(), paths = cfg.paths, total = P * paths;
  // This rank's chunks [u0, u1) of the P * chunks (see the top of this file) and so its paths
  // [g0, g0 + local); ensemble_device_bytes (ensemble_layout.hpp) counts what is allocated below.
  int const nranks = cfg.ranks.size > 1 ? cfg.ranks.size : 1, rank = nranks > 1 ? cfg.ranks.rank : 0;
  EnsembleLayout const layout = ensemble_layout(P, paths, rank, nranks);
  long const units = layout.units, u0 = layout.u0, u1 = layout.u1;
  int const g0 = int(layout.first_path), local = int(layout.local_paths);
  int const samples = int((cfg.steps + cfg.sample_every - 1) / cfg.sample_every);
  require(scheme_applies<System>(cfg.stepper),
          "sde::integrate: the system is a Stratonovich one; Euler-Maruyama and weak2 are Ito schemes (use srk2 "
          "or milstein)");
  require(cfg.noise_refinement >= 1, "sde::integrate: noise_refinement must be >= 1");
  // Correlated noise: the Cholesky factor, once, in device memory (empty: independent).
  Kokkos::View<Real*, Mem> factor(Kokkos::view_alloc(space, "parity::sde::noise_factor"),
                                  cfg.correlation.empty() ? 0 : System::noise_dim * System::noise_dim);
  if (!cfg.correlation.empty()) {
    auto const l = cholesky_factor(cfg.correlation, System::noise_dim);
    auto fh = Kokkos::create_mirror_view(factor);
    for (std::size_t i = 0; i < l.size(); ++i) fh(i) = Real(l[i]);
    Kokkos::deep_copy(space, factor, fh);
  }
  detail::Increments<Real> const inc{cfg.noise_refinement, Real(std::sqrt(double(Real(cfg.dt / cfg.noise_refinement)))),
                                     cfg.correlation.empty() ? nullptr : factor.data()};

  EnsembleResult r;
  r.params = P;
  r.dim = dim;
  r.samples = samples;
  r.bins = wrapped_of<System>() >= 0 ? cfg.bins : 0;

  Kokkos::View<Real**, Mem> x(Kokkos::view_alloc(space, "parity::sde::state"), local, dim);
  Kokkos::View<int*, Mem> wind(Kokkos::view_alloc(space, "parity::sde::winding"), local);
  // Per-path time sums only where a component is averaged (the advance kernel writes no others).
  Kokkos::View<double**, Mem> acc(Kokkos::view_alloc(space, "parity::sde::time_sum"),
                                  any_time_averaged<System>() ? local : 0, dim);
  Kokkos::View<double***, Mem> moments(Kokkos::view_alloc(space, "parity::sde::sample_moments"), samples, P, 2 * dim);
  // Chunk sums row by row (LayoutRight): a rank's rows are one contiguous block to gather.
  using Partials = Kokkos::View<double**, Kokkos::LayoutRight, Mem>;
  Partials partial(Kokkos::view_alloc(space, "parity::sde::moment_partials"), u1 - u0, 2 * dim);
  // Several ranks: every rank's chunk sums, gathered in chunk order (through host memory).
  Partials partial_all = partial;
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> partial_host, partial_all_host;
  if (nranks > 1) {
    partial_all = Partials(Kokkos::view_alloc(space, "parity::sde::moment_partials_all"), units, 2 * dim);
    partial_host = decltype(partial_host)("parity::sde::moment_partials_host", u1 - u0, 2 * dim);
    partial_all_host = decltype(partial_all_host)("parity::sde::moment_partials_all_host", units, 2 * dim);
  }
  // Sums over each sweep point's paths on all ranks: this rank's chunk sums, then (several ranks)
  // all ranks' chunk sums, added per point.
  auto const sums = [&](auto const& value, auto const& out) {
    detail::moment_partials<dim>(space, value, paths, u0, g0, partial);
    if (nranks > 1) {
      Kokkos::deep_copy(space, partial_host, partial);
      space.fence("parity::sde::moment_partials_to_host");
      cfg.ranks.all_gather(std::span<double const>(partial_host.data(), partial_host.size()),
                           std::span<double>(partial_all_host.data(), partial_all_host.size()));
      Kokkos::deep_copy(space, partial_all, partial_all_host);
    }
    detail::moment_totals<dim>(space, P, paths, partial_all, out);
  };
  Real period = 0;
  if constexpr (wrapped_of<System>() >= 0) period = system.period();
  detail::StateValue<Real, Mem> const value{x, wind, wrapped_of<System>(), double(period)};

  detail::SampleStatistics<ExecSpace, System> statistics(space, layout, P, paths, samples, cfg.covariance,
                                                         cfg.terminal_states, cfg.trajectories, cfg.ranks);
  detail::UnwrappedDensity<ExecSpace> density(space, cfg.density, P, paths, samples, cfg.ranks);
  {
    timing::ScopedPhase<ExecSpace> phase(space, times, "parity::" + label + "::initialize");
    detail::initialize_states(space, system, sweep, paths, cfg.seed, g0, x, wind);
  }
  {
    timing::ScopedPhase<ExecSpace> phase(space, times, "parity::" + label + "::integrate");
    Kokkos::Timer clock;
    double last_report = -1;
    long step = 0;
    for (int s = 0; s < samples; ++s) {
      int const n = int(std::min<long>(cfg.sample_every, cfg.steps - step));
      // One instantiation per stepper and noise law, chosen here from the run-time settings.
      auto launch = [&](auto stepper, auto law) {
        detail::advance<decltype(stepper)::value, decltype(law)::value>(
            space, system, sweep, paths, cfg.seed, g0, Real(cfg.dt), inc, step, n, cfg.average_from, x, wind, acc);
      };
      auto with_law = [&](auto stepper) {
        if (cfg.noise == NoiseLaw::five_point)
          launch(stepper, std::integral_constant<NoiseLaw, NoiseLaw::five_point>{});
        else
          launch(stepper, std::integral_constant<NoiseLaw, NoiseLaw::gaussian>{});
      };
      // A Stratonovich system instantiates only the schemes that apply to it (checked above).
      if constexpr (is_stratonovich<System>()) {
        if (cfg.stepper == Stepper::milstein)
          with_law(std::integral_constant<Stepper, Stepper::milstein>{});
        else
          with_law(std::integral_constant<Stepper, Stepper::srk2>{});
      } else {
        if (cfg.stepper == Stepper::euler_maruyama)
          with_law(std::integral_constant<Stepper, Stepper::euler_maruyama>{});
        else if (cfg.stepper == Stepper::milstein)
          with_law(std::integral_constant<Stepper, Stepper::milstein>{});
        else if (cfg.stepper == Stepper::weak2)
          with_law(std::integral_constant<Stepper, Stepper::weak2>{});
        else
          with_law(std::integral_constant<Stepper, Stepper::srk2>{});
      }
      step += n;
      r.sample_steps.push_back(step);
      sums(value, Kokkos::subview(moments, s, Kokkos::ALL, Kokkos::ALL));
      statistics.sample(s, step, value, x, system, sweep);
      if constexpr (wrapped_of<System>() >= 0) density.sample(s, x, wind, wrapped_of<System>(), double(period), g0);
      if (clock.seconds() - last_report >= 0.5 || s + 1 == samples) {
        space.fence("parity::sde::progress");
        last_report = clock.seconds();
        progress.update({label + " steps", step, -1.0, last_report, std::to_string(total) + " paths", cfg.steps});
      }
    }
    r.steps_done = step;
  }

  timing::ScopedPhase<ExecSpace> phase(space, times, "parity::" + label + "::observables");
  // Moments at each sample -> mean, variance (population variance over the paths of one point).
  auto mh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), moments);
  r.mean.resize(std::size_t(samples) * P * dim);
  r.variance.resize(r.mean.size());
  for (int s = 0; s < samples; ++s)
    for (int p = 0; p < P; ++p)
      for (int k = 0; k < dim; ++k) {
        double const m = mh(s, p, 2 * k) / paths, m2 = mh(s, p, 2 * k + 1) / paths;
        std::size_t const i = (std::size_t(s) * P + p) * dim + k;
        r.mean[i] = m;
        r.variance[i] = std::max(0.0, m2 - m * m);
      }
  // Time averages per path -> their mean and standard error per sweep point.
  long const averaged = std::max(0L, cfg.steps - std::max(0L, cfg.average_from));
  r.time_average.assign(std::size_t(P) * dim, 0.0);
  r.time_average_error.assign(std::size_t(P) * dim, 0.0);
  if (averaged > 0 && !any_time_averaged<System>()) {
    r.time_average.assign(r.time_average.size(), std::nan(""));
    r.time_average_error.assign(r.time_average.size(), std::nan(""));
  } else if (averaged > 0) {
    Kokkos::View<double**, Mem> tsum(Kokkos::view_alloc(space, "parity::sde::time_average_sums"), P, 2 * dim);
    sums(detail::ScaledValue<Mem>{acc, 1.0 / double(averaged)}, tsum);
    auto th = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tsum);
    for (int p = 0; p < P; ++p)
      for (int k = 0; k < dim; ++k) {
        double const m = th(p, 2 * k) / paths, m2 = th(p, 2 * k + 1) / paths;
        r.time_average[p * dim + k] = m;
        r.time_average_error[p * dim + k] = paths > 1 ? std::sqrt(std::max(0.0, m2 - m * m) / (paths - 1)) : 0.0;
        if (!time_averaged<System>(k)) r.time_average[p * dim + k] = r.time_average_error[p * dim + k] = std::nan("");
      }
  }
  statistics.finish(value, r);
  density.finish(r);
  // Histogram of the wrapped component (mod period) at the end.
  if constexpr (wrapped_of<System>() >= 0) {
    if (r.bins > 0) {
      int const bins = r.bins;
      Kokkos::View<int**, Mem> hist(Kokkos::view_alloc(space, "parity::sde::histogram"), P, bins);
      Kokkos::Experimental::ScatterView<int**, typename Kokkos::View<int**, Mem>::array_layout, ExecSpace> scatter(
          hist);
      Real const L = period;
      Kokkos::parallel_for(
          "parity::sde::histogram", Kokkos::RangePolicy<ExecSpace>(space, 0, local), KOKKOS_LAMBDA(int l) {
            auto h = scatter.access();
            int b = int(x(l, int(wrapped_of<System>())) / L * Real(bins));
            b = b < 0 ? 0 : (b >= bins ? bins - 1 : b);
            h((g0 + l) / paths, b) += 1;
          });
      Kokkos::Experimental::contribute(hist, scatter);
      auto hh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hist);
      std::vector<std::int64_t> counts(std::size_t(P) * bins);
      for (int p = 0; p < P; ++p)
        for (int b = 0; b < bins; ++b) counts[std::size_t(p) * bins + b] = hh(p, b);
      if (nranks > 1) cfg.ranks.sum(counts);  // integer counts: exact in any order
      r.histogram.assign(counts.begin(), counts.end());
    }
  }
  return r;
}

}  // namespace parity::sde
