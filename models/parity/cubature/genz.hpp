#pragma once
// Genz's six test families (Genz 1984, "Testing multidimensional integration routines"), on
// any box [lower, upper], with closed-form integrals (host code, no Kokkos). Parameters a_i
// (difficulty) and u_i (location):
//   oscillatory    cos(2 pi u_1 + sum a_i x_i)
//   product_peak   prod 1 / (a_i^-2 + (x_i - u_i)^2)
//   corner_peak    (1 + sum a_i x_i)^-(n+1)                 (a_i > 0, 1 + a.x > 0 on the box)
//   gaussian       exp(-sum a_i^2 (x_i - u_i)^2)
//   c0             exp(-sum a_i |x_i - u_i|)
//   discontinuous  0 if x_1 > u_1 or x_2 > u_2, else exp(sum a_i x_i)
// The registry of built-in integrands also holds the paper's f1..f5 (paper.hpp; unit cube only,
// no parameters). The device functor is in integrands.hpp.
#include <algorithm>
#include <cmath>
#include <complex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/cubature/paper.hpp"
#include "parity/run/errors.hpp"

namespace parity::cubature {

enum class Family : int {
  oscillatory = 0,
  product_peak,
  corner_peak,
  gaussian,
  c0,
  discontinuous,
  f1,
  f2,
  f3,
  f4,
  f5,
  f1_pagani
};

inline constexpr Family all_families[] = {Family::oscillatory, Family::product_peak, Family::corner_peak,
                                          Family::gaussian,    Family::c0,           Family::discontinuous};
// f1_pagani: f1 with the outer exponent -1 (PAGANI's FUN 1; paper.hpp), for the PAGANI comparisons.
inline constexpr Family paper_families[] = {Family::f1, Family::f2, Family::f3,
                                            Family::f4, Family::f5, Family::f1_pagani};

inline constexpr bool is_paper(Family f) { return int(f) >= int(Family::f1); }

inline char const* to_string(Family f) {
  switch (f) {
    case Family::oscillatory:
      return "oscillatory";
    case Family::product_peak:
      return "product_peak";
    case Family::corner_peak:
      return "corner_peak";
    case Family::gaussian:
      return "gaussian";
    case Family::c0:
      return "c0";
    case Family::discontinuous:
      return "discontinuous";
    case Family::f1:
      return "f1";
    case Family::f2:
      return "f2";
    case Family::f3:
      return "f3";
    case Family::f4:
      return "f4";
    case Family::f5:
      return "f5";
    case Family::f1_pagani:
      return "f1-pagani";
  }
  return "?";
}

inline std::optional<Family> parse_family(std::string_view s) {
  for (Family f : all_families)
    if (s == to_string(f)) return f;
  for (Family f : paper_families)
    if (s == to_string(f)) return f;
  return std::nullopt;
}

// Floating-point operations of one integrand evaluation, for the comparison runner's roofline,
// in the convention of the SDE model's counts: add, subtract, multiply, divide and compare 1, each
// cos, sin, exp, asin, pow 1 (their instruction cost is far higher; this is the paper-style
// count). Besides the integrand (as integrands.hpp computes it), each point costs n operations for
// its coordinates (centre +- offset) and 2 to add it into the rule's sums; per-region work (the
// weighted sums, fourth differences, null rules: O(n)) is left out against the 2^n + O(n^2)
// points of a region.
inline double flops_per_evaluation(Family f, int n) {
  double integrand = 0;
  switch (f) {
    case Family::oscillatory:
      integrand = 2.0 * n + 3;
      break;  // 2 pi u: 2; a x + s: 2n; cos
    case Family::product_peak:
      integrand = 7.0 * n;
      break;  // a a, 1/., x - u, d d, +, 1/., p *: per axis
    case Family::corner_peak:
      integrand = 2.0 * n + 2;
      break;  // a x + s: 2n; exponent; pow
    case Family::gaussian:
      integrand = 4.0 * n + 2;
      break;  // x - u, a *, d d + s: 4n; -s; exp
    case Family::c0:
      integrand = 4.0 * n + 2;
      break;  // x - u, abs, a *, + s: 4n; -s; exp
    case Family::discontinuous:
      integrand = 2.0 * n + 3;
      break;  // 2 compares; a x + s: 2n; exp
    case Family::f1:
      integrand = 2.0 * n + 5;
      break;  // x x + s: 2n; cos; c c; +; d d; 1/.
    case Family::f1_pagani:
      integrand = 2.0 * n + 4;
      break;  // x x + s: 2n; cos; c c; +; 1/.
    case Family::f2:
      integrand = 4.0 * n + 1;
      break;  // w x, cos, p *, w *= 4: 4n; cos
    case Family::f3:
      integrand = n * (n + 1) / 2.0 + 3.0 * n + 1;
      break;  // x^(i+1): i+1 multiplies; asin, (i+1) *, p *; sin
    case Family::f4:
      integrand = 2.0 * n + 1;
      break;  // asin, p *: 2n; sin
    case Family::f5:
      integrand = 3.0 * n + 2;
      break;  // 10 x, cos, + s: 3n; 2 beta, /
  }
  return integrand + n + 2;
}

// Default difficulty a_i of each family (u_i defaults to 0.5).
inline double default_a(Family f) {
  switch (f) {
    case Family::oscillatory:
      return 2.0;
    case Family::product_peak:
      return 5.0;
    case Family::corner_peak:
      return 1.0;
    case Family::gaussian:
      return 5.0;
    case Family::c0:
      return 2.0;
    case Family::discontinuous:
      return 1.0;
    default:
      return 0.0;  // f1..f5 have no parameters
  }
}

// Checks that the family is defined (finite, without poles) on the box.
inline void validate_genz(Family f, std::vector<double> const& a, std::vector<double> const& u,
                          std::vector<double> const& lower, std::vector<double> const& upper) {
  std::size_t const n = lower.size();
  if (is_paper(f)) {
    for (std::size_t i = 0; i < n; ++i)
      require(lower[i] == 0.0 && upper[i] == 1.0,
              std::string(to_string(f)) + " is defined on the unit cube [0,1]^n only");
    return;
  }
  require(a.size() == n && u.size() == n, "Genz parameters a and u need one value per dimension");
  for (std::size_t i = 0; i < n; ++i)
    require(std::isfinite(a[i]) && std::isfinite(u[i]), "Genz parameters must be finite");
  if (f == Family::product_peak || f == Family::gaussian || f == Family::corner_peak)
    for (double ai : a) require(ai > 0, std::string(to_string(f)) + ": parameters a_i must be > 0");
  if (f == Family::c0)
    for (double ai : a) require(ai >= 0, "c0: parameters a_i must be >= 0");
  if (f == Family::corner_peak) {
    double m = 1;
    for (std::size_t i = 0; i < n; ++i) m += std::min(a[i] * lower[i], a[i] * upper[i]);
    require(m > 0, "corner_peak: 1 + sum a_i x_i must stay > 0 on the box");
  }
}

// The exact integral over [lower, upper] (f1..f5: the reference of paper.hpp, NaN where none).
inline double genz_exact(Family f, std::vector<double> const& a, std::vector<double> const& u,
                         std::vector<double> const& lower, std::vector<double> const& upper) {
  using L = long double;
  std::size_t const n = lower.size();
  switch (f) {
    case Family::oscillatory: {
      // Re(exp(i 2 pi u_1) prod (exp(i a hi) - exp(i a lo)) / (i a)).
      std::complex<L> z = std::polar(L(1), L(2) * std::acos(L(-1)) * L(u[0]));
      for (std::size_t i = 0; i < n; ++i) {
        L const ai = a[i], lo = lower[i], hi = upper[i];
        if (ai == 0) {
          z *= hi - lo;
        } else {
          // (exp(i a hi) - exp(i a lo)) / (i a) = exp(i a m) 2 sin(a w) / a, m midpoint, w half-width.
          L const m = (hi + lo) / 2, w = (hi - lo) / 2;
          z *= std::polar(L(2) * std::sin(ai * w) / ai, ai * m);
        }
      }
      return double(z.real());
    }
    case Family::product_peak: {
      L p = 1;
      for (std::size_t i = 0; i < n; ++i) {
        L const ai = a[i];
        p *= ai * (std::atan(ai * (L(upper[i]) - u[i])) - std::atan(ai * (L(lower[i]) - u[i])));
      }
      return double(p);
    }
    case Family::corner_peak: {
      // Inclusion-exclusion over the 2^n vertices of the n-fold antiderivative.
      L sum = 0;
      for (std::size_t mask = 0; mask < (std::size_t(1) << n); ++mask) {
        L s = 1;
        int lows = 0;
        for (std::size_t i = 0; i < n; ++i) {
          bool const up = (mask >> i) & 1;
          s += L(a[i]) * (up ? upper[i] : lower[i]);
          lows += up ? 0 : 1;
        }
        sum += (lows % 2 ? -1 : 1) / s;
      }
      L denom = (n % 2 ? -1 : 1);
      for (std::size_t i = 0; i < n; ++i) denom *= L(i + 1) * a[i];
      return double(sum / denom);
    }
    case Family::gaussian: {
      L p = 1;
      L const sqrt_pi = std::sqrt(std::acos(L(-1)));
      for (std::size_t i = 0; i < n; ++i) {
        L const ai = a[i], x1 = ai * (L(lower[i]) - u[i]), x2 = ai * (L(upper[i]) - u[i]);
        L const diff = x1 >= 0 ? std::erfc(x1) - std::erfc(x2)
                               : (x2 <= 0 ? std::erfc(-x2) - std::erfc(-x1) : std::erf(x2) - std::erf(x1));
        p *= sqrt_pi / (2 * ai) * diff;
      }
      return double(p);
    }
    case Family::c0: {
      L p = 1;
      for (std::size_t i = 0; i < n; ++i) {
        L const ai = a[i];
        auto antiderivative = [&](L t) {  // of exp(-a |t|)
          if (ai == 0) return t;
          L const v = -std::expm1(-ai * std::fabs(t)) / ai;
          return t < 0 ? -v : v;
        };
        p *= antiderivative(L(upper[i]) - u[i]) - antiderivative(L(lower[i]) - u[i]);
      }
      return double(p);
    }
    case Family::discontinuous: {
      L p = 1;
      for (std::size_t i = 0; i < n; ++i) {
        L const ai = a[i], lo = lower[i];
        L const hi = i < 2 ? std::min<L>(upper[i], u[i]) : L(upper[i]);
        if (hi <= lo) return 0.0;
        p *= ai == 0 ? hi - lo : std::exp(ai * lo) * std::expm1(ai * (hi - lo)) / ai;
      }
      return double(p);
    }
    default:
      return paper_reference(int(f) - int(Family::f1) + 1, int(n));
  }
}

}  // namespace parity::cubature
