#pragma once
// Combining VEGAS's iterations (host code): the inverse-variance weighted average, its chi^2 per
// degree of freedom and Q = P(chi^2_dof >= observed), the regularised upper incomplete gamma
// function Q(dof / 2, chi^2 / 2).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace parity::cubature::detail {

// Q(a, x) = Gamma(a, x) / Gamma(a) for a > 0, x >= 0: the power series of P = 1 - Q below
// x = a + 1, the continued fraction of Q (modified Lentz) above; both converge there to
// double precision in a few hundred terms at most for the a of a few thousand iterations.
inline double upper_regularized_gamma(double a, double x) {
  if (!(x > 0)) return 1.0;
  double const log_prefactor = a * std::log(x) - x - std::lgamma(a);
  double constexpr eps = 1e-16;
  if (x < a + 1) {
    double term = 1 / a, sum = term;
    for (int k = 1; k < 10000; ++k) {
      term *= x / (a + k);
      sum += term;
      if (std::abs(term) < eps * std::abs(sum)) break;
    }
    return std::max(0.0, 1 - sum * std::exp(log_prefactor));
  }
  double constexpr tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int k = 1; k < 10000; ++k) {
    double const an = -k * (k - a);
    b += 2;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    double const step = d * c;
    h *= step;
    if (std::abs(step - 1) < eps) break;
  }
  return std::exp(log_prefactor) * h;
}

struct WeightedAverage {
  double mean = 0.0, error = 0.0, chi2 = 0.0, q = 1.0;
  int dof = 0;
};

// The inverse-variance weighted average of estimates with standard deviations `errors`. A zero
// variance (a constant integrand, exact in every iteration) is raised to the rounding of its
// estimate, so the weights stay finite.
inline WeightedAverage weighted_average(std::vector<double> const& estimates, std::vector<double> const& errors) {
  WeightedAverage w;
  std::size_t const m = estimates.size();
  if (m == 0) return w;
  std::vector<double> weight(m);
  double sum_w = 0, sum_wx = 0;
  for (std::size_t k = 0; k < m; ++k) {
    double const floor = std::max(std::abs(estimates[k]) * 1e-15, std::numeric_limits<double>::min());
    double const sigma = std::max(errors[k], floor);
    weight[k] = 1 / (sigma * sigma);
    sum_w += weight[k];
    sum_wx += weight[k] * estimates[k];
  }
  w.mean = sum_wx / sum_w;
  w.error = 1 / std::sqrt(sum_w);
  for (std::size_t k = 0; k < m; ++k) w.chi2 += weight[k] * (estimates[k] - w.mean) * (estimates[k] - w.mean);
  w.dof = int(m) - 1;
  w.q = w.dof > 0 ? upper_regularized_gamma(0.5 * w.dof, 0.5 * w.chi2) : 1.0;
  return w;
}

}  // namespace parity::cubature::detail
