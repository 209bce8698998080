#pragma once
// Every model's CLI command, in the order `run --all` runs them.
#include <memory>
#include <vector>

#include "parity/cli/command.hpp"

namespace parity::models {

std::vector<std::unique_ptr<cli::Command>> all_commands();

}  // namespace parity::models
