#pragma once
// How a long-running solver tells the user where it is. Solvers call it from host code between
// kernels; the CLI prints lines, tests and benchmarks pass a silent one.
#include <string>

namespace parity::run {

struct ProgressLine {
  std::string stage;  // e.g. "value iteration"
  long iteration = 0;
  double residual = -1.0;  // < 0: not applicable
  double elapsed_seconds = 0.0;
  std::string detail;  // free text, e.g. coefficients
  long total = 0;  // > 0: the iterations the stage takes at most (percent and ETA)
  double target = -1.0;  // > 0: the residual at which the stage stops (its tolerance)
};

class Progress {
 public:
  virtual ~Progress() = default;
  virtual void update(ProgressLine const& line) = 0;
  virtual void message(std::string const& text) = 0;
};

class SilentProgress final : public Progress {
 public:
  void update(ProgressLine const&) override {}
  void message(std::string const&) override {}
};

}  // namespace parity::run
