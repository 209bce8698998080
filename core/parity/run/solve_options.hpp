#pragma once
// What every engine's and model's entry point takes last, defaulted: where it reports progress,
// where it records phase times, and the ranks it runs on. Engines and models whose solve needs
// more derive their Options from it. With null phases the dp and cubature engines add no fences
// for phases; the models and the SDE engines, whose phases fence between their stages, time them
// into a record of their own. Kokkos-free.
#include "parity/run/communicator.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"

namespace parity::run {

struct SolveOptions {
  Progress* progress = nullptr;  // a line per iteration or sample; null: silent
  PhaseTimes* phases = nullptr;  // fenced seconds per phase; null: not recorded (see above)
  Communicator ranks;  // the ranks the work is split over; default: one
};

}  // namespace parity::run
