// European call options on geometric Brownian motion dX = r X dt + sigma X dW through
// parity::sde::integrate with a payoff observable: the system declares `observed` and `observe()`,
// and the ensemble reports the mean of each payoff max(X_T - K, 0) with its standard error. The
// state is Y = log X: by Ito's formula dY = (r - sigma^2 / 2) dt + sigma dW, constant
// coefficients, for which the Euler-Maruyama step is exact in law, so the only error left is the
// sampling error. The discounted means must meet the Black-Scholes prices within four standard
// errors, and E[X_T] must meet X_0 e^{r T}.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>

#include "parity/sde/ensemble.hpp"

namespace sde = parity::sde;

constexpr int strikes = 4;

struct LogGbm {
  using real_type = double;
  static constexpr int dim = 1, noise_dim = 1;  // Y = log X, one Wiener process
  static constexpr int observed = 1 + strikes;  // X_T and the payoff at each strike

  double rate = 0.03, sigma = 0.25, x0 = 100;
  double strike[strikes] = {80, 100, 110, 130};

  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<LogGbm> const&, sde::State<LogGbm>& f) const {
    f[0] = rate - 0.5 * sigma * sigma;  // the Ito correction of log X
  }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<LogGbm> const&, sde::Noise<LogGbm> const& dW,
                             sde::State<LogGbm>& gdw) const {
    gdw[0] = sigma * dW[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<LogGbm>& y) const {
    y[0] = Kokkos::log(x0);
  }
  // Evaluated on the device at every sample; the last sample is the end, t = steps * dt.
  KOKKOS_FUNCTION void observe(sde::Tick const&, sde::State<LogGbm> const& y, sde::Observed<LogGbm>& f) const {
    double const x = Kokkos::exp(y[0]);
    f[0] = x;
    for (int k = 0; k < strikes; ++k) f[1 + k] = x > strike[k] ? x - strike[k] : 0.0;
  }
};

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Black-Scholes price of a European call.
double black_scholes_call(double x0, double strike, double rate, double sigma, double T) {
  double const st = sigma * std::sqrt(T);
  double const d1 = (std::log(x0 / strike) + (rate + 0.5 * sigma * sigma) * T) / st;
  return x0 * normal_cdf(d1) - strike * std::exp(-rate * T) * normal_cdf(d1 - st);
}

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;

  LogGbm const system;
  sde::EnsembleConfig cfg;
  cfg.paths = 1 << 20;
  cfg.dt = 0.25;
  cfg.steps = 4;  // T = 1 in four exact steps
  cfg.sample_every = 4;  // one sample, at the end
  cfg.seed = 11;
  cfg.stepper = sde::Stepper::euler_maruyama;
  cfg.label = "gbm";  // profiles name its phases parity::gbm::<phase>

  auto const r = sde::integrate(Space(), system, sde::Sweep{}, cfg);

  double const T = double(r.sample_steps.back()) * cfg.dt, discount = std::exp(-system.rate * T);
  std::size_t const end = std::size_t(r.samples - 1) * r.observed;  // the last sample, one sweep point
  bool ok = true;
  auto check = [&](char const* what, double got, double error, double exact) {
    double const z = (got - exact) / error;
    bool const good = std::isfinite(z) && std::abs(z) < 4;
    std::printf("%-18s %10.5f +- %.5f  exact %10.5f  (%+.2f standard errors)%s\n", what, got, error, exact, z,
                good ? "" : "  WRONG");
    ok = ok && good;
  };
  check("E[X_T]", r.observable_mean[end], r.observable_error[end], system.x0 * std::exp(system.rate * T));
  for (int k = 0; k < strikes; ++k) {
    char what[32];
    std::snprintf(what, sizeof what, "call K = %g", system.strike[k]);
    check(what, discount * r.observable_mean[end + 1 + k], discount * r.observable_error[end + 1 + k],
          black_scholes_call(system.x0, system.strike[k], system.rate, system.sigma, T));
  }
  std::printf("%d paths, T = %g\n", cfg.paths, T);
  if (!ok) std::fprintf(stderr, "FAILED: the payoffs do not meet Black-Scholes\n");
  return ok ? 0 : 1;
}
