// The roofline probes do the work they claim: every copied element arrives, rates are positive.
#include <gtest/gtest.h>

#include "perf/probe/probe.hpp"
#include "test_backend.hpp"

namespace parity_test_probe {

TEST(Probe, CopyMovesEveryElementAndRatesArePositive) {
  std::int64_t const n = 1 << 16;
  double checksum = 0;
  double const bw = parity::probe::copy_bandwidth(parity::test::ExecSpace(), n, 1, checksum);
  // sum over i < n of (i mod 1024) = (n / 1024) * (1023 * 1024 / 2)
  EXPECT_EQ(checksum, double(n / 1024) * (1023.0 * 1024.0 / 2.0));
  EXPECT_GT(bw, 0.0);
  double fma_check = 0;
  EXPECT_GT(parity::probe::fma_rate<double>(parity::test::ExecSpace(), 1024, 64, 1, fma_check), 0.0);
  EXPECT_GT(fma_check, 0.0);
}

}  // namespace parity_test_probe
