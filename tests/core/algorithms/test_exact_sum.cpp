// algorithms::exact_sum: the same bits in any order of the terms, and the value of the exact sum of
// terms on a 2^-30 grid, whose sum an integer gives exactly; concurrent atomic additions on the
// backend (the OpenMP tests run at 1, 2 and 4 threads) give the counters of a serial addition.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "parity/algorithms/exact_sum.hpp"
#include "test_backend.hpp"

namespace parity_test_exact_sum {

namespace alg = parity::algorithms;
using parity::test::ExecSpace;
using parity::test::MemSpace;
using Counters = std::vector<alg::ExactSumCounter>;

Counters add_serially(std::vector<double> const& terms) {
  Counters total(alg::exact_sum_counters, 0);
  for (double x : terms) {
    alg::ExactSumCounter c[alg::exact_sum_counters];
    alg::exact_sum_limbs(x, c);
    for (int j = 0; j < alg::exact_sum_counters; ++j) total[std::size_t(j)] += c[j];
  }
  return total;
}

double value(Counters const& c) { return alg::exact_sum_value(c.data()); }

// k 2^-30 for integers |k| < 2^40: magnitudes up to 1024, fractions down to 2^-30.
std::vector<double> grid_terms(int n, std::int64_t& exact_k, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::int64_t> k(-(std::int64_t(1) << 40), std::int64_t(1) << 40);
  std::vector<double> terms;
  exact_k = 0;
  for (int i = 0; i < n; ++i) {
    std::int64_t const ki = k(gen);
    exact_k += ki;
    terms.push_back(std::ldexp(double(ki), -30));
  }
  return terms;
}

TEST(ExactSum, SameBitsInAnyOrder) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> terms;
  for (int i = 0; i < 100000; ++i) terms.push_back(u(gen) * std::ldexp(1.0, int(gen() % 40) - 20));
  auto const forward = add_serially(terms);
  std::reverse(terms.begin(), terms.end());
  auto const reverse = add_serially(terms);
  std::shuffle(terms.begin(), terms.end(), gen);
  auto const shuffled = add_serially(terms);
  EXPECT_EQ(forward, reverse);
  EXPECT_EQ(forward, shuffled);
  // A floating-point sum of the same terms does depend on the order here.
  double a = 0, b = 0;
  for (double x : terms) a += x;
  for (auto it = terms.rbegin(); it != terms.rend(); ++it) b += *it;
  EXPECT_NE(a, b);
  EXPECT_NEAR(value(forward), a, 1e-9 * std::abs(a) + 1e-6);
}

TEST(ExactSum, ValueOfTheExactSum) {
  for (unsigned seed : {1u, 2u, 3u}) {
    std::int64_t k = 0;
    auto const terms = grid_terms(200000, k, seed);
    double const exact = std::ldexp(double(k), -30);  // one rounding of the exact sum
    double const got = value(add_serially(terms));
    EXPECT_LE(std::abs(got - exact), std::abs(exact) * 0x1p-52) << "seed " << seed;
  }
}

TEST(ExactSum, SignsCancelExactly) {
  std::vector<double> terms = {0x1p40, -3.25, 1e-15, -0x1p40, 3.25, -1e-15, -0.75};
  EXPECT_EQ(value(add_serially(terms)), -0.75);
  EXPECT_EQ(value(add_serially({})), 0.0);
  EXPECT_EQ(value(add_serially({-5.0})), -5.0);
}

TEST(ExactSum, UnusableTermsGiveNaN) {
  EXPECT_TRUE(std::isnan(value(add_serially({1.0, std::nan(""), 2.0}))));
  EXPECT_TRUE(std::isnan(value(add_serially({1.0, HUGE_VAL}))));
  EXPECT_TRUE(std::isnan(value(add_serially({0x1p63}))));
}

// Every term added by its own atomic additions into one set of counters, all at once; a second set
// receives -2 times each term.
Counters add_concurrently(std::vector<double> const& terms) {
  Kokkos::View<alg::ExactSumCounter * [alg::exact_sum_counters], Kokkos::LayoutRight, MemSpace> counts("counts", 2);
  auto const d = parity::test::to_device(terms);
  Kokkos::parallel_for(
      "parity::test::exact_sum_add", Kokkos::RangePolicy<ExecSpace>(0, int(terms.size())), KOKKOS_LAMBDA(int i) {
        alg::exact_sum_atomic_add(&counts(0, 0), d(i));
        alg::exact_sum_atomic_add(&counts(1, 0), -2 * d(i));
      });
  auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  return Counters(h.data(), h.data() + h.size());
}

TEST(ExactSum, ConcurrentAtomicAdditionsMatchASerialSum) {
  std::int64_t k = 0;
  auto const terms = grid_terms(50000, k, 11);
  std::vector<double> doubled;
  for (double x : terms) doubled.push_back(-2 * x);
  auto const serial_s = add_serially(terms), serial_c = add_serially(doubled);
  auto const got = add_concurrently(terms);
  EXPECT_EQ(Counters(got.begin(), got.begin() + alg::exact_sum_counters), serial_s);
  EXPECT_EQ(Counters(got.begin() + alg::exact_sum_counters, got.end()), serial_c);
  EXPECT_EQ(value(serial_s), std::ldexp(double(k), -30));
}

}  // namespace parity_test_exact_sum
