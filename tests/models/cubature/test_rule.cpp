// The Genz-Malik rule on one region: exact for every monomial of degree <= 7 (the embedded rule
// for degree <= 5) and not beyond; the point count; the split-axis criterion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "monomials.hpp"
#include "parity/cubature/rule.hpp"
#include "test_backend.hpp"

namespace parity_test_cubature_rule {

using parity::cubature::max_dim;
using parity::cubature::Point;
using parity::cubature::RegionEstimate;
using parity::test::ExecSpace;
using parity::test::MemSpace;
using parity_test_cubature::Counting;
using parity_test_cubature::exact_monomial;
using parity_test_cubature::for_each_monomial_on;
using parity_test_cubature::Monomial;

// f = g(x_axis) for a chosen axis: the fourth difference is nonzero only there.
struct AlongAxis {
  int axis = 0;
  KOKKOS_INLINE_FUNCTION double operator()(Point<double> const& x) const {
    double const t = x[axis];
    return t * t * t * t + Kokkos::exp(t);
  }
};

// exp(s (x_0 + x_1)) (namespace scope: CUDA lambdas cannot capture local types).
struct Exp {
  double s = 1;
  KOKKOS_INLINE_FUNCTION double operator()(Point<double> const& x) const { return Kokkos::exp(s * (x[0] + x[1])); }
};

template <class F>
RegionEstimate<double> apply_rule(
    F const& f, std::vector<double> const& c, std::vector<double> const& h, int team_size = 1,
    parity::cubature::NullRules<double> const& nulls = parity::cubature::NullRules<double>()) {
  int const n = int(c.size());
  auto const dc = parity::test::to_device(c);
  auto const dh = parity::test::to_device(h);
  Kokkos::View<RegionEstimate<double>*, MemSpace> out("parity::test::rule_out", 1);
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Scratch = Kokkos::View<double*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  std::size_t const bytes = Scratch::shmem_size(parity::cubature::rule_scratch_reals<double>());
  Kokkos::parallel_for(
      "parity::test::cubature_rule", Policy(ExecSpace(), 1, team_size).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(Policy::member_type const& team) {
        Scratch s(team.team_scratch(0), parity::cubature::rule_scratch_reals<double>());
        auto const e = parity::cubature::evaluate_region(team, f, n, dc.data(), dh.data(), s.data(), nulls);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { out(0) = e; });
      });
  auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return host(0);
}

TEST(CubatureRule, ExactForAllMonomialsUpToDegree7) {
  for (int n : {2, 3, 5}) {
    std::vector<double> c(n), h(n);
    for (int i = 0; i < n; ++i) {
      c[i] = 0.3 - 0.17 * i;
      h[i] = 0.4 + 0.11 * i;
    }
    int checked = 0;
    for (int degree = 0; degree <= 7; ++degree) {
      for_each_monomial_on(c, h, degree, [&](Monomial const& m, std::vector<int> const& ex, double scale) {
        auto const r = apply_rule(m, c, h);
        double const exact = exact_monomial(ex, c, h);
        EXPECT_NEAR(r.integral, exact, 1e-13 * scale) << "n " << n << " degree " << degree;
        if (degree <= 5) EXPECT_NEAR(r.lower, exact, 1e-13 * scale) << "embedded, n " << n << " degree " << degree;
        ++checked;
      });
    }
    EXPECT_GT(checked, 20);
  }
}

TEST(CubatureRule, NotExactBeyondItsDegree) {
  // x_0^8 on [-1,1]^n: the rule gives 2^n (l5^8 w5 2^n + ...) != 2^n / 9. Likewise the
  // embedded rule must miss x_0^6.
  for (int n : {2, 4}) {
    std::vector<double> c(n, 0.0), h(n, 1.0);
    Monomial m8, m6;
    m8.e[0] = 8;
    m6.e[0] = 6;
    double const volume = std::pow(2.0, n);
    auto const r8 = apply_rule(m8, c, h);
    EXPECT_GT(std::abs(r8.integral - volume / 9) / (volume / 9), 1e-3) << n;
    auto const r6 = apply_rule(m6, c, h);
    EXPECT_NEAR(r6.integral, volume / 7, 1e-13 * volume);
    EXPECT_GT(std::abs(r6.lower - volume / 7) / (volume / 7), 1e-3) << n;
    EXPECT_GT(r6.error, 1e-4);  // the error estimate sees it
  }
}

TEST(CubatureRule, NullRulesAnnihilateTheirDegreeAndNoMore) {
  // On a non-centred region: N1 integrates every monomial of degree <= 5 to zero, N2 and N3
  // every one of degree <= 3, N4 every one of degree <= 1 (rounding relative to the integral
  // of |x|^e); each is clearly nonzero on some monomial of the next even degree (N3 from n = 2:
  // in one dimension there are only four orbits, so one degree-3 null rule).
  for (int n : {1, 2, 3, 5, 8}) {
    auto const nulls = parity::cubature::make_null_rules<double>(n);
    ASSERT_TRUE(nulls.enabled);
    std::vector<double> c(n), h(n);
    for (int i = 0; i < n; ++i) {
      c[i] = 0.3 - 0.13 * i;
      h[i] = 0.35 + 0.07 * i;
    }
    int const null_degree[4] = {5, 3, 3, 1};
    double largest_next[4] = {0, 0, 0, 0};  // largest |N| / scale over monomials of degree null_degree + 1
    for (int degree = 0; degree <= 6; ++degree) {
      for_each_monomial_on(c, h, degree, [&](Monomial const& m, std::vector<int> const& ex, double scale) {
        auto const r = apply_rule(m, c, h, 1, nulls);
        for (int q = 0; q < 4; ++q) {
          if (degree <= null_degree[q])
            EXPECT_NEAR(r.null[q], 0.0, 1e-12 * scale) << "N" << q + 1 << " n " << n << " degree " << degree;
          else if (degree == null_degree[q] + 1)
            largest_next[q] = std::max(largest_next[q], std::abs(r.null[q]) / scale);
        }
      });
    }
    for (int q = 0; q < 4; ++q) {
      if (q == 2 && n == 1) {
        EXPECT_EQ(largest_next[q], 0.0);
        continue;
      }
      EXPECT_GT(largest_next[q], 1e-4) << "N" << q + 1 << " n " << n;
    }
  }
}

TEST(CubatureRule, NullRulesAreOrthogonalAndScaledToTheBasicRule) {
  for (int n : {1, 2, 4, 7, 16}) {
    auto const nulls = parity::cubature::make_null_rules<double>(n);
    double count[5];
    parity::cubature::orbit_counts(n, count);
    parity::cubature::RuleConstants<double> const k(n);
    double const w7[5] = {k.w1, k.w2, k.w3, k.w4, k.w5};
    auto dot = [&](double const* u, double const* v) {
      double s = 0;
      for (int q = 0; q < 5; ++q) s += count[q] * u[q] * v[q];
      return s;
    };
    double const norm7 = dot(w7, w7);
    for (int a = 0; a < 4; ++a) {
      if (a == 2 && n == 1) continue;  // no N3 in one dimension
      // N1 is I7 - I5; the others (from Gram-Schmidt) have the basic rule's norm and are
      // orthogonal to it and to each other.
      if (a > 0) EXPECT_NEAR(dot(nulls.w[a], nulls.w[a]), norm7, 1e-10 * norm7) << a << " n " << n;
      for (int b = 0; b < a; ++b) EXPECT_NEAR(dot(nulls.w[a], nulls.w[b]), 0.0, 1e-10 * norm7) << a << b << " n " << n;
    }
  }
}

TEST(CubatureRule, NullRuleEstimateOnSmoothAndCoarseRegions) {
  // exp(x_0 + x_1) on a small region: the values decrease with the degree (asymptotic), so the
  // estimate is |I7 - I5| (the null rules see nothing coarse) and bounds the true error. On a
  // region much wider than the integrand's scale the null rules raise the estimate above
  // |I7 - I5|, and it still bounds the true error.
  int const n = 3;
  auto const nulls = parity::cubature::make_null_rules<double>(n);
  std::vector<double> c{0.2, 0.1, 0.5}, h(n, 0.05);
  Exp small;
  auto const r = apply_rule(small, c, h, 1, nulls);
  double const exact = (std::exp(0.25) - std::exp(0.15)) * (std::exp(0.15) - std::exp(0.05)) * 0.1;
  double const true_error = std::abs(r.integral - exact);
  EXPECT_LE(true_error, r.error);
  EXPECT_EQ(r.error, std::abs(r.integral - r.lower));
  Exp steep;
  steep.s = 40;
  auto const coarse = apply_rule(steep, c, std::vector<double>(n, 0.5), 1, nulls);
  double const exact_steep = std::pow((std::exp(40 * 0.7) - std::exp(40 * -0.3)) / 40, 1) *
                             (std::exp(40 * 0.6) - std::exp(40 * -0.4)) / 40 * 1.0;
  EXPECT_LE(std::abs(coarse.integral - exact_steep), coarse.error);
  EXPECT_GT(coarse.error, 1.5 * std::abs(coarse.integral - coarse.lower));
}

TEST(CubatureRule, PointCountAndPointsInside) {
  for (int n : {1, 2, 3, 6, 10}) {
    Counting f{};  // value-initialized: a default-initialized View member is not safe in every Kokkos
    f.calls = Kokkos::View<int*, MemSpace>("parity::test::calls", 2);
    std::vector<double> c(n), h(n);
    for (int i = 0; i < n; ++i) {
      c[i] = 1.0 + i;
      h[i] = 0.5;
      f.lo[i] = c[i] - h[i];
      f.hi[i] = c[i] + h[i];
    }
    auto const r = apply_rule(f, c, h);
    auto const calls = parity::test::to_host(f.calls);
    EXPECT_EQ(calls[0], parity::cubature::rule_points(n)) << n;
    EXPECT_EQ(calls[1], 0) << n;
    EXPECT_NEAR(r.integral, std::pow(1.0, n), 1e-13);  // f = 1, volume 1
    EXPECT_TRUE(r.finite);
  }
  EXPECT_EQ(parity::cubature::rule_points(2), 17);
  EXPECT_EQ(parity::cubature::rule_points(3), 33);
}

TEST(CubatureRule, SplitsAlongTheRoughAxis) {
  int const n = 5;
  for (int axis = 0; axis < n; ++axis) {
    AlongAxis f;
    f.axis = axis;
    auto const r = apply_rule(f, std::vector<double>(n, 0.2), std::vector<double>(n, 0.5));
    EXPECT_EQ(r.axis, axis);
  }
  // A function of x_0 only but a much wider x_3: the difference criterion still picks x_0.
  AlongAxis f;
  std::vector<double> h(n, 0.5);
  h[3] = 5.0;
  EXPECT_EQ(apply_rule(f, std::vector<double>(n, 0.0), h).axis, 0);
  // A polynomial of degree <= 3 has no fourth difference: the widest axis is split.
  Monomial cubic;
  cubic.e[1] = 3;
  EXPECT_EQ(apply_rule(cubic, std::vector<double>(n, 0.1), h).axis, 3);
}

}  // namespace parity_test_cubature_rule
