#pragma once
// VEGAS's separable map and VEGAS+'s stratification (Lepage 2021), the host side: the map is
// small (n axes x bins edges) and adapts once per iteration from histograms the device reduced in
// a fixed order, so it is the same bits for any thread count. The stratification's allocation runs
// on the device (vegas_allocation.hpp); allocate_samples here is its host reference.
//
// Map: y in [0,1]^n -> x in the box, axis by axis; y_d falls in increment i = floor(y_d bins) at
// fraction t, x_d = edge_i + t (edge_{i+1} - edge_i), and the Jacobian is prod_d bins (edge_{i+1} -
// edge_i). Adaptation makes the increments carry equal shares of the damped, smoothed histogram
// of (f J)^2 per increment, so they shrink where |f| is large.
//
// Stratification: [0,1]^n in y is cut into prod_d strata_d equal cells; each iteration gives cell h
// 2 + floor((N - 2 H) d_h / sum d) samples with d_h = sigma_h^beta, sigma_h^2 = V_h^2 Var(f J) in
// the cell, so at most N samples in all and at least two per cell (each cell's variance needs two).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

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

// Adapts one axis's edges (bins + 1 of them, in place) to its histogram (bins values): smoothed
// with neighbours (weights 1, 6, 1; 7, 1 at the ends), normalised, damped to
// ((1 - r) / ln(1 / r))^alpha, then the edges are moved so every increment holds the same share,
// linear within the old increments. An all-zero histogram leaves the axis as it is.
inline void adapt_axis(double* edges, double const* histogram, int bins, double alpha) {
  if (bins < 2 || alpha == 0) return;
  std::vector<double> r(bins);
  r[0] = (7 * histogram[0] + histogram[1]) / 8;
  r[bins - 1] = (histogram[bins - 2] + 7 * histogram[bins - 1]) / 8;
  for (int i = 1; i + 1 < bins; ++i) r[i] = (histogram[i - 1] + 6 * histogram[i] + histogram[i + 1]) / 8;
  double total = 0;
  for (double v : r) total += v;
  if (!(total > 0) || !std::isfinite(total)) return;
  double damped_total = 0;
  for (double& v : r) {
    double const share = v / total;
    // (1 - r) / ln(1 / r) tends to 0 as r -> 0 and to 1 as r -> 1.
    v = share <= 0 ? 0.0 : share >= 1 ? 1.0 : std::pow((1 - share) / std::log(1 / share), alpha);
    damped_total += v;
  }
  if (!(damped_total > 0)) return;
  std::vector<double> const old(edges, edges + bins + 1);
  double const per_bin = damped_total / bins;
  double before = 0;  // damped weight of the old increments left of i
  int i = 0;
  for (int k = 1; k < bins; ++k) {
    double const target = k * per_bin;
    while (i < bins - 1 && before + r[i] < target) before += r[i++];
    double const t = r[i] > 0 ? std::clamp((target - before) / r[i], 0.0, 1.0) : 0.0;
    edges[k] = old[i] + t * (old[i + 1] - old[i]);
  }
  // Rounding must not reorder the edges.
  for (int k = 1; k < bins; ++k) edges[k] = std::clamp(edges[k], edges[k - 1], old[bins]);
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
