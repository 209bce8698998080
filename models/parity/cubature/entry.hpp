#pragma once
// Kokkos-free entry point, defined once per backend (backends/models/cubature.cpp).
#include <vector>

#include "parity/cubature/params.hpp"
#include "parity/cubature/result.hpp"
#include "parity/precision.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"

namespace parity::cubature {

RunResult run(Params const& params, Precision precision, run::Progress& progress, run::PhaseTimes& times);

// One --method vegas run (its samples split over the ranks of run::ranks::communicator()).
VegasRunResult run_vegas(Params const& params, Precision precision);

// --method vegas over a sweep: runs that differ only in the integrand's parameters (a, u), as one
// integrate_vegas_family (options.sampling shared) or one integrate_vegas each (separate).
std::vector<VegasRunResult> run_vegas_family(std::vector<Params> const& cases, Precision precision,
                                             VegasFamilyOptions const& options = {});

// The largest --team-size this backend runs the built-in integrands' kernels with in `precision`
// (cubature::max_team_size); allocates nothing.
int max_team_size(Precision precision);

// Runs that differ only in the integrand's parameters (a, u), in one call (integrate_batch):
// `concurrency` integrals at once on GPU backends (0 or 1: one at a time).
std::vector<RunResult> run_batch(std::vector<Params> const& cases, Precision precision, int concurrency,
                                 run::Progress& progress, run::PhaseTimes& times);

// The same runs as one family (integrate_family): their regions in one list, one launch per step;
// with one_partition on one partition for all (integrate_vector; at most max_vector_components).
std::vector<RunResult> run_family(std::vector<Params> const& cases, Precision precision, run::Progress& progress,
                                  run::PhaseTimes& times, bool one_partition = false);

}  // namespace parity::cubature
