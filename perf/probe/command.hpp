#pragma once
#include <memory>

#include "parity/cli/command.hpp"

namespace parity::probe {

// `probe`: the device's copy bandwidth and FP32/FP64 FMA rates, for roofline fractions.
std::unique_ptr<cli::Command> make_command();

}  // namespace parity::probe
