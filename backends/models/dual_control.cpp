// dual-control on this build's execution space, in float and double.
#include "backends/execution_space.hpp"
#include "parity/dual_control/checkpoint.hpp"
#include "parity/dual_control/entry.hpp"
#include "parity/dual_control/solver.hpp"
#include "parity/run/ranks.hpp"

namespace parity::dual_control {
Result run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& phases) {
  backend::ExecutionSpace const space;
  return with_precision(precision, [&](auto real) {
    using Real = decltype(real);
    Options options;
    options.progress = &progress;
    options.phases = &phases;
    options.ranks = run::ranks::communicator();
    if (options.ranks.gathers_in_place()) run::ranks::start_device_exchange();  // untimed, before the solve
    options.store = file_store(params, sizeof(Real) == sizeof(float) ? "float" : "double");
    return solve<backend::ExecutionSpace, Real>(space, params, options);
  });
}

Calibration calibrate(Params const& params, Precision precision) {
  backend::ExecutionSpace const space;
  return with_precision(precision, [&](auto real) {
    using Real = decltype(real);
    return calibrate<backend::ExecutionSpace, Real>(space, params);
  });
}

}  // namespace parity::dual_control
