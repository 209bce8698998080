// integrate_family: every integrand of a family in one region list gives, bit for bit, what
// integrate() gives for it alone while neither budget nor memory binds, is right against its closed
// form, ends on its own budget or a non-finite value without stopping the others, and the list of
// all of them stays within the memory; bad input is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parity/cubature/family.hpp"
#include "parity/cubature/integrands.hpp"
#include "parity/cubature/integrate.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "recorded_progress.hpp"
#include "same_bits.hpp"
#include "test_backend.hpp"

namespace parity_test_cubature_family {

namespace cub = parity::cubature;
using cub::Family;
using parity::test::ExecSpace;
template <class Real>
using GenzFamily = cub::GenzParameterFamily<Real, ExecSpace::memory_space>;

using parity::test::same_bits;

// One Genz family at m parameter sets: a_k in every axis, u_k in every axis.
struct Sets {
  std::vector<std::vector<double>> a, u;
  Sets(int n, std::vector<double> const& as, std::vector<double> const& us) {
    for (std::size_t k = 0; k < as.size(); ++k) {
      a.emplace_back(n, as[k]);
      u.emplace_back(n, us[k]);
    }
  }
};

void expect_same(cub::Result const& x, cub::Result const& y, std::size_t k) {
  EXPECT_TRUE(same_bits(x.integral, y.integral)) << k << ": " << x.integral << " vs " << y.integral;
  EXPECT_TRUE(same_bits(x.error, y.error)) << k << ": " << x.error << " vs " << y.error;
  EXPECT_EQ(x.evaluations, y.evaluations) << k;
  EXPECT_EQ(x.regions, y.regions) << k;
  EXPECT_EQ(x.phase1_iterations, y.phase1_iterations) << k;
  EXPECT_EQ(x.status, y.status) << k;
  EXPECT_EQ(x.history.size(), y.history.size()) << k;
}

TEST(CubatureFamily, EachIntegrandAsIntegrateAlone) {
  // Product peaks from easy to sharp, at different locations: they converge after different
  // numbers of steps, so the list holds a changing mix of components.
  int const n = 3;
  Sets const s(n, {2.0, 6.0, 6.0, 15.0, 6.0, 30.0, 4.0}, {0.5, 0.1, 0.35, 0.62, 0.9, 0.27, 0.05});
  GenzFamily<double> const f(Family::product_peak, s.a, s.u);
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  cub::Tolerances t;
  t.relative = 1e-8;
  cub::Options o;
  o.max_evaluations = 50'000'000;
  o.initial_regions = 64;
  auto const family = cub::integrate_family<ExecSpace, double>(ExecSpace(), f, f.components(), lo, hi, t, o);
  ASSERT_EQ(family.size(), s.a.size());
  int iterations_min = 1 << 30, iterations_max = 0;
  for (std::size_t k = 0; k < family.size(); ++k) {
    auto const alone = cub::integrate<ExecSpace, double>(
        ExecSpace(), cub::GenzIntegrand<double>(Family::product_peak, s.a[k], s.u[k]), lo, hi, t, o);
    ASSERT_EQ(alone.phase2_regions, 0) << k;  // integrate() stayed in phase 1
    ASSERT_EQ(alone.filtered_regions, 0) << k;
    expect_same(family[k], alone, k);
    double const exact = cub::genz_exact(Family::product_peak, s.a[k], s.u[k], lo, hi);
    EXPECT_EQ(family[k].status, cub::Status::converged) << k;
    EXPECT_LE(std::abs(family[k].integral - exact), family[k].error) << k;
    EXPECT_LE(std::abs(family[k].integral - exact), 1e-8 * exact) << k;
    iterations_min = std::min(iterations_min, family[k].phase1_iterations);
    iterations_max = std::max(iterations_max, family[k].phase1_iterations);
  }
  EXPECT_LT(iterations_min + 3, iterations_max);  // the components did leave the list at different steps
}

TEST(CubatureFamily, DefaultsAndFloatAgainstClosedForms) {
  // Gaussians 4-D at 16 widths, default options: each within its tolerance of its closed form.
  int const n = 4;
  std::vector<double> as, us;
  for (int k = 0; k < 16; ++k) {
    as.push_back(1.0 + 0.5 * k);
    us.push_back(0.3 + 0.02 * k);
  }
  Sets const s(n, as, us);
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  cub::Tolerances t;
  t.relative = 1e-7;
  auto const r = cub::integrate_family<ExecSpace, double>(ExecSpace(), GenzFamily<double>(Family::gaussian, s.a, s.u),
                                                          int(as.size()), lo, hi, t);
  t.relative = 1e-3;
  auto const single = cub::integrate_family<ExecSpace, float>(
      ExecSpace(), GenzFamily<float>(Family::gaussian, s.a, s.u), int(as.size()), lo, hi, t);
  for (std::size_t k = 0; k < as.size(); ++k) {
    double const exact = cub::genz_exact(Family::gaussian, s.a[k], s.u[k], lo, hi);
    EXPECT_EQ(r[k].status, cub::Status::converged) << k;
    EXPECT_LE(std::abs(r[k].integral - exact), 1e-7 * exact) << k;
    EXPECT_LE(std::abs(r[k].integral - exact), r[k].error) << k;
    EXPECT_EQ(single[k].status, cub::Status::converged) << k;
    EXPECT_LE(std::abs(single[k].integral - exact), 1e-3 * exact) << k;
  }
}

TEST(CubatureFamily, AnIntegrandAtItsBudgetEndsAlone) {
  // A sharp corner peak cannot meet 1e-9 within the budget; the smooth ones can, and are exactly
  // what integrate() gives them.
  int const n = 4;
  Sets const s(n, {1.0, 40.0, 2.0}, {0.5, 0.5, 0.5});
  GenzFamily<double> const f(Family::product_peak, s.a, s.u);
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  cub::Tolerances t;
  t.relative = 1e-9;
  cub::Options o;
  o.max_evaluations = 3'000'000;
  o.initial_regions = 16;
  auto const r = cub::integrate_family<ExecSpace, double>(ExecSpace(), f, 3, lo, hi, t, o);
  EXPECT_EQ(r[1].status, cub::Status::budget_exhausted);
  EXPECT_LE(r[1].evaluations, o.max_evaluations);
  double const exact = cub::genz_exact(Family::product_peak, s.a[1], s.u[1], lo, hi);
  EXPECT_GT(r[1].error, 1e-9 * exact);
  EXPECT_LE(std::abs(r[1].integral - exact), r[1].error);  // the estimate still bounds the error
  for (std::size_t k : {0u, 2u}) {
    EXPECT_EQ(r[k].status, cub::Status::converged) << k;
    auto const alone = cub::integrate<ExecSpace, double>(
        ExecSpace(), cub::GenzIntegrand<double>(Family::product_peak, s.a[k], s.u[k]), lo, hi, t, o);
    expect_same(r[k], alone, k);
  }
}

// Component 1 is not finite on half the box; the others are Gaussians.
struct PartlyNaN {
  GenzFamily<double> genz;
  KOKKOS_FUNCTION double operator()(cub::Point<double> const& x, int k) const {
    if (k == 1 && x[0] > 0.5) return Kokkos::Experimental::quiet_NaN<double>::value;
    return genz(x, k);
  }
};

TEST(CubatureFamily, ANonFiniteIntegrandEndsAlone) {
  int const n = 2;
  Sets const s(n, {2.0, 2.0, 3.0}, {0.4, 0.4, 0.6});
  PartlyNaN const f{GenzFamily<double>(Family::gaussian, s.a, s.u)};
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  auto const r = cub::integrate_family<ExecSpace, double>(ExecSpace(), f, 3, lo, hi);
  EXPECT_EQ(r[1].status, cub::Status::integrand_not_finite);
  EXPECT_EQ(r[1].phase1_iterations, 1);
  for (std::size_t k : {0u, 2u}) {
    EXPECT_EQ(r[k].status, cub::Status::converged) << k;
    auto const alone = cub::integrate<ExecSpace, double>(
        ExecSpace(), cub::GenzIntegrand<double>(Family::gaussian, s.a[k], s.u[k]), lo, hi);
    expect_same(r[k], alone, k);
  }
}

TEST(CubatureFamily, WhatTheMemoryCannotHoldWaitsForALaterPass) {
  // 64 peaks at 1e-8 in 0.5 MB: each fits alone, all of them together do not, so the list keeps
  // those of lowest index and the others start again in later passes; each still gives
  // integrate()'s bits for it alone.
  int const n = 3;
  std::vector<double> as(64, 10.0), us;
  for (int k = 0; k < 64; ++k) us.push_back(0.1 + 0.0125 * k);
  Sets const s(n, as, us);
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  cub::Tolerances t;
  t.relative = 1e-8;
  cub::Options o;
  o.max_memory_mb = 0.5;
  o.initial_regions = 8;
  auto const r = cub::integrate_family<ExecSpace, double>(
      ExecSpace(), GenzFamily<double>(Family::product_peak, s.a, s.u), 64, lo, hi, t, o);
  int repeated = 0;
  for (std::size_t k = 0; k < r.size(); ++k) {
    EXPECT_LE(r[k].phase1_capacity * 128, std::int64_t(0.5 * 1048576));  // at least 128 bytes a region
    EXPECT_EQ(r[k].status, cub::Status::converged) << k;
    repeated += r[k].repeated_evaluations > 0;
    auto const alone = cub::integrate<ExecSpace, double>(
        ExecSpace(), cub::GenzIntegrand<double>(Family::product_peak, s.a[k], s.u[k]), lo, hi, t, o);
    ASSERT_EQ(alone.filtered_regions + alone.phase2_regions, 0) << k;
    expect_same(r[k], alone, k);
    double const exact = cub::genz_exact(Family::product_peak, s.a[k], s.u[k], lo, hi);
    EXPECT_LE(std::abs(r[k].integral - exact), 1e-8 * exact) << k;
  }
  EXPECT_GT(repeated, 0);  // some did wait
  EXPECT_EQ(r[0].repeated_evaluations, 0);
  // Even partitions of 64 regions each: a pass starts with the 18 that leave room for a split.
  o.initial_regions = 64;
  t.relative = 1e-6;
  GenzFamily<double> const gaussians(Family::gaussian, s.a, s.u);
  auto const passes = cub::integrate_family<ExecSpace, double>(ExecSpace(), gaussians, 64, lo, hi, t, o);
  for (std::size_t k = 0; k < passes.size(); k += 9) {
    auto const alone = cub::integrate<ExecSpace, double>(
        ExecSpace(), cub::GenzIntegrand<double>(Family::gaussian, s.a[k], s.u[k]), lo, hi, t, o);
    expect_same(passes[k], alone, k);
    EXPECT_EQ(passes[k].status, cub::Status::converged) << k;
  }
  // An integral whose own list outgrows the memory ends with its unfinished regions.
  t.relative = 1e-13;
  o.max_memory_mb = 0.05;
  auto const tight = cub::integrate_family<ExecSpace, double>(
      ExecSpace(), GenzFamily<double>(Family::product_peak, s.a, s.u), 4, lo, hi, t, o);
  for (std::size_t k = 0; k < tight.size(); ++k) {
    EXPECT_EQ(tight[k].status, cub::Status::storage_exhausted) << k;
    EXPECT_GT(tight[k].unrefined_regions, 0) << k;
    EXPECT_GT(tight[k].error, tight[k].tolerance) << k;
  }
}

using Recorded = parity::test::RecordedProgress;

TEST(CubatureFamily, ProgressPerStepAndOnePhase) {
  int const n = 2;
  Sets const s(n, {1.0, 2.0, 3.0}, {0.4, 0.4, 0.4});
  GenzFamily<double> const f(Family::gaussian, s.a, s.u);
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  cub::Options o;
  o.initial_regions = 4;
  auto const silent = cub::integrate_family<ExecSpace, double>(ExecSpace(), f, 3, lo, hi, {}, o);
  Recorded progress;
  parity::run::PhaseTimes times;
  o.progress = &progress;
  o.phases = &times;
  auto const reported = cub::integrate_family<ExecSpace, double>(ExecSpace(), f, 3, lo, hi, {}, o);
  int most = 0;
  for (auto const& r : reported) most = std::max(most, r.phase1_iterations);
  ASSERT_EQ(progress.lines.size(), std::size_t(most));
  for (auto const& line : progress.lines) EXPECT_EQ(line.stage, "family");
  ASSERT_EQ(times.phases().size(), 1u);
  EXPECT_EQ(times.phases()[0].name, "parity::cubature::family");
  for (std::size_t k = 0; k < 3; ++k) EXPECT_TRUE(same_bits(reported[k].integral, silent[k].integral)) << k;
}

TEST(CubatureFamily, RefusesWhatItDoesNotRun) {
  int const n = 2;
  Sets const s(n, {1.0}, {0.5});
  GenzFamily<double> const f(Family::gaussian, s.a, s.u);
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  auto run = [&](int m, cub::Options const& o) {
    return cub::integrate_family<ExecSpace, double>(ExecSpace(), f, m, lo, hi, {}, o);
  };
  EXPECT_THROW(run(0, {}), parity::InvalidInput);
  cub::Options paper;
  paper.mode = cub::Mode::paper;
  EXPECT_THROW(run(1, paper), parity::InvalidInput);
  cub::Options parking;
  parking.max_host_memory_mb = 64;
  EXPECT_THROW(run(1, parking), parity::InvalidInput);
  cub::Options big_team;
  big_team.team_size = 1024;
  if (cub::max_family_team_size<ExecSpace, double>(ExecSpace(), f) < 1024)
    EXPECT_THROW(run(1, big_team), parity::InvalidInput);
  EXPECT_THROW((cub::integrate_family<ExecSpace, double>(ExecSpace(), f, 1, hi, lo)), parity::InvalidInput);
}

}  // namespace parity_test_cubature_family
