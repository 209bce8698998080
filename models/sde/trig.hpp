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

template <class Real, int K>
KOKKOS_FORCEINLINE_FUNCTION Real sin_series(Real t2) {
  Real p = Real(sin_coefficient(K - 1));
  if constexpr (K >= 2) p = p * t2 + Real(sin_coefficient(K - 2));
  if constexpr (K >= 3) p = p * t2 + Real(sin_coefficient(K - 3));
  if constexpr (K >= 4) p = p * t2 + Real(sin_coefficient(K - 4));
  if constexpr (K >= 5) p = p * t2 + Real(sin_coefficient(K - 5));
  if constexpr (K >= 6) p = p * t2 + Real(sin_coefficient(K - 6));
  if constexpr (K >= 7) p = p * t2 + Real(sin_coefficient(K - 7));
  if constexpr (K >= 8) p = p * t2 + Real(sin_coefficient(K - 8));
  static_assert(K <= 8);
  return p;
}
template <class Real, int K>
KOKKOS_FORCEINLINE_FUNCTION Real cos_series(Real t2) {
  Real p = Real(cos_coefficient(K - 1));
  if constexpr (K >= 2) p = p * t2 + Real(cos_coefficient(K - 2));
  if constexpr (K >= 3) p = p * t2 + Real(cos_coefficient(K - 3));
  if constexpr (K >= 4) p = p * t2 + Real(cos_coefficient(K - 4));
  if constexpr (K >= 5) p = p * t2 + Real(cos_coefficient(K - 5));
  if constexpr (K >= 6) p = p * t2 + Real(cos_coefficient(K - 6));
  if constexpr (K >= 7) p = p * t2 + Real(cos_coefficient(K - 7));
  if constexpr (K >= 8) p = p * t2 + Real(cos_coefficient(K - 8));
  if constexpr (K >= 9) p = p * t2 + Real(cos_coefficient(K - 9));
  static_assert(K <= 9);
  return p;
}

}  // namespace detail

// s = sin(2 pi u), c = cos(2 pi u).
template <class Real>
KOKKOS_INLINE_FUNCTION void sincos_2pi(Real u, Real& s, Real& c) {
  using T = detail::TrigTraits<Real>;
  Real const shifted = Real(4) * u + T::magic;  // 4 u rounded to an integer, held in the low mantissa bits
  Real const n = shifted - T::magic;
  int const q = int(Kokkos::bit_cast<typename T::Bits>(shifted) & 3);  // n mod 4
  Real const t = u - Real(0.25) * n;  // [-1/8, 1/8], exact
  Real const t2 = t * t;
  Real const sp = t * detail::sin_series<Real, T::sin_terms>(t2);
  Real const cp = detail::cos_series<Real, T::cos_terms>(t2);
  // Rotate by q quarter turns: (s, c) = (sp, cp), (cp, -sp), (-sp, -cp), (-cp, sp).
  Real const a = (q & 1) ? cp : sp, b = (q & 1) ? sp : cp;
  s = (q & 2) ? -a : a;
  c = ((q + 1) & 2) ? -b : b;
}

template <class Real>
KOKKOS_INLINE_FUNCTION Real cos_2pi(Real u) {
  Real s, c;
  sincos_2pi(u, s, c);
  return c;
}

}  // namespace parity::sde
