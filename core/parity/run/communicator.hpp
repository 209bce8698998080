#pragma once
// The ranks a distributed engine is split over and the collectives it calls on host memory,
// Kokkos-free. A default Communicator is one rank: every collective is then an identity and no
// hook is needed. With several ranks the hooks carry the exchange: the executables fill them from
// MPI (run::ranks::communicator(), parity/run/ranks.hpp); a library user, or a test that runs its
// ranks as threads of one process, may fill its own. Every rank calls the collectives in the same
// order. The collectives move host memory (the MPI of the GPU machines is not CUDA-aware), except
// all_gather_in_place, which moves the memory an engine computes in (device memory on a GPU: NCCL
// in CUDA builds with it) where a hook for it is given.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>

#include "parity/run/errors.hpp"

namespace parity::run {

struct Communicator {
  // What the member functions of the same names call when there are several ranks.
  struct Collectives {
    // all = every rank's `mine` concatenated in rank order (the lengths may differ per rank)
    std::function<void(std::span<double const> mine, std::span<double> all)> all_gather;
    // values[i] = the sum over the ranks of values[i], added in rank order 0, 1, ...: the same bits
    // on every rank and for every run at this rank count
    std::function<void(std::span<double> values)> sum_in_rank_order;
    // values[i] = their sum over the ranks (integers: exact in any order)
    std::function<void(std::span<std::int64_t> values)> sum;
    std::function<double(double)> max, min;
    // Optional. data holds n elements of element_bytes each, in the memory the engine computes in;
    // rank k's share [begin(n, k), begin(n, k + 1)) is copied from rank k into every other rank's
    // data, byte for byte. The caller has finished writing its share (fenced) before the call.
    std::function<void(void* data, std::int64_t n, std::size_t element_bytes)> all_gather_in_place;
  };

  int rank = 0, size = 1;
  Collectives collectives;  // unused with one rank

  bool several() const { return size > 1; }
  bool root() const { return rank == 0; }

  // Rank k's share of n items: [begin(n, k), begin(n, k + 1)), contiguous and in index order.
  std::int64_t begin(std::int64_t n, int k) const { return n * k / size; }
  std::int64_t first(std::int64_t n) const { return begin(n, rank); }
  std::int64_t last(std::int64_t n) const { return begin(n, rank + 1); }

  // A size below 1 or a rank outside 0 .. size - 1 is the caller's error. A missing hook shows when
  // it is first needed (a logic_error): engines need only some of them.
  void validate() const {
    require(size >= 1 && rank >= 0 && rank < size,
            "ranks: rank " + std::to_string(rank) + " of " + std::to_string(size) + " is not in 0 .. size - 1");
  }

  void all_gather(std::span<double const> mine, std::span<double> all) const {
    if (several()) return hook(collectives.all_gather, "all_gather")(mine, all);
    if (all.size() != mine.size())
      throw std::logic_error("Communicator::all_gather: output size differs from the total");
    std::copy(mine.begin(), mine.end(), all.begin());
  }
  void sum_in_rank_order(std::span<double> values) const {
    if (several()) hook(collectives.sum_in_rank_order, "sum_in_rank_order")(values);
  }
  void sum(std::span<std::int64_t> values) const {
    if (several()) hook(collectives.sum, "sum")(values);
  }
  double max(double value) const { return several() ? hook(collectives.max, "max")(value) : value; }
  // Whether all_gather_in_place can be called: several ranks and a hook for it. Without one an
  // engine stages its shares through host memory and all_gather.
  bool gathers_in_place() const { return several() && bool(collectives.all_gather_in_place); }
  void all_gather_in_place(void* data, std::int64_t n, std::size_t element_bytes) const {
    if (several()) hook(collectives.all_gather_in_place, "all_gather_in_place")(data, n, element_bytes);
  }
  double min(double value) const { return several() ? hook(collectives.min, "min")(value) : value; }

 private:
  template <class F>
  static F const& hook(F const& f, char const* name) {
    if (!f) throw std::logic_error(std::string("Communicator: several ranks and no ") + name);
    return f;
  }
};

}  // namespace parity::run
