#pragma once
// What every engine's and model's entry point takes last, defaulted: where it reports progress,
// where it records phase times, and the ranks it runs on. Engines and models whose solve needs
// more derive their Options from it. Kokkos-free.
#include "parity/run/communicator.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"

namespace parity::run {

struct SolveOptions {
  Progress* progress = nullptr;  // a line per iteration or sample; null: silent
  PhaseTimes* phases = nullptr;  // fenced seconds per phase; null: no fences added for timing
  Communicator ranks;  // the ranks the work is split over; default: one
};

}  // namespace parity::run
