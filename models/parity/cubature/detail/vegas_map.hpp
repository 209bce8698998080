#pragma once
// VEGAS's separable map and VEGAS+'s stratification (Lepage 2021): the host references of what
// runs on the device. The map adapts once per iteration on the device (VegasSampler::adapt, one
// team per axis) from histograms reduced exactly; adapt_axis here is its host reference, built
// from the same element functions (explicit fmas, portable log and power, sums in index order), so
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

// values[0] + ... + values[n - 1], left to right.
KOKKOS_INLINE_FUNCTION double sum_in_order(double const* values, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += values[i];
  return sum;
}

// New edges (bins + 1) from the old ones and the damped weights r of the old increments (total
// `total` > 0): every new increment holds the same share of the weight, linear within the old
// increments. Rounding must not reorder the edges.
KOKKOS_INLINE_FUNCTION void place_edges(double const* r, double total, double const* old, double* edges, int bins) {
  double const per_bin = total / bins;
  double before = 0;  // damped weight of the old increments left of i
  int i = 0;
  edges[0] = old[0];
  edges[bins] = old[bins];
  for (int k = 1; k < bins; ++k) {
    double const target = k * per_bin;
    while (i < bins - 1 && before + r[i] < target) before += r[i++];
    double t = r[i] > 0 ? (target - before) / r[i] : 0.0;
    t = t < 0 ? 0.0 : (t > 1 ? 1.0 : t);
    edges[k] = Kokkos::fma(t, old[i + 1] - old[i], old[i]);
  }
  for (int k = 1; k < bins; ++k)
    edges[k] = edges[k] < edges[k - 1] ? edges[k - 1] : (edges[k] > old[bins] ? old[bins] : edges[k]);
}

// Adapts one axis's edges (bins + 1 of them, in place) to its histogram (bins values): smoothed,
// normalised, damped, then the edges placed so every increment holds the same share. An all-zero
// or non-finite histogram, alpha = 0 or a single increment leaves the axis as it is.
inline void adapt_axis(double* edges, double const* histogram, int bins, double alpha) {
  if (bins < 2 || alpha == 0) return;
  std::vector<double> r(bins);
  for (int i = 0; i < bins; ++i) r[i] = smoothed_bin(histogram, i, bins);
  double const total = sum_in_order(r.data(), bins);
  if (!(total > 0) || !std::isfinite(total)) return;
  for (double& v : r) v = damped_share(v / total, alpha);
  double const damped_total = sum_in_order(r.data(), bins);
  if (!(damped_total > 0)) return;
  std::vector<double> const old(edges, edges + bins + 1);
  place_edges(r.data(), damped_total, old.data(), edges, bins);
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
