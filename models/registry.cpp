#include "models/registry.hpp"

namespace parity::models {

std::vector<std::unique_ptr<cli::Command>> all_commands() {
  std::vector<std::unique_ptr<cli::Command>> commands;
  return commands;
}

}  // namespace parity::models
