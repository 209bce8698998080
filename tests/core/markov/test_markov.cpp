// Markov chains for AR(1) processes against closed forms: the stationary distribution of a
// two-state chain; Rouwenhorst's chain matches the process's mean, variance, autocorrelation and
// conditional mean exactly and has a binomial stationary distribution (Kopecky & Suen 2010);
// Tauchen's chain against its hand-derived 3-state matrix and, for many states, the process's
// moments.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parity/markov/ar1.hpp"
#include "parity/markov/chain.hpp"

namespace parity_test_markov {

using parity::InvalidInput;
using parity::markov::Ar1;
using parity::markov::Chain;

struct Moments {
  double mean, variance, autocorrelation;
};

Moments moments(Chain const& c) {
  auto const pi = parity::markov::stationary_distribution(c);
  std::size_t const n = c.size();
  double mean = 0;
  for (std::size_t i = 0; i < n; ++i) mean += pi[i] * c.values[i];
  double var = 0, cov = 0;
  for (std::size_t i = 0; i < n; ++i) {
    var += pi[i] * (c.values[i] - mean) * (c.values[i] - mean);
    for (std::size_t j = 0; j < n; ++j)
      cov += pi[i] * c.probability(i, j) * (c.values[i] - mean) * (c.values[j] - mean);
  }
  return {mean, var, cov / var};
}

double binomial_half(int n, int k) {  // C(n, k) / 2^n
  double r = std::pow(0.5, n);
  for (int i = 1; i <= k; ++i) r *= double(n - k + i) / i;
  return r;
}

TEST(MarkovChain, TwoStateStationaryDistributionIsClosedForm) {
  double const a = 0.1, b = 0.3;  // leave state 0 with a, state 1 with b: pi = (b, a) / (a + b)
  Chain const c{{0, 1}, {1 - a, a, b, 1 - b}};
  auto const pi = parity::markov::stationary_distribution(c);
  EXPECT_NEAR(pi[0], 0.75, 1e-15);
  EXPECT_NEAR(pi[1], 0.25, 1e-15);
}

TEST(MarkovChain, RefusesWhatIsNotAnIrreducibleChain) {
  EXPECT_THROW(parity::markov::stationary_distribution(Chain{{0, 1}, {1, 0, 0, 1}}), InvalidInput);
  EXPECT_THROW(parity::markov::check(Chain{{0, 1}, {0.5, 0.6, 0.5, 0.5}}), InvalidInput);  // row sum 1.1
  EXPECT_THROW(parity::markov::check(Chain{{0, 1}, {1.5, -0.5, 0.5, 0.5}}), InvalidInput);
  EXPECT_THROW(parity::markov::check(Chain{{0, 1}, {1, 0, 0}}), InvalidInput);
  EXPECT_THROW(parity::markov::check(Chain{}), InvalidInput);
}

TEST(MarkovAr1, UnconditionalConvention) {
  auto const p = Ar1::from_unconditional(0.6, 0.4, 1.0);
  EXPECT_NEAR(p.sigma_eps, 0.4 * 0.8, 1e-15);
  EXPECT_NEAR(p.unconditional_sd(), 0.4, 1e-15);
}

TEST(MarkovAr1, RouwenhorstMatchesTheProcessExactly) {
  for (int n : {2, 3, 5, 7, 11, 25}) {
    for (double rho : {0.0, 0.5, 0.9, 0.99, -0.6}) {
      Ar1 const p{rho, 0.3, 0.7};
      auto const c = parity::markov::rouwenhorst(p, n);
      auto const pi = parity::markov::stationary_distribution(c);
      for (int i = 0; i < n; ++i) EXPECT_NEAR(pi[i], binomial_half(n - 1, i), 1e-12) << n << " " << rho;
      auto const m = moments(c);
      double const var = p.sigma_eps * p.sigma_eps / (1 - rho * rho);
      EXPECT_NEAR(m.mean, p.mu, 1e-12);
      EXPECT_NEAR(m.variance / var, 1.0, 1e-12) << n << " " << rho;
      EXPECT_NEAR(m.autocorrelation, rho, 1e-12) << n << " " << rho;
      for (int i = 0; i < n; ++i) {  // E[y' | y_i] = (1 - rho) mu + rho y_i
        double e = 0;
        for (int j = 0; j < n; ++j) e += c.probability(i, j) * c.values[j];
        EXPECT_NEAR(e, (1 - rho) * p.mu + rho * c.values[i], 1e-12);
      }
    }
  }
}

TEST(MarkovAr1, TauchenThreeStatesByHand) {
  // rho = 1/2, sigma_eps = 1, m = 1: sigma_y = 2/sqrt(3), values -2/sqrt(3), 0, 2/sqrt(3), bins
  // of half-width h = 1/sqrt(3); from the lowest value the conditional mean is -h, so P00 = Phi(0).
  auto const c = parity::markov::tauchen(Ar1{0.5, 1.0, 0.0}, 3, 1.0);
  double const h = 1 / std::sqrt(3.0);
  auto Phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  EXPECT_NEAR(c.values[2], 2 * h, 1e-15);
  EXPECT_NEAR(c.probability(0, 0), 0.5, 1e-15);
  EXPECT_NEAR(c.probability(0, 1), Phi(2 * h) - 0.5, 1e-15);
  EXPECT_NEAR(c.probability(0, 2), 1 - Phi(2 * h), 1e-15);
  EXPECT_NEAR(c.probability(1, 1), Phi(h) - Phi(-h), 1e-15);
  EXPECT_NEAR(c.probability(1, 0), 1 - Phi(h), 1e-15);
  for (std::size_t i = 0; i < 3; ++i)  // mirror symmetry of a zero-mean process
    for (std::size_t j = 0; j < 3; ++j) EXPECT_NEAR(c.probability(i, j), c.probability(2 - i, 2 - j), 1e-15);
}

TEST(MarkovAr1, TauchenApproachesTheProcessWithManyStates) {
  // Tauchen's moments are exact only in the limit: with 201 states over +-4 sigma_y they lie
  // within 1% (variance) and 0.005 (autocorrelation) of the process's.
  for (double rho : {0.0, 0.5, 0.9}) {
    Ar1 const p{rho, 0.2, -0.3};
    auto const m = moments(parity::markov::tauchen(p, 201, 4.0));
    EXPECT_NEAR(m.mean, p.mu, 1e-10);
    EXPECT_NEAR(m.variance / (p.unconditional_sd() * p.unconditional_sd()), 1.0, 0.01) << rho;
    EXPECT_NEAR(m.autocorrelation, rho, 0.005) << rho;
  }
  // With few states Tauchen's chain overstates the variance of a persistent process: the reason
  // Rouwenhorst's is preferred there.
  auto const few = moments(parity::markov::tauchen(Ar1{0.95, 0.1, 0}, 5, 3.0));
  EXPECT_GT(few.variance / (Ar1{0.95, 0.1, 0}.unconditional_sd() * Ar1{0.95, 0.1, 0}.unconditional_sd()), 1.05);
}

TEST(MarkovAr1, RefusesBadParameters) {
  EXPECT_THROW(parity::markov::tauchen(Ar1{1.0, 0.1, 0}, 5), InvalidInput);
  EXPECT_THROW(parity::markov::tauchen(Ar1{0.5, -0.1, 0}, 5), InvalidInput);
  EXPECT_THROW(parity::markov::tauchen(Ar1{0.5, 0.1, 0}, 0), InvalidInput);
  EXPECT_THROW(parity::markov::tauchen(Ar1{0.5, 0.1, 0}, 5, 0.0), InvalidInput);
  EXPECT_THROW(parity::markov::rouwenhorst(Ar1{0.5, 0.1, 0}, 1), InvalidInput);
  EXPECT_THROW(parity::markov::rouwenhorst(Ar1{std::nan(""), 0.1, 0}, 3), InvalidInput);
}

}  // namespace parity_test_markov
