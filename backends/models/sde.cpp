// The SDE-ensemble solvers instantiated for this build's execution space, float and double.
#include "backends/execution_space.hpp"
#include "models/sde/entry.hpp"
#include "models/sde/solver.hpp"
#include "parity/run/ranks.hpp"

namespace parity::sde {
namespace {

// This process's ranks (parity/run/ranks.hpp) for the ensemble integrator.
EnsembleRanks process_ranks() {
  EnsembleRanks r;
  r.rank = run::ranks::rank();
  r.size = run::ranks::size();
  r.all_gather = [](std::span<double const> mine, std::span<double> all) { run::ranks::all_gather(mine, all); };
  r.sum = [](std::span<std::int64_t> values) { run::ranks::sum(values); };
  return r;
}

}  // namespace

JosephsonResult run(JosephsonParams const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times) {
  backend::ExecutionSpace space;
  return with_precision(precision, [&](auto real) {
    return solve<backend::ExecutionSpace, decltype(real)>(space, p, progress, times, process_ranks());
  });
}

KuramotoRunResult run(KuramotoParams const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times) {
  backend::ExecutionSpace space;
  return with_precision(precision, [&](auto real) {
    return solve<backend::ExecutionSpace, decltype(real)>(space, p, progress, times, process_ranks());
  });
}

}  // namespace parity::sde
