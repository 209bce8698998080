#include "parity/report/console.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "parity/report/build_info.hpp"

namespace parity::report {

namespace {

std::string duration_text(double seconds) {
  if (!(seconds >= 0) || seconds > 1e8) return "?";
  long const t = long(seconds + 0.5);
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}h{:02}m", t / 3600, t / 60 % 60);
}

}  // namespace

std::string progress_text(run::ProgressLine const& line) {
  std::string text = fmt::format("[{}] iter {:>6}", line.stage, line.iteration);
  if (line.total > 0) {
    double const fraction = std::min(1.0, double(line.iteration) / double(line.total));
    text += fmt::format("/{} {:5.1f}%", line.total, 100 * fraction);
    if (fraction > 0 && fraction < 1 && line.elapsed_seconds > 0)
      text += " ETA " + duration_text(line.elapsed_seconds * (1 - fraction) / fraction);
  }
  if (line.residual >= 0) {
    text += fmt::format("  residual {:.3e}", line.residual);
    if (line.target > 0) text += fmt::format(" (target {:.3e})", line.target);
  }
  text += fmt::format("  elapsed {:8.2f} s", line.elapsed_seconds);
  if (!line.detail.empty()) text += "  " + line.detail;
  return text;
}

ConsoleProgress::ConsoleProgress(double min_interval_seconds)
    : ConsoleProgress(min_interval_seconds, ::isatty(::fileno(stderr)) == 1, stderr) {}

ConsoleProgress::ConsoleProgress(double min_interval_seconds, bool terminal, std::FILE* out)
    : min_interval_(min_interval_seconds), terminal_(terminal), out_(out) {}

ConsoleProgress::~ConsoleProgress() { end_bar(); }

void ConsoleProgress::end_bar() {
  if (!bar_open_) return;
  std::fputc('\n', out_);
  std::fflush(out_);
  bar_open_ = false;
}

void ConsoleProgress::update(run::ProgressLine const& line) {
  auto const now = std::chrono::steady_clock::now();
  bool const new_stage = line.stage != last_stage_;
  bool const last_step = line.total > 0 && line.iteration >= line.total;
  if (printed_ && !new_stage && !last_step && std::chrono::duration<double>(now - last_).count() < min_interval_)
    return;
  printed_ = true;
  last_ = now;
  if (new_stage) end_bar();
  last_stage_ = line.stage;
  std::string const text = progress_text(line);
  if (terminal_ && line.total > 0) {
    // One line redrawn in place: a bar of 20 cells, then the text; \x1b[K clears what is left of
    // a longer previous line.
    double const fraction = std::min(1.0, double(line.iteration) / double(line.total));
    int const cells = int(fraction * 20);
    std::string const bar = std::string(std::size_t(cells), '#') + std::string(std::size_t(20 - cells), '.');
    std::fprintf(out_, "\r[%s] %s\x1b[K", bar.c_str(), text.c_str());
    bar_open_ = true;
    if (last_step) end_bar();
  } else {
    end_bar();
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
}

void ConsoleProgress::message(std::string const& text) {
  end_bar();
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
}

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
