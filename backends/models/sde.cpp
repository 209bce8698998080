// The SDE-ensemble solvers instantiated for this build's execution space, float and double.
#include "backends/execution_space.hpp"
#include "models/sde/entry.hpp"
#include "models/sde/solver.hpp"
#include "parity/run/ranks.hpp"
#ifdef PARITY_HAVE_KOKKOS_KERNELS
#include "models/sde/network.hpp"
#include "models/sde/network_kuramoto.hpp"
#endif

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

#ifdef PARITY_HAVE_KOKKOS_KERNELS
// The network model is instantiated here, beside the Kuramoto solvers, and not in a translation
// unit of its own: it runs kuramoto.hpp's kernels (device lambdas inside templates). nvcc gives
// each such lambda's host wrapper a deleter that is set per translation unit, and the linker keeps
// one copy of the wrapper's destructor; were the same kernels instantiated in a second CUDA unit,
// a run entering only that unit would call the other unit's unset deleter (address 0).
NetworkKuramotoRunResult run(NetworkKuramotoParams const& p, Precision precision, run::Progress& progress,
                             run::PhaseTimes& times) {
  backend::ExecutionSpace space;
  return with_precision(precision, [&](auto real) {
    return solve<backend::ExecutionSpace, decltype(real)>(space, p, progress, times, process_ranks());
  });
}
#endif

}  // namespace parity::sde
