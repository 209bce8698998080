#include <gtest/gtest.h>

#include "models/dual_control/solver.hpp"
#include "test_backend.hpp"

namespace parity_test_dual_control {
TEST(DualControl, Placeholder) { SUCCEED(); }
}  // namespace parity_test_dual_control
