#pragma once
// One axis of a tensor-product grid: strictly increasing nodes in device memory with an O(1)
// cell lookup (a uniform bucket table narrows the search to a few nodes), usable in kernels.
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"

namespace parity::grid {

// Position of a coordinate inside an axis: cell i = [x_i, x_{i+1}] and the fraction t in [0,1].
template <class Real>
struct CellPosition {
  int cell;
  Real t;
};

template <class Real, class MemorySpace>
class Axis {
 public:
  using real_type = Real;
  using memory_space = MemorySpace;

  Axis() = default;

  // Copies host nodes to MemorySpace; nodes must be finite and strictly increasing, n >= 2.
  Axis(std::string const& label, std::vector<double> const& nodes) {
    int const n = static_cast<int>(nodes.size());
    require(n >= 2, "axis '" + label + "' needs at least 2 nodes");
    for (int i = 0; i + 1 < n; ++i)
      require(Real(nodes[i]) < Real(nodes[i + 1]),
              "axis '" + label + "' nodes must be strictly increasing (in the chosen precision)");
    n_ = n;
    nbuckets_ = 2 * (n - 1);
    Kokkos::View<Real*, MemorySpace> x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::grid::" + label), n);
    Kokkos::View<int*, MemorySpace> bucket(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::grid::" + label + "_buckets"), nbuckets_ + 1);
    auto x_h = Kokkos::create_mirror_view(x);
    auto bucket_h = Kokkos::create_mirror_view(bucket);
    for (int i = 0; i < n; ++i) x_h(i) = Real(nodes[i]);
    lo_ = x_h(0);
    hi_ = x_h(n - 1);
    inv_bucket_width_ = Real(nbuckets_) / (hi_ - lo_);
    // bucket(b) = the cell containing the left edge of bucket b.
    int cell = 0;
    for (int b = 0; b <= nbuckets_; ++b) {
      Real const edge = lo_ + (hi_ - lo_) * Real(b) / Real(nbuckets_);
      while (cell < n - 2 && edge >= x_h(cell + 1)) ++cell;
      bucket_h(b) = cell;
    }
    Kokkos::deep_copy(x, x_h);
    Kokkos::deep_copy(bucket, bucket_h);
    nodes_ = x;
    buckets_ = bucket;
  }

  KOKKOS_INLINE_FUNCTION int size() const { return n_; }
  KOKKOS_INLINE_FUNCTION Real lower() const { return lo_; }
  KOKKOS_INLINE_FUNCTION Real upper() const { return hi_; }
  KOKKOS_INLINE_FUNCTION Real node(int i) const { return nodes_(i); }
  KOKKOS_INLINE_FUNCTION Real clamp(Real x) const { return x < lo_ ? lo_ : (x > hi_ ? hi_ : x); }
  Kokkos::View<const Real*, MemorySpace> const& nodes() const { return nodes_; }

  // Cell index i in [0, n-2] with x_i <= x < x_{i+1} (x = upper gives n-2); x is clamped to the axis.
  KOKKOS_INLINE_FUNCTION int cell(Real x) const {
    x = clamp(x);
    int b = static_cast<int>((x - lo_) * inv_bucket_width_);
    b = b < 0 ? 0 : (b >= nbuckets_ ? nbuckets_ - 1 : b);
    int lo = buckets_(b);
    int hi = buckets_(b + 1);  // the cell is in [lo, hi] up to rounding of the bucket index
    while (lo < hi) {  // binary search for the last node <= x
      int const mid = (lo + hi + 1) / 2;
      if (nodes_(mid) <= x)
        lo = mid;
      else
        hi = mid - 1;
    }
    // Repair an off-by-one from rounding in the bucket index.
    while (lo > 0 && x < nodes_(lo)) --lo;
    while (lo < n_ - 2 && x >= nodes_(lo + 1)) ++lo;
    return lo;
  }

  // Cell and fraction for x clamped to the axis.
  KOKKOS_INLINE_FUNCTION CellPosition<Real> locate(Real x) const {
    x = clamp(x);
    int const i = cell(x);
    Real const x0 = nodes_(i);
    return {i, (x - x0) / (nodes_(i + 1) - x0)};
  }

 private:
  Kokkos::View<const Real*, MemorySpace> nodes_;
  Kokkos::View<const int*, MemorySpace> buckets_;
  Real lo_ = 0, hi_ = 1, inv_bucket_width_ = 1;
  int n_ = 0, nbuckets_ = 0;
};

}  // namespace parity::grid
