#pragma once
// The mean-field Kuramoto sums S = sum sin x_j, C = sum cos x_j, the same bits for any split of the
// oscillators over ranks (see kuramoto.hpp): which oscillators a rank holds (MeanFieldLayout), and
// the exact sums of the chunk sums of its passes over all ranks (SinCosCounters, MeanFieldSums).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <span>

#include "parity/algorithms/exact_sum.hpp"
#include "parity/run/communicator.hpp"
#include "parity/sde/ensemble.hpp"

namespace parity::sde::detail {

template <class Mem>
using SinCos = Kokkos::View<Sums<2>, Mem>;  // v[0] = sum sin x_j, v[1] = sum cos x_j

// The sums of a SinCos view as kuramoto_record reads them.
template <class Mem>
struct SinCosValue {
  SinCos<Mem> sums;
  KOKKOS_INLINE_FUNCTION Sums<2> value() const { return sums(); }
};

// Noise units per chunk of the mean-field sums (see kuramoto.hpp), the unit of the split across
// ranks. On a host backend 256 (a team of one thread per chunk: enough chunks for every thread at
// 2^16 oscillators). On a device about 4096, 16 per thread of a 256-thread team, as many as the
// one-wave reduction before the chunks gave each thread: the team's closing reduction leaves the
// memory idle, and at 2^24 oscillators in float on an H100 the predictor and corrector passes took
// 155 and 185 us with one unit per thread, 110 and 149 us with two, against 134 and 101 us
// without chunks (perf/results/kuramoto-one-rank-h100). The device chunk is rounded so
// that the chunks fill whole waves of teams (mean_field_device_chunk_units).
inline constexpr int mean_field_host_chunk_units = 256;
inline constexpr int mean_field_device_chunk_units_target = 4096;
inline constexpr int mean_field_device_team = 256;

// Units per device chunk for M units in all and `wave` teams resident at once: the smallest chunk
// that cuts the units into at most a whole number of waves of about 4096-unit chunks, at least 256
// units (one per thread). Chunks of exactly 4096 units gave 1,024 teams at 2^24 oscillators in
// float, on 1,056 places of a 132-multiprocessor GPU; with 1,056 chunks the predictor and corrector
// take 103-107 and 139 us on an H200, as long as the plain reduction's 104-110 and 140-142 us
// (perf/results/one-rank-draw-and-policy-h200). The chunk depends on M and the device only, never on
// the rank count, so the sums stay the same for any number of ranks.
inline int mean_field_device_chunk_units(long units, long wave) {
  wave = std::max(1L, wave);
  long const target = mean_field_device_chunk_units_target;
  long const waves = std::max(1L, (units + wave * target - 1) / (wave * target));
  long const chunks = waves * wave;
  return int(std::max<long>(mean_field_device_team, (units + chunks - 1) / chunks));
}

// The chunk size of this backend for M units (`wave`: teams resident at once on a device).
template <class ExecSpace>
int mean_field_chunk_units(long units, long wave) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible)
    return mean_field_host_chunk_units;
  else
    return mean_field_device_chunk_units(units, wave);
}

// Teams of mean_field_device_team threads resident at once on this device at full occupancy (the
// float passes' launch bounds keep it).
template <class ExecSpace>
long mean_field_wave(ExecSpace const& space) {
  return long(space.concurrency()) / mean_field_device_team;
}

// The oscillators of one rank in the mean-field passes: the units [t0, t0 + units) of all M, with
// unit t's oscillators t + k M (k < per_block, those < n) in the slots l = (t - t0) + k units. With
// one rank (t0 = 0, units = M) slot l is oscillator l.
struct MeanFieldLayout {
  int n = 0;  // oscillators of all ranks
  int blocks = 0;  // M, units of all ranks
  int per_block = 1;  // B
  int t0 = 0, units = 0;  // this rank's units
  int chunk_units = mean_field_host_chunk_units;  // units per chunk of the sums
  KOKKOS_INLINE_FUNCTION int slot(int t, int k) const { return (t - t0) + k * units; }
  KOKKOS_INLINE_FUNCTION int oscillator(int l) const { return t0 + l % units + (l / units) * blocks; }
  int slots() const { return units * per_block; }
  int chunks() const { return (units + chunk_units - 1) / chunk_units; }
};

// The layout of rank `rank` of `ranks`: a contiguous run of the ceil(M / chunk_units) chunks.
inline MeanFieldLayout mean_field_layout(int n, int per_block, int rank, int ranks, int chunk_units) {
  MeanFieldLayout lay;
  lay.n = n;
  lay.chunk_units = chunk_units;
  lay.per_block = per_block;
  lay.blocks = (n + per_block - 1) / per_block;
  long const chunks = (lay.blocks + chunk_units - 1) / chunk_units;
  long const c0 = chunks * rank / ranks, c1 = chunks * (rank + 1) / ranks;
  lay.t0 = int(std::min<long>(c0 * chunk_units, lay.blocks));
  lay.units = int(std::min<long>(c1 * chunk_units, lay.blocks)) - lay.t0;
  return lay;
}

// Counters per sum in a row of MeanFieldSums: exact_sum_counters, padded so that a row of S and C
// fills one 128-byte line and the row a pass reads shares no line with the row it adds into.
inline constexpr int mean_field_counters = 8;
static_assert(mean_field_counters >= algorithms::exact_sum_counters);

// S, C of one set of phases as exact-sum counters (exact_sum.hpp): row `row` of the counters of
// MeanFieldSums. Teams add their chunk's sums with atomic integer additions, so S, C are the same
// bits whatever the order in which the teams of a pass, or the ranks, finish.
template <class Mem>
struct SinCosCounters {
  Kokkos::View<algorithms::ExactSumCounter* [2][mean_field_counters], Kokkos::LayoutRight, Mem> counts;
  int row = 0;

  // v[0] = S, v[1] = C.
  KOKKOS_INLINE_FUNCTION Sums<2> value() const {
    Sums<2> s;
    s.v[0] = algorithms::exact_sum_value(&counts(row, 0, 0));
    s.v[1] = algorithms::exact_sum_value(&counts(row, 1, 0));
    return s;
  }
  // Adds one chunk's sums (atomic; zero limbs are skipped).
  KOKKOS_INLINE_FUNCTION void add(Sums<2> const& chunk) const {
    for (int k = 0; k < 2; ++k) algorithms::exact_sum_atomic_add(&counts(row, k, 0), chunk.v[k]);
  }
  KOKKOS_INLINE_FUNCTION void clear() const {
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < mean_field_counters; ++j) counts(row, k, j) = 0;
  }
};

// The sums of the mean-field passes in three rows of counters, used in turn: a pass reads the
// sums of the phases it starts from (current()), adds those of its new phases into next(), and
// clears spare(), the row the pass after it adds into. No kernel between passes: the sums are
// never gathered in an order. On several ranks each rank's counters of a pass are summed over all
// ranks (integer sums, exact) after the pass, through host memory.
template <class ExecSpace>
struct MeanFieldSums {
  using Mem = typename ExecSpace::memory_space;
  using Counts = Kokkos::View<algorithms::ExactSumCounter* [2][mean_field_counters], Kokkos::LayoutRight, Mem>;
  using HostCounts =
      Kokkos::View<algorithms::ExactSumCounter* [2][mean_field_counters], Kokkos::LayoutRight, Kokkos::HostSpace>;
  Counts counts;
  HostCounts counts_host;  // several ranks: staging for the sum over ranks
  run::Communicator ranks;
  int row = 0;  // the row of the current phases' sums

  SinCosCounters<Mem> current() const { return {counts, row}; }
  SinCosCounters<Mem> next() const { return {counts, (row + 1) % 3}; }
  SinCosCounters<Mem> spare() const { return {counts, (row + 2) % 3}; }

  // After a pass has added into next(): the sums of all ranks there, and next() becomes current().
  void advance(ExecSpace const& space) {
    row = (row + 1) % 3;
    if (ranks.size <= 1) return;
    auto const mine = Kokkos::subview(counts, row, Kokkos::ALL, Kokkos::ALL);
    auto const mine_host = Kokkos::subview(counts_host, row, Kokkos::ALL, Kokkos::ALL);
    Kokkos::deep_copy(space, mine_host, mine);
    space.fence("parity::sde::kuramoto_sums_to_host");
    static_assert(sizeof(algorithms::ExactSumCounter) == sizeof(std::int64_t));
    ranks.sum(std::span<std::int64_t>(reinterpret_cast<std::int64_t*>(mine_host.data()), mine_host.size()));
    Kokkos::deep_copy(space, mine, mine_host);
    // A rank without oscillators runs passes of no teams, which clear nothing.
    Kokkos::deep_copy(space, Kokkos::subview(counts, (row + 1) % 3, Kokkos::ALL, Kokkos::ALL),
                      algorithms::ExactSumCounter(0));
  }
};

template <class ExecSpace>
MeanFieldSums<ExecSpace> make_mean_field_sums(ExecSpace const& space, run::Communicator const& ranks) {
  MeanFieldSums<ExecSpace> m;
  m.ranks = ranks;
  m.counts = typename MeanFieldSums<ExecSpace>::Counts(Kokkos::view_alloc(space, "parity::sde::kuramoto_sums"), 3);
  if (ranks.size > 1)
    m.counts_host = typename MeanFieldSums<ExecSpace>::HostCounts("parity::sde::kuramoto_sums_host", 3);
  return m;
}

// Teams of the mean-field passes, one per chunk: on a device of mean_field_device_team threads,
// on a host backend of the backend's choice.
template <class Policy, class ExecSpace>
Policy mean_field_teams(ExecSpace const& space, int chunks) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible)
    return Policy(space, chunks, Kokkos::AUTO);
  else
    return Policy(space, chunks, mean_field_device_team);
}

}  // namespace parity::sde::detail
