#pragma once
// VEGAS+'s iterations: sample with the current map and allocation (vegas_sampling.hpp), adapt
// both (vegas_map.hpp), combine the kept estimates (vegas_statistics.hpp) and stop on the
// tolerance or the budget.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "models/cubature/detail/vegas_map.hpp"
#include "models/cubature/detail/vegas_sampling.hpp"
#include "models/cubature/detail/vegas_statistics.hpp"
#include "models/cubature/vegas_options.hpp"

namespace parity::cubature::detail {

template <class ExecutionSpace, class Real, class F>
VegasResult run_vegas(ExecutionSpace const& space, F const& f, std::vector<double> const& lower,
                      std::vector<double> const& upper, Tolerances const& tol, VegasOptions const& opt) {
  int const n = int(lower.size());
  std::int64_t const per_iteration = opt.evaluations_per_iteration;
  // Ten samples per increment at least, so the histograms are not mostly noise.
  int const bins = int(std::clamp<std::int64_t>(per_iteration / 10, 1, opt.bins));
  std::vector<int> const strata = strata_per_axis(n, per_iteration);
  VegasSampler<ExecutionSpace> sampler(space, n, bins, strata, per_iteration);
  std::vector<double> edges = uniform_map(lower, upper, bins);
  std::vector<double> weights(std::size_t(sampler.cells), 1.0);

  VegasResult r;
  r.bins = bins;
  r.strata = sampler.cells;
  std::vector<double> kept_estimates, kept_errors;
  WeightedAverage combined;
  for (int iteration = 0;; ++iteration) {
    std::vector<std::int64_t> const offsets = allocate_samples(weights, per_iteration);
    std::int64_t const samples = offsets.back();
    if (r.evaluations + samples > opt.max_evaluations) {
      r.status = VegasStatus::budget_exhausted;
      break;
    }
    auto const sums = sampler.template iterate<Real>(space, f, opt.seed, iteration, edges, offsets);
    r.evaluations += samples;
    ++r.iterations;
    bool const adaptation = iteration < opt.adaptation_iterations;
    double const error = std::sqrt(std::max(sums.variance, 0.0));
    r.history.push_back({sums.estimate, error, samples, adaptation});
    if (!std::isfinite(sums.estimate) || !std::isfinite(sums.variance)) {
      r.status = VegasStatus::integrand_not_finite;
      r.integral = sums.estimate;
      r.error = error;
      r.tolerance = std::max(tol.absolute, tol.relative * std::abs(r.integral));
      return r;
    }
    if (!adaptation) {
      kept_estimates.push_back(sums.estimate);
      kept_errors.push_back(error);
      combined = weighted_average(kept_estimates, kept_errors);
    }
    // The map and the allocation keep adapting while the estimates are combined (Lepage's default).
    for (int d = 0; d < n; ++d)
      adapt_axis(edges.data() + std::size_t(d) * (bins + 1), sums.histogram.data() + std::size_t(d) * bins, bins,
                 opt.alpha);
    for (std::size_t h = 0; h < weights.size(); ++h) weights[h] = std::pow(sums.sigma[h], opt.beta);
    double const tolerance = std::max(tol.absolute, tol.relative * std::abs(combined.mean));
    if (kept_estimates.size() >= 2 && combined.error <= tolerance) {
      r.status = VegasStatus::converged;
      break;
    }
  }
  r.kept_iterations = int(kept_estimates.size());
  r.integral = combined.mean;
  r.error = combined.error;
  r.dof = combined.dof;
  r.chi2_per_dof = combined.dof > 0 ? combined.chi2 / combined.dof : 0.0;
  r.q = combined.q;
  r.chi2_consistent = r.q >= opt.min_q;
  r.tolerance = std::max(tol.absolute, tol.relative * std::abs(r.integral));
  return r;
}

}  // namespace parity::cubature::detail
