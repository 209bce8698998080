#pragma once
// Fenced timing of one phase: fence, start the clock, run, fence, stop. Also a Kokkos Tools
// region, so profiles read "parity::<model>::<phase>".
#include <Kokkos_Core.hpp>
#include <optional>
#include <string>

#include "parity/run/phase_times.hpp"

namespace parity::timing {

template <class ExecutionSpace>
class ScopedPhase {
 public:
  ScopedPhase(ExecutionSpace const& space, run::PhaseTimes& times, std::string name)
      : space_(space), times_(times), name_(std::move(name)) {
    space_.fence("parity::timing::phase_begin");
    Kokkos::Profiling::pushRegion(name_);
    timer_.reset();
  }
  ~ScopedPhase() {
    space_.fence("parity::timing::phase_end");
    times_.add(name_, timer_.seconds());
    Kokkos::Profiling::popRegion();
  }
  ScopedPhase(ScopedPhase const&) = delete;
  ScopedPhase& operator=(ScopedPhase const&) = delete;

 private:
  ExecutionSpace space_;
  run::PhaseTimes& times_;
  std::string name_;
  Kokkos::Timer timer_;
};

// For library entry points that take an optional timer: with a PhaseTimes, a ScopedPhase (fenced
// and timed); without one (null), only the Kokkos Tools region, so no fences are added.
template <class ExecutionSpace>
class OptionalPhase {
 public:
  OptionalPhase(ExecutionSpace const& space, run::PhaseTimes* times, std::string name) {
    if (times)
      timed_.emplace(space, *times, std::move(name));
    else
      Kokkos::Profiling::pushRegion(name);
  }
  ~OptionalPhase() {
    if (!timed_) Kokkos::Profiling::popRegion();
  }
  OptionalPhase(OptionalPhase const&) = delete;
  OptionalPhase& operator=(OptionalPhase const&) = delete;

 private:
  std::optional<ScopedPhase<ExecutionSpace>> timed_;
};

}  // namespace parity::timing
