// The ensembles of linear_sde.hpp through parity::sde::integrate, for this build's execution space.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>

#include "backends/execution_space.hpp"
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

}  // namespace

Result run(Params const& p, Precision precision, run::Progress& progress, run::PhaseTimes& times) {
  return with_precision(precision, [&](auto real) {
    using Real = decltype(real);
    if (p.system == "ou")
      return solve(OrnsteinUhlenbeck<Real>{Real(p.theta), Real(p.mean), Real(p.sigma), Real(p.x0)}, p, progress, times);
    return solve(Gbm<Real>{Real(p.mu), Real(p.sigma), Real(p.x0)}, p, progress, times);
  });
}

}  // namespace parity::linear_sde
