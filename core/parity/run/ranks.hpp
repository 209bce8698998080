#pragma once
// The ranks of a run (MPI processes, one per GPU or CPU domain), Kokkos-free. Without MPI, or when
// the executable is not started by mpirun, there is one rank and every call is a cheap no-op; the
// collectives are then identities. Defined in core/report/ranks.cpp (host compiler only).
//
// Collectives move host memory: the MPI of the GPU machines is not CUDA-aware, so callers copy
// device results to the host first. The exception is all_gather_in_place, device to device
// through NCCL in CUDA builds with it (built_with_nccl()). Every collective must be called by all
// ranks in the same order. Time spent inside them is accumulated (communication_seconds) for the
// run report.
#include <cstddef>
#include <cstdint>
#include <span>

#include "parity/run/communicator.hpp"

namespace parity::run::ranks {

// Starts MPI (when built with it) for the lifetime of the object; one per process, in main().
class Environment {
 public:
  Environment(int& argc, char**& argv);
  ~Environment();
  Environment(Environment const&) = delete;
  Environment& operator=(Environment const&) = delete;
};

bool built_with_mpi();
int rank();  // 0 .. size() - 1
int size();
int node_rank();  // rank among the ranks on this node (picks the GPU)
inline bool root() { return rank() == 0; }

// all = every rank's `mine` concatenated in rank order (the lengths may differ per rank; all must
// hold their total). The same on every rank.
void all_gather(std::span<double const> mine, std::span<double> all);
// values[i] = the sum over ranks of values[i], added in rank order 0, 1, ...: the same bits on
// every rank and for every run at this rank count.
void sum_in_rank_order(std::span<double> values);
// Exact: integer sums do not depend on the order.
void sum(std::span<std::int64_t> values);
double max(double value);
double min(double value);
// Seconds spent in the collectives above so far (0 with one rank).
double communication_seconds();

// Whether this build exchanges device memory between ranks through NCCL (a CUDA build with it).
bool built_with_nccl();
// Communicator::Collectives::all_gather_in_place through NCCL, for device memory. Its first call
// sets NCCL up on the device this rank runs on (a collective like the others). Only where
// built_with_nccl(); elsewhere it throws std::logic_error.
void all_gather_in_place(void* data, std::int64_t n, std::size_t element_bytes);
// Sets NCCL up now where device_exchange() is "device" (a collective; nothing otherwise), so that
// its one-time cost (tenths of a second) lands before the phases that time a solve.
void start_device_exchange();
// How communicator() lets the engines exchange their device arrays: "device" (all_gather_in_place
// through NCCL) where built_with_nccl() and there are several ranks, unless the environment sets
// PARITY_EXCHANGE=host; else "host" (staged through host memory and MPI).
char const* device_exchange();

// This process's rank and size with the collectives above, for the distributed engines: what the
// executables pass them. One rank without a launcher. A PARITY_EXCHANGE other than host or device
// is refused here (InvalidInput, exit status 2 in the executables), before an engine starts.
Communicator communicator();

}  // namespace parity::run::ranks
