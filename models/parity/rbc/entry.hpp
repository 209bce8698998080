#pragma once
// Kokkos-free entry point: defined once per backend (backends/models/rbc.cpp).
#include "parity/precision.hpp"
#include "parity/rbc/params.hpp"
#include "parity/rbc/result.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"

namespace parity::rbc {

Result run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& phases);

}  // namespace parity::rbc
