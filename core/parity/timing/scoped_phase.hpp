#pragma once
// Fenced timing of one phase: fence, start the clock, run, fence, stop. Also a Kokkos Tools
// region, so profiles read "parity::<model>::<phase>".
#include <Kokkos_Core.hpp>
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

}  // namespace parity::timing
