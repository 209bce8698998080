// Brent's root finder against closed-form roots, its bracket guarantee, and refused brackets.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "parity/optimize/root.hpp"

namespace parity_test_root {

using parity::optimize::find_root;

TEST(RootFinder, ClosedFormRoots) {
  parity::optimize::RootOptions opt;
  opt.x_tol = 1e-13;
  auto const a = find_root([](double x) { return x * x - 2; }, 0.0, 2.0, opt);
  EXPECT_TRUE(a.converged);
  EXPECT_NEAR(a.x, std::numbers::sqrt2, 1e-12);
  auto const b = find_root([](double x) { return std::cos(x); }, 1.0, 3.0, opt);
  EXPECT_NEAR(b.x, std::numbers::pi / 2, 1e-12);
  auto const c = find_root([](double x) { return std::exp(x) - 10; }, -5.0, 5.0, opt);
  EXPECT_NEAR(c.x, std::log(10.0), 1e-12);
  EXPECT_LT(c.evaluations, 20);  // superlinear: bisection alone needs ~37 for 1e-13 on [-5, 5]
  // A step function: no interpolation helps, the bracket still closes on the jump.
  auto const d = find_root([](double x) { return x < 0.3 ? -1.0 : 1.0; }, 0.0, 1.0, opt);
  EXPECT_TRUE(d.converged);
  EXPECT_NEAR(d.x, 0.3, 1e-12);
  EXPECT_LE(d.lower, 0.3);
  EXPECT_GE(d.upper, 0.3);
}

TEST(RootFinder, StopsOnTheFunctionToleranceAndTheBudget) {
  parity::optimize::RootOptions opt;
  opt.f_tol = 1e-3;
  int calls = 0;
  auto const r = find_root(
      [&](double x) {
        ++calls;
        return x - 0.123456;
      },
      0.0, 1.0, opt);
  EXPECT_TRUE(r.converged);
  EXPECT_LE(std::abs(r.fx), 1e-3);
  EXPECT_EQ(r.evaluations, calls);
  parity::optimize::RootOptions few;
  few.x_tol = 1e-15;
  few.max_evaluations = 4;
  auto const s = find_root([](double x) { return x < 0.3 ? -1.0 : 1.0; }, 0.0, 1.0, few);
  EXPECT_FALSE(s.converged);
  EXPECT_EQ(s.evaluations, 4);
}

TEST(RootFinder, TakesKnownValuesAtTheEnds) {
  int calls = 0;
  parity::optimize::RootOptions opt;
  opt.f_lower = -2.0;  // f(0)
  opt.f_upper = 2.0;  // f(2)
  auto const r = find_root(
      [&](double x) {
        ++calls;
        return x * x - 2;
      },
      0.0, 2.0, opt);
  EXPECT_NEAR(r.x, std::numbers::sqrt2, 1e-9);
  EXPECT_EQ(calls + 2, r.evaluations);
}

TEST(RootFinder, RefusesAnUnbracketedRoot) {
  EXPECT_THROW(find_root([](double x) { return x * x + 1; }, -1.0, 1.0), parity::InvalidInput);
  EXPECT_THROW(find_root([](double x) { return x; }, 1.0, -1.0), parity::InvalidInput);
}

}  // namespace parity_test_root
