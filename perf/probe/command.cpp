#include "perf/probe/command.hpp"

#include <chrono>

#include <fmt/format.h>

#include "parity/run/errors.hpp"
#include "perf/probe/entry.hpp"

namespace parity::probe {
namespace {

Sizes sizes_for(std::string const& size) {
  if (size == "tiny") return {1 << 20, 1 << 12, 256, 2};
  if (size == "small") return {1 << 24, 1 << 16, 1024, 3};
  return {std::int64_t(1) << 27, 1 << 22, 2048, 5};  // full: 1 GiB per copy array
}

class Command final : public cli::Command {
 public:
  std::string name() const override { return "probe"; }
  std::string description() const override {
    return "Measure copy bandwidth and FP32/FP64 FMA rates with Kokkos kernels (roofline bounds)";
  }
  void add_options(CLI::App& sub) override {
    sub.add_option("--size", size_, "tiny, small or full (1 GiB copy arrays; for GPUs)")
        ->check(CLI::IsMember({"tiny", "small", "full"}))
        ->capture_default_str();
  }
  // The probes write no arrays (--precision is accepted for the comparison runner; they measure both).
  bool writes_arrays() const override { return false; }
  report::RunReport execute(cli::Context& context) override { return measure_report(context, sizes_for(size_), size_); }
  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    return size == cli::Size::small ? measure_report(context, sizes_for("tiny"), "tiny")
                                    : measure_report(context, sizes_for("small"), "small");
  }
  std::string summarize(report::RunReport const& r) const override {
    return fmt::format("copy {:.1f} GB/s, fp32 {:.1f} GFLOP/s, fp64 {:.1f} GFLOP/s",
                       r.results["copy_GBps"].get<double>(), r.results["fp32_GFLOPs"].get<double>(),
                       r.results["fp64_GFLOPs"].get<double>());
  }

 private:
  static report::RunReport measure_report(cli::Context& context, Sizes const& s, std::string const& label) {
    // Two copy arrays of doubles.
    cli::require_memory(context, 2.0 * 8 * double(s.copy_elements), 0, "probe --size " + label);
    context.progress.message(
        fmt::format("probe: copy of {} and FMA chains of {} threads x {} iterations, best of {} "
                    "(one result line when done)",
                    cli::format_bytes(8.0 * double(s.copy_elements)), s.fma_threads, s.fma_iterations, s.repetitions));
    report::RunReport r;
    r.model = "probe";
    r.timing_note = "best of `repetitions` fenced kernel launches after one warm-up, per probe";
    r.parameters = {{"size", label},
                    {"copy_elements", s.copy_elements},
                    {"fma_threads", s.fma_threads},
                    {"fma_iterations", s.fma_iterations},
                    {"repetitions", s.repetitions}};
    auto const start = std::chrono::steady_clock::now();
    auto const m = run(s);  // fences internally
    r.status = cli::status::ok;
    r.phases.add("probe", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    r.results = {{"copy_GBps", m.copy_bytes_per_second * 1e-9},
                 {"fp32_GFLOPs", m.fp32_flops * 1e-9},
                 {"fp64_GFLOPs", m.fp64_flops * 1e-9},
                 {"checksum", m.checksum}};
    return r;
  }
  std::string size_ = "small";
};

}  // namespace

std::unique_ptr<cli::Command> make_command() { return std::make_unique<Command>(); }

}  // namespace parity::probe
