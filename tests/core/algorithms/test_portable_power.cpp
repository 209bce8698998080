// algorithms::portable_pow and portable_log: close to long double std::pow and std::log over the
// normal range (pow for several exponents), evaluated in a kernel on the test backend; the same
// bits on the host; the special values as std::pow and std::log give them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "parity/algorithms/portable_power.hpp"
#include "parity/random/philox.hpp"
#include "same_bits.hpp"
#include "test_backend.hpp"

namespace parity_test_portable_power {

namespace alg = parity::algorithms;
using parity::test::ExecSpace;
using parity::test::MemSpace;

using parity::test::same_bits;

// x^beta for every pair (x, beta), computed in a kernel.
std::vector<double> on_device(std::vector<double> const& xs, std::vector<double> const& betas) {
  std::size_t const nx = xs.size(), nb = betas.size();
  Kokkos::View<double*, MemSpace> x("parity::test::x", nx), beta("parity::test::beta", nb),
      out("parity::test::power", nx * nb);
  auto xh = Kokkos::create_mirror_view(x);
  auto bh = Kokkos::create_mirror_view(beta);
  for (std::size_t i = 0; i < nx; ++i) xh(i) = xs[i];
  for (std::size_t i = 0; i < nb; ++i) bh(i) = betas[i];
  Kokkos::deep_copy(x, xh);
  Kokkos::deep_copy(beta, bh);
  Kokkos::parallel_for(
      "parity::test::portable_pow", Kokkos::RangePolicy<ExecSpace>(0, nx * nb),
      KOKKOS_LAMBDA(std::size_t k) { out(k) = alg::portable_pow(x(k / nb), beta(k % nb)); });
  auto oh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return std::vector<double>(oh.data(), oh.data() + nx * nb);
}

TEST(PortablePower, CloseToPowOverTheNormalRange) {
  // Log-uniform x from 1e-300 to 1e300, the ends of the normal range, powers of two and values
  // next to them and to sqrt(1/2) and sqrt(2), where the reduction switches.
  std::vector<double> xs;
  parity::random::PhiloxStream<double> rng(11, 0);
  for (int i = 0; i < 200000; ++i) xs.push_back(std::pow(10.0, 600 * rng.uniform() - 300));
  for (double x : {std::numeric_limits<double>::min(), std::numeric_limits<double>::max(), 1.0, 2.0, 0.5, 1e-308,
                   std::sqrt(0.5), std::sqrt(2.0), 3.0, 1e-20, 7e250})
    for (double v : {x, std::nextafter(x, 0.0), std::nextafter(x, 2 * x)})
      if (std::isfinite(v) && v >= std::numeric_limits<double>::min()) xs.push_back(v);
  std::vector<double> const betas = {1e-6, 1e-3, 0.1, 0.25, 1.0 / 3, 0.5, 0.75, 0.9, 0.999999, 1 - 0x1p-53};
  auto const got = on_device(xs, betas);
  double worst = 0;
  for (std::size_t i = 0; i < xs.size(); ++i)
    for (std::size_t b = 0; b < betas.size(); ++b) {
      long double const exact = std::pow((long double)xs[i], (long double)betas[b]);
      double const g = got[i * betas.size() + b];
      double const relative = double(std::fabs((long double)g - exact) / exact);
      worst = std::max(worst, relative);
      ASSERT_LE(relative, 1e-15) << "x = " << xs[i] << ", beta = " << betas[b];
      // A host call: the same operations, so the same bits.
      ASSERT_TRUE(same_bits(g, alg::portable_pow(xs[i], betas[b])));
    }
  std::ostringstream worst_text;
  worst_text << worst;
  RecordProperty("worst_relative_error", worst_text.str());
}

TEST(PortablePower, SubnormalArguments) {
  std::vector<double> const xs = {std::numeric_limits<double>::denorm_min(), 1e-310, 3e-320,
                                  std::nextafter(std::numeric_limits<double>::min(), 0.0)};
  std::vector<double> const betas = {0.01, 0.5, 0.75};  // results in the normal range
  auto const got = on_device(xs, betas);
  for (std::size_t i = 0; i < xs.size(); ++i)
    for (std::size_t b = 0; b < betas.size(); ++b) {
      long double const exact = std::pow((long double)xs[i], (long double)betas[b]);
      EXPECT_LE(double(std::fabs((long double)got[i * betas.size() + b] - exact) / exact), 1e-15);
    }
}

TEST(PortablePower, SpecialValuesAsPow) {
  double const inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> const xs = {0.0, -0.0, inf, nan, -1.0, 0.3, 1.0, 1e300};
  std::vector<double> const betas = {0.0, 1.0, 0.5};
  auto const got = on_device(xs, betas);
  for (std::size_t i = 0; i < xs.size(); ++i)
    for (std::size_t b = 0; b < betas.size(); ++b) {
      double const g = got[i * betas.size() + b], want = std::pow(xs[i], betas[b]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(g)) << xs[i] << "^" << betas[b];
      } else if (betas[b] == 0 || betas[b] == 1 || !std::isfinite(want) || want == 0) {
        // Exact where pow is: beta 0 and 1, x = 0 (+0 also for -0) and x = inf.
        EXPECT_TRUE(same_bits(g, want)) << xs[i] << "^" << betas[b];
      }
    }
  EXPECT_EQ(alg::portable_pow(1.0, 0.75), 1.0);
  EXPECT_EQ(alg::portable_pow(4.0, 0.5), 2.0);
}

// ln x for every x, computed in a kernel.
std::vector<double> logs_on_device(std::vector<double> const& xs) {
  Kokkos::View<double*, MemSpace> x("parity::test::x", xs.size()), out("parity::test::log", xs.size());
  auto xh = Kokkos::create_mirror_view(x);
  for (std::size_t i = 0; i < xs.size(); ++i) xh(i) = xs[i];
  Kokkos::deep_copy(x, xh);
  Kokkos::parallel_for(
      "parity::test::portable_log", Kokkos::RangePolicy<ExecSpace>(0, xs.size()),
      KOKKOS_LAMBDA(std::size_t k) { out(k) = alg::portable_log(x(k)); });
  auto oh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return std::vector<double>(oh.data(), oh.data() + xs.size());
}

TEST(PortableLog, CloseToLogOverTheWholeRange) {
  // Log-uniform x over the normal range, subnormals, and x next to 1 (where ln x is near 0 and a
  // relative error shows most), next to powers of two and to sqrt(1/2), sqrt(2).
  std::vector<double> xs;
  parity::random::PhiloxStream<double> rng(12, 0);
  for (int i = 0; i < 200000; ++i) xs.push_back(std::pow(10.0, 616 * rng.uniform() - 308));
  for (int i = 0; i < 20000; ++i) xs.push_back(1 + (rng.uniform() - 0.5) * 1e-3);
  for (double x : {1.0, 2.0, 0.5, 4.0, std::sqrt(0.5), std::sqrt(2.0), std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::max(), 1e-310, std::numeric_limits<double>::denorm_min()})
    for (double v : {x, std::nextafter(x, 0.0), std::nextafter(x, 2 * x)})
      if (std::isfinite(v) && v > 0) xs.push_back(v);
  auto const got = logs_on_device(xs);
  double worst = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    long double const exact = std::log((long double)xs[i]);
    if (exact == 0) {
      EXPECT_EQ(got[i], 0.0);
      continue;
    }
    double const relative = double(std::fabs(((long double)got[i] - exact) / exact));
    worst = std::max(worst, relative);
    ASSERT_LE(relative, 5e-16) << "x = " << xs[i];
    ASSERT_TRUE(same_bits(got[i], alg::portable_log(xs[i])));
  }
  std::ostringstream worst_text;
  worst_text << worst;
  RecordProperty("worst_relative_error", worst_text.str());
  double const inf = std::numeric_limits<double>::infinity();
  auto const special = logs_on_device({0.0, -0.0, inf, -1.0, std::numeric_limits<double>::quiet_NaN()});
  EXPECT_EQ(special[0], -inf);
  EXPECT_EQ(special[1], -inf);
  EXPECT_EQ(special[2], inf);
  EXPECT_TRUE(std::isnan(special[3]));
  EXPECT_TRUE(std::isnan(special[4]));
}

}  // namespace parity_test_portable_power
