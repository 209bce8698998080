#pragma once
// The Genz-Malik (1980) degree-7 cubature rule with its embedded degree-5 rule, as used by
// CUHRE and hcubature, evaluated on one axis-aligned region by one Kokkos team.
//
// On the cube [-1,1]^n (scaled to a region with center c and half-widths h) the points are
//   the center; +-l2 e_i; +-l3 e_i; +-l4 (+-e_i +- e_j), i<j; all 2^n points (+-l5,...,+-l5),
// with l2 = sqrt(9/70), l3 = l4 = sqrt(9/10), l5 = sqrt(9/19). Degree-7 weights (times the
// region's volume): w1 = (12824 - 9120 n + 400 n^2)/19683, w2 = 980/6561, w3 = (1820 - 400 n)/19683,
// w4 = 200/19683, w5 = 6859/19683/2^n; degree-5 weights: w1' = (729 - 950 n + 50 n^2)/729,
// w2' = 245/486, w3' = (265 - 100 n)/1458, w4' = 25/729 (checked by tests: exact for every
// monomial of degree <= 7, resp. 5). Error estimate: |I7 - I5|. Split axis: the largest fourth
// divided difference |d2_i - (l2/l3)^2 d3_i|, d_k,i = f(c + l_k h_i e_i) + f(c - l_k h_i e_i) - 2 f(c)
// (Genz & Malik's criterion); near-ties go to the widest axis.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "models/cubature/options.hpp"

namespace parity::cubature {

// A point handed to the integrand: coordinates x[0..dim-1].
template <class Real>
struct Point {
  Real x[max_dim];
  int dim;
  KOKKOS_INLINE_FUNCTION Real operator[](int i) const { return x[i]; }
  KOKKOS_INLINE_FUNCTION int size() const { return dim; }
};

template <class Real>
struct RuleConstants {
  Real l2, l4, l5, ratio;            // ratio = (l2/l3)^2 = 1/7
  Real w1, w2, w3, w4, w5;           // degree 7
  Real v1, v2, v3, v4;               // degree 5
  KOKKOS_INLINE_FUNCTION explicit RuleConstants(int n) {
    double const d = n;
    l2 = Real(Kokkos::sqrt(9.0 / 70.0));
    l4 = Real(Kokkos::sqrt(9.0 / 10.0));
    l5 = Real(Kokkos::sqrt(9.0 / 19.0));
    ratio = Real((9.0 / 70.0) / (9.0 / 10.0));
    w1 = Real((12824.0 - 9120.0 * d + 400.0 * d * d) / 19683.0);
    w2 = Real(980.0 / 6561.0);
    w3 = Real((1820.0 - 400.0 * d) / 19683.0);
    w4 = Real(200.0 / 19683.0);
    w5 = Real(6859.0 / 19683.0 / double(std::int64_t(1) << n));
    v1 = Real((729.0 - 950.0 * d + 50.0 * d * d) / 729.0);
    v2 = Real(245.0 / 486.0);
    v3 = Real((265.0 - 100.0 * d) / 1458.0);
    v4 = Real(25.0 / 729.0);
  }
};

// What one application of the rule gives on one region.
template <class Real>
struct RegionEstimate {
  Real integral;   // degree-7 value
  Real lower;      // embedded degree-5 value
  Real error;      // |integral - lower|
  int axis;        // split axis
  bool finite;     // every integrand value was finite
};

// Team scratch a rule evaluation needs: three Reals per axis.
template <class Real>
KOKKOS_INLINE_FUNCTION constexpr std::size_t rule_scratch_reals() {
  return 3 * max_dim;
}

// Evaluates the rule on the region (c, h) with the whole team; every team member returns the
// same estimate. `axis_scratch` is team scratch of rule_scratch_reals<Real>() entries. The
// result is independent of the team size up to the summation order inside the team.
template <class Real, class F, class Member>
KOKKOS_INLINE_FUNCTION RegionEstimate<Real> evaluate_region(Member const& team, F const& f, int n, Real const* c,
                                                            Real const* h, Real* axis_scratch) {
  RuleConstants<Real> const k(n);
  Real f0 = 0;
  Kokkos::single(
      Kokkos::PerTeam(team),
      [&](Real& v) {
        Point<Real> p;
        p.dim = n;
        for (int i = 0; i < n; ++i) p.x[i] = c[i];
        v = f(p);
      },
      f0);

  // Axis points: +-l2 and +-l4 along each axis; remember the sums and the fourth difference.
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](int i) {
    Point<Real> p;
    p.dim = n;
    for (int m = 0; m < n; ++m) p.x[m] = c[m];
    p.x[i] = c[i] + k.l2 * h[i];
    Real const a1 = f(p);
    p.x[i] = c[i] - k.l2 * h[i];
    Real const a2 = f(p);
    p.x[i] = c[i] + k.l4 * h[i];
    Real const b1 = f(p);
    p.x[i] = c[i] - k.l4 * h[i];
    Real const b2 = f(p);
    axis_scratch[i] = a1 + a2;
    axis_scratch[max_dim + i] = b1 + b2;
    axis_scratch[2 * max_dim + i] = Kokkos::abs((a1 + a2 - 2 * f0) - k.ratio * (b1 + b2 - 2 * f0));
  });

  // +-l4 (+-e_i +- e_j), i < j: index = 4 * pair + signs.
  int const pairs = n * (n - 1) / 2;
  Real s4 = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, 4 * pairs),
      [&](int q, Real& acc) {
        int pair = q / 4;
        int const signs = q % 4;
        int i = 0;
        while (pair >= n - 1 - i) {
          pair -= n - 1 - i;
          ++i;
        }
        int const j = i + 1 + pair;
        Point<Real> p;
        p.dim = n;
        for (int m = 0; m < n; ++m) p.x[m] = c[m];
        p.x[i] = c[i] + ((signs & 1) ? -k.l4 : k.l4) * h[i];
        p.x[j] = c[j] + ((signs & 2) ? -k.l4 : k.l4) * h[j];
        acc += f(p);
      },
      s4);

  // The 2^n corner-like points (+-l5, ..., +-l5).
  Real s5 = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, 1 << n),
      [&](int q, Real& acc) {
        Point<Real> p;
        p.dim = n;
        for (int m = 0; m < n; ++m) p.x[m] = c[m] + (((q >> m) & 1) ? -k.l5 : k.l5) * h[m];
        acc += f(p);
      },
      s5);
  team.team_barrier();

  // Fixed-order sums over the axes, and the split axis.
  Real s2 = 0, s3 = 0, maxdiff = 0, fscale = Kokkos::abs(f0);
  for (int i = 0; i < n; ++i) {
    s2 += axis_scratch[i];
    s3 += axis_scratch[max_dim + i];
    maxdiff = Kokkos::fmax(maxdiff, axis_scratch[2 * max_dim + i]);
    fscale = Kokkos::fmax(fscale, Kokkos::fmax(Kokkos::abs(axis_scratch[i]), Kokkos::abs(axis_scratch[max_dim + i])));
  }
  // Differences within this margin of the largest (relative to it, or to the rounding noise of
  // the sampled values)
  // count as ties; among ties the widest axis is split (the first on equal widths).
  Real const eps = sizeof(Real) == 4 ? Real(1.1920929e-7) : Real(2.220446049250313e-16);
  Real const noise = Real(1e-6) * maxdiff + Real(64) * eps * fscale;
  int axis = 0;
  Real best_width = -1;
  for (int i = 0; i < n; ++i)
    if (axis_scratch[2 * max_dim + i] >= maxdiff - noise && h[i] > best_width) {
      best_width = h[i];
      axis = i;
    }

  Real volume = 1;
  for (int i = 0; i < n; ++i) volume *= 2 * h[i];
  Real const i7 = volume * (k.w1 * f0 + k.w2 * s2 + k.w3 * s3 + k.w4 * s4 + k.w5 * s5);
  Real const i5 = volume * (k.v1 * f0 + k.v2 * s2 + k.v3 * s3 + k.v4 * s4);
  RegionEstimate<Real> r;
  r.integral = i7;
  r.lower = i5;
  r.error = Kokkos::abs(i7 - i5);
  r.axis = axis;
  r.finite = Kokkos::isfinite(i7) && Kokkos::isfinite(i5) && Kokkos::isfinite(s2 + s3 + maxdiff);
  // A barrier so that the scratch may be reused by the caller's next evaluation.
  team.team_barrier();
  return r;
}

}  // namespace parity::cubature
