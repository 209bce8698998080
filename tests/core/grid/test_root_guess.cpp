// grid::approximate_root, evaluated on the device, against std::pow in double: the relative error
// stays within the fits' bound (9.3e-4 / p + 1.9e-4) over u in [2^-120, 1] and powers 1..10, and the edge inputs
// (0, subnormal, 1, slightly above 1, NaN) give a finite root in [0, 1.001].
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "parity/grid/root_guess.hpp"
#include "test_backend.hpp"

namespace parity_test_root_guess {

using parity::test::ExecSpace;
using parity::test::MemSpace;

std::vector<float> device_roots(std::vector<float> const& us, float inv_p) {
  auto u = parity::test::to_device(us);
  Kokkos::View<float*, MemSpace> r("roots", us.size());
  Kokkos::parallel_for(
      "parity::test::approximate_root", Kokkos::RangePolicy<ExecSpace>(0, us.size()),
      KOKKOS_LAMBDA(int i) { r(i) = parity::grid::approximate_root(u(i), inv_p); });
  return parity::test::to_host(r);
}

TEST(RootGuess, WithinItsErrorBoundOfPow) {
  std::vector<float> us;
  for (int e = -120; e < 0; ++e)  // every octave, 64 points in each
    for (int k = 0; k < 64; ++k) us.push_back(std::ldexp(1.0f + float(k) / 64.0f, e));
  us.push_back(1.0f);
  for (double p : {1.0, 1.5, 2.0, 3.5, 7.0, 10.0}) {
    auto const r = device_roots(us, float(1.0 / p));
    double worst = 0;
    for (std::size_t i = 0; i < us.size(); ++i) {
      double const exact = std::pow(double(us[i]), 1.0 / p);
      if (exact < 1e-37) continue;  // the guess is clamped at 2^-126
      worst = std::max(worst, std::abs(double(r[i]) / exact - 1));
    }
    // The fits' bounds carried through: log2's 1.34e-3 scaled by ln 2 / p, 2^f's 1.9e-4, float rounding.
    double const bound = 0.6931 * 1.34e-3 / p + 1.9e-4 + 1e-6;
    EXPECT_LT(worst, bound) << "p = " << p;
    EXPECT_GT(worst, 1e-6) << "p = " << p << ": an approximation, not pow";  // the test sees the fits
  }
}

TEST(RootGuess, EdgeInputsGiveAFiniteRootInRange) {
  float const nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> us{0.0f, std::numeric_limits<float>::denorm_min(), 1e-40f, 1.0f, std::nextafter(1.0f, 2.0f), nan};
  for (double p : {1.0, 7.0}) {
    auto const r = device_roots(us, float(1.0 / p));
    for (std::size_t i = 0; i < us.size(); ++i) {
      EXPECT_TRUE(std::isfinite(r[i])) << i;
      EXPECT_GE(r[i], 0.0f) << i;
      EXPECT_LE(r[i], 1.001f) << i;
    }
    EXPECT_LT(r[0], 1e-5f);  // u = 0: a root near 0 (2^(-127/p), or 2^-126 at the clamp)
    EXPECT_NEAR(r[3], 1.0f, 1e-3f);
  }
}

}  // namespace parity_test_root_guess
