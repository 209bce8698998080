// Peak memory of a run: Kokkos allocation events per memory space, and the process's VmHWM.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>

#include "backends/execution_space.hpp"
#include "parity/run/memory_use.hpp"

namespace parity::run {
namespace {

struct Held {
  std::size_t now = 0, peak = 0;
};

// Allocations come from host threads only, rarely: a mutex costs nothing measurable.
std::mutex counts_mutex;
std::map<std::string, Held> counts;
Kokkos::Tools::Experimental::EventSet previous{};
bool tracking = false;

std::string space_name(Kokkos_Profiling_SpaceHandle const& h) { return std::string(h.name, strnlen(h.name, 64)); }

void on_allocate(Kokkos_Profiling_SpaceHandle handle, char const* label, void const* ptr, std::uint64_t size) {
  {
    std::lock_guard lock(counts_mutex);
    auto& h = counts[space_name(handle)];
    h.now += size;
    if (h.now > h.peak) h.peak = h.now;
  }
  if (previous.allocate_data) previous.allocate_data(handle, label, ptr, size);
}

void on_deallocate(Kokkos_Profiling_SpaceHandle handle, char const* label, void const* ptr, std::uint64_t size) {
  {
    std::lock_guard lock(counts_mutex);
    auto& h = counts[space_name(handle)];
    h.now = h.now >= size ? h.now - size : 0;
  }
  if (previous.deallocate_data) previous.deallocate_data(handle, label, ptr, size);
}

// Linux: writing 5 to clear_refs resets VmHWM to the current resident set.
bool reset_host_peak() {
  std::ofstream f("/proc/self/clear_refs");
  if (!f) return false;
  f << "5";
  f.flush();
  return bool(f);
}

std::size_t host_peak_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;  // kB
  return 0;
}

bool host_peak_was_reset = false;

}  // namespace

void track_memory() {
  if (tracking) return;
  previous = Kokkos::Tools::Experimental::get_callbacks();
  Kokkos::Tools::Experimental::set_allocate_data_callback(&on_allocate);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(&on_deallocate);
  tracking = true;
}

void reset_memory_peaks() {
  {
    std::lock_guard lock(counts_mutex);
    for (auto& [name, h] : counts) h.peak = h.now;
  }
  host_peak_was_reset = reset_host_peak();
}

MemoryUse memory_use() {
  MemoryUse m;
  m.host_peak_resident_bytes = host_peak_bytes();
  m.host_peak_since_reset = host_peak_was_reset;
  std::lock_guard lock(counts_mutex);
  for (auto const& [name, h] : counts) m.kokkos_peak_bytes[name] = h.peak;
  auto const own = counts.find(backend::MemorySpace::name());
  m.device_peak_bytes = own == counts.end() ? 0 : own->second.peak;
  return m;
}

}  // namespace parity::run
