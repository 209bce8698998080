// algorithms::fixed_order_column_sums: the same bits as the blocked order computed on the host
// (so the same for every thread count: the OpenMP tests run at 1, 2 and 4 threads), close to a
// plain sum, and the same with and without caller scratch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/random/philox.hpp"
#include "same_bits.hpp"
#include "test_backend.hpp"

namespace parity_test_fixed_order_sum {

namespace alg = parity::algorithms;
using parity::test::ExecSpace;
using parity::test::MemSpace;

using parity::test::same_bits;

// Terms of mixed sign and magnitude (1e-8 .. 1e8), so that a different order rounds differently.
std::vector<double> random_terms(std::int64_t rows, int k) {
  parity::random::PhiloxStream<double> rng(7, std::uint64_t(rows));
  std::vector<double> t(std::size_t(rows) * k);
  for (auto& x : t) x = (rng.uniform() - 0.4) * std::pow(10.0, 16 * rng.uniform() - 8);
  return t;
}

// The documented order, on the host: blocks of 256 left to right, level by level.
std::vector<double> host_blocked(std::vector<double> t, std::int64_t rows, int k) {
  std::int64_t const block = alg::fixed_order_block;
  while (rows > 1) {
    std::int64_t const blocks = (rows + block - 1) / block;
    std::vector<double> next(std::size_t(blocks) * k);
    for (std::int64_t b = 0; b < blocks; ++b)
      for (int c = 0; c < k; ++c) {
        double s = 0;
        for (std::int64_t i = b * block; i < std::min(rows, (b + 1) * block); ++i) s += t[i * k + c];
        next[b * k + c] = s;
      }
    t = next;
    rows = blocks;
  }
  return std::vector<double>(t.begin(), t.begin() + k);
}

alg::ColumnMatrix<MemSpace> to_device(std::vector<double> const& t, std::int64_t capacity, int k) {
  alg::ColumnMatrix<MemSpace> d("parity::test::terms", capacity, k);
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < t.size(); ++i) h.data()[i] = t[i];
  Kokkos::deep_copy(d, h);
  return d;
}

TEST(FixedOrderSum, SameBitsAsTheBlockedOrderOnTheHost) {
  // One level, exactly one and two blocks, and three levels (70000 -> 274 -> 2 -> 1); 37 columns
  // take three of a GPU's column groups, the last one partial.
  for (int k : {3, 37})
    for (std::int64_t rows : {1, 2, 255, 256, 257, 513, 70000}) {
      auto const t = random_terms(rows, k);
      auto const terms = to_device(t, rows + 5, k);  // spare rows beyond `rows` are not summed
      auto const got = alg::fixed_order_column_sums(ExecSpace(), terms, rows);
      auto const want = host_blocked(t, rows, k);
      ASSERT_EQ(got.size(), std::size_t(k));
      for (int c = 0; c < k; ++c) {
        EXPECT_TRUE(same_bits(got[c], want[c])) << rows << " rows, column " << c << ": " << got[c] << " vs " << want[c];
        double plain = 0, magnitude = 0;
        for (std::int64_t i = 0; i < rows; ++i) {
          plain += t[i * k + c];
          magnitude += std::abs(t[i * k + c]);
        }
        EXPECT_NEAR(got[c], plain, 1e-13 * magnitude) << rows << " rows, column " << c;
      }
    }
}

TEST(FixedOrderSum, ScratchFromTheCallerGivesTheSameBits) {
  int const k = 4;
  std::int64_t const rows = 100000;
  EXPECT_EQ(alg::fixed_order_scratch_size(rows, k), (391 + 2 + 1) * k);  // 100000 -> 391 -> 2 -> 1
  EXPECT_EQ(alg::fixed_order_scratch_size(1, k), 0);
  auto const t = random_terms(rows, k);
  auto const terms = to_device(t, rows, k);
  Kokkos::View<double*, MemSpace> scratch("parity::test::scratch", alg::fixed_order_scratch_size(rows, k));
  auto const with = alg::fixed_order_column_sums(ExecSpace(), terms, rows, scratch);
  auto const without = alg::fixed_order_column_sums(ExecSpace(), terms, rows);
  for (int c = 0; c < k; ++c) EXPECT_TRUE(same_bits(with[c], without[c])) << c;
}

TEST(FixedOrderSum, NoRowsSumToZero) {
  alg::ColumnMatrix<MemSpace> terms("parity::test::terms", 4, 2);
  auto const s = alg::fixed_order_column_sums(ExecSpace(), terms, 0);
  EXPECT_EQ(s, std::vector<double>(2, 0.0));
}

TEST(FixedOrderSum, SumsLeftOnTheDeviceAreTheSameBits) {
  // fixed_order_column_sums_on_device writes the blocked order's bits at the given offset and
  // leaves the rest of the output alone; no rows write zeros. With the caller's scratch and
  // without (a temporary one). The last levels run in one team where they fit its scratch: from
  // the start (3 columns up to 1,300 rows), after one level (3 columns of 70,000 rows, 900 of 600)
  // or two (20 columns of 70,000 rows: 274 x 20 does not fit, 2 x 20 does), or not at all (2,500
  // columns: one row left, copied).
  std::int64_t const offset = 2;
  struct Case {
    int k;
    std::int64_t rows;
  };
  for (Case const cs : {Case{3, 0}, Case{3, 1}, Case{3, 256}, Case{3, 257}, Case{3, 1300}, Case{3, 70000},
                        Case{900, 600}, Case{20, 70000}, Case{2500, 1}, Case{2500, 300}})
    for (bool given : {true, false}) {
      int const k = cs.k;
      std::int64_t const rows = cs.rows;
      Kokkos::View<double*, MemSpace> out("parity::test::sums", k + 4);
      Kokkos::deep_copy(out, -7.0);
      auto const t = random_terms(rows, k);
      auto const terms = to_device(t, rows + 1, k);
      Kokkos::View<double*, MemSpace> scratch;
      if (given)
        scratch = Kokkos::View<double*, MemSpace>("parity::test::scratch",
                                                  std::max<std::int64_t>(1, alg::fixed_order_scratch_size(rows, k)));
      alg::fixed_order_column_sums_on_device(ExecSpace(), terms, rows, scratch, out, offset);
      auto const want = rows == 0 ? std::vector<double>(k, 0.0) : host_blocked(t, rows, k);
      auto const got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      for (int c = 0; c < k; ++c) {
        double const expected = want[c];
        ASSERT_TRUE(same_bits(got(offset + c), expected))
            << k << " columns, " << rows << " rows, column " << c << ": " << got(offset + c) << " vs " << expected;
      }
      for (std::int64_t i : {0, 1, k + 2, k + 3}) EXPECT_EQ(got(i), -7.0) << rows << " rows, slot " << i;
    }
}

}  // namespace parity_test_fixed_order_sum
