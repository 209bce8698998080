// The degree-9 rule on one region (rule9.hpp), checked against exact monomial integrals: exact
// for every monomial of degree <= 9 and not for degree 10, weights summing to the volume, the
// point count, and null rules that annihilate every monomial up to their degree but not the next.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "monomials.hpp"
#include "parity/cubature/rule9.hpp"
#include "test_backend.hpp"

namespace parity_test_cubature_rule9 {

using parity::cubature::max_dim;
using parity::cubature::Point;
using parity::cubature::RegionEstimate;
using parity::test::ExecSpace;
using parity::test::MemSpace;
using parity_test_cubature::Counting;
using parity_test_cubature::exact_monomial;
using parity_test_cubature::for_each_monomial_on;
using parity_test_cubature::Monomial;

template <class F>
RegionEstimate<double> apply_rule9(F const& f, std::vector<double> const& c, std::vector<double> const& h,
                                   int team_size = 1) {
  int const n = int(c.size());
  parity::cubature::NullRules<double> nulls;
  nulls.enabled = true;
  nulls.nine = parity::cubature::make_degree9<double>(n);
  auto const dc = parity::test::to_device(c);
  auto const dh = parity::test::to_device(h);
  Kokkos::View<RegionEstimate<double>*, MemSpace> out("parity::test::rule9_out", 1);
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Scratch = Kokkos::View<double*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  std::size_t const bytes = Scratch::shmem_size(parity::cubature::rule_scratch_reals<double>());
  Kokkos::parallel_for(
      "parity::test::cubature_rule9", Policy(ExecSpace(), 1, team_size).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(Policy::member_type const& team) {
        Scratch s(team.team_scratch(0), parity::cubature::rule_scratch_reals<double>());
        auto const e = parity::cubature::evaluate_rule(team, f, n, dc.data(), dh.data(), s.data(), nulls);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { out(0) = e; });
      });
  auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return host(0);
}

TEST(CubatureRule9, PointCountAndPointsInside) {
  for (int n : {2, 3, 5, 6, 7, 8}) {
    std::vector<double> c(n, 0.5), h(n, 0.25);
    Counting f;
    f.calls = Kokkos::View<int*, MemSpace>("parity::test::calls", 2);
    for (int i = 0; i < n; ++i) {
      f.lo[i] = 0.25;
      f.hi[i] = 0.75;
    }
    // Two threads per team where the backend has them (a team decomposes the orbits).
    int const team = n > 4 ? std::min(2, int(ExecSpace().concurrency())) : 1;
    auto const r = apply_rule9(f, c, h, team);
    auto const calls = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.calls);
    EXPECT_EQ(calls(0), parity::cubature::rule9_points(n)) << n;
    EXPECT_EQ(calls(1), 0) << n;
    EXPECT_NEAR(r.integral, std::pow(0.5, n), 1e-14) << "weights sum to the volume, n " << n;
  }
  EXPECT_EQ(parity::cubature::rule9_points(5), 273);
  EXPECT_EQ(parity::cubature::rule9_points(6), 453);
  EXPECT_EQ(parity::cubature::rule9_points(7), 717);
  EXPECT_EQ(parity::cubature::rule9_points(8), 1105);
}

TEST(CubatureRule9, ExactForAllMonomialsUpToDegree9AndNot10) {
  for (int n : {2, 3, 4, 6}) {
    std::vector<double> c(n), h(n);
    for (int i = 0; i < n; ++i) {
      c[i] = 0.3 - 0.17 * i;
      h[i] = 0.4 + 0.11 * i;
    }
    int checked = 0;
    for (int degree = 0; degree <= 9; ++degree) {
      for_each_monomial_on(c, h, degree, [&](Monomial const& m, std::vector<int> const& ex, double scale) {
        auto const r = apply_rule9(m, c, h);
        EXPECT_NEAR(r.integral, exact_monomial(ex, c, h), 1e-13 * scale) << "n " << n << " degree " << degree;
        ++checked;
      });
    }
    EXPECT_GT(checked, 50);
    // x_0^10 and x_0^2 x_1^8 on [-1,1]^n are not integrated exactly.
    std::vector<double> c0(n, 0.0), h1(n, 1.0);
    Monomial m10;
    m10.e[0] = 10;
    double const volume = std::pow(2.0, n);
    EXPECT_GT(std::abs(apply_rule9(m10, c0, h1).integral - volume / 11) / (volume / 11), 1e-3) << n;
  }
}

TEST(CubatureRule9, NullRulesAnnihilateTheirDegreeAndNoMore) {
  // Slots 0-1: degree 7, 2-4: degree 5, 5-6: degree 3, 7: degree 1.
  int const degree_of[8] = {7, 7, 5, 5, 5, 3, 3, 1};
  for (int n : {3, 5}) {
    std::vector<double> c(n), h(n);
    for (int i = 0; i < n; ++i) {
      c[i] = 0.2 + 0.1 * i;
      h[i] = 0.5 - 0.05 * i;
    }
    double largest_next[8] = {};
    for (int degree = 0; degree <= 8; ++degree) {
      for_each_monomial_on(c, h, degree, [&](Monomial const& m, std::vector<int> const& ex, double scale) {
        auto const r = apply_rule9(m, c, h);
        for (int q = 0; q < 8; ++q) {
          if (degree <= degree_of[q])
            EXPECT_NEAR(r.null[q], 0.0, 1e-12 * scale) << "null " << q << " n " << n << " degree " << degree;
          else if (degree == degree_of[q] + 1)
            largest_next[q] = std::max(largest_next[q], std::abs(r.null[q]) / scale);
        }
      });
    }
    for (int q = 0; q < 8; ++q) EXPECT_GT(largest_next[q], 1e-6) << "null " << q << " sees degree " << degree_of[q] + 1;
  }
}

TEST(CubatureRule9, NullRulesAreOrthogonalAndScaledToTheBasicRule) {
  for (int n : {2, 4, 7}) {
    auto const k = parity::cubature::make_degree9<double>(n);
    // Orbit sizes, counted from the point generator.
    double count[9] = {};
    parity::cubature::detail::degree9_points(n, k.g, [&](int o, double const*) { count[o] += 1; });
    auto dot = [&](double const* u, double const* v) {
      double s = 0;
      for (int o = 0; o < 9; ++o) s += count[o] * u[o] * v[o];
      return s;
    };
    double const norm = std::sqrt(dot(k.w, k.w));
    int present = 0;
    for (int a = 0; a < 8; ++a) {
      double const na = std::sqrt(dot(k.null[a], k.null[a]));
      if (na == 0) continue;  // an empty slot (n = 2 has one null rule fewer of degree 5)
      ++present;
      EXPECT_NEAR(na, norm, 1e-12 * norm) << a;
      for (int b = a + 1; b < 8; ++b) EXPECT_NEAR(dot(k.null[a], k.null[b]), 0.0, 1e-12 * norm * norm) << a << b;
    }
    EXPECT_EQ(present, n == 2 ? 7 : 8) << n;
  }
}

}  // namespace parity_test_cubature_rule9
