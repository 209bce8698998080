// The SDE-ensemble solvers instantiated for this build's execution space, float and double.
#include "backends/execution_space.hpp"
#include "models/sde/entry.hpp"
#include "models/sde/solver.hpp"

namespace parity::sde {

JosephsonResult run(JosephsonParams const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times) {
  backend::ExecutionSpace space;
  return with_precision(precision, [&](auto real) {
    return solve<backend::ExecutionSpace, decltype(real)>(space, p, progress, times);
  });
}

KuramotoRunResult run(KuramotoParams const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times) {
  backend::ExecutionSpace space;
  return with_precision(precision, [&](auto real) {
    return solve<backend::ExecutionSpace, decltype(real)>(space, p, progress, times);
  });
}

}  // namespace parity::sde
