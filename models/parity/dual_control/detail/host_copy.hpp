#pragma once
// Grids between the device and the host's doubles (checkpoints, results).
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "parity/dual_control/detail/problem.hpp"

namespace parity::dual_control::detail {

template <class Real, class MemorySpace>
std::vector<double> to_vector(Kokkos::View<Real const*, MemorySpace> const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.size());
}

// A double grid is copied straight into the vector (one pass over 134 MB at 256^3, not three).
template <class Real, class MemorySpace>
std::vector<double> to_vector(Grid3<Real, MemorySpace> const& v) {
  std::vector<double> out(v.size());
  if constexpr (std::is_same_v<Real, double>) {
    Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(
        out.data(), v.extent(0), v.extent(1), v.extent(2));
    Kokkos::deep_copy(h, v);
  } else {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    for (std::size_t i = 0; i < h.size(); ++i) out[i] = double(h.data()[i]);
  }
  return out;
}

// Host values (double) into a grid of the solve's precision: exact for a state read from a
// checkpoint, which holds the grid's own values widened to double.
template <class Real, class MemorySpace>
void from_vector(std::vector<double> const& h, Grid3<Real, MemorySpace> const& v) {
  auto m = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < h.size(); ++i) m.data()[i] = Real(h[i]);
  Kokkos::deep_copy(v, m);
}

}  // namespace parity::dual_control::detail
