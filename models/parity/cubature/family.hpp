#pragma once
// A family of integrals in one run: m integrands over the same box (for example one integrand at m
// parameter values), their regions in one list, so that each step of the algorithm is one launch
// for all of them.
//
//   std::vector<Result> r = integrate_family<ExecutionSpace, Real>(space, f, m, lower, upper, tol, opt);
//
// f is a device-callable functor, `KOKKOS_FUNCTION Real operator()(Point<Real> const& x, int k)
// const`, returning integrand k's value (k = 0..m-1; the concept IntegrandFamily, integrand.hpp);
// GenzParameterFamily (integrands.hpp) is one of the built-in integrands at m parameter sets.
//
// The algorithm is integrate()'s improved phase 1 (integrate.hpp) for every integrand at once:
// each starts from integrate()'s even partition of about `initial_regions` regions, and its
// regions are bisected breadth-first against its own volume share of what is left of its own
// tolerance max(tau_abs, tau_rel |I_k|). Tolerances, the rule, the error estimate and `max_evaluations`
// apply to each integrand; `max_memory_mb` holds the one list of all of them. Result k is what
// integrate() returns for integrand k alone, bit for bit, wherever integrate() stays in phase 1
// and neither its budget nor its memory binds. Beyond that it differs:
// - an integrand whose next split would pass `max_evaluations` ends there, its unfinished regions
//   at their values (`budget_exhausted`); integrate() first splits the worst ones it can pay for;
// - a pass starts with the integrands of lowest index whose even partitions leave room for their
//   first split; when the list would outgrow `max_memory_mb`, the unfinished integrands of
//   lowest index whose pieces fit go on and the others wait: they start again from their even
//   partition in a later pass over the waiting ones (`repeated_evaluations`: what they spent
//   before), so each still runs its own steps; an integrand whose own list would not fit ends
//   with its unfinished regions at their values (`storage_exhausted`, `unrefined_regions`), and
//   so does every unfinished one after 16 x `max_phase1_iterations` steps of a pass
//   (`not_converged`), where integrate() filters, parks or hands its list to phase 2.
// Each result has its own integral, error, evaluations, regions, history and status; progress
// gets one "family" line per step, phases the phase "parity::cubature::family".
//
// Options the family does not run are refused (parity::InvalidInput): the paper mode,
// `max_host_memory_mb` > 0 (parking) and several ranks (integrate_batch runs a family across ranks,
// one integral at a time).
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "parity/cubature/detail/family_integrator.hpp"
#include "parity/cubature/detail/one_list.hpp"
#include "parity/cubature/integrand.hpp"
#include "parity/cubature/options.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::cubature {

inline constexpr int max_family_components = 1 << 20;

// The largest Options::team_size this backend runs integrate_family's kernel with for the family F
// in precision Real. Launches nothing and allocates nothing.
template <class ExecutionSpace, class Real, class F>
int max_family_team_size(ExecutionSpace const& space, F const& f) {
  using Mem = typename ExecutionSpace::memory_space;
  int largest = 0;
  detail::evaluate_family_list<ExecutionSpace, Real>(space, f, 1, detail::RegionList<Real, Mem>(),
                                                     Kokkos::View<int*, Mem>(), 0, 1, Kokkos::View<int*, Mem>(),
                                                     NullRules<Real>(), &largest);
  return largest;
}

template <class ExecutionSpace, class Real, class F>
std::vector<Result> integrate_family(ExecutionSpace const& space, F const& f, int components,
                                     std::vector<double> const& lower, std::vector<double> const& upper,
                                     Tolerances const& tol = {}, Options const& opt = {}) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "parity::cubature::integrate_family: the first template argument must be a Kokkos execution space");
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>,
                "parity::cubature::integrate_family: Real (the second template argument) must be float or double");
  static_assert(IntegrandFamily<F, Real>,
                "parity::cubature::integrate_family: the family must be a copyable functor with "
                "`KOKKOS_FUNCTION Real operator()(parity::cubature::Point<Real> const& x, int k) const` that "
                "returns integrand k's value");
  validate(lower, upper, tol, opt);
  require(components >= 1 && components <= max_family_components, "components must be between 1 and " +
                                                                      std::to_string(max_family_components) + " (got " +
                                                                      std::to_string(components) + ")");
  detail::require_one_list("integrate_family", opt, " (integrate_batch runs it one integral at a time)");
  detail::require_team_size<ExecutionSpace>(opt.team_size, max_family_team_size<ExecutionSpace, Real>(space, f));
  timing::OptionalPhase<ExecutionSpace> phase(space, opt.phases, "parity::cubature::family");
  detail::FamilyIntegrator<ExecutionSpace, Real, F> integrator(space, f, components, lower, upper, tol, opt);
  return integrator.run();
}

}  // namespace parity::cubature
