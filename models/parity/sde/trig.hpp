#pragma once
// sin and cos of 2 pi u (u in turns) for the SDE kernels: the Josephson potential force
// cos(2 pi x), Box-Muller's angle 2 pi u, the Kuramoto phases. Portable arithmetic only (no libm),
// so every backend evaluates the same polynomial:
//  - nearest quarter turn n = rint(4 u) by the round-to-nearest "magic number" addition (no
//    float-to-int conversion, a slow instruction on GPUs); n mod 4 is read from the low bits of the
//    same sum;
//  - t = u - n / 4 in [-1/8, 1/8] is exact; sin(2 pi t) and cos(2 pi t) by their Taylor series
//    (float: through t^9 and t^8, double: through t^15 and t^16; truncation < 2e-9 and 5e-17);
//  - a quarter-turn rotation by n mod 4.
// Valid for |u| < 2^20 (float) or 2^49 (double); the callers pass reduced arguments. Measured
// against long double std::sin / std::cos in tests/models/sde/test_trig.cpp (float 1e-7, double
// 4e-16 absolute).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

namespace parity::sde {

namespace detail {

template <class Real>
struct TrigTraits;
template <>
struct TrigTraits<float> {
  using Bits = std::int32_t;
  static constexpr float magic = 12582912.0f;  // 1.5 * 2^23
  static constexpr int sin_terms = 5, cos_terms = 5;
};
template <>
struct TrigTraits<double> {
  using Bits = std::int64_t;
  static constexpr double magic = 6755399441055744.0;  // 1.5 * 2^52
  static constexpr int sin_terms = 8, cos_terms = 9;
};

// Coefficient k of the series in t: sin(2 pi t) = sum_k s_k t^(2k+1), cos(2 pi t) = sum_k c_k t^(2k).
constexpr double two_pi_d = 6.283185307179586476925286766559;
KOKKOS_INLINE_FUNCTION constexpr double sin_coefficient(int k) {
  double c = two_pi_d;
  for (int i = 0; i < k; ++i) c *= -two_pi_d * two_pi_d / double((2 * i + 2) * (2 * i + 3));
  return c;
}
KOKKOS_INLINE_FUNCTION constexpr double cos_coefficient(int k) {
  double c = 1;
  for (int i = 0; i < k; ++i) c *= -two_pi_d * two_pi_d / double((2 * i + 1) * (2 * i + 2));
  return c;
}

struct SinCoefficients {
  KOKKOS_INLINE_FUNCTION static constexpr double at(int k) { return sin_coefficient(k); }
};
struct CosCoefficients {
  KOKKOS_INLINE_FUNCTION static constexpr double at(int k) { return cos_coefficient(k); }
};

// sum_{k=Lo}^{Hi} Coefficients::at(k) t2^(k-Lo) by Horner's rule, from the highest coefficient
// down. Each coefficient is a constexpr variable, so it is folded to a literal: nothing of the
// series' construction runs in a kernel.
template <class Real, class Coefficients, int Lo, int Hi>
KOKKOS_FORCEINLINE_FUNCTION Real horner(Real t2) {
  static_assert(Lo <= Hi);
  constexpr double c = Coefficients::at(Lo);
  if constexpr (Lo == Hi) {
    return Real(c);
  } else {
    return horner<Real, Coefficients, Lo + 1, Hi>(t2) * t2 + Real(c);
  }
}

// The same, each step one explicit fused multiply-add (see MultiplyAdd).
template <class Real, class Coefficients, int Lo, int Hi>
KOKKOS_FORCEINLINE_FUNCTION Real fma_horner(Real t) {
  static_assert(Lo <= Hi);
  constexpr double c = Coefficients::at(Lo);
  if constexpr (Lo == Hi) {
    return Real(c);
  } else {
    return Kokkos::fma(fma_horner<Real, Coefficients, Lo + 1, Hi>(t), t, Real(c));
  }
}

}  // namespace detail

// How a polynomial's multiply-adds are evaluated. as_written: a * b + c, which nvcc contracts into
// one fused multiply-add and g++ without -mfma (x86-64 below x86-64-v3) rounds twice, so the last
// bits may differ between a host and a GPU. fused: explicit Kokkos::fma, one rounding on every
// backend and the same bits everywhere (the noise, noise.hpp); the same instructions on GPUs and on
// hosts built with FMA, a libm call per fma on hosts without.
enum class MultiplyAdd { as_written, fused };

// s = sin(2 pi u), c = cos(2 pi u).
template <class Real, MultiplyAdd Mode = MultiplyAdd::as_written>
KOKKOS_INLINE_FUNCTION void sincos_2pi(Real u, Real& s, Real& c) {
  using T = detail::TrigTraits<Real>;
  Real const shifted = Real(4) * u + T::magic;  // 4 u rounded to an integer, held in the low mantissa bits
  Real const n = shifted - T::magic;
  int const q = int(Kokkos::bit_cast<typename T::Bits>(shifted) & 3);  // n mod 4
  Real const t = u - Real(0.25) * n;  // [-1/8, 1/8], exact
  Real const t2 = t * t;
  Real sp, cp;
  if constexpr (Mode == MultiplyAdd::fused) {
    sp = t * detail::fma_horner<Real, detail::SinCoefficients, 0, T::sin_terms - 1>(t2);
    cp = detail::fma_horner<Real, detail::CosCoefficients, 0, T::cos_terms - 1>(t2);
  } else {
    sp = t * detail::horner<Real, detail::SinCoefficients, 0, T::sin_terms - 1>(t2);
    cp = detail::horner<Real, detail::CosCoefficients, 0, T::cos_terms - 1>(t2);
  }
  // Rotate by q quarter turns: (s, c) = (sp, cp), (cp, -sp), (-sp, -cp), (-cp, sp).
  Real const a = (q & 1) ? cp : sp, b = (q & 1) ? sp : cp;
  s = (q & 2) ? -a : a;
  c = ((q + 1) & 2) ? -b : b;
}

namespace detail {
// cos_2pi's odd polynomial: sin(2 pi t) for |t| <= 1/4 by its Taylor series through t^13 (float,
// truncation < 7e-10) or t^21 (double, < 1.2e-18).
template <class Real>
struct CosTraits;
template <>
struct CosTraits<float> {
  static constexpr int terms = 7;
};
template <>
struct CosTraits<double> {
  static constexpr int terms = 11;
};
// Coefficients times a constant (Scale::value), folded at compile time.
template <class Coefficients, class Scale>
struct ScaledCoefficients {
  KOKKOS_INLINE_FUNCTION static constexpr double at(int k) { return Scale::value * Coefficients::at(k); }
};
struct Unscaled {
  static constexpr double value = 1;
};
}  // namespace detail

// Scale for cos_2pi: 2 pi cos(2 pi u), the Josephson force, with no multiply of its own.
struct TimesTwoPi {
  static constexpr double value = detail::two_pi_d;
};

// cos(2 pi u) alone, cheaper than sincos_2pi when only the cosine is needed (the Josephson force,
// twice per SRK2 step): r = u - rint(u) in [-1/2, 1/2] (exact), cos(2 pi u) = cos(2 pi |r|)
// = sin(2 pi t) with t = 1/4 - |r| in [-1/4, 1/4], one odd polynomial and no quadrant selection
// (float: rint, 2 adds, 3 multiplies, 6 multiply-adds, against about 20 instructions for
// sincos_2pi). t = 1/4 - |r| is exact for |r| >= 1/8 and rounds by at most half
// an ulp of 1/8..1/4 otherwise, where the slope of sin(2 pi t) is below 2 pi cos(pi/4): absolute
// errors about 2e-7 (float, 1.7 ulp of 1) and 3e-16 (double), measured in
// tests/models/sde/test_trig.cpp.
// Valid for |u| < 2^22 (float) or 2^51 (double). cos_2pi<Real, Scale> returns Scale::value times
// it, the constant folded into the coefficients (one multiply fewer per call).
template <class Real, class Scale = detail::Unscaled>
KOKKOS_INLINE_FUNCTION Real cos_2pi(Real u) {
  // n = rint(u), round to nearest, ties to even: one FRND on GPUs (nearbyint), the magic-number
  // addition on hosts (where nearbyint may be a library call). The same n on every backend.
  Real n;
  KOKKOS_IF_ON_DEVICE((n = Kokkos::nearbyint(u);))
  KOKKOS_IF_ON_HOST((constexpr Real magic = detail::TrigTraits<Real>::magic; n = (u + magic) - magic;))
  Real const r = Kokkos::abs(u - n);  // [0, 1/2], exact
  Real const t = Real(0.25) - r;
  Real const t2 = t * t;
  // The leading term added last (one rounding of the largest part): 2 pi t + t^3 (s_1 + s_2 t^2 ...).
  constexpr int terms = detail::CosTraits<Real>::terms;
  using Coefficients = detail::ScaledCoefficients<detail::SinCoefficients, Scale>;
  constexpr double leading = Scale::value * detail::two_pi_d;
  return t * Real(leading) + (t * t2) * detail::horner<Real, Coefficients, 1, terms - 1>(t2);
}

}  // namespace parity::sde
