#pragma once
// Errors a user can cause (bad options, inconsistent parameters). The CLI turns them into a
// clear message and exit status 2; anything else is a bug and exits with 1.
#include <stdexcept>
#include <string>

namespace parity {

struct InvalidInput : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

inline void require(bool condition, std::string const& message) {
  if (!condition) throw InvalidInput(message);
}

}  // namespace parity
