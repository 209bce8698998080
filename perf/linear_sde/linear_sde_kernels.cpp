// The ensembles of linear_sde.hpp through parity::sde::integrate, for this build's execution space.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/execution_space.hpp"
#include "parity/sde/adaptive.hpp"
#include "parity/sde/detail/brownian_tree.hpp"
#include "parity/sde/ensemble.hpp"
#include "perf/linear_sde/linear_sde.hpp"

namespace parity::linear_sde {
namespace {

namespace sde = parity::sde;

// Both systems observe X and X^2 at the end, so the ensemble reports their covariance, from which
// the standard error of the sample variance follows.
template <class Real>
struct Gbm {
  using real_type = Real;
  static constexpr int dim = 1, noise_dim = 1, observed = 2;
  Real mu, sigma, x0;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<Gbm> const& x, sde::State<Gbm>& f) const { f[0] = mu * x[0]; }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<Gbm> const& x, sde::Noise<Gbm> const& dw,
                             sde::State<Gbm>& g) const {
    g[0] = sigma * x[0] * dw[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<Real>&, sde::State<Gbm>& x) const { x[0] = x0; }
  KOKKOS_FUNCTION void observe(sde::Tick const&, sde::State<Gbm> const& x, sde::Observed<Gbm>& f) const {
    f[0] = x[0];
    f[1] = x[0] * x[0];
  }
};

template <class Real>
struct OrnsteinUhlenbeck {
  using real_type = Real;
  static constexpr int dim = 1, noise_dim = 1, observed = 2;
  Real theta, mean, sigma, x0;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<OrnsteinUhlenbeck> const& x,
                             sde::State<OrnsteinUhlenbeck>& f) const {
    f[0] = theta * (mean - x[0]);
  }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<OrnsteinUhlenbeck> const&,
                             sde::Noise<OrnsteinUhlenbeck> const& dw, sde::State<OrnsteinUhlenbeck>& g) const {
    g[0] = sigma * dw[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<Real>&, sde::State<OrnsteinUhlenbeck>& x) const {
    x[0] = x0;
  }
  KOKKOS_FUNCTION void observe(sde::Tick const&, sde::State<OrnsteinUhlenbeck> const& x,
                               sde::Observed<OrnsteinUhlenbeck>& f) const {
    f[0] = x[0];
    f[1] = x[0] * x[0];
  }
};

template <class System>
Result solve(System const& system, Params const& p, run::Progress& progress, run::PhaseTimes& times) {
  sde::EnsembleConfig cfg;
  cfg.paths = p.paths;
  cfg.steps = p.steps;
  cfg.dt = p.horizon / double(p.steps);
  cfg.sample_every = int(p.steps);  // one sample, at the end
  cfg.seed = p.seed;
  cfg.stepper = p.stepper == "euler"      ? sde::Stepper::euler_maruyama
                : p.stepper == "milstein" ? sde::Stepper::milstein
                : p.stepper == "weak2"    ? sde::Stepper::weak2
                                          : sde::Stepper::srk2;
  cfg.noise = p.noise_law == "five-point" ? sde::NoiseLaw::five_point : sde::NoiseLaw::gaussian;
  cfg.label = p.system;
  cfg.progress = &progress;
  cfg.phases = &times;
  auto const e = sde::integrate(backend::ExecutionSpace(), system, sde::Sweep{}, cfg);
  std::size_t const last = std::size_t(e.samples - 1);
  double const* c = e.observable_covariance.data() + last * 4;  // [[X X, X X^2], [X^2 X, X^2 X^2]]
  Result r;
  r.mean = e.mean[last];
  r.mean_error = e.mean_error[last];
  r.variance = e.variance[last];
  // Delta method: variance = E[X^2] - E[X]^2 has gradient (-2 mean, 1) in (E[X], E[X^2]).
  double const m = r.mean;
  r.variance_error = std::sqrt(std::max(0.0, 4 * m * m * c[0] - 4 * m * c[1] + c[3]) / double(p.paths));
  return r;
}

// dX = -a(t) X dt + sigma dW; time = t.step * unit.
struct PulseOu {
  using real_type = double;
  static constexpr int dim = 1, noise_dim = 1;
  double a0, pulse, t0, width, sigma, unit;
  KOKKOS_FUNCTION void drift(sde::Tick const& t, sde::State<PulseOu> const& x, sde::State<PulseOu>& f) const {
    double const u = (double(t.step) * unit - t0) / width;
    f[0] = -(a0 + pulse * Kokkos::exp(-u * u)) * x[0];
  }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<PulseOu> const&, sde::Noise<PulseOu> const& dw,
                             sde::State<PulseOu>& g) const {
    g[0] = sigma * dw[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<PulseOu>& x) const { x[0] = 1; }
};

// Each path's exact X_T = e^{-A(T)} + int_0^T k(s) dW_s, k(s) = sigma e^{-(A(T) - A(s))}, by the
// midpoint rule in k on the tree's finest grid (k given at the midpoints).
template <class KernelView, class OutView>
void exact_terminal(std::uint64_t seed, double horizon, int depth, double x_decay, KernelView const& k,
                    OutView const& out) {
  long const n_fine = long(k.extent(0));
  Kokkos::parallel_for(
      "parity::linear_sde::pulse_exact", Kokkos::RangePolicy<backend::ExecutionSpace>(0, out.extent(0)),
      KOKKOS_LAMBDA(long const p) {
        sde::detail::BrownianTree tree(seed, std::uint64_t(p), 0, horizon, depth);
        double x = x_decay, w = 0;
        for (long i = 0; i < n_fine; ++i) {
          double const w1 = tree.at(i + 1);
          x += k(i) * (w1 - w);
          w = w1;
        }
        out(p) = x;
      });
}

}  // namespace

PulseResult run_pulse(PulseParams const& p, run::PhaseTimes& times) {
  sde::AdaptiveConfig c;
  c.paths = c.terminal_paths = p.paths;
  c.t_end = p.horizon;
  c.seed = p.seed;
  c.atol = c.rtol = p.tolerance;
  c.max_step = c.initial_step = std::ldexp(p.horizon, -p.max_level);
  c.min_step = std::ldexp(p.horizon, -p.min_level);
  c.stepper = sde::Stepper::euler_maruyama;  // additive noise: Euler-Maruyama is Milstein here
  c.phases = &times;
  c.label = "adaptive_pulse";
  PulseOu const system{p.a0, p.pulse, p.t0, p.width, p.sigma, sde::adaptive_time_unit(c)};
  // A(t), the integral of a, in closed form.
  auto integral = [&](double t) {
    double const s = 0.5 * std::sqrt(std::acos(-1.0)) * p.width * p.pulse;
    return p.a0 * t + s * (std::erf((t - p.t0) / p.width) + std::erf(p.t0 / p.width));
  };
  int const depth = sde::detail::adaptive_run(c).depth();
  long const n_fine = 1L << depth;
  double const h = p.horizon / double(n_fine), total = integral(p.horizon);
  Kokkos::View<double*, backend::MemorySpace> kernel("parity::linear_sde::pulse_kernel", n_fine);
  auto kernel_host = Kokkos::create_mirror_view(kernel);
  for (long i = 0; i < n_fine; ++i) kernel_host(i) = p.sigma * std::exp(-(total - integral((double(i) + 0.5) * h)));
  Kokkos::deep_copy(kernel, kernel_host);
  Kokkos::View<double*, backend::MemorySpace> exact("parity::linear_sde::pulse_exact", p.paths);
  exact_terminal(p.seed, p.horizon, depth, std::exp(-total), kernel, exact);
  auto exact_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, exact);
  auto pathwise = [&](sde::AdaptiveResult const& r) {
    double e = 0;
    for (int q = 0; q < p.paths; ++q) e += std::fabs(r.terminal_states[std::size_t(q)] - exact_host(q));
    return e / p.paths;
  };
  PulseResult out;
  sde::AdaptiveResult const a = sde::integrate_adaptive(backend::ExecutionSpace(), system, c);
  out.adaptive_work = 3 * (a.mean_accepted + a.mean_rejected);
  out.rejected = a.mean_rejected;
  out.capped = a.capped_paths;
  out.adaptive_error = pathwise(a);
  out.adaptive_mean = a.mean[0];
  out.mean_error = a.mean_error[0];
  sde::AdaptiveConfig f = c;
  f.adaptive = false;
  f.max_step = 0;
  // The same min_step keeps the Tick's time unit; the fixed step is the largest dyadic one whose
  // count is at least the adaptive work.
  f.initial_step =
      std::max(c.min_step, std::ldexp(p.horizon, -int(std::ceil(std::log2(std::max(1.0, out.adaptive_work))))));
  f.label = "fixed_pulse";
  sde::AdaptiveResult const fx = sde::integrate_adaptive(backend::ExecutionSpace(), system, f);
  out.fixed_work = fx.mean_accepted;
  out.fixed_error = pathwise(fx);
  out.fixed_mean = fx.mean[0];
  out.exact_mean = std::exp(-total);
  return out;
}

Result run(Params const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times) {
  return with_precision(precision, [&](auto real) {
    using Real = decltype(real);
    if (p.system == "ou")
      return solve(OrnsteinUhlenbeck<Real>{Real(p.theta), Real(p.mean), Real(p.sigma), Real(p.x0)}, p, progress, times);
    return solve(Gbm<Real>{Real(p.mu), Real(p.sigma), Real(p.x0)}, p, progress, times);
  });
}

}  // namespace parity::linear_sde
