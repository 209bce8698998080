#pragma once
// Krusell-Smith algorithm with every stage on the device:
//   policy      Euler-equation iteration (endogenous grid points) for k' = g(k, K, z, eps) given
//               the perceived law ln K' = b0(z) + b1(z) ln K; one thread per grid point.
//   shocks      aggregate path from the Markov chain (Philox); employment bit-packed (one bit per
//               agent-period), unemployment exactly at its target each period (see below).
//   panel       per period one pass over the agents: k' by Catmull-Rom (or bilinear) interpolation
//               of g, with the cross-sectional mean fused into the same kernel as a reduction.
//   regression  OLS of ln K' on ln K per aggregate state (host: the path is only T long), damped
//               update of the coefficients until they move less than the tolerance.
//
// The stages live in detail/: model.hpp (constants and shared device functions), policy.hpp,
// shocks.hpp, panel_kernels.hpp and panel.hpp, regression.hpp.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "models/krusell_smith/calibration.hpp"
#include "models/krusell_smith/detail/model.hpp"
#include "models/krusell_smith/detail/panel.hpp"
#include "models/krusell_smith/detail/policy.hpp"
#include "models/krusell_smith/detail/regression.hpp"
#include "models/krusell_smith/detail/shocks.hpp"
#include "models/krusell_smith/params.hpp"
#include "models/krusell_smith/result.hpp"
#include "parity/grid/axis.hpp"
#include "parity/grid/spacing.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::krusell_smith {

template <class ExecutionSpace, class Real>
Result solve(ExecutionSpace const& space, Params const& p, run::Progress& progress, run::PhaseTimes& phases) {
  validate(p);
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
  Employment<Mem> emp;
  {
    timing::ScopedPhase phase(space, phases, phase_shocks);
    z = aggregate_path(p, chain);
    emp = generate_employment(space, p, chain, z);
  }
  res.z_path = z;

  Kokkos::View<Real*, Mem> k_agents(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::capital"),
                                    p.agents);
  auto panel = [&] {
    timing::ScopedPhase phase(space, phases, phase_panel_setup);
    return PanelSimulation<ExecutionSpace, Real, Axis>(space, p, axk, axK, emp, z, k_agents);
  }();
  res.panel_locate = to_string(panel.locate());
  Kokkos::View<Real*, Mem> k_start;  // a restart's cross-section, matched to period 0's employment
  if (!p.start.capital.empty()) {
    timing::ScopedPhase phase(space, phases, phase_panel_setup);
    auto words0 = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), Kokkos::subview(emp.words, Kokkos::make_pair(0L, emp.nwords)));
    std::vector<std::int32_t> employed0(p.agents);
    for (long i = 0; i < p.agents; ++i) employed0[i] = std::int32_t((words0(i / 32) >> (i % 32)) & 1u);
    auto const k0 = restart_cross_section(p, chain, z[0], employed0);
    k_start = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::capital_start"),
                                       p.agents);
    auto k_start_h = Kokkos::create_mirror_view(k_start);
    double sum = 0;
    for (long i = 0; i < p.agents; ++i) sum += double(k_start_h(i) = Real(k0[i]));
    Kokkos::deep_copy(k_start, k_start_h);
    panel.set_initial(k_start, sum);
  }
  std::array<double, 4> b = p.init_coeffs;
  std::vector<double> K_host;
  Regression reg;
  double last_diff = 0.0;  // the first policy is solved to full precision (restarts need it)
  long simulated_periods = 0;
  for (int it = 1; it <= p.max_iter; ++it) {
    Model<Real> const model = make_model<Real>(p, chain, b);
    int policy_it = 0;
    Real change = 0;
    // Later outer iterations far from the fixed point need a less exact policy: 1e-3 of the last
    // coefficient change.
    Real const tol_it = std::max(policy_tol, Real(1e-3 * last_diff));
    {
      timing::ScopedPhase phase(space, phases, phase_policy);
      do {
        change = p.policy_method == PolicyMethod::time_iteration
                     ? kernels::time_iteration_update(space, model, axk, axK, g, g_new, cubic,
                                                      Real(p.policy_damping), Real(p.k_max))
                     : kernels::euler_update(space, model, axk, axK, g, g_new, k_endo, cubic);
        std::swap(g, g_new);
        ++policy_it;
      } while (change > tol_it && policy_it < p.policy_max_iter);
    }
    res.policy_iterations_total += policy_it;
    res.policy_iterations_last = policy_it;
    if (it == 1) res.policy_iterations_first = policy_it;
    {
      timing::ScopedPhase phase(space, phases, phase_panel);
      auto K_dev = panel.run(g);
      auto K_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), K_dev);
      K_host.assign(K_h.data(), K_h.data() + K_h.size());
    }
    double diff = 0;
    {
      timing::ScopedPhase phase(space, phases, phase_regression);
      reg = regress(K_host, z, p.discard);
      for (int q = 0; q < 4; ++q) diff = std::max(diff, std::abs(reg.b[q] - b[q]));
    }
    // MMV carry the distribution until the coefficients move less than 100 x the tolerance and
    // then hold the start fixed, so the last iterations solve one fixed problem. A solve that
    // starts near the fixed point (a restart, good --init-coeffs) would carry too little, so the
    // carry also goes on until the panel has run --burn-in periods in all.
    simulated_periods += p.periods;
    if (p.panel_start == PanelStart::carry && (diff > 100 * p.tol || simulated_periods < p.burn_in)) {
      panel.carry_final_state();
      ++res.panel_carries;
    }
    res.iterations = it;
    res.coeff_change = diff;
    res.coeffs = b;  // the law the agents perceived for this policy and panel
    res.r_squared = reg.r2;
    res.regression_se = reg.se;
    char line[256];
    std::snprintf(line, sizeof line, "b_good=(%.6f, %.6f) b_bad=(%.6f, %.6f) policy its %d, mean K %.4f", b[0], b[1],
                  b[2], b[3], policy_it, K_host.back());
    progress.update({"law of motion", it, diff, clock.seconds(), line});
    last_diff = diff;
    if (!std::isfinite(diff)) break;
    if (diff < p.tol) {
      res.converged = true;
      res.coeff_history.push_back(b);
      break;
    }
    for (int q = 0; q < 4; ++q) b[q] = p.damping * reg.b[q] + (1 - p.damping) * b[q];
    res.coeff_history.push_back(b);
  }

  {
    timing::ScopedPhase phase(space, phases, phase_accuracy);
    Model<Real> const model = make_model<Real>(p, chain, res.coeffs);
    res.euler_k_cap = std::min(p.k_max, 5.0 * p.K_max);
    kernels::euler_errors(space, model, axk, axK, g, cubic, false, Real(res.euler_k_cap), res.euler_on_max,
                          res.euler_on_mean);
    kernels::euler_errors(space, model, axk, axK, g, cubic, true, Real(res.euler_k_cap), res.euler_off_max,
                          res.euler_off_mean);
    res.K_path = K_host;
    res.K_alm = dynamic_law_of_motion(res.coeffs, z, K_host[0]);
    double mx = 0, sum = 0;
    int n = 0;
    for (int t = p.discard; t <= p.periods; ++t) {
      double const e = 100.0 * std::abs(std::log(res.K_alm[t]) - std::log(K_host[t]));
      mx = std::max(mx, e), sum += e, ++n;
    }
    res.den_haan_max_pct = mx;
    res.den_haan_mean_pct = sum / n;

    // Shocks: exactness of the unemployment targets and the empirical transition frequencies.
    auto counts = employment_counts(space, emp);
    double uu[2][2] = {{0, 0}, {0, 0}}, u0[2][2] = {{0, 0}, {0, 0}};
    double n_u[2] = {0, 0}, n_t[2] = {0, 0};
    long dev = 0;
    for (int t = 0; t < p.periods; ++t) {
      long const target = std::lround(chain.u[z[t]] * double(p.agents));
      dev = std::max(dev, std::labs(counts(t, 0) - target));
      n_u[z[t]] += double(counts(t, 0)), n_t[z[t]] += double(p.agents);
      if (t > 0) {
        uu[z[t - 1]][z[t]] += double(counts(t, 1));
        u0[z[t - 1]][z[t]] += double(counts(t, 2));
      }
    }
    res.unemployment_max_deviation = dev;
    res.unemployment_rate_good = n_t[0] > 0 ? n_u[0] / n_t[0] : 0;
    res.unemployment_rate_bad = n_t[1] > 0 ? n_u[1] / n_t[1] : 0;
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 2; ++c) res.p00_empirical[2 * a + c] = u0[a][c] > 0 ? uu[a][c] / u0[a][c] : -1;

    // Final cross-section (a sample of at most 100,000 agents) and its employment in period T-1.
    long const sample = std::min<long>(p.agents, 100000);
    auto k_sample = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), Kokkos::subview(k_agents, Kokkos::make_pair(0L, sample)));
    res.k_final.assign(k_sample.data(), k_sample.data() + sample);
    long const nwords = emp.nwords;
    auto w_sample = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(),
        Kokkos::subview(emp.words, Kokkos::make_pair(long(p.periods - 1) * nwords, long(p.periods - 1) * nwords +
                                                                                        (sample + 31) / 32)));
    res.employed_final.resize(sample);
    for (long i = 0; i < sample; ++i) res.employed_final[i] = std::int32_t((w_sample(i / 32) >> (i % 32)) & 1u);
    double kmin = 0;
    Kokkos::parallel_reduce(
        "parity::krusell_smith::capital_min", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space, 0, p.agents),
        KOKKOS_LAMBDA(std::int64_t i, double& m) {
          double const v = double(k_agents(i));
          m = v < m ? v : m;
        },
        Kokkos::Min<double>(kmin));
    res.k_final_min = kmin;
    double ksum = 0;
    for (double v : res.k_final) ksum += v;
    res.k_final_mean = ksum / double(sample);

    auto gh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g);
    res.policy.resize(std::size_t(nk) * nK * 4);
    for (int i = 0; i < nk; ++i)
      for (int j = 0; j < nK; ++j)
        for (int s = 0; s < 4; ++s) res.policy[(std::size_t(i) * nK + j) * 4 + s] = double(gh(s, i, j));
    res.k_grid = k_nodes;
    res.K_grid = K_nodes;
  }
  return res;
}

}  // namespace parity::krusell_smith
