#pragma once
// Aggregate and employment shocks of the panel.
//
// Employment shocks with exact unemployment. Given z_{t-1}, z_t and the U_{t-1} unemployed of
// the previous period, the target is U_t = round(u(z_t) N). Of the unemployed, exactly
// m_U = round(pi_{00|z z'} U_{t-1}) stay unemployed, and exactly m_E = U_t - m_U of the employed
// lose their job. Within each group the ones chosen are those with the smallest 64-bit Philox keys
// (keyed by seed, agent, period): the ranks of i.i.d. keys are a uniformly random order, so each
// group's choice is a uniformly random subset of the exact size (the JEDC suite's "draw, then
// adjust to the exact number", done in one step). The m-th smallest key is found by an 8-pass
// radix select (256-bin histograms), so the draw is the same on every backend.
//
// Employment is bit-packed: one bit per agent-period.
//
// Across ranks (run::Communicator) each rank draws and stores its own contiguous range of agents; the
// keys stay those of the global agent index. Every decision of the select (targets, group sizes,
// the bin holding the m-th key) is made from global numbers: the group sizes follow from N and the
// previous target, and each level's 256-bin histograms are integer counts summed over the ranks
// (exact in any order), so every rank picks the same thresholds and the employment of every agent
// is that of one rank.
#include <Kokkos_Core.hpp>
// Kokkos_Graph.hpp must come before Kokkos_ScatterView.hpp (the latter opens a namespace
// Kokkos::Impl::Experimental that hides the graph's Kokkos::Experimental names), and panel.hpp
// needs both.
#include <Kokkos_Graph.hpp>
#include <Kokkos_ScatterView.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "parity/krusell_smith/calibration.hpp"
#include "parity/krusell_smith/detail/model.hpp"
#include "parity/krusell_smith/params.hpp"
#include "parity/random/philox.hpp"
#include "parity/run/communicator.hpp"

namespace parity::krusell_smith::detail {

namespace kernels {

KOKKOS_INLINE_FUNCTION int popcount32(std::uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return int((x * 0x01010101u) >> 24);
}

KOKKOS_INLINE_FUNCTION std::uint64_t agent_key(std::uint64_t seed, std::int64_t i, int t) {
  auto const b = random::philox_block(seed, agent_stream_base + std::uint64_t(i), std::uint64_t(t));
  return (std::uint64_t(b.v[0]) << 32) | b.v[1];
}

}  // namespace kernels

// Bit-packed employment: bit (t, i) of words[t * nwords + i / 32] is 1 when agent i is employed;
// i counts this rank's agents, global agent first + i.
template <class MemSpace>
struct Employment {
  Kokkos::View<std::uint32_t*, MemSpace> words;
  long agents = 0, nwords = 0;  // this rank's
  long first = 0;  // the global index of this rank's agent 0
  int periods = 0;
};

// Aggregate path z_0..z_{T-1} (0 good, 1 bad) from the Markov chain; z_0 from the stationary
// distribution (1/2, 1/2 for symmetric durations).
inline std::vector<std::int32_t> aggregate_path(Params const& p, Chain const& c) {
  std::vector<std::int32_t> z(p.periods);
  auto uniform = [&](long t) {
    auto const b = random::philox_block(p.seed, aggregate_stream, std::uint64_t(t));
    return random::uniform_double(b.v[0], b.v[1]);
  };
  double const pi_good = c.pz[1][0] / (c.pz[0][1] + c.pz[1][0]);
  z[0] = uniform(0) < pi_good ? 0 : 1;
  for (int t = 1; t < p.periods; ++t) z[t] = uniform(t) < c.pz[z[t - 1]][z[t - 1]] ? z[t - 1] : 1 - z[t - 1];
  return z;
}

// Employment of this rank's agents in every period, unemployment exactly round(u(z_t) N) each
// period over all ranks.
template <class ExecSpace>
Employment<typename ExecSpace::memory_space> generate_employment(ExecSpace const& space, Params const& p,
                                                                 Chain const& c, std::vector<std::int32_t> const& z,
                                                                 run::Communicator const& ranks = {}) {
  using Mem = typename ExecSpace::memory_space;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  Employment<Mem> emp;
  long const N = p.agents;  // all ranks': the targets and group sizes
  long const first = ranks.first(N), n = ranks.last(N) - first;  // this rank's
  int const T = p.periods;
  emp.agents = n;
  emp.first = first;
  emp.periods = T;
  emp.nwords = (n + 31) / 32;
  long const nwords = emp.nwords;
  emp.words = Kokkos::View<std::uint32_t*, Mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::employment_bits"),
      std::size_t(T) * nwords);
  auto words = emp.words;
  Kokkos::View<long**, Mem> hist("parity::krusell_smith::radix_histogram", 2, 256);
  auto hist_h = Kokkos::create_mirror_view(hist);
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  constexpr int histogram_team = 256;  // threads of a team counting keys (devices)
  auto scatter = Kokkos::Experimental::create_scatter_view(hist);
  std::uint64_t const seed = p.seed;
  long U_prev = 0;
  for (int t = 0; t < T; ++t) {
    long const U = std::lround(c.u[z[t]] * double(N));
    long target[2];  // group 0: unemployed (or everybody at t = 0), group 1: employed
    long size[2];
    if (t == 0) {
      target[0] = U, target[1] = 0, size[0] = N, size[1] = 0;
    } else {
      long mU = std::lround(c.p00[z[t - 1]][z[t]] * double(U_prev));
      mU = std::min(mU, std::min(U_prev, U));
      mU = std::max(mU, U - (N - U_prev));
      target[0] = mU, target[1] = U - mU, size[0] = U_prev, size[1] = N - U_prev;
    }
    U_prev = U;
    long const prev_offset = t == 0 ? -1 : long(t - 1) * nwords;
    // Radix select of each group's target-th smallest key: keys below it are selected. A level
    // whose chosen bin starts exactly at the target ends the search (the lower bits stay 0).
    std::uint64_t threshold[2] = {0, 0};
    bool all[2], active[2], resolved[2] = {false, false};
    long remaining[2];
    for (int gi = 0; gi < 2; ++gi) {
      all[gi] = target[gi] >= size[gi] && size[gi] > 0;
      active[gi] = target[gi] > 0 && target[gi] < size[gi];
      remaining[gi] = target[gi];
    }
    bool const select = p.employment_draw == EmploymentDraw::exact;
    if (!select) {
      // Each agent on its own: unemployed with P(u -> u) or P(e -> u) for z_{t-1} -> z_t (u(z_0)
      // at t = 0) when its key's top 53 bits as a uniform x = (key >> 11) 2^-53 fall below it,
      // i.e. key < ceil(pu 2^53) 2^11: a fixed threshold per group, no select.
      double const pu[2] = {t == 0 ? c.u[z[0]] : c.p00[z[t - 1]][z[t]], t == 0 ? c.u[z[0]] : c.p10[z[t - 1]][z[t]]};
      for (int gi = 0; gi < 2; ++gi) {
        all[gi] = pu[gi] >= 1;
        active[gi] = pu[gi] > 0 && pu[gi] < 1;
        threshold[gi] = active[gi] ? std::uint64_t(std::ceil(std::ldexp(pu[gi], 53))) << 11 : 0;
      }
    }
    for (int level = 0; select && level < 8 && (active[0] || active[1]); ++level) {
      Kokkos::deep_copy(space, hist, 0L);
      if (host) scatter.reset();
      int const shift = 56 - 8 * level;
      std::uint64_t const prefix0 = threshold[0], prefix1 = threshold[1];
      bool const act0 = active[0], act1 = active[1];
      // The bin of agent i's key at this level, or -1 when it is not a candidate (group inactive,
      // or its key outside the prefix chosen so far); bins 256.. are group 1's.
      auto bin_of = KOKKOS_LAMBDA(std::int64_t i) {
        int const grp = prev_offset < 0 ? 0 : int((words(prev_offset + i / 32) >> (i % 32)) & 1u);
        if (grp == 0 ? !act0 : !act1) return -1;
        std::uint64_t const key = kernels::agent_key(seed, first + i, t);
        if (level > 0 && (key >> (shift + 8)) != (grp == 0 ? prefix0 : prefix1)) return -1;
        return grp * 256 + int((key >> shift) & 255u);
      };
      if (host) {
        Kokkos::parallel_for(
            "parity::krusell_smith::radix_histogram", Range(space, 0, n), KOKKOS_LAMBDA(std::int64_t i) {
              int const b = bin_of(i);
              if (b < 0) return;
              auto access = scatter.access();
              access(b / 256, b % 256) += 1;
            });
        Kokkos::Experimental::contribute(hist, scatter);
      } else {
        // One wave of teams, each counting its agents in its own 512 counters in team scratch
        // (shared memory) and adding them to the histogram once: with every agent adding to one of
        // 512 global counters, the exact draw took 1.15 ms a period at 10^7 agents on an H200,
        // against 48 us for the independent draw's single pass over the keys; 0.31 ms so
        // (perf/results/one-rank-draw-and-policy-h200).
        using Team = Kokkos::TeamPolicy<ExecSpace>;
        using Counts =
            Kokkos::View<int*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
        long const league = std::max(
            1L, std::min<long>(long(space.concurrency()) / histogram_team, (n + histogram_team - 1) / histogram_team));
        Kokkos::parallel_for(
            "parity::krusell_smith::radix_histogram",
            Team(space, int(league), histogram_team).set_scratch_size(0, Kokkos::PerTeam(Counts::shmem_size(512))),
            KOKKOS_LAMBDA(typename Team::member_type const& team) {
              Counts local(team.team_scratch(0), 512);
              Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 512), [&](int b) { local(b) = 0; });
              team.team_barrier();
              std::int64_t const r = team.league_rank();
              std::int64_t const begin = n * r / league, end = n * (r + 1) / league;
              Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](std::int64_t i) {
                if (int const b = bin_of(i); b >= 0) Kokkos::atomic_add(&local(b), 1);
              });
              team.team_barrier();
              Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 512), [&](int b) {
                if (int const count = local(b)) Kokkos::atomic_add(&hist(b / 256, b % 256), long(count));
              });
            });
      }
      Kokkos::deep_copy(space, hist_h, hist);
      space.fence("parity::krusell_smith::radix_histogram_copy");
      if (ranks.several()) {  // every rank's counts: the global histograms
        std::vector<std::int64_t> counts(hist_h.data(), hist_h.data() + hist_h.size());
        ranks.sum(counts);
        std::copy(counts.begin(), counts.end(), hist_h.data());
      }
      for (int gi = 0; gi < 2; ++gi) {
        if (!active[gi]) continue;
        long cum = 0;
        int bin = 255;
        for (int b = 0; b < 256; ++b) {
          if (remaining[gi] < cum + hist_h(gi, b)) {
            bin = b;
            break;
          }
          cum += hist_h(gi, b);
        }
        remaining[gi] -= cum;
        threshold[gi] = (threshold[gi] << 8) | std::uint64_t(bin);
        if (remaining[gi] == 0) {  // the target-th key is the first of its bin: done
          threshold[gi] <<= 8 * (7 - level);
          active[gi] = false;
          resolved[gi] = true;
        }
      }
    }
    for (int gi = 0; gi < 2; ++gi) active[gi] = active[gi] || resolved[gi];
    // Write this period's bits, one thread per 32-agent word.
    std::uint64_t const th0 = threshold[0], th1 = threshold[1];
    bool const all0 = all[0], all1 = all[1], act0 = active[0], act1 = active[1];
    long const offset = long(t) * nwords;
    Kokkos::parallel_for(
        "parity::krusell_smith::employment_write", Range(space, 0, nwords), KOKKOS_LAMBDA(std::int64_t w) {
          std::uint32_t const prev = prev_offset < 0 ? 0u : words(prev_offset + w);
          std::uint32_t word = 0;
          for (int b = 0; b < 32; ++b) {
            std::int64_t const i = w * 32 + b;
            if (i >= n) break;
            int const grp = prev_offset < 0 ? 0 : int((prev >> b) & 1u);
            std::uint64_t const key = kernels::agent_key(seed, first + i, t);
            bool const selected = grp == 0 ? (all0 || (act0 && key < th0)) : (all1 || (act1 && key < th1));
            if (!selected) word |= (1u << b);  // selected agents are unemployed
          }
          words(offset + w) = word;
        });
  }
  space.fence("parity::krusell_smith::employment_done");
  return emp;
}

// Five counts of one period, added over the words of a team.
struct EmploymentCount {
  long v[5];
  KOKKOS_INLINE_FUNCTION EmploymentCount() {
    for (int q = 0; q < 5; ++q) v[q] = 0;
  }
  KOKKOS_INLINE_FUNCTION EmploymentCount& operator+=(EmploymentCount const& o) {
    for (int q = 0; q < 5; ++q) v[q] += o.v[q];
    return *this;
  }
};

// Per period: unemployed count, and transitions (u->u, from u, e->u, from e) from t-1 to t, over
// all ranks' agents.
template <class ExecSpace, class Mem>
Kokkos::View<long**, Kokkos::LayoutRight, Kokkos::HostSpace> employment_counts(ExecSpace const& space,
                                                                               Employment<Mem> const& emp,
                                                                               run::Communicator const& ranks = {}) {
  int const T = emp.periods;
  long const nwords = emp.nwords, N = emp.agents;
  auto words = emp.words;
  Kokkos::View<long**, Kokkos::LayoutRight, Mem> counts("parity::krusell_smith::employment_counts", T, 5);
  // One team per period, its threads over the words: with one thread reading a whole period's words
  // in turn the accuracy phase took 0.80 s at 10^8 agents on an H200, 0.026 s so
  // (perf/results/one-rank-draw-and-policy-h200). Integer counts: exact in any order.
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "parity::krusell_smith::employment_counts", Team(space, T, Kokkos::AUTO),
      KOKKOS_LAMBDA(typename Team::member_type const& team) {
        int const t = team.league_rank();
        EmploymentCount c;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, nwords),
            [&](long w, EmploymentCount& acc) {
              long const valid = N - w * 32 < 32 ? N - w * 32 : 32;
              std::uint32_t const mask = valid == 32 ? 0xffffffffu : ((1u << valid) - 1u);
              std::uint32_t const cu = ~words(long(t) * nwords + w) & mask;
              acc.v[0] += kernels::popcount32(cu);
              if (t > 0) {
                std::uint32_t const pu = ~words(long(t - 1) * nwords + w) & mask;
                acc.v[1] += kernels::popcount32(pu & cu);
                acc.v[2] += kernels::popcount32(pu);
                acc.v[3] += kernels::popcount32(~pu & mask & cu);
                acc.v[4] += kernels::popcount32(~pu & mask);
              }
            },
            c);
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          for (int q = 0; q < 5; ++q) counts(t, q) = c.v[q];
        });
      });
  Kokkos::View<long**, Kokkos::LayoutRight, Kokkos::HostSpace> h("parity::krusell_smith::employment_counts_host", T, 5);
  Kokkos::deep_copy(h, counts);
  if (ranks.several()) {
    std::vector<std::int64_t> all(h.data(), h.data() + h.size());
    ranks.sum(all);
    std::copy(all.begin(), all.end(), h.data());
  }
  return h;
}

}  // namespace parity::krusell_smith::detail

template <>
struct Kokkos::reduction_identity<parity::krusell_smith::detail::EmploymentCount> {
  KOKKOS_FORCEINLINE_FUNCTION static parity::krusell_smith::detail::EmploymentCount sum() { return {}; }
};
