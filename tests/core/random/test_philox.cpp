// Counter-based random streams: the published Philox known answers, moments of the derived
// distributions, and identical numbers on the execution space under test and a host loop.
#include <gtest/gtest.h>

#include <cmath>

#include "parity/random/philox.hpp"
#include "test_backend.hpp"

namespace parity_test_philox {

using parity::random::PhiloxStream;
using parity::test::ExecSpace;
using parity::test::MemSpace;

TEST(Philox, KnownAnswers) {
  // Random123's published known-answer vectors for Philox4x32-10.
  auto const z = parity::random::philox_block(0, 0, 0);
  EXPECT_EQ(z.v[0], 0x6627e8d5u);
  EXPECT_EQ(z.v[1], 0xe169c58du);
  EXPECT_EQ(z.v[2], 0xbc57ac4cu);
  EXPECT_EQ(z.v[3], 0x9b00dbd8u);
  // ctr = (243f6a88 85a308d3 13198a2e 03707344), key = (a4093822 299f31d0).
  auto const p = parity::random::philox_block(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3243f6a88ull);
  EXPECT_EQ(p.v[0], 0xd16cfe09u);
  EXPECT_EQ(p.v[1], 0x94fdccebu);
  EXPECT_EQ(p.v[2], 0x5001e420u);
  EXPECT_EQ(p.v[3], 0x24126ea1u);
}

// Per stream s, draws k uniforms and normals; layout [s * per_stream + k].
template <class Real>
void draw_on_device(std::uint64_t seed, int streams, int per_stream, std::vector<Real>& uniforms,
                    std::vector<Real>& normals) {
  Kokkos::View<Real*, MemSpace> u("u", streams * per_stream), z("z", streams * per_stream);
  Kokkos::parallel_for(
      "parity::test::philox_draw", Kokkos::RangePolicy<ExecSpace>(0, streams), KOKKOS_LAMBDA(int s) {
        PhiloxStream<Real> a(seed, s), b(seed, s + streams);
        for (int k = 0; k < per_stream; ++k) {
          u(s * per_stream + k) = a.uniform();
          z(s * per_stream + k) = b.normal();
        }
      });
  uniforms = parity::test::to_host(u);
  normals = parity::test::to_host(z);
}

template <class Real>
void check_same_numbers_as_host() {
  int const streams = 1000, per = 7;
  std::vector<Real> u, z;
  draw_on_device<Real>(42, streams, per, u, z);
  for (int s = 0; s < streams; ++s) {
    PhiloxStream<Real> a(42, s), b(42, s + streams);
    for (int k = 0; k < per; ++k) {
      ASSERT_EQ(u[s * per + k], a.uniform());  // bitwise: integer arithmetic and one exact scaling
      // Box-Muller uses log/cos/sin, whose last bits may differ between device and host libm.
      Real const zh = b.normal();
      ASSERT_NEAR(z[s * per + k], zh, 8 * std::numeric_limits<Real>::epsilon() * (1 + std::abs(zh)));
    }
  }
}

TEST(Philox, SameNumbersOnDeviceAndHost) {
  check_same_numbers_as_host<double>();
  check_same_numbers_as_host<float>();
}

template <class Real>
void check_moments() {
  int const streams = 4096, per = 256;
  std::vector<Real> u, z;
  draw_on_device<Real>(2026, streams, per, u, z);
  double const n = double(u.size());
  double mu = 0, mu2 = 0, mz = 0, mz2 = 0, mz3 = 0, mz4 = 0;
  Real umin = 1, umax = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    mu += u[i];
    mu2 += double(u[i]) * u[i];
    umin = std::min(umin, u[i]);
    umax = std::max(umax, u[i]);
    double const x = z[i];
    mz += x;
    mz2 += x * x;
    mz3 += x * x * x;
    mz4 += x * x * x * x;
  }
  mu /= n;
  mu2 /= n;
  mz /= n;
  mz2 /= n;
  mz3 /= n;
  mz4 /= n;
  // Five standard errors for each estimated moment (n ~ 1e6).
  double const se = 5 / std::sqrt(n);
  EXPECT_NEAR(mu, 0.5, se * std::sqrt(1.0 / 12));
  EXPECT_NEAR(mu2 - mu * mu, 1.0 / 12, se * std::sqrt(1.0 / 180));
  EXPECT_GT(umin, Real(0));
  EXPECT_LT(umax, Real(1));
  EXPECT_NEAR(mz, 0.0, se);
  EXPECT_NEAR(mz2, 1.0, se * std::sqrt(2.0));
  EXPECT_NEAR(mz3, 0.0, se * std::sqrt(15.0));
  EXPECT_NEAR(mz4, 3.0, se * std::sqrt(96.0));
}

TEST(Philox, UniformAndNormalMoments) {
  check_moments<double>();
  check_moments<float>();
}

TEST(Philox, StreamsAreDistinct) {
  PhiloxStream<double> a(1, 0), b(1, 1), c(2, 0);
  double const x = a.uniform(), y = b.uniform(), w = c.uniform();
  EXPECT_NE(x, y);
  EXPECT_NE(x, w);
  // A stream restarted at block 1 continues where the first 4 words (2 doubles) ended.
  PhiloxStream<double> a2(1, 0);
  a2.uniform();
  a2.uniform();
  PhiloxStream<double> a3(1, 0, 1);
  EXPECT_EQ(a2.uniform(), a3.uniform());
}

// Frequencies of a two-state Markov chain simulated on the device, one chain per thread.
std::vector<double> markov_frequencies(int chains, int steps) {
  Kokkos::View<double**, MemSpace> P("P", 2, 2);
  auto Ph = Kokkos::create_mirror_view(P);
  Ph(0, 0) = 0.9;
  Ph(0, 1) = 0.1;
  Ph(1, 0) = 0.3;
  Ph(1, 1) = 0.7;
  Kokkos::deep_copy(P, Ph);
  Kokkos::View<long*, MemSpace> in_state1("in1", chains);
  Kokkos::parallel_for(
      "parity::test::markov", Kokkos::RangePolicy<ExecSpace>(0, chains), KOKKOS_LAMBDA(int c) {
        PhiloxStream<double> rng(99, c);
        int s = 0;
        long count = 0;
        for (int t = 0; t < steps; ++t) {
          s = rng.markov_next(Kokkos::subview(P, s, Kokkos::ALL), 2);
          count += s;
        }
        in_state1(c) = count;
      });
  long total = 0;
  Kokkos::parallel_reduce(
      "parity::test::markov_sum", Kokkos::RangePolicy<ExecSpace>(0, chains),
      KOKKOS_LAMBDA(int c, long& acc) { acc += in_state1(c); }, total);
  double const f1 = double(total) / (double(chains) * steps);
  return {1 - f1, f1};
}

TEST(Philox, MarkovChainReachesStationaryDistribution) {
  // Stationary distribution of [[0.9, 0.1], [0.3, 0.7]] is (0.75, 0.25).
  auto const f = markov_frequencies(2000, 1000);
  EXPECT_NEAR(f[1], 0.25, 0.005);
}

TEST(Philox, BernoulliFrequency) {
  PhiloxStream<double> rng(5, 3);
  int hits = 0, n = 200000;
  for (int i = 0; i < n; ++i) hits += rng.bernoulli(0.3);
  EXPECT_NEAR(double(hits) / n, 0.3, 5 * std::sqrt(0.21 / n));
}

}  // namespace parity_test_philox
