#pragma once
// The command-line program of this build's backend: the process set up for the backend, MPI ranks
// when started by mpirun, and every model's command plus `extra` (an executable of its own, such as
// perf/linear_sde, adds commands there). Returns the exit status.
#include <memory>
#include <vector>

#include "parity/cli/command.hpp"

namespace parity::backend {

int run_application(int argc, char** argv, std::vector<std::unique_ptr<cli::Command>> extra = {});

}  // namespace parity::backend
