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

// Nodes denser around `center` in [lo, hi]: x = center + (hi - lo)/k sinh(t), t running from
// asinh((lo - center) k / (hi - lo)) to asinh((hi - center) k / (hi - lo)) with k the concentration
// (k = 0: x linear in t, uniform nodes). An interior center is always a node, whatever n: t is
// uniform on each side of t = 0, the nodes shared between the sides in proportion to their lengths
// in t. Functions clustered around a point usually have a feature there (a kink, a ridge), which
// interpolation between nodes on either side would flatten. A center in the middle of the range
// with n odd gives nodes mirrored about it exactly; with n even one side has one cell fewer.
inline std::vector<double> clustered_nodes(double lo, double hi, int n, double center, double concentration) {
  require_axis_range(lo, hi, n);
  require(center >= lo && center <= hi, "cluster center must lie inside the axis range");
  require(concentration >= 0, "cluster concentration must be >= 0");
  double const k = concentration;
  auto const place = [&](double t) { return k == 0 ? center + t * (hi - lo) : center + (hi - lo) / k * std::sinh(t); };
  double const a = k == 0 ? (lo - center) / (hi - lo) : std::asinh((lo - center) / (hi - lo) * k);
  double const b = k == 0 ? (hi - center) / (hi - lo) : std::asinh((hi - center) / (hi - lo) * k);
  std::vector<double> x(n);
  if (center > lo && center < hi && n >= 3) {
    int m = int(std::lround(-a / (b - a) * double(n - 1)));  // the center's index
    m = m < 1 ? 1 : (m > n - 2 ? n - 2 : m);
    // (m - i)/m and (i - m)/(n - 1 - m), not 1 - i/m: mirrored nodes get t of exactly opposite sign.
    for (int i = 0; i < m; ++i) x[i] = place(a * double(m - i) / double(m));
    x[m] = center;
    for (int i = m + 1; i < n; ++i) x[i] = place(b * double(i - m) / double(n - 1 - m));
  } else {
    for (int i = 0; i < n; ++i) x[i] = place(a + (b - a) * double(i) / double(n - 1));
  }
  x.front() = lo;
  x.back() = hi;
  return x;
}

}  // namespace parity::grid
