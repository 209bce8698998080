#pragma once
// The mean-field Kuramoto passes (kuramoto.hpp): one Euler pass, or the SRK2 predictor and
// corrector passes, each updating the phases and adding the sums of the new ones.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "parity/random/philox.hpp"
#include "parity/sde/detail/kuramoto_phase.hpp"
#include "parity/sde/detail/kuramoto_sums.hpp"
#include "parity/sde/kuramoto_config.hpp"
#include "parity/sde/stepper.hpp"

#include "parity/timing/scoped_phase.hpp"

// Launch bounds of the mean-field passes: blocks of 256 threads per multiprocessor (0: none, the
// compiler's register choice). Measured on an H200 at 2^24 oscillators: float 8
// (<= 32 registers) takes the SRK2 step from 264 to 228 us (the predictor used 72 registers,
// 37.5 % occupancy; perf/results/cubature-hcubature-h200 and
// kuramoto-cubature-batches-h200); the corrector takes them too. Double: the noise pass
// at 3 (<= 80 registers, 268 us a predictor against 275-276 us at 96 registers) and the corrector
// at 4 (<= 64; without a bound it took 68, three blocks per multiprocessor), in
// perf/results/one-rank-exact-sums-h200; both passes at 6 or 8 blocks took 14 % or 25 % longer
// (the 2026-11-23 folders above).
#ifndef PARITY_SDE_KURAMOTO_FLOAT_MIN_BLOCKS
#define PARITY_SDE_KURAMOTO_FLOAT_MIN_BLOCKS 8
#endif
#ifndef PARITY_SDE_KURAMOTO_DOUBLE_MIN_BLOCKS
#define PARITY_SDE_KURAMOTO_DOUBLE_MIN_BLOCKS 3
#endif

namespace parity::sde::detail {

// x and omega of this rank's oscillators (slots of `lay`; a slot past the last oscillator holds 0).
template <class ExecSpace, class Real>
void mean_field_initialize(ExecSpace const& space, KuramotoConfig const& c, MeanFieldLayout const& lay,
                           Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                           Kokkos::View<Real*, typename ExecSpace::memory_space> const& omega) {
  std::uint64_t const seed = c.seed;
  Real const om = Real(c.omega_mean), spread = Real(c.omega_spread);
  Kokkos::parallel_for(
      "parity::sde::kuramoto_initialize", Kokkos::RangePolicy<ExecSpace>(space, 0, lay.slots()), KOKKOS_LAMBDA(int l) {
        int const i = lay.oscillator(l);
        if (i >= lay.n) {
          x(l) = 0, omega(l) = 0;
          return;
        }
        random::PhiloxStream<Real> rng(seed, std::uint64_t(i) | initial_state_stream_bit);
        x(l) = wrap_phase(Real(2) * Kokkos::numbers::pi_v<Real> * rng.uniform());
        omega(l) = om + spread * rng.normal();
      });
}

// S, C of the phases x of all ranks into m.current() (each team adds its chunk's sums).
template <class ExecSpace, class Real>
void mean_field_phase_sums(ExecSpace const& space, MeanFieldLayout const& lay,
                           Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                           MeanFieldSums<ExecSpace>& m) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  auto const out = m.next();
  Kokkos::parallel_for(
      "parity::sde::kuramoto_sums", mean_field_teams<Policy>(space, lay.chunks()),
      KOKKOS_LAMBDA(typename Policy::member_type const& team) {
        int const tb = lay.t0 + team.league_rank() * lay.chunk_units;
        int const te = tb + lay.chunk_units < lay.t0 + lay.units ? tb + lay.chunk_units : lay.t0 + lay.units;
        Sums<2> s;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, tb, te),
            [&](int t, Sums<2>& acc) {
              for (int k = 0; k < lay.per_block; ++k)
                if (t + k * lay.blocks < lay.n) add_phase(acc, x(lay.slot(t, k)));
            },
            s);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { out.add(s); });
      });
  m.advance(space);
}

// One mean-field step from `step`: reads the sums of the current phases from m.current(), leaves
// those of the new phases there. Euler: one pass. SRK2: the predictor pass draws the noise and
// evaluates the drift at x_i once, and keeps what the corrector needs, y_i = x_i + f0 dt/2 + g dW
// and the predicted phase xp_i (two Reals per oscillator written and read back, instead of a
// second Philox block, log, sqrt and sincos for the noise and a second sincos for f0 per
// oscillator); the corrector pass x_i = y_i + f1(xp_i) dt/2 then reads y, xp and writes x.
// Each pass has one team per chunk of units; every thread of a team reads the sums the pass
// starts from once, and the team adds its chunk's sums of the new phases to the pass's row of
// counters (MeanFieldSums), and team 0 clears the row the next pass adds into.
template <Stepper S, class ExecSpace, class Real, class Noise>
void mean_field_step(ExecSpace const& space, MeanFieldLayout const& lay,
                     Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                     OmegaOf<ExecSpace, Real> const& omega, long step, Real dt, Real k_over_n, Real inv_gamma,
                     Noise const& noise, MeanFieldSums<ExecSpace>& m,
                     Kokkos::View<Real*, typename ExecSpace::memory_space> const& y = {},
                     Kokkos::View<Real*, typename ExecSpace::memory_space> const& xp = {}) {
  constexpr int per_block = Noise::per_block;
  int const n = lay.n, blocks = noise.blocks, t_end = lay.t0 + lay.units;
  int const t_begin = lay.t0, units = lay.units, chunk_units = lay.chunk_units;
  Real const half_dt = Real(0.5) * dt;
  // Both passes run one thread per Philox block: oscillators t + k M, k < per_block. Launch
  // bounds (GPU backends only; see PARITY_SDE_KURAMOTO_FLOAT_MIN_BLOCKS).
  constexpr unsigned min_blocks =
      std::is_same_v<Real, float> ? PARITY_SDE_KURAMOTO_FLOAT_MIN_BLOCKS : PARITY_SDE_KURAMOTO_DOUBLE_MIN_BLOCKS;
  using PassBounds = Kokkos::LaunchBounds<(min_blocks > 0 ? 256 : 0), min_blocks>;
  using Policy = Kokkos::TeamPolicy<ExecSpace, PassBounds>;
  constexpr unsigned correct_min_blocks = std::is_same_v<Real, float> ? min_blocks : 4;  // double: see above
  using CorrectPolicy =
      Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<(correct_min_blocks > 0 ? 256 : 0), correct_min_blocks>>;
  using Member = typename Policy::member_type;
  // The noise pass: SRK2's predictor (keeps y and the predicted phase, sums the latter) or the
  // whole Euler step (sums the new phase).
  constexpr bool srk2 = S == Stepper::srk2;
  auto const noise_in = m.current(), noise_out = m.next(), noise_spare = m.spare();
  Kokkos::parallel_for(
      srk2 ? "parity::sde::kuramoto_mean_field_predict" : "parity::sde::kuramoto_mean_field_step",
      mean_field_teams<Policy>(space, lay.chunks()), KOKKOS_LAMBDA(Member const& team) {
        int const tb = t_begin + team.league_rank() * chunk_units;
        int const te = tb + chunk_units < t_end ? tb + chunk_units : t_end;
        if (team.league_rank() == 0) Kokkos::single(Kokkos::PerTeam(team), [&]() { noise_spare.clear(); });
        Sums<2> const s0 = noise_in.value();
        Real const s0_sin = Real(s0.v[0]), s0_cos = Real(s0.v[1]);
        Sums<2> chunk;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, tb, te),
            [&](int t, Sums<2>& acc) {
              // Every load first: the stores below may alias them in the compiler's view, which
              // otherwise issued each oscillator's load only after the previous one's stores (four
              // memory latencies in turn per thread); here they overlap the Philox block as well.
              Real xs[per_block], om[per_block];
              for (int k = 0; k < per_block; ++k) {
                int const i = t + k * blocks, l = (t - t_begin) + k * units;
                xs[k] = i < n ? x(l) : Real(0);
                om[k] = i < n ? omega(l) : Real(0);
              }
              Real gdw[per_block];
              noise.block(step, t, gdw);
              for (int k = 0; k < per_block; ++k) {
                int const i = t + k * blocks, l = (t - t_begin) + k * units;
                if (i >= n) break;
                Real const xi = xs[k];
                Real const f0 = mean_field_drift(xi, om[k], k_over_n, inv_gamma, s0_sin, s0_cos);
                Real const p = xi + f0 * dt + gdw[k];
                if (srk2) {  // a constant; not `if constexpr`: nvcc's extended lambdas may not first-capture there
                  y(l) = xi + f0 * half_dt + gdw[k];
                  xp(l) = p;
                  add_phase(acc, p);
                } else {
                  Real const xn = wrap_phase(p);
                  x(l) = xn;
                  add_phase(acc, xn);
                }
              }
            },
            chunk);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { noise_out.add(chunk); });
      });
  m.advance(space);
  if constexpr (srk2) {
    // The same oscillators per thread as the predictor, loads first (one oscillator per thread
    // left each thread one load in flight; the predicted sums were also reloaded per oscillator).
    auto const correct_in = m.current(), correct_out = m.next(), correct_spare = m.spare();
    Kokkos::parallel_for(
        "parity::sde::kuramoto_mean_field_correct", mean_field_teams<CorrectPolicy>(space, lay.chunks()),
        KOKKOS_LAMBDA(typename CorrectPolicy::member_type const& team) {
          int const tb = t_begin + team.league_rank() * chunk_units;
          int const te = tb + chunk_units < t_end ? tb + chunk_units : t_end;
          if (team.league_rank() == 0) Kokkos::single(Kokkos::PerTeam(team), [&]() { correct_spare.clear(); });
          Sums<2> const s1 = correct_in.value();
          Real const s1_sin = Real(s1.v[0]), s1_cos = Real(s1.v[1]);
          Sums<2> chunk;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, tb, te),
              [&](int t, Sums<2>& acc) {
                Real ys[per_block], ps[per_block], om[per_block];
                for (int k = 0; k < per_block; ++k) {
                  int const i = t + k * blocks, l = (t - t_begin) + k * units;
                  ys[k] = i < n ? y(l) : Real(0);
                  ps[k] = i < n ? xp(l) : Real(0);
                  om[k] = i < n ? omega(l) : Real(0);
                }
                for (int k = 0; k < per_block; ++k) {
                  int const i = t + k * blocks, l = (t - t_begin) + k * units;
                  if (i >= n) break;
                  Real const f1 = mean_field_drift(ps[k], om[k], k_over_n, inv_gamma, s1_sin, s1_cos);
                  Real const xn = wrap_phase(ys[k] + f1 * half_dt);
                  x(l) = xn;
                  add_phase(acc, xn);
                }
              },
              chunk);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { correct_out.add(chunk); });
        });
    m.advance(space);
  }
}

// sin x_j, cos x_j of two neighbouring columns of an all-pairs tile (2j, 2j + 1 of the tile), aligned
// so that one 16-byte (float) or two (double) shared-memory loads fetch both; an odd tile's last

}  // namespace parity::sde::detail
