// algorithms::compaction_offsets: the exclusive prefix sum of 0/1 flags against the host's, and
// the compacted list it gives keeps the flagged entries in order.
#include <gtest/gtest.h>

#include <vector>

#include "parity/algorithms/compact.hpp"
#include "parity/random/philox.hpp"
#include "test_backend.hpp"

namespace parity_test_compact {

namespace alg = parity::algorithms;
using parity::test::ExecSpace;
using parity::test::MemSpace;

TEST(Compact, OffsetsAreTheExclusivePrefixSumOfTheFlags) {
  for (std::int64_t count : {1, 7, 1000, 123457}) {
    for (double density : {0.0, 0.3, 1.0}) {
      parity::random::PhiloxStream<double> rng(11, std::uint64_t(count));
      std::vector<int> flags(count);
      for (auto& f : flags) f = rng.uniform() < density ? 1 : 0;
      auto const flag = parity::test::to_device(flags);
      Kokkos::View<std::int64_t*, MemSpace> offset("parity::test::offset", count);
      std::int64_t const kept = alg::compaction_offsets(ExecSpace(), flag, offset, count);
      auto const got = parity::test::to_host(offset);
      std::int64_t running = 0;
      bool all_equal = true;
      for (std::int64_t r = 0; r < count; ++r) {
        all_equal = all_equal && got[r] == running;
        running += flags[r];
      }
      EXPECT_TRUE(all_equal) << count << " entries, density " << density;
      EXPECT_EQ(kept, running) << count << " entries, density " << density;
    }
  }
}

// The flagged values of `in`, moved to their slots (kernels live in free functions: nvcc takes no
// device lambda in a test body, which is a private member function).
std::vector<double> compacted(std::vector<int> const& flags, std::vector<double> const& values) {
  std::int64_t const count = std::int64_t(flags.size());
  auto const flag = parity::test::to_device(flags);
  auto const in = parity::test::to_device(values);
  Kokkos::View<std::int64_t*, MemSpace> offset("parity::test::offset", count);
  std::int64_t const kept = alg::compaction_offsets(ExecSpace(), flag, offset, count);
  Kokkos::View<double*, MemSpace> out("parity::test::out", kept);
  Kokkos::parallel_for(
      "parity::test::compact", Kokkos::RangePolicy<ExecSpace>(0, count), KOKKOS_LAMBDA(std::int64_t r) {
        if (flag(r)) out(offset(r)) = in(r);
      });
  return parity::test::to_host(out);
}

TEST(Compact, CompactedListKeepsTheFlaggedEntriesInOrder) {
  std::int64_t const count = 5000;
  std::vector<int> flags(count);
  std::vector<double> values(count);
  for (std::int64_t r = 0; r < count; ++r) {
    flags[r] = (r * 7919) % 3 == 0 ? 1 : 0;
    values[r] = 0.5 * double(r);
  }
  std::vector<double> want;
  for (std::int64_t r = 0; r < count; ++r)
    if (flags[r]) want.push_back(values[r]);
  EXPECT_EQ(compacted(flags, values), want);
}

TEST(Compact, NothingToCompact) {
  Kokkos::View<int*, MemSpace> flag("parity::test::flag", 1);
  Kokkos::View<std::int64_t*, MemSpace> offset("parity::test::offset", 1);
  EXPECT_EQ(alg::compaction_offsets(ExecSpace(), flag, offset, 0), 0);
}

}  // namespace parity_test_compact
