#pragma once
// The stationary distribution of agents over (z, a) under a saving policy a'(z, a), by Young's
// (2010) histogram method on the device: each a' splits its mass between the two grid points
// around it so that the mean is kept (a' outside the grid goes to its end), then z moves by the
// Markov chain; iterated (from the chain's stationary distribution spread evenly over the grid, or
// a given start) until the sup norm of the change of the masses is below the tolerance.
//
//   auto d = parity::dp::stationary_distribution<double>(space, grid, chain, egm.saving);
//   double const K = parity::dp::mean(grid, d.mass);
#include <Kokkos_Core.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "parity/dp/detail/young.hpp"
#include "parity/dp/options.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::dp {

struct DistributionOptions : run::SolveOptions {  // progress: a line per 1024 steps (options.hpp)
  double tolerance = 1e-12;  // on the sup norm of the change of the masses in one step
  int max_iterations = 100000;
  std::vector<double> initial_mass;  // n_z x n_k, summing to 1; empty: the chain's stationary one, spread evenly
};

struct DistributionResult {
  Status status = Status::not_converged;
  int iterations = 0;
  double residual = 0;
  std::vector<double> mass;  // mu(z, a), n_z x n_k row-major, summing to 1
};

// The mean of the grid's values under the masses of a distribution (e.g. aggregate capital).
inline double mean(std::vector<double> const& grid, std::vector<double> const& mass) {
  std::size_t const nk = grid.size();
  double s = 0;
  for (std::size_t at = 0; at < mass.size(); ++at) s += mass[at] * grid[at % nk];
  return s;
}

template <class Real, class ExecutionSpace>
DistributionResult stationary_distribution(ExecutionSpace const& space, std::vector<double> const& grid,
                                           markov::Chain const& chain, std::vector<double> const& saving,
                                           DistributionOptions const& opt = {}) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "parity::dp::stationary_distribution: the first argument must be a Kokkos execution space");
  int const nz = int(chain.size()), nk = int(grid.size());
  require(nk >= 2, "dp: the grid needs at least 2 nodes");
  for (int i = 0; i + 1 < nk; ++i) require(grid[i] < grid[i + 1], "dp: the grid must be strictly increasing");
  require(saving.size() == std::size_t(nz) * nk, "dp: saving must have n_z x n_k entries");
  for (double s : saving) require(std::isfinite(s), "dp: the saving policy has a value that is not finite");
  require(std::isfinite(opt.tolerance) && opt.tolerance > 0, "dp: tolerance must be > 0");
  require(opt.max_iterations >= 1, "dp: max_iterations must be at least 1");
  require(opt.initial_mass.empty() || opt.initial_mass.size() == saving.size(),
          "dp: initial_mass must have n_z x n_k entries");
  auto const pi = markov::stationary_distribution(chain);

  using Mem = typename ExecutionSpace::memory_space;
  using Table = detail::Table<Real, Mem>;
  Kokkos::View<Real*, Mem> g(Kokkos::view_alloc(space, "parity::dp::grid"), nk);
  Table P(Kokkos::view_alloc(space, "parity::dp::transition"), nz, nz);
  Table a_next(Kokkos::view_alloc(space, "parity::dp::saving"), nz, nk);
  Table mu(Kokkos::view_alloc(space, "parity::dp::mass"), nz, nk);
  Table mu_next(Kokkos::view_alloc(space, "parity::dp::mass_next"), nz, nk);
  Table T(Kokkos::view_alloc(space, "parity::dp::lottery_mass"), nz, nk);
  Table weight(Kokkos::view_alloc(space, "parity::dp::lottery_weight"), nz, nk);
  detail::Table<int, Mem> lower(Kokkos::view_alloc(space, "parity::dp::lottery_lower"), nz, nk);
  {
    auto gh = Kokkos::create_mirror_view(g);
    auto ph = Kokkos::create_mirror_view(P);
    auto sh = Kokkos::create_mirror_view(a_next);
    auto mh = Kokkos::create_mirror_view(mu);
    for (int i = 0; i < nk; ++i) gh(i) = Real(grid[i]);
    for (int z = 0; z < nz; ++z) {
      for (int zn = 0; zn < nz; ++zn) ph(z, zn) = Real(chain.probability(z, zn));
      for (int i = 0; i < nk; ++i) {
        sh(z, i) = Real(saving[std::size_t(z) * nk + i]);
        mh(z, i) = Real(opt.initial_mass.empty() ? pi[z] / nk : opt.initial_mass[std::size_t(z) * nk + i]);
      }
    }
    Kokkos::deep_copy(space, g, gh);
    Kokkos::deep_copy(space, P, ph);
    Kokkos::deep_copy(space, a_next, sh);
    Kokkos::deep_copy(space, mu, mh);
  }
  detail::lotteries<ExecutionSpace, Real, Mem>(space, g, a_next, lower, weight);
  bool const is_monotone = detail::monotone<ExecutionSpace, Mem>(space, lower);
  detail::Table<int, Mem> first(Kokkos::view_alloc(space, "parity::dp::lottery_runs"), nz, is_monotone ? nk + 2 : 0);
  if (is_monotone) detail::lottery_runs<ExecutionSpace, Mem>(space, lower, first);
  // Runs long enough to be worth the block sums' two extra kernels per step.
  bool const blocked =
      is_monotone && detail::longest_run<ExecutionSpace, Mem>(space, first) >= 4 * detail::lottery_block;
  detail::LotteryBlocks<Real, Mem> blocks;
  if (blocked) blocks = detail::LotteryBlocks<Real, Mem>(space, nz, nk);

  DistributionResult r;
  Kokkos::Timer timer;
  Kokkos::View<Real, Mem> change(Kokkos::view_alloc(space, "parity::dp::distribution_change"));
  auto change_h = Kokkos::create_mirror_view(change);
  // Each step's change stays on the device; the host reads it every `check` steps, so steps run
  // back to back. The answer is the same as checking every step: the iteration stops at the first
  // checked step below the tolerance, at most check - 1 steps later than it could.
  int const check = 8;
  timing::OptionalPhase<ExecutionSpace> phase(space, opt.phases, "parity::dp::distribution");
  for (int it = 1; it <= opt.max_iterations; ++it) {
    if (blocked) detail::lottery_block_sums<ExecutionSpace, Real, Mem>(space, mu, weight, blocks);
    detail::lottery_masses<ExecutionSpace, Real, Mem>(space, mu, lower, weight, first, is_monotone, blocked, blocks, T);
    detail::move_exogenous<ExecutionSpace, Real, Mem>(space, P, T, mu, mu_next, change);
    std::swap(mu, mu_next);
    r.iterations = it;
    if (it % check != 0 && it != opt.max_iterations) continue;
    Kokkos::deep_copy(space, change_h, change);
    space.fence("parity::dp::distribution_check");
    double const d = double(change_h());
    r.residual = d;
    if (!std::isfinite(d)) {
      r.status = Status::non_finite;
      break;
    }
    if (opt.progress && (it % 1024 == 0 || d < opt.tolerance))
      opt.progress->update({"distribution", it, d, timer.seconds(), "", opt.max_iterations, opt.tolerance});
    if (d < opt.tolerance) {
      r.status = Status::converged;
      break;
    }
  }
  auto mh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mu);
  r.mass.assign(mh.data(), mh.data() + mh.size());
  return r;
}

}  // namespace parity::dp
