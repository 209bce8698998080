// The ranks of a run: MPI when built with it (PARITY_WITH_MPI) and started by a launcher, else one
// rank; device arrays exchanged through NCCL when built with it (PARITY_WITH_NCCL, CUDA builds
// with MPI). See parity/run/ranks.hpp.
#include "parity/run/ranks.hpp"

#include "parity/run/errors.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(PARITY_WITH_MPI)
#include <mpi.h>
#endif
#if defined(PARITY_WITH_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>
#endif

namespace parity::run::ranks {
namespace {

struct State {
  int rank = 0, size = 1, node_rank = 0;
  bool started = false;  // we called MPI_Init (and so call MPI_Finalize)
  double comm_seconds = 0;
#if defined(PARITY_WITH_NCCL)
  ncclComm_t nccl = nullptr;  // set up by the first all_gather_in_place
  cudaStream_t stream = nullptr;
#endif
};

State& state() {
  static State s;
  return s;
}

// Adds the wall time of one collective to the communication total.
class CommTimer {
 public:
  CommTimer() : t0_(std::chrono::steady_clock::now()) {}
  ~CommTimer() {
    state().comm_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  std::chrono::steady_clock::time_point t0_;
};

#if defined(PARITY_WITH_MPI)
// Whether a launcher (mpirun, mpiexec, srun) started this process. A plain start stays one rank
// without MPI_Init: a singleton MPI start spawns a runtime daemon, which costs time and may not
// work at all in a minimal build root.
bool launched_by_mpi() {
  for (char const* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

void check(int code, char const* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}
#endif

// PARITY_EXCHANGE as set (device where unset): host, device, or a value to refuse.
std::string chosen_exchange() {
  char const* const value = std::getenv("PARITY_EXCHANGE");
  return value == nullptr ? "device" : value;
}

#if defined(PARITY_WITH_NCCL)
void check_nccl(ncclResult_t code, char const* what) {
  if (code != ncclSuccess)
    throw std::runtime_error(std::string("NCCL error in ") + what + ": " + ncclGetErrorString(code));
}

void check_cuda(cudaError_t code, char const* what) {
  if (code != cudaSuccess)
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(code));
}

// One NCCL communicator over all ranks on the device current on this thread (the one Kokkos
// initialised), with a stream of its own; rank 0's id reaches the others through MPI.
void start_nccl() {
  auto& s = state();
  if (s.nccl != nullptr) return;
  ncclUniqueId id{};
  if (s.rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  check(MPI_Bcast(&id, int(sizeof id), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  check_cuda(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  check_nccl(ncclCommInitRank(&s.nccl, s.size, id, s.rank), "ncclCommInitRank");
}

void stop_nccl() noexcept {
  auto& s = state();
  if (s.nccl != nullptr) ncclCommDestroy(s.nccl);
  if (s.stream != nullptr) cudaStreamDestroy(s.stream);
  s.nccl = nullptr;
  s.stream = nullptr;
}
#endif

}  // namespace

Environment::Environment([[maybe_unused]] int& argc, [[maybe_unused]] char**& argv) {
#if defined(PARITY_WITH_MPI)
  if (!launched_by_mpi()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  auto& s = state();
  if (!initialized) {
    check(MPI_Init(&argc, &argv), "MPI_Init");
    s.started = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, s.rank, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Comm_rank(node, &s.node_rank);
  MPI_Comm_free(&node);
#endif
}

Environment::~Environment() {
#if defined(PARITY_WITH_MPI)
  auto& s = state();
#if defined(PARITY_WITH_NCCL)
  stop_nccl();
#endif
  if (s.started) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  s = State{};
#endif
}

bool built_with_mpi() {
#if defined(PARITY_WITH_MPI)
  return true;
#else
  return false;
#endif
}

int rank() { return state().rank; }
int size() { return state().size; }
int node_rank() { return state().node_rank; }
double communication_seconds() { return state().comm_seconds; }

void all_gather(std::span<double const> mine, std::span<double> all) {
  if (size() == 1) {
    if (all.size() != mine.size()) throw std::logic_error("ranks::all_gather: output size differs from the total");
    std::copy(mine.begin(), mine.end(), all.begin());
    return;
  }
#if defined(PARITY_WITH_MPI)
  CommTimer timer;
  int const n = size();
  std::vector<int> counts(n), offsets(n);
  int const count = int(mine.size());
  check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  long total = 0;
  for (int r = 0; r < n; ++r) offsets[r] = int(total), total += counts[r];
  if (std::size_t(total) != all.size()) throw std::logic_error("ranks::all_gather: output size differs from the total");
  check(MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv");
#endif
}

void sum_in_rank_order(std::span<double> values) {
  if (size() == 1) return;
  std::vector<double> all(values.size() * std::size_t(size()));
  all_gather(values, all);
  CommTimer timer;  // the additions count as communication: a one-rank run does not do them
  for (std::size_t i = 0; i < values.size(); ++i) {
    double s = all[i];
    for (int r = 1; r < size(); ++r) s += all[std::size_t(r) * values.size() + i];
    values[i] = s;
  }
}

void sum([[maybe_unused]] std::span<std::int64_t> values) {
  if (size() == 1) return;
#if defined(PARITY_WITH_MPI)
  CommTimer timer;
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce");
#endif
}

double max(double value) {
  if (size() == 1) return value;
#if defined(PARITY_WITH_MPI)
  CommTimer timer;
  check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
#endif
  return value;
}

double min(double value) {
  if (size() == 1) return value;
#if defined(PARITY_WITH_MPI)
  CommTimer timer;
  check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
#endif
  return value;
}

bool built_with_nccl() {
#if defined(PARITY_WITH_NCCL)
  return true;
#else
  return false;
#endif
}

void all_gather_in_place([[maybe_unused]] void* data, [[maybe_unused]] std::int64_t n,
                         [[maybe_unused]] std::size_t element_bytes) {
  if (size() == 1) return;
#if defined(PARITY_WITH_NCCL)
  CommTimer timer;
  start_nccl();
  auto& s = state();
  auto* const bytes = static_cast<char*>(data);
  std::int64_t const ranks = s.size;
  if (n % ranks == 0) {  // equal shares: NCCL's all-gather, in place (rank k's share at k * n / ranks)
    std::size_t const share = std::size_t(n / ranks) * element_bytes;
    check_nccl(ncclAllGather(bytes + std::size_t(s.rank) * share, bytes, share, ncclUint8, s.nccl, s.stream),
               "ncclAllGather");
  } else {  // unequal shares: each rank broadcasts its own, in one group
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < s.size; ++r) {
      std::int64_t const b = n * r / ranks, e = n * (r + 1) / ranks;
      char* const share = bytes + std::size_t(b) * element_bytes;
      check_nccl(ncclBroadcast(share, share, std::size_t(e - b) * element_bytes, ncclUint8, r, s.nccl, s.stream),
                 "ncclBroadcast");
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  }
  check_cuda(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
#else
  throw std::logic_error("ranks::all_gather_in_place: this build has no NCCL (built_with_nccl())");
#endif
}

void start_device_exchange() {
#if defined(PARITY_WITH_NCCL)
  if (std::string(device_exchange()) == "device") start_nccl();
#endif
}

char const* device_exchange() {
  std::string const chosen = chosen_exchange();
  return built_with_nccl() && size() > 1 && chosen == "device" ? "device" : "host";
}

Communicator communicator() {
  if (std::string const chosen = chosen_exchange(); chosen != "host" && chosen != "device")
    throw InvalidInput("PARITY_EXCHANGE=" + chosen + ": must be host or device");
  Communicator c;
  c.rank = rank();
  c.size = size();
  c.collectives.all_gather = [](std::span<double const> mine, std::span<double> all) { all_gather(mine, all); };
  c.collectives.sum_in_rank_order = [](std::span<double> values) { sum_in_rank_order(values); };
  c.collectives.sum = [](std::span<std::int64_t> values) { sum(values); };
  c.collectives.max = [](double value) { return max(value); };
  c.collectives.min = [](double value) { return min(value); };
  if (std::string(device_exchange()) == "device")
    c.collectives.all_gather_in_place = [](void* data, std::int64_t n, std::size_t element_bytes) {
      all_gather_in_place(data, n, element_bytes);
    };
  return c;
}

}  // namespace parity::run::ranks
