// The two-phase adaptive integrator: Genz families against their closed forms (is the error
// estimate an upper bound of the true error?), determinism across batch sizes and thread
// counts, the evaluation budget, bounded storage, bad input and non-finite integrands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "parity/cubature/integrands.hpp"
#include "parity/cubature/integrate.hpp"
#include "parity/cubature/params.hpp"
#include "parity/random/philox.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "recorded_progress.hpp"
#include "same_bits.hpp"
#include "test_backend.hpp"

namespace parity_test_cubature_integrate {

namespace cub = parity::cubature;
using cub::Family;
using parity::test::ExecSpace;

struct Polynomial5 {  // degree 5: both rules exact, so the error estimate is rounding only
  KOKKOS_INLINE_FUNCTION double operator()(cub::Point<double> const& x) const {
    double const a = x[0], b = x[1], c = x[2];
    return 1 + a * a * a * b * c + 3 * b * b * b * b * b - a * c;
  }
};

struct NanAbove {  // NaN where x_0 > 0.7
  double nan = std::numeric_limits<double>::quiet_NaN();
  KOKKOS_INLINE_FUNCTION double operator()(cub::Point<double> const& x) const { return x[0] > 0.7 ? nan : 1.0; }
};

// The concept integrate() checks: a const call on the point returning a value convertible to Real.
struct NotConst {
  double operator()(cub::Point<double> const&) { return 1; }
};
struct ReturnsPointer {
  double const* operator()(cub::Point<double> const&) const { return nullptr; }
};
static_assert(cub::Integrand<Polynomial5, double> && !cub::Integrand<Polynomial5, float>);  // Point<double> only
static_assert(cub::Integrand<cub::GenzIntegrand<float>, float>);
static_assert(!cub::Integrand<NotConst, double> && !cub::Integrand<ReturnsPointer, double> &&
              !cub::Integrand<Polynomial5, long double> && !cub::Integrand<int, double>);

// The machinery tests below (phases, memory, parking, budgets, estimates) were tuned on the
// degree-7 rule and pin it; the degree-9 default has its own tests (genz_families, Degree9*).
cub::Options small_options() {
  cub::Options o;
  o.rule = cub::Rule::degree7;
  o.initial_regions = 64;
  o.max_regions = 512;
  o.heap_capacity = 4096;
  o.max_evaluations = 3'000'000;
  return o;
}

template <class Real = double, class Space = ExecSpace>
cub::Result genz(Family f, std::vector<double> const& a, std::vector<double> const& u, double rel,
                 cub::Options const& o, Space const& space = Space()) {
  int const n = int(a.size());
  std::vector<double> lo(n, 0.0), hi(n, 1.0);
  cub::Tolerances t;
  t.relative = rel;
  return cub::integrate<Space, Real>(space, cub::GenzIntegrand<Real>(f, a, u), lo, hi, t, o);
}

using parity::test::same_bits;

// Returns the cases of the continuous families whose estimate is below the true error.
int genz_families(cub::Mode mode, cub::ErrorEstimate estimate = cub::ErrorEstimate::automatic,
                  cub::Rule rule = cub::Options{}.rule, double min_bounded = 0.9) {
  // Random a_i, u_i (Philox, fixed seed), moderate difficulty, several dimensions and tolerances.
  double const difficulty[] = {1.0, 4.0, 0.6, 4.0, 2.0, 1.0};  // per family, scaled by (0.5 + U)
  parity::random::PhiloxStream<double> rng(2013, 6);
  auto options = small_options();
  options.mode = mode;
  options.error_estimate = estimate;
  options.rule = rule;
  std::int64_t evaluations = 0;
  // The estimate |I7 - I5| is known to be unreliable for discontinuous integrands (the rule
  // does not see a jump between its points), so accuracy is asserted for the other families.
  int cases = 0, bounded = 0, converged = 0, smooth_converged = 0, accurate = 0;
  int family_cases[6][2] = {}, family_bounded[6][2] = {};  // per family and tolerance (1e-3, 1e-6)
  int continuous_misses = 0;
  for (int n : {2, 3, 5})
    for (double rel : {1e-3, 1e-6})
      for (int sample = 0; sample < 2; ++sample)
        for (Family f : cub::all_families) {
          if ((f == Family::c0 || f == Family::discontinuous) && rel < 1e-4 && n > 3)
            continue;  // too costly for a unit test
          std::vector<double> a(n), u(n);
          for (int i = 0; i < n; ++i) {
            a[i] = difficulty[int(f)] * (0.5 + rng.uniform());
            u[i] = rng.uniform();
          }
          auto const r = genz(f, a, u, rel, options);
          evaluations += r.evaluations;
          std::vector<double> lo(n, 0.0), hi(n, 1.0);
          double const exact = cub::genz_exact(f, a, u, lo, hi);
          double const true_error = std::abs(r.integral - exact);
          ++cases;
          bounded += true_error <= r.error;
          ++family_cases[int(f)][rel < 1e-4];
          family_bounded[int(f)][rel < 1e-4] += true_error <= r.error;
          continuous_misses += f != Family::discontinuous && !(true_error <= r.error);
          if (r.status == cub::Status::converged) {
            ++converged;
            if (f != Family::discontinuous) {
              ++smooth_converged;
              accurate += true_error <= 10 * rel * std::abs(exact);
            }
          }
          EXPECT_EQ(r.evaluations, r.regions_evaluated * r.points);
          EXPECT_EQ(r.points, r.rule == cub::Rule::degree9 ? cub::rule9_points(n) : cub::rule_points(n));
          EXPECT_EQ(r.rule, mode == cub::Mode::paper ? cub::Rule::degree9 : rule);
          EXPECT_LE(r.evaluations, small_options().max_evaluations);
          EXPECT_NE(r.status, cub::Status::integrand_not_finite);
          if (true_error > r.error)
            std::cout << "  [estimate below true error] " << cub::to_string(f) << " n=" << n << " rel=" << rel
                      << " true=" << true_error << " est=" << r.error << " status=" << cub::to_string(r.status) << "\n";
        }
  for (Family f : cub::all_families)
    std::cout << "  " << cub::to_string(f) << ": bounded " << family_bounded[int(f)][0] << "/"
              << family_cases[int(f)][0] << " at 1e-3, " << family_bounded[int(f)][1] << "/" << family_cases[int(f)][1]
              << " at 1e-6\n";
  std::cout << "Genz families, " << cub::to_string(mode) << " mode, " << cub::to_string(rule) << ", "
            << cub::to_string(estimate) << " estimate: error estimate >= true error in " << bounded << " of " << cases
            << " cases (" << double(bounded) / cases << "); converged " << converged << "; of " << smooth_converged
            << " converged non-discontinuous cases " << accurate << " are within 10x the tolerance; " << evaluations
            << " evaluations in all\n";
  ::testing::Test::RecordProperty(
      std::string("bounded_fraction_") + cub::to_string(mode) + "_" + cub::to_string(estimate),
      std::to_string(double(bounded) / cases));
  // Measured (this seed), degree 7: improved mode 64 of 68 (0.94; the misses are all
  // discontinuous) with 16.7 million evaluations against the paper mode's 21.0 million, which bounds 66 of 68
  // (0.97; 2 discontinuous misses). For comparison, the improved mode with the plain |I7 - I5|
  // estimate: 64 of 68, 14.4 million; with the null-rule estimate not floored at |I7 - I5|:
  // 59 of 68 (4 corner_peak 3-D missed by factors 3-14, 1 gaussian 5-D by 1.7).
  EXPECT_GE(bounded, min_bounded * cases);
  EXPECT_GE(converged, 0.9 * cases);
  EXPECT_EQ(accurate, smooth_converged);
  return continuous_misses;
}

TEST(CubatureIntegrate, GenzFamiliesErrorEstimateBoundsTrueError) {
  // The default: degree-9 rule, two-level estimate. Measured (this seed): 64 of 68, the misses
  // all discontinuous, all 68 converged, 11.3 million evaluations (degree 7 below: 64 of 68,
  // 64 converged, 16.7 million).
  EXPECT_EQ(genz_families(cub::Mode::improved), 0);
}

TEST(CubatureIntegrate, GenzFamiliesErrorEstimateBoundsTrueErrorDegree7) {
  genz_families(cub::Mode::improved, cub::ErrorEstimate::automatic, cub::Rule::degree7);
}

TEST(CubatureIntegrate, GenzFamiliesErrorEstimateBoundsTrueErrorDegree9NullRules) {
  // The degree-9 rule with the floored null-rule estimate (without the two-level check):
  // measured 62 of 68, missing gaussian and c0 5-D at 1e-3 by 1.04x and 1.06x besides the
  // discontinuous cases; which is why the degree-9 default uses two_level.
  genz_families(cub::Mode::improved, cub::ErrorEstimate::null_rules, cub::Rule::degree9);
}

TEST(CubatureIntegrate, GenzFamiliesErrorEstimateBoundsTrueErrorPaperMode) {
  // Paper mode: CUHRE's degree-9 rule and two-level estimate whatever Options::rule says, the
  // paper's per-region classification. Measured (this seed): 61 of 68, the misses 6 discontinuous
  // and c0 5-D at 1e-3 by 1.08x (a kink the rule's points straddle); 67 converged.
  genz_families(cub::Mode::paper, cub::ErrorEstimate::automatic, cub::Rule::degree7, 0.85);
}

TEST(CubatureIntegrate, GenzFamiliesErrorEstimateBoundsTrueErrorTwoLevel) {
  // The estimate without the |I7 - I5| floor where the null rules see the asymptotic regime,
  // checked at every split. Measured (this seed): 64 of 68, the misses all discontinuous (as the
  // floored estimate), 15.4 million evaluations (floored 16.7). Without the e2^2/e3 guard, 2 r e1
  // unfloored bounded 59 of 68. Degree 7 here; the degree-9 default uses it too (above).
  EXPECT_EQ(genz_families(cub::Mode::improved, cub::ErrorEstimate::two_level, cub::Rule::degree7), 0);
}

TEST(CubatureIntegrate, TwoLevelReachesTightToleranceCheaply) {
  // f5 = (1/2) sum cos(10 x_i) / beta over [0,1]^3 is exactly 3/2. At rel-tol 1e-9 the floored
  // null-rule estimate is held up by |I7 - I5| (the degree-5 rule's error, about h^-2 times the
  // degree-7 one): within 3e6 evaluations it ends budget_exhausted (measured: estimate 9e-9
  // relative; the CLI's default options need 7.1e6 to converge). two_level converges (measured:
  // 1.4e6 evaluations), with the true error within the tolerance and below its estimate.
  int const n = 3;
  std::vector<double> const zero(n, 0.0), one(n, 1.0);
  double const exact = 1.5;
  EXPECT_EQ(cub::genz_exact(Family::f5, zero, zero, zero, one), exact);
  auto o = small_options();
  o.max_evaluations = 3'000'000;
  o.error_estimate = cub::ErrorEstimate::two_level;
  auto const sharp = genz(Family::f5, zero, zero, 1e-9, o);
  o.error_estimate = cub::ErrorEstimate::null_rules;
  auto const floored = genz(Family::f5, zero, zero, 1e-9, o);
  std::cout << "f5 3-D rel 1e-9: two_level " << cub::to_string(sharp.status) << ", " << sharp.evaluations
            << " evaluations, true rel error " << std::abs(sharp.integral - exact) / exact << ", estimate "
            << sharp.error / exact << "; null_rules " << cub::to_string(floored.status) << ", " << floored.evaluations
            << " evaluations, estimate " << floored.error / exact << "\n";
  EXPECT_EQ(sharp.error_estimate, cub::ErrorEstimate::two_level);
  EXPECT_EQ(sharp.status, cub::Status::converged);
  EXPECT_LE(std::abs(sharp.integral - exact), 1e-9 * exact);
  EXPECT_LE(std::abs(sharp.integral - exact), sharp.error);
  EXPECT_LE(sharp.evaluations, o.max_evaluations);
  EXPECT_EQ(floored.status, cub::Status::budget_exhausted);
  EXPECT_GT(floored.error, 1e-9 * std::abs(floored.integral));
}

TEST(CubatureIntegrate, AliasedIntegrandEstimateStaysHonest) {
  // Regression: f2 = cos(prod cos(4^i x_i)) in 5-D oscillates with frequency 1024
  // along x_5. Regions far wider than that period are sampled at the same few x_5 values, so
  // refining them along the resolved axes converges to a biased value (about 2e-3 off) while
  // |I7 - I5| shrinks: the paper's algorithm returned, at rel-tol 1e-9, a worse integral than
  // at 1e-2 with an estimate below its true error. The null-rule ratio test sees that the
  // values do not decrease with the degree on such regions and keeps the estimate above the
  // true error, at a loose and at a tight tolerance alike.
  int const n = 5;
  std::vector<double> const zero(n, 0.0), one(n, 1.0);
  double const reference = cub::genz_exact(Family::f2, zero, zero, zero, one);
  auto o = small_options();
  o.max_evaluations = 4'000'000;
  double last_true_error = 0;
  for (double rel : {1e-2, 1e-9}) {
    auto const r = genz(Family::f2, zero, zero, rel, o);
    double const true_error = std::abs(r.integral - reference);
    std::cout << "f2 5-D rel " << rel << ": true error " << true_error << ", estimate " << r.error << ", "
              << cub::to_string(r.status) << ", " << r.evaluations << " evaluations\n";
    EXPECT_LE(true_error, r.error) << rel;
    if (rel < 1e-2) EXPECT_LE(true_error, 2 * last_true_error + 1e-12);
    last_true_error = true_error;
  }
  // The degree-9 rule and its two-level estimate: honest at both tolerances too (its integral
  // at 1e-9 is not better than at 1e-2 within this budget: measured 1.4e-3 and 6.2e-3).
  o.rule = cub::Rule::degree9;
  o.error_estimate = cub::ErrorEstimate::automatic;
  for (double rel : {1e-2, 1e-9}) {
    auto const r = genz(Family::f2, zero, zero, rel, o);
    double const true_error = std::abs(r.integral - reference);
    std::cout << "f2 5-D degree 9 rel " << rel << ": true error " << true_error << ", estimate " << r.error << ", "
              << cub::to_string(r.status) << ", " << r.evaluations << " evaluations\n";
    EXPECT_EQ(r.error_estimate, cub::ErrorEstimate::two_level);
    EXPECT_LE(true_error, r.error) << rel;
  }
}

TEST(CubatureIntegrate, Degree9ConvergesWhereDegree7RunsToItsBudget) {
  // The default (degree-9 rule, two-level estimate) against degree 7 with its null-rule
  // estimate on smooth integrands at tight tolerances within the same budget: f5 4-D (exactly 2)
  // at 1e-9 and oscillatory 5-D at 1e-8. Degree 9 converges, with the true error within the
  // tolerance and below its estimate; degree 7 spends the budget (its estimate, not its
  // integral, stops it).
  cub::Options o;
  o.max_evaluations = 20'000'000;
  struct Case {
    Family f;
    int n;
    double a, u, rel;
  };
  for (Case const& c : {Case{Family::f5, 4, 0.0, 0.0, 1e-9}, Case{Family::oscillatory, 5, 2.0, 0.3, 1e-8}}) {
    std::vector<double> const a(c.n, c.a), u(c.n, c.u), lo(c.n, 0.0), hi(c.n, 1.0);
    double const exact = cub::genz_exact(c.f, a, u, lo, hi);
    o.rule = cub::Rule::degree9;
    auto const nine = genz(c.f, a, u, c.rel, o);
    o.rule = cub::Rule::degree7;
    auto const seven = genz(c.f, a, u, c.rel, o);
    std::cout << cub::to_string(c.f) << " " << c.n << "-D rel " << c.rel << ": degree 9 " << cub::to_string(nine.status)
              << ", " << nine.evaluations << " evaluations, true rel error " << std::abs(nine.integral - exact) / exact
              << ", estimate " << nine.error / exact << "; degree 7 " << cub::to_string(seven.status) << ", "
              << seven.evaluations << " evaluations, true rel error " << std::abs(seven.integral - exact) / exact
              << ", estimate " << seven.error / exact << "\n";
    EXPECT_EQ(nine.rule, cub::Rule::degree9);
    EXPECT_EQ(nine.points, cub::rule9_points(c.n));
    EXPECT_EQ(nine.evaluations, nine.regions_evaluated * nine.points);
    EXPECT_EQ(nine.status, cub::Status::converged);
    EXPECT_LE(std::abs(nine.integral - exact), c.rel * std::abs(exact));
    EXPECT_LE(std::abs(nine.integral - exact), nine.error);
    EXPECT_EQ(seven.status, cub::Status::budget_exhausted);
    EXPECT_EQ(seven.rule, cub::Rule::degree7);
  }
}

TEST(CubatureIntegrate, Degree9DeterministicThroughPhaseTwo) {
  // The degree-9 rule in phase 2's heaps (a list of a few hundred regions hands over): the
  // same bits on every run and on a one-thread instance, every evaluation counted, the true
  // error below the estimate.
  std::vector<double> a{6, 5, 7, 4}, u{0.31, 0.62, 0.47, 0.2};
  cub::Options o;
  o.initial_regions = 64;
  o.max_memory_mb = 0.1;
  o.max_evaluations = 10'000'000;
  std::vector<double> const lo(4, 0.0), hi(4, 1.0);
  double const exact = cub::genz_exact(Family::product_peak, a, u, lo, hi);
  auto const r = genz(Family::product_peak, a, u, 1e-9, o);
  std::cout << "product peak 4-D degree 9, 0.1 MB: " << r.phase2_regions << " in phase 2, " << cub::to_string(r.status)
            << ", " << r.evaluations << " evaluations, true rel error " << std::abs(r.integral - exact) / exact
            << ", estimate " << r.error / exact << "\n";
  EXPECT_EQ(r.rule, cub::Rule::degree9);
  EXPECT_GT(r.phase2_regions, 0);
  EXPECT_EQ(r.evaluations, r.regions_evaluated * r.points);
  EXPECT_LE(r.evaluations, o.max_evaluations);
  EXPECT_LE(std::abs(r.integral - exact), r.error);
  auto const again = genz(Family::product_peak, a, u, 1e-9, o);
  EXPECT_TRUE(same_bits(again.integral, r.integral));
  EXPECT_EQ(again.evaluations, r.evaluations);
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) {
    Kokkos::OpenMP const one(1);
    auto const r1 = genz<double, Kokkos::OpenMP>(Family::product_peak, a, u, 1e-9, o, one);
    EXPECT_TRUE(same_bits(r1.integral, r.integral));
    EXPECT_EQ(r1.evaluations, r.evaluations);
  }
#endif
}

TEST(CubatureIntegrate, NullRuleEstimateChangesNothingOnSmoothIntegrands) {
  // The null rules only raise the estimate above |I7 - I5| on regions they see as coarse; on
  // smooth integrands resolved by the adaptive refinement the two estimates give the same run
  // (evaluations, integral) and the true error meets the tolerance: oscillatory 4-D at 1e-9.
  // (Not so on every smooth integrand: on the paper's f5 in 4-D at 1e-9 they raise the estimate
  // of some regions, and both estimates end budget_exhausted within 5e7 evaluations at true
  // errors near 1e-12 - the estimates, not the integrals, limit such runs. The null rules alone,
  // without the |I7 - I5| floor, converged there in 2.1e7 evaluations but missed smooth Genz
  // cases; see genz_families.)
  auto o = small_options();
  o.max_evaluations = 50'000'000;
  struct Case {
    Family f;
    std::vector<double> a, u;
    double rel;
  };
  for (Case const& c : {Case{Family::oscillatory, std::vector<double>(4, 2.0), std::vector<double>(4, 0.3), 1e-9}}) {
    std::vector<double> const lo(4, 0.0), hi(4, 1.0);
    double const exact = cub::genz_exact(c.f, c.a, c.u, lo, hi);
    o.error_estimate = cub::ErrorEstimate::difference;
    auto const diff = genz(c.f, c.a, c.u, c.rel, o);
    o.error_estimate = cub::ErrorEstimate::null_rules;
    auto const null = genz(c.f, c.a, c.u, c.rel, o);
    std::cout << cub::to_string(c.f) << " 4-D rel " << c.rel << ": |I7-I5| " << diff.evaluations << " evaluations, "
              << cub::to_string(diff.status) << " (true rel error " << std::abs(diff.integral - exact) / std::abs(exact)
              << "), null rules " << null.evaluations << ", " << cub::to_string(null.status) << " (true rel error "
              << std::abs(null.integral - exact) / std::abs(exact) << ", estimate " << null.error / std::abs(exact)
              << ")\n";
    EXPECT_EQ(null.status, cub::Status::converged);
    EXPECT_LE(std::abs(null.integral - exact), c.rel * std::abs(exact));
    EXPECT_LE(std::abs(null.integral - exact), null.error);
    EXPECT_EQ(null.evaluations, diff.evaluations);
    EXPECT_EQ(null.integral, diff.integral);
  }
}

TEST(CubatureIntegrate, SmoothIntegrandsReachTightTolerance) {
  // Gaussian 4-D to 1e-6 and oscillatory 5-D to 1e-7: true relative error within the tolerance.
  auto o = small_options();
  o.max_evaluations = 20'000'000;
  std::vector<double> a4(4, 5.0), u4(4, 0.4);
  auto const g = genz(Family::gaussian, a4, u4, 1e-6, o);
  double const ge = cub::genz_exact(Family::gaussian, a4, u4, std::vector<double>(4, 0.0), std::vector<double>(4, 1.0));
  EXPECT_EQ(g.status, cub::Status::converged);
  EXPECT_LT(std::abs(g.integral - ge), 1e-6 * ge);
  EXPECT_LE(g.error, 1e-6 * std::abs(g.integral));
  std::vector<double> a5(5, 2.0), u5(5, 0.3);
  auto const s = genz(Family::oscillatory, a5, u5, 1e-7, o);
  double const se =
      cub::genz_exact(Family::oscillatory, a5, u5, std::vector<double>(5, 0.0), std::vector<double>(5, 1.0));
  EXPECT_EQ(s.status, cub::Status::converged);
  EXPECT_LT(std::abs(s.integral - se), 1e-7 * std::abs(se));
  std::cout << "gaussian 4-D 1e-6: " << g.evaluations << " evaluations, true rel error "
            << std::abs(g.integral - ge) / ge << "; oscillatory 5-D 1e-7: " << s.evaluations
            << " evaluations, true rel error " << std::abs(s.integral - se) / std::abs(se) << "\n";
}

TEST(CubatureIntegrate, PaperIntegrandsAgainstReferences) {
  // f1..f5 against references computed without cubature (paper_references.py: series and 1-D
  // quadrature in arbitrary precision; f5 = n/2): the true error is within the tolerance.
  struct Case {
    Family f;
    int n;
    double rel;
  };
  auto o = small_options();
  o.max_evaluations = 20'000'000;
  for (Case c : {Case{Family::f1, 3, 1e-7}, Case{Family::f2, 2, 1e-6}, Case{Family::f3, 3, 1e-6},
                 Case{Family::f4, 3, 1e-7}, Case{Family::f5, 3, 1e-8}}) {
    std::vector<double> const zero(c.n, 0.0), one(c.n, 1.0);
    double const reference = cub::genz_exact(c.f, zero, zero, zero, one);
    ASSERT_TRUE(std::isfinite(reference));
    auto const r = genz(c.f, zero, zero, c.rel, o);
    double const true_error = std::abs(r.integral - reference);
    std::cout << cub::to_string(c.f) << " " << c.n << "-D rel " << c.rel << ": " << r.evaluations
              << " evaluations, true rel error " << true_error / std::abs(reference) << ", estimate "
              << r.error / std::abs(reference) << "\n";
    EXPECT_EQ(r.status, cub::Status::converged) << cub::to_string(c.f);
    EXPECT_LE(true_error, c.rel * std::abs(reference)) << cub::to_string(c.f);
  }
  EXPECT_EQ(cub::genz_exact(Family::f5, std::vector<double>(8, 0.0), {}, std::vector<double>(8, 0.0),
                            std::vector<double>(8, 1.0)),
            4.0);
}

TEST(CubatureIntegrate, PolynomialConvergesInPhaseOne) {
  // |I7 - I5| is rounding only for a degree-5 polynomial (within the rounding floor, 64 eps times
  // the rule's absolute weighted sum, which is about 1e-13 |I| here).
  auto o = small_options();
  o.error_estimate = cub::ErrorEstimate::difference;
  cub::Tolerances t;
  t.relative = 1e-10;
  std::vector<double> lo{-1, 0, 0.5}, hi{1, 2, 1.5};
  auto const r = cub::integrate<ExecSpace, double>(ExecSpace(), Polynomial5(), lo, hi, t, o);
  // 2*2*1 + (int a^3 = 0) + 3 * (int_0^2 b^5 db = 64/6) * 2 * 1 - (int a = 0)
  double const exact = 4.0 + 3.0 * 64.0 / 6.0 * 2.0;
  EXPECT_EQ(r.status, cub::Status::converged);
  EXPECT_EQ(r.phase1_iterations, 1);
  EXPECT_EQ(r.phase2_regions, 0);
  EXPECT_EQ(r.regions, 64);  // 4 x 4 x 4
  EXPECT_EQ(r.evaluations, 64 * cub::rule_points(3));
  EXPECT_NEAR(r.integral, exact, 1e-12 * exact);
}

TEST(CubatureIntegrate, DeterministicAcrossRunsBatchesAndThreads) {
  auto o = small_options();
  o.mode = cub::Mode::paper;
  o.max_regions = 64;
  std::vector<double> a{6, 5, 7, 4}, u{0.31, 0.62, 0.47, 0.2};
  auto const r1 = genz(Family::product_peak, a, u, 1e-7, o);
  ASSERT_GT(r1.phase2_regions, 0);  // exercises both phases
  auto const r2 = genz(Family::product_peak, a, u, 1e-7, o);
  EXPECT_TRUE(same_bits(r2.integral, r1.integral));
  EXPECT_TRUE(same_bits(r2.error, r1.error));
  EXPECT_EQ(r2.evaluations, r1.evaluations);
  EXPECT_EQ(r2.regions, r1.regions);
  // Batches smaller than the phase-2 list (no budget redistribution then): one region at a
  // time and several at a time give the same bits.
  double const heap_mb = o.heap_capacity * (2 * 4 + 3) * sizeof(double) / 1048576.0;
  o.max_memory_mb = 1.5 * heap_mb;
  auto const r3 = genz(Family::product_peak, a, u, 1e-7, o);
  o.max_memory_mb = 5.5 * heap_mb;
  auto const r5 = genz(Family::product_peak, a, u, 1e-7, o);
  EXPECT_EQ(r3.phase2_batch, 1);
  EXPECT_EQ(r5.phase2_batch, 5);
  EXPECT_TRUE(same_bits(r3.integral, r5.integral));
  EXPECT_EQ(r3.evaluations, r5.evaluations);
  EXPECT_EQ(r3.regions, r5.regions);
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) {
    // The same on an instance with one thread as on the default instance (1, 2 or 4 threads
    // as ctest runs this executable).
    o.max_memory_mb = 512;
    o.team_size = 0;
    Kokkos::OpenMP const one(1);
    auto const r4 = genz<double, Kokkos::OpenMP>(Family::product_peak, a, u, 1e-7, o, one);
    EXPECT_TRUE(same_bits(r4.integral, r1.integral));
    EXPECT_EQ(r4.evaluations, r1.evaluations);
  }
#endif
  std::cout << "product peak 4-D: I = " << r1.integral << " +- " << r1.error << ", " << r1.evaluations
            << " evaluations, " << r1.phase2_regions << " regions in phase 2, concurrency " << ExecSpace().concurrency()
            << "\n";
}

TEST(CubatureIntegrate, BudgetExhausted) {
  std::vector<double> a(6, 3.0), u(6, 0.5);
  auto o = small_options();
  o.mode = cub::Mode::paper;
  o.max_evaluations = 100'000;
  auto const r = genz(Family::oscillatory, a, u, 1e-12, o);
  EXPECT_EQ(r.status, cub::Status::budget_exhausted);
  EXPECT_LE(r.evaluations, o.max_evaluations);
  EXPECT_GT(r.error, 1e-12 * std::abs(r.integral));
  // Budget spent in phase 2: a generous phase 1, then per-region shares.
  o.max_evaluations = 400'000;
  o.max_regions = 16;
  o.initial_regions = 16;
  auto const r2 = genz(Family::gaussian, std::vector<double>(3, 20.0), std::vector<double>(3, 0.5), 1e-13, o);
  EXPECT_EQ(r2.status, cub::Status::budget_exhausted);
  EXPECT_GT(r2.phase2_budget_limited, 0);
  EXPECT_LE(r2.evaluations, o.max_evaluations);
}

TEST(CubatureIntegrate, StorageExhausted) {
  auto o = small_options();
  o.mode = cub::Mode::paper;
  o.heap_capacity = 4;
  o.max_regions = 16;
  o.initial_regions = 16;
  o.max_evaluations = 100'000'000;
  auto const r = genz(Family::c0, std::vector<double>(3, 5.0), std::vector<double>(3, 0.37), 1e-10, o);
  EXPECT_EQ(r.status, cub::Status::storage_exhausted);
  EXPECT_GT(r.phase2_storage_limited, 0);
  EXPECT_GT(r.error, 1e-10 * std::abs(r.integral));  // reported, not hidden
}

TEST(CubatureIntegrate, MemoryFilterFinishesSmallErrorRegions) {
  // Gaussian 3-D (a = 5, u = 0.5) at 1e-6 in 0.05 MB: the breadth-first list outgrows its
  // capacity, the unfinished regions of smallest error (their errors together within half of
  // the tolerance left) are finished by the filter, and the run still converges with the true
  // error within the tolerance and the estimate. With ample memory nothing is filtered and the
  // answer agrees to the tolerance.
  std::vector<double> const a(3, 5.0), u(3, 0.5), lo(3, 0.0), hi(3, 1.0);
  double const exact = cub::genz_exact(Family::gaussian, a, u, lo, hi);
  cub::Options o;
  o.rule = cub::Rule::degree7;  // the degree-9 rule converges here before the list outgrows 0.05 MB
  o.max_evaluations = 20'000'000;
  o.max_memory_mb = 0.05;
  auto const r = genz(Family::gaussian, a, u, 1e-6, o);
  std::cout << "gaussian 3-D, 0.05 MB: capacity " << r.phase1_capacity << ", " << r.filtered_regions << " filtered, "
            << r.phase2_regions << " in phase 2, " << cub::to_string(r.status) << ", " << r.evaluations
            << " evaluations, true rel error " << std::abs(r.integral - exact) / exact << "\n";
  EXPECT_GT(r.filtered_regions, 0);
  EXPECT_EQ(r.status, cub::Status::converged);
  EXPECT_LE(std::abs(r.integral - exact), 1e-6 * exact);
  EXPECT_LE(std::abs(r.integral - exact), r.error);
  auto const again = genz(Family::gaussian, a, u, 1e-6, o);
  EXPECT_TRUE(same_bits(again.integral, r.integral));
  EXPECT_EQ(again.filtered_regions, r.filtered_regions);
  o.max_memory_mb = 512;
  auto const ample = genz(Family::gaussian, a, u, 1e-6, o);
  EXPECT_EQ(ample.filtered_regions, 0);
  EXPECT_EQ(ample.status, cub::Status::converged);
  EXPECT_LE(std::abs(ample.integral - r.integral), 2e-6 * exact);
}

TEST(CubatureIntegrate, ImprovedModeWithLittleMemoryHandsOver) {
  // A region list of a few hundred and no host memory for parked regions: phase 1 fills the list
  // and hands over to phase 2 (here the filter finds nothing it may finish). The result is
  // deterministic, every evaluation is counted, and either the tolerance is met (true error
  // within it) or the status says which limit stopped it.
  std::vector<double> a{6, 5, 7, 4}, u{0.31, 0.62, 0.47, 0.2};
  auto o = small_options();
  o.max_memory_mb = 0.1;
  o.max_host_memory_mb = 0;
  o.max_evaluations = 20'000'000;
  std::vector<double> const lo(4, 0.0), hi(4, 1.0);
  double const exact = cub::genz_exact(Family::product_peak, a, u, lo, hi);
  auto const r = genz(Family::product_peak, a, u, 1e-8, o);
  std::cout << "product peak 4-D, 0.1 MB: capacity " << r.phase1_capacity << ", " << r.phase1_iterations
            << " phase-1 iterations, " << r.filtered_regions << " filtered, " << r.phase2_regions
            << " in phase 2 (heap " << r.heap_capacity << "), " << cub::to_string(r.status) << ", true rel error "
            << std::abs(r.integral - exact) / exact << ", estimate " << r.error / exact << "\n";
  EXPECT_LT(r.phase1_capacity, 1000);
  EXPECT_GT(r.phase2_regions, 0);
  EXPECT_EQ(r.evaluations, r.regions_evaluated * r.points);
  EXPECT_LE(r.evaluations, o.max_evaluations);
  EXPECT_LE(std::abs(r.integral - exact), r.error);
  if (r.status == cub::Status::converged)
    EXPECT_LE(std::abs(r.integral - exact), 1e-8 * exact);
  else
    EXPECT_TRUE(r.status == cub::Status::storage_exhausted || r.status == cub::Status::budget_exhausted);
  auto const again = genz(Family::product_peak, a, u, 1e-8, o);
  EXPECT_TRUE(same_bits(again.integral, r.integral));
  EXPECT_EQ(again.evaluations, r.evaluations);
  // Tight memory and a tolerance it cannot reach: storage_exhausted, the estimate above it.
  o.max_memory_mb = 0.02;
  auto const tight = genz(Family::product_peak, a, u, 1e-13, o);
  EXPECT_TRUE(tight.status == cub::Status::storage_exhausted || tight.status == cub::Status::budget_exhausted)
      << cub::to_string(tight.status);
  EXPECT_GT(tight.error, 1e-13 * std::abs(tight.integral));
}

// The 4-D product peak of the host-parking tests, with a 0.1 MB region list (capacity 468).
struct SmallListPeak {
  std::vector<double> a{6, 5, 7, 4}, u{0.31, 0.62, 0.47, 0.2};
  double exact = cub::genz_exact(Family::product_peak, a, u, std::vector<double>(4, 0.0), std::vector<double>(4, 1.0));
  cub::Options options = [] {
    auto o = small_options();
    o.max_memory_mb = 0.1;
    o.max_evaluations = 50'000'000;
    return o;
  }();
};

TEST(CubatureIntegrate, ImprovedModeParksRegionsOnTheHost) {
  // The same problem with host memory for parked regions (--max-host-memory-mb): the list is
  // refined in pieces that fit 0.1 MB, the rest parked on the host, and it converges like a run
  // with ample memory (tolerance met, true error within the estimate), deterministically, without
  // phase 2.
  SmallListPeak const peak;
  auto const& a = peak.a;
  auto const& u = peak.u;
  double const exact = peak.exact;
  double const tol = 1e-7;
  auto o = peak.options;
  o.max_host_memory_mb = 16;
  auto const r = genz(Family::product_peak, a, u, tol, o);
  std::cout << "product peak 4-D, 0.1 MB, parking: capacity " << r.phase1_capacity << ", " << r.phase1_iterations
            << " iterations, " << r.parked_chunks << " chunks parked (peak " << r.peak_host_mb << " MB), "
            << r.evaluations << " evaluations, " << cub::to_string(r.status) << ", true rel error "
            << std::abs(r.integral - exact) / exact << ", estimate " << r.error / exact << "\n";
  EXPECT_LT(r.phase1_capacity, 1000);
  EXPECT_GT(r.parked_chunks, 0);
  EXPECT_GT(r.peak_host_mb, 0.0);
  EXPECT_EQ(r.phase2_regions, 0);
  EXPECT_EQ(r.unrefined_regions, 0);
  EXPECT_EQ(r.status, cub::Status::converged);
  EXPECT_LE(std::abs(r.integral - exact), tol * exact);
  EXPECT_LE(std::abs(r.integral - exact), r.error);
  EXPECT_EQ(r.evaluations, r.regions_evaluated * r.points);
  auto const again = genz(Family::product_peak, a, u, tol, o);
  EXPECT_TRUE(same_bits(again.integral, r.integral));
  EXPECT_EQ(again.evaluations, r.evaluations);
  // With ample memory nothing is parked; the two agree to the tolerance.
  o.max_memory_mb = 512;
  auto const ample = genz(Family::product_peak, a, u, tol, o);
  std::cout << "  ample memory: " << ample.evaluations << " evaluations, true rel error "
            << std::abs(ample.integral - exact) / exact << "\n";
  EXPECT_EQ(ample.parked_chunks, 0);
  EXPECT_EQ(ample.status, cub::Status::converged);
  EXPECT_LE(std::abs(ample.integral - r.integral), 2 * tol * exact);
  // A budget that stops the run (it converges with ~2e7): parked chunks keep shares of it, so it
  // is spread over all of them, if less evenly than the breadth-first run with ample memory spreads
  // it (true error at 5e6 evaluations: ample memory 2.5e-9; parking 1.4e-8, the deferred chunks the
  // budget does not reach staying at their parents' values; 1.4e-6 before the shares, when the
  // first chunks refined took the whole budget).
  o.max_evaluations = 5'000'000;
  auto const spread = genz(Family::product_peak, a, u, tol, o);
  o.max_memory_mb = 0.1;
  auto const shared = genz(Family::product_peak, a, u, tol, o);
  std::cout << "  budget 5e6: ample memory true rel error " << std::abs(spread.integral - exact) / exact << ", parking "
            << std::abs(shared.integral - exact) / exact << " (" << shared.parked_chunks << " chunks, "
            << shared.unrefined_regions << " regions unrefined)\n";
  EXPECT_EQ(spread.status, cub::Status::budget_exhausted);
  EXPECT_EQ(shared.status, cub::Status::budget_exhausted);
  EXPECT_GT(shared.parked_chunks, 0);
  EXPECT_LE(shared.evaluations, o.max_evaluations);
  EXPECT_LE(std::abs(shared.integral - exact), shared.error);
  EXPECT_LE(std::abs(shared.integral - exact), 10 * std::abs(spread.integral - exact) + 1e-12 * exact);
  o.max_evaluations = 50'000'000;
  // Host memory too small for the parked pieces: phase 2's heaps take the list as before.
  o.max_memory_mb = 0.1;
  o.max_host_memory_mb = 1e-4;
  auto const fallback = genz(Family::product_peak, a, u, tol, o);
  EXPECT_GT(fallback.phase2_regions, 0);
  EXPECT_LE(std::abs(fallback.integral - exact), fallback.error);
}

TEST(CubatureIntegrate, HostMemoryFullRefinesTheListAndKeepsTheParkedChunks) {
  // Host memory that fills up part way (the run above peaks at 1.7 MB): a list that cannot park
  // its pieces goes to phase 2 alone, and the chunks parked before it are refined afterwards.
  // Handing every parked chunk over at its parents' values instead left thousands of regions
  // unrefined: true error 4.2e-6 here with 0.4 MB (f3 5-D, 4e11 evaluations on an H200: 1.1e-6).
  SmallListPeak const peak;
  auto const& a = peak.a;
  auto const& u = peak.u;
  double const exact = peak.exact;
  double const tol = 1e-7;
  auto o = peak.options;
  for (double host_mb : {0.05, 0.4}) {
    o.max_host_memory_mb = host_mb;
    auto const r = genz(Family::product_peak, a, u, tol, o);
    std::cout << "product peak 4-D, 0.1 MB, host " << host_mb << " MB: " << r.parked_chunks << " chunks parked (peak "
              << r.peak_host_mb << " MB), " << r.phase2_regions << " regions in phase 2, " << r.unrefined_regions
              << " unrefined, " << r.evaluations << " evaluations, " << cub::to_string(r.status) << ", true rel error "
              << std::abs(r.integral - exact) / exact << ", estimate " << r.error / exact << "\n";
    EXPECT_GT(r.parked_chunks, 0);
    EXPECT_GT(r.phase2_regions, 0);  // the host filled up
    EXPECT_LE(r.peak_host_mb, host_mb);
    EXPECT_EQ(r.unrefined_regions, 0);
    EXPECT_LE(r.evaluations, o.max_evaluations);
    EXPECT_EQ(r.evaluations, r.regions_evaluated * r.points);
    EXPECT_LE(std::abs(r.integral - exact), r.error);
    EXPECT_LE(std::abs(r.integral - exact), tol * exact);
    EXPECT_TRUE(r.status == cub::Status::converged || r.status == cub::Status::budget_exhausted)
        << cub::to_string(r.status);
  }
  auto const r = genz(Family::product_peak, a, u, tol, o);
  auto const again = genz(Family::product_peak, a, u, tol, o);
  EXPECT_TRUE(same_bits(again.integral, r.integral));
  EXPECT_EQ(again.evaluations, r.evaluations);
}

TEST(CubatureIntegrate, BudgetSplitsTheWorstRegionsBreadthFirst) {
  // Improved mode, a budget too small to split every unfinished region: the worst regions the
  // budget pays for are split, the others finished as they are; no phase 2, every evaluation
  // within the budget and counted, status budget_exhausted with the estimate above the true error.
  std::vector<double> a(5, 3.0), u(5, 0.5);
  std::vector<double> const lo(5, 0.0), hi(5, 1.0);
  double const exact = cub::genz_exact(Family::oscillatory, a, u, lo, hi);
  auto o = small_options();
  o.max_evaluations = 2'000'000;
  auto const r = genz(Family::oscillatory, a, u, 1e-12, o);
  EXPECT_EQ(r.status, cub::Status::budget_exhausted);
  EXPECT_EQ(r.phase2_regions, 0);
  EXPECT_LE(r.evaluations, o.max_evaluations);
  EXPECT_GT(r.evaluations, o.max_evaluations / 2);  // the budget is spent, not abandoned early
  EXPECT_EQ(r.evaluations, r.regions_evaluated * r.points);
  EXPECT_LE(std::abs(r.integral - exact), r.error);
  // Against the published algorithm on the same budget and rule (degree 9; its phase 2 spends the
  // budget in per-region heaps): the true error is not worse.
  o.rule = cub::Rule::degree9;
  auto const nine = genz(Family::oscillatory, a, u, 1e-12, o);
  o.mode = cub::Mode::paper;
  auto const heaps = genz(Family::oscillatory, a, u, 1e-12, o);
  std::cout << "oscillatory 5-D, 2e6 evaluations: breadth-first true error " << std::abs(r.integral - exact)
            << " (estimate " << r.error << "), degree 9 " << std::abs(nine.integral - exact) << " (estimate "
            << nine.error << "), paper mode (phase-2 heaps) " << std::abs(heaps.integral - exact) << " (estimate "
            << heaps.error << ")\n";
  EXPECT_GT(heaps.phase2_regions, 0);
  EXPECT_EQ(nine.phase2_regions, 0);
  EXPECT_LE(std::abs(nine.integral - exact), 2 * std::abs(heaps.integral - exact));
}

TEST(CubatureIntegrate, NonFiniteIntegrandIsReported) {
  cub::Tolerances t;
  auto const r = cub::integrate<ExecSpace, double>(ExecSpace(), NanAbove(), {0, 0}, {1, 1}, t, small_options());
  EXPECT_EQ(r.status, cub::Status::integrand_not_finite);
  EXPECT_STREQ(cub::to_string(r.status), "integrand_not_finite");
}

TEST(CubatureIntegrate, FloatPrecision) {
  std::vector<double> a(3, 4.0), u(3, 0.45);
  auto const r = genz<float>(Family::gaussian, a, u, 1e-4, small_options());
  double const exact =
      cub::genz_exact(Family::gaussian, a, u, std::vector<double>(3, 0.0), std::vector<double>(3, 1.0));
  EXPECT_EQ(r.status, cub::Status::converged);
  EXPECT_LT(std::abs(r.integral - exact), 1e-4 * exact);
}

TEST(CubatureIntegrate, ClosedFormsAgreeWithProductOfOneDimensionalQuadrature) {
  // Each closed form against a fine midpoint rule in 2-D (independent of the cubature code).
  std::vector<double> a{1.3, 2.1}, u{0.3, 0.6}, lo{-0.2, 0.1}, hi{0.9, 1.4};
  int const m = 2000;
  for (Family f : cub::all_families) {
    cub::GenzIntegrand<double> g(f, a, u);
    double s = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) {
        cub::Point<double> p;
        p.dim = 2;
        p.x[0] = lo[0] + (i + 0.5) * (hi[0] - lo[0]) / m;
        p.x[1] = lo[1] + (j + 0.5) * (hi[1] - lo[1]) / m;
        s += g(p);
      }
    s *= (hi[0] - lo[0]) * (hi[1] - lo[1]) / (double(m) * m);
    double const exact = cub::genz_exact(f, a, u, lo, hi);
    double const tol = f == Family::discontinuous || f == Family::c0 ? 2e-3 : 1e-6;
    EXPECT_NEAR(s, exact, tol * std::abs(exact)) << cub::to_string(f);
  }
}

TEST(CubatureIntegrate, RejectsBadInput) {
  cub::Tolerances t;
  cub::Options o;
  using V = std::vector<double>;
  EXPECT_THROW(cub::validate(V{0, 1}, V{1, 1}, t, o), parity::InvalidInput);  // lower >= upper
  EXPECT_THROW(cub::validate(V{0, 2}, V{1, 1}, t, o), parity::InvalidInput);
  EXPECT_THROW(cub::validate(V{}, V{}, t, o), parity::InvalidInput);  // dim 0
  EXPECT_THROW(cub::validate(V(17, 0.0), V(17, 1.0), t, o), parity::InvalidInput);  // dim 17
  EXPECT_THROW(cub::validate(V{0, 0}, V{1}, t, o), parity::InvalidInput);
  EXPECT_THROW(cub::validate(V{0, NAN}, V{1, 1}, t, o), parity::InvalidInput);
  cub::Tolerances neg;
  neg.relative = -1;
  EXPECT_THROW(cub::validate(V{0}, V{1}, neg, o), parity::InvalidInput);
  cub::Tolerances none;
  none.relative = 0;
  EXPECT_THROW(cub::validate(V{0}, V{1}, none, o), parity::InvalidInput);
  cub::Options few;
  few.max_evaluations = 10;
  EXPECT_THROW(cub::validate(V{0, 0}, V{1, 1}, t, few), parity::InvalidInput);
  cub::Options heap;
  heap.heap_capacity = 1;
  EXPECT_THROW(cub::validate(V{0, 0}, V{1, 1}, t, heap), parity::InvalidInput);
  EXPECT_NO_THROW(cub::validate(V(16, 0.0), V(16, 1.0), t, o));
  // The integrate call checks before any work.
  EXPECT_THROW((cub::integrate<ExecSpace, double>(ExecSpace(), Polynomial5(), V{1, 0, 0}, V{0, 1, 1}, t, o)),
               parity::InvalidInput);
  // Model parameters.
  cub::Params p;
  p.integrand = "f9";
  EXPECT_THROW(cub::validate(p), parity::InvalidInput);
  p = cub::Params();
  p.dim = 0;
  EXPECT_THROW(cub::validate(p), parity::InvalidInput);
  p = cub::Params();
  p.a = {1, 2};  // neither 1 nor dim values
  EXPECT_THROW(cub::validate(p), parity::InvalidInput);
  p = cub::Params();
  p.integrand = "corner_peak";
  p.a = {-1};
  EXPECT_THROW(cub::validate(p), parity::InvalidInput);
  EXPECT_NO_THROW(cub::validate(cub::Params()));
}

// A team larger than the backend runs the kernels with is refused before any work, as bad input
// with the limit, not by the launch (a Kokkos runtime error).
TEST(CubatureIntegrate, TeamSizeBeyondTheBackendLimitIsBadInput) {
  int const largest = cub::max_team_size<ExecSpace, double>(ExecSpace(), Polynomial5());
  ASSERT_GE(largest, 1);
  cub::Options o;
  o.team_size = largest;
  using V = std::vector<double>;
  EXPECT_NO_THROW((cub::integrate<ExecSpace, double>(ExecSpace(), Polynomial5(), V{0, 0}, V{1, 1}, {}, o)));
  if (largest >= 1024) GTEST_SKIP() << "no team size within [0, 1024] is past this backend's limit";
  o.team_size = largest + 1;
  try {
    cub::integrate<ExecSpace, double>(ExecSpace(), Polynomial5(), V{0, 0}, V{1, 1}, {}, o);
    ADD_FAILURE() << "team size " << o.team_size << " accepted";
  } catch (parity::InvalidInput const& e) {
    EXPECT_NE(std::string(e.what()).find("(" + std::to_string(largest) + ")"), std::string::npos) << e.what();
  }
}

// The library entry point without any command-line types: defaults for the tolerances and
// options, and the optional progress callback and phase timer, which change no result bit.
TEST(CubatureIntegrate, DefaultOptionsNeedNoCallbackOrTimer) {
  auto const r = cub::integrate<ExecSpace, double>(ExecSpace(), Polynomial5(), {0, 0, 0}, {1, 1, 1});
  // 1 + (1/4)(1/2)(1/2) + 3 (1/6) - (1/2)(1/2)
  double const exact = 1.0 + 1.0 / 16.0 + 0.5 - 0.25;
  EXPECT_EQ(r.status, cub::Status::converged);
  EXPECT_NEAR(r.integral, exact, 1e-6 * exact);
}

using Recorded = parity::test::RecordedProgress;

TEST(CubatureIntegrate, ProgressAndTimerChangeNoBits) {
  auto o = small_options();
  o.mode = cub::Mode::paper;
  o.max_regions = 16;  // hands over to phase 2 at this tolerance
  auto const silent = genz(Family::oscillatory, {1.5, 1.87, 2.24, 2.61}, {0.3, 0.35, 0.4, 0.45}, 1e-6, o);
  ASSERT_GT(silent.phase2_regions, 0);
  Recorded progress;
  parity::run::PhaseTimes times;
  o.progress = &progress;
  o.phases = &times;
  auto const reported = genz(Family::oscillatory, {1.5, 1.87, 2.24, 2.61}, {0.3, 0.35, 0.4, 0.45}, 1e-6, o);
  int phase1_lines = 0, phase2_lines = 0;
  for (auto const& line : progress.lines) {
    phase1_lines += line.stage == "phase 1" ? 1 : 0;
    phase2_lines += line.stage == "phase 2" ? 1 : 0;
  }
  EXPECT_TRUE(same_bits(reported.integral, silent.integral));
  EXPECT_TRUE(same_bits(reported.error, silent.error));
  EXPECT_EQ(reported.evaluations, silent.evaluations);
  EXPECT_EQ(phase1_lines, silent.phase1_iterations);  // one line per phase-1 step that did not converge
  EXPECT_GE(phase2_lines, 1);
  ASSERT_EQ(times.phases().size(), 2u);
  EXPECT_EQ(times.phases()[0].name, "parity::cubature::phase1");
  EXPECT_EQ(times.phases()[1].name, "parity::cubature::phase2");
  EXPECT_GT(times.seconds("parity::cubature::phase2"), 0.0);
}

// A library user set fields of Params, so validate() names them; the command passes its options.
TEST(CubatureParams, MessagesNameTheField) {
  auto refusal = [](cub::Params const& p, parity::ParameterName name = parity::field_name) -> std::string {
    try {
      cub::validate(p, name);
    } catch (parity::InvalidInput const& e) {
      return e.what();
    }
    return "";
  };
  cub::Params p;
  p.dim = 0;
  EXPECT_EQ(refusal(p), "dim 0: the dimension must be in [1, 16] (method vegas: up to 32)");
  EXPECT_EQ(refusal(p, [](std::string const& f) { return "--" + f; }),
            "--dim 0: the dimension must be in [1, 16] (--method vegas: up to 32)");
  p = {};
  p.lower = {0.0, 0.0};
  EXPECT_EQ(refusal(p), "lower needs one value or 4 values (dim 4; got 2)");
  p = {};
  p.upper = {0.0};
  EXPECT_EQ(refusal(p).rfind("lower, upper: the lower bound must be below the upper bound", 0), 0u) << refusal(p);
  p = {};
  p.a = {-1.0};
  EXPECT_EQ(refusal(p).rfind("a: ", 0), 0u) << refusal(p);
  p = {};
  p.integrand = "f9";
  EXPECT_EQ(refusal(p).rfind("integrand f9: unknown integrand", 0), 0u) << refusal(p);
  for (auto const& m : {refusal(p), refusal([] {
                          cub::Params q;
                          q.lower = {};
                          return q;
                        }())}) {
    EXPECT_NE(m, "");
    EXPECT_EQ(m.find("--"), std::string::npos) << m;
  }
}

}  // namespace parity_test_cubature_integrate
