#pragma once
// The integrals of a vector-valued integrand over one box, all components on one partition: every
// point of the rule is evaluated once for all of them (hcubature's vector integrands; for moments,
// expectations of several functions of one density, or components sharing costly work).
//
//   std::vector<Result> r = integrate_vector<ExecutionSpace, Real>(space, f, m, lower, upper, tol, opt);
//
// f is a device-callable functor, `KOKKOS_FUNCTION void operator()(Point<Real> const& x, Real*
// values) const`, writing the m components at x into values[0..m-1] (the concept VectorIntegrand,
// integrand.hpp; m <= max_vector_components = 16: the values sit on each thread's stack).
//
// The algorithm is integrate()'s improved phase 1 (integrate.hpp) with the degree-9 rule (n >= 2)
// on one region list. Each region carries each component's estimate and error (the rule's null
// rules and the two-level check applied to that component's values) and one split axis, where the
// components' fourth differences summed are largest. A region is finished when every component
// that has not yet met its tolerance max(tau_abs, tau_rel |I_k|) finds the region's error within
// the region's volume share of what is left of that tolerance; the unfinished regions are bisected
// for all components. The run ends when every component meets its tolerance at the same step, when
// no region is unfinished, or when the next split would pass `max_evaluations` (the unfinished
// regions stay at their values: integrate() would first split the worst ones it can pay for), would
// not fit `max_memory_mb` (storage_exhausted, `unrefined_regions`; integrate() filters or hands
// the list to phase 2) or after 16 x `max_phase1_iterations` steps. A component that meets its
// tolerance early keeps the regions the others split, so its value is refined with theirs.
//
// Result k holds component k's integral, error, tolerance and status (converged where its error
// meets its tolerance at the end, else why the run stopped: budget_exhausted, storage_exhausted,
// not_converged, or integrand_not_finite for every component when any value was NaN or infinite);
// evaluations (calls of f, each giving all m values), regions and history are the run's. With
// m = 1 the result is integrate()'s wherever integrate() stays in phase 1 within its budget and
// memory; the sums are taken in a fixed order, so the bits do not depend on the thread count.
// Progress gets one "vector" line per step, phases the phase "parity::cubature::vector".
//
// Options the vector form does not run are refused (parity::InvalidInput): the paper mode, the
// degree-7 rule and one dimension (the degree-9 rule needs n >= 2), `max_host_memory_mb` > 0 and
// several ranks.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "parity/cubature/detail/one_list.hpp"
#include "parity/cubature/detail/vector_integrator.hpp"
#include "parity/cubature/integrand.hpp"
#include "parity/cubature/options.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::cubature {

// A family called once per component (IntegrandFamily, f(x, k)) as a vector integrand of m
// components, to integrate m members of a family on one partition.
template <class F>
struct FamilyAsVector {
  F family;
  int m;
  template <class Real>
  KOKKOS_INLINE_FUNCTION void operator()(Point<Real> const& x, Real* values) const {
    for (int k = 0; k < m; ++k) values[k] = family(x, k);
  }
};

// The largest Options::team_size this backend runs integrate_vector's kernel with for the vector
// integrand F with m components in precision Real. Launches nothing and allocates nothing.
template <class ExecutionSpace, class Real, class F>
int max_vector_team_size(ExecutionSpace const& space, F const& f, int components) {
  int largest = 0;
  detail::evaluate_vector_regions<ExecutionSpace, Real>(
      space, f, components, 2, detail::VectorRegionList<Real, typename ExecutionSpace::memory_space>(), 0, 1,
      Kokkos::View<int*, typename ExecutionSpace::memory_space>(), NullRules<Real>(), &largest);
  return largest;
}

template <class ExecutionSpace, class Real, class F>
std::vector<Result> integrate_vector(ExecutionSpace const& space, F const& f, int components,
                                     std::vector<double> const& lower, std::vector<double> const& upper,
                                     Tolerances const& tol = {}, Options const& opt = {}) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "parity::cubature::integrate_vector: the first template argument must be a Kokkos execution space");
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>,
                "parity::cubature::integrate_vector: Real (the second template argument) must be float or double");
  static_assert(VectorIntegrand<F, Real>,
                "parity::cubature::integrate_vector: the integrand must be a copyable functor with "
                "`KOKKOS_FUNCTION void operator()(parity::cubature::Point<Real> const& x, Real* values) const` "
                "that writes its components at x into values[0..m-1]");
  validate(lower, upper, tol, opt);
  require(components >= 1 && components <= max_vector_components,
          "components must be between 1 and " + std::to_string(max_vector_components) + " (got " +
              std::to_string(components) + "; integrate_family takes a family called once per component)");
  detail::require_one_list("integrate_vector", opt, "");
  require(uses_degree9(opt, int(lower.size())),
          "integrate_vector applies the degree-9 rule, in two or more dimensions (rule degree7 and one-dimensional "
          "boxes are for integrate)");
  detail::require_team_size<ExecutionSpace>(opt.team_size,
                                            max_vector_team_size<ExecutionSpace, Real>(space, f, components));
  timing::OptionalPhase<ExecutionSpace> phase(space, opt.phases, "parity::cubature::vector");
  detail::VectorIntegrator<ExecutionSpace, Real, F> integrator(space, f, components, lower, upper, tol, opt);
  return integrator.run();
}

}  // namespace parity::cubature
