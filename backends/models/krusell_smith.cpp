// Krusell-Smith solver instantiated for this build's execution space, float and double.
#include "backends/execution_space.hpp"
#include "models/krusell_smith/entry.hpp"
#include "models/krusell_smith/solver.hpp"
#include "parity/run/ranks.hpp"

namespace parity::krusell_smith {
namespace {

// This process's ranks (parity/run/ranks.hpp) for the panel.
PanelRanks process_ranks() {
  PanelRanks r;
  r.rank = run::ranks::rank();
  r.size = run::ranks::size();
  r.sum_in_rank_order = [](std::span<double> values) { run::ranks::sum_in_rank_order(values); };
  r.sum = [](std::span<std::int64_t> values) { run::ranks::sum(values); };
  r.all_gather = [](std::span<double const> mine, std::span<double> all) { run::ranks::all_gather(mine, all); };
  r.min = [](double x) { return run::ranks::min(x); };
  return r;
}

}  // namespace

Result run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& phases) {
  backend::ExecutionSpace space;
  return with_precision(precision, [&](auto real) {
    return solve<backend::ExecutionSpace, decltype(real)>(space, params, progress, phases, process_ranks());
  });
}

}  // namespace parity::krusell_smith
