#pragma once
// Classification helpers and the PAGANI-style filter of the cubature integrator: sums over the
// regions a predicate selects, and finishing the unfinished regions of smallest error.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "parity/algorithms/compact.hpp"
#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/cubature/detail/region_list.hpp"

namespace parity::cubature::detail {

// Unfinished (flagged) regions whose error exceeds t.
template <class ExecutionSpace, class Real>
std::int64_t count_above(ExecutionSpace const& space, Kokkos::View<Real*, typename ExecutionSpace::memory_space> err,
                         Kokkos::View<int*, typename ExecutionSpace::memory_space> flag, std::int64_t count, double t) {
  std::int64_t above = 0;
  Kokkos::parallel_reduce(
      "parity::cubature::count_above", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r, std::int64_t & a) { a += (flag(r) && double(err(r)) > t) ? 1 : 0; }, above);
  return above;
}

struct Filtered {
  std::int64_t regions = 0;
  double estimate = 0, error = 0, volume = 0;
};

// Estimate, error, volume and count summed over the regions r of the list with select(r), in a
// fixed order (terms is the work matrix).
template <class ExecutionSpace, class Real, class Select>
std::vector<double> sums_where(ExecutionSpace const& space,
                               RegionList<Real, typename ExecutionSpace::memory_space> const& list, std::int64_t count,
                               int n, Kokkos::Array<double, max_dim> const& box_half,
                               Matrix<typename ExecutionSpace::memory_space> terms, Select const& select) {
  auto const err = list.error;
  auto const est = list.estimate;
  auto const half = list.half;
  Kokkos::parallel_for(
      "parity::cubature::selected_terms", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r) {
        bool const sel = select(r);
        terms(r, 0) = sel ? double(est(r)) : 0.0;
        terms(r, 1) = sel ? double(err(r)) : 0.0;
        terms(r, 2) = sel ? volume_fraction<Real>(half, r, n, box_half) : 0.0;
        terms(r, 3) = sel ? 1.0 : 0.0;
      });
  return algorithms::fixed_order_column_sums(space, terms, count);
}

template <class ExecutionSpace, class Real>
Filtered finish_below(ExecutionSpace const& space, RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                      std::int64_t count, int n, Kokkos::Array<double, max_dim> const& box_half,
                      Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
                      Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> offset,
                      Matrix<typename ExecutionSpace::memory_space> terms, double t, double allowance);

// PAGANI-style memory filter: finishes the unfinished regions of smallest error, as few as
// leave at most `keep` unfinished, if their errors add up to at most `allowance`; then
// recomputes the compaction offsets. Returns what it finished (nothing if not allowed).
// Deterministic: the threshold comes from integer counts, the sums from fixed-order sums.
template <class ExecutionSpace, class Real>
Filtered filter_smallest(ExecutionSpace const& space,
                         RegionList<Real, typename ExecutionSpace::memory_space> const& list, std::int64_t count, int n,
                         Kokkos::Array<double, max_dim> const& box_half,
                         Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
                         Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> offset,
                         Matrix<typename ExecutionSpace::memory_space> terms, std::int64_t keep, double allowance) {
  auto const err = list.error;
  double max_err = 0;
  Kokkos::parallel_reduce(
      "parity::cubature::max_error", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r, double& m) {
        if (flag(r)) m = Kokkos::fmax(m, double(err(r)));
      },
      Kokkos::Max<double>(max_err));
  if (!(allowance > 0) || count_above<ExecutionSpace, Real>(space, err, flag, count, 0.0) <= keep) return {};
  double lo = 0, hi = max_err;  // above(lo) > keep >= above(hi)
  for (int k = 0; k < 200; ++k) {
    double const mid = 0.5 * (lo + hi);
    if (!(mid > lo && mid < hi)) break;
    if (count_above<ExecutionSpace, Real>(space, err, flag, count, mid) <= keep)
      hi = mid;
    else
      lo = mid;
  }
  return finish_below<ExecutionSpace, Real>(space, list, count, n, box_half, flag, offset, terms, hi, allowance);
}

// Finishes the unfinished regions whose error is at most t, if their errors add up to at most
// `allowance`, and recomputes the compaction offsets. Returns what it finished.
template <class ExecutionSpace, class Real>
Filtered finish_below(ExecutionSpace const& space, RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                      std::int64_t count, int n, Kokkos::Array<double, max_dim> const& box_half,
                      Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
                      Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> offset,
                      Matrix<typename ExecutionSpace::memory_space> terms, double t, double allowance) {
  auto const err = list.error;
  auto const sums = sums_where<ExecutionSpace, Real>(
      space, list, count, n, box_half, terms, KOKKOS_LAMBDA(std::int64_t r) { return flag(r) && double(err(r)) <= t; });
  if (sums[1] > allowance) return {};
  Kokkos::parallel_for(
      "parity::cubature::filter", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count), KOKKOS_LAMBDA(std::int64_t r) {
        if (flag(r) && double(err(r)) <= t) flag(r) = 0;
      });
  std::int64_t const bad = algorithms::compaction_offsets(space, flag, offset, count);
  Filtered out;
  out.regions = std::int64_t(sums[3] + 0.5);
  out.estimate = sums[0];
  out.error = sums[1];
  out.volume = sums[2];
  return out;
}

// Estimate, error and volume summed over the unfinished regions whose offset lies in [first, last).
template <class ExecutionSpace, class Real>
std::vector<double> flagged_range_sums(ExecutionSpace const& space,
                                       RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                                       std::int64_t count, int n, Kokkos::Array<double, max_dim> const& box_half,
                                       Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
                                       Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> offset,
                                       Matrix<typename ExecutionSpace::memory_space> terms, std::int64_t first,
                                       std::int64_t last) {
  return sums_where<ExecutionSpace, Real>(
      space, list, count, n, box_half, terms,
      KOKKOS_LAMBDA(std::int64_t r) { return flag(r) && offset(r) >= first && offset(r) < last; });
}

}  // namespace parity::cubature::detail
