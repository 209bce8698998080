// The noise laws of models/parity/sde/noise.hpp: the five-point law's moments against the normal's (by
// enumerating its 16 bit patterns), its frequencies as drawn from Philox (chi-square), every way of
// reading a stream (units in order from any start, one unit, one variate, the cursor) giving the
// same variates, and, on the nonlinear Josephson junction, five-point against Gaussian noise (the
// Ornstein-Uhlenbeck closed forms with five-point noise are in test_steppers.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/noise.hpp"
#include "parity/sde/solver.hpp"
#include "test_backend.hpp"

namespace parity_test_sde_noise {

using parity::test::ExecSpace;
using parity::test::MemSpace;
namespace sde = parity::sde;

// Weak order 2 asks E xi = E xi^3 = E xi^5 = 0, E xi^2 = 1, E xi^4 = 3 (16 equally likely patterns).
template <class Real>
void check_five_point_moments(double tol) {
  double m[7] = {0, 0, 0, 0, 0, 0, 0};
  for (std::uint32_t bits = 0; bits < 16; ++bits) {
    double const x = double(sde::five_point_variate<Real>(bits));
    for (int k = 1; k <= 6; ++k) m[k] += std::pow(x, k) / 16;
  }
  std::printf("  five-point<%s>: E xi^2 - 1 = %.1e, E xi^4 - 3 = %.1e, E xi^6 = %.3f (normal: 15)\n",
              sizeof(Real) == 8 ? "double" : "float", m[2] - 1, m[4] - 3, m[6]);
  EXPECT_EQ(m[1], 0.0);  // symmetric pairs cancel exactly
  EXPECT_EQ(m[3], 0.0);
  EXPECT_EQ(m[5], 0.0);
  EXPECT_NEAR(m[2], 1.0, tol);
  EXPECT_NEAR(m[4], 3.0, 3 * tol);
  EXPECT_NEAR(m[6], 12.423, 1e-3);  // differs from the normal's 15: only weak order 2
}

TEST(SdeNoise, FivePointLawHasTheNormalMomentsThroughTheFifth) {
  check_five_point_moments<double>(1e-15);
  check_five_point_moments<float>(2e-7);
}

// Variates n of `streams` streams read four ways: units in order from unit `first` (five-point:
// from inside a Philox block), variate_unit, variate_at and the cursor from variate `first_var`.
template <sde::NoiseLaw Law, class Real>
void check_reading_paths(int first, int first_var) {
  constexpr int per = sde::variates_per_unit<Law, Real>;
  int const streams = 32, units = 40, count = units * per;
  Kokkos::View<Real***, MemSpace> v("v", 4, streams, count);
  Kokkos::parallel_for(
      "parity::test::noise_reading_paths", Kokkos::RangePolicy<ExecSpace>(0, streams), KOKKOS_LAMBDA(int s) {
        sde::VariateUnits<Law, Real> seq(9, std::uint64_t(s), std::uint64_t(first));
        for (int u = 0; u < units; ++u) {
          Real z[per];
          seq.next(z);
          for (int k = 0; k < per; ++k) v(0, s, u * per + k) = z[k];
          sde::variate_unit<Law, Real>(9, std::uint64_t(s), std::uint64_t(first + u), z);
          for (int k = 0; k < per; ++k) v(1, s, u * per + k) = z[k];
        }
        for (int m = 0; m < count; ++m)
          v(2, s, m) = sde::variate_at<Law, Real>(9, std::uint64_t(s), std::uint64_t(first) * per + m);
        sde::VariateCursor<Law, Real> cur(9, std::uint64_t(s), std::uint64_t(first_var));
        for (int m = 0; m < count; ++m) v(3, s, m) = cur.next();
      });
  auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  int const shift = first_var - first * per;  // the cursor's variate m is variate m + shift of the others
  for (int s = 0; s < streams; ++s)
    for (int m = 0; m < count; ++m) {
      ASSERT_EQ(h(0, s, m), h(1, s, m)) << s << " " << m;
      ASSERT_EQ(h(0, s, m), h(2, s, m)) << s << " " << m;
      if (m - shift >= 0 && m - shift < count) ASSERT_EQ(h(3, s, m - shift), h(0, s, m)) << s << " " << m;
    }
}

TEST(SdeNoise, EveryReadingOfAStreamGivesTheSameVariates) {
  for (int first : {0, 1, 7, 8, 13}) {
    check_reading_paths<sde::NoiseLaw::five_point, float>(first, first * 4 + 3);
    check_reading_paths<sde::NoiseLaw::five_point, double>(first, first * 4 + 1);
    check_reading_paths<sde::NoiseLaw::gaussian, float>(first, first * 4 + 2);
    check_reading_paths<sde::NoiseLaw::gaussian, double>(first, first * 2 + 1);
  }
}

// 2^20 five-point variates from 1024 streams: frequencies of -b, -a, 0, a, b against 1/16, 1/4,
// 3/8, 1/4, 1/16 (chi-square, 4 degrees of freedom; 30 is exceeded with probability 5e-6).
// (A free function: nvcc's device lambdas may not sit in a test body.)
std::vector<long> five_point_counts(int streams, int units) {
  Kokkos::View<long[5], MemSpace> counts("counts");
  Kokkos::parallel_for(
      "parity::test::five_point_counts", Kokkos::RangePolicy<ExecSpace>(0, streams), KOKKOS_LAMBDA(int s) {
        sde::VariateUnits<sde::NoiseLaw::five_point, double> seq(3, std::uint64_t(s), 0);
        long c[5] = {0, 0, 0, 0, 0};
        for (int u = 0; u < units; ++u) {
          double z[4];
          seq.next(z);
          for (int k = 0; k < 4; ++k) {
            double const x = z[k];
            c[x < -1.5 ? 0 : x < -0.5 ? 1 : x < 0.5 ? 2 : x < 1.5 ? 3 : 4]++;
          }
        }
        for (int k = 0; k < 5; ++k) Kokkos::atomic_add(&counts(k), c[k]);
      });
  auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  return {h(0), h(1), h(2), h(3), h(4)};
}

TEST(SdeNoise, FivePointFrequenciesMatchTheLaw) {
  int const streams = 1024, units = 256;
  auto const h = five_point_counts(streams, units);
  double const N = double(streams) * units * 4, p[5] = {1.0 / 16, 0.25, 0.375, 0.25, 1.0 / 16};
  double chi2 = 0;
  for (int k = 0; k < 5; ++k) chi2 += std::pow(double(h[k]) - N * p[k], 2) / (N * p[k]);
  std::printf("  five-point frequencies over %.0f variates: chi^2 = %.2f (4 dof)\n", N, chi2);
  EXPECT_LT(chi2, 30.0);
  EXPECT_GT(chi2, 0.0);
}

// The driven junction is nonlinear and chaotic: <<v>> and the final variance of v with five-point
// noise agree with the Gaussian run's within their combined statistical errors (other random
// numbers, so only statistically). D = 0.1 so that the noise matters.
template <class Real>
void check_josephson_laws() {
  sde::JosephsonParams p;
  p.D = 0.1, p.paths = 1 << 12, p.periods = 50, p.transient_periods = 15, p.bins = 16;
  auto const g = sde::solve<ExecSpace, Real>(ExecSpace(), p);
  p.noise_law = "five-point";
  auto const f = sde::solve<ExecSpace, Real>(ExecSpace(), p);
  double const vg = g.ensemble.time_average[1], vf = f.ensemble.time_average[1];
  double const err = std::hypot(g.ensemble.time_average_error[1], f.ensemble.time_average_error[1]);
  std::size_t const last = std::size_t(g.ensemble.samples - 1) * 2 + 1;
  double const varg = g.ensemble.variance[last], varf = f.ensemble.variance[last];
  std::printf(
      "  josephson<%s> D = 0.1: <<v>> gaussian %.5f, five-point %.5f (combined error %.5f); var v %.4f / %.4f\n",
      sizeof(Real) == 8 ? "double" : "float", vg, vf, err, varg, varf);
  EXPECT_GT(std::abs(vg), 10 * g.ensemble.time_average_error[1]);  // a drift to compare
  EXPECT_NEAR(vf, vg, 4 * err);
  EXPECT_NEAR(varf, varg, 4 * varg * std::sqrt(4.0 / p.paths));
}

TEST(SdeNoise, FivePointJosephsonMatchesGaussianStatistically) {
  check_josephson_laws<double>();
  check_josephson_laws<float>();
}

}  // namespace parity_test_sde_noise
