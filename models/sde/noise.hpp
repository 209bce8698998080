#pragma once
// Gaussian noise for SDE ensembles: standard normals numbered 0, 1, 2, ... within one stream,
// drawn from parity::random's Philox blocks by Box-Muller. Normal number n of stream s is a pure
// function of (seed, s, n), so it does not depend on how steps are grouped into launches, on the
// thread layout or on the backend. A float block gives four normals (four 24-bit uniforms), a
// double block two (two 53-bit uniforms).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "parity/random/philox.hpp"

namespace parity::sde {

template <class Real>
class NormalCursor {
 public:
  static constexpr int per_block = std::is_same_v<Real, float> ? 4 : 2;

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
  KOKKOS_INLINE_FUNCTION void fill() {
    auto const b = random::philox_block(seed_, stream_, block_);
    if constexpr (std::is_same_v<Real, float>) {
      random::box_muller(random::uniform_float(b.v[0]), random::uniform_float(b.v[1]), z_[0], z_[1]);
      random::box_muller(random::uniform_float(b.v[2]), random::uniform_float(b.v[3]), z_[2], z_[3]);
    } else {
      random::box_muller(random::uniform_double(b.v[0], b.v[1]), random::uniform_double(b.v[2], b.v[3]), z_[0], z_[1]);
    }
  }

  std::uint64_t seed_, stream_, block_;
  int pos_;
  Real z_[per_block];
};

// Streams: path g of a sweep uses stream g for its noise and stream g | 2^63 for its initial state.
inline constexpr std::uint64_t initial_state_stream_bit = std::uint64_t(1) << 63;

}  // namespace parity::sde
