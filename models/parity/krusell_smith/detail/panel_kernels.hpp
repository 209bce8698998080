#pragma once
// The panel's per-period kernels: the policy sliced at (K_t, z_t) into one cubic per k cell,
// and the agent steps that read it (bucket, power and team-scratch cell location).
//
// Next-period capital of the agents. At period t every agent sees the same K_t and z_t, so the
// interpolant in K is evaluated once per k node (a small kernel) and each agent then interpolates
// in k only: for tensor-product schemes (bilinear, bicubic Catmull-Rom) this is exactly the 2-D
// interpolant, at a quarter of the memory traffic per agent.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "parity/grid/axis.hpp"
#include "parity/grid/root_guess.hpp"
#include "parity/interp/catmull_rom.hpp"
#include "parity/interp/multilinear.hpp"

namespace parity::krusell_smith::detail {

namespace kernels {

// One k cell's cubic at (K_t, z_t) for one employment state, with the cell's two nodes: an agent
// of the `power` panel step reads this one aligned record (one or two cache sectors) instead of
// the axis nodes and four separately stored coefficients.
template <class Real>
struct alignas(8 * sizeof(Real)) CellCubic {
  Real x0, x1;  // the cell [x0, x1]
  Real a[4];  // k'(x) = a0 + a1 t + a2 t^2 + a3 t^3, t = (x - x0) / (x1 - x0)
  Real pad[2];
};

// Cubic coefficients, per employment state e and k cell i, of the policy interpolated at K_t.
// The K stencil is built once per thread (every node of the slice shares K_t); in k the cell is
// known, so the cubic is written down from the Hermite form of the Catmull-Rom interpolant (node
// values and the three-point slopes of core/parity/interp/catmull_rom.hpp), or the line of the
// linear one: exactly the 2-D tensor-product interpolant restricted to K = K_t, up to rounding.
template <class Axis, class G, class Real, class Mem>
struct PolicySlice {
  Axis axk, axK;
  G g;
  Kokkos::View<Real***, Mem> coef;  // bucket step: coef(e, i, q)
  Kokkos::View<CellCubic<Real>*, Mem> rec;  // power step: rec(e * (nk - 1) + i)
  Kokkos::View<double, Mem> sum;
  Kokkos::View<double*, Mem> K_path;
  double invN;
  int t, zt;
  bool cubic, records;
  KOKKOS_FUNCTION void operator()(int e, int i) const {
    double const Kt = sum() * invN;
    if (e == 0 && i == 0) K_path(t) = Kt;
    int const s = 2 * zt + e;
    int const nk = axk.size();
    // The policy at k node j, interpolated in K at K_t.
    interp::Stencil4<Real> wK{0, 0, {Real(0), Real(0), Real(0), Real(0)}};
    grid::CellPosition<Real> qK{0, Real(0)};
    if (cubic)
      wK = interp::catmull_rom_stencil(axK, Real(Kt));
    else
      qK = axK.locate(Real(Kt));
    auto value = [&](int j) {
      if (!cubic) return g(s, j, qK.cell) + qK.t * (g(s, j, qK.cell + 1) - g(s, j, qK.cell));
      Real v = 0;
      for (int b = 0; b < wK.count; ++b) v += wK.w[b] * g(s, j, wK.start + b);
      return v;
    };
    Real a[4] = {Real(0), Real(0), Real(0), Real(0)};
    Real const y0 = value(i), y1 = value(i + 1);
    if (!cubic) {
      a[0] = y0, a[1] = y1 - y0;
    } else {
      int start = i - 1;  // the stencil of cell i (nk >= 4)
      start = start < 0 ? 0 : (start > nk - 4 ? nk - 4 : start);
      Real y[4];
      for (int q = 0; q < 4; ++q) y[q] = q + start == i ? y0 : (q + start == i + 1 ? y1 : value(start + q));
      Real const h = axk.node(i + 1) - axk.node(i);
      Real w0[4] = {Real(0), Real(0), Real(0), Real(0)}, w1[4] = {Real(0), Real(0), Real(0), Real(0)};
      interp::detail::add_slope(axk, i, h, start, w0);  // h * slope at node i
      interp::detail::add_slope(axk, i + 1, h, start, w1);
      Real m0 = 0, m1 = 0;
      for (int q = 0; q < 4; ++q) m0 += w0[q] * y[q], m1 += w1[q] * y[q];
      a[0] = y0;
      a[1] = m0;
      a[2] = 3 * (y1 - y0) - 2 * m0 - m1;
      a[3] = 2 * (y0 - y1) + m0 + m1;
    }
    if (records) {
      CellCubic<Real> r{};
      r.x0 = axk.node(i), r.x1 = axk.node(i + 1);
      for (int q = 0; q < 4; ++q) r.a[q] = a[q];
      rec(long(e) * (nk - 1) + i) = r;
    } else {
      for (int q = 0; q < 4; ++q) coef(e, i, q) = a[q];
    }
  }
};

// One period for every agent: k' from its cell's cubic, the sum of k' reduced. The cell comes
// from the axis (bucket table, then binary search among the nodes the bucket spans).
template <class Axis, class Real, class Mem>
struct PanelStep {
  Axis axk;
  Kokkos::View<std::uint32_t*, Mem> words;
  Kokkos::View<Real***, Mem> coef;
  Kokkos::View<Real*, Mem> k;
  long offset;
  Real k_min;
  KOKKOS_FUNCTION void operator()(std::int64_t i, double& acc) const {
    int const e = int((words(offset + i / 32) >> (i % 32)) & 1u);
    auto const pos = axk.locate(k(i));
    Real const tt = pos.t;
    Real kp =
        coef(e, pos.cell, 0) + tt * (coef(e, pos.cell, 1) + tt * (coef(e, pos.cell, 2) + tt * coef(e, pos.cell, 3)));
    kp = kp > k_min ? kp : k_min;
    k(i) = kp;
    acc += double(kp);
  }
};

// The same step with the cell found in closed form: the k nodes are lo + (hi - lo) s^p with s
// uniform, so the cell is floor((n - 1) ((x - lo) / (hi - lo))^(1/p)), computed in float and then
// corrected against the record's own nodes (at most a step or two). The cell, t and the cubic
// are those of PanelStep, so the results are identical.
template <class Real, class Mem>
struct PanelStepPower {
  Kokkos::View<std::uint32_t*, Mem> words;
  Kokkos::View<CellCubic<Real>*, Mem> rec;
  Kokkos::View<Real*, Mem> k;
  long offset;
  Real k_min, lo, hi, inv_range;
  float inv_power;
  int cells;
  KOKKOS_FUNCTION int employment(std::int64_t i) const { return int((words(offset + i / 32) >> (i % 32)) & 1u); }
  KOKKOS_FUNCTION Real clamp(Real x) const { return x < lo ? lo : (x > hi ? hi : x); }
  // The closed-form cell of a clamped x, before the correction against the nodes: u^(1/p) by
  // grid::approximate_root (within 0.03 % at p = 7, a fraction of a cell; fewer instructions than
  // libm's exp2/log2, though the H200 panel times did not move: 0.153 / 0.077 s either way).
  KOKKOS_FUNCTION int cell_guess(Real x) const {
    int const c = int(grid::approximate_root(float((x - lo) * inv_range), inv_power) * float(cells));
    return c < 0 ? 0 : (c > cells - 1 ? cells - 1 : c);
  }
  // k' from the cell's cubic a at t, kept at or above k_min.
  KOKKOS_FUNCTION Real next_capital(Real const (&a)[4], Real t) const {
    Real const kp = a[0] + t * (a[1] + t * (a[2] + t * a[3]));
    return kp > k_min ? kp : k_min;
  }
  KOKKOS_FUNCTION void operator()(std::int64_t i, double& acc) const {
    Real const x = clamp(k(i));
    int c = cell_guess(x);
    long const base = long(employment(i)) * cells;
    CellCubic<Real> r = rec(base + c);
    while (c > 0 && x < r.x0) r = rec(base + --c);
    while (c < cells - 1 && x >= r.x1) r = rec(base + ++c);
    Real const kp = next_capital(r.a, (x - r.x0) / (r.x1 - r.x0));
    k(i) = kp;
    acc += double(kp);
  }
};

// PanelStepPower with the period's records in team scratch memory (PanelLocate::scratch). A team
// copies the 2 (nk - 1) cubics and the nk nodes once, then steps a contiguous chunk of agents:
// the same cell, t and cubic as PanelStepPower, so the same k'; the sum is reduced per team.
// Each thread loads the capital and employment of Unroll agents (a team size apart, so every
// load is coalesced) before it steps any of them: Unroll independent loads in flight per thread,
// which the step needs to cover memory latency with one wave of teams (Little's law). On the H200
// (10^7 agents, 500x50, double) Unroll 2 took the panel from 0.118 s to 0.099 s; 4 and 8 took
// 0.139 and 0.116 s: 58 and 78 registers instead of 48, fewer teams per multiprocessor.
// On a GPU the team is max_team threads and the launch bounds hold min_teams teams per
// multiprocessor by registers (48 in double, 32 in float at Unroll 2), so the league of one full
// wave (run::resident_teams) is known.
#ifndef PARITY_KS_PANEL_UNROLL
#define PARITY_KS_PANEL_UNROLL 2
#endif
template <class ExecSpace, class Real, int Unroll = PARITY_KS_PANEL_UNROLL>
struct PanelStepScratch {
  static_assert(Unroll >= 1);
  static constexpr unsigned max_team = 256, min_teams = sizeof(Real) == 8 ? 5 : 8;
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<max_team, min_teams>>;
  using Mem = typename ExecSpace::memory_space;
  using Member = typename Policy::member_type;
  struct alignas(4 * sizeof(Real)) Cubic {  // one vector load on a GPU
    Real a[4];
  };
  template <class T>
  using ScratchView = Kokkos::View<T, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  PanelStepPower<Real, Mem> power;  // the data and the per-agent arithmetic
  long agents, chunk;  // agents per team: team league_rank steps [rank chunk, (rank + 1) chunk)

  static std::size_t scratch_bytes(int cells) {
    return sizeof(Cubic) * std::size_t(2 * cells) + sizeof(Real) * std::size_t(cells + 1) + 2 * alignof(Cubic);
  }

  KOKKOS_FUNCTION void operator()(Member const& team, double& acc) const {
    auto const& rec = power.rec;
    int const cells = power.cells;
    auto& scratch = team.team_scratch(0);
    ScratchView<Cubic*> cubic(static_cast<Cubic*>(scratch.get_shmem_aligned(sizeof(Cubic) * 2 * cells, alignof(Cubic))),
                              2 * cells);
    ScratchView<Real*> node(static_cast<Real*>(scratch.get_shmem_aligned(sizeof(Real) * (cells + 1), alignof(Cubic))),
                            cells + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * cells), [&](int j) {
      for (int q = 0; q < 4; ++q) cubic(j).a[q] = rec(j).a[q];
      if (j < cells) node(j) = rec(j).x0;  // both employment states' records share the nodes
      if (j == cells - 1) node(cells) = rec(j).x1;
    });
    team.team_barrier();
    long const begin = long(team.league_rank()) * chunk;
    long const end = begin + chunk < agents ? begin + chunk : agents;
    long const stride = team.team_size();
    double part = 0;
    // Thread r steps agents begin + r + stride (Unroll q + u), u = 0..Unroll-1, for q = 0, 1, ...
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, team.team_size()),
        [&](int r, double& sum) {
          for (long first = begin + r; first < end; first += Unroll * stride) {
            Real x[Unroll];
            int e[Unroll];
            for (int u = 0; u < Unroll; ++u) {
              long const i = first + u * stride;
              x[u] = i < end ? power.k(i) : power.lo;
              e[u] = i < end ? power.employment(i) : 0;
            }
            for (int u = 0; u < Unroll; ++u) {
              long const i = first + u * stride;
              if (i >= end) break;
              Real const xu = power.clamp(x[u]);
              int c = power.cell_guess(xu);
              while (c > 0 && xu < node(c)) --c;
              while (c < cells - 1 && xu >= node(c + 1)) ++c;
              Cubic const rc = cubic(long(e[u]) * cells + c);
              Real const kp = power.next_capital(rc.a, (xu - node(c)) / (node(c + 1) - node(c)));
              power.k(i) = kp;
              sum += double(kp);
            }
          }
        },
        part);
    Kokkos::single(Kokkos::PerTeam(team), [&] { acc += part; });
  }
};

template <class Mem>
struct LastMean {
  Kokkos::View<double, Mem> sum;
  Kokkos::View<double*, Mem> K_path;
  double invN;
  int T;
  KOKKOS_FUNCTION void operator()(int) const { K_path(T) = sum() * invN; }
};

}  // namespace kernels

}  // namespace parity::krusell_smith::detail
