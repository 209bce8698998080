#pragma once
// The all-pairs Kuramoto kernels (kuramoto.hpp): the O(N^2) drift through team-scratch tiles and
// the update of a stage.
#include <Kokkos_Core.hpp>
#include <algorithm>

#include "parity/sde/detail/kuramoto_phase.hpp"

namespace parity::sde::detail {

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

}  // namespace parity::sde::detail
