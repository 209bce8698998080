#pragma once
// What integrate(), integrate_batch() and integrate_vegas() ask of a user's integrand, as a concept
// for constraining one's own templates: a copyable functor with a const call operator taking the
// point and returning a value convertible to Real (float or double). The engines check the same
// requirements with a message per requirement (detail/check_integrand.hpp).
#include <concepts>
#include <type_traits>

#include "parity/cubature/rule.hpp"

namespace parity::cubature {

template <class F, class Real>
concept Integrand = (std::is_same_v<Real, float> ||
                     std::is_same_v<Real, double>)&&std::is_copy_constructible_v<F>&& requires(F const& f,
                                                                                               Point<Real> const& x) {
  { f(x) } -> std::convertible_to<Real>;
};

}  // namespace parity::cubature

namespace parity::cubature {

// What integrate_family() (and integrate_vegas_family() in this form) asks of a family of m
// integrands called once per component: `Real operator()(Point<Real> const& x, int k) const`
// returning component k's value at x, k = 0..m-1.
template <class F, class Real>
concept IntegrandFamily =
    (std::is_same_v<Real, float> ||
     std::is_same_v<Real, double>)&&std::is_copy_constructible_v<F>&& requires(F const& f, Point<Real> const& x,
                                                                               int k) {
  { f(x, k) } -> std::convertible_to<Real>;
};

}  // namespace parity::cubature

namespace parity::cubature {

// What integrate_vector() (and integrate_vegas_family() in this form) asks of a vector-valued
// integrand: `void operator()(Point<Real> const& x, Real* values) const` writing its m components
// at x into values[0..m-1].
template <class F, class Real>
concept VectorIntegrand =
    (std::is_same_v<Real, float> ||
     std::is_same_v<Real, double>)&&std::is_copy_constructible_v<F>&& requires(F const& f, Point<Real> const& x,
                                                                               Real* values) {
  f(x, values);
};

}  // namespace parity::cubature
