#pragma once
// Node placements for one axis of a tensor grid, computed on the host in double.
#include <cmath>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"

namespace parity::grid {

inline void require_axis_range(double lo, double hi, int n) {
  require(std::isfinite(lo) && std::isfinite(hi) && lo < hi,
          "grid axis needs finite lower < upper, got [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  require(n >= 2, "grid axis needs at least 2 nodes, got " + std::to_string(n));
}

// n equally spaced nodes from lo to hi (both included).
inline std::vector<double> uniform_nodes(double lo, double hi, int n) {
  require_axis_range(lo, hi, n);
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = lo + (hi - lo) * double(i) / double(n - 1);
  x.back() = hi;
  return x;
}

// Nodes lo + (hi - lo) s^power, s uniform on [0,1]: denser near lo for power > 1
// (the usual choice for capital grids near a borrowing constraint).
inline std::vector<double> power_nodes(double lo, double hi, int n, double power) {
  require_axis_range(lo, hi, n);
  require(power > 0, "power spacing needs power > 0");
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = lo + (hi - lo) * std::pow(double(i) / double(n - 1), power);
  x.front() = lo;
  x.back() = hi;
  return x;
}

// Nodes denser around `center` in [lo, hi]: x = center + c sinh(k s + s0) / sinh-scale, s uniform.
// concentration = 0 gives uniform nodes; larger values pack more nodes near the center.
inline std::vector<double> clustered_nodes(double lo, double hi, int n, double center, double concentration) {
  require_axis_range(lo, hi, n);
  require(center >= lo && center <= hi, "cluster center must lie inside the axis range");
  require(concentration >= 0, "cluster concentration must be >= 0");
  if (concentration == 0) return uniform_nodes(lo, hi, n);
  // Map s in [0,1] through u(s) = asinh-spaced so that dx/ds is smallest at the center.
  double const k = concentration;
  double const a = std::asinh((lo - center) / (hi - lo) * k);
  double const b = std::asinh((hi - center) / (hi - lo) * k);
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) {
    double const s = double(i) / double(n - 1);
    x[i] = center + (hi - lo) / k * std::sinh(a + (b - a) * s);
  }
  x.front() = lo;
  x.back() = hi;
  return x;
}

}  // namespace parity::grid
