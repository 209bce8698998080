#pragma once
// A virtual Brownian tree (the construction of diffrax's VirtualBrownianTree, here counter-based):
// W on [0, T] at the dyadic times n T / 2^depth, n = 0 .. 2^depth, without storing a path. W(0) =
// 0, W(T) = sqrt(T) z_root, and the value at the midpoint of a tree interval [a, b] of level l
// (length h = T / 2^l) is the Brownian bridge's, (W(a) + W(b)) / 2 + sqrt(h) / 2 z, with z keyed
// by (seed, path, component, level, index) through Philox. Any value therefore depends only on
// those keys: a rejected step's increments are drawn again identically, on any backend and for
// any thread count or order of queries.
//
// Cost: a query descends from the root, one Philox block per level, down to the level at which its
// time is an interval's left end. The tree keeps the bracket of the last query (the values at both
// ends of its interval at every level it reached), so a query reuses the levels whose interval it
// shares with the previous one: an integrator that walks forward in time and asks for t + h / 2
// and t + h shares all levels above the step's own and pays for a few levels per query, instead
// of depth levels from the root. Values are kept in double for every precision: increments over
// the finest steps are differences of values of order sqrt(T), which float would round away.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "parity/random/philox.hpp"

namespace parity::sde::detail {

// The deepest tree a run may ask for: 2^40 finest steps.
inline constexpr int brownian_max_depth = 40;

// The standard normal of tree node `node` (0: the root's W(T); 2^l + i: interval i of level l) of
// one Wiener component of one path. Bits 48..63 of the Philox block counter hold the component.
KOKKOS_INLINE_FUNCTION double brownian_normal(std::uint64_t seed, std::uint64_t path, int component,
                                              std::uint64_t node) {
  random::Block4 const b = random::philox_block(seed, path, (std::uint64_t(component) << 48) | node);
  double z1, z2;
  random::box_muller(random::uniform_double(b.v[0], b.v[1]), random::uniform_double(b.v[2], b.v[3]), z1, z2);
  return z1;
}

// W(T) of a path's component: the root of its tree.
KOKKOS_INLINE_FUNCTION double brownian_root(std::uint64_t seed, std::uint64_t path, int component, double horizon) {
  return Kokkos::sqrt(horizon) * brownian_normal(seed, path, component, 0);
}

// One Wiener component of one path, resolved to `depth` levels, with the cache of the last
// query's bracket (see above).
class BrownianTree {
 public:
  BrownianTree() = default;
  KOKKOS_INLINE_FUNCTION BrownianTree(std::uint64_t seed, std::uint64_t path, int component, double horizon, int depth)
      : seed_(seed), path_(path), component_(component), depth_(depth), reached_(0), last_(0) {
    double h = horizon;
    for (int l = 0; l <= depth; ++l, h *= 0.5) half_sqrt_h_[l] = 0.5 * Kokkos::sqrt(h);
    left_[0] = 0;
    right_[0] = brownian_root(seed, path, component, horizon);
  }

  KOKKOS_INLINE_FUNCTION int depth() const { return depth_; }

  // W(n T / 2^depth), 0 <= n <= 2^depth.
  KOKKOS_INLINE_FUNCTION double at(std::int64_t n) {
    std::int64_t const end = std::int64_t(1) << depth_;
    if (n == 0) return 0;
    if (n == end) return right_[0];
    // Levels 0 .. shared hold the same intervals for n as for the last query (their indices
    // n >> (depth - l) agree); below, the bracket is rebuilt from the parent.
    int shared = depth_;
    for (std::uint64_t diff = std::uint64_t(n ^ last_); diff != 0; diff >>= 1) --shared;
    int l = shared < reached_ ? shared : reached_;
    for (;;) {
      std::int64_t const index = n >> (depth_ - l);
      if (index << (depth_ - l) == n) {
        reached_ = l;
        last_ = n;
        return left_[l];
      }
      // The bridge's midpoint of interval `index` of level l; n lies in one of its halves.
      double const mid =
          0.5 * (left_[l] + right_[l]) +
          half_sqrt_h_[l] * brownian_normal(seed_, path_, component_, (std::uint64_t(1) << l) + std::uint64_t(index));
      bool const upper = ((n >> (depth_ - l - 1)) & 1) != 0;
      left_[l + 1] = upper ? mid : left_[l];
      right_[l + 1] = upper ? right_[l] : mid;
      ++l;
    }
  }

 private:
  std::uint64_t seed_ = 0, path_ = 0;
  int component_ = 0, depth_ = 0;
  int reached_ = 0;  // the deepest level of the last query's bracket
  std::int64_t last_ = 0;  // the last query's n
  double left_[brownian_max_depth + 1], right_[brownian_max_depth + 1], half_sqrt_h_[brownian_max_depth + 1];
};

}  // namespace parity::sde::detail
