#pragma once
// Brent's method for a root of a continuous function on a bracket [a, b] with f(a) f(b) <= 0
// (Brent 1973, ch. 4): inverse quadratic interpolation or the secant step where they land well
// inside the bracket, bisection otherwise, so it never does worse than bisection. Host code: for
// outer loops such as a market-clearing price, where each f(x) is a whole solve.
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "parity/run/errors.hpp"

namespace parity::optimize {

struct RootResult {
  double x = 0;  // the last best point
  double fx = 0;  // f(x)
  double lower = 0, upper = 0;  // the final bracket: f changes sign over [lower, upper]
  int evaluations = 0;
  bool converged = false;  // |f(x)| <= f_tol or the bracket narrower than x_tol
};

struct RootOptions {
  double x_tol = 1e-10;  // stop when the bracket is narrower than this
  double f_tol = 0;  // or when |f(x)| is at most this
  int max_evaluations = 100;
  // f at the ends where the caller knows it already (NaN: evaluated here; either way counted).
  double f_lower = std::numeric_limits<double>::quiet_NaN();
  double f_upper = std::numeric_limits<double>::quiet_NaN();
  // Called after each evaluation (e.g. for progress lines).
  std::function<void(int evaluation, double x, double fx, double lower, double upper)> on_step;
};

// Throws InvalidInput when [a, b] does not bracket a sign change of f.
template <class F>
RootResult find_root(F&& f, double a, double b, RootOptions const& opt = {}) {
  require(std::isfinite(a) && std::isfinite(b) && a < b, "root: the bracket [a, b] must be finite with a < b");
  require(opt.x_tol > 0 && opt.max_evaluations >= 2, "root: x_tol must be > 0 and max_evaluations at least 2");
  RootResult r;
  double fa = std::isnan(opt.f_lower) ? f(a) : opt.f_lower;
  double fb = std::isnan(opt.f_upper) ? f(b) : opt.f_upper;
  r.evaluations = 2;
  auto report = [&](double x, double fx, double lo, double hi) {
    if (opt.on_step) opt.on_step(r.evaluations, x, fx, lo, hi);
  };
  report(b, fb, a, b);
  require(std::isfinite(fa) && std::isfinite(fb), "root: f is not finite at an end of the bracket");
  require((fa <= 0 && fb >= 0) || (fa >= 0 && fb <= 0), "root: f has the same sign at both ends of the bracket [" +
                                                            std::to_string(a) + ", " + std::to_string(b) + "]");
  double c = a, fc = fa, d = b - a, e = d;
  for (;;) {
    if ((fb > 0) == (fc > 0)) {  // keep the root between b and c
      c = a, fc = fa;
      d = e = b - a;
    }
    if (std::abs(fc) < std::abs(fb)) {  // b is the best point
      a = b, b = c, c = a;
      fa = fb, fb = fc, fc = fa;
    }
    double const tol = 2 * std::numeric_limits<double>::epsilon() * std::abs(b) + 0.5 * opt.x_tol;
    double const m = 0.5 * (c - b);
    r.x = b, r.fx = fb;
    r.lower = std::min(b, c), r.upper = std::max(b, c);
    if (std::abs(m) <= tol || std::abs(fb) <= opt.f_tol || fb == 0) {
      r.converged = true;
      return r;
    }
    if (r.evaluations >= opt.max_evaluations) return r;
    if (std::abs(e) >= tol && std::abs(fa) > std::abs(fb)) {
      double p, q, s = fb / fa;
      if (a == c) {  // secant
        p = 2 * m * s;
        q = 1 - s;
      } else {  // inverse quadratic interpolation
        double const qa = fa / fc, rb = fb / fc;
        p = s * (2 * m * qa * (qa - rb) - (b - a) * (rb - 1));
        q = (qa - 1) * (rb - 1) * (s - 1);
      }
      if (p > 0)
        q = -q;
      else
        p = -p;
      if (2 * p < std::min(3 * m * q - std::abs(tol * q), std::abs(e * q))) {
        e = d;
        d = p / q;
      } else {
        d = m, e = m;  // bisection
      }
    } else {
      d = m, e = m;
    }
    a = b, fa = fb;
    b += std::abs(d) > tol ? d : (m > 0 ? tol : -tol);
    fb = f(b);
    ++r.evaluations;
    require(std::isfinite(fb), "root: f is not finite at " + std::to_string(b));
    report(b, fb, std::min(b, c), std::max(b, c));
  }
}

}  // namespace parity::optimize
