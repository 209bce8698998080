#pragma once
// How a library's checks name a parameter in their messages. By default the field of its
// parameter struct (`delta`, `sigma_eps`), which is what a library user sets; a command passes the
// option that sets it (`--delta`, parity/cli/option_names.hpp), which is what its user typed.
#include <functional>
#include <string>

namespace parity {

using ParameterName = std::function<std::string(std::string const& field)>;
inline std::string field_name(std::string const& field) { return field; }

}  // namespace parity
