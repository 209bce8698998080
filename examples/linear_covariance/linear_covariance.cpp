// A linear 3-state system with correlated noise, dX = A X dt + B dW, through parity::sde::integrate:
// the ensemble's mean and covariance matrix at each sample against the closed form
//   m(t) = e^{A t} x0,   C' = A C + C A^T + B B^T, C(0) = 0   (the Lyapunov ODE),
// integrated here independently by RK4 with a step far below the SDE's. The noise has correlation
// matrix R and scales s: B = diag(s) L with L the Cholesky factor of R (B B^T = diag(s) R diag(s)),
// applied in noise(). With additive noise the SRK2 (Heun) scheme is of weak order 2, so at dt = 0.01
// its bias is far below the sampling error: every mean must lie within four standard errors, every
// covariance entry within four of its standard deviations sqrt((C_ii C_jj + C_ij^2) / n).
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>

#include "parity/sde/ensemble.hpp"

namespace sde = parity::sde;

struct Linear3 {
  using real_type = double;
  static constexpr int dim = 3, noise_dim = 3;

  double A[3][3] = {{-1.0, 0.3, 0.0}, {0.2, -0.8, 0.4}, {0.0, -0.5, -1.5}};
  double B[3][3] = {};  // lower triangular, set from the correlation in main()
  double x0[3] = {1.0, 0.0, -1.0};

  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<Linear3> const& x, sde::State<Linear3>& f) const {
    for (int i = 0; i < 3; ++i) f[i] = A[i][0] * x[0] + A[i][1] * x[1] + A[i][2] * x[2];
  }
  // Correlated increments B dW from independent dW (each of variance dt).
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<Linear3> const&, sde::Noise<Linear3> const& dW,
                             sde::State<Linear3>& gdw) const {
    for (int i = 0; i < 3; ++i) gdw[i] = B[i][0] * dW[0] + B[i][1] * dW[1] + B[i][2] * dW[2];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<Linear3>& x) const {
    for (int i = 0; i < 3; ++i) x[i] = x0[i];
  }
};

using Matrix = double[3][3];

// dm/dt = A m and dC/dt = A C + C A^T + Q from t = 0 to T by RK4 (m(0) = x0, C(0) = 0).
void exact_moments(Linear3 const& s, Matrix const& Q, double T, double m[3], Matrix& C) {
  int const steps = int(std::ceil(T / 1e-4));
  double const h = T / steps;
  auto rhs = [&](double const(&y)[12], double(&dy)[12]) {
    for (int i = 0; i < 3; ++i) dy[i] = s.A[i][0] * y[0] + s.A[i][1] * y[1] + s.A[i][2] * y[2];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double v = Q[i][j];
        for (int k = 0; k < 3; ++k) v += s.A[i][k] * y[3 + 3 * k + j] + y[3 + 3 * i + k] * s.A[j][k];
        dy[3 + 3 * i + j] = v;
      }
  };
  double y[12] = {s.x0[0], s.x0[1], s.x0[2]};
  for (int n = 0; n < steps; ++n) {
    double k1[12], k2[12], k3[12], k4[12], t[12];
    rhs(y, k1);
    for (int i = 0; i < 12; ++i) t[i] = y[i] + 0.5 * h * k1[i];
    rhs(t, k2);
    for (int i = 0; i < 12; ++i) t[i] = y[i] + 0.5 * h * k2[i];
    rhs(t, k3);
    for (int i = 0; i < 12; ++i) t[i] = y[i] + h * k3[i];
    rhs(t, k4);
    for (int i = 0; i < 12; ++i) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  for (int i = 0; i < 3; ++i) m[i] = y[i];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C[i][j] = y[3 + 3 * i + j];
}

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;

  Matrix const R = {{1.0, 0.6, -0.3}, {0.6, 1.0, 0.2}, {-0.3, 0.2, 1.0}};
  double const scale[3] = {0.5, 0.3, 0.4};
  Linear3 system;
  Matrix L = {};  // Cholesky factor of R
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j <= i; ++j) {
      double v = R[i][j];
      for (int k = 0; k < j; ++k) v -= L[i][k] * L[j][k];
      L[i][j] = i == j ? std::sqrt(v) : v / L[j][j];
    }
  Matrix Q;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      system.B[i][j] = scale[i] * L[i][j];
      Q[i][j] = scale[i] * R[i][j] * scale[j];  // from R itself, not from the factor
    }

  sde::EnsembleConfig cfg;
  cfg.paths = 1 << 18;
  cfg.dt = 0.01;
  cfg.steps = 200;  // T = 2
  cfg.sample_every = 50;
  cfg.seed = 5;
  cfg.stepper = sde::Stepper::srk2;  // covariance (on by default) adds the covariance matrix per sample
  cfg.label = "linear";  // profiles name its phases parity::linear::<phase>

  auto const r = sde::integrate(Space(), system, sde::Sweep{}, cfg);

  double const n = cfg.paths;
  double worst = 0;  // the largest deviation, in standard errors
  for (int s = 0; s < r.samples; ++s) {
    double const t = double(r.sample_steps[s]) * cfg.dt;
    double m[3];
    Matrix C;
    exact_moments(system, Q, t, m, C);
    std::printf("t = %.2f\n", t);
    for (int i = 0; i < 3; ++i) {
      double const got = r.mean[std::size_t(s) * 3 + i], error = r.mean_error[std::size_t(s) * 3 + i];
      double const z = (got - m[i]) / error;
      worst = std::fmax(worst, std::isfinite(z) ? std::abs(z) : 1e300);
      std::printf("  mean[%d]     %9.5f +- %.5f  exact %9.5f  (%+.2f)\n", i, got, error, m[i], z);
    }
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) {
        double const got = r.covariance[(std::size_t(s) * 3 + i) * 3 + j];
        double const error = std::sqrt((C[i][i] * C[j][j] + C[i][j] * C[i][j]) / n);
        double const z = (got - C[i][j]) / error;
        worst = std::fmax(worst, std::isfinite(z) ? std::abs(z) : 1e300);
        std::printf("  cov[%d][%d]   %9.5f +- %.5f  exact %9.5f  (%+.2f)\n", i, j, got, error, C[i][j], z);
      }
  }
  bool const ok = worst < 4;
  std::printf("%d paths; largest deviation %.2f standard errors\n", cfg.paths, worst);
  if (!ok) std::fprintf(stderr, "FAILED: the ensemble moments do not meet the closed form\n");
  return ok ? 0 : 1;
}
