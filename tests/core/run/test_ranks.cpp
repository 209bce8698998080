// run::ranks in a process not started by mpirun: one rank, the collectives are identities, and
// communicator() hands them to the engines (the multi-rank behaviour is tested through mpirun,
// tests/run/test_ranks.py).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "parity/run/errors.hpp"
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

TEST(Ranks, ProcessCommunicatorIsOneRank) {
  parity::run::Communicator const c = ranks::communicator();
  EXPECT_EQ(c.rank, 0);
  EXPECT_EQ(c.size, 1);
  EXPECT_NO_THROW(c.validate());
  std::vector<double> const mine{0.25, 4.0};
  std::vector<double> all(2, 0.0);
  c.all_gather(mine, all);
  EXPECT_EQ(all, mine);
  EXPECT_EQ(c.max(3.0), 3.0);
  // Its hooks reach run::ranks' collectives, which are identities on one rank too.
  ASSERT_TRUE(c.collectives.all_gather && c.collectives.sum_in_rank_order && c.collectives.sum && c.collectives.max &&
              c.collectives.min);
  std::vector<std::int64_t> counts{5, -2};
  c.collectives.sum(counts);
  EXPECT_EQ(counts, (std::vector<std::int64_t>{5, -2}));
  EXPECT_EQ(c.collectives.min(-7.5), -7.5);
}

// One rank never exchanges device memory; PARITY_EXCHANGE chooses between host and device
// exchanges on several ranks and refuses anything else.
TEST(Ranks, OneRankHasNoDeviceExchange) {
  EXPECT_STREQ(ranks::device_exchange(), "host");
  EXPECT_FALSE(ranks::communicator().collectives.all_gather_in_place);
  double data[2] = {1, 2};
  EXPECT_NO_THROW(ranks::all_gather_in_place(data, 2, sizeof(double)));
  EXPECT_NO_THROW(ranks::start_device_exchange());  // nothing to set up
  ::setenv("PARITY_EXCHANGE", "device", 1);
  EXPECT_STREQ(ranks::device_exchange(), "host");
  ::setenv("PARITY_EXCHANGE", "gpu", 1);
  EXPECT_STREQ(ranks::device_exchange(), "host");  // a report may still name it ...
  EXPECT_THROW(ranks::communicator(), parity::InvalidInput);  // ... but no engine starts with it
  ::unsetenv("PARITY_EXCHANGE");
  EXPECT_NO_THROW(ranks::communicator());
}

TEST(Ranks, AllGatherRefusesAWrongOutputSize) {
  std::vector<double> const mine{1, 2};
  std::vector<double> all(3);
  EXPECT_THROW(ranks::all_gather(mine, all), std::logic_error);
}

}  // namespace parity_test_ranks
