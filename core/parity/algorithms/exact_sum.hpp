#pragma once
// Sums whose value does not depend on the order of their terms. Each term, a double, is taken in
// 128-bit fixed point (64 integer bits, 64 fraction bits: x = hi + lo 2^-64 with hi = floor x and
// lo the fraction truncated to 64 bits) and added as its four 32-bit limbs into four 64-bit integer
// counters. Integer additions commute, so the counters, and the double read from them, are the
// same bits for any order of the terms: any split of the terms over threads, teams or ranks, and
// atomic additions in whatever order they land. The counters also add across ranks as they are
// (an integer sum of every rank's counters). A fifth counter counts terms that are not finite or
// beyond 2^62 in magnitude; the value is then NaN.
//
//   ExactSumCounter c[exact_sum_counters] = {};  // in device memory, shared by the adding threads
//   exact_sum_atomic_add(c, x);                  // from any thread, in any order
//   double s = exact_sum_value(c);               // after they are done
//
// Exact within 2^-64 per term (the truncated fraction); up to 2^31 terms, whose sum stays below
// 2^62 in magnitude.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace parity::algorithms {

inline constexpr int exact_sum_counters = 5;  // four limbs, then the count of unusable terms
// std::uint64_t: the type Kokkos' CUDA atomics add with one instruction (red.add.u64). Counters of
// unsigned long long take a compare-and-swap loop there: each Kuramoto mean-field pass took 3-4x as
// long on an H200 (perf/results/one-rank-exact-sums-h200/cas-atomics).
using ExactSumCounter = std::uint64_t;

// The counters of one term x.
KOKKOS_INLINE_FUNCTION void exact_sum_limbs(double x, ExactSumCounter (&c)[exact_sum_counters]) {
  constexpr std::uint64_t low32 = 0xffffffffu;
  if (!(Kokkos::fabs(x) < 0x1p62)) {  // also NaN
    c[0] = c[1] = c[2] = c[3] = 0;
    c[4] = 1;
    return;
  }
  double const whole = Kokkos::floor(x);
  std::uint64_t const lo = std::uint64_t((x - whole) * 0x1p64);  // x - floor x is exact, in [0, 1)
  std::uint64_t const hi = std::uint64_t(std::int64_t(whole));  // two's complement
  c[0] = lo & low32;
  c[1] = lo >> 32;
  c[2] = hi & low32;
  c[3] = hi >> 32;
  c[4] = 0;
}

// Adds x to counters[0 .. exact_sum_counters) with atomic additions (none for a zero limb).
KOKKOS_INLINE_FUNCTION void exact_sum_atomic_add(ExactSumCounter* counters, double x) {
  ExactSumCounter c[exact_sum_counters];
  exact_sum_limbs(x, c);
  for (int j = 0; j < exact_sum_counters; ++j)
    if (c[j] != 0) Kokkos::atomic_add(counters + j, c[j]);
}

// The double of the sum held in counters c (the 128-bit sum carried out of the limbs, then
// hi + lo 2^-64 with two roundings: the same bits wherever the same counters are read).
KOKKOS_INLINE_FUNCTION double exact_sum_value(ExactSumCounter const* c) {
  if (c[4] != 0) return Kokkos::Experimental::quiet_NaN<double>::value;
  constexpr std::uint64_t low32 = 0xffffffffu;
  std::uint64_t w[4], carry = 0;
  for (int k = 0; k < 4; ++k) {
    std::uint64_t const t = std::uint64_t(c[k]) + carry;  // no overflow: c[k] < 2^31 (2^32 - 1) + 2^32
    w[k] = t & low32;
    carry = t >> 32;
  }
  std::uint64_t const lo = w[0] | (w[1] << 32);
  auto const hi = std::int64_t(w[2] | (w[3] << 32));
  return double(hi) + double(lo) * 0x1p-64;
}

}  // namespace parity::algorithms
