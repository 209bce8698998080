// The probability that three equicorrelated standard normals are all positive, at 32 correlations
// rho from -0.45 to 0.9, as one family of integrands through parity::cubature::integrate_family:
// the regions of all 32 integrals share one list, one launch per step for all of them.
//
// Exact value (Sheppard; for three variables the orthant probability is a sum over the pairs):
// P = 1/8 + (asin rho_12 + asin rho_13 + asin rho_23) / (4 pi) = 1/8 + 3 asin(rho) / (4 pi).
//
// The orthant [0, inf)^3 is mapped onto the unit cube by x = t / (1 - t^2), dx = (1 + t^2) /
// (1 - t^2)^2 dt, as in orthant_probability; the rule's points lie inside the cube.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "parity/cubature/family.hpp"
#include "parity/version.hpp"

constexpr int n = 3, m = 32;

// Component k: the density of N(0, S_k), S_k = (1 - rho) I + rho 1 1^T, whose inverse is
// (I - c 1 1^T) / (1 - rho) with c = rho / (1 + 2 rho), and det S_k = (1 - rho)^2 (1 + 2 rho).
struct OrthantFamily {
  Kokkos::Array<double, m> c, scale, norm;  // c_k, 1 / (1 - rho_k), (2 pi)^(-3/2) det(S_k)^(-1/2)

  KOKKOS_FUNCTION double operator()(parity::cubature::Point<double> const& t, int k) const {
    double sum = 0, sum_sq = 0, jacobian = 1;
    for (int i = 0; i < t.size(); ++i) {
      double const one_minus = (1 - t[i]) * (1 + t[i]);
      double const x = t[i] / one_minus;
      jacobian *= (1 + t[i] * t[i]) / (one_minus * one_minus);
      sum += x;
      sum_sq += x * x;
    }
    double const quadratic = scale[k] * (sum_sq - c[k] * sum * sum);  // x^T S_k^-1 x
    return norm[k] * jacobian * Kokkos::exp(-0.5 * quadratic);
  }
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;

  std::vector<double> rho(m);
  OrthantFamily f;
  for (int k = 0; k < m; ++k) {
    rho[k] = -0.45 + 1.35 * k / (m - 1);
    f.c[k] = rho[k] / (1 + 2 * rho[k]);
    f.scale[k] = 1 / (1 - rho[k]);
    f.norm[k] = std::pow(2 * std::numbers::pi, -1.5) / std::sqrt((1 - rho[k]) * (1 - rho[k]) * (1 + 2 * rho[k]));
  }
  std::vector<double> const lower(n, 0.0), upper(n, 1.0);
  parity::cubature::Tolerances tolerances;
  tolerances.relative = 1e-7;
  parity::cubature::Options options;  // documented defaults in models/parity/cubature/options.hpp

  auto const r = parity::cubature::integrate_family<Space, double>(Space(), f, m, lower, upper, tolerances, options);
  std::printf("Parity %s (%s) on %s\n", PARITY_VERSION_STRING, PARITY_GIT_COMMIT, Space::name());
  std::printf("P(3 equicorrelated normals > 0) at %d correlations, one region list:\n", m);
  // Every integral must converge, and its true error must meet its tolerance.
  bool ok = true;
  for (int k = 0; k < m; ++k) {
    double const exact = 0.125 + 3 * std::asin(rho[k]) / (4 * std::numbers::pi);
    bool const good =
        r[k].status == parity::cubature::Status::converged && std::abs(r[k].integral - exact) <= r[k].tolerance;
    std::printf("  rho = %6.3f: %.10f +- %.1e (exact %.10f), %lld evaluations %s\n", rho[k], r[k].integral, r[k].error,
                exact, (long long)r[k].evaluations, good ? "" : "FAILED");
    ok = ok && good;
  }
  if (!ok) std::fprintf(stderr, "FAILED: an integral did not converge or misses its closed form\n");
  return ok ? 0 : 1;
}
