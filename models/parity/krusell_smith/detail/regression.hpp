#pragma once
// The law of motion estimated from the panel (OLS per aggregate state, host: the path is only
// T long) and iterated on its own for the Den Haan accuracy test.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "parity/run/errors.hpp"

namespace parity::krusell_smith::detail {

// OLS of ln K_{t+1} on ln K_t over t in [discard, T) for each aggregate state.
struct Regression {
  std::array<double, 4> b{};
  std::array<double, 2> r2{}, se{};
};

inline Regression regress(std::vector<double> const& K, std::vector<std::int32_t> const& z, int discard) {
  Regression reg;
  int const T = int(z.size());
  for (int s = 0; s < 2; ++s) {
    double n = 0, sx = 0, sy = 0;
    for (int t = discard; t < T; ++t)
      if (z[t] == s) n += 1, sx += std::log(K[t]), sy += std::log(K[t + 1]);
    require(n >= 3, "the simulated path has fewer than 3 periods in one aggregate state: use more --periods");
    double const mx = sx / n, my = sy / n;
    double sxx = 0, sxy = 0, syy = 0;
    for (int t = discard; t < T; ++t)
      if (z[t] == s) {
        double const dx = std::log(K[t]) - mx, dy = std::log(K[t + 1]) - my;
        sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
      }
    double const b1 = sxx > 0 ? sxy / sxx : 1.0;
    double const b0 = my - b1 * mx;
    double ssr = 0;
    for (int t = discard; t < T; ++t)
      if (z[t] == s) {
        double const res = std::log(K[t + 1]) - b0 - b1 * std::log(K[t]);
        ssr += res * res;
      }
    reg.b[2 * s] = b0, reg.b[2 * s + 1] = b1;
    reg.r2[s] = syy > 0 ? 1 - ssr / syy : 1.0;
    reg.se[s] = std::sqrt(ssr / std::max(1.0, n - 2));
  }
  return reg;
}

// Den Haan (2010): the law of motion iterated on its own from K_0 along the z path.
inline std::vector<double> dynamic_law_of_motion(std::array<double, 4> const& b, std::vector<std::int32_t> const& z,
                                                 double K0) {
  std::vector<double> K(z.size() + 1);
  K[0] = K0;
  for (std::size_t t = 0; t < z.size(); ++t) K[t + 1] = std::exp(b[2 * z[t]] + b[2 * z[t] + 1] * std::log(K[t]));
  return K;
}

}  // namespace parity::krusell_smith::detail
