// The general SDE-ensemble module: a user-written system (Ornstein-Uhlenbeck) through the
// ensemble integrator against closed forms (OU mean and variance, free diffusion <x^2> = 2 D t)
// over a 2-D sweep, measured strong and weak orders of every stepper against the exact OU
// solution driven by the same Brownian path, and determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/ensemble.hpp"
#include "test_backend.hpp"

namespace parity_test_sde {

using parity::test::ExecSpace;
using parity::test::MemSpace;
namespace sde = parity::sde;

// dx = -theta x dt + sigma dW, x(0) = x0. Fields: 0 = theta, 1 = sigma.
template <class Real>
struct OrnsteinUhlenbeck {
  using real_type = Real;
  static constexpr int dim = 1, noise_dim = 1, wrapped = -1;
  Real theta = 1, sigma = 1, x0 = 1;
  KOKKOS_INLINE_FUNCTION Real period() const { return 0; }
  KOKKOS_INLINE_FUNCTION void set(int field, double v) {
    if (field == 0) theta = Real(v);
    if (field == 1) sigma = Real(v);
  }
  KOKKOS_INLINE_FUNCTION void drift(sde::Tick const&, sde::State<OrnsteinUhlenbeck> const& x,
                                    sde::State<OrnsteinUhlenbeck>& f) const {
    f[0] = -theta * x[0];
  }
  KOKKOS_INLINE_FUNCTION void noise(sde::Tick const&, sde::State<OrnsteinUhlenbeck> const&,
                                    sde::Noise<OrnsteinUhlenbeck> const& dW, sde::State<OrnsteinUhlenbeck>& out) const {
    out[0] = sigma * dW[0];
  }
  KOKKOS_INLINE_FUNCTION void initial(parity::random::PhiloxStream<Real>&, sde::State<OrnsteinUhlenbeck>& x) const {
    x[0] = x0;
  }
};

sde::EnsembleResult run_ou(sde::Stepper stepper, int paths, std::uint64_t seed = 7,
                           sde::NoiseLaw law = sde::NoiseLaw::gaussian, int sample_every = 25) {
  OrnsteinUhlenbeck<double> ou;
  sde::Sweep sweep;
  sweep.axis[0] = {1, 0.5, 1.0, 2};  // sigma in {0.5, 1}
  sweep.axis[1] = {0, 0.0, 2.0, 3};  // theta in {0, 1, 2}; theta = 0 is free diffusion, D = sigma^2 / 2
  sde::EnsembleConfig cfg;
  cfg.paths = paths;
  cfg.steps = 100;
  cfg.dt = 0.01;
  cfg.sample_every = sample_every;
  cfg.seed = seed;
  cfg.stepper = stepper;
  cfg.noise = law;
  return sde::integrate(ExecSpace(), ou, sweep, cfg);
}

void check_ou_moments(sde::Stepper stepper, sde::NoiseLaw law = sde::NoiseLaw::gaussian, int sample_every = 25) {
  int const paths = 8192;
  auto const r = run_ou(stepper, paths, 7, law, sample_every);
  ASSERT_EQ(r.params, 6);
  ASSERT_EQ(r.samples, (100 + sample_every - 1) / sample_every);
  double worst = 0;
  for (int s = 0; s < r.samples; ++s) {
    double const t = r.sample_steps[s] * 0.01;
    for (int p = 0; p < 6; ++p) {
      double const sigma = p / 3 == 0 ? 0.5 : 1.0, theta = (p % 3) * 1.0;
      double const m = std::exp(-theta * t);
      double const v = theta == 0 ? sigma * sigma * t : sigma * sigma / (2 * theta) * (1 - std::exp(-2 * theta * t));
      // Euler-Maruyama and Milstein (the same scheme for additive noise) are weak order 1.
      bool const first_order = stepper == sde::Stepper::euler_maruyama || stepper == sde::Stepper::milstein;
      double const bias = first_order ? 0.01 * t * theta * theta : 1e-4;
      double const mean = r.mean[s * 6 + p], var = r.variance[s * 6 + p];
      EXPECT_NEAR(mean, m, 5 * std::sqrt(v / paths) + bias) << "sample " << s << " point " << p;
      EXPECT_NEAR(var, v, 5 * v * std::sqrt(2.0 / paths) + bias * v) << "sample " << s << " point " << p;
      worst = std::max(worst, std::abs(var / v - 1) / std::sqrt(2.0 / paths));
    }
  }
  std::printf("  OU/free diffusion variance (%s, launches of %d): worst deviation %.2f standard errors\n",
              law == sde::NoiseLaw::five_point ? "five-point" : "gaussian", sample_every, worst);
}

TEST(SdeEnsemble, OrnsteinUhlenbeckAndFreeDiffusionEuler) { check_ou_moments(sde::Stepper::euler_maruyama); }
TEST(SdeEnsemble, OrnsteinUhlenbeckAndFreeDiffusionSrk2) { check_ou_moments(sde::Stepper::srk2); }
TEST(SdeEnsemble, OrnsteinUhlenbeckAndFreeDiffusionMilstein) { check_ou_moments(sde::Stepper::milstein); }
TEST(SdeEnsemble, OrnsteinUhlenbeckAndFreeDiffusionWeak2) { check_ou_moments(sde::Stepper::weak2); }
// Five-point noise (noise.hpp): the same closed forms. Launches of 25 steps read whole units of
// variates; of 7, the cursor.
TEST(SdeEnsemble, OrnsteinUhlenbeckAndFreeDiffusionFivePoint) {
  check_ou_moments(sde::Stepper::srk2, sde::NoiseLaw::five_point, 25);
  check_ou_moments(sde::Stepper::srk2, sde::NoiseLaw::five_point, 7);
  check_ou_moments(sde::Stepper::euler_maruyama, sde::NoiseLaw::five_point, 25);
}

TEST(SdeEnsemble, SameSeedSameNumbers) {
  auto const a = run_ou(sde::Stepper::srk2, 1000, 3), b = run_ou(sde::Stepper::srk2, 1000, 3);
  auto const c = run_ou(sde::Stepper::srk2, 1000, 4);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.variance, b.variance);
  EXPECT_NE(a.mean, c.mean);
}

// Strong and weak errors at T = 1 with n steps, for paths coupled to the exact OU solution: per
// step, (dW, I = int e^{-theta (h - s)} dW(s)) are drawn exactly from their joint normal law, so
// the exact solution x_e <- e^{-theta h} x_e + sigma I sees the same Brownian path as the scheme.
// Returns {mean |x - x_e|, mean (x^2 - x_e^2)} (the second is the weak error of E[x^2] exactly in
// expectation, with a variance set by the strong error).
template <sde::Stepper S>
std::vector<double> coupled_errors(int n, int paths) {
  double const theta = 1, sigma = 1, h = 1.0 / n;
  double const e = std::exp(-theta * h), c = std::sqrt(h);
  double const cov = (1 - e) / theta, var_i = (1 - std::exp(-2 * theta * h)) / (2 * theta);
  double const a = cov / c, b = std::sqrt(var_i - a * a);
  Kokkos::View<double*, MemSpace> strong("strong", paths), weak("weak", paths);
  OrnsteinUhlenbeck<double> ou;
  Kokkos::parallel_for(
      "parity::test::sde_coupled", Kokkos::RangePolicy<ExecSpace>(0, paths), KOKKOS_LAMBDA(int i) {
        sde::NormalCursor<double> z(99, std::uint64_t(i), 0);
        sde::State<OrnsteinUhlenbeck<double>> x;
        x[0] = 1;
        double xe = 1;
        for (int k = 0; k < n; ++k) {
          double const z1 = z.next(), z2 = z.next();
          sde::Noise<OrnsteinUhlenbeck<double>> dW;
          dW[0] = c * z1;
          sde::step_once<S>(ou, sde::Tick{k}, h, x, dW);
          xe = e * xe + sigma * (a * z1 + b * z2);
        }
        strong(i) = Kokkos::abs(x[0] - xe);
        weak(i) = x[0] * x[0] - xe * xe;
      });
  double s = 0, w = 0;
  Kokkos::parallel_reduce(
      "parity::test::sde_coupled_sum", Kokkos::RangePolicy<ExecSpace>(0, paths),
      KOKKOS_LAMBDA(int i, double& a1, double& a2) {
        a1 += strong(i);
        a2 += weak(i);
      },
      s, w);
  return {s / paths, w / paths};
}

double fitted_order(std::vector<double> const& h, std::vector<double> const& err) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int const m = int(h.size());
  for (int i = 0; i < m; ++i) {
    double const x = std::log(h[i]), y = std::log(std::abs(err[i]));
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

template <sde::Stepper S>
void measure_orders(double& strong, double& weak, std::vector<double>& weak_err) {
  std::vector<double> hs, se;
  weak_err.clear();
  for (int n : {2, 4, 8, 16}) {
    auto const e = coupled_errors<S>(n, 1 << 16);
    hs.push_back(1.0 / n);
    se.push_back(e[0]);
    weak_err.push_back(e[1]);
  }
  strong = fitted_order(hs, se);
  weak = fitted_order(hs, weak_err);
}

TEST(SdeEnsemble, MeasuredOrders) {
  double s_em, w_em, s_rk, w_rk, s_mi, w_mi, s_w2, w_w2;
  std::vector<double> e_em, e_rk, e_mi, e_w2;
  measure_orders<sde::Stepper::euler_maruyama>(s_em, w_em, e_em);
  measure_orders<sde::Stepper::srk2>(s_rk, w_rk, e_rk);
  measure_orders<sde::Stepper::milstein>(s_mi, w_mi, e_mi);
  measure_orders<sde::Stepper::weak2>(s_w2, w_w2, e_w2);
  std::printf("  Euler-Maruyama: strong order %.3f, weak order %.3f (E[x^2] errors %.2e .. %.2e)\n", s_em, w_em,
              e_em.front(), e_em.back());
  std::printf("  SRK2:           strong order %.3f, weak order %.3f (E[x^2] errors %.2e .. %.2e)\n", s_rk, w_rk,
              e_rk.front(), e_rk.back());
  std::printf("  Milstein:       strong order %.3f, weak order %.3f (E[x^2] errors %.2e .. %.2e)\n", s_mi, w_mi,
              e_mi.front(), e_mi.back());
  std::printf("  weak2:          strong order %.3f, weak order %.3f (E[x^2] errors %.2e .. %.2e)\n", s_w2, w_w2,
              e_w2.front(), e_w2.back());
  // Additive noise: both are strong order 1; weak order 1 (Euler) and 2 (SRK2).
  EXPECT_GT(s_em, 0.85);
  EXPECT_LT(s_em, 1.15);
  EXPECT_GT(s_rk, 0.85);
  EXPECT_LT(s_rk, 1.15);
  EXPECT_GT(w_em, 0.8);
  EXPECT_LT(w_em, 1.35);  // pre-asymptotic at h = 1/2: measured 1.21
  EXPECT_GT(w_rk, 1.7);
  EXPECT_LT(w_rk, 2.4);
  EXPECT_LT(std::abs(e_rk.back()), 0.2 * std::abs(e_em.back()));
  // Milstein's correction vanishes for additive noise: Euler-Maruyama's orders. weak2: strong 1,
  // weak 2.
  EXPECT_NEAR(s_mi, 1, 0.15);
  EXPECT_NEAR(w_mi, w_em, 1e-9);
  EXPECT_NEAR(s_w2, 1, 0.15);
  EXPECT_NEAR(w_w2, 2, 0.2);
}

}  // namespace parity_test_sde
