// Gauss-Hermite rules against closed forms: the moments of the standard normal, E[cos Z],
// the textbook 2- and 3-point rules, and the degree at which exactness must stop.
#include <gtest/gtest.h>

#include <cmath>

#include "parity/quadrature/gauss_hermite.hpp"
#include "test_backend.hpp"

namespace parity_test_gauss_hermite {

using parity::quadrature::gauss_hermite;

double moment(parity::quadrature::GaussHermiteRule const& r, int k) {
  double s = 0;
  for (std::size_t i = 0; i < r.nodes.size(); ++i) s += r.weights[i] * std::pow(r.nodes[i], k);
  return s;
}

// E[Z^k] for Z ~ N(0,1): 0 for odd k, (k-1)!! for even k.
double normal_moment(int k) {
  if (k % 2) return 0.0;
  double m = 1;
  for (int j = k - 1; j > 1; j -= 2) m *= j;
  return m;
}

TEST(GaussHermite, SmallRulesMatchTextbook) {
  auto const r2 = gauss_hermite(2);
  EXPECT_NEAR(r2.nodes[1], 1.0, 1e-15);
  EXPECT_NEAR(r2.weights[0], 0.5, 1e-15);
  auto const r3 = gauss_hermite(3);
  EXPECT_NEAR(r3.nodes[2], std::sqrt(3.0), 1e-15);
  EXPECT_NEAR(r3.nodes[1], 0.0, 1e-300);
  EXPECT_NEAR(r3.weights[1], 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(r3.weights[2], 1.0 / 6.0, 1e-15);
}

TEST(GaussHermite, NormalMomentsExactUpToDegree2nMinus1) {
  for (int n : {1, 2, 5, 8, 16, 32, 33, 48, 64}) {
    auto const r = gauss_hermite(n);
    ASSERT_EQ(int(r.nodes.size()), n);
    for (int k = 0; k <= 2 * n - 1; ++k) {
      double const exact = normal_moment(k);
      double const tol = exact == 0 ? 1e-13 * normal_moment(k + 1) : 1e-13 * exact;
      EXPECT_NEAR(moment(r, k), exact, std::max(tol, 1e-14)) << "n = " << n << ", k = " << k;
    }
    // Exactness must end at degree 2n, where the remainder is the squared norm of the monic
    // Hermite polynomial He_n: E[Z^{2n}] - Q[Z^{2n}] = n! (checked where double resolves it).
    if (n <= 16) {
      double const deficit = normal_moment(2 * n) - moment(r, 2 * n);
      EXPECT_NEAR(deficit / std::tgamma(n + 1.0), 1.0, 1e-6) << "n = " << n;
    }
  }
}

TEST(GaussHermite, SmoothExpectationsConverge) {
  // E[cos Z] = exp(-1/2); E[exp(Z)] = exp(1/2).
  for (int n : {20, 32, 64, 100}) {
    auto const r = gauss_hermite(n);
    double c = 0, e = 0;
    for (int i = 0; i < n; ++i) {
      c += r.weights[i] * std::cos(r.nodes[i]);
      e += r.weights[i] * std::exp(r.nodes[i]);
    }
    EXPECT_NEAR(c, std::exp(-0.5), 2e-15) << n;
    EXPECT_NEAR(e, std::exp(0.5), 4e-15) << n;
  }
}

TEST(GaussHermite, RejectsBadSizes) {
  EXPECT_THROW(gauss_hermite(0), parity::InvalidInput);
  EXPECT_THROW(gauss_hermite(201), parity::InvalidInput);
}

double device_expectation(int n) {
  auto const rule = parity::quadrature::to_device<double, parity::test::MemSpace>(gauss_hermite(n));
  double s = 0;
  // E[(1 + 2 Z)^2] = 1 + 4 = 5, summed in a device reduction.
  Kokkos::parallel_reduce(
      "parity::test::gh_device", Kokkos::RangePolicy<parity::test::ExecSpace>(0, rule.size()),
      KOKKOS_LAMBDA(int i, double& acc) {
        double const x = 1 + 2 * rule.nodes(i);
        acc += rule.weights(i) * x * x;
      },
      s);
  return s;
}

TEST(GaussHermite, DeviceCopy) { EXPECT_NEAR(device_expectation(32), 5.0, 1e-13); }

}  // namespace parity_test_gauss_hermite
