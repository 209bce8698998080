#pragma once
// The options integrate_family and integrate_vector refuse: both run integrate()'s improved phase 1
// on one region list, in device memory, on one rank.
#include <string>

#include "parity/cubature/options.hpp"

namespace parity::cubature::detail {

// Throws InvalidInput naming `engine` (and `instead`, what runs the option) for the paper mode,
// parking in host memory and several ranks.
inline void require_one_list(std::string const& engine, Options const& opt, std::string const& instead) {
  require(opt.mode == Mode::improved, engine + " runs the improved mode only, not the paper mode" + instead);
  require(opt.max_host_memory_mb == 0,
          engine + " does not park regions in host memory (max host memory must be 0)" + instead);
  require(!opt.ranks.several(), engine + " runs on one rank" + instead);
}

}  // namespace parity::cubature::detail
