#pragma once
// Kokkos-free entry point, defined once per backend (backends/models/krusell_smith.cpp).
#include "parity/krusell_smith/params.hpp"
#include "parity/krusell_smith/result.hpp"
#include "parity/precision.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"

namespace parity::krusell_smith {

Result run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& phases);

}  // namespace parity::krusell_smith
