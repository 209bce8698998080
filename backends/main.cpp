// parity-<backend>: the command-line entry point. The backend is fixed at build time.
#include <memory>

#include "models/registry.hpp"
#include "parity/cli/application.hpp"
#include "parity/run/memory_use.hpp"
#include "parity/run/ranks.hpp"

int main(int argc, char** argv) {
  parity::run::prepare_process();
  auto const limits = parity::run::backend_limits();
  // MPI for the whole process when started by mpirun (and built with MPI); otherwise one rank.
  parity::run::ranks::Environment ranks(argc, argv);
  parity::cli::Runtime runtime{[](int threads, int device) -> std::shared_ptr<void> {
                                 return std::make_shared<parity::run::Session>(threads, device);
                               },
                               &parity::run::describe_backend,
                               limits.backend,
                               limits.max_threads,
                               &parity::run::memory_use,
                               &parity::run::reset_memory_peaks};
  return parity::cli::run_application(argc, argv, parity::models::all_commands(), runtime);
}
