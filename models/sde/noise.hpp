#pragma once
// Gaussian noise for SDE ensembles: standard normals numbered 0, 1, 2, ... within one stream,
// drawn from parity::random's Philox blocks by Box-Muller. Normal number n of stream s is a pure
// function of (seed, s, n), so it does not depend on how steps are grouped into launches, on the
// thread layout or on the backend. A float block gives four normals (four 24-bit uniforms), a
// double block two (two 53-bit uniforms). Box-Muller's angle uses sincos_2pi (trig.hpp): the
// same polynomial on every backend, cheaper on GPUs than libm's sin/cos.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "models/sde/trig.hpp"
#include "parity/random/philox.hpp"

namespace parity::sde {

// Two standard normals from two uniforms in (0, 1): r cos(2 pi u2), r sin(2 pi u2), r = sqrt(-2 log u1).
template <class Real>
KOKKOS_INLINE_FUNCTION void box_muller(Real u1, Real u2, Real& z1, Real& z2) {
  Real const r = Kokkos::sqrt(Real(-2) * Kokkos::log(u1));
  Real s, c;
  sincos_2pi(u2, s, c);
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
  Real const r = Kokkos::sqrt(Real(-2) * Kokkos::log(u1));
  Real s, c;
  sincos_2pi(u2, s, c);
  return r * ((k & 1) ? s : c);
}

template <class Real>
class NormalCursor {
 public:
  static constexpr int per_block = normals_per_block<Real>;

  KOKKOS_INLINE_FUNCTION NormalCursor(std::uint64_t seed, std::uint64_t stream, std::uint64_t first)
      : seed_(seed), stream_(stream), block_(first / per_block), pos_(int(first % per_block)) {
    fill();
  }

  KOKKOS_INLINE_FUNCTION Real next() {
    if (pos_ == per_block) {
      ++block_;
      pos_ = 0;
      fill();
    }
    return z_[pos_++];
  }

 private:
  KOKKOS_INLINE_FUNCTION void fill() { normal_block(seed_, stream_, block_, z_); }

  std::uint64_t seed_, stream_, block_;
  int pos_;
  Real z_[per_block];
};

// Streams: path g of a sweep uses stream g for its noise and stream g | 2^63 for its initial state.
inline constexpr std::uint64_t initial_state_stream_bit = std::uint64_t(1) << 63;

}  // namespace parity::sde
