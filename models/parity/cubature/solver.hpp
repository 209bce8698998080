#pragma once
// One `cubature` run on a backend: the built-in integrand through integrate(), with the caller's
// progress, phase times and ranks (run::SolveOptions) in place of those of params.options.
#include <Kokkos_Core.hpp>

#include <limits>
#include <utility>
#include <vector>

#include "parity/cubature/batch.hpp"
#include "parity/cubature/family.hpp"
#include "parity/cubature/integrands.hpp"
#include "parity/cubature/integrate.hpp"
#include "parity/cubature/params.hpp"
#include "parity/cubature/result.hpp"
#include "parity/cubature/vector.hpp"
#include "parity/cubature/vegas.hpp"
#include "parity/run/solve_options.hpp"

namespace parity::cubature {

// The engine's options with the caller's progress, phases and ranks.
template <class EngineOptions>
EngineOptions with_reporting(EngineOptions engine, run::SolveOptions const& options) {
  static_cast<run::SolveOptions&>(engine) = options;
  return engine;
}

template <class ExecutionSpace, class Real>
RunResult solve(ExecutionSpace const& space, Params const& params, run::SolveOptions const& options = {}) {
  Problem const q = validate(params);
  GenzIntegrand<Real> const f(q.family, q.a, q.u);
  RunResult r;
  r.integration = integrate<ExecutionSpace, Real>(space, f, q.lower, q.upper, params.tolerances,
                                                  with_reporting(params.options, options));
  r.exact = genz_exact(q.family, q.a, q.u, q.lower, q.upper);
  return r;
}

template <class ExecutionSpace, class Real>
VegasRunResult solve_vegas(ExecutionSpace const& space, Params const& params, run::SolveOptions const& options = {}) {
  Problem const q = validate(params);
  GenzIntegrand<Real> const f(q.family, q.a, q.u);
  VegasRunResult r;
  r.integration = integrate_vegas<ExecutionSpace, Real>(space, f, q.lower, q.upper, params.tolerances,
                                                        with_reporting(params.vegas, options));
  // corner_peak's closed form sums 2^n vertices: past max_dim it is too slow and cancels too much.
  r.exact = q.family == Family::corner_peak && params.dim > max_dim ? std::numeric_limits<double>::quiet_NaN()
                                                                    : genz_exact(q.family, q.a, q.u, q.lower, q.upper);
  return r;
}

// Runs of one integrand over one box with the same tolerances and VEGAS options, differing in a
// and u: one integrate_vegas_family over a GenzParameterFamily (options.sampling shared), or one
// integrate_vegas per run, in turn (separate). Result k carries run k's closed form.
template <class ExecutionSpace, class Real>
std::vector<VegasRunResult> solve_vegas_family(ExecutionSpace const& space, std::vector<Params> const& cases,
                                               VegasFamilyOptions const& options = {}) {
  std::vector<Problem> problems;
  std::vector<std::vector<double>> a, u;
  for (auto const& p : cases) {
    problems.push_back(validate(p));
    auto const& q = problems.back();
    auto const& first = problems.front();
    auto const& p0 = cases.front();
    require(q.family == first.family && p.dim == p0.dim && q.lower == first.lower && q.upper == first.upper &&
                p.tolerances.relative == p0.tolerances.relative && p.tolerances.absolute == p0.tolerances.absolute,
            "a VEGAS family shares the integrand, dimension, box and tolerances");
    a.push_back(q.a);
    u.push_back(q.u);
  }
  std::vector<VegasRunResult> out(cases.size());
  if (cases.empty()) return out;
  Problem const& q = problems.front();
  VegasOptions const vegas = with_reporting(cases.front().vegas, options);
  std::vector<VegasResult> results;
  if (options.sampling == Sampling::shared) {
    GenzParameterFamily<Real, typename ExecutionSpace::memory_space> const f(q.family, a, u);
    results = integrate_vegas_family<ExecutionSpace, Real>(space, f, int(cases.size()), q.lower, q.upper,
                                                           cases.front().tolerances, vegas);
  } else {
    for (std::size_t k = 0; k < cases.size(); ++k)
      results.push_back(integrate_vegas<ExecutionSpace, Real>(space, GenzIntegrand<Real>(q.family, a[k], u[k]), q.lower,
                                                              q.upper, cases.front().tolerances, vegas));
  }
  for (std::size_t k = 0; k < cases.size(); ++k) {
    out[k].integration = std::move(results[k]);
    out[k].exact = q.family == Family::corner_peak && cases[k].dim > max_dim
                       ? std::numeric_limits<double>::quiet_NaN()
                       : genz_exact(q.family, a[k], u[k], q.lower, q.upper);
  }
  return out;
}

// The problems of a batch or family: one integrand family over one box with the same tolerances
// and options, differing in a and u.
inline std::vector<Problem> batch_problems(std::vector<Params> const& cases) {
  std::vector<Problem> problems;
  for (auto const& p : cases) {
    problems.push_back(validate(p));
    auto const& q = problems.back();
    auto const& first = problems.front();
    require(q.family == first.family && p.dim == cases.front().dim && q.lower == first.lower && q.upper == first.upper,
            "a batch shares the integrand family, dimension and box");
  }
  return problems;
}

// A batch of runs (batch_problems): one integrate_batch call, timed as the phase
// "parity::cubature::batch".
template <class ExecutionSpace, class Real>
std::vector<RunResult> solve_batch(ExecutionSpace const& space, std::vector<Params> const& cases, int concurrency,
                                   run::SolveOptions const& options = {}) {
  std::vector<Problem> const problems = batch_problems(cases);
  std::vector<RunResult> out(cases.size());
  if (cases.empty()) return out;
  std::vector<GenzIntegrand<Real>> fs;
  for (auto const& q : problems) fs.emplace_back(q.family, q.a, q.u);
  BatchOptions batch;
  static_cast<Options&>(batch) = with_reporting(cases.front().options, options);
  batch.concurrency = concurrency;
  std::vector<Result> const results = integrate_batch<ExecutionSpace, Real>(
      space, fs, problems.front().lower, problems.front().upper, cases.front().tolerances, batch);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    out[k].integration = results[k];
    out[k].exact = genz_exact(problems[k].family, problems[k].a, problems[k].u, problems[k].lower, problems[k].upper);
  }
  return out;
}

// The same runs as one integrate_family over a GenzParameterFamily, timed as the phase
// "parity::cubature::family"; with one_partition, as one integrate_vector of its members on one
// partition (at most max_vector_components runs), timed as "parity::cubature::vector".
template <class ExecutionSpace, class Real>
std::vector<RunResult> solve_family(ExecutionSpace const& space, std::vector<Params> const& cases,
                                    run::SolveOptions const& options = {}, bool one_partition = false) {
  std::vector<Problem> const problems = batch_problems(cases);
  std::vector<RunResult> out(cases.size());
  if (cases.empty()) return out;
  std::vector<std::vector<double>> a, u;
  for (auto const& q : problems) {
    a.push_back(q.a);
    u.push_back(q.u);
  }
  GenzParameterFamily<Real, typename ExecutionSpace::memory_space> const f(problems.front().family, a, u);
  auto const& q = problems.front();
  Options const o = with_reporting(cases.front().options, options);
  std::vector<Result> const results =
      one_partition
          ? integrate_vector<ExecutionSpace, Real>(space, FamilyAsVector<decltype(f)>{f, f.components()},
                                                   f.components(), q.lower, q.upper, cases.front().tolerances, o)
          : integrate_family<ExecutionSpace, Real>(space, f, f.components(), q.lower, q.upper, cases.front().tolerances,
                                                   o);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    out[k].integration = results[k];
    out[k].exact = genz_exact(problems[k].family, a[k], u[k], problems[k].lower, problems[k].upper);
  }
  return out;
}

}  // namespace parity::cubature
