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
// 2^16 oscillators). On a device 4096, 16 per thread of a 256-thread team, as many as the
// one-wave reduction before the chunks gave each thread: the team's closing reduction leaves the
// memory idle, and at 2^24 oscillators in float on an H100 the predictor and corrector passes took
// 155 and 185 us with one unit per thread, 110 and 149 us with two, against 134 and 101 us
// without chunks (perf/results/2026-11-26-h100-kuramoto-one-rank).
inline constexpr int mean_field_host_chunk_units = 256;
inline constexpr int mean_field_device_chunk_units = 4096;
inline constexpr int mean_field_device_team = 256;

template <class ExecSpace>
constexpr int mean_field_chunk_units() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible
             ? mean_field_host_chunk_units
             : mean_field_device_chunk_units;
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
  // One rank on a device: the last team of a pass to write its chunk sum adds all of them
  // (add_in_last_team), so a pass is one kernel; `arrivals` counts the teams done.
  bool in_last_team = false;
  Kokkos::View<unsigned, typename ExecSpace::memory_space> arrivals;
};

// The sum of rows 0..chunks-1 of `all` by the whole team, in an order that depends on the team
// size alone: the same in a pass's last team (one rank) as in the one-team kernel of finish_sums
// (several ranks), so the sums do not depend on the rank count. The loads bypass the caches of
// the reading team's multiprocessor (atomic loads): other teams wrote the rows.
template <class Member, class Partials>
KOKKOS_INLINE_FUNCTION Sums<2> add_chunk_sums(Member const& team, Partials const& all, int chunks) {
  Sums<2> t;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, chunks),
      [&](int c, Sums<2>& acc) {
        acc.v[0] += Kokkos::atomic_load(&all(c, 0));
        acc.v[1] += Kokkos::atomic_load(&all(c, 1));
      },
      t);
  return t;
}

// Called by every team of a pass after its chunk sum is written: the last team to arrive writes
// out() = the sum of all chunk sums and resets the count for the next pass (the classic
// "last block" reduction: a fence orders each team's chunk sum before its arrival).
template <class Member, class Partials, class Counter, class Out>
KOKKOS_INLINE_FUNCTION void add_in_last_team(Member const& team, Partials const& part, Counter const& arrivals,
                                             Out const& out) {
  int last = 0;
  Kokkos::single(
      Kokkos::PerTeam(team),
      [&](int& is_last) {
        Kokkos::memory_fence();
        is_last = Kokkos::atomic_fetch_add(&arrivals(), 1u) + 1u == unsigned(team.league_size()) ? 1 : 0;
      },
      last);
  if (!last) return;
  Kokkos::memory_fence();
  Sums<2> const t = add_chunk_sums(team, part, team.league_size());
  Kokkos::single(Kokkos::PerTeam(team), [&]() {
    out() = t;
    arrivals() = 0u;
  });
}

template <class ExecSpace>
MeanFieldSums<ExecSpace> make_mean_field_sums(ExecSpace const& space, MeanFieldLayout const& lay,
                                              EnsembleRanks const& ranks) {
  MeanFieldSums<ExecSpace> m;
  using Partials = typename MeanFieldSums<ExecSpace>::Partials;
  using HostPartials = typename MeanFieldSums<ExecSpace>::HostPartials;
  m.ranks = ranks;
  m.in_last_team = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible &&
                   ranks.size <= 1 && lay.chunks() > 0;
  m.arrivals = Kokkos::View<unsigned, typename ExecSpace::memory_space>(
      Kokkos::view_alloc(space, "parity::sde::kuramoto_chunk_arrivals"));
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
// kernel launch: a launch more per pass costs each step a synchronisation of all threads); on a
// device one team (add_chunk_sums), unless the pass's last team has added them already
// (added_in_pass). A separate kernel per pass cost one rank 3 % at 2^24 oscillators on an H200
// (1.03x the fused reduction before the rank split, perf/results/2026-11-26-h200-one-gpu);
// one team adding 16,384 chunks of 256 units took 60 us a pass on an H100
// (perf/results/2026-11-26-h100-kuramoto-one-rank).
template <class ExecSpace>
void finish_sums(ExecSpace const& space, MeanFieldSums<ExecSpace> const& m,
                 SinCos<typename ExecSpace::memory_space> const& out, bool added_in_pass = false) {
  if (added_in_pass) return;
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
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "parity::sde::kuramoto_sum_chunks", Policy(space, 1, mean_field_device_team),
      KOKKOS_LAMBDA(typename Policy::member_type const& team) {
        Sums<2> const t = add_chunk_sums(team, all, chunks);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { out() = t; });
      });
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
