// The cost of Parity's cross-rank exchanges on GPUs, two ways: staged through host memory with MPI
// (what the executables do: the MPI of the GPU machines is not CUDA-aware) and device to device
// with NCCL. One rank per GPU; every rank holds `bytes` and receives everyone's (all-gather) or
// the element-wise sum (all-reduce, doubles). Times are medians over repetitions, each fenced by
// a barrier before and a device synchronisation after, on rank 0.
//
// Build and run (the GPU machine: CUDA, an MPI and NCCL):
//   nvcc -O2 -std=c++17 -ccbin mpicxx perf/exchange/exchange.cu -lnccl -o exchange
//   mpirun -np 2 ./exchange > exchange.json
// Output: one JSON object, {"ranks", "device", "rows": [{"op", "bytes_per_rank", "host_mpi_s",
// "nccl_s"}]}.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cudaError_t e, char const* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "exchange: %s: %s\n", what, cudaGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

void check(ncclResult_t e, char const* what) {
  if (e != ncclSuccess) {
    std::fprintf(stderr, "exchange: %s: %s\n", what, ncclGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

template <class F>
double median_seconds(F&& once, int repetitions) {
  std::vector<double> t;
  once();  // warm-up: first-use set-up of MPI and NCCL paths
  for (int i = 0; i < repetitions; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto const t0 = std::chrono::steady_clock::now();
    once();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  // Every rank's time is the time of the slowest: the exchange ends when all have it.
  for (double& x : t) MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, devices = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  check(cudaSetDevice(rank % devices), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, rank % devices), "cudaGetDeviceProperties");

  ncclUniqueId id;
  if (rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  check(ncclCommInitRank(&comm, size, id, rank), "ncclCommInitRank");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");

  std::vector<std::size_t> const sizes{16, 1024, 64 << 10, 1 << 20, 16 << 20, 64 << 20, 256 << 20};
  std::size_t const largest = sizes.back();
  char *d_mine = nullptr, *d_all = nullptr;
  check(cudaMalloc(&d_mine, largest), "cudaMalloc");
  check(cudaMalloc(&d_all, largest * size), "cudaMalloc");
  check(cudaMemset(d_mine, 1, largest), "cudaMemset");
  std::vector<char> h_mine(largest), h_all(largest * size);

  if (rank == 0) std::printf("{\"ranks\": %d, \"device\": \"%s\", \"rows\": [", size, prop.name);
  bool first = true;
  for (std::size_t bytes : sizes) {
    int const reps = bytes >= (16u << 20) ? 5 : 50;
    double const staged_gather = median_seconds(
        [&] {
          check(cudaMemcpy(h_mine.data(), d_mine, bytes, cudaMemcpyDeviceToHost), "D2H");
          MPI_Allgather(h_mine.data(), int(bytes), MPI_BYTE, h_all.data(), int(bytes), MPI_BYTE, MPI_COMM_WORLD);
          check(cudaMemcpy(d_all, h_all.data(), bytes * size, cudaMemcpyHostToDevice), "H2D");
        },
        reps);
    double const nccl_gather = median_seconds(
        [&] {
          check(ncclAllGather(d_mine, d_all, bytes, ncclChar, comm, stream), "ncclAllGather");
          check(cudaStreamSynchronize(stream), "sync");
        },
        reps);
    std::size_t const n = bytes / sizeof(double);
    double const staged_reduce = median_seconds(
        [&] {
          check(cudaMemcpy(h_mine.data(), d_mine, bytes, cudaMemcpyDeviceToHost), "D2H");
          MPI_Allreduce(MPI_IN_PLACE, h_mine.data(), int(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
          check(cudaMemcpy(d_all, h_mine.data(), bytes, cudaMemcpyHostToDevice), "H2D");
        },
        reps);
    double const nccl_reduce = median_seconds(
        [&] {
          check(ncclAllReduce(d_mine, d_all, n, ncclDouble, ncclSum, comm, stream), "ncclAllReduce");
          check(cudaStreamSynchronize(stream), "sync");
        },
        reps);
    if (rank == 0) {
      std::printf("%s\n {\"op\": \"all_gather\", \"bytes_per_rank\": %zu, \"host_mpi_s\": %.9g, \"nccl_s\": %.9g},",
                  first ? "" : "", bytes, staged_gather, nccl_gather);
      std::printf("\n {\"op\": \"all_reduce\", \"bytes_per_rank\": %zu, \"host_mpi_s\": %.9g, \"nccl_s\": %.9g}%s",
                  bytes, staged_reduce, nccl_reduce, bytes == largest ? "" : ",");
      first = false;
    }
  }
  if (rank == 0) std::printf("\n]}\n");
  ncclCommDestroy(comm);
  cudaFree(d_mine);
  cudaFree(d_all);
  MPI_Finalize();
  return 0;
}
