// The ensemble statistics beyond mean and variance (observables.hpp, detail/sample_statistics.hpp),
// each against an independent value:
//  - a payoff observable of geometric Brownian motion (integrated in log X, where Euler-Maruyama is
//    exact in law) against the Black-Scholes closed form, the observable's mean, variance and
//    covariance against the lognormal's moments;
//  - the state covariance of a linear 2-state system with correlated noise against the scheme's
//    own moment recursion, C' = (I + A dt) C (I + A dt)^T + B B^T dt;
//  - the standard errors against the spread of the means of independent ensembles;
//  - every statistic against the same sums added on the host in the documented order from the
//    kept terminal states, bit for bit: the unit tests run at 1, 2 and 4 threads, so the results
//    are the same bits at every thread count; and R ranks (threads of this process) give the
//    bits of one rank.
#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/ensemble.hpp"
#include "test_backend.hpp"

namespace parity_test_sde_observables {

using parity::test::ExecSpace;
namespace sde = parity::sde;

// Y = log X of dX = mu X dt + sigma X dW: dY = (mu - sigma^2 / 2) dt + sigma dW, constant
// coefficients, so Euler-Maruyama gives Y_T's law exactly. Observable (X, max(X - strike, 0)).
struct LogGbm {
  using real_type = double;
  static constexpr int dim = 1, noise_dim = 1, observed = 2;
  double mu = 0.05, sigma = 0.3, x0 = 100, strike = 105;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<LogGbm> const&, sde::State<LogGbm>& f) const {
    f[0] = mu - 0.5 * sigma * sigma;
  }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<LogGbm> const&, sde::Noise<LogGbm> const& dw,
                             sde::State<LogGbm>& g) const {
    g[0] = sigma * dw[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<LogGbm>& y) const {
    y[0] = Kokkos::log(x0);
  }
  KOKKOS_FUNCTION void observe(sde::Tick const&, sde::State<LogGbm> const& y, sde::Observed<LogGbm>& f) const {
    double const x = Kokkos::exp(y[0]);
    f[0] = x;
    f[1] = x > strike ? x - strike : 0.0;
  }
};

// dX = A X dt + B dW with B lower triangular (correlated noise), X(0) = x0; observable x_0 + x_1.
// set(0, a) sets A(0, 0) (a second sweep point).
struct Linear2 {
  using real_type = double;
  static constexpr int dim = 2, noise_dim = 2, observed = 1;
  double A[2][2] = {{-1.0, 0.5}, {-0.3, -2.0}};
  double B[2][2] = {{0.6, 0.0}, {0.4, 0.5}};
  double x0[2] = {1.0, -0.5};
  KOKKOS_FUNCTION void set(int, double value) { A[0][0] = value; }
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<Linear2> const& x, sde::State<Linear2>& f) const {
    for (int i = 0; i < 2; ++i) f[i] = A[i][0] * x[0] + A[i][1] * x[1];
  }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<Linear2> const&, sde::Noise<Linear2> const& dw,
                             sde::State<Linear2>& g) const {
    for (int i = 0; i < 2; ++i) g[i] = B[i][0] * dw[0] + B[i][1] * dw[1];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<Linear2>& x) const {
    x[0] = x0[0];
    x[1] = x0[1];
  }
  KOKKOS_FUNCTION void observe(sde::Tick const&, sde::State<Linear2> const& x, sde::Observed<Linear2>& f) const {
    f[0] = x[0] + x[1];
  }
};
static_assert(sde::observed_of<Linear2>() == 1 && sde::observed_of<LogGbm>() == 2);

template <class System>
sde::EnsembleResult run(System const& system, sde::EnsembleConfig const& cfg, sde::Sweep const& sweep = {}) {
  return sde::integrate(ExecSpace(), system, sweep, cfg);
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

TEST(SdeObservables, GbmPayoffMatchesBlackScholes) {
  LogGbm const g;
  sde::EnsembleConfig cfg;
  cfg.paths = 1 << 18;
  cfg.steps = 4;
  cfg.dt = 0.25;
  cfg.sample_every = 2;
  cfg.stepper = sde::Stepper::euler_maruyama;
  auto const r = run(g, cfg);
  ASSERT_EQ(r.observed, 2);
  ASSERT_EQ(r.samples, 2);
  double const n = cfg.paths;
  for (int s = 0; s < r.samples; ++s) {
    double const T = double(r.sample_steps[s]) * cfg.dt, st = g.sigma * std::sqrt(T);
    double const d1 = (std::log(g.x0 / g.strike) + (g.mu + 0.5 * g.sigma * g.sigma) * T) / st, d2 = d1 - st;
    double const ex = g.x0 * std::exp(g.mu * T);
    double const call = ex * normal_cdf(d1) - g.strike * normal_cdf(d2);  // undiscounted, rate mu
    double const var_x = ex * ex * std::expm1(g.sigma * g.sigma * T);
    // E[X^2 1{X > K}] and E[X 1{X > K}]: the payoff's second moment and its covariance with X.
    double const x2_above = ex * ex * std::exp(g.sigma * g.sigma * T) * normal_cdf(d1 + st);
    double const x_above = ex * normal_cdf(d1);
    double const call2 = x2_above - 2 * g.strike * x_above + g.strike * g.strike * normal_cdf(d2);
    double const var_call = call2 - call * call, cov = x2_above - g.strike * x_above - ex * call;
    double const* m = &r.observable_mean[std::size_t(s) * 2];
    double const* e = &r.observable_error[std::size_t(s) * 2];
    double const* v = &r.observable_variance[std::size_t(s) * 2];
    double const* c = &r.observable_covariance[std::size_t(s) * 4];
    EXPECT_NEAR(m[0], ex, 5 * std::sqrt(var_x / n)) << T;
    EXPECT_NEAR(m[1], call, 5 * std::sqrt(var_call / n)) << T;
    // The standard errors against the known spread, to the sample variance's relative error.
    EXPECT_NEAR(e[0] / std::sqrt(var_x / (n - 1)), 1.0, 0.03) << T;
    EXPECT_NEAR(e[1] / std::sqrt(var_call / (n - 1)), 1.0, 0.03) << T;
    EXPECT_NEAR(v[1] / var_call, 1.0, 0.05) << T;
    EXPECT_EQ(c[1], c[2]);
    EXPECT_EQ(c[3], v[1]);
    EXPECT_NEAR(c[1] / cov, 1.0, 0.05) << T;
    // The state is log X: its covariance is its variance sigma^2 T.
    EXPECT_NEAR(r.covariance[s] / (g.sigma * g.sigma * T), 1.0, 0.02) << T;
  }
}

// Mean and covariance of the Euler-Maruyama iterates of Linear2 after `steps` steps.
void linear2_scheme_moments(Linear2 const& sys, double dt, long steps, double m[2], double C[2][2]) {
  double M[2][2], Q[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      M[i][j] = (i == j ? 1.0 : 0.0) + sys.A[i][j] * dt;
      Q[i][j] = (sys.B[i][0] * sys.B[j][0] + sys.B[i][1] * sys.B[j][1]) * dt;
    }
  m[0] = sys.x0[0], m[1] = sys.x0[1];
  C[0][0] = C[0][1] = C[1][0] = C[1][1] = 0;
  for (long n = 0; n < steps; ++n) {
    double const m0 = M[0][0] * m[0] + M[0][1] * m[1], m1 = M[1][0] * m[0] + M[1][1] * m[1];
    m[0] = m0, m[1] = m1;
    double T[2][2], N[2][2];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) T[i][j] = M[i][0] * C[0][j] + M[i][1] * C[1][j];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) N[i][j] = T[i][0] * M[j][0] + T[i][1] * M[j][1] + Q[i][j];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) C[i][j] = N[i][j];
  }
}

TEST(SdeObservables, LinearSystemCovarianceMatchesTheSchemesMoments) {
  Linear2 const sys;
  sde::EnsembleConfig cfg;
  cfg.paths = 1 << 16;
  cfg.steps = 20;
  cfg.dt = 0.05;
  cfg.sample_every = 5;
  cfg.stepper = sde::Stepper::euler_maruyama;
  auto const r = run(sys, cfg);
  ASSERT_EQ(r.covariance.size(), std::size_t(r.samples) * 4);
  double const n = cfg.paths;
  for (int s = 0; s < r.samples; ++s) {
    double m[2], C[2][2];
    linear2_scheme_moments(sys, cfg.dt, r.sample_steps[s], m, C);
    double const* c = &r.covariance[std::size_t(s) * 4];
    // Gaussian: the sample covariance's standard deviation is sqrt((C_ii C_jj + C_ij^2) / n).
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        EXPECT_NEAR(c[i * 2 + j], C[i][j], 5 * std::sqrt((C[i][i] * C[j][j] + C[i][j] * C[i][j]) / n))
            << s << " " << i << j;
    EXPECT_NEAR(c[0], r.variance[std::size_t(s) * 2], 1e-12);
    EXPECT_NEAR(c[3], r.variance[std::size_t(s) * 2 + 1], 1e-12);
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(r.mean[std::size_t(s) * 2 + i], m[i], 5 * std::sqrt(C[i][i] / n));
      EXPECT_NEAR(r.mean_error[std::size_t(s) * 2 + i] / std::sqrt(C[i][i] / (n - 1)), 1.0, 5 / std::sqrt(2 * n));
    }
    // The observable x_0 + x_1: mean m0 + m1, variance C00 + 2 C01 + C11.
    double const fvar = C[0][0] + 2 * C[0][1] + C[1][1];
    EXPECT_NEAR(r.observable_mean[s], m[0] + m[1], 5 * std::sqrt(fvar / n));
    EXPECT_NEAR(r.observable_variance[s], fvar, 5 * fvar * std::sqrt(2 / n));
    EXPECT_EQ(r.observable_covariance[s], r.observable_variance[s]);
  }
}

TEST(SdeObservables, StandardErrorsMatchTheSpreadOfIndependentEnsembles) {
  // R ensembles of n paths with different seeds: the spread of their means against the mean of the
  // reported standard errors. Their ratio's relative spread is about 1 / sqrt(2 (R - 1)) = 9 %.
  Linear2 const sys;
  sde::EnsembleConfig cfg;
  cfg.paths = 2048;
  cfg.steps = 10;
  cfg.dt = 0.05;
  cfg.sample_every = 10;
  int const R = 64;
  std::vector<double> means(R), obs(R);
  double err = 0, oerr = 0;
  for (int q = 0; q < R; ++q) {
    cfg.seed = 1000 + q;
    auto const r = run(sys, cfg);
    means[q] = r.mean[1];
    obs[q] = r.observable_mean[0];
    err += r.mean_error[1] / R;
    oerr += r.observable_error[0] / R;
  }
  auto spread = [&](std::vector<double> const& v) {
    double a = 0, b = 0;
    for (double x : v) a += x / R;
    for (double x : v) b += (x - a) * (x - a);
    return std::sqrt(b / (R - 1));
  };
  EXPECT_NEAR(spread(means) / err, 1.0, 0.3);
  EXPECT_NEAR(spread(obs) / oerr, 1.0, 0.3);
}

// The sums of `terms` over the paths of one point added as observables.hpp documents.
std::vector<double> fixed_order_sums(int paths, int K, auto const& terms) {
  long const chunks = (paths + 1023) / 1024;
  std::vector<double> chunk_sum(std::size_t(chunks) * K), c(K);
  for (long u = 0; u < chunks; ++u) {
    std::vector<double> lanes(32 * std::size_t(K), 0.0);
    for (int b = 0; b < 32; ++b)
      for (long i = u * 1024 + b; i < std::min<long>((u + 1) * 1024, paths); i += 32) {
        terms(int(i), c.data());
        for (int k = 0; k < K; ++k) lanes[b * K + k] += c[k];
      }
    for (int k = 0; k < K; ++k) {
      double s = 0;
      for (int b = 0; b < 32; ++b) s += lanes[b * K + k];
      chunk_sum[u * K + k] = s;
    }
  }
  std::vector<double> lanes(32 * std::size_t(K), 0.0), total(K);
  for (int b = 0; b < 32; ++b)
    for (long u = b; u < chunks; u += 32)
      for (int k = 0; k < K; ++k) lanes[b * K + k] += chunk_sum[u * K + k];
  for (int k = 0; k < K; ++k) {
    double s = 0;
    for (int b = 0; b < 32; ++b) s += lanes[b * K + k];
    total[k] = s;
  }
  return total;
}

sde::Sweep two_points() {
  sde::Sweep sweep;
  sweep.axis[0] = {0, -1.0, -1.5, 2};
  return sweep;
}

sde::EnsembleConfig bitwise_config() {
  sde::EnsembleConfig cfg;
  cfg.paths = 33 * 1024 + 517;  // 34 chunks (more than 32 lanes of chunks), the last one short
  cfg.steps = 12;
  cfg.dt = 0.05;
  cfg.sample_every = 6;
  cfg.terminal_states = cfg.paths;
  cfg.trajectories = 3;
  return cfg;
}

bool same_bits(std::vector<double> const& a, std::vector<double> const& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// The device's sums against the host's: the same bits where both are compiled by the host compiler
// (no fused multiply-adds at its default target); a device compiler may fuse x_i x_j into the sum.
bool agree(std::vector<double> const& device, std::vector<double> const& host) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, parity::test::MemSpace>::accessible)
    return same_bits(device, host);
  bool ok = device.size() == host.size();
  for (std::size_t i = 0; ok && i < host.size(); ++i) ok = std::abs(device[i] - host[i]) <= 1e-12 * std::abs(host[i]);
  return ok;
}

TEST(SdeObservables, SumsAreAddedInTheDocumentedOrder) {
  sde::EnsembleConfig const cfg = bitwise_config();
  sde::Sweep const sweep = two_points();
  auto const r = run(Linear2{}, cfg, sweep);
  int const P = 2, S = r.samples, n = cfg.paths;
  ASSERT_EQ(r.terminal_paths, n);
  ASSERT_EQ(r.terminal_states.size(), std::size_t(P) * n * 2);
  ASSERT_EQ(r.trajectories.size(), std::size_t(S) * P * 3 * 2);
  for (int p = 0; p < P; ++p) {
    Linear2 sys;
    sweep.apply(p, sys);
    double const* x = &r.terminal_states[std::size_t(p) * n * 2];
    constexpr int K = sde::SampleTerms<2, 1>::count;
    auto const sums = fixed_order_sums(n, K, [&](int i, double* c) {
      double const a = x[2 * i], b = x[2 * i + 1];
      sde::State<Linear2> st{{a, b}};
      sde::Observed<Linear2> f;
      sys.observe(sde::Tick{}, st, f);
      double const w = f[0];
      double const t[K] = {a, b, a * a, a * b, b * b, w, w * w};
      for (int k = 0; k < K; ++k) c[k] = t[k];
    });
    std::size_t const at = std::size_t(S - 1) * P + p;
    double const m0 = sums[0] / n, m1 = sums[1] / n, mf = sums[5] / n;
    std::vector<double> cov = {sums[2] / n - m0 * m0, sums[3] / n - m0 * m1, sums[3] / n - m1 * m0,
                               sums[4] / n - m1 * m1};
    EXPECT_TRUE(agree({r.covariance.begin() + at * 4, r.covariance.begin() + at * 4 + 4}, cov)) << p;
    EXPECT_TRUE(agree({r.mean_error.begin() + at * 2, r.mean_error.begin() + at * 2 + 2},
                      {std::sqrt(cov[0] / (n - 1)), std::sqrt(cov[3] / (n - 1))}))
        << p;
    EXPECT_TRUE(agree({r.observable_mean[at], r.observable_variance[at]}, {mf, sums[6] / n - mf * mf})) << p;
    // The kept trajectories end in the terminal states.
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ(r.trajectories[((at * 3) + i) * 2 + k], x[2 * i + k]) << p << " " << i << " " << k;
  }
  EXPECT_NE(r.trajectories[0], r.trajectories[std::size_t(P) * 3 * 2]);  // sample 0 is not the end
}

// R ranks as threads of this process; all_gather and sum_in_rank_order as MPI does them.
class ThreadRanks {
 public:
  explicit ThreadRanks(int size) : size_(size), parts_(std::size_t(size)) {}
  parity::run::Communicator of(int rank) {
    parity::run::Communicator c;
    c.rank = rank;
    c.size = size_;
    c.collectives.all_gather = [this, rank](std::span<double const> mine, std::span<double> all) {
      parts_[std::size_t(rank)].assign(mine.begin(), mine.end());
      wait();
      std::size_t at = 0;
      for (auto const& part : parts_)
        for (double v : part) all[at++] = v;
      wait();
    };
    c.collectives.sum_in_rank_order = [this, rank](std::span<double> values) {
      parts_[std::size_t(rank)].assign(values.begin(), values.end());
      wait();
      for (std::size_t i = 0; i < values.size(); ++i) {
        double s = parts_[0][i];
        for (int q = 1; q < size_; ++q) s += parts_[std::size_t(q)][i];
        values[i] = s;
      }
      wait();
    };
    return c;
  }

 private:
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    int const round = round_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++round_;
      all_.notify_all();
    } else {
      all_.wait(lock, [&] { return round_ != round; });
    }
  }
  int size_, arrived_ = 0, round_ = 0;
  std::mutex mutex_;
  std::condition_variable all_;
  std::vector<std::vector<double>> parts_;
};

TEST(SdeObservables, RanksGiveTheBitsOfOneRank) {
  sde::EnsembleConfig cfg = bitwise_config();
  sde::Sweep const sweep = two_points();
  auto const one = run(Linear2{}, cfg, sweep);
  for (int R : {2, 3}) {
    ThreadRanks ranks(R);
    std::vector<sde::EnsembleResult> got(static_cast<std::size_t>(R));
    std::vector<std::thread> threads;
    for (int q = 0; q < R; ++q)
      threads.emplace_back([&, q] {
        sde::EnsembleConfig c = cfg;
        c.ranks = ranks.of(q);
        got[std::size_t(q)] = run(Linear2{}, c, sweep);
      });
    for (auto& t : threads) t.join();
    for (auto const& r : got) {
      EXPECT_TRUE(same_bits(r.covariance, one.covariance)) << R;
      EXPECT_TRUE(same_bits(r.mean_error, one.mean_error)) << R;
      EXPECT_TRUE(same_bits(r.observable_mean, one.observable_mean)) << R;
      EXPECT_TRUE(same_bits(r.observable_covariance, one.observable_covariance)) << R;
      EXPECT_TRUE(same_bits(r.terminal_states, one.terminal_states)) << R;
      EXPECT_TRUE(same_bits(r.trajectories, one.trajectories)) << R;
    }
  }
}

// Ornstein-Uhlenbeck with only the required parts, and the same asking for the time average of x.
struct Ou {
  using real_type = double;
  static constexpr int dim = 1, noise_dim = 1;
  KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<Ou> const& x, sde::State<Ou>& f) const { f[0] = -x[0]; }
  KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<Ou> const&, sde::Noise<Ou> const& dw,
                             sde::State<Ou>& g) const {
    g[0] = dw[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, sde::State<Ou>& x) const { x[0] = 1; }
};
struct AveragedOu : Ou {
  static constexpr unsigned time_averaged = 1u;
};

// Without System::time_averaged nothing is averaged (NaN); without covariance and an observable
// nothing beyond mean and variance is reduced.
TEST(SdeObservables, OnlyWhatIsAskedForIsReduced) {
  sde::EnsembleConfig cfg;
  cfg.paths = 1024;
  cfg.steps = 4;
  cfg.dt = 0.1;
  cfg.sample_every = 2;
  auto const r = run(Ou{}, cfg);
  ASSERT_EQ(r.time_average.size(), 1u);
  EXPECT_TRUE(std::isnan(r.time_average[0]));
  EXPECT_EQ(r.covariance.size(), 2u);
  // Deterministic Euler steps of the mean, 0.9^n, for the averaged one: (0.9 + ... + 0.9^4) / 4.
  auto const a = run(AveragedOu{}, cfg);
  EXPECT_NEAR(a.time_average[0], (0.9 + 0.81 + 0.729 + 0.6561) / 4, 5 * a.time_average_error[0]);
  cfg.covariance = false;
  auto const plain = run(Ou{}, cfg);
  EXPECT_TRUE(plain.covariance.empty() && plain.mean_error.empty() && plain.observable_mean.empty());
  EXPECT_EQ(plain.mean, r.mean);
  auto const observed = run(LogGbm{}, cfg);  // an observable is always reported
  EXPECT_EQ(observed.observable_mean.size(), 2u * observed.samples);
}

}  // namespace parity_test_sde_observables
