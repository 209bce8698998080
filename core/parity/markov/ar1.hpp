#pragma once
// Finite Markov chains for a Gaussian AR(1) process
//   y' = (1 - rho) mu + rho y + eps,  eps ~ N(0, sigma_eps^2),  |rho| < 1,
// whose unconditional standard deviation is sigma_y = sigma_eps / sqrt(1 - rho^2):
//   tauchen      Tauchen (1986): n evenly spaced values over mu +- m sigma_y, each row the normal
//                probabilities of the bins between midpoints (the end bins open);
//   rouwenhorst  Rouwenhorst (1995), as in Kopecky & Suen (2010): n evenly spaced values over
//                mu +- sqrt(n - 1) sigma_y; matches the unconditional mean, variance and the
//                autocorrelation rho exactly for any n, which Tauchen's does only as n grows, so it
//                is the better choice for rho near 1.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "parity/markov/chain.hpp"
#include "parity/run/errors.hpp"

namespace parity::markov {

struct Ar1 {
  double rho = 0;  // persistence, |rho| < 1
  double sigma_eps = 0;  // standard deviation of the innovation, >= 0
  double mu = 0;  // unconditional mean

  // The process with unconditional standard deviation `sigma` (the convention of e.g. Aiyagari
  // 1994, who gives the standard deviation of log labour, not of its innovation).
  static Ar1 from_unconditional(double rho, double sigma, double mu = 0) {
    return {rho, sigma * std::sqrt(1 - rho * rho), mu};
  }
  double unconditional_sd() const { return sigma_eps / std::sqrt(1 - rho * rho); }
};

namespace detail {

inline void check_ar1(Ar1 const& p, int n, int min_states) {
  require(n >= min_states, "AR(1) chain: the number of states n must be at least " + std::to_string(min_states));
  require(std::isfinite(p.rho) && std::abs(p.rho) < 1, "AR(1) chain: rho must lie in (-1, 1)");
  require(std::isfinite(p.sigma_eps) && p.sigma_eps >= 0, "AR(1) chain: sigma_eps must be >= 0 and finite");
  require(std::isfinite(p.mu), "AR(1) chain: mu must be finite");
}

inline double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

inline std::vector<double> even_values(double mu, double half_width, int n) {
  std::vector<double> v(n, mu);
  for (int i = 0; i < n && n > 1; ++i) v[i] = mu - half_width + 2 * half_width * i / (n - 1);
  return v;
}

}  // namespace detail

// Tauchen's chain of n >= 1 states over mu +- m sigma_y (m > 0; 3 is usual).
inline Chain tauchen(Ar1 const& p, int n, double m = 3) {
  detail::check_ar1(p, n, 1);
  require(std::isfinite(m) && m > 0, "Tauchen chain: m (the grid's half-width in sigma_y) must be > 0");
  Chain c;
  double const sd = p.unconditional_sd();
  c.values = detail::even_values(p.mu, m * sd, n);
  c.transition.assign(std::size_t(n) * n, 0.0);
  if (n == 1 || p.sigma_eps == 0) {
    // A degenerate process stays where it is (n == 1) or moves deterministically to the nearest value.
    for (int i = 0; i < n; ++i) {
      double const next = (1 - p.rho) * p.mu + p.rho * c.values[i];
      int best = 0;
      for (int j = 1; j < n; ++j)
        if (std::abs(c.values[j] - next) < std::abs(c.values[best] - next)) best = j;
      c.transition[std::size_t(i) * n + best] = 1;
    }
    return c;
  }
  double const half_step = (c.values[1] - c.values[0]) / 2;
  for (int i = 0; i < n; ++i) {
    double const mean = (1 - p.rho) * p.mu + p.rho * c.values[i];
    for (int j = 0; j < n; ++j) {
      double const hi = j == n - 1 ? 1.0 : detail::normal_cdf((c.values[j] + half_step - mean) / p.sigma_eps);
      double const lo = j == 0 ? 0.0 : detail::normal_cdf((c.values[j] - half_step - mean) / p.sigma_eps);
      c.transition[std::size_t(i) * n + j] = hi - lo;
    }
  }
  return c;
}

// Rouwenhorst's chain of n >= 2 states.
inline Chain rouwenhorst(Ar1 const& p, int n) {
  detail::check_ar1(p, n, 2);
  Chain c;
  c.values = detail::even_values(p.mu, std::sqrt(double(n - 1)) * p.unconditional_sd(), n);
  double const q = (1 + p.rho) / 2;  // p = q: a symmetric process
  std::vector<double> theta = {q, 1 - q, 1 - q, q};
  for (int m = 3; m <= n; ++m) {
    // Theta_m from Theta_{m-1} (size k = m - 1): the four corners weighted q, 1-q, 1-q, q, then
    // the interior rows halved so that every row sums to 1.
    int const k = m - 1;
    std::vector<double> next(std::size_t(m) * m, 0.0);
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) {
        double const t = theta[std::size_t(i) * k + j];
        next[std::size_t(i) * m + j] += q * t;
        next[std::size_t(i) * m + j + 1] += (1 - q) * t;
        next[std::size_t(i + 1) * m + j] += (1 - q) * t;
        next[std::size_t(i + 1) * m + j + 1] += q * t;
      }
    for (int i = 1; i < m - 1; ++i)
      for (int j = 0; j < m; ++j) next[std::size_t(i) * m + j] /= 2;
    theta = std::move(next);
  }
  c.transition = std::move(theta);
  return c;
}

}  // namespace parity::markov
