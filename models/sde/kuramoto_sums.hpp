#pragma once
// The mean-field Kuramoto sums S = sum sin x_j, C = sum cos x_j in a fixed order for any split of
// the oscillators over ranks (see kuramoto.hpp): which oscillators a rank holds (MeanFieldLayout),
// the chunk sums of its passes and their reduction over all ranks (MeanFieldSums, finish_sums,
// PassSums).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <optional>
#include <span>
#include <utility>

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
// Up to this many chunks (8 per thread of a team; 2^24 oscillators make 1,056 in float, 2,112 in
// double) one team adds them on a device: each team of the next pass (MeanFieldSums::in_pass) or
// one team after the pass; above, one parallel reduction after the pass.
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

// Teams of the mean-field passes, one per chunk: on a device of mean_field_device_team threads,
// on a host backend of the backend's choice.
template <class Policy, class ExecSpace>
Policy mean_field_teams(ExecSpace const& space, int chunks) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible)
    return Policy(space, chunks, Kokkos::AUTO);
  else
    return Policy(space, chunks, mean_field_device_team);
}

// The sum of `chunks` chunk sums by one team, in an order set by the team size alone (on a device
// thread i adds chunks i, i + 256, ..., then the team adds the threads' sums): the same in every
// team of a pass and in the one-team kernel of current_sums, on any rank count.
template <class Member, class Partials>
KOKKOS_INLINE_FUNCTION Sums<2> add_chunk_sums(Member const& team, Partials const& all, int chunks) {
  Sums<2> t;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, chunks),
      [&](int c, Sums<2>& acc) {
        acc.v[0] += all(c, 0);
        acc.v[1] += all(c, 1);
      },
      t);
  return t;
}

// Where the teams of a pass find the sums S, C of the phases the pass starts from. AddChunks: each
// team adds all ranks' chunk sums of the previous pass at its start (team_sums) and keeps them;
// otherwise every thread reads them from sc per unit (sin_sum, cos_sum) and the kernel holds
// nothing else of this (the double noise pass took 70 registers instead of 62 with the members of
// both).
template <class Mem, bool AddChunks>
struct PassSums;

template <class Mem>
struct PassSums<Mem, true> {
  Kokkos::View<double const* [2], Kokkos::LayoutRight, Mem> all;
  int chunks = 0;

  template <class Member, class Real>
  KOKKOS_INLINE_FUNCTION void team_sums(Member const& team, Real (&kept)[2]) const {
    Sums<2> const t = add_chunk_sums(team, all, chunks);
    kept[0] = Real(t.v[0]), kept[1] = Real(t.v[1]);
  }
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real sin_sum(Real const (&kept)[2]) const {
    return kept[0];
  }
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real cos_sum(Real const (&kept)[2]) const {
    return kept[1];
  }
};

template <class Mem>
struct PassSums<Mem, false> {
  SinCos<Mem> sc;

  template <class Member, class Real>
  KOKKOS_INLINE_FUNCTION void team_sums(Member const&, Real (&)[2]) const {}
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real sin_sum(Real const (&)[2]) const {
    return Real(sc().v[0]);
  }
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real cos_sum(Real const (&)[2]) const {
    return Real(sc().v[1]);
  }
};

// The chunk sums of sin, cos of the last pass (row c: chunk c) and their reduction over all ranks.
// With in_pass every team of the next pass adds all chunk sums itself. At 2^24 float oscillators on
// an H200 the predictor and corrector then take 102-104 and 142-143 us with nothing between them,
// against 98-99 and 140-141 us each followed by a 7.3-7.8 us kernel adding the chunk sums, and
// 104-105 and 145-147 us with the last team of each pass adding them
// (perf/results/2026-11-26-h200-one-gpu-3). A team reads the chunk sums (16 B each) from its
// multiprocessor's cache after the first team there; so only up to mean_field_one_team_chunks.
template <class ExecSpace>
struct MeanFieldSums {
  using Mem = typename ExecSpace::memory_space;
  using Partials = Kokkos::View<double* [2], Kokkos::LayoutRight, Mem>;
  using HostPartials = Kokkos::View<double* [2], Kokkos::LayoutRight, Kokkos::HostSpace>;
  Partials mine;  // this rank's chunk sums, written by the current pass
  Partials spare;  // one rank with in_pass: the previous pass's, which the current pass reads
  Partials all;  // all ranks' chunk sums of the last finished pass (one rank: mine or spare)
  HostPartials mine_host, all_host;  // several ranks: staging for the all-gather
  EnsembleRanks ranks;
  int chunks = 0;  // of all ranks
  bool in_pass = false;

  // S, C for a pass that starts from the phases whose sums finish_sums wrote to sc (or left in all).
  template <bool AddChunks>
  PassSums<Mem, AddChunks> input(SinCos<Mem> const& sc) const {
    if constexpr (AddChunks)
      return {all, chunks};
    else
      return {sc};
  }
};

// The chunk sums of lay's passes. in_pass on a device up to mean_field_one_team_chunks chunks,
// unless `in_pass` says otherwise.
template <class ExecSpace>
MeanFieldSums<ExecSpace> make_mean_field_sums(ExecSpace const& space, MeanFieldLayout const& lay,
                                              EnsembleRanks const& ranks, std::optional<bool> in_pass = {}) {
  MeanFieldSums<ExecSpace> m;
  using Partials = typename MeanFieldSums<ExecSpace>::Partials;
  using HostPartials = typename MeanFieldSums<ExecSpace>::HostPartials;
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  m.ranks = ranks;
  m.chunks = int((lay.blocks + lay.chunk_units - 1) / lay.chunk_units);
  m.in_pass = in_pass.value_or(!host && m.chunks <= mean_field_one_team_chunks);
  m.mine = Partials(Kokkos::view_alloc(space, "parity::sde::kuramoto_chunk_sums"), lay.chunks());
  m.all = m.mine;
  if (ranks.size > 1) {
    m.all = Partials(Kokkos::view_alloc(space, "parity::sde::kuramoto_chunk_sums_all"), m.chunks);
    m.mine_host = HostPartials("parity::sde::kuramoto_chunk_sums_host", lay.chunks());
    m.all_host = HostPartials("parity::sde::kuramoto_chunk_sums_all_host", m.chunks);
  } else if (m.in_pass) {
    m.spare = Partials(Kokkos::view_alloc(space, "parity::sde::kuramoto_chunk_sums_previous"), lay.chunks());
  }
  return m;
}

namespace mean_field_sums_detail {
// out = the sum of `all` by one team (add_chunk_sums).
template <class ExecSpace, class Partials>
void add_in_one_team(ExecSpace const& space, Partials const& all, int chunks,
                     SinCos<typename ExecSpace::memory_space> const& out) {
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "parity::sde::kuramoto_sum_chunks", mean_field_teams<Team>(space, 1),
      KOKKOS_LAMBDA(typename Team::member_type const& team) {
        Sums<2> const t = add_chunk_sums(team, all, chunks);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { out() = t; });
      });
}
}  // namespace mean_field_sums_detail

// After a pass has written m.mine: all ranks' chunk sums into m.all (several ranks: an all-gather
// through host memory), then, unless the next pass adds them itself (in_pass), out = their sum: on
// a host backend one loop in chunk order (no kernel launch: a launch more per pass costs each step
// a synchronisation of all threads), on a device one team or one parallel reduction; either order
// depends only on the number of chunks (the same on every rank count).
template <class ExecSpace>
void finish_sums(ExecSpace const& space, MeanFieldSums<ExecSpace>& m,
                 SinCos<typename ExecSpace::memory_space> const& out) {
  if (m.ranks.size > 1) {
    Kokkos::deep_copy(space, m.mine_host, m.mine);
    space.fence("parity::sde::kuramoto_chunk_sums_to_host");
    m.ranks.all_gather(std::span<double const>(m.mine_host.data(), m.mine_host.size()),
                       std::span<double>(m.all_host.data(), m.all_host.size()));
    Kokkos::deep_copy(space, m.all, m.all_host);
  } else if (m.in_pass) {
    std::swap(m.mine, m.spare);  // the next pass writes the other buffer while its teams read this one
    m.all = m.spare;
  }
  if (m.in_pass) return;
  auto const all = m.all;
  int const chunks = m.chunks;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible) {
    space.fence("parity::sde::kuramoto_chunk_sums");
    Sums<2> t;
    for (int c = 0; c < chunks; ++c) t.v[0] += all(c, 0), t.v[1] += all(c, 1);
    out() = t;
    return;
  }
  if (chunks <= mean_field_one_team_chunks) {
    mean_field_sums_detail::add_in_one_team(space, all, chunks, out);
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

// out = S, C of the last finished pass where finish_sums left them to the next pass (in_pass), in
// the passes' order; otherwise finish_sums has written them to out already.
template <class ExecSpace>
void current_sums(ExecSpace const& space, MeanFieldSums<ExecSpace> const& m,
                  SinCos<typename ExecSpace::memory_space> const& out) {
  if (m.in_pass) mean_field_sums_detail::add_in_one_team(space, m.all, m.chunks, out);
}

}  // namespace parity::sde::detail
