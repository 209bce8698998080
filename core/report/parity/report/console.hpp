#pragma once
// Human-readable output: progress lines on stderr (rate-limited), summaries on stdout.
#include <chrono>
#include <string>

#include "parity/run/backend_info.hpp"
#include "parity/run/progress.hpp"

namespace parity::report {

class ConsoleProgress final : public run::Progress {
 public:
  // Prints at most one line per `min_interval_seconds` (the first and forced lines always).
  explicit ConsoleProgress(double min_interval_seconds = 0.5) : min_interval_(min_interval_seconds) {}
  void update(run::ProgressLine const& line) override;
  void message(std::string const& text) override;

 private:
  double min_interval_;
  std::chrono::steady_clock::time_point last_{};
  bool printed_ = false;
};

std::string describe(run::BackendInfo const& info);

}  // namespace parity::report
