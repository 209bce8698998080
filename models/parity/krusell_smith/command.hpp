#pragma once
// `parity-<backend> krusell-smith`: the CLI command (host code, no Kokkos).
#include <memory>

#include "parity/cli/command.hpp"

namespace parity::krusell_smith {

std::unique_ptr<cli::Command> make_command();

}  // namespace parity::krusell_smith
