#pragma once
// Counter-based random numbers (Random123's Philox4x32-10). A draw is a pure function of
// (seed, stream, counter), so every backend and every thread layout sees the same numbers:
// the Serial, OpenMP and CUDA runs of a model get identical shocks.
//
// Layout: key = seed (64 bits); counter = {block lo, block hi, stream lo, stream hi}. Each block
// yields four 32-bit words. A "stream" is typically one agent, path or grid point.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include <Random123/philox.h>

namespace parity::random {

struct Block4 {
  std::uint32_t v[4];
};

KOKKOS_INLINE_FUNCTION Block4 philox_block(std::uint64_t seed, std::uint64_t stream, std::uint64_t block) {
  using Gen = r123::Philox4x32;
  Gen::ctr_type ctr = {
      {std::uint32_t(block), std::uint32_t(block >> 32), std::uint32_t(stream), std::uint32_t(stream >> 32)}};
  Gen::key_type key = {{std::uint32_t(seed), std::uint32_t(seed >> 32)}};
  Gen gen;
  auto const r = gen(ctr, key);
  return {{r.v[0], r.v[1], r.v[2], r.v[3]}};
}

// Uniform in the open interval (0,1) from 32 random bits (float: 24 of them) or 64 (double: 53).
KOKKOS_INLINE_FUNCTION float uniform_float(std::uint32_t a) { return (float(a >> 8) + 0.5f) * (1.0f / 16777216.0f); }
KOKKOS_INLINE_FUNCTION double uniform_double(std::uint32_t a, std::uint32_t b) {
  std::uint64_t const bits = ((std::uint64_t(a) << 32) | b) >> 11;
  return (double(bits) + 0.5) * (1.0 / 9007199254740992.0);
}

// Box-Muller: two independent standard normals from two uniforms in (0,1).
template <class Real>
KOKKOS_INLINE_FUNCTION void box_muller(Real u1, Real u2, Real& z1, Real& z2) {
  Real const r = Kokkos::sqrt(Real(-2) * Kokkos::log(u1));
  Real const theta = Real(2) * Kokkos::numbers::pi_v<Real> * u2;
  z1 = r * Kokkos::cos(theta);
  z2 = r * Kokkos::sin(theta);
}

// A sequential view of one stream: successive calls walk the counter. Cheap to construct in a
// kernel (no state beyond a block and a position); the same calls give the same numbers anywhere.
template <class Real>
class PhiloxStream {
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>);

 public:
  KOKKOS_INLINE_FUNCTION PhiloxStream(std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block = 0)
      : seed_(seed), stream_(stream), next_block_(first_block) {}

  KOKKOS_INLINE_FUNCTION std::uint32_t next_u32() {
    if (pos_ == 4) {
      block_ = philox_block(seed_, stream_, next_block_++);
      pos_ = 0;
    }
    return block_.v[pos_++];
  }

  // Uniform on (0,1).
  KOKKOS_INLINE_FUNCTION Real uniform() {
    if constexpr (std::is_same_v<Real, float>) {
      return uniform_float(next_u32());
    } else {
      std::uint32_t const a = next_u32();
      return uniform_double(a, next_u32());
    }
  }

  // Standard normal (Box-Muller; the second variate of each pair is kept for the next call).
  KOKKOS_INLINE_FUNCTION Real normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    Real const u1 = uniform();
    Real const u2 = uniform();
    Real z1, z2;
    box_muller(u1, u2, z1, z2);
    spare_ = z2;
    has_spare_ = true;
    return z1;
  }

  KOKKOS_INLINE_FUNCTION bool bernoulli(Real p) { return uniform() < p; }

  // Next state of a finite Markov chain: row(j) is P(state -> j), n_states entries summing to 1.
  template <class Row>
  KOKKOS_INLINE_FUNCTION int markov_next(Row const& row, int n_states) {
    Real const u = uniform();
    Real cdf = 0;
    for (int j = 0; j + 1 < n_states; ++j) {
      cdf += row(j);
      if (u < cdf) return j;
    }
    return n_states - 1;
  }

 private:
  std::uint64_t seed_, stream_, next_block_;
  Block4 block_{};
  int pos_ = 4;
  bool has_spare_ = false;
  Real spare_ = 0;
};

}  // namespace parity::random
