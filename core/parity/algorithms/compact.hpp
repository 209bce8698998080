#pragma once
// Stream compaction: the slots of the flagged entries of a list in the compacted list, by an
// exclusive prefix sum of 0/1 flags. A flagged entry r goes to slot offset(r); the order of the
// flagged entries is kept, so the compacted list is the same on every backend.
//
//   std::int64_t kept = compaction_offsets(space, flag, offset, count);
//   // then, in a kernel over r: if (flag(r)) out(offset(r)) = in(r);
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace parity::algorithms {

// Writes offset(r) = flag(0) + ... + flag(r-1) for r < count (flags 0 or 1) and returns the number
// flagged. The integer scan is exact, so the offsets do not depend on the thread count.
template <class ExecutionSpace>
std::int64_t compaction_offsets(ExecutionSpace const& space,
                                Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
                                Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> offset,
                                std::int64_t count) {
  std::int64_t flagged = 0;
  Kokkos::parallel_scan(
      "parity::algorithms::compaction_offsets", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r, std::int64_t & update, bool final) {
        if (final) offset(r) = update;
        update += flag(r);
      },
      flagged);
  return flagged;
}

}  // namespace parity::algorithms
