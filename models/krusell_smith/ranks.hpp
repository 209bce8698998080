#pragma once
// The ranks the panel's agents are split over and their collectives on host memory, Kokkos-free
// (the executables fill these in from parity/run/ranks.hpp; a library user may pass its own). The
// default is one rank with nothing to exchange. Every rank calls the collectives in the same order.
#include <cstdint>
#include <functional>
#include <span>

namespace parity::krusell_smith {

struct PanelRanks {
  int rank = 0, size = 1;
  // values[i] = the sum over the ranks of values[i], added in rank order: the same bits on every rank
  std::function<void(std::span<double> values)> sum_in_rank_order;
  // values[i] = their sum over the ranks (integers: exact in any order)
  std::function<void(std::span<std::int64_t> values)> sum;
  // all = every rank's `mine` concatenated in rank order (the lengths may differ per rank)
  std::function<void(std::span<double const> mine, std::span<double> all)> all_gather;
  std::function<double(double)> min;
  bool several() const { return size > 1; }
  // This rank's agents [first(n), last(n)) of n: contiguous ranges in index order.
  long first(long n) const { return several() ? n * rank / size : 0; }
  long last(long n) const { return several() ? n * (rank + 1) / size : n; }
};

}  // namespace parity::krusell_smith
