#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "parity/cli/command.hpp"
#include "parity/run/backend_info.hpp"
#include "parity/run/memory_use.hpp"

namespace parity::cli {

// What the backend provides to the host-only application (backends/main.cpp fills it in), so
// the CLI library never links against a particular backend.
struct Runtime {
  // Starts Kokkos; the returned handle finalizes it when released.
  std::function<std::shared_ptr<void>(int num_threads, int device_id)> start;
  std::function<run::BackendInfo()> describe;
  std::string backend;  // serial | openmp | cuda, known before Kokkos starts (--version)
  int max_threads = 0;  // the most host threads the backend runs (0: no limit; it ignores --threads)
  std::function<run::MemoryUse()> memory;  // peak memory since reset_memory (empty: not tracked)
  std::function<void()> reset_memory;
};

// Parses argv, starts the Kokkos session only when a command needs it, runs the command, prints
// a summary, writes the report. Exit status: 0 success, 2 bad input (checked before any work),
// 3 the run did not succeed (not converged, budget exhausted or non-finite; report still written),
// 1 anything else.
int run_application(int argc, char** argv, std::vector<std::unique_ptr<Command>> commands, Runtime const& runtime);

}  // namespace parity::cli
