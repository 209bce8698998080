#pragma once
// Which method suits an integral (`cubature --method auto`): the deterministic two-phase rules
// (integrate.hpp) or VEGAS+ (vegas.hpp), by a rule measured on Genz's families
// (docs/models/cubature.md, "Choosing the method"):
//
//   MethodChoice c = choose_method(dim, relative_tolerance, oscillating);
//
// vegas above max_dim (the rules stop there); deterministic for an oscillating integrand, whose
// cancellation VEGAS+'s map cannot follow; vegas from 12 dimensions (the rules' 2^n points per
// region leave 1e8 evaluations far from 1e-6 where VEGAS+ gets within 1e-5 with 1e7) and from 8
// at a relative tolerance of 1e-4 or looser (there the rules cost 6-160x VEGAS+'s evaluations);
// deterministic otherwise: tighter tolerances in fewer dimensions, which Monte Carlo's
// 1/sqrt(N) does not reach. `reason` names the clause that decided, for the report.
#include <string>

#include "parity/cubature/genz.hpp"
#include "parity/cubature/options.hpp"
#include "parity/cubature/params.hpp"

namespace parity::cubature {

struct MethodChoice {
  Method method = Method::deterministic;
  std::string reason;
};

// oscillating: the integrand changes sign across the box, so its integral is small against its
// spread (Genz's oscillatory family).
inline MethodChoice choose_method(int dim, double relative_tolerance, bool oscillating) {
  std::string const n = std::to_string(dim) + " dimensions";
  if (dim > max_dim) return {Method::vegas, n + ": above the deterministic method's " + std::to_string(max_dim)};
  if (oscillating) return {Method::deterministic, "an oscillating integrand (VEGAS+ loses to its cancellation)"};
  if (dim >= 12) return {Method::vegas, n + ": 12 or more"};
  bool const loose = relative_tolerance >= 1e-4;
  if (loose && dim >= 8) return {Method::vegas, n + " (8 or more) at a relative tolerance of 1e-4 or looser"};
  if (loose) return {Method::deterministic, n + ": below 8"};
  return {Method::deterministic, n + " (below 12) at a relative tolerance below 1e-4"};
}

// The built-in integrands: Genz's oscillatory family and the paper's f2..f5 change sign.
inline MethodChoice choose_method(Family family, int dim, double relative_tolerance) {
  bool const oscillating =
      family == Family::oscillatory || (is_paper(family) && family != Family::f1 && family != Family::f1_pagani);
  return choose_method(dim, relative_tolerance, oscillating);
}

}  // namespace parity::cubature
