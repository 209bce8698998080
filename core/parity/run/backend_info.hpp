#pragma once
// What a backend executable runs on; filled in by backends/ (the only Kokkos-aware place that
// knows the execution space), printed by `info` and written into every run report.
#include <cstddef>
#include <string>

namespace parity::run {

struct BackendInfo {
  std::string backend;  // serial | openmp | cuda
  std::string execution_space;  // Kokkos' name, e.g. "OpenMP"
  std::string kokkos_version;  // e.g. "4.6.99"
  int concurrency = 0;  // threads (host) or resident threads (device)
  std::string device_name;  // host CPU model or GPU name
  std::string host_name;  // host CPU model (also for GPU backends)
  std::size_t device_memory_bytes = 0;
  std::string compiler;  // compiler of the kernels
  std::string compiler_flags;  // flags of the kernels' translation units (CMake's, not Kokkos' own)
  std::string kokkos_arch;  // Kokkos_ARCH the Kokkos was built for (empty: none, i.e. generic)
  std::string kokkos_options;  // Kokkos' compile options passed to every kernel translation unit
  std::string build_type;
  std::string thread_binding;  // OMP_PROC_BIND / OMP_PLACES as seen, for host backends
  bool supports_float = true;
  bool supports_double = true;
};

// Kokkos lifetime for one command; defined per backend. Views must not outlive it.
class Session {
 public:
  explicit Session(int num_threads = -1, int device_id = -1);
  ~Session();
  Session(Session const&) = delete;
  Session& operator=(Session const&) = delete;
};

BackendInfo describe_backend();

// Facts known before Kokkos starts, for checking --threads and printing --version.
struct BackendLimits {
  std::string backend;  // serial | openmp | cuda
  int max_threads = 0;  // the most host threads the backend can run (0: it takes no thread count)
};
BackendLimits backend_limits();

// Sets up the process for the backend before anything starts it (MPI may): on CUDA, every kernel
// is loaded when the context is created, so no module loads inside a timed phase.
void prepare_process();

}  // namespace parity::run
