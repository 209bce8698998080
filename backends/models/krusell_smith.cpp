// Krusell-Smith solver instantiated for this build's execution space, float and double.
#include "backends/execution_space.hpp"
#include "parity/krusell_smith/entry.hpp"
#include "parity/krusell_smith/solver.hpp"
#include "parity/run/ranks.hpp"

namespace parity::krusell_smith {
Result run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& phases) {
  backend::ExecutionSpace space;
  return with_precision(precision, [&](auto real) {
    return solve<backend::ExecutionSpace, decltype(real)>(space, params,
                                                          {&progress, &phases, run::ranks::communicator()});
  });
}

}  // namespace parity::krusell_smith
