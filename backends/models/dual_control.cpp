// dual-control on this build's execution space, in float and double.
#include "backends/execution_space.hpp"
#include "models/dual_control/entry.hpp"
#include "models/dual_control/solver.hpp"
#include "parity/run/ranks.hpp"

namespace parity::dual_control {
namespace {

// This process's ranks (parity/run/ranks.hpp) for the grid split.
detail::GridRanks process_ranks() {
  detail::GridRanks r;
  r.rank = run::ranks::rank();
  r.size = run::ranks::size();
  r.all_gather = [](std::span<double const> mine, std::span<double> all) { run::ranks::all_gather(mine, all); };
  r.max = [](double x) { return run::ranks::max(x); };
  r.min = [](double x) { return run::ranks::min(x); };
  r.sum = [](std::span<std::int64_t> values) { run::ranks::sum(values); };
  return r;
}

}  // namespace

Result run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& phases) {
  backend::ExecutionSpace const space;
  return with_precision(precision, [&](auto real) {
    using Real = decltype(real);
    return solve<backend::ExecutionSpace, Real>(space, params, progress, phases, process_ranks());
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
