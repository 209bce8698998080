#pragma once
// The mean-field Kuramoto sums S = sum sin x_j, C = sum cos x_j in a fixed order for any split of
// the oscillators over ranks (see kuramoto.hpp): which oscillators a rank holds (MeanFieldLayout),
// the chunk sums of its passes and their reduction over all ranks (MeanFieldSums, finish_sums).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <span>

#include "models/sde/ensemble.hpp"

namespace parity::sde::detail {

template <class Mem>
using SinCos = Kokkos::View<Sums<2>, Mem>;  // v[0] = sum sin x_j, v[1] = sum cos x_j

// Noise units per chunk of the mean-field sums (see kuramoto.hpp), the unit of the split across
// ranks. On a host backend 256 (a team of one thread per chunk: enough chunks for every thread at
// 2^16 oscillators). On a device about 4096, 16 per thread of a 256-thread team, as many as the
// one-wave reduction before the chunks gave each thread: the team's closing reduction leaves the
// memory idle, and at 2^24 oscillators in float on an H100 the predictor and corrector passes took
// 155 and 185 us with one unit per thread, 110 and 149 us with two, against 134 and 101 us
// without chunks (perf/results/2026-11-26-h100-kuramoto-one-rank). The device chunk is rounded so
// that the chunks fill whole waves of teams (mean_field_device_chunk_units).
inline constexpr int mean_field_host_chunk_units = 256;
inline constexpr int mean_field_device_chunk_units_target = 4096;
inline constexpr int mean_field_device_team = 256;
// Up to this many chunks (8 per thread of a team) one team adds them on a device (finish_sums).
inline constexpr int mean_field_one_team_chunks = 2048;

// Units per device chunk for M units in all and `wave` teams resident at once: the smallest chunk
// that cuts the units into at most a whole number of waves of about 4096-unit chunks, at least 256
// units (one per thread). Chunks of exactly 4096 units gave 1,024 teams at 2^24 oscillators in
// float, on 1,056 places of a 132-multiprocessor GPU; with 1,056 chunks the predictor and corrector
// take 103-107 and 139 us on an H200, as long as the plain reduction's 104-110 and 140-142 us
// (perf/results/2026-11-26-h200-one-gpu-2). The chunk depends on M and the device only, never on
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

// Chunk sums of sin, cos (row c: this rank's chunk c) and their reduction over all ranks' chunks.
template <class ExecSpace>
struct MeanFieldSums {
  using Partials = Kokkos::View<double* [2], Kokkos::LayoutRight, typename ExecSpace::memory_space>;
  using HostPartials = Kokkos::View<double* [2], Kokkos::LayoutRight, Kokkos::HostSpace>;
  Partials mine, all;  // `all` is `mine` on one rank
  HostPartials mine_host, all_host;  // several ranks: staging for the all-gather
  EnsembleRanks ranks;
};

template <class ExecSpace>
MeanFieldSums<ExecSpace> make_mean_field_sums(ExecSpace const& space, MeanFieldLayout const& lay,
                                              EnsembleRanks const& ranks) {
  MeanFieldSums<ExecSpace> m;
  using Partials = typename MeanFieldSums<ExecSpace>::Partials;
  using HostPartials = typename MeanFieldSums<ExecSpace>::HostPartials;
  m.ranks = ranks;
  m.mine = Partials(Kokkos::view_alloc(space, "parity::sde::kuramoto_chunk_sums"), lay.chunks());
  m.all = m.mine;
  if (ranks.size > 1) {
    long const chunks = (lay.blocks + lay.chunk_units - 1) / lay.chunk_units;
    m.all = Partials(Kokkos::view_alloc(space, "parity::sde::kuramoto_chunk_sums_all"), chunks);
    m.mine_host = HostPartials("parity::sde::kuramoto_chunk_sums_host", lay.chunks());
    m.all_host = HostPartials("parity::sde::kuramoto_chunk_sums_all_host", chunks);
  }
  return m;
}

// out = the sum of the chunk sums of all ranks: on a host backend one loop in chunk order (no
// kernel launch: a launch more per pass costs each step a synchronisation of all threads), on a
// device one team (up to mean_field_one_team_chunks chunks) or one parallel reduction over the
// chunks; either order depends only on their number (the same on every rank count). One team of 128
// threads adding 16,384 chunks took 60 us per pass at 2^24 oscillators on an H100, half as long as
// the pass itself (perf/results/2026-11-26-h100-kuramoto-one-rank).
template <class ExecSpace>
void finish_sums(ExecSpace const& space, MeanFieldSums<ExecSpace> const& m,
                 SinCos<typename ExecSpace::memory_space> const& out) {
  if (m.ranks.size > 1) {
    Kokkos::deep_copy(space, m.mine_host, m.mine);
    space.fence("parity::sde::kuramoto_chunk_sums_to_host");
    m.ranks.all_gather(std::span<double const>(m.mine_host.data(), m.mine_host.size()),
                       std::span<double>(m.all_host.data(), m.all_host.size()));
    Kokkos::deep_copy(space, m.all, m.all_host);
  }
  auto const all = m.all;
  int const chunks = int(all.extent(0));
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible) {
    space.fence("parity::sde::kuramoto_chunk_sums");
    Sums<2> t;
    for (int c = 0; c < chunks; ++c) t.v[0] += all(c, 0), t.v[1] += all(c, 1);
    out() = t;
    return;
  }
  if (chunks <= mean_field_one_team_chunks) {
    // One team: no second stage. Kokkos' reduction over the 1,056 chunks of 2^24 float
    // oscillators ran as 5 blocks and a last-block stage, 7.5-7.7 us after each pass (ncu on an
    // H200, perf/results/2026-11-26-h200-one-gpu-2), where the passes take 103-139 us.
    using Team = Kokkos::TeamPolicy<ExecSpace>;
    Kokkos::parallel_for(
        "parity::sde::kuramoto_sum_chunks", Team(space, 1, mean_field_device_team),
        KOKKOS_LAMBDA(typename Team::member_type const& team) {
          Sums<2> t;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, chunks),
              [&](int c, Sums<2>& acc) {
                acc.v[0] += all(c, 0);
                acc.v[1] += all(c, 1);
              },
              t);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { out() = t; });
        });
    return;
  }
  Kokkos::parallel_reduce(
      "parity::sde::kuramoto_sum_chunks", Kokkos::RangePolicy<ExecSpace>(space, 0, chunks),
      KOKKOS_LAMBDA(int c, Sums<2>& acc) {
        acc.v[0] += all(c, 0);
        acc.v[1] += all(c, 1);
      },
      out);
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
