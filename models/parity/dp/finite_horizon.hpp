#pragma once
// Backward induction for a finite-horizon grid choice (a life cycle): with V_T given,
//
//   V_t(z, k) = max_{k' in grid} reward(t, z, k, k') + beta sum_z' P(z, z') V_{t+1}(z', k'),
//
// for t = T-1 down to 0, each period on the device (the same kernels as value_iteration.hpp: the
// conditional expectation, the maximisation with the declared concave or monotone search). The
// reward may depend on t (model.hpp). Results are host data: every period's V and policy.
//
//   parity::dp::FiniteHorizonOptions opt;
//   opt.periods = 60;
//   auto r = parity::dp::solve_finite_horizon<double>(Kokkos::DefaultExecutionSpace{}, problem, opt);
//   r.policy_at(t, z, i);  // the index of k' chosen at age t in state (z, k_i)
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "parity/dp/detail/bellman.hpp"
#include "parity/dp/model.hpp"
#include "parity/dp/options.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::dp {

struct FiniteHorizonOptions : run::SolveOptions {  // progress: a line per period (options.hpp)
  int periods = 1;  // T: decisions at t = 0 .. T-1
  std::vector<double> terminal_value;  // V_T, n_z x n_k row-major; empty: zero (nothing after T)
  Search search = Search::exhaustive;
  bool monotone = false;  // the best k' does not decrease in k, in every period (options.hpp)
};

struct FiniteHorizonResult {
  Status status = Status::converged;  // converged: every period solved; non_finite: a V is not finite
  int periods = 0, nz = 0, nk = 0;
  std::vector<double> value;  // V_t(z, k) for t = 0 .. T (V_T the terminal value), (T+1) x n_z x n_k
  std::vector<int> policy;  // the index of k' in the grid, T x n_z x n_k
  std::vector<double> policy_value;  // grid[policy]
  std::size_t at(int t, int z, int i) const { return (std::size_t(t) * nz + z) * nk + i; }
  double value_at(int t, int z, int i) const { return value[at(t, z, i)]; }
  int policy_at(int t, int z, int i) const { return policy[at(t, z, i)]; }
};

template <class Model>
void validate(GridChoiceProblem<Model> const& p, FiniteHorizonOptions const& opt) {
  Options stationary;
  validate(p, stationary);
  require(opt.periods >= 1, "dp: periods must be at least 1");
  require(opt.terminal_value.empty() || opt.terminal_value.size() == p.grid.size() * p.exogenous.size(),
          "dp: terminal_value must have n_z x n_k entries");
}

template <class Real, class ExecutionSpace, class Model>
FiniteHorizonResult solve_finite_horizon(ExecutionSpace const& space, GridChoiceProblem<Model> const& problem,
                                         FiniteHorizonOptions const& opt) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "parity::dp::solve_finite_horizon: the first argument must be a Kokkos execution space");
  static_assert(detail::check_finite_horizon_model<Model, Real>());
  validate(problem, opt);
  using Mem = typename ExecutionSpace::memory_space;
  int const nz = int(problem.exogenous.size()), nk = int(problem.grid.size()), T = opt.periods;

  detail::GridChoiceTables<Real, Mem> tables(space, problem, opt.terminal_value);
  auto v_host = Kokkos::create_mirror_view(tables.V);
  auto pol_host = Kokkos::create_mirror_view(tables.policy);

  FiniteHorizonResult r;
  r.periods = T, r.nz = nz, r.nk = nk;
  r.value.resize(std::size_t(T + 1) * nz * nk);
  r.policy.resize(std::size_t(T) * nz * nk);
  r.policy_value.resize(r.policy.size());
  auto const keep = [&](int t, bool with_policy) {
    Kokkos::deep_copy(space, v_host, tables.V);
    if (with_policy) Kokkos::deep_copy(space, pol_host, tables.policy);
    space.fence("parity::dp::download");
    for (int z = 0; z < nz; ++z)
      for (int i = 0; i < nk; ++i) {
        r.value[r.at(t, z, i)] = double(v_host(z, i));
        if (!std::isfinite(r.value[r.at(t, z, i)])) r.status = Status::non_finite;
        if (!with_policy) continue;
        r.policy[r.at(t, z, i)] = pol_host(z, i);
        r.policy_value[r.at(t, z, i)] = problem.grid[pol_host(z, i)];
      }
  };
  keep(T, false);
  r.status = Status::converged;  // a terminal value of -infinity (a forbidden end state) is allowed
  Kokkos::Timer timer;
  for (int t = T - 1; t >= 0; --t) {
    detail::Objective<Real, Model, Mem> const f{problem.model, tables.grid, tables.EV, Real(problem.beta), t};
    {
      timing::OptionalPhase<ExecutionSpace> phase(space, opt.phases, "parity::dp::bellman");
      detail::bellman_sweep(space, tables, f, opt.search, opt.monotone);
    }
    std::swap(tables.V, tables.TV);
    keep(t, true);
    if (opt.progress) opt.progress->update({"backward induction", T - t, -1.0, timer.seconds(), "", T, -1.0});
  }
  return r;
}

}  // namespace parity::dp
