#pragma once
// A run::Progress that keeps every line it is given, for tests of what an engine reports.
#include <string>
#include <vector>

#include "parity/run/progress.hpp"

namespace parity::test {

struct RecordedProgress final : parity::run::Progress {
  std::vector<parity::run::ProgressLine> lines;
  void update(parity::run::ProgressLine const& line) override { lines.push_back(line); }
  void message(std::string const&) override {}
};

}  // namespace parity::test
