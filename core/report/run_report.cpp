#include "parity/report/run_report.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "parity/report/build_info.hpp"
#include "parity/report/output_files.hpp"

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

nlohmann::json to_json(RunReport const& r) {
  auto const build = build_info();
  nlohmann::json phases = nlohmann::json::object();
  for (auto const& p : r.phases.phases()) phases[p.name] = {{"seconds", p.seconds}, {"calls", p.calls}};
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
          {"iterations", r.iterations},
          {"status", r.status},
          {"results", r.results}};
}

void write_json(std::string const& path, nlohmann::json const& doc) { write_file_atomic(path, doc.dump(2) + "\n"); }

}  // namespace parity::report
