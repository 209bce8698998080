#pragma once
// CLI command `aiyagari` (host code, no Kokkos).
#include <memory>

#include "parity/cli/command.hpp"

namespace parity::aiyagari {

std::unique_ptr<cli::Command> make_command();

}  // namespace parity::aiyagari
