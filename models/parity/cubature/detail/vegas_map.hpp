#pragma once
// VEGAS's separable map and VEGAS+'s stratification (Lepage 2021): the host references of what
// runs on the device. The map adapts once per iteration on the device (VegasSampler::adapt, one
// team per axis) from histograms reduced exactly; adapt_axis here is its host reference, built
// from the same element functions (explicit fmas, portable log and power, sums in fixed blocks), so
// the two give the same bits, and so does every backend and thread count. The stratification's
// allocation runs on the device too (vegas_allocation.hpp); allocate_samples is its reference.
//
// Map: y in [0,1]^n -> x in the box, axis by axis; y_d falls in increment i = floor(y_d bins) at
// fraction t, x_d = edge_i + t (edge_{i+1} - edge_i), and the Jacobian is prod_d bins (edge_{i+1} -
// edge_i). Adaptation makes the increments carry equal shares of the damped, smoothed histogram
// of (f J)^2 per increment, so they shrink where |f| is large.
//
// Stratification: [0,1]^n in y is cut into prod_d strata_d equal cells; each iteration gives cell h
// 2 + floor((N - 2 H) d_h / sum d) samples with d_h = sigma_h^beta, sigma_h^2 = V_h^2 Var(f J) in
// the cell, so at most N samples in all and at least two per cell (each cell's variance needs two).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "parity/algorithms/portable_power.hpp"

namespace parity::cubature::detail {

// The map's edges, axis-major: edges[d * (bins + 1) + i], edge 0 the lower bound, edge bins the upper.
inline std::vector<double> uniform_map(std::vector<double> const& lower, std::vector<double> const& upper, int bins) {
  int const n = int(lower.size());
  std::vector<double> edges(std::size_t(n) * (bins + 1));
  for (int d = 0; d < n; ++d)
    for (int i = 0; i <= bins; ++i)
      edges[std::size_t(d) * (bins + 1) + i] =
          i == bins ? upper[d] : lower[d] + (upper[d] - lower[d]) * (double(i) / bins);
  return edges;
}

// The map's adaptation, element by element (adapt_axis and VegasSampler::adapt call these):
// increment i's histogram smoothed with its neighbours (weights 1, 6, 1; 7, 1 at the ends) / 8.
KOKKOS_INLINE_FUNCTION double smoothed_bin(double const* histogram, int i, int bins) {
  if (i == 0) return Kokkos::fma(7.0, histogram[0], histogram[1]) / 8;
  if (i == bins - 1) return Kokkos::fma(7.0, histogram[bins - 1], histogram[bins - 2]) / 8;
  return (Kokkos::fma(6.0, histogram[i], histogram[i - 1]) + histogram[i + 1]) / 8;
}

// A normalised share r damped to ((1 - r) / ln(1 / r))^alpha, alpha in [0, 2]; (1 - r) / ln(1 / r)
// tends to 0 as r -> 0 and to 1 as r -> 1.
KOKKOS_INLINE_FUNCTION double damped_share(double share, double alpha) {
  if (share <= 0) return 0.0;
  if (share >= 1) return 1.0;
  double const q = (1 - share) / algorithms::portable_log(1 / share);
  return alpha <= 1 ? algorithms::portable_pow(q, alpha) : q * algorithms::portable_pow(q, alpha - 1);
}

// An axis's increments are summed in map_blocks contiguous blocks, [block_begin(b), block_begin(b +
// 1)), each in index order, then the blocks' sums in order: a fixed order a team adds in
// parallel, independent of the team's size.
inline constexpr int map_blocks = 128;
KOKKOS_INLINE_FUNCTION int block_begin(int bins, int b) { return int(std::int64_t(bins) * b / map_blocks); }
KOKKOS_INLINE_FUNCTION double block_sum(double const* values, int bins, int b) {
  double sum = 0;
  for (int i = block_begin(bins, b); i < block_begin(bins, b + 1); ++i) sum += values[i];
  return sum;
}
// Block b's prefix sums: prefix[i] for i in the block, from `start` (the sum of the earlier
// blocks' sums, in order); prefix[bins] is the total, set by the caller.
KOKKOS_INLINE_FUNCTION void block_prefix(double const* values, double* prefix, int bins, int b, double start) {
  int const first = block_begin(bins, b), end = block_begin(bins, b + 1);
  if (first < end) prefix[first] = start;
  for (int i = first; i + 1 < end; ++i) prefix[i + 1] = prefix[i] + values[i];
}

// Edge k (0 < k < bins) of the adapted map: the first old increment i whose weight reaches the
// target k total / bins (prefix[i + 1] >= target; at most bins - 1), and the target's place in it,
// linear within the increment.
KOKKOS_INLINE_FUNCTION double placed_edge(double const* r, double const* prefix, double total, double const* old,
                                          int bins, int k) {
  double const target = k * (total / bins);
  int lo = 0, hi = bins - 1;
  while (lo < hi) {
    int const mid = (lo + hi) / 2;
    if (prefix[mid + 1] < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  double t = r[lo] > 0 ? (target - prefix[lo]) / r[lo] : 0.0;
  t = t < 0 ? 0.0 : (t > 1 ? 1.0 : t);
  return Kokkos::fma(t, old[lo + 1] - old[lo], old[lo]);
}

// Adapts one axis's edges (bins + 1 of them, in place) to its histogram (bins values): smoothed,
// normalised, damped, then the edges placed so every new increment holds the same share of the
// damped weight; rounding must not reorder them. An all-zero or non-finite histogram, alpha = 0 or
// a single increment leaves the axis as it is.
inline void adapt_axis(double* edges, double const* histogram, int bins, double alpha) {
  if (bins < 2 || alpha == 0) return;
  std::vector<double> r(bins), prefix(bins + 1);
  for (int i = 0; i < bins; ++i) r[i] = smoothed_bin(histogram, i, bins);
  double total = 0;
  for (int b = 0; b < map_blocks; ++b) total += block_sum(r.data(), bins, b);
  if (!(total > 0) || !std::isfinite(total)) return;
  for (double& v : r) v = damped_share(v / total, alpha);
  double damped_total = 0;
  for (int b = 0; b < map_blocks; ++b) {
    block_prefix(r.data(), prefix.data(), bins, b, damped_total);
    damped_total += block_sum(r.data(), bins, b);
  }
  if (!(damped_total > 0)) return;
  prefix[bins] = damped_total;
  std::vector<double> const old(edges, edges + bins + 1);
  for (int k = 1; k < bins; ++k) edges[k] = placed_edge(r.data(), prefix.data(), damped_total, old.data(), bins, k);
  // clamp(edge, previous, last) in order: max and min are exact, so any order of the same
  // comparisons gives these bits.
  for (int k = 1; k < bins; ++k) edges[k] = std::min(std::max(edges[k], edges[k - 1]), old[bins]);
}

// Strata per axis: the same count m on every axis, some raised to m + 1, so the product H is
// as large as fits N / 4 (half the samples or more are left to follow sigma_h). Where even two
// per axis would not fit, the first floor(log2(N / 4)) axes get two and the rest one.
inline std::vector<int> strata_per_axis(int n, std::int64_t evaluations) {
  std::int64_t const most = std::max<std::int64_t>(1, evaluations / 4);
  std::vector<int> strata(n, 1);
  auto product = [&] {
    std::int64_t p = 1;
    for (int s : strata) p *= s;
    return p;
  };
  int m = std::max(1, int(std::floor(std::pow(double(most), 1.0 / n))));
  while (m > 1 && std::pow(double(m), n) > double(most)) --m;  // pow's rounding
  std::fill(strata.begin(), strata.end(), m);
  for (int d = 0; d < n; ++d) {
    ++strata[d];
    if (product() > most) {
      --strata[d];
      break;
    }
  }
  return strata;
}

// Samples per stratification cell from d_h (weights >= 0) and their sum `total` (the sum in any
// order): 2 + floor((N - 2 H) d_h / total), or an even share where the total is 0 or not finite.
// Returns the offsets, cell h's samples being [offsets[h], offsets[h + 1]).
inline std::vector<std::int64_t> allocate_samples(std::vector<double> const& weights, std::int64_t evaluations,
                                                  double total) {
  std::int64_t const cells = std::int64_t(weights.size());
  std::int64_t const spare = evaluations - 2 * cells;
  std::vector<std::int64_t> offsets(cells + 1, 0);
  for (std::int64_t h = 0; h < cells; ++h) {
    double const share = total > 0 && std::isfinite(total) ? weights[h] / total : 1.0 / double(cells);
    offsets[h + 1] = offsets[h] + 2 + std::int64_t(std::floor(double(spare) * share));
    // The shares' rounding must not pass N.
    offsets[h + 1] = std::min(offsets[h + 1], evaluations - 2 * (cells - h - 1));
  }
  return offsets;
}

// The same with the weights summed left to right.
inline std::vector<std::int64_t> allocate_samples(std::vector<double> const& weights, std::int64_t evaluations) {
  double total = 0;
  for (double w : weights) total += w;
  return allocate_samples(weights, evaluations, total);
}

}  // namespace parity::cubature::detail
