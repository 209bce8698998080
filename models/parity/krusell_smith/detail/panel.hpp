#pragma once
// The panel simulation of one outer iteration (PanelSimulation) and a restart's first
// cross-section.
#include <Kokkos_Core.hpp>
#include <Kokkos_Graph.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "parity/krusell_smith/calibration.hpp"
#include "parity/krusell_smith/detail/model.hpp"
#include "parity/krusell_smith/detail/panel_kernels.hpp"
#include "parity/krusell_smith/detail/shocks.hpp"
#include "parity/krusell_smith/params.hpp"
#include "parity/random/philox.hpp"
#include "parity/run/communicator.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/resident_teams.hpp"

namespace parity::krusell_smith::detail {

// Panel simulation for T periods from every agent at initial_capital, giving K_0..K_T (the
// cross-sectional means) on the device. Per period: a K-slice of g at (K_t, z_t) (2 x nk cubics),
// then one pass over the agents with the mean fused in as a reduction.
//
// The 2T + 1 kernels are the same every outer iteration (only g's values change), so by default
// they are recorded once as a Kokkos graph and the whole simulation is one graph launch (on CUDA a
// CUDA graph: no per-kernel launch latency, which dominates below ~10^6 agents; on host backends
// the nodes run in order as plain kernels). `--panel-launch kernels` launches them one by one.
//
// Across ranks (run::Communicator) each rank steps its own agents (emp's range): a period's reduction is
// this rank's part of the capital sum, which is copied to the host, added over the ranks in rank
// order and copied back before the next period's slice reads it, so every rank sees the same K_t.
// The exchange sits between two periods, so a graph cannot span the simulation: the kernels are
// launched one by one. (The split changes where each period's sum is rounded, so K agrees with one
// rank's within a tolerance, not bit for bit: docs/models/krusell_smith.md, "Across ranks".)
template <class ExecSpace, class Real, class Axis>
class PanelSimulation {
 public:
  using Mem = typename ExecSpace::memory_space;
  using G = Kokkos::View<Real***, Mem>;

  PanelSimulation(ExecSpace const& space, Params const& p, Axis const& axk, Axis const& axK, Employment<Mem> const& emp,
                  std::vector<std::int32_t> const& z, Kokkos::View<Real*, Mem> const& k,
                  run::Communicator const& ranks = {})
      : space_(space),
        N_(emp.agents),
        total_(p.agents),
        T_(p.periods),
        initial_capital_(p.initial_capital),
        g_("parity::krusell_smith::policy_for_panel", 4, axk.size(), axK.size()),
        coef_("parity::krusell_smith::policy_slice", 2, axk.size() - 1, 4),
        rec_("parity::krusell_smith::policy_slice_records", 2 * (axk.size() - 1)),
        sum_("parity::krusell_smith::capital_sum"),
        K_path_("parity::krusell_smith::K_path", p.periods + 1),
        k_(k),
        locate_(p.panel_locate),
        ranks_(ranks) {
    double const invN = 1.0 / double(total_);
    bool const cubic = p.interp == Interp::catmull_rom;
    int const cells = axk.size() - 1;
    using Scratch = kernels::PanelStepScratch<ExecSpace, Real>;
    bool const gpu = run::resident_teams(space_, 1, 0) > 0;  // the backend counts resident teams: a GPU
    if (locate_ == PanelLocate::automatic)
      locate_ = gpu && std::is_same_v<Real, double> ? PanelLocate::scratch : PanelLocate::power;
    if (locate_ == PanelLocate::scratch && Scratch::Policy::scratch_size_max(0) < int(Scratch::scratch_bytes(cells)))
      locate_ = PanelLocate::power;  // the records do not fit a team's scratch: same k' from global memory
    bool const records = locate_ != PanelLocate::bucket;
    // The k axis is the power grid of solve(): nodes lo + (hi - lo) s^k_power.
    Real const lo = Real(p.k_min), hi = Real(p.k_max);
    if (locate_ == PanelLocate::scratch) {
      // A team copies the records once for `chunk` agents, at least 16 per thread, so on a GPU the
      // copies cost a fraction of the agents' bytes. Teams split the agents statically, so the
      // league is one full wave where the backend says how many teams it holds at once
      // (run::resident_teams, at most the launch bounds' teams per multiprocessor; on the H200 in
      // double 5: 660 teams took 0.119 s per panel before the unrolled loads, 792 teams 0.175 s for
      // their second, mostly idle wave, 1,056 teams 0.152 s); on hosts (team size 1) about one
      // chunk per thread. --panel-teams overrides the league.
      typename Scratch::Policy probe(space_, 1, Kokkos::AUTO);
      probe.set_scratch_size(0, Kokkos::PerTeam(Scratch::scratch_bytes(cells)));
      Scratch const f{
          {emp.words, rec_, k_, 0, Real(p.k_min), lo, hi, Real(1) / (hi - lo), float(1.0 / p.k_power), cells}, N_, 1};
      team_size_ = gpu ? int(Scratch::max_team) : probe.team_size_recommended(f, Kokkos::ParallelReduceTag());
      long const wave = run::resident_teams(space_, team_size_, Scratch::scratch_bytes(cells),
                                            int(Scratch::max_team * Scratch::min_teams) / team_size_);
      long const threads = std::max<long>(1, long(space_.concurrency()));
      long const per_thread = std::max<long>(16, (N_ + threads - 1) / threads);
      long const min_chunk = 16L * team_size_;
      if (p.panel_teams > 0)
        chunk_ = std::max<long>(1, (N_ + p.panel_teams - 1) / p.panel_teams);
      else if (wave > 0)
        chunk_ = std::max<long>(min_chunk, (N_ + wave - 1) / wave);
      else
        chunk_ = std::max<long>(1, per_thread * team_size_);
      league_ = int((N_ + chunk_ - 1) / chunk_);
    }
    slices_.reserve(T_);
    for (int t = 0; t < T_; ++t) {
      slices_.push_back({axk, axK, g_, coef_, rec_, sum_, K_path_, invN, t, z[t], cubic, records});
      long const offset = long(t) * emp.nwords;
      kernels::PanelStepPower<Real, Mem> const power{
          emp.words, rec_, k_, offset, Real(p.k_min), lo, hi, Real(1) / (hi - lo), float(1.0 / p.k_power), cells};
      if (locate_ == PanelLocate::power)
        power_steps_.push_back(power);
      else if (locate_ == PanelLocate::scratch)
        scratch_steps_.push_back({power, N_, chunk_});
      else
        steps_.push_back({axk, emp.words, coef_, k_, offset, Real(p.k_min)});
    }
    last_ = {sum_, K_path_, invN, T_};
    if (p.panel_launch == PanelLaunch::graph && !ranks_.several()) {
      graph_ = Kokkos::Experimental::create_graph<ExecSpace>([&](auto root) {
        Kokkos::Experimental::GraphNodeRef<ExecSpace> node = root;  // type-erased: reassigned below
        enqueue([&](auto const& label, auto const& policy,
                    auto const& f) { node = node.then_parallel_for(label, policy, f); },
                [&](auto const& label, auto const& policy, auto const& f, auto const& result) {
                  node = node.then_parallel_reduce(label, policy, f, result);
                });
      });
      graph_->instantiate();  // here, so the first simulation's time is the launch alone
    }
  }

  PanelLocate locate() const { return locate_; }

  // Every simulation starts from this cross-section (one capital per agent of this rank, the sum
  // over all ranks) instead of every agent at initial_capital (a restart).
  void set_initial(Kokkos::View<Real*, Mem> const& k0, double sum) {
    k0_ = k0;
    k0_sum_ = sum;
  }

  // The cross-section the next simulation starts from (empty: every agent at initial_capital)
  // and its sum (over all ranks), for checkpoints.
  Kokkos::View<Real*, Mem> const& initial() const { return k0_; }
  double initial_sum() const { return k0_sum_; }

  // The next simulations start from this one's final cross-section (MMV's MAIN.m: "we use the
  // terminal distribution of the current iteration as initial distribution for a subsequent
  // iteration"), so the panel's distribution is drawn from the ergodic set rather than from a
  // point mass that 100 discarded periods do not wash out. Agents keep their capital; their
  // employment in period 0 is the shocks', as in MMV.
  void carry_final_state() {
    if (carried_.extent(0) == 0)
      carried_ = Kokkos::View<Real*, Mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::capital_carried"), N_);
    Kokkos::deep_copy(space_, carried_, k_);
    double sum = 0;
    Kokkos::deep_copy(space_, sum, sum_);  // the last period's reduction: the sum of k_T (all ranks')
    space_.fence("parity::krusell_smith::carry_final_state");
    set_initial(carried_, sum);
  }

  // Simulates the panel under policy g; returns K_0..K_T on the device (valid once space fences).
  Kokkos::View<double*, Mem> run(G const& g) {
    Kokkos::deep_copy(space_, g_, g);
    if (k0_.extent(0) > 0) {
      Kokkos::deep_copy(space_, k_, k0_);
      Kokkos::deep_copy(space_, sum_, k0_sum_);
    } else {
      Kokkos::deep_copy(space_, k_, Real(initial_capital_));
      Kokkos::deep_copy(space_, sum_, double(initial_capital_) * double(total_));
    }
    auto const for_now = [](auto const& label, auto const& policy, auto const& f) {
      Kokkos::parallel_for(label, policy, f);
    };
    auto const reduce_now = [](auto const& label, auto const& policy, auto const& f, auto const& result) {
      Kokkos::parallel_reduce(label, policy, f, result);
    };
    if (graph_) {
      graph_->submit(space_);
    } else if (!ranks_.several()) {
      enqueue(for_now, reduce_now);
    } else {
      for (int t = 0; t < T_; ++t) {
        enqueue_period(t, for_now, reduce_now);
        add_over_ranks();
      }
      enqueue_last(for_now);
    }
    return K_path_;
  }

 private:
  // The simulation's kernels in order, handed to a launcher: recorded into the graph or run now.
  template <class ForKernel, class ReduceKernel>
  void enqueue(ForKernel&& for_kernel, ReduceKernel&& reduce_kernel) const {
    for (int t = 0; t < T_; ++t) enqueue_period(t, for_kernel, reduce_kernel);
    enqueue_last(for_kernel);
  }

  // Period t: the policy slice at (K_t, z_t), then the agents' step with their capital summed.
  template <class ForKernel, class ReduceKernel>
  void enqueue_period(int t, ForKernel&& for_kernel, ReduceKernel&& reduce_kernel) const {
    using AgentRange = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
    using SliceRange = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    long const cells = long(coef_.extent(1));
    for_kernel(std::string("parity::krusell_smith::policy_slice"), SliceRange(space_, {0, 0}, {2, cells}), slices_[t]);
    if (locate_ == PanelLocate::power)
      reduce_kernel(std::string("parity::krusell_smith::panel_step"), AgentRange(space_, 0, N_), power_steps_[t], sum_);
    else if (locate_ == PanelLocate::scratch)
      reduce_kernel(std::string("parity::krusell_smith::panel_step_scratch"),
                    typename kernels::PanelStepScratch<ExecSpace, Real>::Policy(space_, league_, team_size_)
                        .set_scratch_size(0, Kokkos::PerTeam(kernels::PanelStepScratch<ExecSpace, Real>::scratch_bytes(
                                                 int(rec_.extent(0) / 2)))),
                    scratch_steps_[t], sum_);
    else
      reduce_kernel(std::string("parity::krusell_smith::panel_step_bucket"), AgentRange(space_, 0, N_), steps_[t],
                    sum_);
  }

  template <class ForKernel>
  void enqueue_last(ForKernel&& for_kernel) const {
    for_kernel(std::string("parity::krusell_smith::K_last"), Kokkos::RangePolicy<ExecSpace>(space_, 0, 1), last_);
  }

  // sum_ (this rank's part) replaced by the sum over all ranks, added in rank order through host
  // memory (the MPI of the GPU machines is not CUDA-aware).
  void add_over_ranks() const {
    double part = 0;
    Kokkos::deep_copy(space_, part, sum_);
    space_.fence("parity::krusell_smith::capital_sum_to_host");
    ranks_.sum_in_rank_order(std::span<double>(&part, 1));
    Kokkos::deep_copy(space_, sum_, part);
  }

  ExecSpace space_;
  long N_;  // this rank's agents
  long total_;  // all ranks' agents
  int T_;
  double initial_capital_;
  G g_;
  Kokkos::View<Real***, Mem> coef_;
  Kokkos::View<kernels::CellCubic<Real>*, Mem> rec_;
  Kokkos::View<double, Mem> sum_;
  Kokkos::View<double*, Mem> K_path_;
  Kokkos::View<Real*, Mem> k_;
  Kokkos::View<Real*, Mem> k0_;  // the initial cross-section of a restart; empty: initial_capital
  double k0_sum_ = 0;
  Kokkos::View<Real*, Mem> carried_;  // carry_final_state's copy of k_T
  PanelLocate locate_;
  int team_size_ = 1, league_ = 1;  // scratch: the team policy
  long chunk_ = 1;
  std::vector<kernels::PolicySlice<Axis, G, Real, Mem>> slices_;
  std::vector<kernels::PanelStep<Axis, Real, Mem>> steps_;
  std::vector<kernels::PanelStepPower<Real, Mem>> power_steps_;
  std::vector<kernels::PanelStepScratch<ExecSpace, Real>> scratch_steps_;
  kernels::LastMean<Mem> last_;
  std::optional<Kokkos::Experimental::Graph<ExecSpace>> graph_;
  run::Communicator ranks_;
};

// A restart's cross-section as period 0 of this run's panel. The saved agents have capital k_T
// and their employment in T - 1 (aggregate state z_prev); this run's shocks already fix who is
// unemployed in period 0. As the exact draw would from the saved employment, exactly
// m = round(pi00(z_prev -> z_0) U_prev) of the period-0 unemployed take the capital of a
// previously unemployed agent and the rest of them that of a previously employed one; the
// employed take the remaining capitals. Within each group the saved agents are taken in a
// uniformly random order (Philox Fisher-Yates keyed by the seed), so the pairs (capital,
// employment) are those the chain gives and the capitals are the saved ones, each used once.
// employed0[i]: agent i employed in period 0 of this run. Host code, once per solve.
inline std::vector<double> restart_cross_section(Params const& p, Chain const& c, int z0,
                                                 std::vector<std::int32_t> const& employed0) {
  auto const& st = p.start;
  std::size_t const N = st.capital.size();
  require(employed0.size() == N && st.employed.size() == N,
          "restart: the saved cross-section and this run's panel differ in size");
  std::vector<std::size_t> from_u, from_e;  // saved agents, by their employment in T - 1
  for (std::size_t j = 0; j < N; ++j) (st.employed[j] ? from_e : from_u).push_back(j);
  auto shuffle = [&](std::vector<std::size_t>& v, std::uint64_t stream) {
    for (std::size_t i = v.size(); i > 1; --i) {
      auto const b = random::philox_block(p.seed, stream, std::uint64_t(i));
      auto const j = std::min(std::size_t(random::uniform_double(b.v[0], b.v[1]) * double(i)), i - 1);
      std::swap(v[i - 1], v[j]);
    }
  };
  shuffle(from_u, restart_stream);
  shuffle(from_e, restart_stream + 1);
  long const U_prev = long(from_u.size());
  long U = 0;
  for (auto e : employed0) U += e ? 0 : 1;
  long m = std::lround(c.p00[st.z_prev][z0] * double(U_prev));
  m = std::min(m, std::min(U_prev, U));
  m = std::max(m, U - (long(N) - U_prev));
  // Unemployed in period 0 take from_u[0, m) then from_e[0, U - m); the employed the rest.
  std::size_t next_u_for_u = 0, next_e_for_u = 0;
  std::size_t next_u_for_e = std::size_t(m), next_e_for_e = std::size_t(U - m);
  std::vector<double> k(N);
  for (std::size_t i = 0; i < N; ++i) {
    std::size_t j;
    if (!employed0[i])
      j = next_u_for_u < std::size_t(m) ? from_u[next_u_for_u++] : from_e[next_e_for_u++];
    else
      j = next_u_for_e < from_u.size() ? from_u[next_u_for_e++] : from_e[next_e_for_e++];
    k[i] = st.capital[j];
  }
  return k;
}

}  // namespace parity::krusell_smith::detail
