#pragma once
// The two-level error check of the cubature integrator (ErrorEstimate::two_level).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "parity/cubature/detail/region_list.hpp"

namespace parity::cubature::detail {

// The two-level raise of one split's pieces: err -> err scale + add (see two_level_check).
struct TwoLevelRaise {
  double scale, add;
};
KOKKOS_INLINE_FUNCTION TwoLevelRaise two_level_raise(double parent, double sum, double sum_err, double c_scale,
                                                     double c_add) {
  double const diff = Kokkos::abs(parent - sum);
  return {sum_err > 0 ? 1 + c_scale * diff / sum_err : 1.0, c_add * diff};
}

// The two-level check of DCUHRE (Berntsen, Espelid & Genz 1991): the d pieces of one parent
// (consecutive in the list) integrate to the parent's value up to the parent's true error, so
// their difference D = |parent - sum of pieces| is a second, independent sample of the error
// one level up. Each piece's error is raised to err (1 + c_scale D / sum of the pieces' errors)
// + c_add D. Applied to groups 0..groups-1 of d pieces.
template <class ExecutionSpace, class Real>
void two_level_check(ExecutionSpace const& space, RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                     std::int64_t groups, int d, Kokkos::View<Real*, typename ExecutionSpace::memory_space> parent,
                     double c_scale, double c_add) {
  auto const est = list.estimate;
  auto const err = list.error;
  Kokkos::parallel_for(
      "parity::cubature::two_level", Kokkos::RangePolicy<ExecutionSpace>(space, 0, groups),
      KOKKOS_LAMBDA(std::int64_t g) {
        double sum = 0, sum_err = 0;
        for (int k = 0; k < d; ++k) {
          sum += double(est(g * d + k));
          sum_err += double(err(g * d + k));
        }
        auto const raise = two_level_raise(double(parent(g)), sum, sum_err, c_scale, c_add);
        for (int k = 0; k < d; ++k) err(g * d + k) = Real(double(err(g * d + k)) * raise.scale + raise.add);
      });
}

}  // namespace parity::cubature::detail
