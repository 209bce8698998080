// A Kokkos Tools library that writes the host's timestamps of every dispatch, fence, allocation
// and copy, to see where a run's host time goes between kernels (a first launch's set-up, waits,
// allocations). Build and use, beside any Parity executable:
//   g++ -O2 -std=c++17 -shared -fPIC -o dispatch_trace.so perf/tools/dispatch_trace.cpp
//   KOKKOS_TOOLS_LIBS=$PWD/dispatch_trace.so DISPATCH_TRACE=trace.txt parity-cuda cubature ...
// One line per event: microseconds since the library loaded, a kind letter (F/f, R/r, S/s: a
// parallel for, reduce or scan begins/ends; W/w a fence; A/D an allocation/deallocation with its
// bytes; C/c a deep copy; P/p a profiling region), the bytes (0 where none) and the name.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Event {
  double microseconds;
  char kind;
  std::uint64_t bytes;
  std::string name;
};

std::vector<Event> events;
auto const start = std::chrono::steady_clock::now();
std::uint64_t next_id = 0;

void record(char kind, std::string name, std::uint64_t bytes = 0) {
  double const t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  events.push_back({t, kind, bytes, std::move(name)});
}

// A dispatch or fence begins: its id for the matching end, and its event.
void begin(char kind, char const* name, std::uint64_t* id) {
  *id = next_id++;
  record(kind, name);
}

}  // namespace

// The Kokkos Tools interface (Kokkos_Profiling_C_Interface.h), declared here so the library
// builds without Kokkos.
struct SpaceHandle {
  char name[64];
};

extern "C" {
void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) { events.reserve(1 << 20); }
void kokkosp_finalize_library() {
  char const* path = std::getenv("DISPATCH_TRACE");
  std::FILE* out = std::fopen(path ? path : "dispatch_trace.txt", "w");
  if (!out) return;
  for (auto const& e : events)
    std::fprintf(out, "%.1f %c %llu %s\n", e.microseconds, e.kind, static_cast<unsigned long long>(e.bytes),
                 e.name.c_str());
  std::fclose(out);
}
void kokkosp_begin_parallel_for(char const* name, std::uint32_t, std::uint64_t* id) { begin('F', name, id); }
void kokkosp_end_parallel_for(std::uint64_t) { record('f', ""); }
void kokkosp_begin_parallel_reduce(char const* name, std::uint32_t, std::uint64_t* id) { begin('R', name, id); }
void kokkosp_end_parallel_reduce(std::uint64_t) { record('r', ""); }
void kokkosp_begin_parallel_scan(char const* name, std::uint32_t, std::uint64_t* id) { begin('S', name, id); }
void kokkosp_end_parallel_scan(std::uint64_t) { record('s', ""); }
void kokkosp_begin_fence(char const* name, std::uint32_t, std::uint64_t* id) { begin('W', name, id); }
void kokkosp_end_fence(std::uint64_t) { record('w', ""); }
void kokkosp_allocate_data(SpaceHandle space, char const* name, void const*, std::uint64_t bytes) {
  record('A', std::string(space.name) + ":" + name, bytes);
}
void kokkosp_deallocate_data(SpaceHandle space, char const* name, void const*, std::uint64_t bytes) {
  record('D', std::string(space.name) + ":" + name, bytes);
}
void kokkosp_begin_deep_copy(SpaceHandle, char const* to, void const*, SpaceHandle, char const* from, void const*,
                             std::uint64_t bytes) {
  record('C', std::string(to) + " <- " + from, bytes);
}
void kokkosp_end_deep_copy() { record('c', ""); }
void kokkosp_push_profile_region(char const* name) { record('P', name); }
void kokkosp_pop_profile_region() { record('p', ""); }
}
