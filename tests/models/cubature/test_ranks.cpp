// integrate() across ranks (Options::ranks) inside one process: R host threads are the ranks,
// each calls integrate() with its rank, and their all_gather meets at a barrier. Every rank must
// return exactly what one rank returns alone, whatever R; a rank that fails must make every rank
// fail instead of leaving them waiting. (mpirun -np 1, 2, 3 runs the executable the same way:
// tests/run/test_ranks.py.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "parity/cubature/detail/rank_rows.hpp"
#include "parity/cubature/integrands.hpp"
#include "parity/cubature/integrate.hpp"
#include "parity/cubature/params.hpp"
#include "parity/cubature/vegas.hpp"
#include "parity/run/communicator.hpp"
#include "same_bits.hpp"
#include "test_backend.hpp"

namespace parity_test_cubature_ranks {

namespace cub = parity::cubature;
using parity::test::ExecSpace;

using parity::test::same_bits;

// One of the paper's integrands f1..f5 in n dimensions (no parameters).
template <class Real>
cub::GenzIntegrand<Real> paper(cub::Family f, int n) {
  return {f, std::vector<double>(std::size_t(n), 0.0), std::vector<double>(std::size_t(n), 0.0)};
}

// All `size` threads wait here until the last arrives (reusable).
class Barrier {
 public:
  explicit Barrier(int size) : size_(size) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    int const round = round_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++round_;
      all_.notify_all();
    } else {
      all_.wait(lock, [&] { return round_ != round; });
    }
  }

 private:
  int size_, arrived_ = 0, round_ = 0;
  std::mutex mutex_;
  std::condition_variable all_;
};

// R ranks as threads of this process; all_gather as MPI_Allgatherv does it.
class ThreadRanks {
 public:
  explicit ThreadRanks(int size) : size_(size), meet_(size), parts_(std::size_t(size)) {}

  parity::run::Communicator of(int rank) {
    parity::run::Communicator r;
    r.rank = rank;
    r.size = size_;
    r.collectives.all_gather = [this, rank](std::span<double const> mine, std::span<double> all) {
      gather(rank, mine, all);
    };
    // max and sum as MPI_Allreduce does them (VEGAS needs them): through the gather.
    r.collectives.max = [this, rank](double value) {
      std::vector<double> all(static_cast<std::size_t>(size_));
      gather(rank, std::span<double const>(&value, 1), all);
      return *std::max_element(all.begin(), all.end());
    };
    r.collectives.sum = [this, rank](std::span<std::int64_t> values) {
      // Each integer travels exactly as two doubles, its high and low 32 bits.
      std::size_t const m = values.size();
      std::vector<double> mine(2 * m), all(2 * m * std::size_t(size_));
      for (std::size_t i = 0; i < m; ++i) {
        mine[2 * i] = double(values[i] >> 32);
        mine[2 * i + 1] = double(values[i] & 0xffffffff);
      }
      gather(rank, mine, all);
      for (std::size_t i = 0; i < m; ++i) {
        std::int64_t total = 0;
        for (std::size_t k = 0; k < std::size_t(size_); ++k)
          total += (std::int64_t(all[2 * (k * m + i)]) << 32) + std::int64_t(all[2 * (k * m + i) + 1]);
        values[i] = total;
      }
    };
    return r;
  }
  int gathers() const { return gathers_; }  // collective calls, counted by rank 0

 private:
  void gather(int rank, std::span<double const> mine, std::span<double> all) {
    parts_[std::size_t(rank)].assign(mine.begin(), mine.end());
    meet_.arrive_and_wait();  // every part written
    std::size_t at = 0;
    for (auto const& p : parts_) {
      for (std::size_t i = 0; i < p.size() && at + i < all.size(); ++i) all[at + i] = p[i];
      at += p.size();
    }
    if (rank == 0) ++gathers_;
    bool const sizes_match = at == all.size();
    meet_.arrive_and_wait();  // every part read before the next gather writes
    if (!sizes_match) throw std::logic_error("all_gather: output size differs from the total");
  }

  int size_;
  Barrier meet_;
  std::vector<std::vector<double>> parts_;
  int gathers_ = 0;
};

// `solve(space, communicator)` on `size` threads, each a rank; every rank's result.
template <class Result, class Solve>
std::vector<Result> on_thread_ranks(int size, Solve const& solve, int* gathers = nullptr) {
  ThreadRanks ranks(size);
  std::vector<Result> out(static_cast<std::size_t>(size));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(size));
  // Host backends: the one instance (it serializes the threads' kernels); GPUs: a stream each.
  bool const host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible;
  std::vector<ExecSpace> spaces(static_cast<std::size_t>(size));
  if (!host) spaces = Kokkos::Experimental::partition_space(ExecSpace(), std::vector<int>(std::size_t(size), 1));
  std::vector<std::thread> threads;
  for (int k = 0; k < size; ++k)
    threads.emplace_back([&, k]() {
      try {
        out[std::size_t(k)] = solve(spaces[std::size_t(k)], ranks.of(k));
      } catch (...) {
        errors[std::size_t(k)] = std::current_exception();
      }
    });
  for (auto& th : threads) th.join();
  for (auto const& e : errors)
    if (e) std::rethrow_exception(e);
  if (gathers) *gathers = ranks.gathers();
  return out;
}

// The problem on `size` threads; every rank's result.
template <class Real, class F>
std::vector<cub::Result> on_ranks(int size, F const& f, std::vector<double> const& lo, std::vector<double> const& hi,
                                  cub::Tolerances const& t, cub::Options const& o, int* gathers = nullptr) {
  return on_thread_ranks<cub::Result>(
      size,
      [&](ExecSpace const& space, parity::run::Communicator const& ranks) {
        cub::Options mine = o;
        mine.ranks = ranks;
        return cub::integrate<ExecSpace, Real>(space, f, lo, hi, t, mine);
      },
      gathers);
}

void expect_same(cub::Result const& a, cub::Result const& b, std::string const& what) {
  EXPECT_TRUE(same_bits(a.integral, b.integral)) << what << ": " << a.integral << " vs " << b.integral;
  EXPECT_TRUE(same_bits(a.error, b.error)) << what;
  EXPECT_TRUE(same_bits(a.last_error, b.last_error)) << what;
  EXPECT_EQ(a.evaluations, b.evaluations) << what;
  EXPECT_EQ(a.regions, b.regions) << what;
  EXPECT_EQ(a.regions_evaluated, b.regions_evaluated) << what;
  EXPECT_EQ(a.status, b.status) << what;
  EXPECT_EQ(a.phase1_iterations, b.phase1_iterations) << what;
  EXPECT_EQ(a.phase2_regions, b.phase2_regions) << what;
  EXPECT_EQ(a.phase2_evaluations, b.phase2_evaluations) << what;
  EXPECT_EQ(a.phase2_rounds, b.phase2_rounds) << what;
  EXPECT_EQ(a.phase2_budget_limited, b.phase2_budget_limited) << what;
  EXPECT_EQ(a.parked_chunks, b.parked_chunks) << what;
  ASSERT_EQ(a.history.size(), b.history.size()) << what;
  for (std::size_t i = 0; i < a.history.size(); ++i) {
    EXPECT_TRUE(same_bits(a.history[i].integral, b.history[i].integral)) << what << " step " << i;
    EXPECT_TRUE(same_bits(a.history[i].error, b.history[i].error)) << what << " step " << i;
  }
}

// The integral of f over [0, 1]^n on one rank.
template <class Real, class F>
cub::Result one_rank(F const& f, int n, cub::Tolerances const& t, cub::Options const& o) {
  std::vector<double> const lo(std::size_t(n), 0.0), hi(std::size_t(n), 1.0);
  return cub::integrate<ExecSpace, Real>(ExecSpace(), f, lo, hi, t, o);
}

// One rank's result (`alone`, from one_rank) against 2 and 3 ranks (3 splits every list unevenly),
// on every rank.
template <class Real, class F>
void check_ranks(F const& f, int n, cub::Tolerances const& t, cub::Options const& o, cub::Result const& alone,
                 std::string const& what) {
  std::vector<double> const lo(std::size_t(n), 0.0), hi(std::size_t(n), 1.0);
  for (int size : {2, 3}) {
    int gathers = 0;
    auto const all = on_ranks<Real>(size, f, lo, hi, t, o, &gathers);
    EXPECT_GE(gathers, alone.phase1_iterations) << what;  // the work was shared, not repeated
    for (int k = 0; k < size; ++k)
      expect_same(all[std::size_t(k)], alone, what + ", rank " + std::to_string(k) + " of " + std::to_string(size));
  }
}

TEST(CubatureRanks, PhaseOneSameBitsOnEveryRank) {
  auto const f1 = paper<double>(cub::Family::f1, 4);
  cub::Tolerances t;
  t.relative = 1e-5;
  cub::Options o;
  o.max_evaluations = 5'000'000;
  auto const alone = one_rank<double>(f1, 4, t, o);
  ASSERT_EQ(alone.status, cub::Status::converged);
  ASSERT_EQ(alone.phase2_regions, 0);
  ASSERT_GT(alone.phase1_iterations, 1);
  check_ranks<double>(f1, 4, t, o, alone, "f1 4-D degree 9");
}

// VEGAS+ on `size` thread ranks; every rank's result.
template <class Real, class F>
std::vector<cub::VegasResult> vegas_on_ranks(int size, F const& f, int n, cub::Tolerances const& t,
                                             cub::VegasOptions const& o) {
  std::vector<double> const lo(std::size_t(n), 0.0), hi(std::size_t(n), 1.0);
  return on_thread_ranks<cub::VegasResult>(size, [&](ExecSpace const& space, parity::run::Communicator const& ranks) {
    cub::VegasOptions mine = o;
    mine.ranks = ranks;
    return cub::integrate_vegas<ExecSpace, Real>(space, f, lo, hi, t, mine);
  });
}

TEST(CubatureRanks, VegasSameBitsOnEveryRank) {
  // Each rank samples its share of the cells; the cells' sums are gathered in order and the
  // histograms added as integers, so every rank must return one rank's bits, iteration by
  // iteration. 3 ranks split the cells unevenly; 64 evaluations per iteration leave so few cells
  // that a rank's share may hold few or no samples.
  std::vector<double> const lo(4, 0.0), hi(4, 1.0);
  cub::GenzIntegrand<double> const g(cub::Family::gaussian, std::vector<double>(4, 5.0), std::vector<double>(4, 0.4));
  cub::Tolerances t;
  t.relative = 1e-12;  // the budget stops it
  for (std::int64_t per_iteration : {20'000, 64}) {
    cub::VegasOptions o;
    o.evaluations_per_iteration = per_iteration;
    o.max_evaluations = 12 * per_iteration;
    auto const alone = cub::integrate_vegas<ExecSpace, double>(ExecSpace(), g, lo, hi, t, o);
    ASSERT_GE(alone.iterations, 12);  // an iteration may draw fewer than per_iteration samples
    for (int size : {2, 3, 5}) {
      auto const all = vegas_on_ranks<double>(size, g, 4, t, o);
      for (int k = 0; k < size; ++k) {
        std::string const what =
            std::to_string(per_iteration) + " per iteration, rank " + std::to_string(k) + " of " + std::to_string(size);
        auto const& r = all[std::size_t(k)];
        EXPECT_TRUE(same_bits(r.integral, alone.integral)) << what << ": " << r.integral << " vs " << alone.integral;
        EXPECT_TRUE(same_bits(r.error, alone.error)) << what;
        EXPECT_TRUE(same_bits(r.chi2_per_dof, alone.chi2_per_dof)) << what;
        EXPECT_EQ(r.evaluations, alone.evaluations) << what;
        ASSERT_EQ(r.history.size(), alone.history.size()) << what;
        for (std::size_t i = 0; i < r.history.size(); ++i) {
          EXPECT_TRUE(same_bits(r.history[i].estimate, alone.history[i].estimate)) << what << " iteration " << i;
          EXPECT_EQ(r.history[i].evaluations, alone.history[i].evaluations) << what << " iteration " << i;
        }
      }
    }
    // And the answer is right: the closed form within a few of its standard deviations.
    double const exact =
        cub::genz_exact(cub::Family::gaussian, std::vector<double>(4, 5.0), std::vector<double>(4, 0.4), lo, hi);
    EXPECT_LE(std::abs(alone.integral - exact), 5 * alone.error) << per_iteration;
  }
}

TEST(CubatureRanks, PhaseTwoRedistributionSameBits) {
  // Paper mode, a budget its phase-2 shares run out of: the unused evaluations move in several
  // rounds, each resuming heaps held by different ranks.
  auto const f3 = paper<double>(cub::Family::f3, 3);
  cub::Tolerances t;
  t.relative = 3e-8;
  cub::Options o;
  o.mode = cub::Mode::paper;
  o.max_evaluations = 1'000'000;
  auto const alone = one_rank<double>(f3, 3, t, o);
  ASSERT_GT(alone.phase2_regions, 0);
  ASSERT_GT(alone.phase2_rounds, 1);
  check_ranks<double>(f3, 3, t, o, alone, "f3 3-D paper, phase 2 rounds");
  // A small Lmax: the split pieces go to phase 2 unevaluated, and each rank evaluates its share.
  o.max_regions = 64;
  o.max_evaluations = 5'000'000;
  auto const pieces = one_rank<double>(f3, 3, t, o);
  ASSERT_GE(pieces.phase2_regions, 64);
  ASSERT_GT(pieces.phase2_evaluations, pieces.phase2_regions * pieces.points);
  check_ranks<double>(f3, 3, t, o, pieces, "f3 3-D paper, pieces handed over");
  // CUBA's average: each resumed region continues from the running sums its rank kept.
  o.max_regions = 32768;
  o.max_evaluations = 1'000'000;
  o.cuhre_average = true;
  auto const averaged = one_rank<double>(f3, 3, t, o);
  ASSERT_GT(averaged.phase2_rounds, 1);
  ASSERT_GT(averaged.last_error, averaged.error);
  check_ranks<double>(f3, 3, t, o, averaged, "f3 3-D paper, CUBA's average over rounds");
  // Full heaps grown: the capacity follows how many filled on all ranks, and each region resumes
  // from its heap on the rank that refined it.
  auto const f1 = paper<double>(cub::Family::f1, 3);
  cub::Options g;
  g.mode = cub::Mode::paper;
  g.max_regions = 64;
  g.max_memory_mb = 0.3;
  g.max_evaluations = 50'000'000;
  auto const grown = one_rank<double>(f1, 3, t, g);
  ASSERT_GT(grown.phase2_regrown, 0);
  check_ranks<double>(f1, 3, t, g, grown, "f1 3-D paper, full heaps grown");
}

TEST(CubatureRanks, PhaseTwoBatchesAndFloatSameBits) {
  // Improved mode with little memory: phase 2 in batches of a few heaps; and float.
  auto const f2 = paper<double>(cub::Family::f2, 3);
  cub::Tolerances t;
  t.relative = 1e-7;
  cub::Options o;
  o.max_memory_mb = 0.2;
  o.max_evaluations = 20'000'000;
  auto const alone = one_rank<double>(f2, 3, t, o);
  ASSERT_GT(alone.phase2_regions, 0);
  ASSERT_LT(alone.phase2_batch, alone.phase2_regions);
  check_ranks<double>(f2, 3, t, o, alone, "f2 3-D, phase 2 in batches");

  auto const f3 = paper<float>(cub::Family::f3, 3);
  cub::Tolerances tf;
  tf.relative = 1e-5;
  cub::Options of;
  of.mode = cub::Mode::paper;
  of.max_evaluations = 2'000'000;
  check_ranks<float>(f3, 3, tf, of, one_rank<float>(f3, 3, tf, of), "f3 3-D paper, float");
}

TEST(CubatureRanks, ParkedChunksSameBits) {
  auto const f3 = paper<double>(cub::Family::f3, 4);
  cub::Tolerances t;
  t.relative = 1e-8;
  cub::Options o;
  o.max_memory_mb = 0.5;
  o.max_host_memory_mb = 4;
  o.max_evaluations = 3'000'000;
  o.rule = cub::Rule::degree7;
  auto const alone = one_rank<double>(f3, 4, t, o);
  ASSERT_GT(alone.parked_chunks, 0);
  check_ranks<double>(f3, 4, t, o, alone, "f3 4-D degree 7, parked chunks");
}

TEST(CubatureRanks, FailureOnOneRankReachesEveryRank) {
  // Rank 1 of 3 failed at its share: every rank leaves the gather and throws; rank 1 its own error.
  int const size = 3;
  ThreadRanks ranks(size);
  std::vector<std::string> caught(static_cast<std::size_t>(size));
  std::vector<std::thread> threads;
  for (int k = 0; k < size; ++k)
    threads.emplace_back([&, k]() {
      Kokkos::View<double*, ExecSpace::memory_space> rows("parity::test::rows", 10 * 2);
      std::exception_ptr failed;
      if (k == 1) failed = std::make_exception_ptr(std::runtime_error("out of device memory"));
      try {
        cub::detail::gather_rows(ExecSpace(), ranks.of(k), rows, 10, 2, failed);
      } catch (std::exception const& e) {
        caught[std::size_t(k)] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(caught[1], "out of device memory");
  for (int k : {0, 2}) EXPECT_NE(caught[std::size_t(k)].find("rank 1 failed"), std::string::npos) << caught[k];
}

TEST(CubatureRanks, RowsArriveInRankOrder) {
  // 7 rows of 3 over 3 ranks (2, 2, 3 rows): each rank writes only its own rows.
  int const size = 3, m = 7, width = 3;
  ThreadRanks ranks(size);
  std::vector<std::vector<double>> got(static_cast<std::size_t>(size));
  std::vector<std::thread> threads;
  for (int k = 0; k < size; ++k)
    threads.emplace_back([&, k]() {
      auto const r = ranks.of(k);
      std::vector<double> mine(std::size_t(m * width), -1.0);
      for (std::int64_t i = r.first(m); i < r.last(m); ++i)
        for (int c = 0; c < width; ++c) mine[std::size_t(i * width + c)] = double(100 * i + c);
      auto rows = parity::test::to_device(mine);
      cub::detail::gather_rows(ExecSpace(), r, rows, m, width, nullptr);
      got[std::size_t(k)] = parity::test::to_host(rows);
    });
  for (auto& th : threads) th.join();
  for (int k = 0; k < size; ++k)
    for (int i = 0; i < m; ++i)
      for (int c = 0; c < width; ++c)
        EXPECT_EQ(got[std::size_t(k)][std::size_t(i * width + c)], double(100 * i + c)) << k << " " << i << " " << c;
}

TEST(CubatureRanks, RejectsBadRanks) {
  cub::Options o;
  o.ranks.size = 2;  // no all_gather
  EXPECT_THROW(cub::validate({0.0}, {1.0}, {}, o), parity::InvalidInput);
  o.ranks.size = 0;
  EXPECT_THROW(cub::validate({0.0}, {1.0}, {}, o), parity::InvalidInput);
  o.ranks.size = 2;
  o.ranks.rank = 2;
  o.ranks.collectives.all_gather = [](std::span<double const>, std::span<double>) {};
  EXPECT_THROW(cub::validate({0.0}, {1.0}, {}, o), parity::InvalidInput);
}

}  // namespace parity_test_cubature_ranks
