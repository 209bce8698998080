#pragma once
// CLI command `network-kuramoto` (host code, no Kokkos).
#include <memory>

#include "parity/cli/command.hpp"

namespace parity::sde {

std::unique_ptr<cli::Command> make_network_kuramoto_command();

}  // namespace parity::sde
