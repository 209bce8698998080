// parity::backend::run_application (application.hpp): the one place that wires the backend's
// runtime into the command-line application.
#include "backends/application.hpp"

#include "models/registry.hpp"
#include "parity/cli/application.hpp"
#include "parity/run/backend_info.hpp"
#include "parity/run/memory_use.hpp"
#include "parity/run/ranks.hpp"

namespace parity::backend {

int run_application(int argc, char** argv, std::vector<std::unique_ptr<cli::Command>> extra) {
  run::prepare_process();
  auto const limits = run::backend_limits();
  // MPI for the whole process when started by mpirun (and built with MPI); otherwise one rank.
  run::ranks::Environment ranks(argc, argv);
  cli::Runtime runtime{
      [](int threads, int device) -> std::shared_ptr<void> { return std::make_shared<run::Session>(threads, device); },
      &run::describe_backend,
      limits.backend,
      limits.max_threads,
      &run::memory_use,
      &run::reset_memory_peaks};
  auto commands = models::all_commands();
  for (auto& command : extra) commands.push_back(std::move(command));
  return cli::run_application(argc, argv, std::move(commands), runtime);
}

}  // namespace parity::backend
