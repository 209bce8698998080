#include "perf/probe/probe.hpp"
#include "backends/execution_space.hpp"
#include "perf/probe/entry.hpp"

namespace parity::probe {

Result run(Sizes const& sizes) { return measure(backend::ExecutionSpace(), sizes); }

}  // namespace parity::probe
