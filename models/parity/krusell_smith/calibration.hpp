#pragma once
// Factor prices, the balanced-budget tax and household income (usable in kernels).
#include <Kokkos_Core.hpp>

#include "parity/krusell_smith/chain.hpp"

namespace parity::krusell_smith {

// Factor prices and the tax in aggregate state z for aggregate capital K.
template <class Real>
struct Prices {
  Real r;  // rental rate of capital
  Real w;  // wage
  Real tau;  // labour tax, balances the budget: tau w l L = mu w u
};

template <class Real>
KOKKOS_INLINE_FUNCTION Prices<Real> prices(Real alpha, Real l_bar, Real mu, Real z, Real u, Real K) {
  Real const L = 1 - u;  // employment rate
  Real const ratio = K / (l_bar * L);
  Prices<Real> pr;
  pr.r = alpha * z * Kokkos::pow(ratio, alpha - 1);
  pr.w = (1 - alpha) * z * Kokkos::pow(ratio, alpha);
  pr.tau = mu * u / (l_bar * L);
  return pr;
}

// Cash on hand of a household with capital k and employment e (1 employed, 0 unemployed).
template <class Real>
KOKKOS_INLINE_FUNCTION Real income(Prices<Real> const& pr, Real delta, Real l_bar, Real mu, int e, Real k) {
  Real const labour = e == 1 ? (1 - pr.tau) * pr.w * l_bar : mu * pr.w;
  return (1 - delta + pr.r) * k + labour;
}

}  // namespace parity::krusell_smith
