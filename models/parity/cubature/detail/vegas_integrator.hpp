#pragma once
// VEGAS+'s iterations: sample with the current map and allocation, adapt both on the device
// (vegas_sampling.hpp, vegas_map.hpp), combine the kept estimates (vegas_statistics.hpp) and stop
// on the tolerance or the budget.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "parity/cubature/detail/vegas_map.hpp"
#include "parity/cubature/detail/vegas_sampling.hpp"
#include "parity/cubature/detail/vegas_statistics.hpp"
#include "parity/cubature/vegas_options.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::cubature::detail {

// The results of a family of `components` integrands sharing the samples (a scalar integrand:
// one, through VegasScalar). The iterations and counts are shared: the run goes on until every
// component meets its tolerance (or the budget, or a non-finite value, stops it). Each component's
// status is its own at that stop: converged where its error meets its tolerance with at least two
// estimates combined, else the reason the run stopped.
template <class ExecutionSpace, class Real, class F>
std::vector<VegasResult> run_vegas(ExecutionSpace const& space, F const& f, int components,
                                   std::vector<double> const& lower, std::vector<double> const& upper,
                                   Tolerances const& tol, VegasOptions const& opt) {
  timing::OptionalPhase<ExecutionSpace> phase(space, opt.phases, "parity::cubature::vegas");
  Kokkos::Timer clock;
  int const n = int(lower.size()), m = components;
  std::int64_t const per_iteration = opt.evaluations_per_iteration;
  // Ten samples per increment at least, so the histograms are not mostly noise.
  int const bins = int(std::clamp<std::int64_t>(per_iteration / 10, 1, opt.bins));
  std::vector<int> const strata = strata_per_axis(n, per_iteration);
  VegasSampler<ExecutionSpace> sampler(space, n, bins, m, strata, per_iteration);
  sampler.set_map(space, uniform_map(lower, upper, bins));

  VegasResult shared;
  shared.bins = bins;
  shared.strata = sampler.cells;
  std::vector<VegasResult> r(m, shared);
  std::vector<std::vector<double>> kept_estimates(m), kept_errors(m);
  std::vector<WeightedAverage> combined(m);
  auto tolerance = [&](double integral) { return std::max(tol.absolute, tol.relative * std::abs(integral)); };
  // The components' weights in the map and the allocation: 1 / tolerance_k^2 at each adaptation
  // iteration's estimates (scaled so the largest is 1), so the adaptation serves the component
  // furthest from its tolerance rather than the largest integrand; then fixed, so the kept
  // iterations all aim at one target. Even before the first estimate, or where a tolerance is 0
  // or not finite. One component: 1, exactly (the scalar integrand's bits).
  std::vector<double> component_weights(m, 1.0);
  auto reweigh = [&](std::vector<double> const& latest) {
    if (m == 1) return;
    std::vector<double> w(m);
    double largest = 0;
    for (int c = 0; c < m; ++c) {
      double const t = tolerance(latest[c]);
      w[c] = 1 / (t * t);
      if (!(t > 0) || !std::isfinite(w[c])) return;
      largest = std::max(largest, w[c]);
    }
    for (int c = 0; c < m; ++c) component_weights[c] = w[c] / largest;
  };
  VegasStatus status = VegasStatus::budget_exhausted;
  std::int64_t evaluations = 0;
  int iterations = 0, restarts = 0;
  for (int iteration = 0;; ++iteration) {
    // The samples per cell stay on the device (vegas_allocation.hpp): even at first, then
    // following the last iteration's sigma^beta. They are at most per_iteration, so their count
    // is read before sampling only where it could pass the budget.
    sampler.allocate(space, iteration == 0, opt.beta);
    std::int64_t const left = opt.max_evaluations - evaluations;
    if (left < per_iteration && sampler.sample_count(space) > left) break;
    sampler.template iterate<Real>(space, f, opt.seed, iteration, component_weights, opt.ranks);
    // The map and the allocation keep adapting while the estimates are combined (Lepage's
    // default). The adaptation is enqueued before the sums are read, so the device does not wait
    // for the host; where the run stops here, the adapted map is not used.
    sampler.adapt(space, opt.alpha);
    auto const sums = sampler.sums(space);
    std::int64_t const samples = sums.samples;
    evaluations += samples;
    ++iterations;
    bool const adaptation = iteration < opt.adaptation_iterations;
    bool finite = true;
    for (int c = 0; c < m; ++c) {
      double const error = std::sqrt(std::max(sums.variance[c], 0.0));
      r[c].history.push_back({sums.estimate[c], error, samples, adaptation});
      finite = finite && std::isfinite(sums.estimate[c]) && std::isfinite(sums.variance[c]);
      if (!adaptation) {
        kept_estimates[c].push_back(sums.estimate[c]);
        kept_errors[c].push_back(error);
        combined[c] = weighted_average(kept_estimates[c], kept_errors[c]);
      }
    }
    if (!finite) {
      status = VegasStatus::integrand_not_finite;
      for (int c = 0; c < m; ++c) {
        r[c].integral = sums.estimate[c];
        r[c].error = r[c].history.back().error;
      }
      break;
    }
    if (adaptation) reweigh(sums.estimate);
    bool met = kept_estimates[0].size() >= 2;
    for (int c = 0; c < m; ++c) met = met && combined[c].error <= tolerance(combined[c].mean);
    if (opt.progress) {
      bool const kept = !kept_estimates[0].empty();
      opt.progress->update({"vegas", iterations, kept ? combined[0].error : -1.0, clock.seconds(),
                            kept ? "estimate " + std::to_string(combined[0].mean) : "adapting",
                            long(opt.max_evaluations / per_iteration), kept ? tolerance(combined[0].mean) : -1.0});
    }
    bool consistent = true;
    for (int c = 0; c < m; ++c) consistent = consistent && combined[c].q >= opt.min_q;
    // Two more iterations at least, or a restart could end with no estimate kept.
    bool const room = opt.max_evaluations - evaluations >= 2 * per_iteration;
    if (met && !consistent && room && restarts < opt.restarts) {
      // The kept estimates meet the tolerance but disagree: the early ones were taken while the map
      // still moved (a narrow peak takes many iterations to find). They become adaptation and the
      // average starts again on the map as it is now. A run whose estimates agree never restarts.
      ++restarts;
      for (int c = 0; c < m; ++c) {
        for (auto& step : r[c].history) step.adaptation = true;
        kept_estimates[c].clear();
        kept_errors[c].clear();
        combined[c] = {};
      }
      continue;
    }
    if (met) {
      status = VegasStatus::converged;
      break;
    }
  }
  for (int c = 0; c < m; ++c) {
    auto& x = r[c];
    bool const met = kept_estimates[c].size() >= 2 && combined[c].error <= tolerance(combined[c].mean);
    x.status = status == VegasStatus::budget_exhausted && met ? VegasStatus::converged : status;
    x.evaluations = evaluations;
    x.iterations = iterations;
    x.kept_iterations = int(kept_estimates[c].size());
    x.restarts = restarts;
    if (status != VegasStatus::integrand_not_finite) {
      x.integral = combined[c].mean;
      x.error = combined[c].error;
      x.dof = combined[c].dof;
      x.chi2_per_dof = combined[c].dof > 0 ? combined[c].chi2 / combined[c].dof : 0.0;
      x.q = combined[c].q;
      x.chi2_consistent = x.q >= opt.min_q;
    }
    x.tolerance = tolerance(x.integral);
  }
  return r;
}

}  // namespace parity::cubature::detail
