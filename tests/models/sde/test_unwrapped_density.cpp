// The density of the unwrapped position (detail/unwrapped_density.hpp) of the Josephson ensemble:
//  - every path is counted once per sample, in a bin or as under/overflow;
//  - the counts equal a histogram made on the host from the kept unwrapped positions of every path
//    (EnsembleConfig::trajectories), bit for bit: the unit tests run at 1, 2 and 4 threads, so the
//    counts are the same at every thread count;
//  - the mean position of the density (lower bin edges) brackets the ensemble mean of the unwrapped
//    x from the moment reduction to within one bin width.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/solver.hpp"
#include "test_backend.hpp"

namespace parity_test_sde_unwrapped_density {

using parity::test::ExecSpace;
namespace sde = parity::sde;

// Two sweep points (f = 0 and 1: the second drifts several periods), every path kept.
sde::JosephsonParams params(double lo, double hi, int bins) {
  sde::JosephsonParams p;
  p.paths = 1500;
  p.periods = 30;
  p.transient_periods = 0;
  p.sample_every = 100;
  p.D = 0.01;
  p.sweeps = {sde::SweepSpec{"f", 0.0, 1.0, 2}};
  p.trajectories = p.paths;
  p.density_lo = lo;
  p.density_hi = hi;
  p.density_bins = bins;
  return p;
}

template <class Real>
sde::EnsembleResult solve(sde::JosephsonParams const& p) {
  return sde::solve<ExecSpace, Real>(ExecSpace(), p).ensemble;
}

// Host histogram of the kept unwrapped x (period 1): counts[S][P][bins + 2], the last two below and
// above the range.
std::vector<std::int64_t> host_histogram(sde::EnsembleResult const& e, double lo, double hi, int bins) {
  int const S = e.samples, P = e.params, n = e.trajectory_paths;
  std::vector<std::int64_t> h(std::size_t(S) * P * (bins + 2), 0);
  for (int s = 0; s < S; ++s)
    for (int p = 0; p < P; ++p)
      for (int i = 0; i < n; ++i) {
        double const x = e.trajectories[((std::size_t(s) * P + p) * n + i) * e.dim];
        double const u = (x - lo) * (bins / (hi - lo));
        int const b = u < 0 ? bins : (u >= bins ? bins + 1 : int(std::floor(u)));
        ++h[(std::size_t(s) * P + p) * (bins + 2) + b];
      }
  return h;
}

template <class Real>
void check_counts(double lo, double hi, int bins, bool expect_outside) {
  auto const p = params(lo, hi, bins);
  auto const e = solve<Real>(p);
  int const S = e.samples, P = e.params;
  ASSERT_EQ(S, 30);
  ASSERT_EQ(e.density_bins, bins);
  ASSERT_EQ(e.density.size(), std::size_t(S) * P * bins);
  ASSERT_EQ(e.density_outside.size(), std::size_t(S) * P * 2);
  ASSERT_EQ(e.trajectory_paths, p.paths);
  auto const h = host_histogram(e, lo, hi, bins);
  long outside = 0;
  for (int s = 0; s < S; ++s)
    for (int p = 0; p < P; ++p) {
      std::size_t const sp = std::size_t(s) * P + p;
      long total = e.density_outside[2 * sp] + e.density_outside[2 * sp + 1];
      outside += total;
      for (int b = 0; b < bins; ++b) {
        total += e.density[sp * bins + b];
        ASSERT_EQ(e.density[sp * bins + b], h[sp * (bins + 2) + b]) << s << " " << p << " " << b;
      }
      EXPECT_EQ(total, params(lo, hi, bins).paths) << s << " " << p;
      EXPECT_EQ(e.density_outside[2 * sp], h[sp * (bins + 2) + bins]) << s << " " << p;
      EXPECT_EQ(e.density_outside[2 * sp + 1], h[sp * (bins + 2) + bins + 1]) << s << " " << p;
    }
  EXPECT_EQ(outside > 0, expect_outside);
}

TEST(SdeUnwrappedDensity, CountsMatchTheKeptPositionsFloat) { check_counts<float>(-1, 2, 3, true); }
TEST(SdeUnwrappedDensity, CountsMatchTheKeptPositionsDouble) { check_counts<double>(-1, 2, 3, true); }

template <class Real>
void check_mean() {
  double const lo = -100, hi = 100;
  int const bins = 20000;  // width 0.01
  double const w = (hi - lo) / bins;
  auto const e = solve<Real>(params(lo, hi, bins));
  int const S = e.samples, P = e.params;
  double drift = 0;
  for (int s = 0; s < S; ++s)
    for (int p = 0; p < P; ++p) {
      std::size_t const sp = std::size_t(s) * P + p;
      ASSERT_EQ(e.density_outside[2 * sp] + e.density_outside[2 * sp + 1], 0) << s << " " << p;
      double sum = 0, n = 0;
      for (int b = 0; b < bins; ++b) {
        sum += double(e.density[sp * bins + b]) * (lo + b * w);
        n += e.density[sp * bins + b];
      }
      double const lower = sum / n, mean = e.mean[sp * e.dim];  // the moment reduction's <x>
      EXPECT_LE(lower, mean + 1e-9) << s << " " << p;
      EXPECT_LT(mean, lower + w + 1e-9) << s << " " << p;
      drift = std::max(drift, std::abs(mean));
    }
  EXPECT_GT(drift, 1.0);  // the positions leave the first period, so the winding count enters
}

TEST(SdeUnwrappedDensity, MeanPositionBracketsTheEnsembleMeanFloat) { check_mean<float>(); }
TEST(SdeUnwrappedDensity, MeanPositionBracketsTheEnsembleMeanDouble) { check_mean<double>(); }

TEST(SdeUnwrappedDensity, OffByDefault) {
  auto p = params(0, 0, 0);
  p.trajectories = 0;
  auto const e = solve<double>(p);
  EXPECT_EQ(e.density_bins, 0);
  EXPECT_TRUE(e.density.empty());
  EXPECT_TRUE(e.trajectories.empty());
}

TEST(SdeUnwrappedDensity, BadRangeIsRefused) {
  EXPECT_THROW(solve<double>(params(2, 1, 1)), parity::InvalidInput);
  EXPECT_THROW(solve<double>(params(0, NAN, 4)), parity::InvalidInput);
}

}  // namespace parity_test_sde_unwrapped_density
