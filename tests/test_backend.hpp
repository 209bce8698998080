#pragma once
// Shared by the test bodies: the execution space under test and small helpers.
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "backends/execution_space.hpp"

namespace parity::test {

using ExecSpace = backend::ExecutionSpace;
using MemSpace = backend::MemorySpace;

// Copies a device View into a std::vector (rank 1).
template <class View>
std::vector<typename View::non_const_value_type> to_host(View const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<typename View::non_const_value_type>(h.data(), h.data() + h.size());
}

// Copies a std::vector into a new device View.
template <class T>
Kokkos::View<T*, MemSpace> to_device(std::vector<T> const& v, char const* label = "parity::test::input") {
  Kokkos::View<T*, MemSpace> d(std::string(label), v.size());  // Kokkos 4.6 takes no const char* variable
  Kokkos::View<T const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(v.data(), v.size());
  Kokkos::deep_copy(d, h);
  return d;
}

}  // namespace parity::test
