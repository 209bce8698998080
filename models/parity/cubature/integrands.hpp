#pragma once
// The built-in integrands as one device functor (the family is a runtime switch, so one
// instantiation of the integrator serves them all), and one of them at many parameter sets as a
// family of integrands for integrate_vegas_family. Definitions and exact integrals: genz.hpp
// (Genz families) and paper.hpp (the paper's f1..f5, on the unit cube; a and u unused).
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "parity/cubature/genz.hpp"
#include "parity/cubature/rule.hpp"

namespace parity::cubature {

// The built-in integrand `family` at x with parameters a[0..n-1], u[0..n-1] (arrays or pointers).
template <class Real, class A, class U>
KOKKOS_INLINE_FUNCTION Real genz_value(Family family, int n, Point<Real> const& x, A const& a, U const& u) {
  switch (family) {
    case Family::oscillatory: {
      Real s = 2 * Kokkos::numbers::pi_v<Real> * u[0];
      for (int i = 0; i < n; ++i) s += a[i] * x[i];
      return Kokkos::cos(s);
    }
    case Family::product_peak: {
      Real p = 1;
      for (int i = 0; i < n; ++i) {
        Real const d = x[i] - u[i];
        p *= 1 / (1 / (a[i] * a[i]) + d * d);
      }
      return p;
    }
    case Family::corner_peak: {
      Real s = 1;
      for (int i = 0; i < n; ++i) s += a[i] * x[i];
      return Kokkos::pow(s, Real(-(n + 1)));
    }
    case Family::gaussian: {
      Real s = 0;
      for (int i = 0; i < n; ++i) {
        Real const d = a[i] * (x[i] - u[i]);
        s += d * d;
      }
      return Kokkos::exp(-s);
    }
    case Family::c0: {
      Real s = 0;
      for (int i = 0; i < n; ++i) s += a[i] * Kokkos::abs(x[i] - u[i]);
      return Kokkos::exp(-s);
    }
    case Family::discontinuous: {
      if (x[0] > u[0] || (n > 1 && x[1] > u[1])) return Real(0);
      Real s = 0;
      for (int i = 0; i < n; ++i) s += a[i] * x[i];
      return Kokkos::exp(s);
    }
    case Family::f1:
    case Family::f1_pagani: {
      Real s = 0;
      for (int i = 0; i < n; ++i) s += x[i] * x[i];
      Real const c = Kokkos::cos(s);
      Real const d = Real(0.1) + c * c;
      return family == Family::f1 ? 1 / (d * d) : 1 / d;
    }
    case Family::f2: {
      Real p = 1, w = 4;  // 2^(2i), i = 1..n
      for (int i = 0; i < n; ++i, w *= 4) p *= Kokkos::cos(w * x[i]);
      return Kokkos::cos(p);
    }
    case Family::f3: {
      Real p = 1;
      for (int i = 0; i < n; ++i) {
        Real xi = 1;  // x_i^(i+1)
        for (int k = 0; k <= i; ++k) xi *= x[i];
        p *= Real(i + 1) * Kokkos::asin(xi);
      }
      return Kokkos::sin(p);
    }
    case Family::f4: {
      Real p = 1;
      for (int i = 0; i < n; ++i) p *= Kokkos::asin(x[i]);
      return Kokkos::sin(p);
    }
    case Family::f5: {
      Real s = 0;
      for (int i = 0; i < n; ++i) s += Kokkos::cos(10 * x[i]);
      return s / (2 * Real(paper_beta));
    }
  }
  return Real(0);
}

template <class Real>
struct GenzIntegrand {
  Family family = Family::gaussian;
  int n = 0;
  Kokkos::Array<Real, point_capacity> a{}, u{};

  GenzIntegrand() = default;
  GenzIntegrand(Family f, std::vector<double> const& a_in, std::vector<double> const& u_in)
      : family(f), n(int(a_in.size())) {
    for (int i = 0; i < n; ++i) {
      a[i] = Real(a_in[i]);
      u[i] = Real(u_in[i]);
    }
  }

  KOKKOS_INLINE_FUNCTION Real operator()(Point<Real> const& x) const { return genz_value(family, n, x, a, u); }
};

// One built-in integrand at m parameter sets (a_k, u_k), as a family for integrate_vegas_family
// called once per component: component k is GenzIntegrand(family, a_k, u_k). The parameters sit
// in two m x n views of MemorySpace.
template <class Real, class MemorySpace>
struct GenzParameterFamily {
  Family family = Family::gaussian;
  int n = 0;
  Kokkos::View<Real**, Kokkos::LayoutRight, MemorySpace> a, u;  // m x n

  GenzParameterFamily() = default;
  // a[k], u[k]: component k's n values each.
  GenzParameterFamily(Family f, std::vector<std::vector<double>> const& a_in,
                      std::vector<std::vector<double>> const& u_in)
      : family(f), n(a_in.empty() ? 0 : int(a_in.front().size())) {
    int const m = int(a_in.size());
    a = decltype(a)(std::string("parity::cubature::genz_family_a"), m, n);
    u = decltype(u)(std::string("parity::cubature::genz_family_u"), m, n);
    auto ha = Kokkos::create_mirror_view(a);
    auto hu = Kokkos::create_mirror_view(u);
    for (int k = 0; k < m; ++k)
      for (int i = 0; i < n; ++i) {
        ha(k, i) = Real(a_in[k][i]);
        hu(k, i) = Real(u_in[k][i]);
      }
    Kokkos::deep_copy(a, ha);
    Kokkos::deep_copy(u, hu);
  }

  int components() const { return int(a.extent(0)); }

  KOKKOS_INLINE_FUNCTION Real operator()(Point<Real> const& x, int k) const {
    return genz_value(family, n, x, &a(k, 0), &u(k, 0));
  }
};

}  // namespace parity::cubature
