// Strong and weak orders of every scheme (stepper.hpp) on geometric Brownian motion, read in Ito's
// sense (all four schemes) and in Stratonovich's (srk2 = Heun, milstein), against the exact solution
// driven by the same Brownian path: X_T = exp((mu - sigma^2 / 2) T + sigma W_T) (Ito) or
// exp(mu T + sigma W_T) (Stratonovich), whose moments E X_T = e^{mu T}, E X_T^2 =
// e^{(2 mu + sigma^2) T} (Ito; Stratonovich: e^{(mu + sigma^2 / 2) T}, e^{2 (mu + sigma^2) T}) are
// checked as well. Each path draws its increments on the finest grid; a coarser run sums them, so
// every step size sees the same Brownian path.
//
// Strong error: E|X_h - X_T|. Weak error: E[X_h^2] - E[X_T^2], estimated by the mean of
// X_h^2 - X_T^2 over the paths. That difference has expectation exactly the scheme's weak error
// (E X_T^2 is the closed form, checked separately) and a spread set by the strong error, far below
// the weak error at these step sizes, so the bias, not Monte Carlo noise, sets the fitted slope: a
// scheme of the wrong weak order (a missing or wrong correction term, a wrong time of evaluation)
// gives a slope off by 1 or more and fails the 0.2 tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "parity/sde/noise.hpp"
#include "parity/sde/stepper.hpp"
#include "test_backend.hpp"

namespace parity_test_sde_scheme_orders {

using parity::test::ExecSpace;
using parity::test::MemSpace;
namespace sde = parity::sde;

template <bool Stratonovich>
struct Gbm {
  using real_type = double;
  static constexpr int dim = 1, noise_dim = 1;
  static constexpr bool stratonovich = Stratonovich;
  double mu = 1.0, sigma = 0.5;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<Gbm> const& x, sde::State<Gbm>& f) const { f[0] = mu * x[0]; }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<Gbm> const& x, sde::Noise<Gbm> const& dw,
                             sde::State<Gbm>& g) const {
    g[0] = sigma * x[0] * dw[0];
  }
};

constexpr int fine = 128, levels = 4;  // steps 8, 16, 32, 64 over T = 1 (fine: the exact solution's path)
constexpr double horizon = 1;

struct Measured {
  double strong_order, weak_order;
  std::vector<double> strong, weak;  // per level
  double exact_m1, exact_m2;  // the exact solutions' sample moments
};

double fitted_order(std::vector<double> const& err) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int const m = int(err.size());
  for (int i = 0; i < m; ++i) {
    double const x = std::log(horizon / (8 << i)), y = std::log(std::abs(err[i]));
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

template <sde::Stepper S, bool Strat>
Measured measure(int paths) {
  using System = Gbm<Strat>;
  System const sys;
  Kokkos::View<double * [2 * levels + 2], MemSpace> out("parity::test::gbm_errors", paths);
  Kokkos::parallel_for(
      "parity::test::gbm_orders", Kokkos::RangePolicy<ExecSpace>(0, paths), KOKKOS_LAMBDA(int i) {
        double const hf = horizon / fine;
        sde::NormalCursor<double> z(5, std::uint64_t(i), 0, Kokkos::sqrt(hf));
        double dw[fine], w = 0;
        for (int k = 0; k < fine; ++k) w += (dw[k] = z.next());
        double const xe =
            Kokkos::exp((Strat ? sys.mu : sys.mu - 0.5 * sys.sigma * sys.sigma) * horizon + sys.sigma * w);
        for (int l = 0; l < levels; ++l) {
          int const n = 8 << l, r = fine / n;
          sde::State<System> x;
          x[0] = 1;
          for (int k = 0; k < n; ++k) {
            sde::Noise<System> d;
            d[0] = 0;
            for (int q = 0; q < r; ++q) d[0] += dw[k * r + q];
            sde::step_once<S>(sys, sde::Tick{k}, horizon / n, x, d);
          }
          out(i, 2 * l) = Kokkos::abs(x[0] - xe);
          out(i, 2 * l + 1) = x[0] * x[0] - xe * xe;
        }
        out(i, 2 * levels) = xe;
        out(i, 2 * levels + 1) = xe * xe;
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  Measured m{0, 0, std::vector<double>(levels, 0.0), std::vector<double>(levels, 0.0), 0, 0};
  for (int i = 0; i < paths; ++i) {
    for (int l = 0; l < levels; ++l) m.strong[l] += h(i, 2 * l) / paths, m.weak[l] += h(i, 2 * l + 1) / paths;
    m.exact_m1 += h(i, 2 * levels) / paths;
    m.exact_m2 += h(i, 2 * levels + 1) / paths;
  }
  m.strong_order = fitted_order(m.strong);
  m.weak_order = fitted_order(m.weak);
  return m;
}

template <sde::Stepper S, bool Strat>
void check(char const* name, double strong, double weak) {
  int const paths = 1 << 16;
  auto const m = measure<S, Strat>(paths);
  std::printf("  %-28s strong order %.3f (errors %.2e .. %.2e), weak order %.3f (E[X^2] errors %.2e .. %.2e)\n", name,
              m.strong_order, m.strong.front(), m.strong.back(), m.weak_order, m.weak.front(), m.weak.back());
  EXPECT_NEAR(m.strong_order, strong, 0.2) << name;
  EXPECT_NEAR(m.weak_order, weak, 0.2) << name;
  // The exact solutions' moments against the closed forms (five standard errors; lognormal
  // moments, E X^4 for the spread of X^2): the coupling draws the right Brownian motion.
  Gbm<Strat> const g;
  double const a = Strat ? g.mu : g.mu - 0.5 * g.sigma * g.sigma, s2 = g.sigma * g.sigma;
  auto const moment = [&](int k) { return std::exp(k * a * horizon + 0.5 * k * k * s2 * horizon); };
  EXPECT_NEAR(m.exact_m1, moment(1), 5 * std::sqrt((moment(2) - moment(1) * moment(1)) / paths)) << name;
  EXPECT_NEAR(m.exact_m2, moment(2), 5 * std::sqrt((moment(4) - moment(2) * moment(2)) / paths)) << name;
}

// Ito: multiplicative noise, one Wiener process (commutative).
TEST(SdeSchemeOrders, EulerMaruyamaGbm) { check<sde::Stepper::euler_maruyama, false>("Euler-Maruyama", 0.5, 1); }
TEST(SdeSchemeOrders, Srk2Gbm) { check<sde::Stepper::srk2, false>("SRK2 (Ito)", 0.5, 1); }
TEST(SdeSchemeOrders, MilsteinGbm) { check<sde::Stepper::milstein, false>("Milstein (Ito)", 1, 1); }
TEST(SdeSchemeOrders, Weak2Gbm) { check<sde::Stepper::weak2, false>("weak2 (Ito)", 1, 2); }
// Stratonovich: Heun's scheme and Milstein's Stratonovich form.
TEST(SdeSchemeOrders, HeunStratonovichGbm) { check<sde::Stepper::srk2, true>("SRK2 = Heun (Stratonovich)", 1, 1); }
TEST(SdeSchemeOrders, MilsteinStratonovichGbm) { check<sde::Stepper::milstein, true>("Milstein (Stratonovich)", 1, 1); }

}  // namespace parity_test_sde_scheme_orders
