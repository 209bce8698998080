#pragma once
// VEGAS+ Monte Carlo cubature (Lepage, J. Comput. Phys. 439 (2021) 110386): VEGAS's separable
// adaptive map with adaptive stratified sampling, for dimensions up to max_vegas_dim = 32.
//
//   VegasResult r = integrate_vegas<ExecutionSpace, Real>(space, f, lower, upper, tolerances, options);
//
// f is the deterministic method's integrand (integrate.hpp): a device-callable functor,
// `KOKKOS_FUNCTION Real operator()(Point<Real> const& x) const`, copied into the kernels. Each
// iteration draws at most options.evaluations_per_iteration points (Philox keyed by the seed,
// the iteration and the sample index), estimates the integral and its variance, and adapts the map
// (each axis's increments follow the damped histogram of (f J)^2) and the samples per
// stratification cell (proportional to sigma_h^beta). The first adaptation_iterations estimates
// are discarded; the later ones are combined by their inverse-variance weighted average with
// chi^2/dof and its Q. It stops when the combined one-standard-deviation error meets
// max(tau_abs, tau_rel |I|) with at least two estimates combined (converged; where they disagree,
// Q < min_q, up to options.restarts times they are dropped as adaptation first), when the next
// iteration would pass max_evaluations (budget_exhausted), or on a NaN or infinite estimate
// (integrand_not_finite). chi2_consistent is false when Q < min_q: the iterations disagree
// (the map was still moving, or f has a feature the samples rarely see), so `error` is not to be
// trusted. Every sum is taken in a fixed order: the result is the same bits for any thread count;
// every backend draws the same points, and differs only by the rounding of its math (the
// integrand's functions, fused multiply-adds). Across ranks (options.ranks) each rank samples a contiguous share of the
// stratification cells and the ranks gather the cell sums in order: every rank returns the same
// bits as one rank. Bad input throws
// parity::InvalidInput with a message that names the option.
//
// A family of m integrands (components of a vector, or one integrand at m parameter values)
// shares one sampling in integrate_vegas_family, one launch per iteration for all of them. f is
// either `KOKKOS_FUNCTION void operator()(Point<Real> const& x, Real* values) const`, writing
// values[0..m-1] at once (m <= 16: the values sit on each thread's stack), or
// `KOKKOS_FUNCTION Real operator()(Point<Real> const& x, int k) const`, component k alone
// (m <= 65536; memory holds evaluations_per_iteration x m doubles). The map and the allocation
// adapt to the components' (f_k J)^2 and variances summed with weights 1 / tolerance_k^2 (set
// from the adaptation iterations' estimates; one component: 1), so they serve the component
// furthest from its tolerance; a component much easier than the others is sampled through their
// map. Each component gets its own estimate, error and chi^2 from the shared samples. The
// iterations are shared: the run goes on until every component meets its own
// max(tau_abs, tau_rel |I_k|), so a component that met it early keeps being sampled. Each
// result's status is its own at the stop: converged where that component met its tolerance (at
// least two estimates combined), else why the run stopped (budget_exhausted, or
// integrand_not_finite for all when any component's estimate is NaN or infinite);
// evaluations and iterations are the family's.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "parity/cubature/detail/check_integrand.hpp"
#include "parity/cubature/detail/vegas_integrator.hpp"
#include "parity/cubature/vegas_options.hpp"

namespace parity::cubature {

template <class ExecutionSpace, class Real, class F>
VegasResult integrate_vegas(ExecutionSpace const& space, F const& f, std::vector<double> const& lower,
                            std::vector<double> const& upper, Tolerances const& tol = {},
                            VegasOptions const& opt = {}) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "parity::cubature::integrate_vegas: the first template argument must be a Kokkos execution space");
  static_assert(detail::check_integrand<F, Real>());
  validate_vegas(lower, upper, tol, opt);
  return detail::run_vegas<ExecutionSpace, Real>(space, detail::VegasScalar<Real, F>{f}, 1, lower, upper, tol, opt)
      .front();
}

template <class ExecutionSpace, class Real, class F>
std::vector<VegasResult> integrate_vegas_family(ExecutionSpace const& space, F const& f, int components,
                                                std::vector<double> const& lower, std::vector<double> const& upper,
                                                Tolerances const& tol = {}, VegasOptions const& opt = {}) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "parity::cubature::integrate_vegas_family: the first template argument must be a Kokkos execution "
                "space");
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>,
                "parity::cubature: Real (the second template argument) must be float or double");
  constexpr bool indexed = detail::is_indexed_family<F, Real>;
  static_assert(indexed || std::is_invocable_v<F const&, Point<Real> const&, Real*>,
                "parity::cubature::integrate_vegas_family: the integrand family must provide a const call operator "
                "`KOKKOS_FUNCTION void operator()(parity::cubature::Point<Real> const& x, Real* values) const` "
                "that writes values[0..components-1], or `KOKKOS_FUNCTION Real operator()(parity::cubature::"
                "Point<Real> const& x, int k) const` that returns component k");
  static_assert(std::is_copy_constructible_v<F>,
                "parity::cubature: the integrand is copied into every kernel, so it must be copy-constructible "
                "(hold plain values and Kokkos::Views, not host containers or references)");
  int const most = indexed ? detail::max_vegas_indexed_components : detail::max_vegas_components;
  require(components >= 1 && components <= most,
          "components must be between 1 and " + std::to_string(most) + " (got " + std::to_string(components) +
              (indexed ? ")" : "; a family called once per component, f(x, k), takes more)"));
  validate_vegas(lower, upper, tol, opt);
  return detail::run_vegas<ExecutionSpace, Real>(space, f, components, lower, upper, tol, opt);
}

}  // namespace parity::cubature
