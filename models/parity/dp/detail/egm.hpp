#pragma once
// The kernels of the endogenous grid method (Carroll 2006) on a Markov exogenous state: from the
// consumption policy on the grid, the endogenous grid of today's assets that make each grid point
// a' optimal, and the policy interpolated back onto the grid (the borrowing limit where it binds).
#include <Kokkos_Core.hpp>

#include "parity/dp/detail/bellman.hpp"

namespace parity::dp::detail {

// The first index j in [0, n) with x < v(j), by bisection on an increasing row (n if none).
template <class Row, class Real>
KOKKOS_INLINE_FUNCTION int upper_index(Row const& v, int n, Real x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int const mid = lo + (hi - lo) / 2;
    if (x < v(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// u'(c(z, j)) for every (z, j): once per state, not once per (today's z, z') pair.
template <class ExecutionSpace, class Real, class Model, class MemorySpace>
void marginal_utilities(ExecutionSpace const& space, Model const& model, Table<const Real, MemorySpace> const& c,
                        Table<Real, MemorySpace> const& u_prime) {
  int const nz = int(c.extent(0)), nk = int(c.extent(1));
  for_cells(
      "parity::dp::marginal_utility", space, nz, nk,
      KOKKOS_LAMBDA(int z, int j) { u_prime(z, j) = Real(model.marginal_utility(c(z, j))); });
}

// For each (z, j): today's assets a_endo(z, j) from which saving grid(j) satisfies the Euler
// equation u'(c) = beta R sum_z' P(z, z') u'(c(z', j)) with equality (u' from marginal_utilities).
template <class ExecutionSpace, class Real, class Model, class MemorySpace>
void endogenous_grid(ExecutionSpace const& space, Model const& model,
                     Kokkos::View<const Real*, MemorySpace> const& grid,
                     Kokkos::View<const Real*, MemorySpace> const& zvalues, Table<const Real, MemorySpace> const& P,
                     Real beta_R, Table<const Real, MemorySpace> const& u_prime,
                     Table<Real, MemorySpace> const& a_endo) {
  int const nz = int(u_prime.extent(0)), nk = int(u_prime.extent(1));
  for_cells(
      "parity::dp::endogenous_grid", space, nz, nk, KOKKOS_LAMBDA(int z, int j) {
        Real emu = 0;
        for (int zn = 0; zn < nz; ++zn) emu += P(z, zn) * u_prime(zn, j);
        Real const c_today = Real(model.inverse_marginal_utility(beta_R * emu));
        a_endo(z, j) = Real(model.assets_for_cash(zvalues(z), c_today + grid(j)));
      });
}

// For each (z, i): the saving a' at grid(i), interpolated linearly in a_endo(z, .) (extrapolated
// past its last point; the borrowing limit grid(0) below its first), and c = cash - a'.
template <class ExecutionSpace, class Real, class Model, class MemorySpace>
void policy_on_grid(ExecutionSpace const& space, Model const& model, Kokkos::View<const Real*, MemorySpace> const& grid,
                    Kokkos::View<const Real*, MemorySpace> const& zvalues, Table<const Real, MemorySpace> const& a_endo,
                    Table<Real, MemorySpace> const& c_new, Table<Real, MemorySpace> const& saving) {
  int const nz = int(c_new.extent(0)), nk = int(c_new.extent(1));
  for_cells(
      "parity::dp::policy_on_grid", space, nz, nk, KOKKOS_LAMBDA(int z, int i) {
        Real const a = grid(i);
        auto const row = Kokkos::subview(a_endo, z, Kokkos::ALL);
        Real a_next;
        if (a <= row(0)) {
          a_next = grid(0);  // the constraint binds: even saving the least leaves u'(c) above beta R E u'
        } else {
          int j = upper_index(row, nk, a);  // row(j-1) <= a < row(j)
          j = j >= nk ? nk - 1 : j;
          Real const t = (a - row(j - 1)) / (row(j) - row(j - 1));
          a_next = grid(j - 1) + t * (grid(j) - grid(j - 1));
        }
        saving(z, i) = a_next;
        c_new(z, i) = Real(model.cash(zvalues(z), a)) - a_next;
      });
}

// max |c_new - c| and whether a_endo is strictly increasing in j and c_new positive everywhere
// (the conditions under which the interpolation above is the policy).
template <class ExecutionSpace, class Real, class MemorySpace>
void egm_residual(ExecutionSpace const& space, Table<const Real, MemorySpace> const& c_new,
                  Table<const Real, MemorySpace> const& c, Table<const Real, MemorySpace> const& a_endo,
                  double& residual, bool& well_formed) {
  int const nz = int(c.extent(0)), nk = int(c.extent(1));
  Real r = 0;
  int bad = 0;
  reduce_cells(
      "parity::dp::egm_residual", space, nz, nk,
      KOKKOS_LAMBDA(int z, int i, Real& lr, int& lbad) {
        Real const d = Kokkos::fabs(c_new(z, i) - c(z, i));
        if (!(d == d) || Kokkos::isinf(d) || !(c_new(z, i) > 0)) lbad = 1;
        if (i + 1 < nk && !(a_endo(z, i) < a_endo(z, i + 1))) lbad = 1;
        lr = d > lr ? d : lr;
      },
      Kokkos::Max<Real>(r), Kokkos::Max<int>(bad));
  residual = double(r);
  well_formed = !(bad > 0);  // the Max reducer's identity is INT_MIN where no thread sets it
}

}  // namespace parity::dp::detail
