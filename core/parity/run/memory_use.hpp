#pragma once
// Peak memory of a run, for every run report (the papers Parity reproduces report it beside
// their timings). Filled in by backends/ (the only Kokkos-aware place): the process's peak
// resident set and, per Kokkos memory space, the peak of the bytes held in live Kokkos
// allocations (views, scratch pools of Parity's own code) between reset_memory_peaks() and the
// query. Kokkos' internal buffers that bypass its allocation records are not counted.
#include <cstddef>
#include <map>
#include <string>

namespace parity::run {

struct MemoryUse {
  // Peak resident set of the process (VmHWM) since the peaks were reset, or since the process
  // started where the kernel does not let it be reset; 0 when unknown.
  std::size_t host_peak_resident_bytes = 0;
  bool host_peak_since_reset = false;
  // Memory space name (Kokkos' SpaceHandle, e.g. "Host", "Cuda") -> peak bytes of live allocations.
  std::map<std::string, std::size_t> kokkos_peak_bytes;
  // The peak in the execution space's own memory space (the GPU's on CUDA, the host's otherwise).
  std::size_t device_peak_bytes = 0;
};

}  // namespace parity::run

namespace parity::run {

// Defined per backend. track_memory() starts counting Kokkos allocations (after Kokkos starts;
// a Kokkos tool loaded through KOKKOS_TOOLS_LIBS still receives every event);
// reset_memory_peaks() makes the current holdings the new peaks; memory_use() reads them.
void track_memory();
void reset_memory_peaks();
MemoryUse memory_use();

}  // namespace parity::run
