// The probability that n equicorrelated standard normals (correlation 1/2) are all positive, by
// adaptive cubature of their density in n = 5 dimensions through parity::cubature::integrate.
//
// Exact value: with X_i = (Y_i - Y_0) / sqrt(2) for independent standard normals Y_0..Y_n, the X_i
// have correlation 1/2, and all X_i > 0 means Y_0 is the smallest of n + 1 exchangeable variables:
// P = 1 / (n + 1).
//
// The orthant [0, inf)^n is mapped onto the unit cube by x = t / (1 - t^2), dx = (1 + t^2) /
// (1 - t^2)^2 dt; the rule's points lie inside the cube, so t = 1 is never evaluated.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "parity/cubature/integrate.hpp"
#include "parity/version.hpp"

constexpr int n = 5;

// Density of N(0, S) with S = (I + 1 1^T) / 2: S^-1 = 2 (I - 1 1^T / (n + 1)), det S = (n + 1) / 2^n.
template <class Real>
struct OrthantIntegrand {
  Real norm;  // (2 pi)^(-n/2) det(S)^(-1/2)

  KOKKOS_FUNCTION Real operator()(parity::cubature::Point<Real> const& t) const {
    Real sum = 0, sum_sq = 0, jacobian = 1;
    for (int i = 0; i < t.size(); ++i) {
      Real const one_minus = (Real(1) - t[i]) * (Real(1) + t[i]);
      Real const x = t[i] / one_minus;
      jacobian *= (Real(1) + t[i] * t[i]) / (one_minus * one_minus);
      sum += x;
      sum_sq += x * x;
    }
    Real const quadratic = Real(2) * (sum_sq - sum * sum / Real(n + 1));  // x^T S^-1 x
    return norm * jacobian * Kokkos::exp(Real(-0.5) * quadratic);
  }
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;

  OrthantIntegrand<double> f;
  f.norm = std::pow(2 * std::numbers::pi, -0.5 * n) * std::sqrt(std::pow(2.0, n) / (n + 1));
  std::vector<double> const lower(n, 0.0), upper(n, 1.0);
  parity::cubature::Tolerances tolerances;
  tolerances.relative = 1e-5;
  parity::cubature::Options options;  // documented defaults in models/parity/cubature/options.hpp

  auto const r = parity::cubature::integrate<Space, double>(Space(), f, lower, upper, tolerances, options);
  double const exact = 1.0 / (n + 1);
  std::printf("Parity %s (%s) on %s\n", PARITY_VERSION_STRING, PARITY_GIT_COMMIT, Space::name());
  std::printf("P(all of %d equicorrelated normals > 0) = %.10f +- %.2e (exact %.10f), %s, %lld evaluations\n", n,
              r.integral, r.error, exact, parity::cubature::to_string(r.status), (long long)r.evaluations);

  // The estimate must meet the requested tolerance, and so must the true error.
  bool const ok = r.status == parity::cubature::Status::converged && std::abs(r.integral - exact) <= r.tolerance;
  if (!ok) std::fprintf(stderr, "FAILED: |integral - 1/(n+1)| = %.3e\n", std::abs(r.integral - exact));
  return ok ? 0 : 1;
}
