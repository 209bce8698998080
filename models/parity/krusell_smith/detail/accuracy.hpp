#pragma once
// What a finished Krusell-Smith solve reports besides the law of motion: the Euler-equation
// errors of the final policy, the Den Haan accuracy test, the shocks' exactness and transition
// frequencies, and host copies of the final cross-section and policy.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "parity/krusell_smith/calibration.hpp"
#include "parity/krusell_smith/detail/model.hpp"
#include "parity/krusell_smith/detail/policy.hpp"
#include "parity/krusell_smith/detail/regression.hpp"
#include "parity/krusell_smith/detail/shocks.hpp"
#include "parity/krusell_smith/params.hpp"
#include "parity/krusell_smith/result.hpp"
#include "parity/run/communicator.hpp"

namespace parity::krusell_smith::detail {

// Fills res's accuracy, shocks and output fields from the final policy g, the last panel
// (K_host, k_agents) and the shocks (z, emp); res.coeffs is the law the agents perceived. On
// several ranks k_agents and emp hold this rank's agents: the counts and the minimum are taken over
// all ranks and the saved sample is gathered, so every rank returns the same result.
template <class ExecutionSpace, class Real, class Axis, class G>
void measure_accuracy(ExecutionSpace const& space, Params const& p, Chain const& chain, Axis const& axk,
                      Axis const& axK, std::vector<double> const& k_nodes, std::vector<double> const& K_nodes,
                      G const& g, bool cubic, std::vector<std::int32_t> const& z, std::vector<double> const& K_host,
                      Employment<typename ExecutionSpace::memory_space> const& emp,
                      Kokkos::View<Real*, typename ExecutionSpace::memory_space> const& k_agents, Result& res,
                      run::Communicator const& ranks = {}) {
  int const nk = p.nk, nK = p.nK;
  Model<Real> const model = make_model<Real>(p, chain, res.coeffs);
  res.euler_k_cap = std::min(p.k_max, 5.0 * p.K_max);
  kernels::euler_errors(space, model, axk, axK, g, cubic, false, Real(res.euler_k_cap), res.euler_on_max,
                        res.euler_on_mean);
  kernels::euler_errors(space, model, axk, axK, g, cubic, true, Real(res.euler_k_cap), res.euler_off_max,
                        res.euler_off_mean);
  res.K_path = K_host;
  res.K_alm = dynamic_law_of_motion(res.coeffs, z, K_host[0]);
  double mx = 0, sum = 0;
  int n = 0;
  for (int t = p.discard; t <= p.periods; ++t) {
    double const e = 100.0 * std::abs(std::log(res.K_alm[t]) - std::log(K_host[t]));
    mx = std::max(mx, e), sum += e, ++n;
  }
  res.den_haan_max_pct = mx;
  res.den_haan_mean_pct = sum / n;

  // Shocks: exactness of the unemployment targets and the empirical transition frequencies.
  auto counts = employment_counts(space, emp, ranks);
  double uu[2][2] = {{0, 0}, {0, 0}}, u0[2][2] = {{0, 0}, {0, 0}};
  double n_u[2] = {0, 0}, n_t[2] = {0, 0};
  long dev = 0;
  for (int t = 0; t < p.periods; ++t) {
    long const target = std::lround(chain.u[z[t]] * double(p.agents));
    dev = std::max(dev, std::labs(counts(t, 0) - target));
    n_u[z[t]] += double(counts(t, 0)), n_t[z[t]] += double(p.agents);
    if (t > 0) {
      uu[z[t - 1]][z[t]] += double(counts(t, 1));
      u0[z[t - 1]][z[t]] += double(counts(t, 2));
    }
  }
  res.unemployment_max_deviation = dev;
  res.unemployment_rate_good = n_t[0] > 0 ? n_u[0] / n_t[0] : 0;
  res.unemployment_rate_bad = n_t[1] > 0 ? n_u[1] / n_t[1] : 0;
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 2; ++c) res.p00_empirical[2 * a + c] = u0[a][c] > 0 ? uu[a][c] / u0[a][c] : -1;

  // Final cross-section (a sample of the first 100,000 agents at most) and its employment in period
  // T-1: this rank's agents among them (mine of them), gathered in rank order on several ranks.
  long const sample = std::min<long>(p.agents, 100000);
  long const mine = std::clamp(sample - emp.first, 0L, emp.agents);
  auto k_sample =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(k_agents, Kokkos::make_pair(0L, mine)));
  res.k_final.assign(k_sample.data(), k_sample.data() + mine);
  long const nwords = emp.nwords;
  auto w_sample = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(),
      Kokkos::subview(
          emp.words, Kokkos::make_pair(long(p.periods - 1) * nwords, long(p.periods - 1) * nwords + (mine + 31) / 32)));
  res.employed_final.resize(mine);
  for (long i = 0; i < mine; ++i) res.employed_final[i] = std::int32_t((w_sample(i / 32) >> (i % 32)) & 1u);
  if (ranks.several()) {  // doubles both ways: exact for float capital and 0/1
    std::vector<double> all(sample), e_mine(res.employed_final.begin(), res.employed_final.end()), e_all(sample);
    ranks.all_gather(res.k_final, all);
    ranks.all_gather(e_mine, e_all);
    res.k_final = std::move(all);
    res.employed_final.assign(e_all.begin(), e_all.end());
  }
  double kmin = 0;
  Kokkos::parallel_reduce(
      "parity::krusell_smith::capital_min",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space, 0, emp.agents),
      KOKKOS_LAMBDA(std::int64_t i, double& m) {
        double const v = double(k_agents(i));
        m = v < m ? v : m;
      },
      Kokkos::Min<double>(kmin));
  res.k_final_min = ranks.several() ? ranks.min(kmin) : kmin;
  double ksum = 0;
  for (double v : res.k_final) ksum += v;
  res.k_final_mean = ksum / double(sample);

  auto gh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g);
  res.policy.resize(std::size_t(nk) * nK * 4);
  for (int i = 0; i < nk; ++i)
    for (int j = 0; j < nK; ++j)
      for (int s = 0; s < 4; ++s) res.policy[(std::size_t(i) * nK + j) * 4 + s] = double(gh(s, i, j));
  res.k_grid = k_nodes;
  res.K_grid = K_nodes;
}

}  // namespace parity::krusell_smith::detail
