// The cubature model instantiated for this build's execution space, in float and double.
#include "backends/execution_space.hpp"
#include "parity/cubature/entry.hpp"
#include "parity/cubature/solver.hpp"
#include "parity/run/ranks.hpp"

namespace parity::cubature {

RunResult run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& times) {
  backend::ExecutionSpace const space;
  return with_precision(precision, [&](auto real) {
    return solve<backend::ExecutionSpace, decltype(real)>(space, params,
                                                          {&progress, &times, run::ranks::communicator()});
  });
}

VegasRunResult run_vegas(Params const& params, Precision precision) {
  backend::ExecutionSpace const space;
  return with_precision(precision, [&](auto real) {
    return solve_vegas<backend::ExecutionSpace, decltype(real)>(space, params,
                                                                {nullptr, nullptr, run::ranks::communicator()});
  });
}

std::vector<VegasRunResult> run_vegas_family(std::vector<Params> const& cases, Precision precision,
                                             VegasFamilyOptions const& options) {
  backend::ExecutionSpace const space;
  VegasFamilyOptions with_ranks = options;
  with_ranks.ranks = run::ranks::communicator();
  return with_precision(precision, [&](auto real) {
    return solve_vegas_family<backend::ExecutionSpace, decltype(real)>(space, cases, with_ranks);
  });
}

int max_team_size(Precision precision) {
  backend::ExecutionSpace const space;
  return with_precision(precision, [&](auto real) {
    using Real = decltype(real);
    return cubature::max_team_size<backend::ExecutionSpace, Real>(space, GenzIntegrand<Real>());
  });
}

std::vector<RunResult> run_batch(std::vector<Params> const& cases, Precision precision, int concurrency,
                                 run::Progress& progress, run::PhaseTimes& times) {
  backend::ExecutionSpace const space;
  return with_precision(precision, [&](auto real) {
    return solve_batch<backend::ExecutionSpace, decltype(real)>(space, cases, concurrency,
                                                                {&progress, &times, run::ranks::communicator()});
  });
}

std::vector<RunResult> run_family(std::vector<Params> const& cases, Precision precision, run::Progress& progress,
                                  run::PhaseTimes& times, bool one_partition) {
  backend::ExecutionSpace const space;
  return with_precision(precision, [&](auto real) {
    return solve_family<backend::ExecutionSpace, decltype(real)>(space, cases, {&progress, &times}, one_partition);
  });
}

}  // namespace parity::cubature
