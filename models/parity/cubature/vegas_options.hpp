#pragma once
// VEGAS+'s plain types (no Kokkos): options, status, result and the input checks. vegas.hpp holds
// the algorithm's entry point.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "parity/cubature/options.hpp"
#include "parity/run/errors.hpp"

namespace parity::cubature {

// Largest dimension VEGAS integrates (a Point's capacity).
inline constexpr int max_vegas_dim = point_capacity;
// Most map increments per axis (a sample's increment is stored in 16 bits).
inline constexpr int max_vegas_bins = 65536;

// Every member has a default that suits most integrals; the comments name it. From
// run::SolveOptions: progress (a "vegas" line per iteration; default null: silent), phases (the
// fenced seconds of "parity::cubature::vegas"; default null: a Kokkos Tools region only, no fences)
// and ranks (default one; several split the samples, with the same result as one rank).
struct VegasOptions : run::SolveOptions {
  std::uint64_t seed = 1;  // default 1: the Philox key; a seed gives the same bits for any thread count
  std::int64_t evaluations_per_iteration = 100'000;  // default 1e5: integrand evaluations per iteration, at most
  int adaptation_iterations = 5;  // default 5: first iterations that only adapt (their estimates are discarded)
  std::int64_t max_evaluations = 100'000'000;  // default 1e8: evaluations in all, adaptation included
  int bins =
      1000;  // default 1000, at most 65536: map increments per axis (at most evaluations_per_iteration / 10 are used)
  double alpha = 0.5;  // default 0.5: damping exponent of the map's adaptation (0: the map stays uniform)
  double beta = 0.75;  // default 0.75: samples per stratification cell follow sigma_h^beta (0: even)
  double min_q = 0.05;  // default 0.05: below this Q of chi^2 the iterations disagree (chi2_consistent false)
  // default 3: times the kept estimates may meet the tolerance while disagreeing (Q < min_q) and be
  // dropped, as adaptation, for the average to start again, while two more iterations fit in
  // max_evaluations (0: such a run stops, chi2_consistent false)
  int restarts = 3;
};

// Why the run stopped. converged: error <= max(tau_abs, tau_rel |I|) with at least two estimates
// combined; budget_exhausted: the next iteration would pass max_evaluations; integrand_not_finite:
// an iteration's estimate or variance was NaN or infinite (the integrand returned one).
enum class VegasStatus { converged, budget_exhausted, integrand_not_finite };

inline char const* to_string(VegasStatus s) {
  switch (s) {
    case VegasStatus::converged:
      return "converged";
    case VegasStatus::budget_exhausted:
      return "budget_exhausted";
    case VegasStatus::integrand_not_finite:
      break;
  }
  return "integrand_not_finite";
}

struct VegasIteration {
  double estimate = 0.0;
  double error = 0.0;  // one standard deviation
  std::int64_t evaluations = 0;
  bool adaptation = false;  // an adaptation iteration: not in the combined estimate
};

struct VegasResult {
  double integral = 0.0;  // inverse-variance weighted average of the kept iterations
  double error = 0.0;  // one standard deviation of `integral` (about 68 % coverage)
  double chi2_per_dof = 0.0;  // of the kept estimates about `integral` (0 with one estimate)
  int dof = 0;  // kept iterations - 1
  double q = 1.0;  // P(chi^2 >= observed) for dof degrees of freedom (1 with one estimate)
  bool chi2_consistent = true;  // q >= min_q: the kept estimates agree and `error` can be trusted
  VegasStatus status = VegasStatus::budget_exhausted;
  std::int64_t evaluations = 0;  // integrand evaluations in all, adaptation included
  int iterations = 0;  // all iterations, adaptation included
  int kept_iterations = 0;  // combined into integral: after the adaptation and the last restart
  int restarts = 0;  // times the kept estimates met the tolerance but disagreed and were dropped
  int bins = 0;  // map increments per axis used
  std::int64_t strata = 0;  // stratification cells (hypercubes of y-space)
  double tolerance = 0.0;  // max(tau_abs, tau_rel |I|) at the end
  std::vector<VegasIteration> history;
};

// Checks the problem before any work; throws InvalidInput with a message that names the option.
inline void validate_vegas(std::vector<double> const& lower, std::vector<double> const& upper, Tolerances const& tol,
                           VegasOptions const& opt) {
  int const n = int(lower.size());
  require(n >= 1 && n <= max_vegas_dim, "dimension must be between 1 and " + std::to_string(max_vegas_dim) +
                                            " for VEGAS (got " + std::to_string(n) + ")");
  require(upper.size() == lower.size(), "lower and upper bounds must have the same length");
  for (int i = 0; i < n; ++i) {
    require(std::isfinite(lower[i]) && std::isfinite(upper[i]), "bounds must be finite numbers");
    require(lower[i] < upper[i],
            "lower bound must be below upper bound in every dimension (dimension " + std::to_string(i) + ")");
  }
  require(std::isfinite(tol.absolute) && tol.absolute >= 0, "absolute tolerance must be >= 0");
  require(std::isfinite(tol.relative) && tol.relative >= 0, "relative tolerance must be >= 0");
  require(tol.absolute > 0 || tol.relative > 0, "at least one of the absolute and relative tolerances must be > 0");
  require(opt.evaluations_per_iteration >= 16 && opt.evaluations_per_iteration <= (std::int64_t(1) << 31),
          "evaluations per iteration must be in [16, 2^31]");
  require(opt.adaptation_iterations >= 0 && opt.adaptation_iterations <= 1000,
          "adaptation iterations must be in [0, 1000]");
  require(opt.max_evaluations / (opt.adaptation_iterations + 1) >= opt.evaluations_per_iteration,
          "max evaluations must pay for the adaptation iterations and one more ((adaptation iterations + 1) x "
          "evaluations per iteration = " +
              std::to_string((opt.adaptation_iterations + 1) * opt.evaluations_per_iteration) + ")");
  require(opt.bins >= 1 && opt.bins <= max_vegas_bins, "bins must be in [1, " + std::to_string(max_vegas_bins) + "]");
  require(opt.restarts >= 0 && opt.restarts <= 100, "restarts must be in [0, 100]");
  require(std::isfinite(opt.alpha) && opt.alpha >= 0 && opt.alpha <= 2, "alpha must be in [0, 2]");
  require(std::isfinite(opt.beta) && opt.beta >= 0 && opt.beta <= 1, "beta must be in [0, 1]");
  require(std::isfinite(opt.min_q) && opt.min_q >= 0 && opt.min_q < 1, "min Q must be in [0, 1)");
  opt.ranks.validate();
}

}  // namespace parity::cubature
