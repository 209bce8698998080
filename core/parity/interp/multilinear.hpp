#pragma once
// Multilinear interpolation on tensor grids in 1 to 3 dimensions.
// Outside the box each coordinate is clamped to its axis, so the value is held constant beyond
// the boundary (the extrapolation value-function iteration needs; stated in the README).
#include <Kokkos_Core.hpp>

#include "parity/grid/axis.hpp"

namespace parity::interp {

template <class Real, class MemorySpace, class Values>
KOKKOS_INLINE_FUNCTION Real linear(grid::Axis<Real, MemorySpace> const& ax, Values const& v, Real x) {
  static_assert(Values::rank == 1, "linear interpolation needs a rank-1 View");
  auto const p = ax.locate(x);
  return v(p.cell) + p.t * (v(p.cell + 1) - v(p.cell));
}

template <class Real, class MemorySpace, class Values>
KOKKOS_INLINE_FUNCTION Real bilinear(grid::Axis<Real, MemorySpace> const& ax0, grid::Axis<Real, MemorySpace> const& ax1,
                                     Values const& v, Real x0, Real x1) {
  static_assert(Values::rank == 2, "bilinear interpolation needs a rank-2 View");
  auto const p = ax0.locate(x0);
  auto const q = ax1.locate(x1);
  int const i = p.cell, j = q.cell;
  Real const a = v(i, j) + q.t * (v(i, j + 1) - v(i, j));
  Real const b = v(i + 1, j) + q.t * (v(i + 1, j + 1) - v(i + 1, j));
  return a + p.t * (b - a);
}

template <class Real, class MemorySpace, class Values>
KOKKOS_INLINE_FUNCTION Real trilinear(grid::Axis<Real, MemorySpace> const& ax0,
                                      grid::Axis<Real, MemorySpace> const& ax1,
                                      grid::Axis<Real, MemorySpace> const& ax2, Values const& v, Real x0, Real x1,
                                      Real x2) {
  static_assert(Values::rank == 3, "trilinear interpolation needs a rank-3 View");
  auto const p = ax0.locate(x0);
  auto const q = ax1.locate(x1);
  auto const r = ax2.locate(x2);
  int const i = p.cell, j = q.cell, k = r.cell;
  auto lerp = [](Real a, Real b, Real t) { return a + t * (b - a); };
  Real const c00 = lerp(v(i, j, k), v(i, j, k + 1), r.t);
  Real const c01 = lerp(v(i, j + 1, k), v(i, j + 1, k + 1), r.t);
  Real const c10 = lerp(v(i + 1, j, k), v(i + 1, j, k + 1), r.t);
  Real const c11 = lerp(v(i + 1, j + 1, k), v(i + 1, j + 1, k + 1), r.t);
  return lerp(lerp(c00, c01, q.t), lerp(c10, c11, q.t), p.t);
}

}  // namespace parity::interp
