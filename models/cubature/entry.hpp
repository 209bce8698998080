#pragma once
// Kokkos-free entry point, defined once per backend (backends/models/cubature.cpp).
#include "models/cubature/params.hpp"
#include "models/cubature/result.hpp"
#include "parity/precision.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"

namespace parity::cubature {

RunResult run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& times);

}  // namespace parity::cubature
