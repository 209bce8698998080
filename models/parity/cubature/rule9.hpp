#pragma once
// The fully symmetric degree-9 cubature rule of Genz & Malik's family (the rule of CUHRE in Cuba
// and of PAGANI) with null rules of degree 7, 5, 3 and 1, evaluated on one region by one team.
//
// On the cube [-1,1]^n the points are nine fully symmetric orbits: the center; +-g1 e_i, +-g2 e_i,
// +-g3 e_i, +-g4 e_i; +-g1 e_i +- g1 e_j (i < j); +-g1 e_i +- g2 e_j (i != j); +-g1 e_i +- g1 e_j
// +- g1 e_k (i < j < k); and the 2^n points (+-g5, ..., +-g5): 1 + 8n + 6n(n-1) + 4n(n-1)(n-2)/3 +
// 2^n points (273, 453, 717, 1105 at n = 5, 6, 7, 8). The generators are the published ones
// (Genz & Malik 1983; the same in Cuba's Cuhre), given below as fractions of the half-width.
// Nothing else is taken from there: the weights are solved here from the moment equations (exact
// integration of 1, x^2, x^4, x^2 y^2, ..., x^2 y^2 z^2 w^2, the twelve classes of even monomials
// up to degree 8; odd ones vanish by symmetry), a least-squares solve that is exact (residual
// ~1e-16) because the generators were chosen for it. The null rules come from Gram-Schmidt on
// the moment constraints in order of degree, as make_null_rules (rule.hpp) does for degree 7, in
// the inner product sum over points u v: the directions of the x^2 constraint give a degree-1 null
// rule, of the degree-4 classes two of degree 3, of the degree-6 classes three of degree 5, and
// the two directions orthogonal to every constraint up to degree 6 two of degree 7; each is
// scaled to the norm of the degree-9 rule. Tests (test_rule.cpp) check all of it independently:
// exact for every monomial of degree <= 9 on boxes, not for degree 10, null rules annihilating
// their degree and not the next.
//
// Error estimate: e1 = |(N7a, N7b)|, e2 = |(N5a, N5b, N5c)|, e3 = |(N3a, N3b)| go through
// combine_nulls (rule.hpp) with e1 as the floor in place of |I7 - I5| (e1 is the analogue: the
// part of the values a degree-7 rule cannot see). For a smooth integrand e1 ~ h^8 while the
// rule's error ~ h^10, against h^6 and h^8 for the degree-7 rule.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>

#include "parity/cubature/options.hpp"
#include "parity/cubature/rule.hpp"

namespace parity::cubature {

namespace detail {

// Generators on [-1, 1] (Genz & Malik 1983's degree-9 rule).
inline constexpr double degree9_generators[5] = {
    0.9559073158045390123857208394343660129464, 0.4060571747382397355996068804746558266516,
    0.8952547092523562576415409613061996078570, 0.25, 0.6860757975617562914002852290329357206814};

// Calls visit(k, x) for every point x (n coordinates on [-1, 1]) of orbit k = 0..8.
template <class Visit>
void degree9_points(int n, double const* g, Visit&& visit) {
  double x[max_dim];
  auto zero = [&] {
    for (int i = 0; i < n; ++i) x[i] = 0;
  };
  zero();
  visit(0, x);
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < n; ++i)
      for (int s = -1; s <= 1; s += 2) {
        zero();
        x[i] = s * g[k];
        visit(1 + k, x);
      }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      for (int s = 0; s < 4; ++s) {
        zero();
        x[i] = (s & 1 ? -1 : 1) * g[0];
        x[j] = (s & 2 ? -1 : 1) * g[0];
        if (i < j) visit(5, x);
        x[j] = (s & 2 ? -1 : 1) * g[1];
        visit(6, x);
      }
    }
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int l = j + 1; l < n; ++l)
        for (int s = 0; s < 8; ++s) {
          zero();
          x[i] = (s & 1 ? -1 : 1) * g[0];
          x[j] = (s & 2 ? -1 : 1) * g[0];
          x[l] = (s & 4 ? -1 : 1) * g[0];
          visit(7, x);
        }
  for (std::int64_t s = 0; s < (std::int64_t(1) << n); ++s) {
    for (int i = 0; i < n; ++i) x[i] = ((s >> i) & 1 ? -1 : 1) * g[4];
    visit(8, x);
  }
}

// The twelve classes of even monomials of degree <= 8, as exponents of x_1..x_4, by degree.
inline constexpr int degree9_classes = 12;
inline constexpr int degree9_exponents[degree9_classes][4] = {{0, 0, 0, 0}, {2, 0, 0, 0}, {4, 0, 0, 0}, {2, 2, 0, 0},
                                                              {6, 0, 0, 0}, {4, 2, 0, 0}, {2, 2, 2, 0}, {8, 0, 0, 0},
                                                              {6, 2, 0, 0}, {4, 4, 0, 0}, {4, 2, 2, 0}, {2, 2, 2, 2}};
inline constexpr int degree9_class_degree[degree9_classes] = {0, 2, 4, 4, 6, 6, 6, 8, 8, 8, 8, 8};

inline int class_variables(int m) {
  int v = 0;
  for (int i = 0; i < 4; ++i) v += degree9_exponents[m][i] > 0;
  return v;
}

}  // namespace detail

// The degree-9 rule for n >= 2 dimensions (host; see the top of this file). Weights are per
// point of each orbit, for the mean over the cube (times the volume gives the integral).
template <class Real>
Degree9Weights<Real> make_degree9(int n) {
  using detail::degree9_classes;
  double const* g = detail::degree9_generators;
  double count[9] = {};
  double moment[degree9_classes][9] = {};  // sum over orbit k of monomial class m
  detail::degree9_points(n, g, [&](int k, double const* x) {
    count[k] += 1;
    for (int m = 0; m < degree9_classes; ++m) {
      double v = 1;
      for (int i = 0; i < 4 && i < n; ++i) v *= std::pow(x[i], detail::degree9_exponents[m][i]);
      moment[m][k] += v;
    }
  });
  // Classes that exist in n dimensions and their exact means over [-1, 1]^n.
  int rows[degree9_classes];
  int m_count = 0;
  double exact[degree9_classes];
  for (int m = 0; m < degree9_classes; ++m) {
    if (detail::class_variables(m) > n) continue;
    double v = 1;
    for (int i = 0; i < 4; ++i) v /= detail::degree9_exponents[m][i] + 1;
    exact[m_count] = v;
    rows[m_count++] = m;
  }
  // Least squares for the weights (one per non-empty orbit): modified Gram-Schmidt on the
  // columns of the m_count x orbits system, in long double.
  int cols[9];
  int k_count = 0;
  for (int k = 0; k < 9; ++k)
    if (count[k] > 0) cols[k_count++] = k;
  long double q[degree9_classes][9] = {}, r[9][9] = {};
  for (int c = 0; c < k_count; ++c)
    for (int i = 0; i < m_count; ++i) q[i][c] = moment[rows[i]][cols[c]];
  for (int c = 0; c < k_count; ++c) {
    for (int b = 0; b < c; ++b) {
      long double p = 0;
      for (int i = 0; i < m_count; ++i) p += q[i][b] * q[i][c];
      r[b][c] = p;
      for (int i = 0; i < m_count; ++i) q[i][c] -= p * q[i][b];
    }
    long double norm = 0;
    for (int i = 0; i < m_count; ++i) norm += q[i][c] * q[i][c];
    norm = std::sqrt(norm);
    r[c][c] = norm;
    for (int i = 0; i < m_count; ++i) q[i][c] = norm > 0 ? q[i][c] / norm : 0;
  }
  long double w[9] = {};
  for (int c = k_count - 1; c >= 0; --c) {
    long double v = 0;
    for (int i = 0; i < m_count; ++i) v += q[i][c] * exact[i];
    for (int b = c + 1; b < k_count; ++b) v -= r[c][b] * w[b];
    w[c] = r[c][c] > 0 ? v / r[c][c] : 0;
  }
  Degree9Weights<Real> out;
  out.enabled = true;
  for (int i = 0; i < 5; ++i) out.g[i] = Real(g[i]);
  double wk[9] = {};
  for (int c = 0; c < k_count; ++c) wk[cols[c]] = double(w[c]);
  for (int k = 0; k < 9; ++k) out.w[k] = Real(wk[k]);

  // Null rules: Gram-Schmidt on the constraint vectors a_m,k = moment / count in the inner
  // product sum over points, by degree; then the directions left over (degree 7).
  auto dot = [&](double const* u, double const* v) {
    double s = 0;
    for (int k = 0; k < 9; ++k) s += count[k] * u[k] * v[k];
    return s;
  };
  double basis[9][9] = {};
  int basis_degree[9] = {};
  int found = 0;
  auto add = [&](double* v, int degree) {
    double const norm0 = std::sqrt(dot(v, v));
    for (int pass = 0; pass < 2; ++pass)
      for (int b = 0; b < found; ++b) {
        double const p = dot(v, basis[b]);
        for (int k = 0; k < 9; ++k) v[k] -= p * basis[b][k];
      }
    double const norm = std::sqrt(dot(v, v));
    if (!(norm > 1e-10 * norm0)) return;
    for (int k = 0; k < 9; ++k) basis[found][k] = v[k] / norm;
    basis_degree[found++] = degree;
  };
  for (int m = 0; m < degree9_classes; ++m) {
    if (detail::degree9_class_degree[m] > 6 || detail::class_variables(m) > n) continue;
    double v[9];
    for (int k = 0; k < 9; ++k) v[k] = count[k] > 0 ? moment[m][k] / count[k] : 0.0;
    add(v, detail::degree9_class_degree[m]);
  }
  for (int k = 0; k < 9 && found < k_count; ++k) {
    if (count[k] == 0) continue;
    double v[9] = {};
    v[k] = 1;
    add(v, 8);
  }
  double const scale = std::sqrt(dot(wk, wk));
  // Slots: 0-1 degree 7 (from the leftover directions), 2-4 degree 5 (degree-6 constraints),
  // 5-6 degree 3 (degree-4 constraints), 7 degree 1 (the x^2 constraint).
  int next[4] = {0, 2, 5, 7};
  int const last[4] = {2, 5, 7, 8};
  for (int b = 0; b < found; ++b) {
    int const group = basis_degree[b] == 8   ? 0
                      : basis_degree[b] == 6 ? 1
                      : basis_degree[b] == 4 ? 2
                      : basis_degree[b] == 2 ? 3
                                             : -1;
    if (group < 0 || next[group] >= last[group]) continue;
    for (int k = 0; k < 9; ++k) out.null[next[group]][k] = Real(scale * basis[b][k]);
    ++next[group];
  }
  return out;
}

namespace detail {

// (i, j), i < j, of unordered pair p of n axes (lexicographic).
KOKKOS_INLINE_FUNCTION void pair_of(int p, int n, int& i, int& j) {
  i = 0;
  while (p >= n - 1 - i) {
    p -= n - 1 - i;
    ++i;
  }
  j = i + 1 + p;
}

// (i, j, l), i < j < l, of unordered triple t of n axes (lexicographic).
KOKKOS_INLINE_FUNCTION void triple_of(int t, int n, int& i, int& j, int& l) {
  i = 0;
  while (t >= (n - 1 - i) * (n - 2 - i) / 2) {
    t -= (n - 1 - i) * (n - 2 - i) / 2;
    ++i;
  }
  int p = 0;
  pair_of(t, n - 1 - i, p, l);
  j = i + 1 + p;
  l = i + 1 + l;
}

}  // namespace detail

namespace detail {

// The degree-9 rule's points off the axes, by orbit, the q-th point of each (as the team loops
// over them): +-g1 e_i +- g1 e_j (i < j; 4 per pair), +-g1 e_i +- g2 e_j (both orders; 8 per pair),
// +-g1 on three axes i < j < l (8 per triple), and the 2^n points (+-g5, ..., +-g5).
template <class Real>
KOKKOS_INLINE_FUNCTION Point<Real> degree9_pair_point(int q, int n, Real const* c, Real const* h,
                                                      Degree9Weights<Real> const& k) {
  int i = 0, j = 0;
  pair_of(q / 4, n, i, j);
  Point<Real> p;
  p.dim = n;
  for (int m = 0; m < n; ++m) p.x[m] = c[m];
  p.x[i] = c[i] + ((q & 1) ? -k.g[0] : k.g[0]) * h[i];
  p.x[j] = c[j] + ((q & 2) ? -k.g[0] : k.g[0]) * h[j];
  return p;
}

template <class Real>
KOKKOS_INLINE_FUNCTION Point<Real> degree9_mixed_point(int q, int n, Real const* c, Real const* h,
                                                       Degree9Weights<Real> const& k) {
  int i = 0, j = 0;
  pair_of(q / 8, n, i, j);
  if (q & 4) {  // g2 on the first axis, g1 on the second
    int const t = i;
    i = j;
    j = t;
  }
  Point<Real> p;
  p.dim = n;
  for (int m = 0; m < n; ++m) p.x[m] = c[m];
  p.x[i] = c[i] + ((q & 1) ? -k.g[0] : k.g[0]) * h[i];
  p.x[j] = c[j] + ((q & 2) ? -k.g[1] : k.g[1]) * h[j];
  return p;
}

template <class Real>
KOKKOS_INLINE_FUNCTION Point<Real> degree9_triple_point(int q, int n, Real const* c, Real const* h,
                                                        Degree9Weights<Real> const& k) {
  int i = 0, j = 0, l = 0;
  triple_of(q / 8, n, i, j, l);
  int const signs = q % 8;
  Point<Real> p;
  p.dim = n;
  for (int m = 0; m < n; ++m) p.x[m] = c[m];
  p.x[i] = c[i] + ((signs & 1) ? -k.g[0] : k.g[0]) * h[i];
  p.x[j] = c[j] + ((signs & 2) ? -k.g[0] : k.g[0]) * h[j];
  p.x[l] = c[l] + ((signs & 4) ? -k.g[0] : k.g[0]) * h[l];
  return p;
}

template <class Real>
KOKKOS_INLINE_FUNCTION Point<Real> degree9_corner_point(int q, int n, Real const* c, Real const* h,
                                                        Degree9Weights<Real> const& k) {
  Point<Real> p;
  p.dim = n;
  for (int m = 0; m < n; ++m) p.x[m] = c[m] + (((q >> m) & 1) ? -k.g[4] : k.g[4]) * h[m];
  return p;
}

// Points per orbit off the axes (the loop lengths of the four functions above).
KOKKOS_INLINE_FUNCTION int degree9_pair_points(int n) { return 4 * (n * (n - 1) / 2); }
KOKKOS_INLINE_FUNCTION int degree9_mixed_points(int n) { return 8 * (n * (n - 1) / 2); }
KOKKOS_INLINE_FUNCTION int degree9_triple_points(int n) { return 8 * (n * (n - 1) * (n - 2) / 6); }
KOKKOS_INLINE_FUNCTION int degree9_corner_points(int n) { return 1 << n; }

// Axis i of the rule scratch holding the values at +-g1..+-g4 e_i (value 2 q + sign in slot
// (2 q + sign) * max_dim + i) and the center's: replaced by the four sums over +-g_q and, in slot
// 4 * max_dim + i, the fourth difference (g2 against g1).
template <class Real>
KOKKOS_INLINE_FUNCTION void degree9_axis_sums(Real* scratch, int i, Degree9Weights<Real> const& k) {
  Real const f0 = scratch[center_value_slot];
  Real const ratio = (k.g[1] / k.g[0]) * (k.g[1] / k.g[0]);
  Real sums[4];
  for (int q = 0; q < 4; ++q) sums[q] = scratch[2 * q * max_dim + i] + scratch[(2 * q + 1) * max_dim + i];
  for (int q = 0; q < 4; ++q) scratch[q * max_dim + i] = sums[q];
  scratch[4 * max_dim + i] = Kokkos::abs((sums[1] - 2 * f0) - ratio * (sums[0] - 2 * f0));
}

// The largest |value| the axis sums and the center show (the rounding scale of the split axis).
template <class Real>
KOKKOS_INLINE_FUNCTION Real degree9_value_scale(Real const* scratch, int n) {
  Real fscale = Kokkos::abs(scratch[center_value_slot]);
  for (int i = 0; i < n; ++i)
    for (int q = 0; q < 4; ++q) fscale = Kokkos::fmax(fscale, Kokkos::abs(scratch[q * max_dim + i]));
  return fscale;
}

// The estimate of one region from the rule scratch after degree9_axis_sums and the sums s5..s8
// over the four orbits off the axes (every team member computes the same).
template <class Real>
KOKKOS_INLINE_FUNCTION RegionEstimate<Real> degree9_estimate(NullRules<Real> const& nulls, int n, Real const* h,
                                                             Real const* scratch, Real s5, Real s6, Real s7, Real s8) {
  Degree9Weights<Real> const& k = nulls.nine;
  // Fixed-order sums over the axes, and the split axis (as evaluate_region).
  Real const f0 = scratch[center_value_slot];
  Real s[9] = {f0, 0, 0, 0, 0, s5, s6, s7, s8};
  Real maxdiff = 0;
  for (int i = 0; i < n; ++i) {
    for (int q = 0; q < 4; ++q) s[1 + q] += scratch[q * max_dim + i];
    maxdiff = Kokkos::fmax(maxdiff, scratch[4 * max_dim + i]);
  }
  int const axis = split_axis(scratch + 4 * max_dim, h, n, maxdiff, degree9_value_scale(scratch, n));

  Real volume = 1;
  for (int i = 0; i < n; ++i) volume *= 2 * h[i];
  Real i9 = 0, absolute = 0;
  for (int q = 0; q < 9; ++q) {
    i9 += k.w[q] * s[q];
    absolute += Kokkos::abs(k.w[q] * s[q]);
  }
  RegionEstimate<Real> r;
  r.integral = volume * i9;
  Real sq[4] = {0, 0, 0, 0};
  for (int j = 0; j < 8; ++j) {
    Real v = 0;
    for (int q = 0; q < 9; ++q) v += k.null[j][q] * s[q];
    r.null[j] = volume * v;
    int const group = j < 2 ? 0 : j < 5 ? 1 : j < 7 ? 2 : 3;
    sq[group] += r.null[j] * r.null[j];
  }
  Real const e1 = Kokkos::sqrt(sq[0]), e2 = Kokkos::sqrt(sq[1]), e3 = Kokkos::sqrt(sq[2]);
  r.lower = r.integral - e1;
  r.axis = axis;
  r.finite = Kokkos::isfinite(r.integral) && Kokkos::isfinite(e1 + e2 + e3) && Kokkos::isfinite(maxdiff);
  Real const floor = Real(64) * machine_epsilon<Real>() * volume * absolute;
  r.error = Kokkos::fmax(combine_nulls(nulls, e1, e2, e3, e1), floor);
  return r;
}

}  // namespace detail

// The degree-9 rule on the region (c, h) with the whole team (as evaluate_region in rule.hpp;
// the same scratch). nulls.nine must be enabled.
template <class Real, class F, class Member>
KOKKOS_INLINE_FUNCTION RegionEstimate<Real> evaluate_region9(Member const& team, F const& f, int n, Real const* c,
                                                             Real const* h, Real* scratch,
                                                             NullRules<Real> const& nulls) {
  Degree9Weights<Real> const& k = nulls.nine;
  // The center and the axis points +-g1..+-g4, then their per-axis sums and fourth differences.
  Real const offset[8] = {k.g[0], -k.g[0], k.g[1], -k.g[1], k.g[2], -k.g[2], k.g[3], -k.g[3]};
  evaluate_axis_points(team, f, n, c, h, offset, scratch);
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](int i) { detail::degree9_axis_sums(scratch, i, k); });

  Real s5 = 0, s6 = 0, s7 = 0, s8 = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, detail::degree9_pair_points(n)),
      [&](int q, Real& acc) { acc += f(detail::degree9_pair_point(q, n, c, h, k)); }, s5);
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, detail::degree9_mixed_points(n)),
      [&](int q, Real& acc) { acc += f(detail::degree9_mixed_point(q, n, c, h, k)); }, s6);
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, detail::degree9_triple_points(n)),
      [&](int q, Real& acc) { acc += f(detail::degree9_triple_point(q, n, c, h, k)); }, s7);
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, detail::degree9_corner_points(n)),
      [&](int q, Real& acc) { acc += f(detail::degree9_corner_point(q, n, c, h, k)); }, s8);
  team.team_barrier();
  RegionEstimate<Real> const r = detail::degree9_estimate(nulls, n, h, scratch, s5, s6, s7, s8);
  team.team_barrier();
  return r;
}

// The rule the null rules' data selects: degree 9 when nulls.nine is enabled, else degree 7.
template <class Real, class F, class Member>
KOKKOS_INLINE_FUNCTION RegionEstimate<Real> evaluate_rule(Member const& team, F const& f, int n, Real const* c,
                                                          Real const* h, Real* scratch, NullRules<Real> const& nulls) {
  if (nulls.nine.enabled) return evaluate_region9(team, f, n, c, h, scratch, nulls);
  return evaluate_region(team, f, n, c, h, scratch, nulls);
}

}  // namespace parity::cubature
