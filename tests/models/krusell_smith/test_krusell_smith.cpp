#include <gtest/gtest.h>

#include "models/krusell_smith/calibration.hpp"

namespace parity_test_krusell_smith {

TEST(KrusellSmith, Placeholder) { EXPECT_TRUE(true); }

}  // namespace parity_test_krusell_smith
