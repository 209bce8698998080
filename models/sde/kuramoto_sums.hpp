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
// ranks and of the exchange. On a host backend 256 (one thread per chunk: enough chunks for every
// thread at 2^16 oscillators). On a device 4096, cut into 8 slices of 512 units, each added by one
// vector of 32 lanes (a warp: 16 units per lane, then a shuffle tree, no team barrier); a team of
// 8 vectors takes the slices s = league_rank + j league, and the league is at most one wave, so
// every multiprocessor has work. One team per 4096-unit chunk gave 1,024 teams at 2^24 oscillators
// in float, 1,056 places on a 132-multiprocessor GPU: four multiprocessors idle, 3 % of the pass.
// With one or two units per thread a team's closing reduction left the memory idle: at 2^24 in
// float on an H100 the predictor and corrector took 155 and 185 us, against 134 and 101 us for one
// reduction over all units (perf/results/2026-11-26-h100-kuramoto-one-rank).
inline constexpr int mean_field_host_chunk_units = 256;
inline constexpr int mean_field_device_chunk_units = 4096;
inline constexpr int mean_field_device_slices = 8;  // per chunk
inline constexpr int mean_field_device_vector = 32;  // lanes per slice
inline constexpr int mean_field_device_team = 8;  // vectors per team

template <class ExecSpace>
constexpr bool mean_field_on_host() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
}

template <class ExecSpace>
constexpr int mean_field_chunk_units() {
  return mean_field_on_host<ExecSpace>() ? mean_field_host_chunk_units : mean_field_device_chunk_units;
}

template <class ExecSpace>
constexpr int mean_field_slices_per_chunk() {
  return mean_field_on_host<ExecSpace>() ? 1 : mean_field_device_slices;
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
  int slices_per_chunk = 1;  // each chunk's slices, chunk_units / slices_per_chunk units each
  KOKKOS_INLINE_FUNCTION int slot(int t, int k) const { return (t - t0) + k * units; }
  KOKKOS_INLINE_FUNCTION int oscillator(int l) const { return t0 + l % units + (l / units) * blocks; }
  int slots() const { return units * per_block; }
  KOKKOS_INLINE_FUNCTION int chunks() const { return (units + chunk_units - 1) / chunk_units; }
  KOKKOS_INLINE_FUNCTION int slices() const { return chunks() * slices_per_chunk; }
  KOKKOS_INLINE_FUNCTION int slice_units() const { return chunk_units / slices_per_chunk; }
};

// The layout of rank `rank` of `ranks`: a contiguous run of the ceil(M / chunk_units) chunks.
inline MeanFieldLayout mean_field_layout(int n, int per_block, int rank, int ranks, int chunk_units,
                                         int slices_per_chunk = 1) {
  MeanFieldLayout lay;
  lay.n = n;
  lay.chunk_units = chunk_units;
  lay.slices_per_chunk = slices_per_chunk;
  lay.per_block = per_block;
  lay.blocks = (n + per_block - 1) / per_block;
  long const chunks = (lay.blocks + chunk_units - 1) / chunk_units;
  long const c0 = chunks * rank / ranks, c1 = chunks * (rank + 1) / ranks;
  lay.t0 = int(std::min<long>(c0 * chunk_units, lay.blocks));
  lay.units = int(std::min<long>(c1 * chunk_units, lay.blocks)) - lay.t0;
  return lay;
}

// Slice sums of sin, cos (row s: this rank's slice s), the chunk sums made of them, and their
// reduction over all ranks' chunks.
template <class ExecSpace>
struct MeanFieldSums {
  using Partials = Kokkos::View<double* [2], Kokkos::LayoutRight, typename ExecSpace::memory_space>;
  using HostPartials = Kokkos::View<double* [2], Kokkos::LayoutRight, Kokkos::HostSpace>;
  Partials slices;  // written by the passes
  Partials mine, all;  // several ranks: this rank's chunk sums, every rank's
  HostPartials mine_host, all_host;  // several ranks: staging for the all-gather
  EnsembleRanks ranks;
  int slices_per_chunk = 1;
};

template <class ExecSpace>
MeanFieldSums<ExecSpace> make_mean_field_sums(ExecSpace const& space, MeanFieldLayout const& lay,
                                              EnsembleRanks const& ranks) {
  MeanFieldSums<ExecSpace> m;
  using Partials = typename MeanFieldSums<ExecSpace>::Partials;
  using HostPartials = typename MeanFieldSums<ExecSpace>::HostPartials;
  m.ranks = ranks;
  m.slices_per_chunk = lay.slices_per_chunk;
  m.slices = Partials(Kokkos::view_alloc(space, "parity::sde::kuramoto_slice_sums"), lay.slices());
  if (ranks.size > 1) {
    long const chunks = (lay.blocks + lay.chunk_units - 1) / lay.chunk_units;
    m.mine = Partials(Kokkos::view_alloc(space, "parity::sde::kuramoto_chunk_sums"), lay.chunks());
    m.all = Partials(Kokkos::view_alloc(space, "parity::sde::kuramoto_chunk_sums_all"), chunks);
    m.mine_host = HostPartials("parity::sde::kuramoto_chunk_sums_host", lay.chunks());
    m.all_host = HostPartials("parity::sde::kuramoto_chunk_sums_all_host", chunks);
  }
  return m;
}

// The sum of chunk c's slices, in slice order: the same operations wherever it is formed.
template <class Partials>
KOKKOS_INLINE_FUNCTION Sums<2> chunk_sum(Partials const& slices, int c, int per_chunk) {
  Sums<2> t;
  for (int q = 0; q < per_chunk; ++q) t.v[0] += slices(c * per_chunk + q, 0), t.v[1] += slices(c * per_chunk + q, 1);
  return t;
}

// out = the sum of the chunk sums of all ranks: on a host backend one loop in chunk order (no
// kernel launch: a launch more per pass costs each step a synchronisation of all threads), on a
// device one parallel reduction over the chunks, whose order depends only on their number (the
// same on every rank count). On several ranks each rank's chunk sums are all-gathered through
// host memory first. One team adding 16,384 chunks took 60 us per pass at 2^24 oscillators on an
// H100, half as long as the pass itself (perf/results/2026-11-26-h100-kuramoto-one-rank).
template <class ExecSpace>
void finish_sums(ExecSpace const& space, MeanFieldSums<ExecSpace> const& m,
                 SinCos<typename ExecSpace::memory_space> const& out) {
  auto const slices = m.slices;
  int const per_chunk = m.slices_per_chunk;
  bool const several = m.ranks.size > 1;
  if (several) {
    auto const mine = m.mine;
    Kokkos::parallel_for(
        "parity::sde::kuramoto_chunk_sums", Kokkos::RangePolicy<ExecSpace>(space, 0, int(mine.extent(0))),
        KOKKOS_LAMBDA(int c) {
          Sums<2> const t = chunk_sum(slices, c, per_chunk);
          mine(c, 0) = t.v[0], mine(c, 1) = t.v[1];
        });
    Kokkos::deep_copy(space, m.mine_host, m.mine);
    space.fence("parity::sde::kuramoto_chunk_sums_to_host");
    m.ranks.all_gather(std::span<double const>(m.mine_host.data(), m.mine_host.size()),
                       std::span<double>(m.all_host.data(), m.all_host.size()));
    Kokkos::deep_copy(space, m.all, m.all_host);
  }
  // One rank: chunk c's sum formed from its slices here (the operations of the kernel above).
  auto const all = several ? m.all : slices;
  int const per = several ? 1 : per_chunk;
  int const chunks = int(all.extent(0)) / per;
  if constexpr (mean_field_on_host<ExecSpace>()) {
    space.fence("parity::sde::kuramoto_chunk_sums");
    Sums<2> t;
    for (int c = 0; c < chunks; ++c) t += chunk_sum(all, c, per);
    out() = t;
    return;
  }
  Kokkos::parallel_reduce(
      "parity::sde::kuramoto_sum_chunks", Kokkos::RangePolicy<ExecSpace>(space, 0, chunks),
      KOKKOS_LAMBDA(int c, Sums<2>& acc) { acc += chunk_sum(all, c, per); }, out);
}

// The teams of the mean-field passes. On a host backend one thread per slice (= chunk); on a device
// teams of mean_field_device_team vectors of mean_field_device_vector lanes, at most one wave of
// them (space.concurrency() threads; the float passes' launch bounds keep that many resident).
template <class Policy, class ExecSpace>
Policy mean_field_teams(ExecSpace const& space, MeanFieldLayout const& lay) {
  if constexpr (mean_field_on_host<ExecSpace>()) {
    return Policy(space, lay.slices(), 1);
  } else {
    constexpr int team = mean_field_device_team, vector = mean_field_device_vector;
    int const wave = std::max(1, int(space.concurrency() / (team * vector)));
    int const needed = (lay.slices() + team - 1) / team;
    return Policy(space, std::max(1, std::min(wave, needed)), team, vector);
  }
}

// Calls f(s, tb, te) for each slice s of this team (units [tb, te)), one per thread of the team:
// slices s = league_rank + j league_size. f reduces over the units with ThreadVectorRange.
template <class Member, class F>
KOKKOS_INLINE_FUNCTION void for_each_slice(Member const& team, MeanFieldLayout const& lay, F const& f) {
  int const league = team.league_size(), r = team.league_rank(), slices = lay.slices(), width = lay.slice_units();
  int const count = r < slices ? (slices - r + league - 1) / league : 0;
  int const end = lay.t0 + lay.units;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](int j) {
    int const s = r + j * league;
    int const tb = lay.t0 + s * width < end ? lay.t0 + s * width : end;
    int const te = tb + width < end ? tb + width : end;
    f(s, tb, te);
  });
}

}  // namespace parity::sde::detail
