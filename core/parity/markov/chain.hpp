#pragma once
// A finite Markov chain of an exogenous state: its values and transition matrix, checked, and its
// stationary distribution. Host data: engines copy what their kernels need into Views.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "parity/run/errors.hpp"

namespace parity::markov {

struct Chain {
  std::vector<double> values;  // the state's value in each of the n states
  std::vector<double> transition;  // n x n, row-major: transition[i * n + j] = P(next = j | now = i)

  std::size_t size() const { return values.size(); }
  double probability(std::size_t from, std::size_t to) const { return transition[from * size() + to]; }
};

// Throws InvalidInput unless `chain` has n >= 1 states, an n x n matrix of probabilities in
// [0, 1] and rows that sum to 1 within `tolerance`.
inline void check(Chain const& chain, double tolerance = 1e-12) {
  std::size_t const n = chain.size();
  require(n >= 1, "Markov chain: at least one state is needed");
  require(chain.transition.size() == n * n, "Markov chain: the transition matrix has " +
                                                std::to_string(chain.transition.size()) + " entries; " +
                                                std::to_string(n) + " states need " + std::to_string(n * n));
  for (std::size_t i = 0; i < n; ++i) {
    require(std::isfinite(chain.values[i]), "Markov chain: the value of state " + std::to_string(i) + " is not finite");
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      double const p = chain.probability(i, j);
      require(p >= 0 && p <= 1,
              "Markov chain: transition[" + std::to_string(i) + "][" + std::to_string(j) + "] is not a probability");
      sum += p;
    }
    require(std::abs(sum - 1) <= tolerance,
            "Markov chain: row " + std::to_string(i) + " of the transition matrix does not sum to 1");
  }
}

// The stationary distribution pi (pi P = pi, sum pi = 1) of an irreducible chain, by Gaussian
// elimination with partial pivoting on (P^T - I) with one equation replaced by the normalisation.
// Throws InvalidInput when the chain has no unique stationary distribution.
inline std::vector<double> stationary_distribution(Chain const& chain) {
  check(chain);
  std::size_t const n = chain.size();
  // A (n x n+1), augmented: rows 0..n-2 are (P^T - I) pi = 0, the last row is sum pi = 1.
  std::vector<double> a(n * (n + 1), 0.0);
  auto at = [&](std::size_t r, std::size_t c) -> double& { return a[r * (n + 1) + c]; };
  for (std::size_t r = 0; r + 1 < n; ++r) {
    for (std::size_t c = 0; c < n; ++c) at(r, c) = chain.probability(c, r) - (r == c ? 1.0 : 0.0);
  }
  for (std::size_t c = 0; c < n; ++c) at(n - 1, c) = 1.0;
  at(n - 1, n) = 1.0;
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t pivot = k;
    for (std::size_t r = k + 1; r < n; ++r)
      if (std::abs(at(r, k)) > std::abs(at(pivot, k))) pivot = r;
    require(std::abs(at(pivot, k)) > 1e-14,
            "Markov chain: no unique stationary distribution (the chain is not irreducible)");
    if (pivot != k)
      for (std::size_t c = 0; c <= n; ++c) std::swap(at(k, c), at(pivot, c));
    for (std::size_t r = 0; r < n; ++r) {
      if (r == k || at(r, k) == 0.0) continue;
      double const f = at(r, k) / at(k, k);
      for (std::size_t c = k; c <= n; ++c) at(r, c) -= f * at(k, c);
    }
  }
  std::vector<double> pi(n);
  for (std::size_t i = 0; i < n; ++i) pi[i] = std::max(0.0, at(i, n) / at(i, i));  // clip rounding below 0
  double sum = 0;
  for (double p : pi) sum += p;
  for (double& p : pi) p /= sum;
  return pi;
}

}  // namespace parity::markov
