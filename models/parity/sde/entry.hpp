#pragma once
// The SDE solvers as the CLI sees them (Kokkos-free); defined once per backend in
// backends/models/sde.cpp.
#include "parity/precision.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/params.hpp"
#include "parity/sde/result.hpp"

namespace parity::sde {

JosephsonResult run(JosephsonParams const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times);
KuramotoRunResult run(KuramotoParams const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times);

}  // namespace parity::sde
