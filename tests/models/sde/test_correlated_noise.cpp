// Correlated Wiener processes (correlated_noise.hpp, EnsembleConfig::correlation) and shared
// Brownian paths across step sizes (EnsembleConfig::noise_refinement), on a linear 3-state system
// with multiplicative noise: dX = A X dt + sum_j diag(beta_j) X dW_j, E[dW_i dW_j] = C_ij dt.
// Its mean solves m' = A m and its second moments M = E[X X^T] the Lyapunov-type ODE
// M' = A M + M A^T + sum_ij C_ij diag(beta_i) M diag(beta_j), integrated here by RK4 (an
// independent computation). The noise is commutative (diagonal matrices commute), so Milstein and
// weak2 are strong order 1 on it. Three more components carry x_i + x_j, whose variances give the
// covariances through the ensemble's per-component moments.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/correlated_noise.hpp"
#include "parity/sde/ensemble.hpp"
#include "test_backend.hpp"

namespace parity_test_sde_correlated {

using parity::test::ExecSpace;
using parity::test::MemSpace;
namespace sde = parity::sde;
using Mat = std::array<std::array<double, 3>, 3>;

// Coefficients as members: the kernels copy the system (namespace-scope arrays are host memory).
struct Coefficients {
  double a[3][3] = {{-0.5, 0.4, 0.0}, {0.0, -0.3, 0.3}, {0.2, 0.0, -0.6}};
  double beta[3][3] = {{0.4, 0.2, 0.1}, {0.1, 0.3, 0.2}, {0.2, 0.1, 0.35}};  // beta[j][k]
  double x0[3] = {1.0, 0.5, 0.8};
  int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
};
std::vector<double> const correlation = {1, 0.6, -0.3, 0.6, 1, 0.2, -0.3, 0.2, 1};

struct Linear3 : Coefficients {
  using real_type = double;
  static constexpr int dim = 6, noise_dim = 3;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<Linear3> const& x, sde::State<Linear3>& f) const {
    for (int k = 0; k < 3; ++k) f[k] = a[k][0] * x[0] + a[k][1] * x[1] + a[k][2] * x[2];
    for (int p = 0; p < 3; ++p) f[3 + p] = f[pairs[p][0]] + f[pairs[p][1]];
  }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<Linear3> const& x, sde::Noise<Linear3> const& dw,
                             sde::State<Linear3>& g) const {
    for (int k = 0; k < 3; ++k) g[k] = (beta[0][k] * dw[0] + beta[1][k] * dw[1] + beta[2][k] * dw[2]) * x[k];
    for (int p = 0; p < 3; ++p) g[3 + p] = g[pairs[p][0]] + g[pairs[p][1]];
  }
  KOKKOS_FUNCTION void start(sde::State<Linear3>& x) const {
    for (int k = 0; k < 3; ++k) x[k] = x0[k];
    for (int p = 0; p < 3; ++p) x[3 + p] = x0[pairs[p][0]] + x0[pairs[p][1]];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<Linear3>& x) const { start(x); }
};
Coefficients const coef;
auto const& A = coef.a;
auto const& beta = coef.beta;
auto const& x0 = coef.x0;
auto const& pairs = coef.pairs;

// m(T) and M(T) by RK4 on the moment ODEs (4000 steps: errors ~1e-15).
void closed_form(double T, std::vector<double> const& c, std::array<double, 3>& m, Mat& M) {
  auto rhs = [&](std::array<double, 3> const& mm, Mat const& MM, std::array<double, 3>& dm, Mat& dM) {
    for (int k = 0; k < 3; ++k) {
      dm[k] = 0;
      for (int l = 0; l < 3; ++l) dm[k] += A[k][l] * mm[l];
    }
    for (int k = 0; k < 3; ++k)
      for (int l = 0; l < 3; ++l) {
        double v = 0;
        for (int q = 0; q < 3; ++q) v += A[k][q] * MM[q][l] + MM[k][q] * A[l][q];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) v += c[i * 3 + j] * beta[i][k] * MM[k][l] * beta[j][l];
        dM[k][l] = v;
      }
  };
  for (int k = 0; k < 3; ++k) {
    m[k] = x0[k];
    for (int l = 0; l < 3; ++l) M[k][l] = x0[k] * x0[l];
  }
  int const n = 4000;
  double const h = T / n;
  for (int s = 0; s < n; ++s) {
    std::array<double, 3> km[4], mt;
    Mat kM[4], Mt;
    for (int st = 0; st < 4; ++st) {
      double const w = st == 0 ? 0 : (st == 3 ? 1 : 0.5);
      for (int k = 0; k < 3; ++k) {
        mt[k] = m[k] + (st ? w * h * km[st - 1][k] : 0);
        for (int l = 0; l < 3; ++l) Mt[k][l] = M[k][l] + (st ? w * h * kM[st - 1][k][l] : 0);
      }
      rhs(mt, Mt, km[st], kM[st]);
    }
    for (int k = 0; k < 3; ++k) {
      m[k] += h / 6 * (km[0][k] + 2 * km[1][k] + 2 * km[2][k] + km[3][k]);
      for (int l = 0; l < 3; ++l) M[k][l] += h / 6 * (kM[0][k][l] + 2 * kM[1][k][l] + 2 * kM[2][k][l] + kM[3][k][l]);
    }
  }
}

// Mean and variance of the 6 components from the closed form.
void closed_moments(std::vector<double> const& c, double mean[6], double var[6]) {
  std::array<double, 3> m;
  Mat M;
  closed_form(1.0, c, m, M);
  for (int k = 0; k < 3; ++k) mean[k] = m[k], var[k] = M[k][k] - m[k] * m[k];
  for (int p = 0; p < 3; ++p) {
    int const i = pairs[p][0], j = pairs[p][1];
    mean[3 + p] = m[i] + m[j];
    var[3 + p] = M[i][i] + M[j][j] + 2 * M[i][j] - mean[3 + p] * mean[3 + p];
  }
}

TEST(SdeCorrelatedNoise, CholeskyFactor) {
  auto const l = sde::cholesky_factor(correlation, 3);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += l[i * 3 + k] * l[j * 3 + k];
      EXPECT_NEAR(s, correlation[i * 3 + j], 1e-15);
      if (j > i) EXPECT_EQ(l[i * 3 + j], 0.0);
    }
  // Perfectly correlated processes: a zero column, L L^T still C.
  auto const p = sde::cholesky_factor({1, 1, 1, 1}, 2);
  EXPECT_EQ(p, (std::vector<double>{1, 0, 1, 0}));
  EXPECT_THROW(sde::cholesky_factor({1, 0.9, 0.9, 0.9, 1, -0.9, 0.9, -0.9, 1}, 3), parity::InvalidInput);
  EXPECT_THROW(sde::cholesky_factor({1, 0.5, 0.4, 1}, 2), parity::InvalidInput);
  EXPECT_THROW(sde::cholesky_factor({2, 0, 0, 1}, 2), parity::InvalidInput);
  EXPECT_THROW(sde::cholesky_factor({1, 0, 0}, 2), parity::InvalidInput);
}

sde::EnsembleResult run(sde::Stepper stepper, int steps, int refinement, int paths, bool correlated = true) {
  sde::EnsembleConfig cfg;
  cfg.paths = paths;
  cfg.steps = steps;
  cfg.dt = 1.0 / steps;
  cfg.sample_every = steps;
  cfg.seed = 11;
  cfg.stepper = stepper;
  cfg.noise_refinement = refinement;
  if (correlated) cfg.correlation = correlation;
  return sde::integrate(ExecSpace(), Linear3{}, sde::Sweep{}, cfg);
}

// Moments at T = 1 against the closed form, within five standard errors plus the scheme's bias
// (64 steps). The sums' variances hold the covariances, so independent noise fails this test: the
// closed forms with and without the correlation differ by many standard errors (checked first).
void check_moments(sde::Stepper stepper, double bias) {
  int const paths = 1 << 15;
  double mean[6], var[6], mean_i[6], var_i[6];
  closed_moments(correlation, mean, var);
  closed_moments({1, 0, 0, 0, 1, 0, 0, 0, 1}, mean_i, var_i);
  EXPECT_GT(std::abs(var[3] - var_i[3]), 20 * var[3] * std::sqrt(2.0 / paths));
  auto const r = run(stepper, 64, 1, paths);
  double worst = 0;
  for (int k = 0; k < 6; ++k) {
    double const se_var = var[k] * std::sqrt(3.0 / paths);  // heavier tails than a normal's sqrt(2 / n)
    EXPECT_NEAR(r.mean[k], mean[k], 5 * std::sqrt(var[k] / paths) + bias * std::abs(mean[k])) << k;
    EXPECT_NEAR(r.variance[k], var[k], 5 * se_var + bias * var[k]) << k;
    worst = std::max(worst, std::abs(r.variance[k] - var[k]) / se_var);
  }
  std::printf("  variances and covariances: worst deviation %.2f standard errors\n", worst);
}

TEST(SdeCorrelatedNoise, MomentsEulerMaruyama) { check_moments(sde::Stepper::euler_maruyama, 0.03); }
TEST(SdeCorrelatedNoise, MomentsSrk2) { check_moments(sde::Stepper::srk2, 0.03); }
TEST(SdeCorrelatedNoise, MomentsMilstein) { check_moments(sde::Stepper::milstein, 0.03); }
TEST(SdeCorrelatedNoise, MomentsWeak2) { check_moments(sde::Stepper::weak2, 0.002); }

// Weak orders without Monte Carlo error: with five-point increments (noise.hpp; the normal's
// moments through the fifth, which is all weak order 2 asks of them) a step of a linear system is
// x -> Phi x with Phi a function of finitely many equally weighted outcomes, so the scheme's exact
// second moments obey M_{n+1} = sum_outcomes p Phi M Phi^T. Phi is read off the stepper itself
// (step_once on basis states, through the same correlating wrapper as the ensemble's), and
// || M_h(T) - M(T) || against the closed form gives the scheme's weak error exactly: its slope over
// h = 1/8 .. 1/64 is the weak order, with nothing random to hide a wrong term.
template <sde::Stepper S>
double weak_order() {
  auto const l = sde::cholesky_factor(correlation, 3);
  Linear3 const sys;
  sde::CorrelatedNoise<Linear3> const cs(sys, l.data());
  double const va[5] = {0, sde::five_point_a, -sde::five_point_a, sde::five_point_b, -sde::five_point_b};
  double const pa[5] = {6.0 / 16, 4.0 / 16, 4.0 / 16, 1.0 / 16, 1.0 / 16};
  int const sign_patterns = S == sde::Stepper::weak2 ? 8 : 1;
  std::array<double, 3> m;
  Mat exact;
  closed_form(1.0, correlation, m, exact);
  std::vector<double> errors;
  for (int n : {8, 16, 32, 64}) {
    double const h = 1.0 / n;
    std::vector<std::pair<double, Mat>> phis;
    for (int c = 0; c < 125 * sign_patterns; ++c) {
      int const o[3] = {c % 5, c / 5 % 5, c / 25 % 5};
      sde::Noise<Linear3> dw;
      for (int q = 0; q < 3; ++q) dw[q] = std::sqrt(h) * va[o[q]];
      Mat phi;
      for (int k = 0; k < 3; ++k) {
        sde::State<Linear3> x;
        for (int i = 0; i < 6; ++i) x[i] = 0;
        x[k] = 1;
        for (int p = 0; p < 3; ++p) x[3 + p] = x[pairs[p][0]] + x[pairs[p][1]];
        sde::step_once<S>(cs, sde::Tick{0}, h, x, dw, std::uint64_t(c / 125));
        for (int i = 0; i < 3; ++i) phi[i][k] = x[i];
      }
      phis.push_back({pa[o[0]] * pa[o[1]] * pa[o[2]] / sign_patterns, phi});
    }
    Mat M;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) M[i][j] = x0[i] * x0[j];
    for (int step = 0; step < n; ++step) {
      Mat next{};
      for (auto const& [p, phi] : phis) {
        Mat pm{};
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) pm[i][j] += phi[i][k] * M[k][j];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) next[i][j] += p * pm[i][k] * phi[j][k];
      }
      M = next;
    }
    double e = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) e += (M[i][j] - exact[i][j]) * (M[i][j] - exact[i][j]);
    errors.push_back(std::sqrt(e));
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < 4; ++i) {
    double const x = std::log(1.0 / (8 << i)), y = std::log(errors[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  double const p = (4 * sxy - sx * sy) / (4 * sxx - sx * sx);
  std::printf("  weak order %.3f (|M_h - M| %.2e .. %.2e)\n", p, errors.front(), errors.back());
  return p;
}

TEST(SdeCorrelatedNoise, WeakOrders) {
  EXPECT_NEAR(weak_order<sde::Stepper::euler_maruyama>(), 1, 0.2);
  EXPECT_NEAR(weak_order<sde::Stepper::srk2>(), 1, 0.2);
  EXPECT_NEAR(weak_order<sde::Stepper::milstein>(), 1, 0.2);
  EXPECT_NEAR(weak_order<sde::Stepper::weak2>(), 2, 0.2);
}

// A refined run reads the fine grid's variates: with additive noise and Euler-Maruyama (x = sum of
// the increments, dx = dW) a run of 8 steps with refinement 4 ends where one of 32 steps does, path
// by path, so their means agree to rounding while independent draws would differ by ~1/sqrt(paths).
struct Walk {
  using real_type = double;
  static constexpr int dim = 2, noise_dim = 2;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<Walk> const&, sde::State<Walk>& f) const { f[0] = f[1] = 0; }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<Walk> const&, sde::Noise<Walk> const& dw,
                             sde::State<Walk>& g) const {
    g[0] = dw[0];
    g[1] = dw[1];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<Walk>& x) const { x[0] = x[1] = 0; }
};

TEST(SdeCorrelatedNoise, RefinementSharesTheBrownianPath) {
  auto walk = [](int steps, int refinement) {
    sde::EnsembleConfig cfg;
    cfg.paths = 4096;
    cfg.steps = steps;
    cfg.dt = 1.0 / steps;
    cfg.sample_every = steps;
    cfg.stepper = sde::Stepper::euler_maruyama;
    cfg.noise_refinement = refinement;
    cfg.correlation = {1, -0.5, -0.5, 1};
    return sde::integrate(ExecSpace(), Walk{}, sde::Sweep{}, cfg);
  };
  auto const a = walk(8, 4), b = walk(32, 1), c = walk(32, 2);
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(a.mean[k], b.mean[k], 1e-13);
    EXPECT_NEAR(a.variance[k], b.variance[k], 1e-12);
    EXPECT_NEAR(b.variance[k], 1.0, 5 * std::sqrt(2.0 / 4096));
    EXPECT_GT(std::abs(c.mean[k] - b.mean[k]) + std::abs(c.variance[k] - b.variance[k]), 1e-4);  // other path
  }
}

// Strong orders by self-convergence on the same Brownian paths: E|X_h - X_{h/2}| over the first
// three components for 4 .. 64 steps, each path's increments drawn on the 64-step grid and
// correlated through the same wrapper as the ensemble's.
template <sde::Stepper S>
double strong_order() {
  int const paths = 1 << 13, fine = 64;
  auto const l = sde::cholesky_factor(correlation, 3);
  Kokkos::View<double*, MemSpace> factor("parity::test::factor", 9);
  auto fh = Kokkos::create_mirror_view(factor);
  for (int i = 0; i < 9; ++i) fh(i) = l[i];
  Kokkos::deep_copy(factor, fh);
  Kokkos::View<double* [5], MemSpace> ends("parity::test::ends", paths * 3);
  Kokkos::parallel_for(
      "parity::test::strong_self", Kokkos::RangePolicy<ExecSpace>(0, paths), KOKKOS_LAMBDA(int i) {
        Linear3 const sys;
        sde::CorrelatedNoise<Linear3> const cs(sys, factor.data());
        for (int lev = 0; lev < 5; ++lev) {
          int const n = 4 << lev, r = fine / n;
          sde::NormalCursor<double> z(17, std::uint64_t(i), 0, Kokkos::sqrt(1.0 / fine));
          sde::State<Linear3> x;
          sys.start(x);
          for (int k = 0; k < n; ++k) {
            sde::Noise<Linear3> d;
            for (int q = 0; q < 3; ++q) d[q] = 0;
            for (int u = 0; u < r; ++u)
              for (int q = 0; q < 3; ++q) d[q] += z.next();
            sde::step_once<S>(cs, sde::Tick{k}, 1.0 / n, x, d, std::uint64_t(i) * 2654435761u + k);
          }
          for (int k = 0; k < 3; ++k) ends(i * 3 + k, lev) = x[k];
        }
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ends);
  double err[4] = {0, 0, 0, 0};
  for (int i = 0; i < paths * 3; ++i)
    for (int lev = 0; lev < 4; ++lev) err[lev] += std::abs(h(i, lev) - h(i, lev + 1)) / paths;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int lev = 0; lev < 4; ++lev) {
    double const x = std::log(1.0 / (4 << lev)), y = std::log(err[lev]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  double const p = (4 * sxy - sx * sy) / (4 * sxx - sx * sx);
  std::printf("  strong order %.3f (E|X_h - X_h/2| %.2e .. %.2e)\n", p, err[0], err[3]);
  return p;
}

TEST(SdeCorrelatedNoise, StrongOrders) {
  EXPECT_NEAR(strong_order<sde::Stepper::euler_maruyama>(), 0.5, 0.2);
  EXPECT_NEAR(strong_order<sde::Stepper::srk2>(), 0.5, 0.2);
  EXPECT_NEAR(strong_order<sde::Stepper::milstein>(), 1, 0.2);
  EXPECT_NEAR(strong_order<sde::Stepper::weak2>(), 1, 0.2);
}

}  // namespace parity_test_sde_correlated
