// The SDE-ensemble solvers instantiated for this build's execution space, float and double.
#include "backends/execution_space.hpp"
#include "parity/run/ranks.hpp"
#include "parity/sde/entry.hpp"
#include "parity/sde/solver.hpp"
#ifdef PARITY_HAVE_KOKKOS_KERNELS
#include "parity/sde/network.hpp"
#include "parity/sde/network_kuramoto.hpp"
#endif

namespace parity::sde {
JosephsonResult run(JosephsonParams const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times) {
  backend::ExecutionSpace space;
  return with_precision(precision, [&](auto real) {
    return solve<backend::ExecutionSpace, decltype(real)>(space, p, {&progress, &times, run::ranks::communicator()});
  });
}

KuramotoRunResult run(KuramotoParams const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times) {
  backend::ExecutionSpace space;
  return with_precision(precision, [&](auto real) {
    return solve<backend::ExecutionSpace, decltype(real)>(space, p, {&progress, &times, run::ranks::communicator()});
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
    return solve<backend::ExecutionSpace, decltype(real)>(space, p, {&progress, &times, run::ranks::communicator()});
  });
}
#endif

}  // namespace parity::sde
