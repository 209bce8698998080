#pragma once
// One `cubature` run on a backend: the built-in integrand through integrate().
#include <Kokkos_Core.hpp>

#include "models/cubature/integrands.hpp"
#include "models/cubature/integrate.hpp"
#include "models/cubature/params.hpp"
#include "models/cubature/result.hpp"

namespace parity::cubature {

template <class ExecutionSpace, class Real>
RunResult solve(ExecutionSpace const& space, Params const& params, run::Progress& progress, run::PhaseTimes& times) {
  Problem const q = validate(params);
  GenzIntegrand<Real> const f(q.family, q.a, q.u);
  RunResult r;
  r.integration = integrate<ExecutionSpace, Real>(space, f, q.lower, q.upper, params.tolerances, params.options,
                                                  &progress, &times);
  r.exact = genz_exact(q.family, q.a, q.u, q.lower, q.upper);
  return r;
}

}  // namespace parity::cubature
