#pragma once
// Kokkos-free entry point: defined once per backend (backends/models/dual_control.cpp).
#include "parity/dual_control/estimate.hpp"
#include "parity/dual_control/params.hpp"
#include "parity/dual_control/result.hpp"
#include "parity/precision.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"

namespace parity::dual_control {

Result run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& phases);

// Times the kernels of this problem on smaller grids (solver.hpp calibrate), for estimate().
Calibration calibrate(Params const& params, Precision precision);

}  // namespace parity::dual_control
