#pragma once
// CLI commands `josephson` and `kuramoto` (host code, no Kokkos).
#include <memory>

#include "parity/cli/command.hpp"

namespace parity::sde {

std::unique_ptr<cli::Command> make_josephson_command();
std::unique_ptr<cli::Command> make_kuramoto_command();

}  // namespace parity::sde
