#pragma once
// The kernels of Young's (2010) histogram method: each saving a'(z, a) splits its mass between
// the two grid points around it (a lottery that keeps the mean), then the Markov chain moves z.
// Sums run in a fixed order (no atomics), so the distribution is the same on every backend and
// thread count up to the arithmetic of the backend.
#include <Kokkos_Core.hpp>

#include "models/dp/detail/bellman.hpp"
#include "models/dp/detail/egm.hpp"

namespace parity::dp::detail {

// lower(z, i): the grid cell [grid(j), grid(j+1)] that holds the saving (clamped to the grid),
// weight(z, i): the share of the mass that goes to grid(j).
template <class ExecutionSpace, class Real, class MemorySpace>
void lotteries(ExecutionSpace const& space, Kokkos::View<const Real*, MemorySpace> const& grid,
               Table<const Real, MemorySpace> const& saving, Table<int, MemorySpace> const& lower,
               Table<Real, MemorySpace> const& weight) {
  int const nz = int(saving.extent(0)), nk = int(saving.extent(1));
  Kokkos::parallel_for(
      "parity::dp::lotteries", Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>(space, {0, 0}, {nz, nk}),
      KOKKOS_LAMBDA(int z, int i) {
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
  Kokkos::parallel_reduce(
      "parity::dp::monotone_lotteries",
      Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>(space, {0, 0}, {nz, nk - 1}),
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
  Kokkos::parallel_for(
      "parity::dp::lottery_runs", Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>(space, {0, 0}, {nz, nk + 2}),
      KOKKOS_LAMBDA(int z, int m1) {
        auto const row = Kokkos::subview(lower, z, Kokkos::ALL);
        first(z, m1) = upper_index(row, nk, m1 - 2);  // first i with lower > m - 1, m = m1 - 1
      });
}

// The mass that grid point k receives from today's exogenous state z, summed over i in increasing
// order. With monotone lotteries the i that reach k form two contiguous runs, [first(k - 1),
// first(k)) giving 1 - weight and [first(k), first(k + 1)) giving weight; otherwise every i is
// visited.
template <class Real, class MemorySpace>
KOKKOS_INLINE_FUNCTION Real lottery_mass(Table<const Real, MemorySpace> const& mu,
                                         Table<const int, MemorySpace> const& lower,
                                         Table<const Real, MemorySpace> const& weight,
                                         Table<const int, MemorySpace> const& first, bool is_monotone, int z, int k) {
  int const nk = int(mu.extent(1));
  Real s = 0;
  if (is_monotone) {
    int const a = first(z, k), b = first(z, k + 1), c = first(z, k + 2);
    for (int i = a; i < b; ++i) s += mu(z, i) * (1 - weight(z, i));
    for (int i = b; i < c; ++i) s += mu(z, i) * weight(z, i);
  } else {
    for (int i = 0; i < nk; ++i) {
      int const j = lower(z, i);
      if (j == k - 1) s += mu(z, i) * (1 - weight(z, i));
      if (j == k) s += mu(z, i) * weight(z, i);
    }
  }
  return s;
}

// T(z, k): the lottery mass from z to k, for every (z, k).
template <class ExecutionSpace, class Real, class MemorySpace>
void lottery_masses(ExecutionSpace const& space, Table<const Real, MemorySpace> const& mu,
                    Table<const int, MemorySpace> const& lower, Table<const Real, MemorySpace> const& weight,
                    Table<const int, MemorySpace> const& first, bool is_monotone, Table<Real, MemorySpace> const& T) {
  int const nz = int(mu.extent(0)), nk = int(mu.extent(1));
  Kokkos::parallel_for(
      "parity::dp::lottery_mass", Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>(space, {0, 0}, {nz, nk}),
      KOKKOS_LAMBDA(int z, int k) {
        T(z, k) = lottery_mass<Real, MemorySpace>(mu, lower, weight, first, is_monotone, z, k);
      });
}

// mu_next(z', k) = sum_z P(z, z') T(z, k), in the order of z, and max |mu_next - mu| into `change`
// (a device scalar: the host need not wait).
template <class ExecutionSpace, class Real, class MemorySpace>
void move_exogenous(ExecutionSpace const& space, Table<const Real, MemorySpace> const& P,
                    Table<const Real, MemorySpace> const& T, Table<const Real, MemorySpace> const& mu,
                    Table<Real, MemorySpace> const& mu_next, Kokkos::View<Real, MemorySpace> const& change) {
  int const nz = int(mu.extent(0)), nk = int(mu.extent(1));
  Kokkos::parallel_reduce(
      "parity::dp::move_exogenous", Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>(space, {0, 0}, {nz, nk}),
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
