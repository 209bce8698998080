// run::Communicator: one rank by default (identities, no hooks), the shares of n items over the
// ranks, and several ranks calling their hooks (across processes: tests/run/test_ranks.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "parity/run/communicator.hpp"
#include "parity/run/errors.hpp"

namespace parity_test_communicator {

using parity::run::Communicator;

TEST(Communicator, DefaultIsOneRankWithIdentities) {
  Communicator const c;
  EXPECT_EQ(c.rank, 0);
  EXPECT_EQ(c.size, 1);
  EXPECT_FALSE(c.several());
  EXPECT_TRUE(c.root());
  EXPECT_NO_THROW(c.validate());
  std::vector<double> const mine{1.5, -2.0, 3.25};
  std::vector<double> all(3, 0.0);
  c.all_gather(mine, all);
  EXPECT_EQ(all, mine);
  std::vector<double> v = mine;
  c.sum_in_rank_order(v);
  EXPECT_EQ(v, mine);
  std::vector<std::int64_t> counts{7, 0, -3};
  c.sum(counts);
  EXPECT_EQ(counts, (std::vector<std::int64_t>{7, 0, -3}));
  EXPECT_EQ(c.max(2.5), 2.5);
  EXPECT_EQ(c.min(-1.0), -1.0);
  std::vector<double> wrong(2);
  EXPECT_THROW(c.all_gather(mine, wrong), std::logic_error);
}

// The shares are contiguous, in rank order, cover [0, n) once and differ in length by at most one.
TEST(Communicator, SharesCoverTheItemsOnce) {
  for (int size = 1; size <= 7; ++size) {
    for (std::int64_t n : {0, 1, 5, 6, 7, 100, 1001}) {
      std::int64_t next = 0, shortest = n, longest = 0;
      for (int k = 0; k < size; ++k) {
        Communicator c;
        c.rank = k, c.size = size;
        EXPECT_EQ(c.first(n), next) << size << " " << n << " " << k;
        EXPECT_EQ(c.first(n), c.begin(n, k));
        EXPECT_EQ(c.last(n), c.begin(n, k + 1));
        std::int64_t const length = c.last(n) - c.first(n);
        shortest = std::min(shortest, length), longest = std::max(longest, length);
        next = c.last(n);
      }
      EXPECT_EQ(next, n) << size << " " << n;
      EXPECT_LE(longest - shortest, 1) << size << " " << n;
    }
  }
  Communicator c;
  c.rank = 2, c.size = 3;
  EXPECT_EQ(c.first(10), 6);  // 10 * 2 / 3
  EXPECT_EQ(c.last(10), 10);
}

TEST(Communicator, SeveralRanksCallTheirHooks) {
  Communicator c;
  c.rank = 1, c.size = 2;
  std::vector<std::string> calls;
  c.collectives.all_gather = [&](std::span<double const> mine, std::span<double> all) {
    calls.push_back("all_gather");
    all[0] = -1, all[1] = mine[0];  // rank 0 holds -1
  };
  c.collectives.sum_in_rank_order = [&](std::span<double> v) {
    calls.push_back("sum_in_rank_order");
    v[0] += 10;
  };
  c.collectives.sum = [&](std::span<std::int64_t> v) {
    calls.push_back("sum");
    v[0] *= 2;
  };
  c.collectives.max = [&](double x) {
    calls.push_back("max");
    return x + 1;
  };
  c.collectives.min = [&](double x) {
    calls.push_back("min");
    return x - 1;
  };
  std::vector<double> const mine{4};
  std::vector<double> all(2);
  c.all_gather(mine, all);
  EXPECT_EQ(all, (std::vector<double>{-1, 4}));
  std::vector<double> v{1};
  c.sum_in_rank_order(v);
  EXPECT_EQ(v[0], 11);
  std::vector<std::int64_t> n{3};
  c.sum(n);
  EXPECT_EQ(n[0], 6);
  EXPECT_EQ(c.max(1), 2);
  EXPECT_EQ(c.min(1), 0);
  EXPECT_EQ(calls, (std::vector<std::string>{"all_gather", "sum_in_rank_order", "sum", "max", "min"}));
}

TEST(Communicator, RefusesBadRanksAndMissingHooks) {
  Communicator c;
  c.size = 0;
  EXPECT_THROW(c.validate(), parity::InvalidInput);
  c.size = 2, c.rank = 2;
  EXPECT_THROW(c.validate(), parity::InvalidInput);
  c.rank = -1;
  EXPECT_THROW(c.validate(), parity::InvalidInput);
  c.rank = 1;
  EXPECT_NO_THROW(c.validate());
  std::vector<double> const mine{1};
  std::vector<double> all(2);
  EXPECT_THROW(c.all_gather(mine, all), std::logic_error);  // several ranks, no hook
  EXPECT_THROW(c.max(1.0), std::logic_error);
}

// The in-place gather of an engine's own memory is optional: one rank needs nothing, several ranks
// use it only where a hook is given (NCCL in CUDA builds) and stage through all_gather otherwise.
TEST(Communicator, InPlaceGatherOnlyWithAHook) {
  Communicator c;
  double data[4] = {1, 2, 3, 4};
  EXPECT_FALSE(c.gathers_in_place());
  EXPECT_NO_THROW(c.all_gather_in_place(data, 4, sizeof(double)));  // one rank: nothing to do
  EXPECT_EQ(data[3], 4);
  c.rank = 1, c.size = 2;
  EXPECT_FALSE(c.gathers_in_place());
  EXPECT_THROW(c.all_gather_in_place(data, 4, sizeof(double)), std::logic_error);
  std::int64_t seen_n = 0;
  std::size_t seen_bytes = 0;
  c.collectives.all_gather_in_place = [&](void* d, std::int64_t n, std::size_t element_bytes) {
    seen_n = n, seen_bytes = element_bytes;
    static_cast<double*>(d)[0] = -1;  // rank 0's share arrives
  };
  EXPECT_TRUE(c.gathers_in_place());
  c.all_gather_in_place(data, 4, sizeof(double));
  EXPECT_EQ(seen_n, 4);
  EXPECT_EQ(seen_bytes, sizeof(double));
  EXPECT_EQ(data[0], -1);
}

}  // namespace parity_test_communicator
