#pragma once
// Why an integration stopped, from its result and the two facts the result does not hold; shared
// by integrate() and integrate_family(), so a family member's status is integrate()'s.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "parity/cubature/options.hpp"

namespace parity::cubature::detail {

// Sets r.tolerance (from the final integral) and r.status (see integrate.hpp).
inline void set_final_status(Result& r, Tolerances const& tol, std::int64_t max_evaluations, bool not_finite,
                             bool budget_hit) {
  r.tolerance = std::max(tol.absolute, tol.relative * std::abs(r.integral));
  if (not_finite || !std::isfinite(r.integral) || !std::isfinite(r.error))
    r.status = Status::integrand_not_finite;
  else if (r.error <= r.tolerance)
    r.status = Status::converged;
  else if (budget_hit || r.evaluations + r.points > max_evaluations)
    r.status = Status::budget_exhausted;
  else if (r.phase2_storage_limited > 0 || r.unrefined_regions > 0)
    r.status = Status::storage_exhausted;
  else
    r.status = Status::not_converged;
}

}  // namespace parity::cubature::detail
