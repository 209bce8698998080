// Fenced phase timing: phases accumulate by name, count calls, and include the device work.
#include <gtest/gtest.h>

#include "parity/timing/scoped_phase.hpp"
#include "test_backend.hpp"

namespace parity_test_timing {

using parity::test::ExecSpace;

double busy_kernel(int n) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "parity::test::busy", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int i, double& acc) {
        double x = i;
        for (int k = 0; k < 200; ++k) x = Kokkos::sqrt(x + 1.0);
        acc += x;
      },
      sum);
  return sum;
}

TEST(ScopedPhase, AccumulatesPerName) {
  parity::run::PhaseTimes times;
  ExecSpace space;
  for (int r = 0; r < 3; ++r) {
    parity::timing::ScopedPhase phase(space, times, "work");
    EXPECT_GT(busy_kernel(100000), 0.0);
  }
  { parity::timing::ScopedPhase phase(space, times, "other"); }
  ASSERT_EQ(times.phases().size(), 2u);
  EXPECT_EQ(times.phases()[0].name, "work");
  EXPECT_EQ(times.phases()[0].calls, 3);
  EXPECT_GT(times.seconds("work"), 0.0);
  EXPECT_GE(times.seconds("other"), 0.0);
  EXPECT_DOUBLE_EQ(times.total(), times.seconds("work") + times.seconds("other"));
}

TEST(OptionalPhase, TimesOnlyWithATimer) {
  parity::run::PhaseTimes times;
  ExecSpace space;
  {
    parity::timing::OptionalPhase<ExecSpace> phase(space, &times, "timed");
    EXPECT_GT(busy_kernel(100000), 0.0);
  }
  {
    parity::timing::OptionalPhase<ExecSpace> phase(space, nullptr, "untimed");
    EXPECT_GT(busy_kernel(1000), 0.0);
  }
  ASSERT_EQ(times.phases().size(), 1u);
  EXPECT_EQ(times.phases()[0].name, "timed");
  EXPECT_EQ(times.phases()[0].calls, 1);
  EXPECT_GT(times.seconds("timed"), 0.0);
}

}  // namespace parity_test_timing
