#pragma once
#include <memory>

#include "parity/cli/command.hpp"

namespace parity::dual_control {

std::unique_ptr<cli::Command> make_command();

}  // namespace parity::dual_control
