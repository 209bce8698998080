#pragma once
// The Genz-Malik (1980) degree-7 cubature rule with its embedded degree-5 rule, as used by
// CUHRE and hcubature, evaluated on one axis-aligned region by one Kokkos team, with two error
// estimates.
//
// On the cube [-1,1]^n (scaled to a region with center c and half-widths h) the points are
//   the center; +-l2 e_i; +-l3 e_i; +-l4 (+-e_i +- e_j), i<j; all 2^n points (+-l5,...,+-l5),
// with l2 = sqrt(9/70), l3 = l4 = sqrt(9/10), l5 = sqrt(9/19). Degree-7 weights (times the
// region's volume): w1 = (12824 - 9120 n + 400 n^2)/19683, w2 = 980/6561, w3 = (1820 - 400 n)/19683,
// w4 = 200/19683, w5 = 6859/19683/2^n; degree-5 weights: w1' = (729 - 950 n + 50 n^2)/729,
// w2' = 245/486, w3' = (265 - 100 n)/1458, w4' = 25/729 (checked by tests: exact for every
// monomial of degree <= 7, resp. 5). Split axis: the largest fourth divided difference
// |d2_i - (l2/l3)^2 d3_i|, d_k,i = f(c + l_k h_i e_i) + f(c - l_k h_i e_i) - 2 f(c) (Genz &
// Malik's criterion); near-ties go to the widest axis.
//
// Error estimates (ErrorEstimate in options.hpp):
//  - difference: |I7 - I5| (the paper's and hcubature's; it is the error of the degree-5 rule,
//    so for smooth integrands far above the error of the returned degree-7 value);
//  - null_rules: in the manner of Berntsen, Espelid & Genz (1991, ACM TOMS 17(4) 437-451).
//    A null rule is a weight vector on the same points that integrates every polynomial up to
//    its degree to zero. The five fully symmetric orbits above carry a 5-dimensional space of
//    symmetric weight vectors; in the inner product <u,v> = sum over points u v, Gram-Schmidt
//    on the moment constraints (the weight vectors representing integration of 1, x_1^2, x_1^4,
//    x_1^2 x_2^2 over the orbit points), taken in order of degree, gives
//      N4: orthogonal to the constant: a null rule of degree 1;
//      N2, N3: orthogonal to 1 and x_1^2: degree 3;
//      N1: the remaining direction, orthogonal to everything up to degree 5 (it is
//          proportional to I7 - I5): degree 5;
//    mutually orthogonal; N1 is taken equal to I7 - I5, the others are scaled to the norm of
//    the degree-7 rule (make_null_rules, derived numerically on the host; tests check the
//    moments and the orthogonality). With e1 = |N1|,
//    e2 = sqrt(N2^2 + N3^2), e3 = |N4| and r = max(e1/e2, e2/e3): for a smooth integrand on a
//    small region e_k ~ h^(8-2k), so r ~ h^2 is small and the degree-7 error is about r e1; the
//    estimate is then max(c_asymptotic r e1, |I7 - I5|) (c_asymptotic = 2). If r > r_crit = 1
//    (values not decreasing with the degree: the region is too coarse for the integrand) it is
//    c_coarse max(e1, e2, e3, |I7 - I5|) (c_coarse = 2). So the estimate is never below the
//    paper's |I7 - I5|: the null rules only raise it where they see a coarse region (an aliased
//    oscillation, say). Taken alone, 2 r e1 was too optimistic: on the Genz-family test
//    (test_integrate.cpp) it bounded the true error in 59 of 68 cases, missing smooth corner-peak
//    and Gaussian cases by factors up to 14; with the floor 64 of 68 (misses: discontinuous only).
//  - two_level: as null_rules, except where both ratios are below r_sharp = 1/5 (DCUHRE's
//    "strongly decreasing" test): there the estimate is c_sharp r max(e1, e2^2/e3), c_sharp = 5,
//    without the |I7 - I5| floor (an h^8 quantity instead of the h^6 of |I7 - I5|); the e2^2/e3
//    term guards against an N1 that is small by accident (it is what the unfloored 2 r e1 lacked:
//    with it 2 r e1 bounds the Genz set like the floored estimate). The floor stays where the
//    ratios are between 1/5 and 1. Every split is then checked against its parent as DCUHRE
//    does (integrate.hpp): D = |I(parent) - sum of I(pieces)| raises each piece's error to
//    err (1 + D / (2 sum of the pieces' errors)) + D / 4.
//    Rounding: never below 64 eps times the region's volume times the largest sampled |f| sum.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>

#include "parity/cubature/options.hpp"

namespace parity::cubature {

// A point handed to the integrand: coordinates x[0..dim-1] (dim <= point_capacity).
template <class Real>
struct Point {
  Real x[point_capacity];
  int dim;
  KOKKOS_INLINE_FUNCTION Real operator[](int i) const { return x[i]; }
  KOKKOS_INLINE_FUNCTION int size() const { return dim; }
};

template <class Real>
struct RuleConstants {
  Real l2, l4, l5, ratio;  // ratio = (l2/l3)^2 = 1/7
  Real w1, w2, w3, w4, w5;  // degree 7
  Real v1, v2, v3, v4;  // degree 5
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

// The degree-9 rule's data (built on the host by make_degree9 in rule9.hpp): generators on
// [-1,1] (g[0..3] on the axes, g[4] the corner point), weights of the nine orbits, and eight null
// rules (0-1 degree 7, 2-4 degree 5, 5-6 degree 3, 7 degree 1; zero where an orbit is empty).
template <class Real>
struct Degree9Weights {
  bool enabled = false;
  Real g[5] = {};
  Real w[9] = {};
  Real null[8][9] = {};
};

// Null rules as per-point weights on the five orbits (center, +-l2 e_i, +-l3 e_i, pairs, 2^n
// corners), unscaled by the volume; see the top of this file. enabled = false: the error is
// |I7 - I5|.
template <class Real>
struct NullRules {
  bool enabled = false;
  Real w[4][5] = {};  // N1 (degree 5), N2, N3 (degree 3), N4 (degree 1)
  Real r_crit = Real(1);  // largest ratio still taken as decreasing (asymptotic)
  Real c_asymptotic = Real(2);  // error = max(c_asymptotic r e1, |I7 - I5|) (r <= r_crit)
  Real c_coarse = Real(2);  // error = c_coarse max(e1, e2, e3, |I7 - I5|) (r > r_crit)
  // two_level (sharp = true): where r <= r_sharp the error is c_sharp r max(e1, e2^2/e3), not
  // floored at |I7 - I5|; and every split raises its children's errors by the parent-children
  // difference (c_scale, c_add; integrate.hpp).
  bool sharp = false;
  Real r_sharp = Real(0.2);  // DCUHRE's "strongly decreasing": both ratios <= 1/5
  Real c_sharp = Real(5);
  double c_scale = 0.5, c_add = 0.25;  // DCUHRE's ERRCOF(5), ERRCOF(6)
  // The degree-9 rule (rule9.hpp) when nine.enabled: its generators, weights and null rules.
  // The estimate then works on its null rules of degree 7, 5 and 3 as above on N1..N4.
  Degree9Weights<Real> nine;
};

// The estimate from the null rules' values (see the top of this file): e1 from the null rule(s)
// of the highest degree, e2 and e3 the next; `difference` the rule's own floor (|I7 - I5|).
template <class Real>
KOKKOS_INLINE_FUNCTION Real combine_nulls(NullRules<Real> const& nulls, Real e1, Real e2, Real e3, Real difference) {
  Real const big = Kokkos::fmax(e1, Kokkos::fmax(e2, e3));
  // r = max(e1/e2, e2/e3) <= r_crit, written without dividing by zero.
  bool const asymptotic = e1 <= nulls.r_crit * e2 && e2 <= nulls.r_crit * e3;
  if (!asymptotic) return nulls.c_coarse * Kokkos::fmax(big, difference);
  Real const ratio = Kokkos::fmax(e2 > 0 ? e1 / e2 : Real(0), e3 > 0 ? e2 / e3 : Real(0));
  if (nulls.sharp && ratio <= nulls.r_sharp) {
    // Guard against an accidentally small N1 (a sign change inside the region): e1 no
    // smaller than the value the slower ratio predicts from e2.
    Real const e1_guard = Kokkos::fmax(e1, e3 > 0 ? e2 * (e2 / e3) : Real(0));
    return nulls.c_sharp * ratio * e1_guard;
  }
  return Kokkos::fmax(nulls.c_asymptotic * ratio * e1, difference);
}

// Orbit sizes of the rule in n dimensions.
inline void orbit_counts(int n, double* count) {
  count[0] = 1;
  count[1] = 2.0 * n;
  count[2] = 2.0 * n;
  count[3] = 2.0 * n * (n - 1);
  count[4] = std::ldexp(1.0, n);
}

// The sum over orbit k's points (on [-1,1]^n) of the monomial class m: 0: 1, 1: x_1^2,
// 2: x_1^4, 3: x_1^2 x_2^2, 4: x_1^6, 5: x_1^4 x_2^2, 6: x_1^2 x_2^2 x_3^2, 7: x_1^8.
inline double orbit_moment(int n, int k, int m) {
  double const l2 = 9.0 / 70.0, l4 = 9.0 / 10.0, l5 = 9.0 / 19.0;  // squared generators
  double const r2[5] = {0.0, l2, l4, l4, l5};
  static constexpr int degree[8] = {0, 2, 4, 4, 6, 6, 6, 8};
  static constexpr int axes[8] = {0, 1, 1, 2, 1, 2, 3, 1};  // variables the monomial involves
  if (axes[m] > n) return 0.0;
  int const d = degree[m] / 2;
  double count[5];
  orbit_counts(n, count);
  if (m == 0) return count[k];
  switch (k) {
    case 0:
      return 0.0;
    case 1:
    case 2:
      return axes[m] == 1 ? 2.0 * std::pow(r2[k], d) : 0.0;
    case 3:  // +-l4 e_i +-l4 e_j: x_1 appears in 4 (n-1) points, x_1 and x_2 together in 4
      return axes[m] == 1 ? 4.0 * (n - 1) * std::pow(r2[3], d) : axes[m] == 2 ? 4.0 * std::pow(r2[3], d) : 0.0;
    default:
      return count[4] * std::pow(r2[4], d);
  }
}

// The null rules for n dimensions (host; see the top of this file).
template <class Real>
NullRules<Real> make_null_rules(int n) {
  double count[5];
  orbit_counts(n, count);
  auto dot = [&](double const* u, double const* v) {
    double s = 0;
    for (int k = 0; k < 5; ++k) s += count[k] * u[k] * v[k];
    return s;
  };
  // Constraint vectors: integrating monomial class m is <a_m, w> with a_m,k = moment / count.
  double basis[5][5] = {};
  int found = 0;
  auto add = [&](double* v) {  // Gram-Schmidt (twice, for accuracy); true if v was independent
    double const norm0 = std::sqrt(dot(v, v));
    for (int pass = 0; pass < 2; ++pass)
      for (int b = 0; b < found; ++b) {
        double const p = dot(v, basis[b]);
        for (int k = 0; k < 5; ++k) v[k] -= p * basis[b][k];
      }
    double const norm = std::sqrt(dot(v, v));
    if (!(norm > 1e-10 * norm0)) return false;
    for (int k = 0; k < 5; ++k) basis[found][k] = v[k] / norm;
    ++found;
    return true;
  };
  int index[4] = {-1, -1, -1, -1};  // basis index of the constraint of class 0..3
  for (int m = 0; m < 4; ++m) {
    double v[5];
    for (int k = 0; k < 5; ++k) v[k] = count[k] > 0 ? orbit_moment(n, k, m) / count[k] : 0.0;
    if (add(v)) index[m] = found - 1;
  }
  // The remaining direction (orthogonal to all constraints up to degree 5) among the orbits
  // that exist.
  int const last = found;
  for (int k = 0; k < 5 && found == last; ++k) {
    if (count[k] == 0) continue;
    double v[5] = {};
    v[k] = 1;
    add(v);
  }
  RuleConstants<double> const r(n);
  double const w7[5] = {r.w1, r.w2, r.w3, r.w4, r.w5};
  double const scale = std::sqrt(dot(w7, w7));
  NullRules<Real> out;
  out.enabled = true;
  auto put = [&](int row, int b) {
    for (int k = 0; k < 5; ++k) out.w[row][k] = b >= 0 && b < found ? Real(scale * basis[b][k]) : Real(0);
  };
  // N1: degree 5; it is parallel to the difference of the two rules (both exact to degree 5),
  // and taken equal to it, so e1 = |I7 - I5| (tests check the direction).
  double const w5[5] = {r.v1, r.v2, r.v3, r.v4, 0.0};
  for (int k = 0; k < 5; ++k) out.w[0][k] = Real(w7[k] - w5[k]);
  put(1, index[2]);  // N2: x_1^4 direction, degree 3
  put(2, index[3]);  // N3: x_1^2 x_2^2 direction (none for n = 1)
  put(3, index[1]);  // N4: x_1^2 direction, degree 1
  return out;
}

// What one application of the rule gives on one region.
template <class Real>
struct RegionEstimate {
  Real integral;  // degree-7 value
  Real lower;  // embedded degree-5 value
  Real error;  // the error estimate (|integral - lower| or from the null rules)
  Real null[8];  // the null rules' values N1..N4 (degree 9: its eight; zero without null rules)
  int axis;  // split axis
  bool finite;  // every integrand value was finite
};

// Team scratch a rule evaluation needs: the integrand's values at the axis points, eight Reals
// per axis (four for degree 7), then f at the center; their per-axis sums and fourth differences
// (three Reals per axis for degree 7, five for the degree-9 rule of rule9.hpp) overwrite them.
template <class Real>
KOKKOS_INLINE_FUNCTION constexpr std::size_t rule_scratch_reals() {
  return 8 * max_dim + 1;
}

// Where the center's value lies in the rule scratch.
inline constexpr int center_value_slot = 8 * max_dim;

// The spacing of Real at 1 (the rounding scale of the error floors and of the split-axis ties).
template <class Real>
KOKKOS_INLINE_FUNCTION constexpr Real machine_epsilon() {
  return sizeof(Real) == 4 ? Real(1.1920929e-7) : Real(2.220446049250313e-16);
}

// The axis to split: the one of the largest fourth difference diff[i]. Differences within a margin
// of the largest (relative to it, or to the rounding noise of the sampled values, fscale the
// largest of them) count as ties; among ties the widest axis is split (the first on equal widths).
template <class Real>
KOKKOS_INLINE_FUNCTION int split_axis(Real const* diff, Real const* h, int n, Real maxdiff, Real fscale) {
  Real const noise = Real(1e-6) * maxdiff + Real(64) * machine_epsilon<Real>() * fscale;
  int axis = 0;
  Real best_width = -1;
  for (int i = 0; i < n; ++i)
    if (diff[i] >= maxdiff - noise && h[i] > best_width) {
      best_width = h[i];
      axis = i;
    }
  return axis;
}

// Calls store(p, slot) for the center and for c + offset[v] h_i e_i, every axis i and v < V, one
// point per thread of the team (a thread per axis left most of a GPU team idle through V
// evaluations): value v of axis i has slot v * max_dim + i, the center center_value_slot. Ends with
// a barrier.
template <int V, class Real, class Store, class Member>
KOKKOS_INLINE_FUNCTION void visit_axis_points(Member const& team, int n, Real const* c, Real const* h,
                                              Real const (&offset)[V], Store const& store) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, V * n + 1), [&](int q) {
    Point<Real> p;
    p.dim = n;
    for (int m = 0; m < n; ++m) p.x[m] = c[m];
    if (q == V * n) {
      store(p, center_value_slot);
      return;
    }
    int const i = q / V, v = q % V;
    p.x[i] = c[i] + offset[v] * h[i];
    store(p, v * max_dim + i);
  });
  team.team_barrier();
}

// f at the axis points of visit_axis_points, each value in scratch[slot].
template <int V, class Real, class F, class Member>
KOKKOS_INLINE_FUNCTION void evaluate_axis_points(Member const& team, F const& f, int n, Real const* c, Real const* h,
                                                 Real const (&offset)[V], Real* scratch) {
  visit_axis_points(team, n, c, h, offset, [&](Point<Real> const& p, int slot) { scratch[slot] = f(p); });
}

// Evaluates the rule on the region (c, h) with the whole team; every team member returns the
// same estimate. `axis_scratch` is team scratch of rule_scratch_reals<Real>() entries. The
// result is independent of the team size up to the summation order inside the team.
template <class Real, class F, class Member>
KOKKOS_INLINE_FUNCTION RegionEstimate<Real> evaluate_region(Member const& team, F const& f, int n, Real const* c,
                                                            Real const* h, Real* axis_scratch,
                                                            NullRules<Real> const& nulls = NullRules<Real>()) {
  RuleConstants<Real> const k(n);
  // The center and the axis points +-l2, +-l4 (value v of axis i in slot v * max_dim + i).
  Real const offset[4] = {k.l2, -k.l2, k.l4, -k.l4};
  evaluate_axis_points(team, f, n, c, h, offset, axis_scratch);
  Real const f0 = axis_scratch[center_value_slot];
  // Per axis: the sums and the fourth difference, over the values of that axis only.
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](int i) {
    Real const a1 = axis_scratch[i], a2 = axis_scratch[max_dim + i];
    Real const b1 = axis_scratch[2 * max_dim + i], b2 = axis_scratch[3 * max_dim + i];
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
  int const axis = split_axis(axis_scratch + 2 * max_dim, h, n, maxdiff, fscale);

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
  for (int q = 4; q < 8; ++q) r.null[q] = Real(0);
  for (int q = 0; q < 4; ++q)
    r.null[q] = nulls.enabled ? volume * (nulls.w[q][0] * f0 + nulls.w[q][1] * s2 + nulls.w[q][2] * s3 +
                                          nulls.w[q][3] * s4 + nulls.w[q][4] * s5)
                              : Real(0);
  if (nulls.enabled) {
    Real const e1 = Kokkos::abs(r.null[0]);
    Real const e2 = Kokkos::sqrt(r.null[1] * r.null[1] + r.null[2] * r.null[2]);
    Real const e3 = Kokkos::abs(r.null[3]);
    Real const floor = Real(64) * machine_epsilon<Real>() * volume *
                       (Kokkos::abs(k.w1 * f0) + Kokkos::abs(k.w2 * s2) + Kokkos::abs(k.w3 * s3) +
                        Kokkos::abs(k.w4 * s4) + Kokkos::abs(k.w5 * s5));
    Real const err = combine_nulls(nulls, e1, e2, e3, Kokkos::abs(i7 - i5));
    r.error = Kokkos::fmax(err, floor);
  }
  // A barrier so that the scratch may be reused by the caller's next evaluation.
  team.team_barrier();
  return r;
}

}  // namespace parity::cubature
