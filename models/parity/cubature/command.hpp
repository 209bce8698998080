#pragma once
// The `cubature` command: adaptive integration of a built-in integrand (host code).
#include <memory>

#include "parity/cli/command.hpp"

namespace parity::cubature {

std::unique_ptr<cli::Command> make_command();

}  // namespace parity::cubature
