#pragma once
// Deterministic adaptive cubature: the two-phase parallel algorithm of Arumugam, Godunov,
// Ranjan, Terzic & Zubair (2013) around the fully symmetric degree-9 rule (rule9.hpp; the
// default, and CUHRE's rule in paper mode) or the Genz-Malik degree-7/5 rule (rule.hpp;
// Options::rule).
//
//   Result r = integrate<ExecutionSpace, Real>(space, f, lower, upper, tolerances, options);
//
// f is a device-callable functor, `KOKKOS_FUNCTION Real operator()(Point<Real> const& x) const`,
// with x[0..n-1] the coordinates (n = lower.size() <= max_dim = 16); Real is float or double.
// f is copied into the kernels, so it holds values and Kokkos Views, not host containers.
// Tolerances and Options (options.hpp) have documented defaults; Options::progress (a
// run::Progress*, null: silent) and Options::phases (a run::PhaseTimes*, null: none) are optional,
// and the phases are Kokkos Tools regions ("parity::cubature::phase1", "parity::cubature::phase2")
// either way.
// Bad input throws parity::InvalidInput with a message that names the option.
//
// Phase 1 (breadth-first, all regions at once), paper mode as published: INIT-PARTITION cuts the
// box into l^n <= max_regions (Lmax) equal regions; every region of the list is evaluated in
// parallel (one Kokkos team per region); a region is good when its error < max(tau_abs,
// tau_rel |I_j|) and is accumulated; the bad ones are each cut into d pieces along their split
// axis, d = clamp(Lmax / bad, 2, max_split), and compacted into the next list with a parallel
// scan. Phase 1 ends when the global error meets max(tau_abs, tau_rel |I|), when no bad region is
// left, or when the next list holds Lmax or more regions, which go to phase 2 (also after
// `max_phase1_iterations`, or when the next step would exceed the evaluation budget, with the bad
// regions as they are). Phase 2 runs sequential CUHRE on each of them to max(tau_abs,
// tau_rel |I_j|) of its own integral.
//
// Improved mode (the default; `mode paper` is the published algorithm above) differs in phase 1:
// it starts from an even partition of about `initial_regions` regions, which are bisected for as long as the list fits
// `max_memory_mb` (null-rule error estimate, PAGANI-style classification against the tolerance left over the unfinished
// volume and filtering of the smallest errors when memory is short). When the evaluation budget cannot split every
// unfinished region, the worst ones it pays for are split and the others finished as they are (breadth-first to the end
// of the budget; phase 2 is not needed for it). With `max_host_memory_mb` > 0, a list that would outgrow
// `max_memory_mb` is refined in pieces: the pieces of all but the first bad regions are parked in host memory (a stack,
// newest first), each with its volume's share of the tolerance and a share of the evaluations left set aside, and come
// back when the current list is done, so device memory stays bounded without phase 2 (for tight
// tolerances with large budgets).
// Otherwise the list goes to phase 2. When the host memory is full, the current list goes to
// phase 2 alone (with its shares of the tolerance and budget) and the parked chunks come back after.
//
// Phase 2 (depth-first, one region per team): each remaining region runs a sequential
// CUHRE-style loop - a max-heap on the error of at most `heap_capacity` subregions (0: as many
// as `max_memory_mb` allows with all phase-2 regions resident, at least 16), the worst
// one bisected along its split axis - until its error meets its own tolerance (paper mode) or
// its volume share of the remaining tolerance (improved mode), its share of the remaining
// evaluation budget is spent
// (half shared evenly, half by error), or its heap is full. Heaps live in one device View;
// as many phase-2 regions run at once as `max_memory_mb` allows (batches), so memory stays
// bounded whatever the number of regions.
//
// Determinism: every sum over regions is taken in a fixed blocked order and every region
// runs the same sequence of steps whatever the thread count or batch size, so the integral
// and the evaluation count do not depend on the number of threads.
//
// Across ranks (Options::ranks; default one rank): every rank calls integrate() with the same
// problem and holds the whole region list; each applies the rule to its share of every list and
// refines its share of phase 2's regions, and the per-region results are gathered into every rank
// (detail/rank_rows.hpp), so the result is the same bits for any rank count.
//
// The returned status says why it stopped: converged (error <= max(tau_abs, tau_rel |I|)),
// budget_exhausted, storage_exhausted, integrand_not_finite (a NaN or infinity was seen), or
// not_converged (the tolerance moved with |I| after the shares were handed out; rare).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "parity/cubature/detail/check_integrand.hpp"
#include "parity/cubature/detail/integrator.hpp"
#include "parity/cubature/detail/parking.hpp"
#include "parity/cubature/detail/phase1.hpp"
#include "parity/cubature/detail/phase2.hpp"
#include "parity/cubature/options.hpp"
#include "parity/cubature/rule.hpp"

namespace parity::cubature {

// The largest Options::team_size this backend runs the cubature kernels with for integrands of
// type F in precision Real: the threads of the pool on host backends (1 on Serial), on GPUs what
// the kernels' registers and scratch memory allow. Launches nothing and allocates nothing.
template <class ExecutionSpace, class Real, class F>
int max_team_size(ExecutionSpace const& space, F const& f) {
  using Mem = typename ExecutionSpace::memory_space;
  int evaluate = 0, refine = 0;
  detail::evaluate_list<ExecutionSpace, Real>(space, f, 1, detail::RegionList<Real, Mem>(), 0, 1,
                                              Kokkos::View<int*, Mem>(), NullRules<Real>(), 0, &evaluate);
  detail::phase2_batch<ExecutionSpace, Real>(space, f, 1, detail::RegionList<Real, Mem>(), 0, 0, 1, {}, {}, {}, {}, {},
                                             false, NullRules<Real>(), 0.0, false, &refine);
  return std::min(evaluate, refine);
}

// Integrates f over the box [lower, upper] (see the top of this file).
template <class ExecutionSpace, class Real, class F>
Result integrate(ExecutionSpace const& space, F const& f, std::vector<double> const& lower,
                 std::vector<double> const& upper, Tolerances const& tol = {}, Options const& opt = {}) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "parity::cubature::integrate: the first template argument must be a Kokkos execution space");
  static_assert(detail::check_integrand<F, Real>());
  validate(lower, upper, tol, opt);
  detail::require_team_size<ExecutionSpace>(opt.team_size, max_team_size<ExecutionSpace, Real>(space, f));
  detail::Integrator<ExecutionSpace, Real, F> integrator(space, f, lower, upper, tol, opt);
  return integrator.run();
}

}  // namespace parity::cubature
