#include "parity/report/console.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "parity/report/build_info.hpp"

namespace parity::report {

void ConsoleProgress::update(run::ProgressLine const& line) {
  auto const now = std::chrono::steady_clock::now();
  if (printed_ && std::chrono::duration<double>(now - last_).count() < min_interval_) return;
  printed_ = true;
  last_ = now;
  std::string text = fmt::format("[{}] iter {:>6}", line.stage, line.iteration);
  if (line.residual >= 0) text += fmt::format("  residual {:.3e}", line.residual);
  text += fmt::format("  elapsed {:8.2f} s", line.elapsed_seconds);
  if (!line.detail.empty()) text += "  " + line.detail;
  std::fprintf(stderr, "%s\n", text.c_str());
}

void ConsoleProgress::message(std::string const& text) { std::fprintf(stderr, "%s\n", text.c_str()); }

std::string describe(run::BackendInfo const& b) {
  auto const build = build_info();
  std::string out;
  out += fmt::format("backend           {}\n", b.backend);
  out += fmt::format("execution space   {}\n", b.execution_space);
  out += fmt::format("Kokkos version    {}\n", b.kokkos_version);
  out += fmt::format("concurrency       {}\n", b.concurrency);
  out += fmt::format("device            {}\n", b.device_name);
  if (b.host_name != b.device_name) out += fmt::format("host              {}\n", b.host_name);
  if (b.device_memory_bytes > 0)
    out += fmt::format("device memory     {:.1f} GiB\n", double(b.device_memory_bytes) / double(1ull << 30));
  if (!b.thread_binding.empty()) out += fmt::format("thread binding    {}\n", b.thread_binding);
  out += fmt::format("kernel compiler   {}\n", b.compiler);
  if (!b.compiler_flags.empty()) out += fmt::format("kernel flags      {}\n", b.compiler_flags);
  out += fmt::format("Kokkos arch       {}\n", b.kokkos_arch.empty() ? "(none: generic)" : b.kokkos_arch);
  if (!b.kokkos_options.empty()) out += fmt::format("Kokkos options    {}\n", b.kokkos_options);
  out += fmt::format("host compiler     {}\n", build.host_compiler);
  out += fmt::format("host flags        {}\n", build.host_flags);
  out += fmt::format("build type        {}\n", build.build_type);
  out += fmt::format("precision         float: {}, double: {}\n", b.supports_float ? "yes" : "no",
                     b.supports_double ? "yes" : "no");
  out += fmt::format("parity            {} (commit {})\n", build.parity_version, build.git_commit);
  return out;
}

}  // namespace parity::report
