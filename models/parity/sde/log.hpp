#pragma once
// Natural log of a uniform variate, u in (0, 1], for Box-Muller's radius sqrt(-2 log u). The
// uniforms of random::uniform_float lie in [2^-25, 1] and those of uniform_double in [2^-54, 1]
// (1 occurs: the largest (k + 1/2) 2^-24 rounds up to it), all normal numbers. Portable
// arithmetic only (no libm), so every backend evaluates the same operations:
//  - u = 2^e m with m in [sqrt(1/2), sqrt(2)): e and m from u's bits (the exponent field counted
//    from the bits of sqrt(1/2), so the mantissa wraps at sqrt 2); e to floating point by the
//    magic-number subtraction (no integer-to-float conversion, a slow instruction on GPUs);
//  - f = m - 1 in [-0.293, 0.414] is exact (Sterbenz);
//  - log(1 + f) = f + f^2 Q(f), Q a minimax polynomial for the relative error of the sum, of
//    degree 7 (float, 0.50 ulp) or 18 (double, 0.45 ulp): no division;
//  - log u = e ln 2 + log(1 + f), ln 2 as a head and a tail, each product inside a fused
//    multiply-add: one rounding of e ln2_head + the rest.
// Every multiply-add is an explicit Kokkos::fma, one rounding on every backend (nvcc contracts a
// written a * b + c into one, g++ without -mfma cannot), so a host and a GPU give the same bits.
// scaled_log<Real, Scale> returns Scale log u with Scale folded into the coefficients; Scale is a
// signed power of two, so the folding is exact: scaled_log<Real, -2>(u) == -2 log u bit for bit,
// the radius' argument without a multiply (a log2-based form would cost the same: e enters by one
// fma either way). Measured in tests/models/sde/test_log.cpp against long double std::log: at most
// 1.14 ulp over all 2^24 float uniforms, 1.46 ulp over 2^22 double ones.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "parity/sde/trig.hpp"

namespace parity::sde {

namespace detail {

template <class Real>
struct LogTraits;
template <>
struct LogTraits<float> {
  using Bits = std::int32_t;
  static constexpr int mantissa_bits = 23;
  static constexpr Bits sqrt_half_bits = 0x3f3504f3;  // float(sqrt(1/2))
  static constexpr float magic = 12582912.0f;  // 1.5 * 2^23: small integers in its low mantissa bits
  static constexpr Bits magic_bits = 0x4b400000;
  static constexpr double ln2_head = 0.693147182464599609375;  // float(ln 2)
  static constexpr double ln2_tail = -1.9046542999577678785e-9;  // ln 2 - ln2_head
  static constexpr int degree = 7;
  // Q(f) = (log(1 + f) - f) / f^2 on [sqrt(1/2) - 1, sqrt(2) - 1] (Remez, relative error of the
  // sum f + f^2 Q: 3.0e-8).
  KOKKOS_INLINE_FUNCTION static constexpr double coefficient(int k) {
    double const c[] = {-0.4999999160638075840686176, 0.3333395022149102075950415,  -0.2500175525751646419299059,
                        0.199620721386656149295458,   -0.1657050806576036597670537, 0.1491797346106381940991374,
                        -0.1430752251434709650776604, 0.08734844487605777829697167};
    return c[k];
  }
};
template <>
struct LogTraits<double> {
  using Bits = std::int64_t;
  static constexpr int mantissa_bits = 52;
  static constexpr Bits sqrt_half_bits = 0x3fe6a09e667f3bcd;  // double(sqrt(1/2))
  static constexpr double magic = 6755399441055744.0;  // 1.5 * 2^52
  static constexpr Bits magic_bits = 0x4338000000000000;
  static constexpr double ln2_head = 0.69314718055994528623;  // double(ln 2)
  static constexpr double ln2_tail = 2.3190468138462996155e-17;  // ln 2 - ln2_head
  static constexpr int degree = 18;
  // As for float (relative error 5.0e-17).
  KOKKOS_INLINE_FUNCTION static constexpr double coefficient(int k) {
    double const c[] = {-0.4999999999999997332490907,  0.3333333333332809452899955,   -0.2500000000001236594392423,
                        0.2000000000174174600469343,   -0.1666666666626719530398407,  0.1428571408716794745956578,
                        -0.1249999982974730125028006,  0.1111112201823182416998651,   -0.1000001818848305456366174,
                        0.09090583290300473739436051,  -0.08332552019602219139576497, 0.07697710747066674140728774,
                        -0.07160261012622842595048995, 0.06621606910178362966602267,  -0.06041118390560564391901335,
                        0.05973533242176695937442823,  -0.06787069173748387466480858, 0.0632512311867102062199502,
                        -0.02830039284993076752042637};
    return c[k];
  }
};

template <class Real, int Scale>
struct LogCoefficients {
  KOKKOS_INLINE_FUNCTION static constexpr double at(int k) { return Scale * LogTraits<Real>::coefficient(k); }
};

KOKKOS_INLINE_FUNCTION constexpr bool is_signed_power_of_two(int s) {
  unsigned const a = s < 0 ? unsigned(-s) : unsigned(s);
  return a != 0 && (a & (a - 1)) == 0;
}

}  // namespace detail

// Scale log u for u in (0, 1] a normal number (the uniforms above); Scale a signed power of two.
template <class Real, int Scale = 1>
KOKKOS_INLINE_FUNCTION Real scaled_log(Real u) {
  static_assert(detail::is_signed_power_of_two(Scale), "Scale must be +-2^k: folding it must be exact");
  using T = detail::LogTraits<Real>;
  using Bits = typename T::Bits;
  Bits const bits = Kokkos::bit_cast<Bits>(u);
  Bits const from_sqrt_half = bits - T::sqrt_half_bits;
  Bits const e = from_sqrt_half >> T::mantissa_bits;  // arithmetic shift: e < 0 below sqrt(1/2)
  Real const m = Kokkos::bit_cast<Real>(bits - (from_sqrt_half & ~((Bits(1) << T::mantissa_bits) - 1)));
  Real const ef = Kokkos::bit_cast<Real>(T::magic_bits + e) - T::magic;  // e, exact
  Real const f = m - Real(1);  // exact
  Real const q = detail::fma_horner<Real, detail::LogCoefficients<Real, Scale>, 0, T::degree>(f);
  Real const y = Kokkos::fma(f * f, q, Real(Scale) * f);  // Scale log(1 + f)
  constexpr double ln2_head = Scale * T::ln2_head, ln2_tail = Scale * T::ln2_tail;
  return Kokkos::fma(ef, Real(ln2_head), Kokkos::fma(ef, Real(ln2_tail), y));
}

}  // namespace parity::sde
