// rbc on this build's execution space, in float and double.
#include "backends/execution_space.hpp"
#include "parity/rbc/entry.hpp"
#include "parity/rbc/solver.hpp"

namespace parity::rbc {

Result run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& phases) {
  backend::ExecutionSpace const space;
  return with_precision(precision, [&](auto real) {
    using Real = decltype(real);
    return solve<backend::ExecutionSpace, Real>(space, params, {&progress, &phases});
  });
}

}  // namespace parity::rbc
