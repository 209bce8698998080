// containers::heap_push / heap_pop inside a kernel, one heap per index: against a host multiset
// (std::multiset, the largest removed first) for interleaved pushes and pops with repeated keys,
// and the payload of every record stays with its key.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <vector>

#include "parity/containers/flat_max_heap.hpp"
#include "test_backend.hpp"

namespace parity_test_flat_max_heap {

namespace con = parity::containers;
using parity::test::ExecSpace;
using parity::test::MemSpace;

// Key of the j-th record pushed on heap h: repeats often (values 0..36), so ties are exercised.
KOKKOS_INLINE_FUNCTION double key_of(int h, int j) { return double((h * 131 + j * 37 + (j * j) % 11) % 37); }

constexpr int heaps = 64, pushes = 200, stride = 3;  // record: payload, key, payload again

// Pushes `pushes` records on each heap, popping one after every third push, then pops the rest;
// returns the popped records in order (a free function: nvcc takes no device lambda in a test body).
Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace> push_and_pop() {
  int const key = 1;
  Kokkos::View<double***, Kokkos::LayoutRight, MemSpace> storage("parity::test::heaps", heaps, pushes, stride);
  Kokkos::View<double***, Kokkos::LayoutRight, MemSpace> popped("parity::test::popped", heaps, pushes, stride);
  Kokkos::parallel_for(
      "parity::test::heap", Kokkos::RangePolicy<ExecSpace>(0, heaps), KOKKOS_LAMBDA(int h) {
        double* const heap = &storage(h, 0, 0);
        int size = 0, out = 0;
        for (int j = 0; j < pushes; ++j) {
          double* const slot = heap + size * stride;
          slot[0] = j;
          slot[1] = key_of(h, j);
          slot[2] = -j;
          con::heap_push(heap, stride, key, size);
          if (j % 3 == 2) con::heap_pop(heap, stride, key, size, &popped(h, out++, 0));  // two in, one out
        }
        while (size > 0) con::heap_pop(heap, stride, key, size, &popped(h, out++, 0));
      });
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), popped);
}

TEST(FlatMaxHeap, PopsInTheOrderOfAHostMultiset) {
  auto const got = push_and_pop();
  int mismatches = 0;
  for (int h = 0; h < heaps; ++h) {
    std::multiset<double, std::greater<>> reference;
    std::vector<double> want;
    for (int j = 0; j < pushes; ++j) {
      reference.insert(key_of(h, j));
      if (j % 3 == 2) {
        want.push_back(*reference.begin());
        reference.erase(reference.begin());
      }
    }
    for (double k : reference) want.push_back(k);
    ASSERT_EQ(int(want.size()), pushes);
    for (int i = 0; i < pushes; ++i) {
      int const j = int(got(h, i, 0));
      bool const ok = got(h, i, 1) == want[i] && key_of(h, j) == got(h, i, 1) && got(h, i, 2) == -double(j);
      mismatches += ok ? 0 : 1;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// One heap of `pushes` records pushed then popped: how often each record came out (100 for one
// that came out of order).
std::vector<int> times_seen(int pushes) {
  int const stride = 2, key = 0;
  Kokkos::View<int*, MemSpace> seen("parity::test::seen", pushes);
  Kokkos::View<float**, Kokkos::LayoutRight, MemSpace> storage("parity::test::heap", pushes, stride);
  Kokkos::parallel_for(
      "parity::test::heap_once", Kokkos::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(int) {
        float* const heap = &storage(0, 0);
        int size = 0;
        for (int j = 0; j < pushes; ++j) {
          heap[size * stride] = float((j * 7) % 13);
          heap[size * stride + 1] = float(j);
          con::heap_push(heap, stride, key, size);
        }
        float top[2];
        float last = 1e30f;
        while (size > 0) {
          con::heap_pop(heap, stride, key, size, top);
          seen(int(top[1])) += top[0] <= last ? 1 : 100;  // keys come out non-increasing
          last = top[0];
        }
      });
  return parity::test::to_host(seen);
}

TEST(FlatMaxHeap, EveryRecordComesOutOnce) { EXPECT_EQ(times_seen(500), std::vector<int>(500, 1)); }

}  // namespace parity_test_flat_max_heap
