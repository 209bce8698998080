#pragma once
// The kernels of Young's (2010) histogram method: each saving a'(z, a) splits its mass between
// the two grid points around it (a lottery that keeps the mean), then the Markov chain moves z.
// Sums run in a fixed order (no atomics), so the distribution is the same on every backend and
// thread count up to the arithmetic of the backend.
#include <Kokkos_Core.hpp>

#include "parity/dp/detail/bellman.hpp"
#include "parity/dp/detail/egm.hpp"

namespace parity::dp::detail {

// lower(z, i): the grid cell [grid(j), grid(j+1)] that holds the saving (clamped to the grid),
// weight(z, i): the share of the mass that goes to grid(j).
template <class ExecutionSpace, class Real, class MemorySpace>
void lotteries(ExecutionSpace const& space, Kokkos::View<const Real*, MemorySpace> const& grid,
               Table<const Real, MemorySpace> const& saving, Table<int, MemorySpace> const& lower,
               Table<Real, MemorySpace> const& weight) {
  int const nz = int(saving.extent(0)), nk = int(saving.extent(1));
  for_cells(
      "parity::dp::lotteries", space, nz, nk, KOKKOS_LAMBDA(int z, int i) {
        Real a = saving(z, i);
        a = a < grid(0) ? grid(0) : (a > grid(nk - 1) ? grid(nk - 1) : a);
        int j = upper_index(grid, nk, a) - 1;  // grid(j) <= a < grid(j+1)
        j = j < 0 ? 0 : (j > nk - 2 ? nk - 2 : j);
        lower(z, i) = j;
        weight(z, i) = (grid(j + 1) - a) / (grid(j + 1) - grid(j));
      });
}

// Whether lower(z, .) is nondecreasing in i for every z (savings monotone in assets).
template <class ExecutionSpace, class MemorySpace>
bool monotone(ExecutionSpace const& space, Table<const int, MemorySpace> const& lower) {
  int const nz = int(lower.extent(0)), nk = int(lower.extent(1));
  int bad = 0;
  reduce_cells(
      "parity::dp::monotone_lotteries", space, nz, nk - 1,
      KOKKOS_LAMBDA(int z, int i, int& lbad) {
        if (lower(z, i + 1) < lower(z, i)) lbad = 1;
      },
      Kokkos::Max<int>(bad));
  return !(bad > 0);
}

// first(z, m + 1): the first i with lower(z, i) >= m, for m = -1 .. n_k (monotone lotteries). The
// lotteries do not change while the distribution iterates, so these runs are found once per solve.
template <class ExecutionSpace, class MemorySpace>
void lottery_runs(ExecutionSpace const& space, Table<const int, MemorySpace> const& lower,
                  Table<int, MemorySpace> const& first) {
  int const nz = int(lower.extent(0)), nk = int(lower.extent(1));
  for_cells(
      "parity::dp::lottery_runs", space, nz, nk + 2, KOKKOS_LAMBDA(int z, int m1) {
        auto const row = Kokkos::subview(lower, z, Kokkos::ALL);
        first(z, m1) = upper_index(row, nk, m1 - 2);  // first i with lower > m - 1, m = m1 - 1
      });
}

// The longest run of lotteries into one grid point, max over (z, m) of first(z, m + 1) - first(z, m).
template <class ExecutionSpace, class MemorySpace>
int longest_run(ExecutionSpace const& space, Table<const int, MemorySpace> const& first) {
  int const nz = int(first.extent(0)), nm = int(first.extent(1)) - 1;
  int longest = 0;
  reduce_cells(
      "parity::dp::longest_lottery_run", space, nz, nm,
      KOKKOS_LAMBDA(int z, int m, int& l) {
        int const n = first(z, m + 1) - first(z, m);
        l = n > l ? n : l;
      },
      Kokkos::Max<int>(longest));
  return longest;
}

// Partial sums of the two kinds of lottery terms, mu (1 - weight) (mass to the upper point) and
// mu weight (to the lower point), over blocks of `lottery_block` cells and superblocks of
// `lottery_block` blocks, each in index order. Where savings are flat (the borrowing limit binds
// over thousands of grid points) one grid point receives a long run of cells; from these sums its
// mass takes at most about 4 lottery_block + n_k / lottery_block^2 additions in a fixed order
// instead of one per cell, so one thread no longer walks the whole run.
inline constexpr int lottery_block = 32;

template <class Real, class MemorySpace>
struct LotteryBlocks {
  Table<Real, MemorySpace> up, down;  // per block
  Table<Real, MemorySpace> up_super, down_super;  // per superblock
  LotteryBlocks() = default;
  template <class ExecutionSpace>
  LotteryBlocks(ExecutionSpace const& space, int nz, int nk) {
    int const nb = (nk + lottery_block - 1) / lottery_block, ns = (nb + lottery_block - 1) / lottery_block;
    up = Table<Real, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::lottery_block_up"), nz, nb);
    down = Table<Real, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::lottery_block_down"), nz, nb);
    up_super = Table<Real, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::lottery_superblock_up"), nz, ns);
    down_super = Table<Real, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::lottery_superblock_down"), nz, ns);
  }
};

template <class ExecutionSpace, class Real, class MemorySpace>
void lottery_block_sums(ExecutionSpace const& space, Table<const Real, MemorySpace> const& mu,
                        Table<const Real, MemorySpace> const& weight, LotteryBlocks<Real, MemorySpace> const& b) {
  int const nz = int(mu.extent(0)), nk = int(mu.extent(1));
  int const nb = int(b.up.extent(1)), ns = int(b.up_super.extent(1));
  for_cells(
      "parity::dp::lottery_block_sums", space, nz, nb, KOKKOS_LAMBDA(int z, int q) {
        int const end = (q + 1) * lottery_block < nk ? (q + 1) * lottery_block : nk;
        Real u = 0, d = 0;
        for (int i = q * lottery_block; i < end; ++i) {
          u += mu(z, i) * (1 - weight(z, i));
          d += mu(z, i) * weight(z, i);
        }
        b.up(z, q) = u;
        b.down(z, q) = d;
      });
  for_cells(
      "parity::dp::lottery_superblock_sums", space, nz, ns, KOKKOS_LAMBDA(int z, int q) {
        int const end = (q + 1) * lottery_block < nb ? (q + 1) * lottery_block : nb;
        Real u = 0, d = 0;
        for (int j = q * lottery_block; j < end; ++j) {
          u += b.up(z, j);
          d += b.down(z, j);
        }
        b.up_super(z, q) = u;
        b.down_super(z, q) = d;
      });
}

// sum of term(i) over lo <= i < hi: cell by cell for short runs (in index order), otherwise the
// cells up to a block boundary, whole blocks up to a superblock boundary, whole superblocks, then
// whole blocks and cells again. The order depends only on (lo, hi), never on the backend.
template <class Real, class Term, class Blocks>
KOKKOS_INLINE_FUNCTION Real run_sum(int lo, int hi, Term const& term, bool blocked, Blocks const& blocks,
                                    Blocks const& supers, int z) {
  constexpr int B = lottery_block, S = lottery_block * lottery_block;
  Real s = 0;
  int i = lo;
  if (blocked && hi - lo >= 2 * B) {
    for (; i % B != 0; ++i) s += term(i);
    for (; i % S != 0 && i + B <= hi; i += B) s += blocks(z, i / B);
    for (; i + S <= hi; i += S) s += supers(z, i / S);
    for (; i + B <= hi; i += B) s += blocks(z, i / B);
  }
  for (; i < hi; ++i) s += term(i);
  return s;
}

// The mass that grid point k receives from today's exogenous state z. With monotone lotteries the
// i that reach k form two contiguous runs, [first(k - 1), first(k)) giving 1 - weight and
// [first(k), first(k + 1)) giving weight (summed by run_sum); otherwise every i is visited in
// increasing order.
template <class Real, class MemorySpace>
KOKKOS_INLINE_FUNCTION Real lottery_mass(Table<const Real, MemorySpace> const& mu,
                                         Table<const int, MemorySpace> const& lower,
                                         Table<const Real, MemorySpace> const& weight,
                                         Table<const int, MemorySpace> const& first, bool is_monotone, bool blocked,
                                         LotteryBlocks<Real, MemorySpace> const& b, int z, int k) {
  int const nk = int(mu.extent(1));
  if (is_monotone) {
    auto const up = [&](int i) { return mu(z, i) * (1 - weight(z, i)); };
    auto const down = [&](int i) { return mu(z, i) * weight(z, i); };
    Real const s = run_sum<Real>(first(z, k), first(z, k + 1), up, blocked, b.up, b.up_super, z);
    return s + run_sum<Real>(first(z, k + 1), first(z, k + 2), down, blocked, b.down, b.down_super, z);
  }
  Real s = 0;
  for (int i = 0; i < nk; ++i) {
    int const j = lower(z, i);
    if (j == k - 1) s += mu(z, i) * (1 - weight(z, i));
    if (j == k) s += mu(z, i) * weight(z, i);
  }
  return s;
}

// T(z, k): the lottery mass from z to k, for every (z, k); `blocked`: b holds the block sums of mu.
template <class ExecutionSpace, class Real, class MemorySpace>
void lottery_masses(ExecutionSpace const& space, Table<const Real, MemorySpace> const& mu,
                    Table<const int, MemorySpace> const& lower, Table<const Real, MemorySpace> const& weight,
                    Table<const int, MemorySpace> const& first, bool is_monotone, bool blocked,
                    LotteryBlocks<Real, MemorySpace> const& b, Table<Real, MemorySpace> const& T) {
  int const nz = int(mu.extent(0)), nk = int(mu.extent(1));
  for_cells(
      "parity::dp::lottery_mass", space, nz, nk, KOKKOS_LAMBDA(int z, int k) {
        T(z, k) = lottery_mass<Real, MemorySpace>(mu, lower, weight, first, is_monotone, blocked, b, z, k);
      });
}

// mu_next(z', k) = sum_z P(z, z') T(z, k), in the order of z, and max |mu_next - mu| into `change`
// (a device scalar: the host need not wait).
template <class ExecutionSpace, class Real, class MemorySpace>
void move_exogenous(ExecutionSpace const& space, Table<const Real, MemorySpace> const& P,
                    Table<const Real, MemorySpace> const& T, Table<const Real, MemorySpace> const& mu,
                    Table<Real, MemorySpace> const& mu_next, Kokkos::View<Real, MemorySpace> const& change) {
  int const nz = int(mu.extent(0)), nk = int(mu.extent(1));
  reduce_cells(
      "parity::dp::move_exogenous", space, nz, nk,
      KOKKOS_LAMBDA(int zn, int k, Real& lmax) {
        Real m = 0;
        for (int z = 0; z < nz; ++z) m += P(z, zn) * T(z, k);
        mu_next(zn, k) = m;
        Real const d = Kokkos::fabs(m - mu(zn, k));
        lmax = d > lmax ? d : lmax;
      },
      Kokkos::Max<Real, MemorySpace>(change));
}

}  // namespace parity::dp::detail
