#pragma once
// Catmull-Rom (cubic Hermite) interpolation on non-uniform tensor grids, 1-D and bicubic 2-D.
// Node slopes are the three-point finite differences that are exact for quadratics (on a uniform
// grid these are the classic Catmull-Rom central differences); at the first and last node the
// one-sided three-point formula is used, so the interpolant reproduces quadratics everywhere and
// is C1. Axes with 2 nodes fall back to linear. Coordinates are clamped to the box as in
// multilinear.hpp.
#include <Kokkos_Core.hpp>

#include "parity/grid/axis.hpp"

namespace parity::interp {

// Weights of nodes start..start+count-1 whose weighted sum is the interpolant at x.
template <class Real>
struct Stencil4 {
  int start;
  int count;
  Real w[4];
};

namespace detail {

// Adds to w (indexed from `start`) the coefficients of the slope at node j.
template <class Real, class MemorySpace>
KOKKOS_INLINE_FUNCTION void add_slope(grid::Axis<Real, MemorySpace> const& ax, int j, Real scale, int start, Real* w) {
  int const n = ax.size();
  if (j == 0) {
    Real const h1 = ax.node(1) - ax.node(0), h2 = ax.node(2) - ax.node(1);
    w[0 - start] += scale * (-(2 * h1 + h2) / (h1 * (h1 + h2)));
    w[1 - start] += scale * ((h1 + h2) / (h1 * h2));
    w[2 - start] += scale * (-h1 / (h2 * (h1 + h2)));
  } else if (j == n - 1) {
    Real const h1 = ax.node(n - 2) - ax.node(n - 3), h2 = ax.node(n - 1) - ax.node(n - 2);
    w[n - 3 - start] += scale * (h2 / (h1 * (h1 + h2)));
    w[n - 2 - start] += scale * (-(h1 + h2) / (h1 * h2));
    w[n - 1 - start] += scale * ((2 * h2 + h1) / (h2 * (h1 + h2)));
  } else {
    Real const hl = ax.node(j) - ax.node(j - 1), hr = ax.node(j + 1) - ax.node(j);
    w[j - 1 - start] += scale * (-hr / (hl * (hl + hr)));
    w[j - start] += scale * ((hr - hl) / (hl * hr));
    w[j + 1 - start] += scale * (hl / (hr * (hl + hr)));
  }
}

}  // namespace detail

template <class Real, class MemorySpace>
KOKKOS_INLINE_FUNCTION Stencil4<Real> catmull_rom_stencil(grid::Axis<Real, MemorySpace> const& ax, Real x) {
  Stencil4<Real> s{0, 0, {Real(0), Real(0), Real(0), Real(0)}};
  auto const p = ax.locate(x);
  int const n = ax.size();
  int const i = p.cell;
  if (n == 2) {
    s.start = 0;
    s.count = 2;
    s.w[0] = 1 - p.t;
    s.w[1] = p.t;
    return s;
  }
  s.count = n < 4 ? n : 4;
  int start = i - 1;
  start = start < 0 ? 0 : start;
  start = start > n - s.count ? n - s.count : start;
  s.start = start;
  Real const t = p.t, t2 = t * t, t3 = t2 * t;
  Real const h = ax.node(i + 1) - ax.node(i);
  s.w[i - start] += 2 * t3 - 3 * t2 + 1;
  s.w[i + 1 - start] += -2 * t3 + 3 * t2;
  detail::add_slope(ax, i, h * (t3 - 2 * t2 + t), start, s.w);
  detail::add_slope(ax, i + 1, h * (t3 - t2), start, s.w);
  return s;
}

template <class Real, class MemorySpace, class Values>
KOKKOS_INLINE_FUNCTION Real catmull_rom(grid::Axis<Real, MemorySpace> const& ax, Values const& v, Real x) {
  static_assert(Values::rank == 1, "1-D Catmull-Rom needs a rank-1 View");
  auto const s = catmull_rom_stencil(ax, x);
  Real sum = 0;
  for (int a = 0; a < s.count; ++a) sum += s.w[a] * v(s.start + a);
  return sum;
}

// Bicubic Catmull-Rom: the tensor product of the 1-D stencils (16 values).
template <class Real, class MemorySpace, class Values>
KOKKOS_INLINE_FUNCTION Real catmull_rom(grid::Axis<Real, MemorySpace> const& ax0,
                                        grid::Axis<Real, MemorySpace> const& ax1, Values const& v, Real x0, Real x1) {
  static_assert(Values::rank == 2, "bicubic Catmull-Rom needs a rank-2 View");
  auto const s = catmull_rom_stencil(ax0, x0);
  auto const r = catmull_rom_stencil(ax1, x1);
  Real sum = 0;
  for (int a = 0; a < s.count; ++a) {
    Real row = 0;
    for (int b = 0; b < r.count; ++b) row += r.w[b] * v(s.start + a, r.start + b);
    sum += s.w[a] * row;
  }
  return sum;
}

}  // namespace parity::interp
