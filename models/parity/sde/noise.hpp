#pragma once
// Noise for SDE ensembles: variates numbered 0, 1, 2, ... within one stream, drawn from
// parity::random's Philox blocks. Variate number n of stream s is a pure function of (seed, s, n),
// so it does not depend on how steps are grouped into launches, on the thread layout or on the
// backend. Two laws (NoiseLaw):
//  - gaussian (default): standard normals by Box-Muller. A float block gives four normals (four
//    24-bit uniforms), a double block two (two 53-bit uniforms). The radius takes -2 log u from
//    scaled_log (log.hpp) and the IEEE square root, the angle sincos_2pi (trig.hpp): polynomials
//    in explicit fused multiply-adds (MultiplyAdd::fused), so the normals are the same bits on
//    every backend (libm's log and CUDA's differ in the last bits; nvcc contracts a written
//    a * b + c, g++ without -mfma does not). On GPUs and on hosts built with FMA instructions
//    (PARITY_HOST_ARCH=x86-64-v3 or newer) the fmas are single instructions; on an x86-64 host
//    built without, each is a libm call, and the normals cost up to about 2x more there.
//  - five_point: a discrete law with the normal's moments through the fifth (E xi = E xi^3 =
//    E xi^5 = 0, E xi^2 = 1, E xi^4 = 3), from 4 random bits, 32 variates per Philox block. Those
//    moments are what weak order 2 asks of the increments (Kloeden & Platen 1992, Sect. 14.2, the
//    condition that admits their three-point law), so ensemble statistics (means, variances,
//    histograms, <<v>>) converge as with normals: weak order 1 for Euler-Maruyama, 2 for SRK2 with
//    additive noise. Single trajectories do not (no strong convergence). Its variates are exact
//    bit patterns, the same on every backend; it costs a few instructions per variate instead of
//    about 30 (measured: a Josephson float step 1.7x faster on an H200, perf/native).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "parity/random/philox.hpp"
#include "parity/sde/log.hpp"
#include "parity/sde/trig.hpp"

namespace parity::sde {

// Box-Muller's radius sqrt(-2 log u) for a uniform u in (0, 1]: -2 log u by scaled_log (log.hpp),
// the square root IEEE (correctly rounded on every backend).
template <class Real>
KOKKOS_INLINE_FUNCTION Real box_muller_radius(Real u) {
  return Kokkos::sqrt(scaled_log<Real, -2>(u));
}

// Two standard normals from two uniforms in (0, 1]: r cos(2 pi u2), r sin(2 pi u2), r = sqrt(-2 log u1).
template <class Real>
KOKKOS_INLINE_FUNCTION void box_muller(Real u1, Real u2, Real& z1, Real& z2) {
  Real const r = box_muller_radius(u1);
  Real s, c;
  sincos_2pi<Real, MultiplyAdd::fused>(u2, s, c);
  z1 = r * c;
  z2 = r * s;
}

template <class Real>
inline constexpr int normals_per_block = std::is_same_v<Real, float> ? 4 : 2;

// The normals of Philox block `block` of a stream: normals block * per_block + 0 .. per_block - 1.
template <class Real>
KOKKOS_INLINE_FUNCTION void normal_block(std::uint64_t seed, std::uint64_t stream, std::uint64_t block, Real* z) {
  auto const b = random::philox_block(seed, stream, block);
  if constexpr (std::is_same_v<Real, float>) {
    box_muller(random::uniform_float(b.v[0]), random::uniform_float(b.v[1]), z[0], z[1]);
    box_muller(random::uniform_float(b.v[2]), random::uniform_float(b.v[3]), z[2], z[3]);
  } else {
    box_muller(random::uniform_double(b.v[0], b.v[1]), random::uniform_double(b.v[2], b.v[3]), z[0], z[1]);
  }
}

// Normal number n of a stream alone (the same value normal_block gives), computing only its
// Box-Muller half: one Philox block, one log, one sqrt, one sincos_2pi.
template <class Real>
KOKKOS_INLINE_FUNCTION Real normal_at(std::uint64_t seed, std::uint64_t stream, std::uint64_t n) {
  constexpr int per_block = normals_per_block<Real>;
  auto const b = random::philox_block(seed, stream, n / per_block);
  int const k = int(n % per_block);
  Real u1, u2;
  if constexpr (std::is_same_v<Real, float>) {
    bool const hi = k >= 2;
    u1 = random::uniform_float(hi ? b.v[2] : b.v[0]);
    u2 = random::uniform_float(hi ? b.v[3] : b.v[1]);
  } else {
    u1 = random::uniform_double(b.v[0], b.v[1]);
    u2 = random::uniform_double(b.v[2], b.v[3]);
  }
  Real const r = box_muller_radius(u1);
  Real s, c;
  sincos_2pi<Real, MultiplyAdd::fused>(u2, s, c);
  return r * ((k & 1) ? s : c);
}

// Which variates drive the Wiener increments (see the top of this file).
enum class NoiseLaw { gaussian, five_point };

// The five-point law: |xi| = a with probability 1/2, b with 1/8, 0 with 3/8, the sign a fair bit;
// a^2 = (8 - sqrt 14) / 5, b^2 = (8 + 4 sqrt 14) / 5 solve a^2 / 2 + b^2 / 8 = 1 and
// a^4 / 2 + b^4 / 8 = 3 (the sixth moment is 12.42, the normal's 15). Every probability is a
// multiple of 1/16: 4 bits per variate, no rounding of probabilities.
inline constexpr double five_point_a = 0.92285888555358869822;
inline constexpr double five_point_b = 2.14320458879201569996;

// The variate of the low 4 bits of `bits`: bit 0 the sign; |xi| = a if bit 1 is set (1/2), else b
// if bits 2 and 3 are both set (1/8), else 0 (3/8); `a` and `b` are the law's magnitudes, already
// times a scale. Each test is a bit mask, so a GPU decodes a variate in about six instructions
// (three predicate-setting logic operations, three selects; no shifts: the masks of the other
// nibbles of a word are constants too).
template <class Real>
KOKKOS_INLINE_FUNCTION Real five_point_variate(std::uint32_t bits, Real a, Real b) {
  Real const mag = (bits & 2u) ? a : ((bits & 12u) == 12u ? b : Real(0));
  return (bits & 1u) ? -mag : mag;
}
template <class Real>
KOKKOS_INLINE_FUNCTION Real five_point_variate(std::uint32_t bits) {
  return five_point_variate(bits, Real(five_point_a), Real(five_point_b));
}

namespace detail {
// Word i (0..3) of a Philox block, by selects (a dynamically indexed array would go to local
// memory on GPUs).
KOKKOS_INLINE_FUNCTION std::uint32_t block_word(random::Block4 const& b, int i) {
  return i == 0 ? b.v[0] : i == 1 ? b.v[1] : i == 2 ? b.v[2] : b.v[3];
}
}  // namespace detail

// Variates are read in units: per unit, one Philox block's normals (gaussian: 4 float, 2 double)
// or 4 five-point variates (16 bits: a Philox block holds 8 units, low half of word 0 first).
template <NoiseLaw Law, class Real>
inline constexpr int variates_per_unit = Law == NoiseLaw::gaussian ? normals_per_block<Real> : 4;

// Unit `unit` of a stream: variates unit * per_unit + 0 .. per_unit - 1 (a pure function), each
// times `scale` (see VariateUnits).
template <NoiseLaw Law, class Real>
KOKKOS_INLINE_FUNCTION void variate_unit(std::uint64_t seed, std::uint64_t stream, std::uint64_t unit, Real* z,
                                         Real scale = 1) {
  if constexpr (Law == NoiseLaw::gaussian) {
    normal_block(seed, stream, unit, z);
    for (int q = 0; q < variates_per_unit<Law, Real>; ++q) z[q] *= scale;
  } else {
    auto const blk = random::philox_block(seed, stream, unit / 8);
    int const h = int(unit % 8);
    std::uint32_t const w = detail::block_word(blk, h >> 1);
    std::uint32_t const bits = (h & 1) ? w >> 16 : w;
    Real const a = Real(five_point_a) * scale, b = Real(five_point_b) * scale;
    for (int q = 0; q < 4; ++q) z[q] = five_point_variate(bits >> (4 * q), a, b);
  }
}

// Variate number n of a stream alone (the same value variate_unit gives).
template <NoiseLaw Law, class Real>
KOKKOS_INLINE_FUNCTION Real variate_at(std::uint64_t seed, std::uint64_t stream, std::uint64_t n) {
  if constexpr (Law == NoiseLaw::gaussian) {
    return normal_at<Real>(seed, stream, n);
  } else {
    auto const b = random::philox_block(seed, stream, n / 32);
    int const k = int(n % 32);  // nibble k: word k / 8, bits 4 (k % 8) ..
    return five_point_variate<Real>(detail::block_word(b, k >> 3) >> (4 * (k & 7)));
  }
}

// Reads the units of a stream in order from `first`, each variate times `scale` (the integrators'
// sqrt(dt): five-point then selects among scaled values, one multiply fewer per variate; the
// products are the same either way). Gaussian: a Philox block per unit; five-point: a Philox block
// per 8 units, its words shifted out 16 bits at a time (no dynamically indexed array, so
// everything stays in registers).
template <NoiseLaw Law, class Real>
class VariateUnits {
 public:
  static constexpr int per_unit = variates_per_unit<Law, Real>;

  KOKKOS_INLINE_FUNCTION VariateUnits(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, Real scale = 1)
      : seed_(seed),
        stream_(stream),
        unit_(first),
        scale_(scale),
        a_(Real(five_point_a) * scale),
        b_(Real(five_point_b) * scale) {
    if constexpr (Law == NoiseLaw::five_point) {
      if (first % 8 != 0) {
        load(first / 8);
        for (int h = 0; h < int(first % 8); ++h) shift();
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void next(Real* z) {
    if constexpr (Law == NoiseLaw::gaussian) {
      normal_block(seed_, stream_, unit_++, z);
      for (int q = 0; q < per_unit; ++q) z[q] *= scale_;
    } else {
      if (left_ == 0) load(unit_ / 8);
      for (int q = 0; q < 4; ++q) z[q] = five_point_variate(w_[0] >> (4 * q), a_, b_);
      shift();
      ++unit_;
    }
  }

 private:
  KOKKOS_INLINE_FUNCTION void load(std::uint64_t block) {
    auto const b = random::philox_block(seed_, stream_, block);
    for (int i = 0; i < 4; ++i) w_[i] = b.v[i];
    left_ = 8;
  }
  // Drops the unit just read: the high half of word 0 next, or the next word.
  KOKKOS_INLINE_FUNCTION void shift() {
    if (left_-- % 2 == 0) {
      w_[0] >>= 16;
    } else {
      w_[0] = w_[1], w_[1] = w_[2], w_[2] = w_[3];
    }
  }

  std::uint64_t seed_, stream_, unit_;
  Real scale_, a_, b_;  // scale, five_point_a * scale, five_point_b * scale
  std::uint32_t w_[4] = {0, 0, 0, 0};
  int left_ = 0;  // units left in w_
};

// One variate at a time from variate `first` on (launches whose steps do not fall on whole units).
template <NoiseLaw Law, class Real>
class VariateCursor {
 public:
  static constexpr int per_unit = variates_per_unit<Law, Real>;

  KOKKOS_INLINE_FUNCTION VariateCursor(std::uint64_t seed, std::uint64_t stream, std::uint64_t first, Real scale = 1)
      : units_(seed, stream, first / per_unit, scale), pos_(int(first % per_unit)) {
    units_.next(z_);
  }

  KOKKOS_INLINE_FUNCTION Real next() {
    if (pos_ == per_unit) {
      units_.next(z_);
      pos_ = 0;
    }
    return z_[pos_++];
  }

 private:
  VariateUnits<Law, Real> units_;
  int pos_;
  Real z_[per_unit];
};

template <class Real>
using NormalCursor = VariateCursor<NoiseLaw::gaussian, Real>;

// Streams: path g of a sweep uses stream g for its noise, stream g | 2^63 for its initial state and
// (weak2 with several Wiener processes) stream g | 2^62 for the signs of its Levy-area stand-ins.
inline constexpr std::uint64_t initial_state_stream_bit = std::uint64_t(1) << 63;
inline constexpr std::uint64_t area_stream_bit = std::uint64_t(1) << 62;

}  // namespace parity::sde
