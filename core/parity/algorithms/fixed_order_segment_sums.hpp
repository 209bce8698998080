#pragma once
// Column sums of consecutive segments of rows, each with the bits fixed_order_column_sums gives for
// that segment alone: the blocks of fixed_order_block rows start at each segment's first row, so a
// segment's sum does not depend on the segments around it, the backend or the thread count.
//
//   auto s = fixed_order_segment_sums(space, terms, begin, segments);
//   // s[j * columns + c] = sum of terms(begin(j) .. begin(j+1)-1, c), 0 for an empty segment
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "parity/algorithms/fixed_order_sum.hpp"

namespace parity::algorithms {

// `begin` holds segments + 1 nondecreasing row indices (begin(segments) is the row count).
template <class ExecutionSpace>
std::vector<double> fixed_order_segment_sums(ExecutionSpace const& space,
                                             ColumnMatrix<typename ExecutionSpace::memory_space> terms,
                                             Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> begin,
                                             int segments) {
  using Mem = typename ExecutionSpace::memory_space;
  using Index = Kokkos::View<std::int64_t*, Mem>;
  int const k = int(terms.extent(1));
  std::vector<double> out(std::size_t(segments) * k, 0.0);
  if (segments == 0) return out;
  std::int64_t longest = 0;
  Kokkos::parallel_reduce(
      "parity::algorithms::segment_longest", Kokkos::RangePolicy<ExecutionSpace>(space, 0, segments),
      KOKKOS_LAMBDA(int j, std::int64_t& m) {
        std::int64_t const len = begin(j + 1) - begin(j);
        if (len > m) m = len;
      },
      Kokkos::Max<std::int64_t>(longest));
  std::int64_t const block = fixed_order_block;
  auto rows = terms;
  Index at = begin;
  // Level by level, as fixed_order_column_sums: segment j's rows become its block sums, written
  // from next(j) on, until every segment holds at most one row.
  for (; longest > 1; longest = (longest + block - 1) / block) {
    Index next(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "parity::algorithms::segment_begin"),
               segments + 1);
    auto const from = at;
    std::int64_t total = 0;
    Kokkos::parallel_scan(
        "parity::algorithms::segment_blocks", Kokkos::RangePolicy<ExecutionSpace>(space, 0, segments + 1),
        KOKKOS_LAMBDA(int j, std::int64_t& update, bool final) {
          if (final) next(j) = update;
          if (j < segments) update += (from(j + 1) - from(j) + block - 1) / block;
        },
        total);
    ColumnMatrix<Mem> sums(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "parity::algorithms::segment_sums"),
                           total, k);
    auto const in = rows;
    Kokkos::parallel_for(
        "parity::algorithms::segment_block_sums", Kokkos::RangePolicy<ExecutionSpace>(space, 0, total * k),
        KOKKOS_LAMBDA(std::int64_t t) {
          std::int64_t const b = t / k;
          int const c = int(t % k);
          int lo = 0, hi = segments - 1;  // the last segment whose blocks start at or before b
          while (lo < hi) {
            int const mid = (lo + hi + 1) / 2;
            if (next(mid) <= b)
              lo = mid;
            else
              hi = mid - 1;
          }
          std::int64_t const first = from(lo) + (b - next(lo)) * block;
          std::int64_t const end = first + block < from(lo + 1) ? first + block : from(lo + 1);
          double s = 0;
          for (std::int64_t i = first; i < end; ++i) s += in(i, c);
          sums(b, c) = s;
        });
    rows = sums;
    at = next;
  }
  ColumnMatrix<Mem> last(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "parity::algorithms::segment_totals"),
                         segments, k);
  auto const in = rows;
  auto const from = at;
  Kokkos::parallel_for(
      "parity::algorithms::segment_totals", Kokkos::RangePolicy<ExecutionSpace>(space, 0, std::int64_t(segments) * k),
      KOKKOS_LAMBDA(std::int64_t t) {
        int const j = int(t / k), c = int(t % k);
        last(j, c) = from(j + 1) > from(j) ? in(from(j), c) : 0.0;
      });
  auto const host = Kokkos::create_mirror_view(Kokkos::HostSpace(), last);
  Kokkos::deep_copy(space, host, last);
  space.fence("parity::algorithms::fixed_order_segment_sums");
  for (int j = 0; j < segments; ++j)
    for (int c = 0; c < k; ++c) out[std::size_t(j) * k + c] = host(j, c);
  return out;
}

}  // namespace parity::algorithms
