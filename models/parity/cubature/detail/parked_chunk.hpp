#pragma once
// Regions the cubature integrator parks in host memory (improved mode with max_host_memory_mb),
// and their copies between the device list and the host.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "parity/cubature/detail/region_list.hpp"

namespace parity::cubature::detail {

// Regions parked on the host (improved mode, when splitting the unfinished regions would outgrow
// max_memory_mb): the unevaluated pieces of split regions, in sibling groups of `siblings`, with
// their parents' estimates (the two-level check) and the sums of their parents' estimates, errors
// and volumes, which stand in for them until they are evaluated.
template <class Real>
struct PendingChunk {
  std::int64_t count = 0;
  int siblings = 0;
  std::vector<Real> center, half;  // count x n, row-major
  std::vector<Real> parent;  // count / siblings (empty unless the two-level check is on)
  double estimate = 0, error = 0, volume = 0;
  double reserve = 0;  // the share of the tolerance set aside for these regions when they were parked
  std::int64_t budget = 0;  // the share of the evaluation budget set aside for them then
  double bytes() const { return double(center.size() + half.size() + parent.size()) * sizeof(Real); }
};

// Copies the first `count` regions' boxes of `list` (and `groups` parent estimates) to a chunk.
template <class ExecutionSpace, class Real>
PendingChunk<Real> park(ExecutionSpace const& space,
                        RegionList<Real, typename ExecutionSpace::memory_space> const& list, std::int64_t count, int n,
                        int siblings, Kokkos::View<Real*, typename ExecutionSpace::memory_space> parent,
                        std::int64_t groups) {
  using Host = Kokkos::View<Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using Host1 = Kokkos::View<Real*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  PendingChunk<Real> c;
  c.count = count;
  c.siblings = siblings;
  c.center.resize(std::size_t(count) * n);
  c.half.resize(std::size_t(count) * n);
  auto const rows = std::make_pair(std::int64_t(0), count);
  Kokkos::deep_copy(space, Host(c.center.data(), count, n), Kokkos::subview(list.center, rows, Kokkos::ALL));
  Kokkos::deep_copy(space, Host(c.half.data(), count, n), Kokkos::subview(list.half, rows, Kokkos::ALL));
  if (groups > 0) {
    c.parent.resize(std::size_t(groups));
    Kokkos::deep_copy(space, Host1(c.parent.data(), groups),
                      Kokkos::subview(parent, std::make_pair(std::int64_t(0), groups)));
  }
  space.fence("parity::cubature::park");
  return c;
}

// Copies a chunk back into the first regions of `list` (and its parents into `parent`).
template <class ExecutionSpace, class Real>
void unpark(ExecutionSpace const& space, PendingChunk<Real> const& c, int n,
            RegionList<Real, typename ExecutionSpace::memory_space> const& list,
            Kokkos::View<Real*, typename ExecutionSpace::memory_space> parent) {
  using Host = Kokkos::View<Real const**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using Host1 = Kokkos::View<Real const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  auto const rows = std::make_pair(std::int64_t(0), c.count);
  Kokkos::deep_copy(space, Kokkos::subview(list.center, rows, Kokkos::ALL), Host(c.center.data(), c.count, n));
  Kokkos::deep_copy(space, Kokkos::subview(list.half, rows, Kokkos::ALL), Host(c.half.data(), c.count, n));
  if (!c.parent.empty())
    Kokkos::deep_copy(space, Kokkos::subview(parent, std::make_pair(std::int64_t(0), std::int64_t(c.parent.size()))),
                      Host1(c.parent.data(), std::int64_t(c.parent.size())));
  space.fence("parity::cubature::unpark");
}

}  // namespace parity::cubature::detail
