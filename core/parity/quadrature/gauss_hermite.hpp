#pragma once
// Gauss-Hermite quadrature for expectations over a normal distribution:
//   E[f(m + s Z)] ~= sum_i w_i f(m + s z_i),  Z ~ N(0,1),  sum_i w_i = 1,
// exact when f is a polynomial of degree <= 2n-1. Nodes are the roots of the orthonormal
// Hermite function psi_n, found by bracketing sign changes and Newton's method in double;
// weights are 2 / psi_n'(x)^2 (physicists' form), then rescaled to the standard normal.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"

namespace parity::quadrature {

struct GaussHermiteRule {
  std::vector<double> nodes;  // z_i, ascending, symmetric about 0
  std::vector<double> weights;  // w_i > 0, summing to 1
};

namespace detail {

// psi_n(x) and psi_{n-1}(x) of the orthonormal Hermite functions (weight e^{-x^2}).
inline void hermite_orthonormal(int n, double x, double& pn, double& pnm1) {
  double p0 = 1.0 / std::pow(std::numbers::pi, 0.25);  // psi_0
  double p1 = 0.0;
  for (int k = 1; k <= n; ++k) {
    double const pk = x * std::sqrt(2.0 / k) * p0 - std::sqrt(double(k - 1) / k) * p1;
    p1 = p0;
    p0 = pk;
  }
  pn = p0;
  pnm1 = p1;
}

}  // namespace detail

// The n-point rule, 1 <= n <= 200.
inline GaussHermiteRule gauss_hermite(int n) {
  require(n >= 1 && n <= 200, "Gauss-Hermite needs 1 <= n <= 200 nodes, got " + std::to_string(n));
  // All roots of H_n lie in (-sqrt(2n+1), sqrt(2n+1)); their spacing exceeds ~pi/sqrt(2n+1)/2, so a
  // scan at a much finer step brackets each positive root exactly once.
  double const xmax = std::sqrt(2.0 * n + 1.0) + 0.5;
  int const steps = 16 * n + 256;
  std::vector<double> positive;
  auto newton = [n](double a, double b) {
    double x = 0.5 * (a + b);
    for (int it = 0; it < 100; ++it) {
      double pn, pnm1;
      detail::hermite_orthonormal(n, x, pn, pnm1);
      double const dp = std::sqrt(2.0 * n) * pnm1;
      double step = pn / dp;
      double xn = x - step;
      if (!(xn > a && xn < b)) {  // keep the iterate inside the bracket (bisection fallback)
        double pa, pam1;
        detail::hermite_orthonormal(n, a, pa, pam1);
        if ((pa < 0) == (pn < 0))
          a = x;
        else
          b = x;
        xn = 0.5 * (a + b);
      }
      if (std::abs(xn - x) <= 1e-15 * std::max(1.0, std::abs(x))) return xn;
      x = xn;
    }
    return x;
  };
  double prev_x = 0.0, prev_p, unused;
  detail::hermite_orthonormal(n, prev_x, prev_p, unused);
  for (int s = 1; s <= steps; ++s) {
    double const x = xmax * double(s) / steps;
    double p;
    detail::hermite_orthonormal(n, x, p, unused);
    if (prev_p != 0.0 && ((p < 0) != (prev_p < 0))) positive.push_back(newton(prev_x, x));
    prev_x = x;
    prev_p = p;
  }
  require(int(positive.size()) == n / 2, "Gauss-Hermite root bracketing failed for n = " + std::to_string(n));

  GaussHermiteRule rule;
  auto weight_of = [n](double x) {
    double pn, pnm1;
    detail::hermite_orthonormal(n, x, pn, pnm1);
    double const dp = std::sqrt(2.0 * n) * pnm1;
    return 2.0 / (dp * dp) / std::sqrt(std::numbers::pi);  // physicists' weight / sqrt(pi)
  };
  for (int i = int(positive.size()) - 1; i >= 0; --i) {
    rule.nodes.push_back(-std::numbers::sqrt2 * positive[i]);
    rule.weights.push_back(weight_of(positive[i]));
  }
  if (n % 2 == 1) {
    rule.nodes.push_back(0.0);
    rule.weights.push_back(weight_of(0.0));
  }
  for (double x : positive) {
    rule.nodes.push_back(std::numbers::sqrt2 * x);
    rule.weights.push_back(weight_of(x));
  }
  return rule;
}

// The rule in device memory, for kernels.
template <class Real, class MemorySpace>
struct DeviceGaussHermite {
  Kokkos::View<const Real*, MemorySpace> nodes;
  Kokkos::View<const Real*, MemorySpace> weights;
  KOKKOS_INLINE_FUNCTION int size() const { return static_cast<int>(nodes.extent(0)); }
};

template <class Real, class MemorySpace>
DeviceGaussHermite<Real, MemorySpace> to_device(GaussHermiteRule const& rule) {
  int const n = static_cast<int>(rule.nodes.size());
  Kokkos::View<Real*, MemorySpace> z("parity::quadrature::gh_nodes", n), w("parity::quadrature::gh_weights", n);
  auto zh = Kokkos::create_mirror_view(z);
  auto wh = Kokkos::create_mirror_view(w);
  for (int i = 0; i < n; ++i) {
    zh(i) = Real(rule.nodes[i]);
    wh(i) = Real(rule.weights[i]);
  }
  Kokkos::deep_copy(z, zh);
  Kokkos::deep_copy(w, wh);
  return {z, w};
}

}  // namespace parity::quadrature
