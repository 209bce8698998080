// Kokkos lifetime and backend facts for this executable's execution space.
#include <cstdlib>
#include <fstream>
#include <string>

#include "backends/execution_space.hpp"
#if defined(KOKKOS_ENABLE_OPENMP)
#include <OpenMP/Kokkos_OpenMP_Instance.hpp>
#endif
#include "parity/run/backend_info.hpp"
#include "parity/run/memory_use.hpp"
#include "parity/run/ranks.hpp"

namespace parity::run {
namespace {

std::string host_cpu_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      auto const colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown host CPU";
}

std::string env_or(char const* name, char const* fallback) {
  char const* v = std::getenv(name);
  return v ? v : fallback;
}

std::string kernel_compiler() {
#if defined(__CUDACC__)
  return "nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + " (host " +
         std::string(__VERSION__) + ")";
#elif defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "g++ " __VERSION__;
#else
  return "unknown";
#endif
}

#if defined(PARITY_BACKEND_CUDA)
// Kokkos' first parallel_scan in a CUDA process spends about 5 ms before its kernels start (an
// H200: perf/results/startup-h200), inside whichever phase times it; later scans take tens of
// microseconds. One scan and one reduction of a single element here pay that set-up at start-up.
void warm_up_dispatches() {
  using Policy = Kokkos::RangePolicy<backend::ExecutionSpace>;
  long total = 0;
  Kokkos::parallel_scan(
      "parity::run::warm_up_scan", Policy(0, 1), KOKKOS_LAMBDA(int, long& sum, bool) { sum += 1; });
  // Into a host scalar: the reduction, and the scan before it, are done when it returns.
  Kokkos::parallel_reduce(
      "parity::run::warm_up_reduce", Policy(0, 1), KOKKOS_LAMBDA(int, long& sum) { sum += 1; }, total);
}
#endif

}  // namespace

Session::Session(int num_threads, int device_id) {
  auto settings = Kokkos::InitializationSettings();
  if (num_threads > 0) settings.set_num_threads(num_threads);
#if defined(PARITY_BACKEND_CUDA)
  // Several ranks: each takes the GPU of its node-local rank unless --device-id names one.
  int devices = 0;
  if (device_id < 0 && run::ranks::size() > 1 && cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0)
    device_id = run::ranks::node_rank() % devices;
#endif
  if (device_id >= 0) settings.set_device_id(device_id);
  Kokkos::initialize(settings);
  track_memory();
#if defined(PARITY_BACKEND_CUDA)
  warm_up_dispatches();
#endif
}

Session::~Session() { Kokkos::finalize(); }

void prepare_process() {
#if defined(PARITY_BACKEND_CUDA)
  // CUDA's lazy loading loads a kernel's module at its first launch, inside the phase that times
  // it (tens of ms on a short run). A value the user set is kept.
  ::setenv("CUDA_MODULE_LOADING", "EAGER", 0);
#endif
}

BackendLimits backend_limits() {
  BackendLimits limits;
#if defined(PARITY_BACKEND_NAME)
  limits.backend = PARITY_BACKEND_NAME;
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  // Kokkos' OpenMP backend keeps one team record per thread in a fixed array of this size: more
  // threads hang or crash it.
  limits.max_threads = Kokkos::Impl::OpenMPTraits::MAX_THREAD_COUNT;
#endif
  return limits;
}

BackendInfo describe_backend() {
  using Exec = backend::ExecutionSpace;
  BackendInfo info;
#if defined(PARITY_BACKEND_NAME)
  info.backend = PARITY_BACKEND_NAME;
#endif
  info.execution_space = Exec::name();
  info.kokkos_version = std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
                        "." + std::to_string(KOKKOS_VERSION % 100);
  info.concurrency = Exec().concurrency();
  info.compiler = kernel_compiler();
#if defined(PARITY_KERNEL_FLAGS)
  info.compiler_flags = PARITY_KERNEL_FLAGS;
  info.kokkos_arch = PARITY_KOKKOS_ARCH;
  info.kokkos_options = PARITY_KOKKOS_OPTIONS;
#endif
#if defined(NDEBUG)
  info.build_type = "optimized";
#else
  info.build_type = "debug";
#endif
  info.host_name = host_cpu_name();
  info.thread_binding =
      "OMP_PROC_BIND=" + env_or("OMP_PROC_BIND", "(unset)") + " OMP_PLACES=" + env_or("OMP_PLACES", "(unset)");
#if defined(PARITY_BACKEND_CUDA)
  auto const& prop = Exec().cuda_device_prop();
  info.device_name = prop.name;
  info.device_memory_bytes = prop.totalGlobalMem;
#else
  info.device_name = info.host_name;
#endif
  return info;
}

}  // namespace parity::run
