#pragma once
// Plain data of the roofline probes (Kokkos-free).
#include <cstdint>

namespace parity::probe {

struct Sizes {
  std::int64_t copy_elements;  // doubles per array in the copy probe
  std::int64_t fma_threads;  // work items in the FMA probe
  int fma_iterations;  // iterations per work item (8 FMAs each)
  int repetitions;  // best of, after one warm-up
};

struct Result {
  double copy_bytes_per_second = 0;  // (read + write) bytes / s
  double fp32_flops = 0;  // FLOP/s, an FMA counted as 2
  double fp64_flops = 0;
  double checksum = 0;  // keeps the compiler from removing the work
};

}  // namespace parity::probe
