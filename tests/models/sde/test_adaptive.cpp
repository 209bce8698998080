// Adaptive steps per trajectory (adaptive.hpp) and the virtual Brownian tree under them
// (detail/brownian_tree.hpp):
// 1. the tree: increments over disjoint dyadic intervals are independent with mean 0 and variance
//    h (tolerances from the standard errors); W(t) is the same bits whatever the order of queries
//    and the tree's depth; W(T) is the root's value;
// 2. strong convergence on geometric Brownian motion against its closed form driven by the tree's
//    W(T): the mean pathwise error falls with the tolerance;
// 3. an Ornstein-Uhlenbeck process whose rate has a sharp pulse in time: at no more scheme steps
//    per path, the adaptive run's pathwise error against the exact solution on the same tree
//    (a quadrature of the closed form, whose mean and variance match theirs) is smaller than a
//    fixed-step run's;
// 4. determinism (the kernel's paths equal a host loop's, bit for bit; the moments are the
//    documented fixed-order sums) and the checks of the configuration.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"
#include "parity/sde/adaptive.hpp"
#include "parity/sde/detail/brownian_tree.hpp"
#include "test_backend.hpp"

namespace parity_test_sde_adaptive {

using parity::test::ExecSpace;
using parity::test::MemSpace;
namespace sde = parity::sde;
using sde::detail::BrownianTree;

// ---- 1. the tree

constexpr int tree_depth = 6;  // 64 finest intervals over T = 2
constexpr double tree_horizon = 2;
constexpr int tree_paths = 40000;
// Disjoint intervals [a, b) in finest units: lengths 1/2, 1/4, 1/16 and 3/64 of 64 (the last not
// a tree interval: a difference of values at two levels).
constexpr int n_inc = 4;
KOKKOS_INLINE_FUNCTION constexpr int tree_cut(int i) {
  return i == 0 ? 0 : i == 1 ? 32 : i == 2 ? 48 : i == 3 ? 52 : 55;
}
using TreeOut = Kokkos::View<double * [2 * n_inc + 1], MemSpace>;

// A free function: CUDA's device lambdas may not sit in a test body (a private member).
void tree_samples(TreeOut const& out) {
  // Per path: the increments of components 0 and 1, and the number of queries that did not match.
  Kokkos::parallel_for(
      "parity::test::tree", Kokkos::RangePolicy<ExecSpace>(0, tree_paths), KOKKOS_LAMBDA(int const p) {
        std::uint64_t const seed = 11;
        for (int c = 0; c < 2; ++c) {
          BrownianTree forward(seed, p, c, tree_horizon, tree_depth);
          for (int i = 0; i < n_inc; ++i) out(p, c * n_inc + i) = forward.at(tree_cut(i + 1)) - forward.at(tree_cut(i));
        }
        // Every value through three query sequences: forward, backward, and strided on a deeper tree.
        BrownianTree a(seed, p, 0, tree_horizon, tree_depth), b(seed, p, 0, tree_horizon, tree_depth),
            d(seed, p, 0, tree_horizon, tree_depth + 3);
        double mismatches = 0;
        int const end = 1 << tree_depth;
        double va[(1 << tree_depth) + 1];
        for (int n = 0; n <= end; ++n) va[n] = a.at(n);
        for (int n = end; n >= 0; --n) mismatches += b.at(n) != va[n];
        for (int n = 0; n <= end; n += 5) mismatches += d.at(std::int64_t(n) << 3) != va[n];
        for (int n = end; n >= 0; n -= 3) mismatches += d.at(std::int64_t(n) << 3) != va[n];
        mismatches += va[end] != sde::detail::brownian_root(seed, p, 0, tree_horizon);
        out(p, 2 * n_inc) = mismatches;
      });
}

TEST(SdeAdaptive, BrownianTreeIncrementsAndConsistency) {
  TreeOut out("parity::test::tree", tree_paths);
  tree_samples(out);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, out);
  double mismatches = 0;
  for (int p = 0; p < tree_paths; ++p) mismatches += h(p, 2 * n_inc);
  EXPECT_EQ(mismatches, 0) << "W(t) depends on the order of queries or the tree's depth";
  double const unit = tree_horizon / (1 << tree_depth);
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < n_inc; ++i) {
      double const var_exact = unit * (tree_cut(i + 1) - tree_cut(i));
      double s = 0, s2 = 0;
      for (int p = 0; p < tree_paths; ++p) {
        s += h(p, c * n_inc + i);
        s2 += h(p, c * n_inc + i) * h(p, c * n_inc + i);
      }
      double const mean = s / tree_paths, var = s2 / tree_paths - mean * mean;
      // Standard errors: sqrt(h / P) for the mean, h sqrt(2 / P) for the variance of a normal.
      EXPECT_NEAR(mean, 0, 4.5 * std::sqrt(var_exact / tree_paths)) << "component " << c << ", interval " << i;
      EXPECT_NEAR(var, var_exact, 4.5 * var_exact * std::sqrt(2.0 / tree_paths))
          << "component " << c << ", interval " << i;
    }
  // Independence: correlations between increments of disjoint intervals and of the two components
  // (standard error 1 / sqrt(P) each).
  for (int i = 0; i < 2 * n_inc; ++i)
    for (int j = i + 1; j < 2 * n_inc; ++j) {
      double sij = 0, sii = 0, sjj = 0;
      for (int p = 0; p < tree_paths; ++p) {
        sij += h(p, i) * h(p, j);
        sii += h(p, i) * h(p, i);
        sjj += h(p, j) * h(p, j);
      }
      EXPECT_NEAR(sij / std::sqrt(sii * sjj), 0, 4.5 / std::sqrt(double(tree_paths)))
          << "increments " << i << ", " << j;
    }
}

// ---- 2. geometric Brownian motion

struct Gbm {
  using real_type = double;
  static constexpr int dim = 1, noise_dim = 1;
  double mu = 1, sigma = 0.8;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<Gbm> const& x, sde::State<Gbm>& f) const { f[0] = mu * x[0]; }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<Gbm> const& x, sde::Noise<Gbm> const& dw,
                             sde::State<Gbm>& g) const {
    g[0] = sigma * x[0] * dw[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<Gbm>& x) const { x[0] = 1; }
};

struct StratonovichGbm : Gbm {
  static constexpr bool stratonovich = true;
};

// Mean over the kept paths of |X_T - exact|, the exact solution driven by the tree's W(T).
double gbm_strong_error(sde::AdaptiveResult const& r, Gbm const& g, sde::AdaptiveConfig const& c) {
  double e = 0;
  for (int p = 0; p < c.terminal_paths; ++p) {
    double const w = sde::detail::brownian_root(c.seed, p, 0, c.t_end);
    double const exact = std::exp((g.mu - 0.5 * g.sigma * g.sigma) * c.t_end + g.sigma * w);
    e += std::fabs(r.terminal_states[p] - exact);
  }
  return e / c.terminal_paths;
}

TEST(SdeAdaptive, GbmStrongErrorFallsWithTolerance) {
  Gbm const g;
  // Milstein only: with multiplicative noise, Euler-Maruyama's step-doubling estimate is the
  // Milstein term, and rejecting on it biases the increments kept (Gaines & Lyons): the error
  // stalls near 0.2 here whatever the tolerance (adaptive.hpp says so).
  for (sde::Stepper s : {sde::Stepper::milstein}) {
    std::vector<double> err, steps;
    for (double tol : {1e-2, 1e-3, 1e-4}) {
      sde::AdaptiveConfig c;
      c.paths = c.terminal_paths = 2000;
      c.seed = 5;
      c.atol = c.rtol = tol;
      c.stepper = s;
      sde::AdaptiveResult const r = sde::integrate_adaptive(ExecSpace{}, g, c);
      EXPECT_EQ(r.status, sde::AdaptiveStatus::completed);
      err.push_back(gbm_strong_error(r, g, c));
      steps.push_back(r.mean_accepted + r.mean_rejected);
      std::printf("%s tol %.0e: E|X - exact| = %.3e, steps %.1f accepted + %.1f rejected\n",
                  s == sde::Stepper::milstein ? "Milstein" : "Euler-Maruyama", tol, err.back(), r.mean_accepted,
                  r.mean_rejected);
    }
    // Each tenfold cut of the tolerance cuts the error at least twofold: local errors of order
    // tol over N ~ tol^(-2/3) (Milstein) or tol^(-1) (Euler-Maruyama, local error ~ h) steps add
    // up to tol^(1/3) at worst and like sqrt(N) tol, tol^(2/3) or tol^(1/2), when their signs are
    // random; a controller or tree that does not converge keeps the ratio near 1.
    EXPECT_LT(err[1], err[0] / 2);
    EXPECT_LT(err[2], err[1] / 2);
    EXPECT_GT(steps[2], steps[1]);
    // Bound: the accepted local errors, each below tol (1 + |x|) with E|x| <= e^{mu T}, added
    // with no cancellation and grown by at most e^{mu T} after they are made.
    EXPECT_LT(err[2], steps[2] * 1e-4 * (1 + std::exp(g.mu)) * std::exp(g.mu));
  }
}

// ---- 3. a rate pulse: dX = -a(t) X dt + sigma dW, a(t) = a0 + A exp(-((t - t0) / w)^2)

struct PulseOu {
  using real_type = double;
  static constexpr int dim = 1, noise_dim = 1;
  double a0 = 1, pulse = 800, t0 = 0.8, width = 0.005, sigma = 0.5, unit = 0;  // unit: time per Tick
  KOKKOS_FUNCTION double rate(double t) const {
    double const u = (t - t0) / width;
    return a0 + pulse * Kokkos::exp(-u * u);
  }
  KOKKOS_FUNCTION void drift(sde::Tick const& t, sde::State<PulseOu> const& x, sde::State<PulseOu>& f) const {
    f[0] = -rate(double(t.step) * unit) * x[0];
  }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<PulseOu> const&, sde::Noise<PulseOu> const& dw,
                             sde::State<PulseOu>& g) const {
    g[0] = sigma * dw[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<PulseOu>& x) const { x[0] = 1; }
  // The integral of a over [0, t], in closed form.
  double integral(double t) const {
    double const c = 0.5 * std::sqrt(std::acos(-1.0)) * width * pulse;
    return a0 * t + c * (std::erf((t - t0) / width) + std::erf(t0 / width));
  }
};

TEST(SdeAdaptive, PulseBeatsFixedStepsAtEqualWork) {
  PulseOu ou;
  sde::AdaptiveConfig base;
  base.paths = base.terminal_paths = 1024;
  base.seed = 9;
  base.min_step = std::ldexp(1.0, -13);
  ou.unit = sde::adaptive_time_unit(base);
  double const T = base.t_end, total = ou.integral(T);
  // Each path's exact solution, X_T = e^{-A(T)} + sigma int_0^T e^{-(A(T) - A(s))} dW_s with A the
  // integral of a, by the midpoint rule on its tree's finest grid (a second method: no stepping;
  // its error, of standard deviation about sigma h (int (a e^{-(A(T) - A)})^2 / 12)^(1/2), is near
  // 1e-4 here, far below the errors compared).
  int const depth = sde::detail::adaptive_run(base).depth();
  long const n_fine = 1L << depth;
  double const h = T / double(n_fine);
  std::vector<double> kernel(n_fine);
  for (long i = 0; i < n_fine; ++i) kernel[i] = ou.sigma * std::exp(-(total - ou.integral((double(i) + 0.5) * h)));
  std::vector<double> exact(base.paths);
  double s = 0, s2 = 0;
  for (int p = 0; p < base.paths; ++p) {
    BrownianTree tree(base.seed, p, 0, T, depth);
    double x = std::exp(-total), w = 0;
    for (long i = 0; i < n_fine; ++i) {
      double const w1 = tree.at(i + 1);
      x += kernel[i] * (w1 - w);
      w = w1;
    }
    exact[p] = x;
    s += x;
    s2 += x * x;
  }
  // Those against the closed forms: E X_T = e^{-A(T)}, Var X_T = sigma^2 int_0^T e^{-2 (A(T) -
  // A(s))} ds (Simpson's rule on 20000 intervals).
  int const q = 20000;
  double var_exact = 0;
  for (int i = 0; i <= q; ++i) {
    double const t = T * i / q, wgt = (i == 0 || i == q) ? 1 : (i % 2 ? 4 : 2);
    var_exact += wgt * std::exp(-2 * (total - ou.integral(t)));
  }
  var_exact *= ou.sigma * ou.sigma * T / q / 3;
  double const mean = s / base.paths, var = s2 / base.paths - mean * mean;
  EXPECT_NEAR(mean, std::exp(-total), 4 * std::sqrt(var_exact / base.paths));
  EXPECT_NEAR(var, var_exact, 4 * var_exact * std::sqrt(2.0 / base.paths));

  auto pathwise = [&](sde::AdaptiveResult const& r) {
    double e = 0;
    for (int p = 0; p < base.paths; ++p) e += std::fabs(r.terminal_states[p] - exact[p]);
    return e / base.paths;
  };
  sde::AdaptiveConfig adaptive = base;
  adaptive.atol = adaptive.rtol = 1e-3;
  adaptive.max_step = adaptive.initial_step = T / 64;  // half steps sample a(t) every 1.6 pulse widths
  sde::AdaptiveResult const a = sde::integrate_adaptive(ExecSpace{}, ou, adaptive);
  double const adaptive_work = 3 * (a.mean_accepted + a.mean_rejected);  // Euler steps per path
  // Fixed steps: the finest dyadic step whose count is at least the adaptive run's work.
  sde::AdaptiveConfig fixed = base;
  fixed.adaptive = false;
  fixed.initial_step = T * std::ldexp(1.0, -int(std::ceil(std::log2(adaptive_work))));
  sde::AdaptiveResult const f = sde::integrate_adaptive(ExecSpace{}, ou, fixed);
  double const ea = pathwise(a), ef = pathwise(f);
  std::printf("pulse: adaptive %.1f Euler steps/path, E|X - exact| %.3e; fixed %.0f steps, %.3e\n", adaptive_work, ea,
              f.mean_accepted, ef);
  EXPECT_EQ(a.status, sde::AdaptiveStatus::completed);
  EXPECT_LE(adaptive_work, f.mean_accepted);
  EXPECT_LT(ea, ef / 2.5) << "adaptive steps should resolve the pulse that fixed steps of the same work miss";
  // The adaptive run's moments against the closed forms.
  EXPECT_NEAR(a.mean[0], std::exp(-total), 4 * a.mean_error[0] + 3 * ea);
}

// ---- 4. determinism and input checks

struct TwoNoise {  // a 2-D system with two Wiener processes and a random initial state
  using real_type = double;
  static constexpr int dim = 2, noise_dim = 2;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<TwoNoise> const& x, sde::State<TwoNoise>& f) const {
    f[0] = x[1];
    f[1] = -x[0] - 0.5 * x[1] * x[0] * x[0];
  }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<TwoNoise> const& x, sde::Noise<TwoNoise> const& dw,
                             sde::State<TwoNoise>& g) const {
    g[0] = 0.3 * dw[0];
    g[1] = 0.4 * x[0] * dw[1] + 0.1 * dw[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>& rng, sde::State<TwoNoise>& x) const {
    x[0] = 1 + 0.1 * rng.normal();
    x[1] = 0;
  }
};

TEST(SdeAdaptive, DeterministicFixedOrderSums) {
  sde::AdaptiveConfig c;
  c.paths = c.terminal_paths = 2500;  // three chunks, the last one partial
  c.t_end = 3;
  c.atol = c.rtol = 1e-3;
  sde::AdaptiveResult const r = sde::integrate_adaptive(ExecSpace{}, TwoNoise{}, c);
  EXPECT_GT(r.mean_rejected, 0);
  // The moments are the documented fixed-order sums of the terminal states.
  for (int k = 0; k < 2; ++k) {
    double total = 0;
    for (long chunk = 0; chunk * 1024 < c.paths; ++chunk) {
      double s = 0;
      for (long p = chunk * 1024; p < std::min<long>(c.paths, (chunk + 1) * 1024); ++p)
        s += r.terminal_states[p * 2 + k];
      total += s;
    }
    EXPECT_EQ(r.mean[k], total / double(c.paths));
  }
  // Every path as a host loop (one thread) computes it, bit for bit, where the arithmetic is the
  // host's.
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible) {
    sde::detail::AdaptiveRun const run = sde::detail::adaptive_run(c);
    long accepted_total = 0;
    for (int p = 0; p < c.paths; ++p) {
      sde::State<TwoNoise> x;
      long accepted, rejected;
      bool capped;
      sde::detail::integrate_path<sde::Stepper::milstein>(TwoNoise{}, run, p, x, accepted, rejected, capped);
      ASSERT_EQ(x[0], r.terminal_states[p * 2]) << "path " << p;
      ASSERT_EQ(x[1], r.terminal_states[p * 2 + 1]) << "path " << p;
      accepted_total += accepted;
    }
    EXPECT_EQ(r.mean_accepted, double(accepted_total) / double(c.paths));
  }
  // A second run gives the same bits.
  sde::AdaptiveResult const again = sde::integrate_adaptive(ExecSpace{}, TwoNoise{}, c);
  EXPECT_EQ(again.mean, r.mean);
  EXPECT_EQ(again.variance, r.variance);
  // The step cap stops paths and says so.
  sde::AdaptiveConfig capped = c;
  capped.max_steps = 10;
  sde::AdaptiveResult const rc = sde::integrate_adaptive(ExecSpace{}, TwoNoise{}, capped);
  EXPECT_EQ(rc.status, sde::AdaptiveStatus::step_cap);
  EXPECT_EQ(rc.capped_paths, c.paths);
  EXPECT_EQ(rc.mean_accepted + rc.mean_rejected, 10);
}

TEST(SdeAdaptive, RejectsBadInput) {
  auto message = [](auto change) -> std::string {
    sde::AdaptiveConfig c;
    c.paths = 16;
    change(c);
    try {
      sde::integrate_adaptive(ExecSpace{}, Gbm{}, c);
    } catch (parity::InvalidInput const& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(message([](auto& c) { c.atol = -1; }).find("atol and rtol"), std::string::npos);
  EXPECT_NE(message([](auto& c) { c.atol = c.rtol = 0; }).find("not both zero"), std::string::npos);
  EXPECT_NE(message([](auto& c) { c.t_end = 0; }).find("t_end must be positive"), std::string::npos);
  EXPECT_NE(message([](auto& c) { c.t_end = -1; }).find("t_end must be positive"), std::string::npos);
  EXPECT_NE(message([](auto& c) { c.paths = 1; }).find("paths must be at least 2"), std::string::npos);
  EXPECT_NE(message([](auto& c) { c.max_steps = 0; }).find("max_steps"), std::string::npos);
  EXPECT_NE(message([](auto& c) { c.min_step = 1e-30; }).find("min_step must be at least"), std::string::npos);
  EXPECT_NE(message([](auto& c) {
              c.initial_step = 0.001;
              c.min_step = 0.1;
            }).find("must not be below min_step"),
            std::string::npos);
  EXPECT_NE(message([](auto& c) { c.stepper = sde::Stepper::srk2; }).find("euler_maruyama or milstein"),
            std::string::npos);
  EXPECT_EQ(message([](auto&) {}), "(no error)");
  // A Stratonovich system takes Milstein's scheme only.
  sde::AdaptiveConfig c;
  c.paths = 16;
  c.stepper = sde::Stepper::euler_maruyama;
  EXPECT_THROW(sde::integrate_adaptive(ExecSpace{}, StratonovichGbm{}, c), parity::InvalidInput);
  c.stepper = sde::Stepper::milstein;
  EXPECT_NO_THROW(sde::integrate_adaptive(ExecSpace{}, StratonovichGbm{}, c));
}

}  // namespace parity_test_sde_adaptive
