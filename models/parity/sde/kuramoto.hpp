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

#include "parity/random/philox.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/detail/kuramoto_all_pairs.hpp"
#include "parity/sde/detail/kuramoto_mean_field.hpp"
#include "parity/sde/detail/kuramoto_phase.hpp"
#include "parity/sde/detail/kuramoto_record.hpp"
#include "parity/sde/detail/kuramoto_sums.hpp"
#include "parity/sde/ensemble.hpp"
#include "parity/sde/kuramoto_config.hpp"
#include "parity/sde/noise.hpp"
#include "parity/sde/result.hpp"
#include "parity/sde/stepper.hpp"
#include "parity/sde/trig.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::sde {

template <class ExecSpace, class Real>
KuramotoResult integrate_kuramoto(ExecSpace const& space, KuramotoConfig const& c,
                                  Kokkos::View<Real**, typename ExecSpace::memory_space> const& kmat = {}) {
  using Mem = typename ExecSpace::memory_space;
  // A null progress is silent; null phases are timed into a record of the call's own.
  run::SilentProgress silent;
  run::PhaseTimes own_times;
  run::Progress& progress = c.progress ? *c.progress : silent;
  run::PhaseTimes& times = c.phases ? *c.phases : own_times;
  require(c.stepper == Stepper::srk2 || c.stepper == Stepper::euler_maruyama,
          "sde::integrate_kuramoto: the stepper must be srk2 or euler_maruyama");
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
