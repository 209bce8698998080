#pragma once
// Across ranks (Options::ranks): each rank computes per-region rows of doubles for its share of the
// regions, and the rows of all ranks are gathered into every rank's copy, through host memory (the
// MPI of the GPU machines is not CUDA-aware). Reals, axes, flags and counts below 2^32 travel as
// doubles exactly, so every rank then holds the bits one rank computes alone.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "parity/cubature/options.hpp"

namespace parity::cubature::detail {

// `rows` holds m rows of `width` doubles (row r at r * width); this rank has written its rows
// [ranks.first(m), ranks.last(m)). Afterwards every row is there, on every rank. `failed` is what
// this rank's own work threw (null: nothing): it travels with the rows as a flag, so every rank
// leaves the collective and throws together instead of waiting for a rank that gave up.
template <class ExecutionSpace>
void gather_rows(ExecutionSpace const& space, run::Communicator const& ranks,
                 Kokkos::View<double*, typename ExecutionSpace::memory_space> const& rows, std::int64_t m, int width,
                 std::exception_ptr failed) {
  using Host = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using Range = Kokkos::pair<std::int64_t, std::int64_t>;
  std::int64_t const p0 = ranks.first(m) * width, p1 = ranks.last(m) * width;
  std::vector<double> mine(std::size_t(p1 - p0) + 1, 0.0);
  if (!failed) {
    try {
      Kokkos::deep_copy(space, Host(mine.data(), std::size_t(p1 - p0)), Kokkos::subview(rows, Range(p0, p1)));
      space.fence("parity::cubature::rank_rows_to_host");
    } catch (...) {
      failed = std::current_exception();
    }
  }
  mine.back() = failed ? 1.0 : 0.0;  // the flag after the rows
  std::vector<double> all(std::size_t(m * width + ranks.size));
  ranks.all_gather(mine, all);
  // Rank k's rows, then its flag: the rows move down over the flags before them.
  int failed_rank = -1;
  std::size_t from = 0, to = 0;
  for (int k = 0; k < ranks.size; ++k) {
    std::size_t const length = std::size_t((ranks.begin(m, k + 1) - ranks.begin(m, k)) * width);
    std::copy(all.begin() + std::ptrdiff_t(from), all.begin() + std::ptrdiff_t(from + length),
              all.begin() + std::ptrdiff_t(to));
    from += length;
    to += length;
    if (all[from] != 0.0 && failed_rank < 0) failed_rank = k;
    ++from;
  }
  if (failed) std::rethrow_exception(failed);
  if (failed_rank >= 0)
    throw std::runtime_error("cubature: rank " + std::to_string(failed_rank) +
                             " failed while integrating its share of the regions (its message says why)");
  Kokkos::deep_copy(space, Kokkos::subview(rows, Range(0, m * width)), Host(all.data(), std::size_t(m * width)));
  space.fence("parity::cubature::rank_rows_to_device");
}

}  // namespace parity::cubature::detail
