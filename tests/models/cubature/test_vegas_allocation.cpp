// VEGAS+'s samples per cell on the device (vegas_allocation.hpp) against allocate_samples, the
// sequential host reference, given the same d_h (algorithms::portable_pow called on the host) and
// the same total (the blocked order of fixed_order_column_sums, written out on the host): the same
// offsets, for few and many cells, with the clamp at N exercised, for beta = 0, an all-zero sigma
// and a NaN or infinite sigma (the even share).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "parity/algorithms/portable_power.hpp"
#include "parity/cubature/detail/vegas_allocation.hpp"
#include "parity/cubature/detail/vegas_map.hpp"
#include "parity/random/philox.hpp"
#include "test_backend.hpp"

namespace parity_test_cubature_vegas_allocation {

namespace cub = parity::cubature;
namespace alg = parity::algorithms;
using parity::test::ExecSpace;
using parity::test::MemSpace;

// fixed_order_column_sums' order: blocks of fixed_order_block left to right, level by level.
double blocked_sum(std::vector<double> t) {
  std::size_t const block = std::size_t(alg::fixed_order_block);
  while (t.size() > 1) {
    std::vector<double> next((t.size() + block - 1) / block, 0.0);
    for (std::size_t i = 0; i < t.size(); ++i) next[i / block] += t[i];
    t = next;
  }
  return t.empty() ? 0.0 : t[0];
}

// The device allocation's offsets from sigma (first: the even share); the last is the sample count.
// Below a billion evaluations the cells' index is written too and checked: the entry of every
// vegas_index_block-th sample is the cell holding it.
std::vector<std::int64_t> on_device(std::vector<double> const& sigma, double beta, std::int64_t evaluations,
                                    bool first = false) {
  ExecSpace space;
  std::int64_t const cells = std::int64_t(sigma.size()), block = cub::detail::vegas_index_block;
  cub::detail::VegasAllocation<ExecSpace> allocation(space, cells);
  Kokkos::View<double*, MemSpace> sigma_d("parity::test::sigma", cells);
  Kokkos::View<std::int64_t*, MemSpace> offsets("parity::test::offsets", cells + 1);
  Kokkos::View<std::int64_t*, MemSpace> first_cell;
  if (evaluations < 1'000'000'000)
    first_cell = decltype(first_cell)("parity::test::first_cell", evaluations / block + 1);
  Kokkos::deep_copy(first_cell, -1);
  auto sh = Kokkos::create_mirror_view(sigma_d);
  for (std::int64_t h = 0; h < cells; ++h) sh(h) = sigma[h];
  Kokkos::deep_copy(sigma_d, sh);
  if (first)
    allocation.even(space, evaluations, offsets, first_cell);
  else
    allocation.following(space, sigma_d, beta, evaluations, offsets, first_cell);
  auto oh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
  std::vector<std::int64_t> out(oh.data(), oh.data() + cells + 1);
  auto const index = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), first_cell);
  for (std::int64_t b = 0; b < std::int64_t(index.extent(0)); ++b) {
    std::int64_t const s = b * block;
    if (s >= out.back()) {
      EXPECT_EQ(index(b), -1) << "an entry past the samples, block " << b;
      continue;
    }
    std::int64_t const h = std::upper_bound(out.begin(), out.end(), s) - out.begin() - 1;
    EXPECT_EQ(index(b), h) << "sample " << s;
  }
  return out;
}

// The host reference.
std::vector<std::int64_t> on_host(std::vector<double> const& sigma, double beta, std::int64_t evaluations) {
  std::vector<double> d(sigma.size());
  for (std::size_t h = 0; h < sigma.size(); ++h) d[h] = alg::portable_pow(sigma[h], beta);
  return cub::detail::allocate_samples(d, evaluations, blocked_sum(d));
}

// Sigma over eleven decades, some cells empty (0).
std::vector<double> random_sigma(std::int64_t cells, std::uint64_t stream) {
  parity::random::PhiloxStream<double> rng(5, stream);
  std::vector<double> sigma(static_cast<std::size_t>(cells));
  for (auto& s : sigma) s = rng.uniform() < 0.05 ? 0.0 : std::pow(10.0, 11 * rng.uniform() - 8);
  return sigma;
}

TEST(CubatureVegasAllocation, SameOffsetsAsTheHostReference) {
  std::uint64_t stream = 0;
  for (std::int64_t cells : {1, 2, 7, 255, 256, 257, 1000, 70000})
    for (double beta : {0.0, 0.25, 0.5, 0.75, 1.0})
      for (std::int64_t per_cell : {4, 9, 100}) {
        auto const sigma = random_sigma(cells, ++stream);
        std::int64_t const evaluations = per_cell * cells + 3;
        auto const host = on_host(sigma, beta, evaluations);
        auto const device = on_device(sigma, beta, evaluations);
        ASSERT_EQ(device, host) << cells << " cells, beta " << beta;
        EXPECT_LE(device.back(), evaluations);
        for (std::int64_t h = 0; h < cells; ++h) EXPECT_GE(host[h + 1] - host[h], 2);
      }
}

TEST(CubatureVegasAllocation, ClampAtTheBudget) {
  // With N near 1e17 the shares' rounding is worth several samples per cell, so the unclamped
  // counts often pass N: the clamp must cut them where the sequential reference does.
  int clamped = 0;
  for (std::uint64_t stream = 0; stream < 60; ++stream) {
    std::int64_t const cells = 3 + std::int64_t(stream % 5) * 11;
    auto const sigma = random_sigma(cells, 1000 + stream);
    std::int64_t const evaluations = 100'000'000'000'000'000 + 12345;
    std::vector<double> d(sigma.size());
    for (std::size_t h = 0; h < sigma.size(); ++h) d[h] = alg::portable_pow(sigma[h], 0.75);
    double const total = blocked_sum(d);
    std::int64_t unclamped = 0;
    for (double w : d) unclamped += 2 + std::int64_t(std::floor(double(evaluations - 2 * cells) * (w / total)));
    clamped += unclamped > evaluations;
    auto const host = on_host(sigma, 0.75, evaluations);
    auto const device = on_device(sigma, 0.75, evaluations);
    ASSERT_EQ(device, host);
    EXPECT_EQ(device.back(), std::min(unclamped, evaluations));
  }
  EXPECT_GT(clamped, 10);
}

TEST(CubatureVegasAllocation, EvenShareWhereSigmaGivesNoWeights) {
  double const nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::int64_t const cells = 300, evaluations = 4 * cells + 1001;
  auto const even = cub::detail::allocate_samples(std::vector<double>(cells, 1.0), evaluations);
  EXPECT_EQ(on_device(std::vector<double>(cells, 0.5), 0.0, evaluations, true), even);  // first iteration
  EXPECT_EQ(on_device(std::vector<double>(cells, 0.0), 0.75, evaluations), even);  // all-zero sigma
  for (double bad : {nan, inf}) {
    auto sigma = random_sigma(cells, 77);
    sigma[123] = bad;
    for (double beta : {0.0, 0.5, 1.0}) {
      EXPECT_EQ(on_device(sigma, beta, evaluations), even) << bad << " " << beta;
      EXPECT_EQ(on_host(sigma, beta, evaluations), even);
    }
  }
}

}  // namespace parity_test_cubature_vegas_allocation
