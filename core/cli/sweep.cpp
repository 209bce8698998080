// `--sweep NAME:LO:HI:N`, parsed with the messages the CLI tests expect.
#include "parity/cli/sweep.hpp"

#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"

namespace parity::cli {

SweepSpec parse_sweep(std::string const& text) {
  SweepSpec s;
  // Every field counts, empty ones too: "a:0:1:3:" has five.
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == ':')
      parts.emplace_back();
    else
      parts.back().push_back(c);
  }
  require(parts.size() == 4, "--sweep '" + text + "': expected NAME:LO:HI:N, e.g. a:0:8:100");
  s.name = parts[0];
  try {
    std::size_t used = 0;
    s.lo = std::stod(parts[1], &used);
    require(used == parts[1].size(), "");
    s.hi = std::stod(parts[2], &used);
    require(used == parts[2].size(), "");
    s.n = std::stoi(parts[3], &used);
    require(used == parts[3].size(), "");
  } catch (std::exception const&) {
    throw InvalidInput("--sweep '" + text + "': LO and HI must be numbers and N an integer");
  }
  require(std::isfinite(s.lo) && std::isfinite(s.hi), "--sweep '" + text + "': LO and HI must be finite");
  require(s.n >= 1 && s.n <= 100000, "--sweep '" + text + "': N must be in [1, 100000]");
  return s;
}

}  // namespace parity::cli
