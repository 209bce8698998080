#pragma once
// Krusell-Smith algorithm with every stage on the device:
//   policy      Euler-equation iteration (endogenous grid points) for k' = g(k, K, z, eps) given
//               the perceived law ln K' = b0(z) + b1(z) ln K; one thread per grid point.
//   shocks      aggregate path from the Markov chain (Philox); employment bit-packed (one bit per
//               agent-period), unemployment exactly at its target each period.
//   panel       per period one pass over the agents: k' by Catmull-Rom (or bilinear) interpolation
//               of g, with the cross-sectional mean fused into the same kernel as a reduction.
//   regression  OLS of ln K' on ln K per aggregate state (host: the path is only T long), damped
//               update of the coefficients until they move less than the tolerance.
//
// The stages live in detail/: model.hpp (constants and shared device functions), policy.hpp,
// shocks.hpp, panel_kernels.hpp and panel.hpp, regression.hpp, accuracy.hpp (what a finished
// solve reports) and checkpoint.hpp (the loop's state for --checkpoint / --resume).
//
// Across ranks (run::Communicator) the agents are split into contiguous ranges, one per rank:
// each rank draws (shocks.hpp) and simulates (panel.hpp) its own agents, and the per-period
// capital sum is added over the ranks, so every rank holds the same K path and computes the same
// regression and policy (small: replicated rather than split). Checkpoints hold the whole
// cross-section and are refused on several ranks.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parity/grid/axis.hpp"
#include "parity/grid/spacing.hpp"
#include "parity/krusell_smith/calibration.hpp"
#include "parity/krusell_smith/detail/accuracy.hpp"
#include "parity/krusell_smith/detail/checkpoint.hpp"
#include "parity/krusell_smith/detail/model.hpp"
#include "parity/krusell_smith/detail/panel.hpp"
#include "parity/krusell_smith/detail/policy.hpp"
#include "parity/krusell_smith/detail/regression.hpp"
#include "parity/krusell_smith/detail/shocks.hpp"
#include "parity/krusell_smith/params.hpp"
#include "parity/krusell_smith/result.hpp"
#include "parity/run/checkpoint.hpp"
#include "parity/run/communicator.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/run/solve_options.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::krusell_smith {

template <class ExecutionSpace, class Real>
Result solve(ExecutionSpace const& space, Params const& p, run::SolveOptions const& options = {}) {
  validate(p);
  // A null progress is silent; null phases are timed into a record of the call's own.
  run::SilentProgress silent;
  run::PhaseTimes own_phases;
  run::Progress& progress = options.progress ? *options.progress : silent;
  run::PhaseTimes& phases = options.phases ? *options.phases : own_phases;
  run::Communicator const& ranks = options.ranks;
  require(p.agents >= ranks.size, "--agents " + std::to_string(p.agents) + ": fewer agents than the " +
                                      std::to_string(ranks.size) + " ranks (each rank simulates at least one)");
  require(!ranks.several() || (p.checkpoint.path.empty() && p.checkpoint.resume.empty()),
          std::string(p.checkpoint.path.empty() ? "--resume" : "--checkpoint") +
              " runs on one rank only (a checkpoint holds the whole cross-section); start it without mpirun or "
              "with -np 1");
  // A checkpoint to continue from is read, and checked against these parameters, and the folder
  // checkpoints go to is checked, before any work.
  std::string const fingerprint = detail::checkpoint_fingerprint(p, sizeof(Real) == 4 ? "float" : "double");
  std::optional<run::Checkpoint> resume;
  try {
    if (!p.checkpoint.resume.empty()) resume = run::read_checkpoint(p.checkpoint.resume, fingerprint);
  } catch (run::CheckpointError const& e) {
    throw InvalidInput(std::string("--resume: ") + e.what());
  }
  try {
    if (!p.checkpoint.path.empty()) run::check_checkpoint_path(p.checkpoint.path);
  } catch (run::CheckpointError const& e) {
    throw InvalidInput(std::string("--checkpoint: ") + e.what());
  }
  using Mem = typename ExecutionSpace::memory_space;
  using Axis = grid::Axis<Real, Mem>;
  Kokkos::Timer clock;
  Result res;
  Chain const chain = build_chain(p);
  for (int s = 0; s < 4; ++s)
    for (int t = 0; t < 4; ++t) res.transition[4 * s + t] = chain.P[s][t];

  auto const k_nodes = grid::power_nodes(p.k_min, p.k_max, p.nk, p.k_power);
  auto const K_nodes = grid::uniform_nodes(p.K_min, p.K_max, p.nK);
  Axis const axk("krusell_smith_k", k_nodes), axK("krusell_smith_K", K_nodes);
  int const nk = p.nk, nK = p.nK;
  bool const cubic = p.interp == Interp::catmull_rom;

  // Policy views g(s, i, j), s = 2 z + e; initial guess: save 90% of k, or a restart's policy
  // (policy.npy's layout, (nk, nK, z, e)).
  Kokkos::View<Real***, Mem> g("parity::krusell_smith::policy", 4, nk, nK);
  Kokkos::View<Real***, Mem> g_new("parity::krusell_smith::policy_next", 4, nk, nK);
  Kokkos::View<Real***, Mem> k_endo("parity::krusell_smith::k_endogenous", 4, nk, nK);
  {
    auto gh = Kokkos::create_mirror_view(g);
    auto const& g0 = p.start.policy;
    for (int s = 0; s < 4; ++s)
      for (int i = 0; i < nk; ++i)
        for (int j = 0; j < nK; ++j)
          gh(s, i, j) = g0.empty() ? Real(0.9 * k_nodes[i]) : Real(g0[(std::size_t(i) * nK + j) * 4 + s]);
    Kokkos::deep_copy(g, gh);
  }
  // The updates measure changes beyond each node's rounding_allowance, so --policy-tol holds in
  // float too (a floor of 8 eps k_max = 1e-3 here once stopped float solves after one Euler sweep
  // per outer iteration, and the outer loop crept: 166 iterations against double's 23).
  Real const policy_tol = Real(p.policy_tol);

  std::vector<std::int32_t> z;
  detail::Employment<Mem> emp;
  {
    timing::ScopedPhase phase(space, phases, phase_shocks);
    z = detail::aggregate_path(p, chain);
    emp = detail::generate_employment(space, p, chain, z, ranks);
  }
  res.z_path = z;

  long const n = emp.agents, first = emp.first;  // this rank's agents
  Kokkos::View<Real*, Mem> k_agents(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::capital"),
                                    n);
  auto panel = [&] {
    timing::ScopedPhase phase(space, phases, phase_panel_setup);
    return detail::PanelSimulation<ExecutionSpace, Real, Axis>(space, p, axk, axK, emp, z, k_agents, ranks);
  }();
  res.panel_locate = to_string(panel.locate());
  Kokkos::View<Real*, Mem> k_start;  // a restart's cross-section, matched to period 0's employment
  if (!p.start.capital.empty()) {
    timing::ScopedPhase phase(space, phases, phase_panel_setup);
    auto words0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                      Kokkos::subview(emp.words, Kokkos::make_pair(0L, emp.nwords)));
    // The pairing of saved capitals with this run's agents needs every agent's employment: on
    // several ranks each gathers all of it and pairs the whole panel, then keeps its own agents.
    std::vector<double> mine(n), all;
    for (long i = 0; i < n; ++i) mine[i] = double((words0(i / 32) >> (i % 32)) & 1u);
    if (ranks.several()) {
      all.resize(p.agents);
      ranks.all_gather(mine, all);
    }
    auto const& employed = ranks.several() ? all : mine;
    std::vector<std::int32_t> employed0(p.agents);
    for (long i = 0; i < p.agents; ++i) employed0[i] = std::int32_t(employed[i]);
    auto const k0 = detail::restart_cross_section(p, chain, z[0], employed0);
    k_start = Kokkos::View<Real*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::capital_start"), n);
    auto k_start_h = Kokkos::create_mirror_view(k_start);
    double sum = 0;  // over all agents in index order, on every rank: the same bits as one rank
    for (long i = 0; i < p.agents; ++i) sum += double(Real(k0[i]));
    for (long i = 0; i < n; ++i) k_start_h(i) = Real(k0[first + i]);
    Kokkos::deep_copy(k_start, k_start_h);
    panel.set_initial(k_start, sum);
  }
  detail::LoopState st;
  st.b = p.init_coeffs;
  st.last_diff = 0.0;  // the first policy is solved to full precision (restarts need it)
  if (resume) {
    double sum = 0;
    auto const start = detail::restore_checkpoint(*resume, p, st, res, g, k_agents, sum);
    if (!start.empty()) {
      Kokkos::View<Real*, Mem> k0(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::capital_resumed"), n);
      detail::from_host_doubles(k0, start);
      panel.set_initial(k0, sum);
    }
    res.resumed_from_iteration = st.iteration;
    progress.message("resuming from " + p.checkpoint.resume + " after outer iteration " + std::to_string(st.iteration));
  }
  detail::Regression reg;
  double last_write = clock.seconds();
  // A failed write (a full disk) does not end the solve: it is reported and the next one tried.
  auto write = [&] {
    try {
      run::write_checkpoint(p.checkpoint.path, detail::make_checkpoint(fingerprint, st, res, g, panel.initial(),
                                                                       panel.initial_sum(), k_agents));
      ++res.checkpoints_written;
    } catch (run::CheckpointError const& e) {
      progress.message(std::string("warning: ") + e.what());
    }
    last_write = clock.seconds();
  };
  for (int it = st.iteration + 1; it <= p.max_iter && !st.finished; ++it) {
    detail::Model<Real> const model = detail::make_model<Real>(p, chain, st.b);
    int policy_it = 0;
    Real change = 0;
    // Later outer iterations far from the fixed point need a less exact policy: 1e-3 of the last
    // coefficient change.
    Real const tol_it = std::max(policy_tol, Real(1e-3 * st.last_diff));
    {
      timing::ScopedPhase phase(space, phases, phase_policy);
      double last_report = clock.seconds();
      do {
        change = p.policy_method == PolicyMethod::time_iteration
                     ? detail::kernels::time_iteration_update(space, model, axk, axK, g, g_new, cubic,
                                                              Real(p.policy_damping), Real(p.k_max))
                     : detail::kernels::euler_update(space, model, axk, axK, g, g_new, k_endo, cubic);
        std::swap(g, g_new);
        ++policy_it;
        // The first policy takes thousands of sweeps (seconds): say where it is.
        if (clock.seconds() - last_report >= 0.5) {
          last_report = clock.seconds();
          progress.update({"policy (Euler equation)", policy_it, double(change), last_report,
                           "outer iteration " + std::to_string(it), long(p.policy_max_iter), double(tol_it)});
        }
      } while (change > tol_it && policy_it < p.policy_max_iter);
    }
    // The first policy must be solved: later outer iterations start from it, and a capped one
    // is not the agents' policy. (Later ones may stop early: they are warm starts.)
    bool const policy_capped = it == 1 && change > tol_it;
    res.policy_iterations_total += policy_it;
    res.policy_iterations_last = policy_it;
    if (it == 1) res.policy_iterations_first = policy_it;
    {
      timing::ScopedPhase phase(space, phases, phase_panel);
      auto K_dev = panel.run(g);
      auto K_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), K_dev);
      st.K_host.assign(K_h.data(), K_h.data() + K_h.size());
    }
    double diff = 0;
    {
      timing::ScopedPhase phase(space, phases, phase_regression);
      reg = detail::regress(st.K_host, z, p.discard);
      for (int q = 0; q < 4; ++q) diff = std::max(diff, std::abs(reg.b[q] - st.b[q]));
    }
    // What the tolerance bounds: the regression's distance, or the step the damped update takes.
    double const coeff_change = p.coefficient_change == CoefficientChange::damped ? p.damping * diff : diff;
    // MMV carry the distribution until the coefficients move less than 100 x the tolerance and
    // then hold the start fixed, so the last iterations solve one fixed problem. A solve that
    // starts near the fixed point (a restart, good --init-coeffs) would carry too little, so the
    // carry also goes on until the panel has run --burn-in periods in all.
    st.simulated_periods += p.periods;
    if (p.panel_start == PanelStart::carry && (coeff_change > 100 * p.tol || st.simulated_periods < p.burn_in)) {
      panel.carry_final_state();
      ++res.panel_carries;
    }
    res.iterations = it;
    res.coeff_change = coeff_change;
    res.coeffs = st.b;  // the law the agents perceived for this policy and panel
    res.r_squared = reg.r2;
    res.regression_se = reg.se;
    auto const& b = st.b;
    char line[256];
    std::snprintf(line, sizeof line, "b_good=(%.6f, %.6f) b_bad=(%.6f, %.6f) policy its %d, mean K %.4f", b[0], b[1],
                  b[2], b[3], policy_it, st.K_host.back());
    progress.update({"law of motion", it, coeff_change, clock.seconds(), line, long(p.max_iter), p.tol});
    st.last_diff = diff;
    st.iteration = it;
    if (!std::isfinite(coeff_change)) {
      st.finished = true, st.stop_code = 1;
    } else if (coeff_change < p.tol && !policy_capped) {
      res.converged = true;
      res.coeff_history.push_back(st.b);
      st.finished = true;
    } else if (policy_capped) {
      st.finished = true, st.stop_code = 2, st.stop_value = double(change);
    } else {
      for (int q = 0; q < 4; ++q) st.b[q] = p.damping * reg.b[q] + (1 - p.damping) * st.b[q];
      res.coeff_history.push_back(st.b);
    }
    // Past the time limit the solve stops here, between outer iterations, with its checkpoint. On
    // several ranks it stops where any rank is past it, so all stop together.
    bool out_of_time = false;
    if (!st.finished && it < p.max_iter && p.checkpoint.time_limit > 0) {
      double in_time = clock.seconds() < p.checkpoint.time_limit ? 1.0 : 0.0;
      if (ranks.several()) in_time = ranks.min(in_time);
      out_of_time = in_time == 0;
    }
    if (!p.checkpoint.path.empty() &&
        (st.finished || it == p.max_iter || out_of_time || clock.seconds() - last_write >= p.checkpoint.every_seconds))
      write();
    if (out_of_time) {
      res.time_limited = true;
      break;
    }
  }
  if (res.time_limited) {
    res.stop_stage = "law of motion";
    char why[256];
    std::snprintf(why, sizeof why, "--time-limit %g s reached after outer iteration %d with coefficient change %.3g",
                  p.checkpoint.time_limit, res.iterations, res.coeff_change);
    res.stop_reason = why;
  } else if (!res.converged) {
    bool const policy = st.stop_code == 2;
    res.stop_stage = policy ? "policy" : "law of motion";
    char why[256];
    if (policy)
      std::snprintf(
          why, sizeof why,
          "the first Euler-equation solve stopped at --policy-max-iter %d with change %.3g above --policy-tol %.3g",
          p.policy_max_iter, st.stop_value, p.policy_tol);
    else if (st.stop_code == 1)
      std::snprintf(why, sizeof why, "the coefficient change is not finite");
    else
      std::snprintf(why, sizeof why, "--max-iter %d reached with coefficient change %.3g above --tol %.3g", p.max_iter,
                    res.coeff_change, p.tol);
    res.stop_reason = why;
  }

  {
    timing::ScopedPhase phase(space, phases, phase_accuracy);
    detail::measure_accuracy(space, p, chain, axk, axK, k_nodes, K_nodes, g, cubic, z, st.K_host, emp, k_agents, res,
                             ranks);
  }
  return res;
}

}  // namespace parity::krusell_smith
