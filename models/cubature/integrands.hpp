#pragma once
// The built-in integrands as one device functor (the family is a runtime switch, so one
// instantiation of the integrator serves them all). Definitions and exact integrals: genz.hpp.
#include <Kokkos_Core.hpp>
#include <vector>

#include "models/cubature/genz.hpp"
#include "models/cubature/rule.hpp"

namespace parity::cubature {

template <class Real>
struct GenzIntegrand {
  Family family = Family::gaussian;
  int n = 0;
  Kokkos::Array<Real, max_dim> a{}, u{};

  GenzIntegrand() = default;
  GenzIntegrand(Family f, std::vector<double> const& a_in, std::vector<double> const& u_in)
      : family(f), n(int(a_in.size())) {
    for (int i = 0; i < n; ++i) {
      a[i] = Real(a_in[i]);
      u[i] = Real(u_in[i]);
    }
  }

  KOKKOS_INLINE_FUNCTION Real operator()(Point<Real> const& x) const {
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
    }
    return Real(0);
  }
};

}  // namespace parity::cubature
