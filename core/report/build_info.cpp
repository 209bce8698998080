#include "parity/report/build_info.hpp"

namespace parity::report {

BuildInfo build_info() {
  static char const commit[] =
#include "git_commit.inc"
      ;
  return {PARITY_VERSION, commit, PARITY_BUILD_TYPE, PARITY_CXX_COMPILER, PARITY_CXX_FLAGS};
}

}  // namespace parity::report
