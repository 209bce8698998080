#pragma once
// Human-readable output: progress on stderr (rate-limited), summaries on stdout. On a terminal a
// stage with a known total is one progress bar redrawn in place; elsewhere (a log file, a pipe)
// plain lines.
#include <chrono>
#include <cstdio>
#include <string>

#include "parity/run/backend_info.hpp"
#include "parity/run/progress.hpp"

namespace parity::report {

// The text of one progress line (without the bar): stage, iteration (of total, percent and ETA
// when the total is known), residual (and its target when known), elapsed time, detail.
std::string progress_text(run::ProgressLine const& line);

class ConsoleProgress final : public run::Progress {
 public:
  // Prints at most one update per `min_interval_seconds` (the first of each stage always).
  // `terminal`: redraw one line with \r; by default whether stderr is a terminal.
  explicit ConsoleProgress(double min_interval_seconds = 0.5);
  ConsoleProgress(double min_interval_seconds, bool terminal, std::FILE* out);
  ~ConsoleProgress() override;
  void update(run::ProgressLine const& line) override;
  void message(std::string const& text) override;

 private:
  void end_bar();
  double min_interval_;
  bool terminal_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point last_{};
  std::string last_stage_;
  bool printed_ = false;
  bool bar_open_ = false;  // a bar is drawn and the cursor is still on its line
};

std::string describe(run::BackendInfo const& info);

}  // namespace parity::report
