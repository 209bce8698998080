#pragma once
// What a `cubature` run returns: the integrator's result and the exact value of the built-in
// integrand.
#include "models/cubature/options.hpp"

namespace parity::cubature {

struct RunResult {
  Result integration;
  double exact = 0.0;  // closed form of the Genz integral, or the reference of f1..f5 (NaN if none)
};

}  // namespace parity::cubature
