#pragma once
// Facts about this build, fixed at compile time.
#include <string>

namespace parity::report {

struct BuildInfo {
  std::string parity_version;
  std::string git_commit;
  std::string build_type;
  std::string host_compiler;
  std::string host_flags;
};

BuildInfo build_info();

}  // namespace parity::report
