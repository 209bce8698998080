// integrate_batch: several integrals in one call give exactly what integrate() gives for each
// alone (on a GPU they run concurrently on their own streams), and bad input is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parity/cubature/batch.hpp"
#include "parity/cubature/integrands.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "recorded_progress.hpp"
#include "same_bits.hpp"
#include "test_backend.hpp"

namespace parity_test_cubature_batch {

namespace cub = parity::cubature;
using parity::test::ExecSpace;

using parity::test::same_bits;

TEST(CubatureBatch, EachIntegralAsIfAlone) {
  // Product peaks at different locations (one converges in phase 1, others need more steps),
  // more integrals than workers so that workers take several in turn.
  int const n = 3;
  std::vector<double> const lo(n, 0.0), hi(n, 1.0), a(n, 6.0);
  std::vector<cub::GenzIntegrand<double>> fs;
  for (double u : {0.5, 0.1, 0.35, 0.9, 0.62, 0.27, 0.05})
    fs.emplace_back(cub::Family::product_peak, a, std::vector<double>(n, u));
  cub::Tolerances t;
  t.relative = 1e-8;
  cub::BatchOptions o;
  o.max_evaluations = 20'000'000;
  o.concurrency = 3;
  auto const batch = cub::integrate_batch<ExecSpace, double>(ExecSpace(), fs, lo, hi, t, o);
  ASSERT_EQ(batch.size(), fs.size());
  for (std::size_t k = 0; k < fs.size(); ++k) {
    auto const alone = cub::integrate<ExecSpace, double>(ExecSpace(), fs[k], lo, hi, t, o);
    EXPECT_TRUE(same_bits(batch[k].integral, alone.integral))
        << k << ": " << batch[k].integral << " vs " << alone.integral;
    EXPECT_TRUE(same_bits(batch[k].error, alone.error)) << k;
    EXPECT_EQ(batch[k].evaluations, alone.evaluations) << k;
    EXPECT_EQ(batch[k].status, alone.status) << k;
    // And each is right: within its tolerance of the closed form.
    double const exact = cub::genz_exact(cub::Family::product_peak, a, std::vector<double>(n, fs[k].u[0]), lo, hi);
    EXPECT_EQ(batch[k].status, cub::Status::converged) << k;
    EXPECT_LE(std::abs(batch[k].integral - exact), 1e-8 * exact) << k;
  }
  // One worker, or more workers than integrals: the same again.
  o.concurrency = 1;
  auto const one = cub::integrate_batch<ExecSpace, double>(ExecSpace(), fs, lo, hi, t, o);
  o.concurrency = 64;
  auto const many = cub::integrate_batch<ExecSpace, double>(ExecSpace(), fs, lo, hi, t, o);
  for (std::size_t k = 0; k < fs.size(); ++k) {
    EXPECT_TRUE(same_bits(one[k].integral, batch[k].integral)) << k;
    EXPECT_TRUE(same_bits(many[k].integral, batch[k].integral)) << k;
  }
}

TEST(CubatureBatch, EmptyAndBadInput) {
  std::vector<cub::GenzIntegrand<double>> none;
  std::vector<double> const lo(2, 0.0), hi(2, 1.0);
  EXPECT_TRUE((cub::integrate_batch<ExecSpace, double>(ExecSpace(), none, lo, hi, {}, {}).empty()));
  std::vector<cub::GenzIntegrand<double>> one{
      cub::GenzIntegrand<double>(cub::Family::gaussian, {5.0, 5.0}, {0.5, 0.5})};
  cub::BatchOptions negative;
  negative.concurrency = -1;
  EXPECT_THROW((cub::integrate_batch<ExecSpace, double>(ExecSpace(), one, lo, hi, {}, negative)), parity::InvalidInput);
  EXPECT_THROW((cub::integrate_batch<ExecSpace, double>(ExecSpace(), one, hi, lo, {}, {})), parity::InvalidInput);
}

using Recorded = parity::test::RecordedProgress;

TEST(CubatureBatch, ProgressOncePerIntegralAndOnePhase) {
  int const n = 2;
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  std::vector<cub::GenzIntegrand<double>> fs;
  for (double a : {1.0, 2.0, 3.0})
    fs.emplace_back(cub::Family::gaussian, std::vector<double>(n, a), std::vector<double>(n, 0.4));
  cub::BatchOptions o;
  o.initial_regions = 64;
  auto const silent = cub::integrate_batch<ExecSpace, double>(ExecSpace(), fs, lo, hi, {}, o);
  Recorded progress;
  parity::run::PhaseTimes times;
  o.progress = &progress;
  o.phases = &times;
  o.concurrency = 2;
  auto const reported = cub::integrate_batch<ExecSpace, double>(ExecSpace(), fs, lo, hi, {}, o);
  std::vector<long> seen;
  for (auto const& line : progress.lines) {
    EXPECT_EQ(line.stage, "batch");
    seen.push_back(line.iteration);
  }
  EXPECT_EQ(seen, (std::vector<long>{1, 2, 3}));
  ASSERT_EQ(times.phases().size(), 1u);
  EXPECT_EQ(times.phases()[0].name, "parity::cubature::batch");
  for (std::size_t k = 0; k < fs.size(); ++k) EXPECT_TRUE(same_bits(reported[k].integral, silent[k].integral)) << k;
}

}  // namespace parity_test_cubature_batch
