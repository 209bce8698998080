#pragma once
// What the rule tests (test_rule.cpp, test_rule9.cpp) integrate and compare with: monomials on a
// box and their exact integrals, and an integrand that counts its calls and stray points. Each
// test file keeps its own kernel launch: a device lambda instantiated with the same types in two
// CUDA translation units is not safe (see backends/models/sde.cpp).
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstddef>
#include <vector>

#include "parity/cubature/rule.hpp"
#include "test_backend.hpp"

namespace parity_test_cubature {

struct Monomial {
  Kokkos::Array<int, parity::cubature::max_dim> e{};
  KOKKOS_INLINE_FUNCTION double operator()(parity::cubature::Point<double> const& x) const {
    double p = 1;
    for (int i = 0; i < x.size(); ++i)
      for (int k = 0; k < e[i]; ++k) p *= x[i];
    return p;
  }
};

// Counts its calls and the points that lie outside the region.
struct Counting {
  Kokkos::View<int*, parity::test::MemSpace> calls;  // [0]: calls, [1]: points outside
  Kokkos::Array<double, parity::cubature::max_dim> lo{}, hi{};
  KOKKOS_INLINE_FUNCTION double operator()(parity::cubature::Point<double> const& x) const {
    Kokkos::atomic_inc(&calls(0));
    for (int i = 0; i < x.size(); ++i)
      if (x[i] <= lo[i] || x[i] >= hi[i]) Kokkos::atomic_inc(&calls(1));
    return 1.0;
  }
};

// The integral of prod x_i^e_i over the box of centre c and half-widths h.
inline double exact_monomial(std::vector<int> const& e, std::vector<double> const& c, std::vector<double> const& h) {
  double p = 1;
  for (std::size_t i = 0; i < c.size(); ++i)
    p *= (std::pow(c[i] + h[i], e[i] + 1) - std::pow(c[i] - h[i], e[i] + 1)) / (e[i] + 1);
  return p;
}

// Calls visit(e) for every exponent vector of total degree exactly `degree`.
template <class Visit>
void for_each_monomial(int n, int degree, std::vector<int>& e, int i, Visit const& visit) {
  if (i == n - 1) {
    e[i] = degree;
    visit(e);
    return;
  }
  for (int k = 0; k <= degree; ++k) {
    e[i] = k;
    for_each_monomial(n, degree - k, e, i + 1, visit);
  }
}

// Calls visit(m, e, scale) for every monomial m = prod x_i^e_i of total degree exactly `degree` on
// the box of centre c and half-widths h; scale is the integral of |x|^e over the box, a natural size
// for the rounding error.
template <class Visit>
void for_each_monomial_on(std::vector<double> const& c, std::vector<double> const& h, int degree, Visit const& visit) {
  int const n = int(c.size());
  std::vector<int> e(n);
  for_each_monomial(n, degree, e, 0, [&](std::vector<int> const& ex) {
    Monomial m;
    double scale = 1;
    for (int i = 0; i < n; ++i) {
      m.e[i] = ex[i];
      scale *= std::pow(std::abs(c[i]) + h[i], ex[i]) * 2 * h[i];
    }
    visit(m, ex, scale);
  });
}

}  // namespace parity_test_cubature
