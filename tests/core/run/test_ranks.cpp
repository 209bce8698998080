// run::ranks in a process not started by mpirun: one rank, and the collectives are identities
// (the multi-rank behaviour is tested through mpirun, tests/run/test_ranks.py).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "parity/run/ranks.hpp"

namespace parity_test_ranks {

namespace ranks = parity::run::ranks;

TEST(Ranks, WithoutALauncherThereIsOneRank) {
  EXPECT_EQ(ranks::size(), 1);
  EXPECT_EQ(ranks::rank(), 0);
  EXPECT_EQ(ranks::node_rank(), 0);
  EXPECT_TRUE(ranks::root());
}

TEST(Ranks, OneRankCollectivesAreIdentities) {
  std::vector<double> const mine{1.5, -2.0, 3.25};
  std::vector<double> all(3, 0.0);
  ranks::all_gather(mine, all);
  EXPECT_EQ(all, mine);
  std::vector<double> v = mine;
  ranks::sum_in_rank_order(v);
  EXPECT_EQ(v, mine);
  std::vector<std::int64_t> counts{7, 0, -3};
  ranks::sum(counts);
  EXPECT_EQ(counts, (std::vector<std::int64_t>{7, 0, -3}));
  EXPECT_EQ(ranks::max(2.5), 2.5);
  EXPECT_EQ(ranks::min(-1.0), -1.0);
  EXPECT_EQ(ranks::communication_seconds(), 0.0);
}

TEST(Ranks, AllGatherRefusesAWrongOutputSize) {
  std::vector<double> const mine{1, 2};
  std::vector<double> all(3);
  EXPECT_THROW(ranks::all_gather(mine, all), std::logic_error);
}

}  // namespace parity_test_ranks
