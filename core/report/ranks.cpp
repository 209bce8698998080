// The ranks of a run: MPI when built with it (PARITY_WITH_MPI) and started by a launcher, else one
// rank. See parity/run/ranks.hpp.
#include "parity/run/ranks.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(PARITY_WITH_MPI)
#include <mpi.h>
#endif

namespace parity::run::ranks {
namespace {

struct State {
  int rank = 0, size = 1, node_rank = 0;
  bool started = false;  // we called MPI_Init (and so call MPI_Finalize)
  double comm_seconds = 0;
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

Communicator communicator() {
  Communicator c;
  c.rank = rank();
  c.size = size();
  c.collectives.all_gather = [](std::span<double const> mine, std::span<double> all) { all_gather(mine, all); };
  c.collectives.sum_in_rank_order = [](std::span<double> values) { sum_in_rank_order(values); };
  c.collectives.sum = [](std::span<std::int64_t> values) { sum(values); };
  c.collectives.max = [](double value) { return max(value); };
  c.collectives.min = [](double value) { return min(value); };
  return c;
}

}  // namespace parity::run::ranks
