#pragma once
// x^beta for beta in [0, 1], and ln x, whose bits do not depend on the backend: Kokkos::pow and
// Kokkos::log are the platform's (glibc on the host, libdevice on CUDA), and the two differ in the
// last bit now and then.
// Built only from correctly rounded operations (+, -, *, /, explicit Kokkos::fma) and bit
// manipulation, so every backend evaluates the same operations. Every multiply-add is an explicit
// fma: nvcc contracts a written a * b + c into one and g++ may, which would change the rounding.
//
//  - x = 2^e m with m in [sqrt(1/2), sqrt(2)), e and m from x's bits (subnormal x scaled by 2^54
//    first);
//  - ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172: 2 s + 2 s^3 P(s^2) with P the series
//    1/3 + s^2/5 + ... to s^22/25 (truncation below 1e-17 relative);
//  - beta e = k + r with k an integer and |r| <= 1/2 (beta e's rounding error kept by an fma), so
//    x^beta = 2^k exp(y), y = r ln 2 + beta ln m, |y| < 0.7;
//  - exp(y) = 2^j exp(z), j the nearest integer to y / ln 2, |z| <= 0.35, exp(z) by its Taylor
//    series to degree 13 (truncation below 5e-18 relative);
//  - 2^(k + j) applied as two exact multiplications by powers of two (one of them could overflow).
// Relative error against long double std::pow at most 2.4e-16 over the normal range (measured in
// tests/core/algorithms/test_portable_power.cpp, which holds it below 1e-15). As std::pow: beta = 0
// gives 1 and beta = 1 gives x (any x), x = 0 gives 0, +inf gives +inf, NaN and negative x NaN.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace parity::algorithms {

namespace detail {

// 2^e for e in [-1022, 1023], from its bits.
KOKKOS_INLINE_FUNCTION double power_of_two(std::int64_t e) {
  return Kokkos::bit_cast<double>(std::uint64_t(e + 1023) << 52);
}

// ln x = e ln 2 + ln m for a positive finite x = 2^e m, m in [sqrt(1/2), sqrt(2)): e and ln m
// (portable_pow's first step, and portable_log's).
KOKKOS_INLINE_FUNCTION void log_parts(double x, std::int64_t& e, double& log_m) {
  std::int64_t shift = 0;
  if (x < 2.2250738585072014e-308) {  // subnormal: exact scaling to a normal number
    x *= 18014398509481984.0;  // 2^54
    shift = 54;
  }
  std::int64_t const sqrt_half_bits = 0x3fe6a09e667f3bcd;  // double(sqrt(1/2))
  std::int64_t const bits = Kokkos::bit_cast<std::int64_t>(x);
  std::int64_t const from_sqrt_half = bits - sqrt_half_bits;
  e = (from_sqrt_half >> 52) - shift;  // arithmetic shift: e < 0 below sqrt(1/2)
  double const m = Kokkos::bit_cast<double>(bits - (from_sqrt_half & ~((std::int64_t(1) << 52) - 1)));

  double const s = (m - 1) / (m + 1);  // m - 1 is exact (Sterbenz)
  double const s2 = s * s;
  double const atanh_series[] = {0.333333333333333333333333333333,  0.2,
                                 0.142857142857142857142857142857,  0.111111111111111111111111111111,
                                 0.0909090909090909090909090909091, 0.0769230769230769230769230769231,
                                 0.0666666666666666666666666666667, 0.0588235294117647058823529411765,
                                 0.0526315789473684210526315789474, 0.0476190476190476190476190476190,
                                 0.0434782608695652173913043478261, 0.04};
  double p = atanh_series[11];
  for (int k = 10; k >= 0; --k) p = Kokkos::fma(p, s2, atanh_series[k]);
  double const two_s = 2 * s;  // exact
  log_m = Kokkos::fma(two_s * s2, p, two_s);
}

}  // namespace detail

// ln x whose bits do not depend on the backend (the same construction as portable_pow): e ln 2 +
// ln m with one rounding of e ln 2's head. Relative error against long double std::log at most
// 3.3e-16, largest just off x = 1 (tests/core/algorithms/test_portable_power.cpp holds it below
// 5e-16). As std::log: 0 gives -inf, +inf gives +inf, NaN and negative x NaN.
KOKKOS_INLINE_FUNCTION double portable_log(double x) {
  if (x == 0) return -Kokkos::bit_cast<double>(std::uint64_t(0x7ff0000000000000));
  if (!(x > 0)) return Kokkos::bit_cast<double>(std::uint64_t(0x7ff8000000000000));  // negative or NaN: NaN
  if (!(x <= 1.7976931348623157e308)) return x;  // +inf
  std::int64_t e;
  double log_m;
  detail::log_parts(x, e, log_m);
  double const ln2_head = 0.6931471805599453;  // double(ln 2)
  double const ln2_tail = 2.319046813846282e-17;  // ln 2 - ln2_head
  double const ef = double(e);
  return Kokkos::fma(ef, ln2_head, Kokkos::fma(ef, ln2_tail, log_m));
}

KOKKOS_INLINE_FUNCTION double portable_pow(double x, double beta) {
  if (beta == 0) return 1.0;
  if (beta == 1) return x;
  if (x == 0) return 0.0;
  if (!(x > 0)) return Kokkos::bit_cast<double>(std::uint64_t(0x7ff8000000000000));  // negative or NaN: NaN
  if (!(x <= 1.7976931348623157e308)) return x;  // +inf
  std::int64_t e;
  double log_m;
  detail::log_parts(x, e, log_m);

  // beta e = k + r.
  double const magic = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds |v| < 2^51 to an integer
  std::int64_t const magic_bits = 0x4338000000000000;
  double const be = beta * double(e);  // e is exact in a double
  double const be_error = Kokkos::fma(beta, double(e), -be);  // exact: be + be_error = beta e
  double const rounded = be + magic;
  std::int64_t const k = Kokkos::bit_cast<std::int64_t>(rounded) - magic_bits;
  double const r = (be - (rounded - magic)) + be_error;  // be - k is exact

  double const ln2_head = 0.6931471805599453;  // double(ln 2)
  double const ln2_tail = 2.319046813846282e-17;  // ln 2 - ln2_head
  double const y = Kokkos::fma(r, ln2_head, Kokkos::fma(r, ln2_tail, beta * log_m));

  // exp(y) = 2^j exp(z).
  double const inv_ln2 = 1.44269504088896340735992468100;
  double const rounded_j = Kokkos::fma(y, inv_ln2, magic);
  std::int64_t const j = Kokkos::bit_cast<std::int64_t>(rounded_j) - magic_bits;
  double const jf = rounded_j - magic;
  double const z = Kokkos::fma(-jf, ln2_tail, Kokkos::fma(-jf, ln2_head, y));
  double const inverse_factorials[] = {1.0,
                                       1.0,
                                       0.5,
                                       0.166666666666666666666666666667,
                                       0.0416666666666666666666666666667,
                                       0.00833333333333333333333333333333,
                                       0.00138888888888888888888888888889,
                                       0.000198412698412698412698412698413,
                                       0.0000248015873015873015873015873016,
                                       0.00000275573192239858906525573192240,
                                       2.75573192239858906525573192240e-7,
                                       2.50521083854417187750521083854e-8,
                                       2.08767569878680989792100903212e-9,
                                       1.60590438368216145993923771702e-10};
  double q = inverse_factorials[13];
  for (int i = 12; i >= 0; --i) q = Kokkos::fma(q, z, inverse_factorials[i]);

  // 2^(k + j) in two steps: the first keeps q normal, the second alone may round (a subnormal
  // result).
  std::int64_t const scale = k + j, half = scale / 2;
  return q * detail::power_of_two(half) * detail::power_of_two(scale - half);
}

}  // namespace parity::algorithms
