// integrate_vector: one component gives integrate()'s result; several components on one partition
// meet their closed forms (Genz families, the moments of a Gaussian) with fewer evaluations than
// integrating them one by one; a component that meets its tolerance early stays right, the budget
// and the memory end only the unmet components, a non-finite value ends all; bad input is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parity/cubature/integrands.hpp"
#include "parity/cubature/integrate.hpp"
#include "parity/cubature/vector.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "recorded_progress.hpp"
#include "same_bits.hpp"
#include "test_backend.hpp"

namespace parity_test_cubature_vector {

namespace cub = parity::cubature;
using cub::Family;
using parity::test::ExecSpace;
template <class Real>
using GenzFamily = cub::GenzParameterFamily<Real, ExecSpace::memory_space>;

using parity::test::same_bits;
constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible;

// A Genz family's m integrands as the components of one vector integrand.
template <class Real>
struct GenzVector {
  GenzFamily<Real> family;
  int m;
  KOKKOS_INLINE_FUNCTION void operator()(cub::Point<Real> const& x, Real* values) const {
    for (int k = 0; k < m; ++k) values[k] = family(x, k);
  }
};

// g(x) = prod_i exp(-a (x_i - u)^2) and its moments: g, x0 g, x0^2 g, x0 x1 g.
struct GaussianMoments {
  double a, u;
  KOKKOS_INLINE_FUNCTION void operator()(cub::Point<double> const& x, double* values) const {
    double s = 0;
    for (int i = 0; i < x.size(); ++i) s += (x[i] - u) * (x[i] - u);
    double const g = Kokkos::exp(-a * s);
    values[0] = g;
    values[1] = x[0] * g;
    values[2] = x[0] * x[0] * g;
    values[3] = x[0] * x[1] * g;
  }
};

// Component k of GaussianMoments alone (integrate()'s scalar form).
struct GaussianMoment {
  GaussianMoments all;
  int k;
  KOKKOS_INLINE_FUNCTION double operator()(cub::Point<double> const& x) const {
    double v[4];
    all(x, v);
    return v[k];
  }
};

// The four moments on [0, 1]^n in closed form, from the one-dimensional integrals of y^j e^{-a y^2},
// y = x - u: G0 (erf), J1 and J2 (by parts).
std::vector<double> gaussian_moments(double a, double u, int n) {
  double const pi = std::acos(-1.0), ea = std::exp(-a * u * u), eb = std::exp(-a * (1 - u) * (1 - u));
  double const g0 = 0.5 * std::sqrt(pi / a) * (std::erf(std::sqrt(a) * (1 - u)) + std::erf(std::sqrt(a) * u));
  double const j1 = (ea - eb) / (2 * a);
  double const j2 = g0 / (2 * a) - ((1 - u) * eb + u * ea) / (2 * a);
  double const g1 = j1 + u * g0, g2 = j2 + 2 * u * j1 + u * u * g0;
  double const rest = std::pow(g0, n - 1);
  return {g0 * rest, g1 * rest, g2 * rest, g1 * g1 * std::pow(g0, n - 2)};
}

TEST(CubatureVector, OneComponentIsIntegrate) {
  // Product peaks and Gaussians in 3 and 5 dimensions, tight enough for many steps.
  struct Case {
    Family family;
    int n;
    double a, u, tolerance;
  };
  for (Case const c : {Case{Family::product_peak, 3, 8.0, 0.3, 1e-11}, Case{Family::gaussian, 4, 6.0, 0.6, 1e-7},
                       Case{Family::corner_peak, 4, 4.0, 0.5, 1e-10}}) {
    std::vector<double> const a(c.n, c.a), u(c.n, c.u), lo(c.n, 0.0), hi(c.n, 1.0);
    cub::Tolerances t;
    t.relative = c.tolerance;
    cub::Options o;
    o.max_evaluations = 200'000'000;
    auto const alone =
        cub::integrate<ExecSpace, double>(ExecSpace(), cub::GenzIntegrand<double>(c.family, a, u), lo, hi, t, o);
    ASSERT_EQ(alone.phase2_regions, 0);
    ASSERT_EQ(alone.filtered_regions, 0);
    ASSERT_GT(alone.phase1_iterations, 3);
    GenzVector<double> const f{GenzFamily<double>(c.family, {a}, {u}), 1};
    auto const r = cub::integrate_vector<ExecSpace, double>(ExecSpace(), f, 1, lo, hi, t, o);
    ASSERT_EQ(r.size(), 1u);
    if (on_host) {
      EXPECT_TRUE(same_bits(r[0].integral, alone.integral)) << r[0].integral << " vs " << alone.integral;
      EXPECT_TRUE(same_bits(r[0].error, alone.error)) << r[0].error << " vs " << alone.error;
    } else {  // a GPU team may sum the orbit values in another order than the scalar reduction
      EXPECT_NEAR(r[0].integral, alone.integral, 1e-13 * std::abs(alone.integral));
      EXPECT_NEAR(r[0].error, alone.error, 1e-6 * alone.error);
    }
    EXPECT_EQ(r[0].evaluations, alone.evaluations);
    EXPECT_EQ(r[0].regions, alone.regions);
    EXPECT_EQ(r[0].phase1_iterations, alone.phase1_iterations);
    EXPECT_EQ(r[0].status, alone.status);
    EXPECT_EQ(r[0].rule, cub::Rule::degree9);
    EXPECT_EQ(r[0].history.size(), alone.history.size());
    double const exact = cub::genz_exact(c.family, a, u, lo, hi);
    EXPECT_LE(std::abs(r[0].integral - exact), c.tolerance * std::abs(exact));
  }
}

TEST(CubatureVector, MomentsAgainstClosedFormsWithFewerEvaluations) {
  int const n = 4;
  GaussianMoments const f{7.0, 0.4};
  auto const exact = gaussian_moments(f.a, f.u, n);
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  cub::Tolerances t;
  t.relative = 1e-8;
  auto const r = cub::integrate_vector<ExecSpace, double>(ExecSpace(), f, 4, lo, hi, t);
  std::int64_t separate = 0;
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(r[k].status, cub::Status::converged) << k;
    EXPECT_LE(r[k].error, 1e-8 * std::abs(r[k].integral)) << k;
    EXPECT_LE(std::abs(r[k].integral - exact[k]), 1e-8 * exact[k]) << k << ": " << r[k].integral << " vs " << exact[k];
    EXPECT_LE(std::abs(r[k].integral - exact[k]), r[k].error) << k;
    EXPECT_EQ(r[k].evaluations, r[0].evaluations) << k;  // one count: every call gives all components
    EXPECT_EQ(r[k].evaluations, r[k].regions_evaluated * r[k].points) << k;
    auto const alone = cub::integrate<ExecSpace, double>(ExecSpace(), GaussianMoment{f, k}, lo, hi, t);
    EXPECT_EQ(alone.status, cub::Status::converged) << k;
    separate += alone.evaluations;
  }
  EXPECT_LT(2 * r[0].evaluations, separate);
}

TEST(CubatureVector, GenzComponentsInDoubleAndFloat) {
  // Gaussians 3-D at 8 widths and centers, default options.
  int const n = 3;
  std::vector<std::vector<double>> as, us;
  for (int k = 0; k < 8; ++k) {
    as.emplace_back(n, 1.0 + 1.5 * k);
    us.emplace_back(n, 0.2 + 0.08 * k);
  }
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  cub::Tolerances t;
  t.relative = 1e-7;
  auto const r = cub::integrate_vector<ExecSpace, double>(
      ExecSpace(), GenzVector<double>{GenzFamily<double>(Family::gaussian, as, us), 8}, 8, lo, hi, t);
  t.relative = 1e-3;
  auto const single = cub::integrate_vector<ExecSpace, float>(
      ExecSpace(), GenzVector<float>{GenzFamily<float>(Family::gaussian, as, us), 8}, 8, lo, hi, t);
  for (std::size_t k = 0; k < as.size(); ++k) {
    double const exact = cub::genz_exact(Family::gaussian, as[k], us[k], lo, hi);
    EXPECT_EQ(r[k].status, cub::Status::converged) << k;
    EXPECT_LE(std::abs(r[k].integral - exact), 1e-7 * exact) << k;
    EXPECT_LE(std::abs(r[k].integral - exact), r[k].error) << k;
    EXPECT_EQ(single[k].status, cub::Status::converged) << k;
    EXPECT_LE(std::abs(single[k].integral - exact), 1e-3 * exact) << k;
  }
}

// A constant beside a sharp peak, or a peak that turns NaN in part of the box.
struct ConstantAndPeak {
  double width;
  bool nan_beyond;  // component 1 is NaN where x0 > 0.9
  KOKKOS_INLINE_FUNCTION void operator()(cub::Point<double> const& x, double* values) const {
    double p = 1;
    for (int i = 0; i < x.size(); ++i) p /= width * width + (x[i] - 0.3) * (x[i] - 0.3);
    values[0] = 2.5;
    values[1] = nan_beyond && x[0] > 0.9 ? Kokkos::nan("") : p;
  }
};

TEST(CubatureVector, AnEarlyComponentStaysRightAndTheBudgetEndsTheOthers) {
  int const n = 3;
  std::vector<double> const lo(n, 0.0), hi(n, 1.0), a(n, 1 / 0.05), u(n, 0.3);
  double const peak = cub::genz_exact(Family::product_peak, a, u, lo, hi);  // a = 1 / width
  cub::Tolerances t;
  t.relative = 1e-9;
  cub::Options o;
  o.max_evaluations = 400'000'000;
  auto const r = cub::integrate_vector<ExecSpace, double>(ExecSpace(), ConstantAndPeak{0.05, false}, 2, lo, hi, t, o);
  EXPECT_EQ(r[0].status, cub::Status::converged);
  EXPECT_NEAR(r[0].integral, 2.5, 1e-13);
  EXPECT_LE(r[0].history.front().error, 1e-9 * 2.5);  // met at the first step, refined with the peak
  EXPECT_EQ(r[1].status, cub::Status::converged);
  EXPECT_LE(std::abs(r[1].integral - peak), 1e-9 * peak) << r[1].integral << " vs " << peak;
  EXPECT_GT(r[1].phase1_iterations, 5);

  o.max_evaluations = 2'000'000;
  auto const capped =
      cub::integrate_vector<ExecSpace, double>(ExecSpace(), ConstantAndPeak{0.05, false}, 2, lo, hi, t, o);
  EXPECT_EQ(capped[0].status, cub::Status::converged);
  EXPECT_EQ(capped[1].status, cub::Status::budget_exhausted);
  EXPECT_LE(capped[1].evaluations, o.max_evaluations);
  EXPECT_GT(capped[1].error, capped[1].tolerance);
  EXPECT_LE(std::abs(capped[1].integral - peak), capped[1].error);
}

TEST(CubatureVector, ANonFiniteValueEndsEveryComponent) {
  std::vector<double> const lo(3, 0.0), hi(3, 1.0);
  auto const r = cub::integrate_vector<ExecSpace, double>(ExecSpace(), ConstantAndPeak{0.05, true}, 2, lo, hi);
  for (auto const& x : r) EXPECT_EQ(x.status, cub::Status::integrand_not_finite);
}

TEST(CubatureVector, WhatTheMemoryCannotHoldIsLeftUnrefined) {
  int const n = 4;
  GaussianMoments const f{40.0, 0.35};
  auto const exact = gaussian_moments(f.a, f.u, n);
  std::vector<double> const lo(n, 0.0), hi(n, 1.0);
  cub::Tolerances t;
  t.relative = 1e-12;
  cub::Options o;
  o.max_memory_mb = 1;
  auto const r = cub::integrate_vector<ExecSpace, double>(ExecSpace(), f, 4, lo, hi, t, o);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(r[k].status, cub::Status::storage_exhausted) << k;
    EXPECT_GT(r[k].unrefined_regions, 0) << k;
    EXPECT_GT(r[k].error, r[k].tolerance) << k;
    EXPECT_LE(std::abs(r[k].integral - exact[k]), r[k].error) << k;
    EXPECT_LE(r[k].regions, r[k].phase1_capacity) << k;
  }
}

using Recorded = parity::test::RecordedProgress;

TEST(CubatureVector, ProgressPerStepAndOnePhase) {
  std::vector<double> const lo(2, 0.0), hi(2, 1.0);
  GaussianMoments const f{3.0, 0.5};
  cub::Options o;
  o.initial_regions = 4;
  auto const silent = cub::integrate_vector<ExecSpace, double>(ExecSpace(), f, 4, lo, hi, {}, o);
  Recorded progress;
  parity::run::PhaseTimes times;
  o.progress = &progress;
  o.phases = &times;
  auto const reported = cub::integrate_vector<ExecSpace, double>(ExecSpace(), f, 4, lo, hi, {}, o);
  // One line a step that classified (the last step may end at the totals).
  EXPECT_GE(progress.lines.size() + 1, std::size_t(reported[0].phase1_iterations));
  EXPECT_LE(progress.lines.size(), std::size_t(reported[0].phase1_iterations));
  for (auto const& line : progress.lines) EXPECT_EQ(line.stage, "vector");
  ASSERT_EQ(times.phases().size(), 1u);
  EXPECT_EQ(times.phases()[0].name, "parity::cubature::vector");
  for (std::size_t k = 0; k < 4; ++k) EXPECT_TRUE(same_bits(reported[k].integral, silent[k].integral)) << k;
}

TEST(CubatureVector, RefusesWhatItDoesNotRun) {
  std::vector<double> const lo(2, 0.0), hi(2, 1.0);
  GaussianMoments const f{1.0, 0.5};
  auto run = [&](int m, cub::Options const& o) {
    return cub::integrate_vector<ExecSpace, double>(ExecSpace(), f, m, lo, hi, {}, o);
  };
  EXPECT_THROW(run(0, {}), parity::InvalidInput);
  EXPECT_THROW(run(cub::max_vector_components + 1, {}), parity::InvalidInput);
  cub::Options paper;
  paper.mode = cub::Mode::paper;
  EXPECT_THROW(run(4, paper), parity::InvalidInput);
  cub::Options seven;
  seven.rule = cub::Rule::degree7;
  EXPECT_THROW(run(4, seven), parity::InvalidInput);
  cub::Options parking;
  parking.max_host_memory_mb = 64;
  EXPECT_THROW(run(4, parking), parity::InvalidInput);
  cub::Options big_team;
  big_team.team_size = 1024;
  if (cub::max_vector_team_size<ExecSpace, double>(ExecSpace(), f, 4) < 1024)
    EXPECT_THROW(run(4, big_team), parity::InvalidInput);
  EXPECT_THROW((cub::integrate_vector<ExecSpace, double>(ExecSpace(), f, 4, hi, lo)), parity::InvalidInput);
  std::vector<double> const line_lo(1, 0.0), line_hi(1, 1.0);
  EXPECT_THROW((cub::integrate_vector<ExecSpace, double>(ExecSpace(), f, 4, line_lo, line_hi)), parity::InvalidInput);
}

}  // namespace parity_test_cubature_vector
