#include "parity/report/run_report.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "parity/report/build_info.hpp"
#include "parity/report/output_files.hpp"
#include "parity/run/ranks.hpp"

namespace parity::report {

nlohmann::json to_json(run::BackendInfo const& b) {
  return {{"backend", b.backend},
          {"execution_space", b.execution_space},
          {"kokkos_version", b.kokkos_version},
          {"concurrency", b.concurrency},
          {"device_name", b.device_name},
          {"host_name", b.host_name},
          {"device_memory_bytes", b.device_memory_bytes},
          {"kernel_compiler", b.compiler},
          {"kernel_flags", b.compiler_flags},
          {"kokkos_arch", b.kokkos_arch},
          {"kokkos_compile_options", b.kokkos_options},
          {"build_type", b.build_type},
          {"thread_binding", b.thread_binding},
          {"supports_float", b.supports_float},
          {"supports_double", b.supports_double}};
}

nlohmann::json to_json(run::MemoryUse const& m) {
  return {{"host_peak_resident_bytes", m.host_peak_resident_bytes},
          {"device_peak_bytes", m.device_peak_bytes},
          {"kokkos_peak_bytes", m.kokkos_peak_bytes},
          {"what", std::string("host: the process's peak resident set (VmHWM) ") +
                       (m.host_peak_since_reset ? "during this run" : "since the process started") +
                       "; device: the peak of live Kokkos allocations in the execution space's memory space "
                       "during this run (kokkos_peak_bytes: per memory space); the largest over ranks"}};
}

void gather_rank_times(RunReport& r) {
  auto const& phases = r.phases.phases();
  double const n = double(phases.size());
  if (run::ranks::max(n) != run::ranks::min(n))
    throw std::logic_error("gather_rank_times: the ranks timed different phases");
  std::vector<double> mine;
  for (auto const& p : phases) mine.push_back(p.seconds);
  mine.push_back(run::ranks::communication_seconds());
  int const ranks = run::ranks::size();
  std::vector<double> all(mine.size() * std::size_t(ranks));
  run::ranks::all_gather(mine, all);
  r.rank_phase_seconds.assign(phases.size(), std::vector<double>(std::size_t(ranks)));
  r.rank_communication_seconds.assign(std::size_t(ranks), 0.0);
  for (int k = 0; k < ranks; ++k) {
    for (std::size_t i = 0; i < phases.size(); ++i) r.rank_phase_seconds[i][std::size_t(k)] = all[k * mine.size() + i];
    r.rank_communication_seconds[std::size_t(k)] = all[k * mine.size() + phases.size()];
  }
  // Peaks: the largest on any rank (each rank holds its share).
  auto largest = [](std::size_t v) { return std::size_t(run::ranks::max(double(v))); };
  r.memory.host_peak_resident_bytes = largest(r.memory.host_peak_resident_bytes);
  r.memory.device_peak_bytes = largest(r.memory.device_peak_bytes);
}

nlohmann::json to_json(RunReport const& r) {
  auto const build = build_info();
  nlohmann::json phases = nlohmann::json::object();
  for (auto const& p : r.phases.phases()) phases[p.name] = {{"seconds", p.seconds}, {"calls", p.calls}};
  nlohmann::json rank_phases = nlohmann::json::object();
  bool const gathered =
      r.rank_phase_seconds.size() == r.phases.phases().size() && !r.rank_communication_seconds.empty();
  for (std::size_t i = 0; i < r.phases.phases().size(); ++i)
    rank_phases[r.phases.phases()[i].name] =
        gathered ? r.rank_phase_seconds[i] : std::vector<double>{r.phases.phases()[i].seconds};
  nlohmann::json ranks = {
      {"count", gathered ? r.rank_communication_seconds.size() : std::size_t(1)},
      {"phase_seconds", rank_phases},
      {"communication_seconds", gathered ? r.rank_communication_seconds : std::vector<double>{0.0}},
      {"device_exchange", run::ranks::device_exchange()},
      {"what",
       "wall seconds of each phase on each rank (rank order); communication: time inside the "
       "collectives between ranks, also counted in the phase it happens in; since the process started; "
       "device_exchange: device arrays exchanged device to device (NCCL) or through host memory"}};
  return {{"schema", run_report_schema},
          {"parity",
           {{"version", build.parity_version},
            {"commit", build.git_commit},
            {"build_type", build.build_type},
            {"host_compiler", build.host_compiler},
            {"host_flags", build.host_flags}}},
          {"command", r.command},
          {"model", r.model},
          {"backend", to_json(r.backend)},
          {"precision", std::string(to_string(r.precision))},
          {"parameters", r.parameters},
          {"timing", {{"what", r.timing_note}, {"phases", phases}, {"total_seconds", r.phases.total()}}},
          {"ranks", ranks},
          {"memory", to_json(r.memory)},
          {"iterations", r.iterations},
          {"status", r.status},
          {"results", r.results}};
}

void write_json(std::string const& path, nlohmann::json const& doc) { write_file(path, doc.dump(2) + "\n"); }

}  // namespace parity::report
