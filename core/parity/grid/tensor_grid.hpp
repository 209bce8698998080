#pragma once
// A Rank-dimensional tensor-product grid: one Axis per dimension, values stored row-major
// (the last axis varies fastest), matching Kokkos::View<Real***, LayoutRight>.
#include <Kokkos_Core.hpp>
#include <array>

#include "parity/grid/axis.hpp"

namespace parity::grid {

template <int Rank, class Real, class MemorySpace>
class TensorGrid {
  static_assert(Rank >= 1 && Rank <= 3, "TensorGrid supports 1 to 3 dimensions");

 public:
  using axis_type = Axis<Real, MemorySpace>;
  static constexpr int rank = Rank;

  TensorGrid() = default;
  explicit TensorGrid(std::array<axis_type, Rank> axes) {
    for (int d = 0; d < Rank; ++d) axes_[d] = axes[d];
  }

  KOKKOS_INLINE_FUNCTION axis_type const& axis(int d) const { return axes_[d]; }
  KOKKOS_INLINE_FUNCTION int extent(int d) const { return axes_[d].size(); }
  KOKKOS_INLINE_FUNCTION long size() const {
    long n = 1;
    for (int d = 0; d < Rank; ++d) n *= axes_[d].size();
    return n;
  }

 private:
  Kokkos::Array<axis_type, Rank> axes_;
};

}  // namespace parity::grid
