#pragma once
// Kokkos-free entry point: defined once per backend (backends/models/aiyagari.cpp).
#include "parity/aiyagari/params.hpp"
#include "parity/aiyagari/result.hpp"
#include "parity/precision.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"

namespace parity::aiyagari {

Result run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& phases);

}  // namespace parity::aiyagari
