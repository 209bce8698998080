#pragma once
// Brent's method for a one-dimensional minimum on [a, b] (R. P. Brent, "Algorithms for
// Minimization without Derivatives", 1973, ch. 5): golden-section steps, replaced by a parabola
// through the three best points whenever that parabola's minimum is acceptable (inside the
// interval and a step smaller than half the one before last). Never leaves [a, b]; needs no
// derivatives; usable in kernels (f is any callable with a device operator()).
#include <Kokkos_Core.hpp>

namespace parity::dual_control {

template <class Real>
struct BrentResult {
  Real x;  // the best point found
  Real fx;  // f(x)
  int evaluations;
};

// Minimises f on [a, b] starting from x0 (clamped into [a, b]). Stops when the bracket around the
// best point is within 2 (rel_tol |x| + abs_tol), or after max_evaluations calls of f.
template <class Real, class F>
KOKKOS_INLINE_FUNCTION BrentResult<Real> brent_minimize(F const& f, Real a, Real b, Real x0, Real rel_tol, Real abs_tol,
                                                        int max_evaluations) {
  Real const golden = Real(0.3819660112501051);  // (3 - sqrt 5) / 2
  if (b < a) {
    Real const t = a;
    a = b;
    b = t;
  }
  Real x = x0 < a ? a : (x0 > b ? b : x0);
  Real w = x, v = x;
  Real fx = f(x);
  Real fw = fx, fv = fx;
  int evaluations = 1;
  Real d = 0, e = 0;  // the last step and the one before
  while (evaluations < max_evaluations) {
    Real const m = Real(0.5) * (a + b);
    Real const tol1 = rel_tol * Kokkos::fabs(x) + abs_tol;
    Real const tol2 = 2 * tol1;
    if (Kokkos::fabs(x - m) <= tol2 - Real(0.5) * (b - a)) break;
    bool golden_step = true;
    if (Kokkos::fabs(e) > tol1) {
      // Parabola through (v, fv), (w, fw), (x, fx): its minimum is at x + p / q.
      Real r = (x - w) * (fx - fv);
      Real q = (x - v) * (fx - fw);
      Real p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0)
        p = -p;
      else
        q = -q;
      Real const e_before = e;
      if (Kokkos::fabs(p) < Kokkos::fabs(Real(0.5) * q * e_before) && p > q * (a - x) && p < q * (b - x)) {
        e = d;
        d = p / q;
        Real const u = x + d;
        if (u - a < tol2 || b - u < tol2) d = m > x ? tol1 : -tol1;  // do not evaluate too near the ends
        golden_step = false;
      }
    }
    if (golden_step) {
      e = x >= m ? a - x : b - x;  // into the larger part
      d = golden * e;
    }
    Real const u = Kokkos::fabs(d) >= tol1 ? x + d : (d > 0 ? x + tol1 : x - tol1);
    Real const fu = f(u);
    ++evaluations;
    if (fu <= fx) {
      if (u >= x)
        a = x;
      else
        b = x;
      v = w;
      fv = fw;
      w = x;
      fw = fx;
      x = u;
      fx = fu;
    } else {
      if (u < x)
        a = u;
      else
        b = u;
      if (fu <= fw || w == x) {
        v = w;
        fv = fw;
        w = u;
        fw = fu;
      } else if (fu <= fv || v == x || v == w) {
        v = u;
        fv = fu;
      }
    }
  }
  return {x, fx, evaluations};
}

}  // namespace parity::dual_control
