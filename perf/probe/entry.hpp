#pragma once
// Kokkos-free entry to the probes; defined once per backend (backends/models/probe.cpp).
#include "perf/probe/types.hpp"

namespace parity::probe {

Result run(Sizes const& sizes);

}  // namespace parity::probe
