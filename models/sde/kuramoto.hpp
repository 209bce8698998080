#pragma once
// The noisy Kuramoto model of Januszewski & Kostur (2010):
//   gamma x_i' = omega_i + sum_j K_ij sin(x_j - x_i) + sqrt(2 gamma D) xi_i(t),  i = 1..N,
// one realization of N oscillators, integrated by Euler-Maruyama or SRK2 (stepper.hpp) with two
// kernels for the coupling:
//  - all pairs, O(N^2) per step: teams own a tile of oscillators and sweep the others through
//    tiles in team scratch memory (the paper's PROG2); K_ij a matrix or the constant K / N;
//  - mean field, K_ij = K / N: sum_j sin(x_j - x_i) = cos x_i S - sin x_i C with S = sum sin x_j,
//    C = sum cos x_j (PROG3). Each Euler step is one pass that updates x_i and reduces the next
//    S, C; an SRK2 step is two passes (predictor: noise, drift, predicted phase and its sums;
//    corrector: update + sums), two global reductions per step being what SRK2 needs.
// Noise (KuramotoNoise): the variate of oscillator i at step s is a variate of stream s (a normal,
// or a five-point variate with --noise-law five-point), numbered so that one unit of variates serves
// several oscillators of one step (noise.hpp); the same on every
// backend and for both kernels, so the two kernels integrate the same realization. Phases are kept in [0, 2 pi); sin
// and cos by sincos_2pi (trig.hpp) of x / (2 pi). Sums S, C are accumulated in double for both precisions. With
// identical natural frequencies (omega_spread = 0) the kernels do not read omega_i.
// All pairs uses sin(x_j - x_i) = sin x_j cos x_i - cos x_j sin x_i: each team tile holds sin x_j,
// cos x_j (computed once per tile), and row i accumulates A_i = sum_j K_ij sin x_j,
// B_i = sum_j K_ij cos x_j; the drift is cos x_i A_i - sin x_i B_i. O(N) transcendentals, O(N^2)
// multiply-adds (adds only for constant K_ij = K / N, factored out).
//
// Sums and ranks. The mean-field sums S, C do not depend on how the work is split: the M noise
// units (one thread each, below) are cut into chunks of mean_field_chunk_units<ExecSpace>(M, wave),
// each chunk is reduced by one team in an order set by the team size, and the chunk sums are added
// exactly, as 128-bit fixed-point integers (algorithms/exact_sum.hpp), so in any order: each team
// adds its chunk's sums with atomic integer additions at the end of the pass, and the next pass
// reads them (MeanFieldSums). No kernel runs between passes. Across ranks (KuramotoConfig::ranks)
// each rank owns a contiguous run of chunks, so its oscillators are those of its units
// (MeanFieldLayout), and the integer counters of all ranks are summed after each pass through host
// memory, 128 bytes per pass. Every rank's noise and initial state are keyed by the global
// oscillator index, so r(t), psi(t) and the histograms (integer counts, summed over ranks) are
// bit-identical for any rank count on a backend
// and team size. All pairs keeps every phase on every rank: each rank computes the drift and
// update of a contiguous run of row tiles, and the new phases are all-gathered after every stage
// (N values per stage); row i's sum runs over the same columns in the same order as on one rank,
// and r(t) and the histogram are computed from the full phases on every rank, so all pairs is
// bit-identical to one rank as well.
#include <Kokkos_Core.hpp>
#include <Kokkos_ScatterView.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "models/sde/ensemble.hpp"
#include "models/sde/kuramoto_sums.hpp"
#include "models/sde/noise.hpp"
#include "models/sde/result.hpp"
#include "models/sde/stepper.hpp"
#include "models/sde/trig.hpp"
#include "parity/random/philox.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/timing/scoped_phase.hpp"

// Launch bounds of the mean-field passes: blocks of 256 threads per multiprocessor (0: none, the
// compiler's register choice). Measured on an H200 at 2^24 oscillators: float 8
// (<= 32 registers) takes the SRK2 step from 264 to 228 us (the predictor used 72 registers,
// 37.5 % occupancy; perf/results/2026-11-23-h200-cubature-hcubature and
// 2026-11-23-h200-kuramoto-cubature-batches); the corrector takes them too. Double: the noise pass
// at 3 (<= 80 registers, 268 us a predictor against 275-276 us at 96 registers) and the corrector
// at 4 (<= 64; without a bound it took 68, three blocks per multiprocessor), in
// perf/results/2026-11-26-h200-one-gpu-4; both passes at 6 or 8 blocks took 14 % or 25 % longer
// (the 2026-11-23 folders above).
#ifndef PARITY_SDE_KURAMOTO_FLOAT_MIN_BLOCKS
#define PARITY_SDE_KURAMOTO_FLOAT_MIN_BLOCKS 8
#endif
#ifndef PARITY_SDE_KURAMOTO_DOUBLE_MIN_BLOCKS
#define PARITY_SDE_KURAMOTO_DOUBLE_MIN_BLOCKS 3
#endif

namespace parity::sde {

enum class Coupling { mean_field, all_pairs };

struct KuramotoConfig {
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
  EnsembleRanks ranks;  // one rank unless set (see the top of this file)
};

namespace detail {

// sin x, cos x of a phase in radians.
template <class Real>
KOKKOS_INLINE_FUNCTION void sincos_phase(Real x, Real& s, Real& c) {
  constexpr Real inv_two_pi = Real(0.5) * Kokkos::numbers::inv_pi_v<Real>;
  sincos_2pi(x * inv_two_pi, s, c);
}

// Adds sin x and cos x of a phase to the order-parameter sums (v[0]: sin, v[1]: cos).
template <class Real>
KOKKOS_INLINE_FUNCTION void add_phase(Sums<2>& acc, Real x) {
  Real sn, cs;
  sincos_phase(x, sn, cs);
  acc.v[0] += double(sn);
  acc.v[1] += double(cs);
}

// omega_i, or the common value when all are equal (no memory read).
template <class Real, class View>
struct Omega {
  View omega;
  Real common;
  bool uniform;
  KOKKOS_INLINE_FUNCTION Real operator()(int i) const { return uniform ? common : omega(i); }
};

template <class Real>
KOKKOS_INLINE_FUNCTION Real wrap_phase(Real y) {
  Real const two_pi = Real(2) * Kokkos::numbers::pi_v<Real>;
  if (y >= two_pi || y < Real(0)) y -= Kokkos::floor(y / two_pi) * two_pi;
  return y >= two_pi ? Real(0) : y;
}

template <class ExecSpace, class Real>
void kuramoto_initialize(ExecSpace const& space, KuramotoConfig const& c,
                         Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                         Kokkos::View<Real*, typename ExecSpace::memory_space> const& omega) {
  std::uint64_t const seed = c.seed;
  Real const om = Real(c.omega_mean), spread = Real(c.omega_spread);
  Kokkos::parallel_for(
      "parity::sde::kuramoto_initialize", Kokkos::RangePolicy<ExecSpace>(space, 0, c.n), KOKKOS_LAMBDA(int i) {
        random::PhiloxStream<Real> rng(seed, std::uint64_t(i) | initial_state_stream_bit);
        x(i) = wrap_phase(Real(2) * Kokkos::numbers::pi_v<Real> * rng.uniform());
        omega(i) = om + spread * rng.normal();
      });
}

template <class ExecSpace, class Real>
void kuramoto_sums(ExecSpace const& space, Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                   SinCos<typename ExecSpace::memory_space> const& out) {
  Kokkos::parallel_reduce(
      "parity::sde::kuramoto_sums", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(int i, Sums<2>& s) { add_phase(s, x(i)); },
      Kokkos::Sum<Sums<2>, typename ExecSpace::memory_space>(out));
}

// Mean-field drift of oscillator i: (omega_i + (K/N)(cos x S - sin x C)) / gamma.
template <class Real>
KOKKOS_INLINE_FUNCTION Real mean_field_drift(Real xi, Real omega_i, Real k_over_n, Real inv_gamma, Real S, Real C) {
  Real sn, cs;
  sincos_phase(xi, sn, cs);
  return (omega_i + k_over_n * (cs * S - sn * C)) * inv_gamma;
}

template <class ExecSpace, class Real>
using OmegaOf = Omega<Real, Kokkos::View<Real*, typename ExecSpace::memory_space>>;

// g dW of oscillator i at step s: with B variates per thread (one unit, noise.hpp; gaussian: the
// normals of a Philox block, 4 float, 2 double; five-point: 4, 16 bits of a Philox block) and
// M = ceil(N / B), variate B (i % M) + i / M of stream s. The B variates of thread t (gaussian:
// one Philox call, B / 2 Box-Muller pairs) serve oscillators t, t + M, ..., t + (B - 1) M, which
// mean-field thread t updates; neighbouring threads touch neighbouring phases (coalesced). One
// step uses one variate per oscillator, so numbering them along the step's stream rather than
// along each oscillator's own stream is what lets a Philox block be shared (a Philox block per
// normal was most of the mean-field kernel's instructions).
template <NoiseLaw Law, class Real>
struct KuramotoNoise {
  // One unit per thread. Five-point with two units (8 oscillators per thread from one Philox
  // block) was slower on an H200: 340 against 213 us per SRK2 step in float at 2^24, the float
  // passes spilling under their 32-register cap, double at 114-144 registers
  // (perf/results/2026-11-23-h200-sde-five-point).
  static constexpr int per_block = variates_per_unit<Law, Real>;
  std::uint64_t seed;
  int blocks;  // M
  Real scale;  // g sqrt(dt)
  KuramotoNoise(std::uint64_t seed_, int n, Real scale_)
      : seed(seed_), blocks((n + per_block - 1) / per_block), scale(scale_) {}
  // Position of oscillator i's normal in its step's stream.
  KOKKOS_INLINE_FUNCTION std::uint64_t index(int i) const {
    return std::uint64_t(per_block) * std::uint64_t(i % blocks) + std::uint64_t(i / blocks);
  }
  // g dW of oscillator i alone (gaussian: one Philox block, the one Box-Muller half it needs).
  KOKKOS_INLINE_FUNCTION Real one(long step, int i) const {
    return scale * variate_at<Law, Real>(seed, std::uint64_t(step), index(i));
  }
  // g dW of the oscillators of unit t: gdw[k] is oscillator t + k M's.
  KOKKOS_INLINE_FUNCTION void block(long step, int t, Real (&gdw)[per_block]) const {
    variate_unit<Law, Real>(seed, std::uint64_t(step), std::uint64_t(t), gdw, scale);
  }
};

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
// quad has s1 = c1 = 0 (adding zeros changes no sum).
template <class Real>
struct alignas(4 * sizeof(Real) <= 16 ? 4 * sizeof(Real) : 16) SinCosQuad {
  Real s0, c0, s1, c1;
};

// All-pairs drift: f(i) = (omega_i + sum_j K_ij sin(x_j - x_i)) / gamma with K_ij = kmat(i, j) or,
// when kmat is empty, k_over_n, by the identity sum_j K_ij sin(x_j - x_i) = cos x_i A_i - sin x_i B_i,
// A_i = sum_j K_ij sin x_j, B_i = sum_j K_ij cos x_j. Teams own `tile` rows; columns stream through
// team scratch as (sin x_j, cos x_j) pairs of columns (SinCosQuad), computed once per tile. Per row
// four accumulators (even and odd columns of A and B: independent add chains, combined at the end
// of each tile); the constant-K loop takes two quads (four columns) per iteration, the same
// additions in the same order as one column at a time. Rows [row_begin, row_end) only (a rank's
// share; all rows by default); every row sums over all columns.
template <class ExecSpace, class Real>
void all_pairs_drift(ExecSpace const& space, Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                     OmegaOf<ExecSpace, Real> const& omega,
                     Kokkos::View<Real**, typename ExecSpace::memory_space> const& kmat, Real k_over_n, Real inv_gamma,
                     int tile, Kokkos::View<Real*, typename ExecSpace::memory_space> const& f,
                     Kokkos::View<Real**, typename ExecSpace::memory_space> const& part_a = {},
                     Kokkos::View<Real**, typename ExecSpace::memory_space> const& part_b = {}, int row_begin = 0,
                     int row_end = -1) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Quads = Kokkos::View<SinCosQuad<Real>*, typename ExecSpace::scratch_memory_space,
                             Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Scratch =
      Kokkos::View<Real*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  int const n = int(x.extent(0));
  if (row_end < 0) row_end = n;
  int const tiles = (n + tile - 1) / tile, row_tiles = (row_end - row_begin + tile - 1) / tile;
  int const splits = part_a.extent(0) > 1 ? int(part_a.extent(0)) : 1;  // column shares per row tile
  int const max_quads = (tile + 1) / 2;
  bool const matrix = kmat.extent(0) > 0;
  std::size_t const bytes = Quads::shmem_size(max_quads) + 2 * Scratch::shmem_size(tile);
  Kokkos::parallel_for(
      "parity::sde::kuramoto_all_pairs",
      Policy(space, row_tiles * splits, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(Member const& team) {
        Quads col(team.team_scratch(0), max_quads);
        Scratch sum_a(team.team_scratch(0), tile), sum_b(team.team_scratch(0), tile);
        int const share = team.league_rank() % splits;
        int const i0 = row_begin + (team.league_rank() / splits) * tile;
        int const rows = row_end - i0 < tile ? row_end - i0 : tile;
        // Column tiles [t0, t1) of this share.
        int const t0 = int(long(tiles) * share / splits), t1 = int(long(tiles) * (share + 1) / splits);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int r) { sum_a(r) = 0, sum_b(r) = 0; });
        for (int j0 = t0 * tile; j0 < t1 * tile && j0 < n; j0 += tile) {
          int const cols = n - j0 < tile ? n - j0 : tile;
          int const quads = (cols + 1) / 2;
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, quads), [&](int q) {
            SinCosQuad<Real> p;
            sincos_phase(x(j0 + 2 * q), p.s0, p.c0);
            if (2 * q + 1 < cols)
              sincos_phase(x(j0 + 2 * q + 1), p.s1, p.c1);
            else
              p.s1 = 0, p.c1 = 0;
            col(q) = p;
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int r) {
            // Even columns into a0, b0, odd columns into a1, b1.
            Real a0 = 0, a1 = 0, b0 = 0, b1 = 0;
            if (matrix) {
              int const even = cols / 2;  // whole quads
              for (int q = 0; q < even; ++q) {
                SinCosQuad<Real> const p = col(q);
                Real const k0 = kmat(i0 + r, j0 + 2 * q), k1 = kmat(i0 + r, j0 + 2 * q + 1);
                a0 += k0 * p.s0, b0 += k0 * p.c0;
                a1 += k1 * p.s1, b1 += k1 * p.c1;
              }
              if (2 * even < cols) {
                Real const k0 = kmat(i0 + r, j0 + 2 * even);
                a0 += k0 * col(even).s0, b0 += k0 * col(even).c0;
              }
            } else {
              int q = 0;
              for (; q + 1 < quads; q += 2) {
                SinCosQuad<Real> const p = col(q), u = col(q + 1);
                a0 += p.s0, b0 += p.c0, a1 += p.s1, b1 += p.c1;
                a0 += u.s0, b0 += u.c0, a1 += u.s1, b1 += u.c1;
              }
              if (q < quads) {
                SinCosQuad<Real> const p = col(q);
                a0 += p.s0, b0 += p.c0, a1 += p.s1, b1 += p.c1;
              }
            }
            sum_a(r) += a0 + a1;
            sum_b(r) += b0 + b1;
          });
        }
        team.team_barrier();
        Real const scale = matrix ? Real(1) : k_over_n;
        if (splits > 1) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int r) {
            part_a(share, i0 + r) = sum_a(r);
            part_b(share, i0 + r) = sum_b(r);
          });
        } else {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int r) {
            Real sn, cs;
            sincos_phase(x(i0 + r), sn, cs);
            f(i0 + r) = (omega(i0 + r) + scale * (cs * sum_a(r) - sn * sum_b(r))) * inv_gamma;
          });
        }
      });
  if (splits > 1) {
    // The shares' partial sums added in a fixed order: the same result on every run.
    Real const scale = matrix ? Real(1) : k_over_n;
    Kokkos::parallel_for(
        "parity::sde::kuramoto_all_pairs_combine", Kokkos::RangePolicy<ExecSpace>(space, row_begin, row_end),
        KOKKOS_LAMBDA(int i) {
          Real a = 0, b = 0;
          for (int c = 0; c < splits; ++c) a += part_a(c, i), b += part_b(c, i);
          Real sn, cs;
          sincos_phase(x(i), sn, cs);
          f(i) = (omega(i) + scale * (cs * a - sn * b)) * inv_gamma;
        });
  }
}

// Column shares per row tile for all pairs: enough teams x tile rows to give every hardware thread
// the execution space reports (ExecSpace::concurrency(): on a GPU, resident threads) about two
// rows' worth of work, at most 16 and at most the number of column tiles; 1 on host backends
// (whose concurrency is far below N). `requested` > 0 overrides.
template <class ExecSpace>
int all_pairs_splits(ExecSpace const& space, int n, int tile, int requested) {
  int const tiles = (n + tile - 1) / tile;
  int s = requested > 0 ? requested : int((2L * space.concurrency() + n - 1) / n);
  return std::clamp(s, 1, std::min(16, tiles));
}

// out(i) = x(i) + a * (f0(i) [+ f1(i)]) + g dW_i(step), wrapped when `wrap`, for i in [begin, end)
// (all by default).
template <class ExecSpace, class Real, class Noise>
void all_pairs_update(ExecSpace const& space, Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                      Kokkos::View<Real*, typename ExecSpace::memory_space> const& f0,
                      Kokkos::View<Real*, typename ExecSpace::memory_space> const& f1, Real a, Noise const& noise,
                      long step, bool wrap, Kokkos::View<Real*, typename ExecSpace::memory_space> const& out,
                      int begin = 0, int end = -1) {
  bool const two = f1.extent(0) > 0;
  Kokkos::parallel_for(
      "parity::sde::kuramoto_all_pairs_update",
      Kokkos::RangePolicy<ExecSpace>(space, begin, end < 0 ? int(x.extent(0)) : end), KOKKOS_LAMBDA(int i) {
        Real const gdw = noise.one(step, i);
        Real y = two ? x(i) + (f0(i) + f1(i)) * a + gdw : x(i) + f0(i) * a + gdw;
        out(i) = wrap ? wrap_phase(y) : y;
      });
}

// Order parameter (r, psi) from the sums S, C (sums.value()), and the histogram of x mod 2 pi, into
// row s. With a mean-field layout, x holds its slots (the histogram counts this rank's oscillators
// only), and r divides by all ranks' oscillators.
template <class ExecSpace, class Real, class SumsIn>
void kuramoto_record(ExecSpace const& space, Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                     SumsIn const& sums, int s, int bins,
                     Kokkos::View<double**, typename ExecSpace::memory_space> const& order,
                     Kokkos::View<int**, typename ExecSpace::memory_space> const& hist,
                     MeanFieldLayout const* layout = nullptr) {
  using Mem = typename ExecSpace::memory_space;
  int const n = layout ? layout->n : int(x.extent(0));
  bool const slots = layout != nullptr;
  MeanFieldLayout const lay = layout ? *layout : MeanFieldLayout{};
  Kokkos::parallel_for(
      "parity::sde::kuramoto_order", Kokkos::RangePolicy<ExecSpace>(space, 0, 1), KOKKOS_LAMBDA(int) {
        Sums<2> const v = sums.value();
        order(s, 0) = Kokkos::sqrt(v.v[0] * v.v[0] + v.v[1] * v.v[1]) / double(n);
        order(s, 1) = Kokkos::atan2(v.v[0], v.v[1]);
      });
  if (bins <= 0) return;
  Kokkos::View<int*, Mem> row(Kokkos::view_alloc(space, "parity::sde::kuramoto_histogram_row"), bins);
  Kokkos::Experimental::ScatterView<int*, typename Kokkos::View<int*, Mem>::array_layout, ExecSpace> scatter(row);
  Real const to_bin = Real(bins) / (Real(2) * Kokkos::numbers::pi_v<Real>);
  Kokkos::parallel_for(
      "parity::sde::kuramoto_histogram", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)), KOKKOS_LAMBDA(int i) {
        if (slots && lay.oscillator(i) >= lay.n) return;
        auto h = scatter.access();
        int b = int(x(i) * to_bin);
        b = b < 0 ? 0 : (b >= bins ? bins - 1 : b);
        h(b) += 1;
      });
  Kokkos::Experimental::contribute(row, scatter);
  Kokkos::parallel_for(
      "parity::sde::kuramoto_histogram_store", Kokkos::RangePolicy<ExecSpace>(space, 0, bins),
      KOKKOS_LAMBDA(int b) { hist(s, b) = row(b); });
}

}  // namespace detail

template <class ExecSpace, class Real>
KuramotoResult integrate_kuramoto(ExecSpace const& space, KuramotoConfig const& c, run::Progress& progress,
                                  run::PhaseTimes& times,
                                  Kokkos::View<Real**, typename ExecSpace::memory_space> const& kmat = {}) {
  using Mem = typename ExecSpace::memory_space;
  int const n = c.n, samples = int((c.steps + c.sample_every - 1) / c.sample_every);
  int const nranks = c.ranks.size > 1 ? c.ranks.size : 1, rank = nranks > 1 ? c.ranks.rank : 0;
  bool const mean_field = c.coupling == Coupling::mean_field;
  KuramotoResult r;
  r.samples = samples;
  r.bins = c.bins;
  // Mean field: this rank's slots (see the top of this file). All pairs: every phase on every rank,
  // this rank's rows [row0, row1) (whole tiles).
  int const per_block = c.noise == NoiseLaw::five_point ? variates_per_unit<NoiseLaw::five_point, Real>
                                                        : variates_per_unit<NoiseLaw::gaussian, Real>;
  // The mean field's chunk size from the smallest device of all ranks (the same on every rank).
  long wave = detail::mean_field_wave(space);
  if (mean_field && nranks > 1) {
    std::vector<double> mine{double(wave)}, all(std::size_t(nranks), 0.0);
    c.ranks.all_gather(mine, all);
    wave = long(*std::min_element(all.begin(), all.end()));
  }
  detail::MeanFieldLayout const lay =
      detail::mean_field_layout(n, per_block, rank, nranks,
                                detail::mean_field_chunk_units<ExecSpace>((long(n) + per_block - 1) / per_block, wave));
  int const tiles = (n + c.tile - 1) / c.tile;
  int const row0 = int(std::min<long>(long(tiles) * rank / nranks * c.tile, n));
  int const row1 = int(std::min<long>(long(tiles) * (rank + 1) / nranks * c.tile, n));
  int const local = mean_field ? lay.slots() : n;
  Kokkos::View<Real*, Mem> x(Kokkos::view_alloc(space, "parity::sde::kuramoto_phase"), local);
  Kokkos::View<Real*, Mem> omega(Kokkos::view_alloc(space, "parity::sde::kuramoto_omega"), local);
  Kokkos::View<Real*, Mem> f0, f1, xp, y;
  if (mean_field && c.stepper == Stepper::srk2) {
    y = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(space, "parity::sde::kuramoto_corrector_base"), local);
    xp = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(space, "parity::sde::kuramoto_phase_predicted"), local);
  }
  Kokkos::View<Real**, Mem> part_a, part_b;
  int const splits = !mean_field ? detail::all_pairs_splits(space, n, c.tile, c.column_splits) : 1;
  if (splits > 1) {
    part_a = Kokkos::View<Real**, Mem>(Kokkos::view_alloc(space, "parity::sde::kuramoto_all_pairs_part_a"), splits, n);
    part_b = Kokkos::View<Real**, Mem>(Kokkos::view_alloc(space, "parity::sde::kuramoto_all_pairs_part_b"), splits, n);
  }
  r.column_splits = splits;
  if (!mean_field) {
    f0 = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(space, "parity::sde::kuramoto_drift"), n);
    if (c.stepper == Stepper::srk2) {
      f1 = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(space, "parity::sde::kuramoto_drift_predicted"), n);
      xp = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(space, "parity::sde::kuramoto_phase_predicted"), n);
    }
  }
  detail::SinCos<Mem> sc_all_pairs("parity::sde::kuramoto_sums_all_pairs");
  detail::MeanFieldSums<ExecSpace> sums;
  if (mean_field) sums = detail::make_mean_field_sums(space, c.ranks);
  Kokkos::View<double**, Mem> order(Kokkos::view_alloc(space, "parity::sde::kuramoto_order"), samples, 2);
  int const bins = c.bins > 0 ? c.bins : 1;
  Kokkos::View<int**, Mem> hist(Kokkos::view_alloc(space, "parity::sde::kuramoto_histogram"), samples, bins);
  // All pairs on several ranks: this rank's rows of v copied into v on every rank.
  Kokkos::View<Real*, Kokkos::HostSpace> gathered_host;
  std::vector<double> mine_rows, all_rows;
  if (!mean_field && nranks > 1) {
    gathered_host = Kokkos::View<Real*, Kokkos::HostSpace>("parity::sde::kuramoto_phases_host", n);
    mine_rows.resize(std::size_t(row1 - row0));
    all_rows.resize(std::size_t(n));
  }
  auto const gather_rows = [&](Kokkos::View<Real*, Mem> const& v) {
    if (nranks == 1) return;
    auto const mine = Kokkos::subview(gathered_host, Kokkos::pair<int, int>(row0, row1));
    Kokkos::deep_copy(space, mine, Kokkos::subview(v, Kokkos::pair<int, int>(row0, row1)));
    space.fence("parity::sde::kuramoto_rows_to_host");
    for (int i = row0; i < row1; ++i) mine_rows[std::size_t(i - row0)] = double(gathered_host(i));
    c.ranks.all_gather(mine_rows, all_rows);  // precision kept: float -> double -> float is exact
    for (int i = 0; i < n; ++i) gathered_host(i) = Real(all_rows[std::size_t(i)]);
    Kokkos::deep_copy(space, v, gathered_host);
  };

  Real const dt = Real(c.dt), k_over_n = Real(c.K / n), inv_gamma = Real(1.0 / c.gamma);
  detail::OmegaOf<ExecSpace, Real> const om{omega, Real(c.omega_mean), c.omega_spread == 0};
  Real const noise_amp = Real(std::sqrt(2.0 * c.D / c.gamma));  // x' = ... + sqrt(2 D / gamma) xi
  {
    timing::ScopedPhase<ExecSpace> phase(space, times, "parity::kuramoto::initialize");
    if (mean_field) {
      detail::mean_field_initialize<ExecSpace, Real>(space, c, lay, x, omega);
      detail::mean_field_phase_sums<ExecSpace, Real>(space, lay, x, sums);
    } else {
      detail::kuramoto_initialize<ExecSpace, Real>(space, c, x, omega);
    }
  }
  // The steps, for either noise law (a generic lambda: one instantiation per law).
  auto integrate_steps = [&](auto const& noise) {
    Kokkos::Timer clock;
    double last = -1;
    long step = 0;
    auto report = [&](long done) {
      space.fence("parity::sde::kuramoto_progress");
      last = clock.seconds();
      progress.update({"kuramoto steps", done, -1.0, last, std::to_string(n) + " oscillators", c.steps});
    };
    for (int s = 0; s < samples; ++s) {
      long const end = std::min<long>(step + c.sample_every, c.steps);
      for (; step < end; ++step) {
        if (mean_field) {
          if (c.stepper == Stepper::srk2)
            detail::mean_field_step<Stepper::srk2>(space, lay, x, om, step, dt, k_over_n, inv_gamma, noise, sums, y,
                                                   xp);
          else
            detail::mean_field_step<Stepper::euler_maruyama>(space, lay, x, om, step, dt, k_over_n, inv_gamma, noise,
                                                             sums);
        } else {
          detail::all_pairs_drift<ExecSpace, Real>(space, x, om, kmat, k_over_n, inv_gamma, c.tile, f0, part_a, part_b,
                                                   row0, row1);
          if (c.stepper == Stepper::srk2) {
            detail::all_pairs_update<ExecSpace, Real>(space, x, f0, {}, dt, noise, step, false, xp, row0, row1);
            gather_rows(xp);
            detail::all_pairs_drift<ExecSpace, Real>(space, xp, om, kmat, k_over_n, inv_gamma, c.tile, f1, part_a,
                                                     part_b, row0, row1);
            detail::all_pairs_update<ExecSpace, Real>(space, x, f0, f1, Real(0.5) * dt, noise, step, true, x, row0,
                                                      row1);
          } else {
            detail::all_pairs_update<ExecSpace, Real>(space, x, f0, {}, dt, noise, step, true, x, row0, row1);
          }
          gather_rows(x);
          // A step costs N^2 pair terms: report within a sample too, so a long sample is not silent.
          if (step + 1 < end && clock.seconds() - last >= 0.5) report(step + 1);
        }
      }
      if (mean_field) {
        detail::kuramoto_record<ExecSpace, Real>(space, x, sums.current(), s, c.bins, order, hist, &lay);
      } else {
        detail::kuramoto_sums<ExecSpace, Real>(space, x, sc_all_pairs);
        detail::kuramoto_record<ExecSpace, Real>(space, x, detail::SinCosValue<Mem>{sc_all_pairs}, s, c.bins, order,
                                                 hist);
      }
      r.sample_steps.push_back(step);
      if (clock.seconds() - last >= 0.5 || s + 1 == samples) report(step);
    }
    r.steps_done = step;
  };
  {
    timing::ScopedPhase<ExecSpace> phase(space, times, "parity::kuramoto::integrate");
    Real const scale = noise_amp * Kokkos::sqrt(dt);
    if (c.noise == NoiseLaw::five_point)
      integrate_steps(detail::KuramotoNoise<NoiseLaw::five_point, Real>(c.seed, n, scale));
    else
      integrate_steps(detail::KuramotoNoise<NoiseLaw::gaussian, Real>(c.seed, n, scale));
  }
  timing::ScopedPhase<ExecSpace> phase(space, times, "parity::kuramoto::observables");
  auto oh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), order);
  for (int s = 0; s < samples; ++s) {
    r.r.push_back(oh(s, 0));
    r.psi.push_back(oh(s, 1));
  }
  if (c.bins > 0) {
    auto hh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hist);
    std::vector<std::int64_t> counts;
    for (int s = 0; s < samples; ++s)
      for (int b = 0; b < c.bins; ++b) counts.push_back(hh(s, b));
    if (mean_field && nranks > 1) c.ranks.sum(counts);  // each rank counted its own oscillators; exact
    r.histogram.assign(counts.begin(), counts.end());
  }
  if (c.keep_positions) {
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    r.positions.assign(std::size_t(n), 0.0);
    if (!mean_field || nranks == 1) {
      for (int i = 0; i < n; ++i) r.positions[std::size_t(i)] = xh(i);  // slot i is oscillator i
    } else {
      // Every rank's slots in rank order, then each placed at its oscillator.
      std::vector<double> mine(xh.data(), xh.data() + xh.size());
      std::vector<double> all(std::size_t(per_block) * std::size_t(lay.blocks));
      c.ranks.all_gather(mine, all);
      std::size_t offset = 0;
      for (int q = 0; q < nranks; ++q) {
        detail::MeanFieldLayout const other = detail::mean_field_layout(n, per_block, q, nranks, lay.chunk_units);
        for (int l = 0; l < other.slots(); ++l)
          if (int const i = other.oscillator(l); i < n) r.positions[std::size_t(i)] = all[offset + std::size_t(l)];
        offset += std::size_t(other.slots());
      }
    }
  }
  return r;
}

}  // namespace parity::sde
