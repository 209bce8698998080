#pragma once
// Value function iteration for a grid choice on one endogenous state and a Markov exogenous state:
//
//   V(z, k) = max_{k' in grid} reward(z, k, k') + beta sum_z' P(z, z') V(z', k'),
//
// swept from V0 (zero or Options::initial_value) until the sup norm of TV - V is below the
// tolerance (or, on request, until the MacQueen-Porteus bounds are that close), with optional
// Howard steps (modified policy iteration) after each sweep. Every sweep runs on the device:
// the conditional expectation EV = P V, the maximisation (every choice, or a bisection for a
// declared-concave objective) and the spread of TV - V. Results are host data.
//
//   auto r = parity::dp::solve<double>(Kokkos::DefaultExecutionSpace{}, problem, options);
//
// Since |V - V*| <= beta / (1 - beta) |TV - V| (the Bellman operator contracts by beta), a
// residual of tolerance bounds the distance to the fixed point of the discretised problem by
// beta / (1 - beta) tolerance; Result::lower_bound and upper_bound give the sharper
// MacQueen-Porteus interval. The discretisation error (the grid) is the user's to bound.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "parity/dp/detail/bellman.hpp"
#include "parity/dp/model.hpp"
#include "parity/dp/options.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::dp {

template <class Real, class ExecutionSpace, class Model>
Result solve(ExecutionSpace const& space, GridChoiceProblem<Model> const& problem, Options const& opt = {}) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "parity::dp::solve: the first argument must be a Kokkos execution space");
  static_assert(detail::check_grid_choice_model<Model, Real>());
  validate(problem, opt);
  using Mem = typename ExecutionSpace::memory_space;
  int const nz = int(problem.exogenous.size()), nk = int(problem.grid.size());
  Real const beta = Real(problem.beta);

  detail::GridChoiceTables<Real, Mem> tables(space, problem, opt.initial_value);
  detail::Objective<Real, Model, Mem> const f{problem.model, tables.grid, tables.EV, beta};

  Result r;
  double const scale = problem.beta / (1 - problem.beta);
  Kokkos::Timer timer;
  for (int it = 1; it <= opt.max_iterations; ++it) {
    double lo = 0, hi = 0;
    {
      timing::OptionalPhase<ExecutionSpace> phase(space, opt.phases, "parity::dp::bellman");
      detail::bellman_sweep(space, tables, f, opt.search, opt.monotone);
      detail::difference_range<ExecutionSpace, Real, Mem>(space, tables.TV, tables.V, lo, hi);
    }
    std::swap(tables.V, tables.TV);  // V is now the new value
    r.iterations = it;
    r.residual = std::max(std::abs(lo), std::abs(hi));
    r.residual_history.push_back(r.residual);
    r.lower_bound = scale * lo;
    r.upper_bound = scale * hi;
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
      r.status = Status::non_finite;
      break;
    }
    bool const done = opt.macqueen_porteus ? r.upper_bound - r.lower_bound < opt.tolerance : r.residual < opt.tolerance;
    if (opt.progress)
      opt.progress->update({"value iteration", it, r.residual, timer.seconds(), "", opt.max_iterations, opt.tolerance});
    if (done) {
      r.status = Status::converged;
      if (opt.macqueen_porteus) {
        Real const mid = Real(0.5 * (r.lower_bound + r.upper_bound));
        detail::shift<ExecutionSpace, Real, Mem>(space, tables.V, mid);
        r.lower_bound -= double(mid);
        r.upper_bound -= double(mid);
      }
      break;
    }
    if (opt.howard_steps > 0) {
      timing::OptionalPhase<ExecutionSpace> phase(space, opt.phases, "parity::dp::policy_evaluation");
      for (int s = 0; s < opt.howard_steps; ++s) {
        detail::howard_step<ExecutionSpace, Real, Mem>(space, tables.P, tables.policy, tables.R, beta, tables.V,
                                                       tables.TV);
        std::swap(tables.V, tables.TV);
      }
    }
  }

  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tables.V);
  auto pol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tables.policy);
  r.value.resize(std::size_t(nz) * nk);
  r.policy.resize(std::size_t(nz) * nk);
  r.policy_value.resize(std::size_t(nz) * nk);
  for (int z = 0; z < nz; ++z)
    for (int i = 0; i < nk; ++i) {
      std::size_t const at = std::size_t(z) * nk + i;
      r.value[at] = double(v(z, i));
      r.policy[at] = pol(z, i);
      r.policy_value[at] = problem.grid[pol(z, i)];
    }
  return r;
}

}  // namespace parity::dp
