// Krusell-Smith across ranks (run::Communicator), with the ranks simulated inside one process: each rank
// is a host thread, and the threads take turns (one runs while the others wait, and each
// collective hands over to the next rank), so Kokkos sees one caller at a time. The employment of
// every agent must be that of one rank, bit for bit (the select's histograms are integer counts
// summed over the ranks); the solve agrees with one rank's within the tolerance that
// docs/models/krusell_smith.md states (the per-period capital sums are rounded per rank).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "parity/krusell_smith/calibration.hpp"
#include "parity/krusell_smith/solver.hpp"
#include "parity/run/communicator.hpp"
#include "test_backend.hpp"

namespace parity_test_krusell_smith_ranks {

using parity::test::ExecSpace;
namespace ks = parity::krusell_smith;

// `size` ranks as host threads taking turns. A collective stores the caller's values; the last rank
// to arrive combines them, and rank 0 goes on first, then 1, ..., as after a real collective.
class TurnRanks {
 public:
  explicit TurnRanks(int size) : size_(size), deposits_(static_cast<std::size_t>(size)) {}

  parity::run::Communicator ranks(int r) {
    parity::run::Communicator p;
    p.rank = r, p.size = size_;
    p.collectives.sum_in_rank_order = [this, r](std::span<double> v) {
      auto const out = exchange(r, {v.begin(), v.end()}, [](auto const& all) {
        std::vector<double> s = all[0];
        for (std::size_t q = 1; q < all.size(); ++q)
          for (std::size_t i = 0; i < s.size(); ++i) s[i] += all[q][i];
        return s;
      });
      std::copy(out.begin(), out.end(), v.begin());
    };
    // Integer counts travel as doubles: exact below 2^53, far above these tests' counts.
    p.collectives.sum = [this, r](std::span<std::int64_t> v) {
      auto const out = exchange(r, {v.begin(), v.end()}, [](auto const& all) {
        std::vector<double> s = all[0];
        for (std::size_t q = 1; q < all.size(); ++q)
          for (std::size_t i = 0; i < s.size(); ++i) s[i] += all[q][i];
        return s;
      });
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::int64_t(out[i]);
    };
    p.collectives.all_gather = [this, r](std::span<double const> mine, std::span<double> all) {
      auto const out = exchange(r, {mine.begin(), mine.end()}, [](auto const& parts) {
        std::vector<double> s;
        for (auto const& part : parts) s.insert(s.end(), part.begin(), part.end());
        return s;
      });
      if (out.size() != all.size()) throw std::logic_error("all_gather: the parts do not add up to `all`");
      std::copy(out.begin(), out.end(), all.begin());
    };
    p.collectives.min = [this, r](double x) {
      return exchange(r, {x}, [](auto const& all) {
        double m = all[0][0];
        for (auto const& a : all) m = std::min(m, a[0]);
        return std::vector<double>{m};
      })[0];
    };
    return p;
  }

  // Runs body(rank) for every rank, one thread each, taking turns; rethrows a rank's failure.
  void run(std::function<void(int)> const& body) {
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r)
      threads.emplace_back([&, r] {
        try {
          wait_turn(r);
          body(r);
        } catch (...) {
          errors[std::size_t(r)] = std::current_exception();
          std::lock_guard lock(m_);
          failed_ = true;
        }
        std::lock_guard lock(m_);
        turn_ = r + 1;  // the next rank finishes its part
        cv_.notify_all();
      });
    for (auto& t : threads) t.join();
    for (auto const& e : errors)
      if (e) std::rethrow_exception(e);
  }

 private:
  void wait_turn(int r) {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return turn_ == r || failed_; });
    if (failed_) throw std::runtime_error("another rank failed");
  }

  template <class Combine>
  std::vector<double> exchange(int r, std::vector<double> mine, Combine combine) {
    {
      std::lock_guard lock(m_);
      deposits_[std::size_t(r)] = std::move(mine);
      if (++arrived_ == size_) {
        result_ = combine(deposits_);
        arrived_ = 0;
        turn_ = 0;
      } else {
        turn_ = r + 1;
      }
      cv_.notify_all();
    }
    wait_turn(r);
    std::lock_guard lock(m_);
    return result_;
  }

  int size_;
  std::mutex m_;
  std::condition_variable cv_;
  int turn_ = 0, arrived_ = 0;
  bool failed_ = false;
  std::vector<std::vector<double>> deposits_;
  std::vector<double> result_;
};

// Employment bit (t, i) of every agent, from one rank's Employment (agents emp.first + i).
template <class Emp>
void put_bits(Emp const& emp, std::vector<std::uint8_t>& bits, long N) {
  auto words = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), emp.words);
  for (int t = 0; t < emp.periods; ++t)
    for (long i = 0; i < emp.agents; ++i)
      bits[std::size_t(t) * N + emp.first + i] = std::uint8_t((words(t * emp.nwords + i / 32) >> (i % 32)) & 1u);
}

TEST(KrusellSmithRanks, EmploymentOnSplitRanksIsOneRanks) {
  for (auto draw : {ks::EmploymentDraw::exact, ks::EmploymentDraw::independent}) {
    ks::Params p;
    p.agents = 3001;  // no rank count divides it, nor 32
    p.periods = 60;
    p.discard = 10;
    p.employment_draw = draw;
    auto const c = ks::build_chain(p);
    auto const z = ks::detail::aggregate_path(p, c);
    ExecSpace space;
    long const N = p.agents;
    std::vector<std::uint8_t> one(std::size_t(p.periods) * N, 2);
    put_bits(ks::detail::generate_employment(space, p, c, z), one, N);
    auto const one_counts = ks::detail::employment_counts(space, ks::detail::generate_employment(space, p, c, z));
    for (int size : {2, 3, 5}) {
      TurnRanks turns(size);
      std::vector<std::uint8_t> split(one.size(), 2);
      std::vector<std::vector<long>> counts(static_cast<std::size_t>(size));
      turns.run([&](int r) {
        auto const ranks = turns.ranks(r);
        auto const emp = ks::detail::generate_employment(space, p, c, z, ranks);
        EXPECT_EQ(emp.first, N * r / size);
        EXPECT_EQ(emp.agents, N * (r + 1) / size - N * r / size);
        put_bits(emp, split, N);
        auto const h = ks::detail::employment_counts(space, emp, ranks);
        counts[std::size_t(r)].assign(h.data(), h.data() + h.size());
      });
      ASSERT_EQ(split, one) << size << " ranks, draw " << ks::to_string(draw);
      // Every rank has the global counts: those of one rank, exactly.
      for (auto const& rank_counts : counts)
        ASSERT_TRUE(std::equal(rank_counts.begin(), rank_counts.end(), one_counts.data()))
            << size << " ranks, draw " << ks::to_string(draw);
    }
  }
}

// Largest |a - b| / |a| over two equally long sequences.
template <class A>
double relative_difference(A const& a, A const& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    d = std::max(d, std::abs(a[i] - b[i]) / std::max(std::abs(a[i]), std::numeric_limits<double>::min()));
  return d;
}

template <class Real>
void solve_on_split_ranks_matches_one_rank(ks::PanelLocate locate, ks::PanelStart start) {
  ks::Params p;
  p.agents = 1200, p.periods = 150, p.discard = 30, p.nk = 30, p.nK = 4, p.max_iter = 2;
  p.burn_in = 0;
  p.policy_tol = 1e-5;  // fewer Euler sweeps: the policy is solved once per rank and once alone
  p.panel_locate = locate, p.panel_start = start;
  ks::Result const one = ks::solve<ExecSpace, Real>(ExecSpace(), p);
  int const size = 3;
  TurnRanks turns(size);
  std::vector<ks::Result> results(static_cast<std::size_t>(size));
  turns.run(
      [&](int r) { results[std::size_t(r)] = ks::solve<ExecSpace, Real>(ExecSpace(), p, {.ranks = turns.ranks(r)}); });
  // Every rank returns the same result, bit for bit.
  for (auto const& other : results) {
    EXPECT_EQ(other.K_path, results[0].K_path);
    EXPECT_EQ(other.coeffs, results[0].coeffs);
    EXPECT_EQ(other.k_final, results[0].k_final);
    EXPECT_EQ(other.k_final_min, results[0].k_final_min);
  }
  auto const& many = results[0];
  // The documented tolerance: K path and law of motion within 1e-10 (relative) of one rank in
  // double, each agent's capital within 1e-9 (its own policy path adds up the differences over
  // the periods), the numbers formed from differences within 1e-8 or 1e-12 absolute; 1e-5 in
  // float (a K_t rounded to float may land one float step away).
  bool const dbl = sizeof(Real) == 8;
  double const tol = dbl ? 1e-10 : 1e-5, cross = dbl ? 1e-9 : 1e-5, loose = dbl ? 1e-8 : 1e-5;
  EXPECT_EQ(many.iterations, one.iterations);
  EXPECT_EQ(many.policy_iterations_total, one.policy_iterations_total);
  EXPECT_EQ(many.panel_carries, one.panel_carries);
  EXPECT_LE(relative_difference(many.K_path, one.K_path), tol);
  EXPECT_LE(relative_difference(many.K_alm, one.K_alm), tol);
  EXPECT_LE(relative_difference(many.coeffs, one.coeffs), tol);
  EXPECT_LE(relative_difference(many.policy, one.policy), tol);
  ASSERT_EQ(many.k_final.size(), one.k_final.size());
  double const K = one.K_path.back();
  for (std::size_t i = 0; i < one.k_final.size(); ++i)
    ASSERT_NEAR(many.k_final[i], one.k_final[i], cross * (std::abs(one.k_final[i]) + 1e-3 * K)) << i;
  EXPECT_NEAR(many.k_final_min, one.k_final_min, loose * one.k_final_min + 1e-12);
  EXPECT_NEAR(many.den_haan_max_pct, one.den_haan_max_pct, loose * one.den_haan_max_pct + 1e-12);
  EXPECT_NEAR(many.coeff_change, one.coeff_change, loose * one.coeff_change + 1e-12);
  // The shocks are integer counts: exactly one rank's.
  EXPECT_EQ(many.employed_final, one.employed_final);
  EXPECT_EQ(many.unemployment_max_deviation, one.unemployment_max_deviation);
  EXPECT_EQ(many.p00_empirical, one.p00_empirical);
  EXPECT_EQ(many.unemployment_rate_good, one.unemployment_rate_good);
  EXPECT_EQ(many.z_path, one.z_path);
}

TEST(KrusellSmithRanks, SolveOnSplitRanksMatchesOneRank) {
  solve_on_split_ranks_matches_one_rank<double>(ks::PanelLocate::automatic, ks::PanelStart::carry);
  solve_on_split_ranks_matches_one_rank<double>(ks::PanelLocate::bucket, ks::PanelStart::fixed);
  solve_on_split_ranks_matches_one_rank<float>(ks::PanelLocate::automatic, ks::PanelStart::carry);
}

TEST(KrusellSmithRanks, RefusesCheckpointsAndEmptyRanks) {
  ks::Params p;
  p.agents = 64, p.periods = 120, p.discard = 20, p.nk = 30, p.nK = 4, p.max_iter = 1;
  auto solve_on = [&](ks::Params const& q, int size) {
    parity::run::Communicator ranks;  // never reached: the refusal comes before any collective
    ranks.size = size;
    return ks::solve<ExecSpace, double>(ExecSpace(), q, {.ranks = ranks});
  };
  auto q = p;
  q.checkpoint.path = "unused.ckpt";
  EXPECT_THROW(solve_on(q, 2), parity::InvalidInput);
  q = p;
  q.checkpoint.resume = "unused.ckpt";
  EXPECT_THROW(solve_on(q, 2), parity::InvalidInput);
  EXPECT_THROW(solve_on(p, 65), parity::InvalidInput);  // a rank without agents
}

}  // namespace parity_test_krusell_smith_ranks
