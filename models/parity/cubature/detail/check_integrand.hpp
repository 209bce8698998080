#pragma once
// The compile-time check of a user's integrand (the concept Integrand, integrand.hpp, one message per
// requirement), shared by integrate() and integrate_vegas(), so a functor with the wrong signature
// gives the same readable message in both.
#include <type_traits>

#include "parity/cubature/integrand.hpp"
#include "parity/cubature/rule.hpp"

namespace parity::cubature {

namespace detail {

template <class F, class Real, class = void>
struct returns_real : std::false_type {};
template <class F, class Real>
struct returns_real<F, Real, std::enable_if_t<std::is_invocable_v<F const&, Point<Real> const&>>>
    : std::is_convertible<std::invoke_result_t<F const&, Point<Real> const&>, Real> {};

// What an integrand must provide, checked where a user's functor enters the library. Whether
// operator() is device-callable shows when a GPU backend compiles the kernels (a call to a host
// function from a KOKKOS_FUNCTION).
template <class F, class Real>
constexpr bool check_integrand() {
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>,
                "parity::cubature: Real (the second template argument) must be float or double");
  static_assert(std::is_invocable_v<F const&, Point<Real> const&>,
                "parity::cubature: the integrand must provide a const call operator taking the point, "
                "`KOKKOS_FUNCTION Real operator()(parity::cubature::Point<Real> const& x) const`, "
                "with Real the precision passed to integrate (x[i], i < dimension, are the coordinates)");
  static_assert(returns_real<F, Real>::value,
                "parity::cubature: the integrand's operator() must return a value convertible to Real "
                "(float or double, the precision passed to integrate)");
  static_assert(std::is_copy_constructible_v<F>,
                "parity::cubature: the integrand is copied into every kernel, so it must be copy-constructible "
                "(hold plain values and Kokkos::Views, not host containers or references)");
  static_assert(Integrand<F, Real>, "parity::cubature: the integrand does not satisfy parity::cubature::Integrand");
  return true;
}

}  // namespace detail

}  // namespace parity::cubature
