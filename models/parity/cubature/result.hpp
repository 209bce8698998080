#pragma once
// What a `cubature` run returns: the integrator's result (deterministic or VEGAS) and the exact
// value of the built-in integrand.
#include "parity/cubature/options.hpp"
#include "parity/cubature/vegas_options.hpp"

namespace parity::cubature {

struct RunResult {
  Result integration;
  double exact = 0.0;  // closed form of the Genz integral, or the reference of f1..f5 (NaN if none)
};

struct VegasRunResult {
  VegasResult integration;
  double exact = 0.0;  // as RunResult's
};

}  // namespace parity::cubature
