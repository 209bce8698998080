#pragma once
// CLI command `rbc` (host code, no Kokkos).
#include <memory>

#include "parity/cli/command.hpp"

namespace parity::rbc {

std::unique_ptr<cli::Command> make_command();

}  // namespace parity::rbc
