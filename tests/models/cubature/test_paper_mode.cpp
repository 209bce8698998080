// The paper mode (Mode::paper): the published two-phase algorithm of Arumugam et al. (2013).
// INIT-PARTITION into l^n <= Lmax equal parts, the classification of a region as good when its
// error < max(tau_abs, tau_rel |I_j|), the hand-over of the split pieces once the list reaches
// Lmax, phase 2's per-region stop at (tau_rel, tau_abs), and f1..f5 to the requested tolerance
// against the references computed without cubature (paper_references.py).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <vector>

#include "parity/cubature/detail/phase2_kernel.hpp"
#include "parity/cubature/detail/region_list.hpp"
#include "parity/cubature/integrands.hpp"
#include "parity/cubature/integrate.hpp"
#include "same_bits.hpp"
#include "test_backend.hpp"

namespace parity_test_cubature_paper_mode {

using parity::test::same_bits;

namespace cub = parity::cubature;
using cub::Family;
using parity::test::ExecSpace;
using parity::test::MemSpace;

struct Linear {  // every null rule annihilates it: the error estimates are rounding only
  KOKKOS_INLINE_FUNCTION double operator()(cub::Point<double> const& x) const { return 1 + x[0] + 2 * x[1]; }
};

cub::Options paper_options(int lmax) {
  cub::Options o;
  o.mode = cub::Mode::paper;
  o.max_regions = lmax;
  o.max_evaluations = 50'000'000;
  return o;
}

// CUHRE's rule and estimate as the paper mode applies them (degree 9, null rules, two-level).
cub::NullRules<double> cuhre_rule(int n) {
  auto nulls = cub::make_null_rules<double>(n);
  nulls.enabled = true;
  nulls.sharp = true;
  nulls.nine = cub::make_degree9<double>(n);
  return nulls;
}

// The unit cube cut into l equal parts per axis, evaluated by the rule; host copies.
struct Evaluated {
  std::vector<double> estimate, error, volume;
};
template <class F>
Evaluated evaluate_partition(F const& f, int n, int l) {
  std::int64_t count = 1;
  Kokkos::Array<int, cub::max_dim> counts{};
  Kokkos::Array<double, cub::max_dim> lo{}, hi{};
  for (int i = 0; i < n; ++i) {
    counts[i] = l;
    hi[i] = 1.0;
    count *= l;
  }
  cub::detail::RegionList<double, MemSpace> list(count, n);
  Kokkos::View<int*, MemSpace> finite("parity::test::finite", count);
  cub::detail::even_partition<ExecSpace, double>(ExecSpace(), list, n, count, counts, lo, hi);
  cub::detail::evaluate_list<ExecSpace, double>(ExecSpace(), f, n, list, count, 1, finite, cuhre_rule(n));
  auto const est = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), list.estimate);
  auto const err = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), list.error);
  Evaluated e;
  for (std::int64_t r = 0; r < count; ++r) {
    e.estimate.push_back(est(r));
    e.error.push_back(err(r));
    e.volume.push_back(std::pow(1.0 / l, n));
  }
  return e;
}

TEST(CubaturePaperMode, InitPartitionIntoLToTheNAtMostLmax) {
  // The largest l with l^n <= Lmax, against floating-point roots checked by integer powers.
  for (std::int64_t lmax : {2, 16, 500, 512, 32768, 1 << 24})
    for (int n = 1; n <= cub::max_dim; ++n) {
      int const l = cub::detail::init_partition_parts(lmax, n);
      EXPECT_LE(std::pow(double(l), n), double(lmax)) << lmax << " " << n;
      EXPECT_GT(std::pow(double(l + 1), n), double(lmax)) << lmax << " " << n;
    }
  // The paper's Lmax = 32768: 181^2, 32^3, 8^5, 5^6 = 15625, 4^7 = 16384, 3^8 = 6561.
  EXPECT_EQ(cub::detail::init_partition_parts(32768, 2), 181);
  EXPECT_EQ(cub::detail::init_partition_parts(32768, 3), 32);
  EXPECT_EQ(cub::detail::init_partition_parts(32768, 5), 8);
  EXPECT_EQ(cub::detail::init_partition_parts(32768, 6), 5);
  EXPECT_EQ(cub::detail::init_partition_parts(32768, 7), 4);
  EXPECT_EQ(cub::detail::init_partition_parts(32768, 8), 3);
  // A run evaluates exactly that partition once and stops (the rule is exact on a linear
  // integrand): l^n regions of 2^n + p(n) points each, the integral 1 + 1/2 + 1 = 2.5.
  struct Case {
    int lmax, n;
    std::int64_t regions;
  };
  for (Case c : {Case{512, 2, 22 * 22}, Case{512, 3, 512}, Case{500, 3, 343}, Case{32768, 4, 13 * 13 * 13 * 13},
                 Case{32768, 5, 32768}}) {
    cub::Tolerances t;
    t.relative = 1e-10;
    auto const r = cub::integrate<ExecSpace, double>(ExecSpace(), Linear(), std::vector<double>(c.n, 0.0),
                                                     std::vector<double>(c.n, 1.0), t, paper_options(c.lmax));
    EXPECT_EQ(r.status, cub::Status::converged) << c.n;
    EXPECT_EQ(r.rule, cub::Rule::degree9);
    EXPECT_EQ(r.error_estimate, cub::ErrorEstimate::two_level);
    EXPECT_EQ(r.phase1_iterations, 1);
    EXPECT_EQ(r.regions, c.regions) << c.lmax << " " << c.n;
    EXPECT_EQ(r.evaluations, c.regions * cub::rule9_points(c.n));
    EXPECT_NEAR(r.integral, 2.5, 1e-12);
  }
}

TEST(CubaturePaperMode, RegionIsGoodWhenItsErrorIsBelowItsOwnTolerance) {
  // A Gaussian peak in one corner: the first pass's bad regions are exactly those with error >=
  // max(tau_abs, tau_rel |I_j|), counted here from the rule applied to the same partition; the
  // volume share of the global tolerance would classify differently. The tolerances are tight
  // enough that the first pass does not meet the global one (it would stop before classifying).
  int const n = 3, lmax = 512;
  std::vector<double> const a(n, 6.0), u(n, 0.2), lo(n, 0.0), hi(n, 1.0);
  cub::GenzIntegrand<double> const f(Family::gaussian, a, u);
  auto const e = evaluate_partition(f, n, cub::detail::init_partition_parts(lmax, n));
  for (cub::Tolerances t : {cub::Tolerances{0.0, 1e-6}, cub::Tolerances{1e-12, 1e-7}, cub::Tolerances{1e-10, 0.0}}) {
    double total = 0;
    for (double x : e.estimate) total += x;
    std::int64_t own = 0, share = 0;
    for (std::size_t r = 0; r < e.estimate.size(); ++r) {
      own += e.error[r] >= std::max(t.absolute, t.relative * std::abs(e.estimate[r]));
      share += e.error[r] > std::max(t.absolute, t.relative * std::abs(total)) * e.volume[r];
    }
    auto const res = cub::integrate<ExecSpace, double>(ExecSpace(), f, lo, hi, t, paper_options(lmax));
    ASSERT_TRUE(res.phase1_iterations > 1 || res.phase2_regions > 0);  // the first pass was classified
    std::cout << "gaussian 3-D, tau_abs " << t.absolute << ", tau_rel " << t.relative << ": bad " << own << " of "
              << e.estimate.size() << " (volume share: " << share << ")\n";
    EXPECT_EQ(res.history.front().bad, own);
    EXPECT_NE(own, share);  // the test tells the two rules apart
    // A positive integrand meets tau_rel |I| once every region meets tau_rel |I_j|; with tau_abs
    // alone each region has the whole tau_abs, so the sum is only bounded by regions x tau_abs.
    if (t.relative > 0)
      EXPECT_EQ(res.status, cub::Status::converged);
    else
      EXPECT_LE(res.error, double(res.regions) * t.absolute);
    EXPECT_LE(std::abs(res.integral - cub::genz_exact(Family::gaussian, a, u, lo, hi)), res.error);
  }
}

TEST(CubaturePaperMode, SmallLmaxHandsTheSplitPiecesToPhaseTwo) {
  // Lmax 16 in 2-D: INIT-PARTITION 4 x 4; the bad regions are cut into d = clamp(16 / bad, 2, 8)
  // pieces, and once the list reaches 16 the pieces go to phase 2, which evaluates them first.
  std::vector<double> const a(2, 12.0), u{0.3, 0.6}, lo(2, 0.0), hi(2, 1.0);
  cub::GenzIntegrand<double> const f(Family::product_peak, a, u);
  double const exact = cub::genz_exact(Family::product_peak, a, u, lo, hi);
  cub::Tolerances t;
  t.relative = 1e-9;
  auto o = paper_options(16);
  auto const r = cub::integrate<ExecSpace, double>(ExecSpace(), f, lo, hi, t, o);
  ASSERT_FALSE(r.history.empty());
  auto const& last = r.history.back();
  std::int64_t const d = std::clamp<std::int64_t>(16 / last.bad, 2, o.max_split);
  std::cout << "product peak 2-D, Lmax 16: " << r.phase1_iterations << " phase-1 iterations, " << r.phase2_regions
            << " regions in phase 2, " << r.phase2_evaluations << " of " << r.evaluations << " evaluations there\n";
  EXPECT_EQ(r.history.front().regions, 16);
  EXPECT_GE(last.bad * d, 16);
  EXPECT_EQ(r.phase2_regions, last.bad * d);
  EXPECT_EQ(r.phase2_evaluations, r.evaluations - last.evaluations);  // phase 1's count stops at the hand-over
  EXPECT_GT(r.phase2_evaluations, r.phase2_regions * r.points);  // the pieces' first rule, then bisections
  EXPECT_EQ(r.status, cub::Status::converged);
  EXPECT_LE(std::abs(r.integral - exact), r.error);
  EXPECT_LE(r.error, t.relative * std::abs(r.integral));
  // A larger Lmax leaves more of the work to phase 1 and gives the same integral to the tolerance.
  auto const wide = cub::integrate<ExecSpace, double>(ExecSpace(), f, lo, hi, t, paper_options(4096));
  EXPECT_EQ(wide.status, cub::Status::converged);
  EXPECT_LT(double(wide.phase2_evaluations) / wide.evaluations, double(r.phase2_evaluations) / r.evaluations);
  EXPECT_LE(std::abs(wide.integral - exact), wide.error);
}

TEST(CubaturePaperMode, PhaseTwoRunsEachRegionToItsOwnTolerance) {
  // The phase-2 kernel alone on the four quarters of the unit square, a peak in one of them:
  // each region stops once its error <= max(tau_abs, tau_rel |I_j|) of its own integral (not a
  // share of a global tolerance), and where it refined, its estimate bounds its true error
  // (closed form per box; a region met at once keeps the rule's first estimate, which on the
  // far quarter of this peak is below its true error, as any estimate from one application can be).
  int const n = 2;
  std::vector<double> const a(n, 10.0), u{0.2, 0.3};
  cub::GenzIntegrand<double> const f(Family::gaussian, a, u);
  auto const nulls = cuhre_rule(n);
  int const count = 4, capacity = 4096, stride = 2 * n + 3;
  cub::detail::RegionList<double, MemSpace> list(count, n);
  Kokkos::View<int*, MemSpace> finite("parity::test::finite", count);
  cub::detail::even_partition<ExecSpace, double>(ExecSpace(), list, n, count, {2, 2}, {0.0, 0.0}, {1.0, 1.0});
  cub::detail::evaluate_list<ExecSpace, double>(ExecSpace(), f, n, list, count, 1, finite, nulls);
  for (cub::Tolerances t : {cub::Tolerances{0.0, 1e-10}, cub::Tolerances{1e-9, 1e-12}}) {
    Kokkos::View<double***, Kokkos::LayoutRight, MemSpace> heaps("parity::test::heaps", count, capacity, stride);
    Kokkos::View<double*, MemSpace> tolerance("parity::test::tolerance", count);
    Kokkos::View<std::int64_t*, MemSpace> budget("parity::test::budget", count);
    Kokkos::deep_copy(tolerance, t.absolute);
    Kokkos::deep_copy(budget, std::int64_t(100'000'000));
    cub::detail::Matrix<MemSpace> sums("parity::test::sums", count, cub::detail::phase2_sum_columns);
    Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemSpace> counts("parity::test::counts", count, 3);
    cub::detail::phase2_batch<ExecSpace, double>(ExecSpace(), f, n, list, 0, count, 1, heaps, tolerance, budget, sums,
                                                 counts, false, nulls, t.relative);
    auto const s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
    auto const c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
    for (int j = 0; j < count; ++j) {
      std::vector<double> lo{0.5 * (j % 2), 0.5 * (j / 2)}, hi{lo[0] + 0.5, lo[1] + 0.5};
      double const exact = cub::genz_exact(Family::gaussian, a, u, lo, hi);
      double const own = std::max(t.absolute, t.relative * std::abs(s(j, 0)));
      std::cout << "  quarter " << j << ": I " << s(j, 0) << " +- " << s(j, 1) << " (own tolerance " << own
                << ", true error " << std::abs(s(j, 0) - exact) << "), " << c(j, 0) << " evaluations\n";
      EXPECT_EQ(c(j, 2), int(cub::detail::reason_met)) << j;
      EXPECT_LE(s(j, 1), own) << j;
      if (c(j, 0) > 0) EXPECT_LE(std::abs(s(j, 0) - exact), s(j, 1)) << j;
    }
  }
}

// One region of the phase-2 kernel on the unit square, stopped after `splits` bisections (its
// budget) or at `t`; host copies of its sums and counts.
struct OneRegion {
  std::vector<double> sums;
  std::int64_t evaluations = 0;
  int reason = 0;
};
template <class F>
OneRegion run_one_region(F const& f, cub::NullRules<double> const& nulls, cub::Tolerances t, std::int64_t splits,
                         bool average) {
  int const n = 2, capacity = 4096, stride = 2 * n + 3;
  cub::detail::RegionList<double, MemSpace> list(1, n);
  Kokkos::View<int*, MemSpace> finite("parity::test::finite", 1);
  cub::detail::even_partition<ExecSpace, double>(ExecSpace(), list, n, 1, {1, 1}, {0.0, 0.0}, {1.0, 1.0});
  cub::detail::evaluate_list<ExecSpace, double>(ExecSpace(), f, n, list, 1, 1, finite, nulls);
  Kokkos::View<double***, Kokkos::LayoutRight, MemSpace> heaps("parity::test::heaps", 1, capacity, stride);
  Kokkos::View<double*, MemSpace> tolerance("parity::test::tolerance", 1);
  Kokkos::View<std::int64_t*, MemSpace> budget("parity::test::budget", 1);
  Kokkos::deep_copy(tolerance, t.absolute);
  Kokkos::deep_copy(budget, splits * 2 * cub::rule9_points(n));
  cub::detail::Matrix<MemSpace> sums("parity::test::sums", 1, cub::detail::phase2_sum_columns);
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemSpace> counts("parity::test::counts", 1, 3);
  cub::detail::phase2_batch<ExecSpace, double>(ExecSpace(), f, n, list, 0, 1, 1, heaps, tolerance, budget, sums, counts,
                                               false, nulls, t.relative, average);
  auto const s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
  auto const c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  OneRegion r;
  for (int k = 0; k < cub::detail::phase2_sum_columns; ++k) r.sums.push_back(s(0, k));
  r.evaluations = c(0, 0);
  r.reason = int(c(0, 2));
  return r;
}

TEST(CubaturePaperMode, PhaseTwoAveragesItsEstimatesAsCubaCuhre) {
  // CUBA's Cuhre (flags without LAST) reports the average of the running estimates I_k after
  // each split weighted by w_k = 1 / max(E_k^2, 2^-104), with error 1 / sqrt(sum w_k), the first
  // estimate (the region's rule) included. The sequence is read from the kernel without the
  // average, stopped after k = 0..K splits by its budget; the average from the host's sums of it
  // must be the kernel's with the average, stopped after K.
  std::vector<double> const a(2, 10.0), u{0.2, 0.3};
  cub::GenzIntegrand<double> const f(Family::gaussian, a, u);
  auto const nulls = cuhre_rule(2);
  cub::Tolerances const never{0.0, 1e-300};
  int const splits = 40;
  double weights = 0, weighted = 0, smallest = INFINITY;
  for (int k = 0; k <= splits; ++k) {
    auto const last = run_one_region(f, nulls, never, k, false);
    ASSERT_EQ(last.evaluations, k * 2 * cub::rule9_points(2));
    double const e = last.sums[cub::detail::sum_error], w = 1 / std::max(e * e, std::ldexp(1.0, -104));
    weights += w;
    weighted += w * last.sums[cub::detail::sum_integral];
    smallest = std::min(smallest, e);
  }
  auto const avg = run_one_region(f, nulls, never, splits, true);
  EXPECT_EQ(avg.reason, int(cub::detail::reason_budget));
  EXPECT_NEAR(avg.sums[cub::detail::sum_integral], weighted / weights, 1e-12 * std::abs(weighted / weights));
  EXPECT_NEAR(avg.sums[cub::detail::sum_error], 1 / std::sqrt(weights), 1e-9 / std::sqrt(weights));
  EXPECT_LT(avg.sums[cub::detail::sum_error], smallest);  // below every estimate's own error
  // Its last estimates are those of the run without the average.
  auto const last = run_one_region(f, nulls, never, splits, false);
  EXPECT_EQ(avg.sums[cub::detail::sum_last_integral], last.sums[cub::detail::sum_integral]);
  EXPECT_EQ(avg.sums[cub::detail::sum_last_error], last.sums[cub::detail::sum_error]);
  // At a tolerance the average stops no later (its error is at most the last estimate's), and
  // below its own tolerance.
  cub::Tolerances const t{0.0, 1e-8};
  auto const stop_last = run_one_region(f, nulls, t, 100'000, false);
  auto const stop_avg = run_one_region(f, nulls, t, 100'000, true);
  ASSERT_EQ(stop_last.reason, int(cub::detail::reason_met));
  ASSERT_EQ(stop_avg.reason, int(cub::detail::reason_met));
  EXPECT_LE(stop_avg.evaluations, stop_last.evaluations);
  EXPECT_LE(stop_avg.sums[cub::detail::sum_error], t.relative * std::abs(stop_avg.sums[cub::detail::sum_integral]));
  EXPECT_GE(stop_avg.sums[cub::detail::sum_last_error], stop_avg.sums[cub::detail::sum_error]);
}

TEST(CubaturePaperMode, CuhreAverageConvergesWithFewerEvaluations) {
  // With cuhre_average, phase 2 stops on the average: no more evaluations than without it, the
  // true error within the tolerance on these integrands (references without cubature; the
  // average's error is no bound, and f4 6-D at 1e-5 misses it), and last_error, the last
  // estimates' error, at least the average's; the improved mode refuses it.
  struct Case {
    Family f;
    int n;
    double rel;
    int lmax;
  };
  for (Case c : {Case{Family::f1, 3, 1e-7, 512}, Case{Family::f3, 3, 1e-4, 512}, Case{Family::f4, 3, 1e-7, 512}}) {
    std::vector<double> const zero(c.n, 0.0), one(c.n, 1.0);
    double const reference = cub::genz_exact(c.f, zero, zero, zero, one);
    cub::Tolerances t;
    t.relative = c.rel;
    cub::GenzIntegrand<double> const f(c.f, zero, zero);
    auto o = paper_options(c.lmax);
    auto const last = cub::integrate<ExecSpace, double>(ExecSpace(), f, zero, one, t, o);
    o.cuhre_average = true;
    auto const avg = cub::integrate<ExecSpace, double>(ExecSpace(), f, zero, one, t, o);
    std::cout << cub::to_string(c.f) << " " << c.n << "-D rel " << c.rel << ": " << avg.evaluations
              << " evaluations with the average, " << last.evaluations << " without; true rel error "
              << std::abs(avg.integral - reference) / std::abs(reference) << ", average's estimate "
              << avg.error / std::abs(reference) << ", last estimates' " << avg.last_error / std::abs(reference)
              << "\n";
    ASSERT_GT(avg.phase2_regions, 0) << cub::to_string(c.f);
    EXPECT_EQ(avg.status, cub::Status::converged) << cub::to_string(c.f);
    EXPECT_LE(avg.evaluations, last.evaluations) << cub::to_string(c.f);
    EXPECT_LE(std::abs(avg.integral - reference), c.rel * std::abs(reference)) << cub::to_string(c.f);
    EXPECT_GE(avg.last_error, avg.error) << cub::to_string(c.f);
    EXPECT_EQ(last.last_error, last.error) << cub::to_string(c.f);
  }
  cub::Options improved;
  improved.cuhre_average = true;
  std::vector<double> const zero(2, 0.0), one(2, 1.0);
  auto const run = [&] {
    return cub::integrate<ExecSpace, double>(ExecSpace(), cub::GenzIntegrand<double>(Family::f1, zero, zero), zero, one,
                                             cub::Tolerances{0.0, 1e-6}, improved);
  };
  EXPECT_THROW(run(), parity::InvalidInput);
}

TEST(CubaturePaperMode, FullHeapsGrowIntoTheMemoryOfAllHeaps) {
  // f1 3-D at 1e-7 with Lmax 64 hands 120 regions to phase 2. In 0.3 MB their heaps hold a few
  // hundred subregions; those near the ridges fill theirs and continue alone in larger heaps (their
  // heaps copied over), so the run ends with the same bits and evaluations as in 64 MB, where no
  // heap fills (the same subregions refined): converged, the true error within the tolerance and
  // the estimate (reference without cubature). A capacity fixed by heap_capacity stays fixed:
  // those regions stop on storage.
  int const n = 3;
  std::vector<double> const zero(n, 0.0), one(n, 1.0);
  double const reference = cub::genz_exact(Family::f1, zero, zero, zero, one);
  cub::Tolerances t;
  t.relative = 1e-7;
  auto const run = [&](double mb, int capacity) {
    auto o = paper_options(64);
    o.max_memory_mb = mb;
    o.heap_capacity = capacity;
    return cub::integrate<ExecSpace, double>(ExecSpace(), cub::GenzIntegrand<double>(Family::f1, zero, zero), zero, one,
                                             t, o);
  };
  auto const ample = run(64.0, 0), tight = run(0.3, 0), fixed = run(0.3, 64);
  for (auto const* r : {&ample, &tight, &fixed})
    std::cout << "  heaps up to " << r->heap_capacity << ": " << r->phase2_regions << " regions, " << r->phase2_regrown
              << " regrown, " << r->phase2_storage_limited << " stopped on storage, " << r->evaluations
              << " evaluations, " << cub::to_string(r->status) << "\n";
  ASSERT_EQ(ample.phase2_regrown, 0);
  ASSERT_EQ(ample.phase2_storage_limited, 0);
  EXPECT_GT(tight.phase2_regrown, 0);
  EXPECT_EQ(tight.phase2_storage_limited, 0);
  EXPECT_EQ(tight.status, cub::Status::converged);
  EXPECT_TRUE(same_bits(tight.integral, ample.integral));
  EXPECT_TRUE(same_bits(tight.error, ample.error));
  EXPECT_EQ(tight.evaluations, ample.evaluations);
  EXPECT_EQ(tight.regions, ample.regions);
  double const true_error = std::abs(tight.integral - reference);
  EXPECT_LE(true_error, t.relative * reference);
  EXPECT_LE(true_error, tight.error);
  EXPECT_EQ(fixed.heap_capacity, 64);
  EXPECT_EQ(fixed.phase2_regrown, 0);
  EXPECT_GT(fixed.phase2_storage_limited, 0);
  EXPECT_EQ(fixed.status, cub::Status::storage_exhausted);
}

TEST(CubaturePaperMode, PaperIntegrandsConvergeAgainstReferences) {
  // f1..f5 (and f1-pagani) at small n and the paper's kind of tolerance: converged, the true
  // error within the tolerance (references without cubature, paper_references.py), and phase 2
  // doing work where Lmax is small enough to reach.
  struct Case {
    Family f;
    int n;
    double rel;
    int lmax;
  };
  for (Case c : {Case{Family::f1, 3, 1e-7, 512}, Case{Family::f1_pagani, 3, 1e-7, 512}, Case{Family::f2, 2, 1e-5, 64},
                 Case{Family::f3, 3, 1e-4, 512}, Case{Family::f4, 3, 1e-7, 512}, Case{Family::f4, 4, 1e-6, 32768},
                 Case{Family::f5, 3, 1e-7, 512}}) {
    std::vector<double> const zero(c.n, 0.0), one(c.n, 1.0);
    double const reference = cub::genz_exact(c.f, zero, zero, zero, one);
    ASSERT_TRUE(std::isfinite(reference));
    cub::Tolerances t;
    t.relative = c.rel;
    auto const r = cub::integrate<ExecSpace, double>(ExecSpace(), cub::GenzIntegrand<double>(c.f, zero, zero), zero,
                                                     one, t, paper_options(c.lmax));
    double const true_error = std::abs(r.integral - reference);
    std::cout << cub::to_string(c.f) << " " << c.n << "-D rel " << c.rel << ", Lmax " << c.lmax << ": " << r.evaluations
              << " evaluations (" << r.phase2_evaluations << " in phase 2, " << r.phase2_regions
              << " regions), true rel error " << true_error / std::abs(reference) << ", estimate "
              << r.error / std::abs(reference) << ", " << cub::to_string(r.status) << "\n";
    EXPECT_EQ(r.status, cub::Status::converged) << cub::to_string(c.f);
    EXPECT_LE(true_error, c.rel * std::abs(reference)) << cub::to_string(c.f);
    EXPECT_LE(true_error, r.error) << cub::to_string(c.f);
  }
}

}  // namespace parity_test_cubature_paper_mode
