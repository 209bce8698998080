// The network Kuramoto solver instantiated for this build's execution space, float and double
// (built only where Kokkos Kernels is found).
#include "backends/execution_space.hpp"
#include "models/sde/network.hpp"
#include "models/sde/network_kuramoto.hpp"

namespace parity::sde {

NetworkKuramotoRunResult run(NetworkKuramotoParams const& p, Precision precision, run::Progress& progress,
                             run::PhaseTimes& times) {
  backend::ExecutionSpace space;
  return with_precision(
      precision, [&](auto real) { return solve<backend::ExecutionSpace, decltype(real)>(space, p, progress, times); });
}

}  // namespace parity::sde
