#pragma once
// The cubature library's plain types (no Kokkos): tolerances, options, result, status, and the
// input checks. integrate.hpp holds the algorithm.
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"
#include "parity/run/solve_options.hpp"

namespace parity::cubature {

// Largest dimension supported (runtime n in [1, max_dim]); 2^16 + O(n^2) points per region.
inline constexpr int max_dim = 16;
// Most components of a vector integrand (integrate_vector; its values sit on each thread's stack).
inline constexpr int max_vector_components = 16;

// Coordinates a Point holds: the largest dimension of any method (VEGAS, vegas.hpp, goes to 32).
// The deterministic rules stay at max_dim (their 2^n points and per-axis scratch), so raising
// this costs them only a larger Point on each thread's stack.
inline constexpr int point_capacity = 32;
static_assert(point_capacity >= max_dim);

// Points of the Genz-Malik rule per region: 1 + 4n + 2n(n-1) + 2^n.
constexpr std::int64_t rule_points(int n) {
  return 1 + 4 * std::int64_t(n) + 2 * std::int64_t(n) * (n - 1) + (std::int64_t(1) << n);
}

// Points of the degree-9 rule (rule9.hpp) per region: 1 + 8n + 6n(n-1) + 4n(n-1)(n-2)/3 + 2^n
// (273, 453, 717, 1105 at n = 5, 6, 7, 8); in one dimension the degree-7 rule stands in.
constexpr std::int64_t rule9_points(int n) {
  std::int64_t const d = n;
  return n < 2 ? rule_points(n) : 1 + 8 * d + 6 * d * (d - 1) + 4 * d * (d - 1) * (d - 2) / 3 + (std::int64_t(1) << n);
}

// Largest Options::max_phase1_iterations (the improved mode's limit, 16 times it, stays an int).
inline constexpr int max_phase1_iteration_limit = 1 << 20;

enum class Status { converged, budget_exhausted, storage_exhausted, integrand_not_finite, not_converged };

inline char const* to_string(Status s) {
  switch (s) {
    case Status::converged:
      return "converged";
    case Status::budget_exhausted:
      return "budget_exhausted";
    case Status::storage_exhausted:
      return "storage_exhausted";
    case Status::integrand_not_finite:
      return "integrand_not_finite";
    case Status::not_converged:
      break;
  }
  return "not_converged";
}

// improved: error |I7 - I5| raised by null rules where they see a coarse region, breadth-first
// phase 1 for as long as the region list fits max_memory_mb (bisection, PAGANI-style filtering
// when memory is short), phase 2 only then.
// paper: the algorithm of Arumugam et al. (2013) as published: CUHRE's rule and error estimate
// (degree 9, null rules, two-level check), INIT-PARTITION into l^n <= Lmax (max_regions) equal
// parts, a region good when its error < max(tau_abs, tau_rel |I_j|), bad ones cut into d pieces,
// phase 2 (sequential CUHRE on every region with (tau_rel, tau_abs)) once the list reaches Lmax.
enum class Mode { improved, paper };
// automatic: two_level with the degree-9 rule (both modes), null_rules with degree 7 in improved
// mode, |I7 - I5| in paper mode in one dimension. difference with the degree-9 rule: null_rules. two_level: the null
// rules without the |I7 - I5| floor where they see the asymptotic regime, checked at every split against the parent's
// value (rule.hpp, integrate.hpp).
enum class ErrorEstimate { automatic, difference, null_rules, two_level };

// The cubature rule of the improved mode (paper mode always uses CUHRE's degree 9, and degree 7
// in one dimension): degree7, the
// Genz-Malik rule with its embedded degree-5 rule; degree9, the fully symmetric degree-9 rule of
// Genz & Malik's family with four null rules (rule9.hpp; degree 7 stands in for n = 1).
enum class Rule { degree7, degree9 };
inline char const* to_string(Rule r) { return r == Rule::degree9 ? "degree9" : "degree7"; }

inline char const* to_string(Mode m) { return m == Mode::paper ? "paper" : "improved"; }
inline char const* to_string(ErrorEstimate e) {
  switch (e) {
    case ErrorEstimate::difference:
      return "difference";
    case ErrorEstimate::null_rules:
      return "null_rules";
    case ErrorEstimate::two_level:
      return "two_level";
    case ErrorEstimate::automatic:
      break;
  }
  return "automatic";
}

// Converged when error <= max(absolute, relative |I|); at least one must be > 0.
struct Tolerances {
  double absolute = 0.0;  // default 0: relative only
  double relative = 1e-6;  // default 1e-6
};

// Several ranks (run::Communicator, all_gather only): every rank holds the whole region list and
// does the same bookkeeping; the rule is applied to a contiguous share of each list (and phase 2
// refines a share of its regions) per rank, and the shares' results are gathered into every rank,
// so the result is the same bits for any rank count. Every rank must call integrate() with the
// same problem.

// Every member has a default that suits most integrals; the comments name it. From
// run::SolveOptions, all optional:
//   progress  where the integration is, from host code between kernels (stages "phase 1",
//             "phase 2"; integrate_batch: "batch", one line per integral finished, under a lock);
//             default null: silent;
//   phases    the fenced seconds of the phases "parity::cubature::phase1" and
//             "parity::cubature::phase2" (integrate_batch: "parity::cubature::batch") are added to
//             it. The phases are Kokkos Tools regions either way; default null: no fences are
//             added for them;
//   ranks     default one rank. Several: see above (integrate_batch then runs its integrals one at
//             a time).
struct Options : run::SolveOptions {
  Mode mode = Mode::improved;  // default improved (see Mode)
  ErrorEstimate error_estimate = ErrorEstimate::automatic;  // default automatic (see ErrorEstimate)
  Rule rule = Rule::degree9;  // default degree9 (see Rule); ignored in paper mode
  std::int64_t max_evaluations = 1'000'000'000;  // default 1e9: integrand evaluations in all
  int initial_regions = 2048;  // default 2048: improved mode starts from an even partition of about this many
  int max_regions = 32768;  // default 32768 (the paper's): paper mode's Lmax, INIT-PARTITION into l^n <=
                            // Lmax parts, phase 2 once the list reaches it
  int max_split = 8;  // default 8: paper mode, most pieces one region is cut into in a phase-1 step
  int max_phase1_iterations = 64;  // default 64 in paper mode; improved mode: 16 times this
  int heap_capacity = 0;  // default 0: subregions each phase-2 region may hold; 0: as many as
                          // max_memory_mb allows with every phase-2 region resident, the regions
                          // whose heap fills then continuing in larger heaps
  double max_memory_mb = 512.0;  // default 512: all phase-2 heaps of one batch together; improved
                                 // mode: also the phase-1 region lists
  double max_host_memory_mb = 0.0;  // default 0: improved mode, regions parked in host memory while
                                    // the list is refined depth-first in pieces that fit
                                    // max_memory_mb (for tight tolerances with large budgets);
                                    // 0: none, phase 2's heaps take the list
  int team_size = 0;  // default 0: 1 on host backends, 32 on GPUs
  bool cuhre_average = false;  // default false. Paper mode: each phase-2 region stops on, and
                               // reports, CUBA's Cuhre default (its flags without LAST, as the
                               // paper's sequential baseline ran): the average of its running
                               // estimates after each split weighted by 1 / error^2, and that
                               // average's error. The average's error is not a bound (the
                               // estimates are not independent); Result::last_error is the
                               // last estimates' error.
};

struct Phase1Step {
  int iteration = 0;
  std::int64_t regions = 0;  // evaluated in this step
  std::int64_t bad = 0;  // left unfinished
  double integral = 0.0;  // running totals after this step
  double error = 0.0;
  std::int64_t evaluations = 0;  // cumulative
};

struct Result {
  double integral = 0.0;
  double error = 0.0;
  double last_error = 0.0;  // the error of the last estimates: `error` unless cuhre_average ran
  std::int64_t evaluations = 0;
  std::int64_t regions = 0;  // regions of the final partition
  std::int64_t regions_evaluated = 0;  // applications of the rule
  Status status = Status::not_converged;
  int phase1_iterations = 0;
  std::int64_t phase2_regions = 0;  // regions handed to phase 2
  std::int64_t phase2_evaluations = 0;  // integrand evaluations of phase 2
  std::int64_t phase2_budget_limited = 0;  // of those, stopped by their evaluation share
  std::int64_t phase2_storage_limited = 0;  // of those, stopped by a full heap
  std::int64_t phase2_regrown = 0;  // heaps that filled and continued larger (a heap each time)
  std::int64_t phase2_batch = 0;  // phase-2 regions run at once
  int phase2_rounds = 0;  // phase-2 launches over all regions: 1 + redistributions
  std::int64_t phase1_capacity = 0;  // longest region list phase 1 may hold
  std::int64_t filtered_regions = 0;  // regions finished by the memory filter (improved mode)
  std::int64_t parked_chunks = 0;  // improved mode: pieces of the list parked on the host
  double peak_host_mb = 0.0;  // most host memory the parked pieces held at once
  std::int64_t unrefined_regions = 0;  // parked regions left at their parents' values (the
                                       // budget, host memory or iteration limit stopped the run)
  std::int64_t repeated_evaluations = 0;  // integrate_family: evaluations of steps run again after
                                          // the integral was deferred to a later pass (memory)
  Mode mode = Mode::improved;
  ErrorEstimate error_estimate = ErrorEstimate::difference;  // the one used
  Rule rule = Rule::degree7;  // the one used
  std::int64_t points = 0;  // integrand evaluations per application of the rule
  int heap_capacity = 0;  // the largest heap: subregions a phase-2 region could hold
  double tolerance = 0.0;  // max(tau_abs, tau_rel |I|) at the end
  std::vector<Phase1Step> history;
};

// Whether the integration applies the degree-9 rule (paper mode: CUHRE's, for n >= 2).
inline bool uses_degree9(Options const& opt, int n) {
  return n >= 2 && (opt.mode == Mode::paper || opt.rule == Rule::degree9);
}

// Checks the problem before any work; throws InvalidInput with a clear message.
inline void validate(std::vector<double> const& lower, std::vector<double> const& upper, Tolerances const& tol,
                     Options const& opt) {
  int const n = int(lower.size());
  require(n >= 1 && n <= max_dim,
          "dimension must be between 1 and " + std::to_string(max_dim) + " (got " + std::to_string(n) + ")");
  require(upper.size() == lower.size(), "lower and upper bounds must have the same length");
  for (int i = 0; i < n; ++i) {
    require(std::isfinite(lower[i]) && std::isfinite(upper[i]), "bounds must be finite numbers");
    require(lower[i] < upper[i], "lower bound must be below upper bound in every dimension (dimension " +
                                     std::to_string(i) + ": " + std::to_string(lower[i]) +
                                     " >= " + std::to_string(upper[i]) + ")");
  }
  require(std::isfinite(tol.absolute) && tol.absolute >= 0, "absolute tolerance must be >= 0");
  require(std::isfinite(tol.relative) && tol.relative >= 0, "relative tolerance must be >= 0");
  require(tol.absolute > 0 || tol.relative > 0, "at least one of the absolute and relative tolerances must be > 0");
  std::int64_t const points = uses_degree9(opt, n) ? rule9_points(n) : rule_points(n);
  require(opt.max_evaluations >= points, "max evaluations must be at least one rule application (" +
                                             std::to_string(points) + " points in " + std::to_string(n) +
                                             " dimensions)");
  require(opt.initial_regions >= 1 && opt.initial_regions <= (1 << 24), "initial regions must be in [1, 2^24]");
  require(opt.max_regions >= 2 && opt.max_regions <= (1 << 24), "max regions (Lmax) must be in [2, 2^24]");
  require(opt.max_split >= 2 && opt.max_split <= 64, "max split must be in [2, 64]");
  require(opt.max_phase1_iterations >= 1 && opt.max_phase1_iterations <= max_phase1_iteration_limit,
          "max phase-1 iterations must be in [1, 2^20]");
  require(opt.heap_capacity == 0 || (opt.heap_capacity >= 2 && opt.heap_capacity <= (1 << 24)),
          "heap capacity must be 0 (automatic) or in [2, 2^24]");
  require(std::isfinite(opt.max_memory_mb) && opt.max_memory_mb > 0, "max memory must be > 0 MB");
  require(std::isfinite(opt.max_host_memory_mb) && opt.max_host_memory_mb >= 0, "max host memory must be >= 0 MB");
  require(opt.team_size >= 0 && opt.team_size <= 1024, "team size must be in [0, 1024]");
  require(!opt.cuhre_average || opt.mode == Mode::paper, "cuhre_average applies to the paper mode");
  require(opt.ranks.size >= 1 && opt.ranks.rank >= 0 && opt.ranks.rank < opt.ranks.size,
          "ranks: the rank must lie in [0, size) and the size be >= 1");
  require(!opt.ranks.several() || bool(opt.ranks.collectives.all_gather), "ranks: several ranks need an all_gather");
}

}  // namespace parity::cubature
