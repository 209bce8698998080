#pragma once
// A swept parameter on the command line, `--sweep NAME:LO:HI:N` (josephson, cubature).
#include <string>

namespace parity::cli {

// One swept parameter: name, values lo..hi (inclusive, evenly spaced), n points (n = 1: just lo).
struct SweepSpec {
  std::string name;
  double lo = 0, hi = 0;
  int n = 1;
  double value(int k) const { return n == 1 ? lo : lo + (hi - lo) * double(k) / double(n - 1); }
};

// Parses "name:lo:hi:n"; throws InvalidInput on anything else.
SweepSpec parse_sweep(std::string const& text);

}  // namespace parity::cli
