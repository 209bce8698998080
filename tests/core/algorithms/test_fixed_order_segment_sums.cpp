// algorithms::fixed_order_segment_sums: every segment's sums are the bits fixed_order_column_sums
// gives for that segment alone, whatever segments lie around it (empty ones among them).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parity/algorithms/fixed_order_segment_sums.hpp"
#include "parity/random/philox.hpp"
#include "same_bits.hpp"
#include "test_backend.hpp"

namespace parity_test_fixed_order_segment_sums {

namespace alg = parity::algorithms;
using parity::test::ExecSpace;
using parity::test::MemSpace;

using parity::test::same_bits;

alg::ColumnMatrix<MemSpace> matrix(std::vector<double> const& t, std::int64_t rows, int k) {
  alg::ColumnMatrix<MemSpace> d("parity::test::terms", rows, k);
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < t.size(); ++i) h.data()[i] = t[i];
  Kokkos::deep_copy(d, h);
  return d;
}

TEST(FixedOrderSegmentSums, EachSegmentAsIfAlone) {
  int const k = 3;
  // Empty segments first, between and last; lengths of one, one and two blocks, and one of three
  // levels (70000 rows).
  std::vector<std::int64_t> const lengths{0, 1, 0, 255, 256, 257, 0, 70000, 3, 513, 0};
  std::vector<std::int64_t> begin{0};
  for (auto len : lengths) begin.push_back(begin.back() + len);
  std::int64_t const rows = begin.back();
  parity::random::PhiloxStream<double> rng(11, 3);
  std::vector<double> t(std::size_t(rows) * k);
  for (auto& x : t) x = (rng.uniform() - 0.4) * std::pow(10.0, 16 * rng.uniform() - 8);
  auto const terms = matrix(t, rows, k);
  Kokkos::View<std::int64_t*, MemSpace> b("parity::test::begin", begin.size());
  auto hb = Kokkos::create_mirror_view(b);
  for (std::size_t j = 0; j < begin.size(); ++j) hb(j) = begin[j];
  Kokkos::deep_copy(b, hb);
  int const segments = int(lengths.size());
  auto const got = alg::fixed_order_segment_sums(ExecSpace(), terms, b, segments);
  ASSERT_EQ(got.size(), std::size_t(segments * k));
  for (int j = 0; j < segments; ++j) {
    std::vector<double> piece(t.begin() + begin[j] * k, t.begin() + begin[j + 1] * k);
    auto const alone =
        alg::fixed_order_column_sums(ExecSpace(), matrix(piece, std::max<std::int64_t>(lengths[j], 1), k), lengths[j]);
    for (int c = 0; c < k; ++c) {
      EXPECT_TRUE(same_bits(got[j * k + c], alone[c])) << "segment " << j << " (" << lengths[j] << " rows), column "
                                                       << c << ": " << got[j * k + c] << " vs " << alone[c];
      double plain = 0, magnitude = 0;
      for (std::int64_t i = 0; i < lengths[j]; ++i) {
        plain += piece[i * k + c];
        magnitude += std::abs(piece[i * k + c]);
      }
      EXPECT_NEAR(got[j * k + c], plain, 1e-13 * magnitude) << "segment " << j << ", column " << c;
    }
  }
}

TEST(FixedOrderSegmentSums, NoSegmentsAndEmptySegments) {
  alg::ColumnMatrix<MemSpace> terms("parity::test::terms", 1, 2);
  Kokkos::View<std::int64_t*, MemSpace> b("parity::test::begin", 3);  // two empty segments
  EXPECT_EQ(alg::fixed_order_segment_sums(ExecSpace(), terms, b, 2), std::vector<double>(4, 0.0));
  EXPECT_TRUE(alg::fixed_order_segment_sums(ExecSpace(), terms, b, 0).empty());
}

}  // namespace parity_test_fixed_order_segment_sums
