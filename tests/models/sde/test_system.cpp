// A user's system with only the required parts (system.hpp): geometric Brownian motion, no wrapped
// component, no period, no set(). Its Euler-Maruyama moments have a closed form for the scheme
// itself, E[X_{n+1}] = (1 + mu dt) E[X_n] and E[X_{n+1}^2] = ((1 + mu dt)^2 + sigma^2 dt) E[X_n^2],
// against which the ensemble's mean and variance are checked within their sampling error; a sweep
// of such a system is refused.
#include <gtest/gtest.h>

#include <cmath>

#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/ensemble.hpp"
#include "test_backend.hpp"

namespace parity_test_sde_system {

using parity::test::ExecSpace;
namespace sde = parity::sde;

struct Gbm {
  using real_type = double;
  static constexpr int dim = 1, noise_dim = 1;
  double mu = 0.5, sigma = 0.4;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<Gbm> const& x, sde::State<Gbm>& f) const { f[0] = mu * x[0]; }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<Gbm> const& x, sde::Noise<Gbm> const& dw,
                             sde::State<Gbm>& g) const {
    g[0] = sigma * x[0] * dw[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<Gbm>& x) const { x[0] = 1; }
};
static_assert(sde::wrapped_of<Gbm>() == -1 && !sde::sweepable<Gbm>);
static_assert(sde::EnsembleSystem<Gbm>);

// What the concept refuses: each lacks one requirement of Gbm.
struct NoInitial {
  using real_type = double;
  static constexpr int dim = 1, noise_dim = 1;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<NoInitial> const&, sde::State<NoInitial>&) const {}
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<NoInitial> const&, sde::Noise<NoInitial> const&,
                             sde::State<NoInitial>&) const {}
};
struct LongDouble : Gbm {
  using real_type = long double;
};
struct NoNoise {
  using real_type = float;
  static constexpr int dim = 2, noise_dim = 0;
};
static_assert(!sde::EnsembleSystem<NoInitial> && !sde::EnsembleSystem<LongDouble> && !sde::EnsembleSystem<NoNoise> &&
              !sde::EnsembleSystem<int>);

sde::EnsembleResult run(sde::Sweep const& sweep) {
  sde::EnsembleConfig cfg;
  cfg.paths = 1 << 16;
  cfg.steps = 50;
  cfg.dt = 0.02;
  cfg.sample_every = 10;
  cfg.stepper = sde::Stepper::euler_maruyama;
  return sde::integrate(ExecSpace(), Gbm{}, sweep, cfg);
}

TEST(SdeSystem, GeometricBrownianMotionHasTheSchemesMoments) {
  auto const r = run(sde::Sweep{});
  ASSERT_EQ(r.samples, 5);
  Gbm const g;
  double const n = 1 << 16;
  for (int s = 0; s < r.samples; ++s) {
    long const steps = r.sample_steps[s];
    double const m1 = std::pow(1 + g.mu * 0.02, double(steps));
    double const m2 = std::pow((1 + g.mu * 0.02) * (1 + g.mu * 0.02) + g.sigma * g.sigma * 0.02, double(steps));
    double const var = m2 - m1 * m1;
    // Five standard errors of the mean, and of the sample variance, sqrt((mu4 - var^2) / n), with the
    // fourth central moment mu4 of a lognormal of the same two moments (w = m2 / m1^2):
    // mu4 = m1^4 (w^6 - 4 w^3 + 6 w - 3).
    EXPECT_NEAR(r.mean[s], m1, 5 * std::sqrt(var / n)) << steps;
    double const w = m2 / (m1 * m1), mu4 = std::pow(m1, 4) * (std::pow(w, 6) - 4 * std::pow(w, 3) + 6 * w - 3);
    EXPECT_NEAR(r.variance[s], var, 5 * std::sqrt((mu4 - var * var) / n)) << steps;
  }
  EXPECT_NE(r.mean[4], r.mean[0]);
}

TEST(SdeSystem, ASystemWithoutSetCannotBeSwept) {
  sde::Sweep sweep;
  sweep.axis[0] = {0, 0.0, 1.0, 2};
  EXPECT_THROW(run(sweep), parity::InvalidInput);
}

}  // namespace parity_test_sde_system
