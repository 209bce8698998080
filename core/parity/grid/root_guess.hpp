#pragma once
// u^(1/p) for u in [0, 1] and p >= 1, in float, within 9.3e-4 / p + 1.9e-4 relative (0.03 % at
// p = 7), for a first guess of the cell of x on a power grid (nodes lo + (hi - lo) s^p, spacing.hpp:
// the cell is about (n - 1) u^(1/p) with u = (x - lo) / (hi - lo)). Only a guess: callers correct it
// against the nodes, so their results do not depend on its rounding. Portable arithmetic: log2 u
// from the float's exponent bits plus a cubic in the mantissa, 2^y from the exponent bits plus a
// cubic on [-1/2, 1/2] (least-squares fits, errors 1.34e-3 in log2 and 1.9e-4 relative). About 20
// GPU instructions against about 45 for libm's exp2f(log2f(u) / p). Accuracy against std::pow:
// tests/core/grid/test_root_guess.cpp.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace parity::grid {

KOKKOS_INLINE_FUNCTION float approximate_root(float u, float inv_p) {
  std::uint32_t const bits = Kokkos::bit_cast<std::uint32_t>(u);
  // The biased exponent as a float without an int-to-float conversion: 2^23 + e, less 2^23.
  float const biased = Kokkos::bit_cast<float>(0x4B000000u | (bits >> 23)) - 8388608.0f;
  float const m = Kokkos::bit_cast<float>((bits & 0x007fffffu) | 0x3f800000u);  // mantissa, [1, 2)
  float const log2u = (biased - 127.0f) + (((0.15391353f * m - 1.0294928f) * m + 3.0107303f) * m - 2.1338165f);
  float y = log2u * inv_p;
  // [-126, 0]: 2^y stays a normal float; NaN (from a NaN u) becomes -126, a root of about 0.
  y = y > -126.0f ? y : -126.0f;
  y = y < 0.0f ? y : 0.0f;
  constexpr float magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds y to an integer
  float const shifted = y + magic;
  float const n = shifted - magic;  // rint(y)
  float const f = y - n;  // [-1/2, 1/2]
  float const two_f = ((0.055875535f * f + 0.24229463f) * f + 0.69312726f) * f + 0.99994823f;
  std::int32_t const scale = Kokkos::bit_cast<std::int32_t>(shifted) - Kokkos::bit_cast<std::int32_t>(magic);  // n
  return Kokkos::bit_cast<float>(Kokkos::bit_cast<std::int32_t>(two_f) + scale * (std::int32_t(1) << 23));
}

}  // namespace parity::grid
