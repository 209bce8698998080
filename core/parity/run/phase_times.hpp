#pragma once
// Accumulated wall-clock seconds per named phase of a solve, in first-seen order.
#include <string>
#include <vector>

namespace parity::run {

struct Phase {
  std::string name;
  double seconds = 0.0;
  long calls = 0;
};

class PhaseTimes {
 public:
  void add(std::string const& name, double seconds) {
    for (auto& p : phases_)
      if (p.name == name) {
        p.seconds += seconds;
        ++p.calls;
        return;
      }
    phases_.push_back({name, seconds, 1});
  }
  double seconds(std::string const& name) const {
    for (auto const& p : phases_)
      if (p.name == name) return p.seconds;
    return 0.0;
  }
  double total() const {
    double t = 0;
    for (auto const& p : phases_) t += p.seconds;
    return t;
  }
  std::vector<Phase> const& phases() const { return phases_; }

 private:
  std::vector<Phase> phases_;
};

}  // namespace parity::run
