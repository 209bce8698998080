#pragma once
// One sweep over the grid (solver.hpp): policy evaluation or a Bellman update of this rank's slab,
// the slabs' exchange between ranks, and the grid fills the stages start from.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "parity/dual_control/detail/objective.hpp"
#include "parity/dual_control/detail/problem.hpp"
#include "parity/dual_control/params.hpp"
#include "parity/run/communicator.hpp"

namespace parity::dual_control::detail {

// Sup-norm statistics of one sweep: max and min of V_new - V_old, max |V_new|.
template <class Real>
struct SweepStats {
  Real dmax, dmin, vmax;
  long evaluations;  // objective evaluations (each NGH trilinear gathers of 8 values)
};

// gather_slabs' host buffers (this rank's slab, the grid; doubles in float), sized once per solve;
// none where the ranks gather in place.
template <class Real>
struct SlabBuffers {
  Kokkos::View<Real*, Kokkos::HostSpace> slab, grid;
  std::vector<double> slab_values, grid_values;  // float only
  SlabBuffers(run::Communicator const& ranks, long n) {
    if (!ranks.several() || ranks.gathers_in_place()) return;
    slab = decltype(slab)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::dual_control::slab_host"),
                          std::size_t(ranks.last(n) - ranks.first(n)));
    grid = decltype(grid)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::dual_control::slabs_host"),
                          std::size_t(n));
    if constexpr (!std::is_same_v<Real, double>) slab_values.resize(slab.size()), grid_values.resize(grid.size());
  }
};

// Every rank's slab [ranks.first(n), ranks.last(n)) of g (n points, contiguous in memory order)
// copied into g on every rank. Where the ranks gather in place (NCCL on CUDA) the slabs move
// device to device; else through host memory (the GPU machines' MPI is not CUDA-aware): one copy
// of the slab out, the all-gather, one copy of the grid back, float travelling as double (exact).
// Either way g holds the same bits on every rank.
template <class ExecutionSpace, class Real, class MemorySpace>
void gather_slabs(ExecutionSpace const& space, run::Communicator const& ranks, Grid3<Real, MemorySpace> const& g,
                  SlabBuffers<Real>& b) {
  if (!ranks.several()) return;
  long const n = long(g.size()), p0 = ranks.first(n), p1 = ranks.last(n);
  if (ranks.gathers_in_place()) {
    space.fence("parity::dual_control::slab_written");
    ranks.all_gather_in_place(g.data(), n, sizeof(Real));
    return;
  }
  Kokkos::View<Real*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> const flat(g.data(), std::size_t(n));
  Kokkos::deep_copy(space, b.slab, Kokkos::subview(flat, Kokkos::pair<long, long>(p0, p1)));
  space.fence("parity::dual_control::slab_to_host");
  if constexpr (std::is_same_v<Real, double>) {
    ranks.all_gather(std::span<double const>(b.slab.data(), b.slab.size()),
                     std::span<double>(b.grid.data(), b.grid.size()));
  } else {
    std::copy(b.slab.data(), b.slab.data() + b.slab.size(), b.slab_values.begin());
    ranks.all_gather(b.slab_values, b.grid_values);
    std::copy(b.grid_values.begin(), b.grid_values.end(), b.grid.data());
  }
  Kokkos::deep_copy(space, flat, b.grid);
  space.fence("parity::dual_control::slabs_to_device");
}

// The statistics of one sweep over all ranks' slabs (exact: maxima, minima, an integer sum).
template <class Real>
SweepStats<Real> global_stats(run::Communicator const& ranks, SweepStats<Real> st) {
  if (!ranks.several()) return st;
  st.dmax = Real(ranks.max(double(st.dmax)));
  st.dmin = Real(ranks.min(double(st.dmin)));
  st.vmax = Real(ranks.max(double(st.vmax)));
  std::int64_t e[1] = {st.evaluations};
  ranks.sum(e);
  st.evaluations = long(e[0]);
  return st;
}

// One policy-evaluation sweep: V_new = L(S, u(S)) + delta E V_old(S').
template <class ExecutionSpace, class Real, class MemorySpace>
SweepStats<Real> evaluate_policy(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem,
                                 Grid3<Real, MemorySpace> const& v_old, Grid3<Real, MemorySpace> const& policy,
                                 Grid3<Real, MemorySpace> const& v_new, run::Communicator const& ranks = {}) {
  int const nmu = int(v_old.extent(1)), ns = int(v_old.extent(2));
  long const n = long(v_old.extent(0)) * nmu * ns, p0 = ranks.first(n), p1 = ranks.last(n);
  Grid3<Real const, MemorySpace> const vo = v_old;
  SweepStats<Real> st{};
  Kokkos::parallel_reduce(
      "parity::dual_control::policy_evaluation",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, p0, p1),
      KOKKOS_LAMBDA(long p, Real& dmax, Real& dmin, Real& vmax) {
        int const i = int(p / (long(nmu) * ns)), j = int((p / ns) % nmu), k = int(p % ns);
        Real const x = problem.ax.node(i), mu = problem.amu.node(j), S = problem.asg.node(k);
        Real const vn = problem.objective(vo, x, mu, S, policy(i, j, k));
        Real const d = vn - vo(i, j, k);
        v_new(i, j, k) = vn;
        dmax = d > dmax ? d : dmax;
        dmin = d < dmin ? d : dmin;
        Real const a = Kokkos::fabs(vn);
        vmax = a > vmax ? a : vmax;
      },
      Kokkos::Max<Real>(st.dmax), Kokkos::Min<Real>(st.dmin), Kokkos::Max<Real>(st.vmax));
  st.evaluations = p1 - p0;
  return st;
}

// One Bellman sweep: V_new = min_u {L + delta E V_old}, u_new its minimiser.
template <class ExecutionSpace, class Real, class MemorySpace>
SweepStats<Real> bellman_update(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem,
                                Grid3<Real, MemorySpace> const& v_old, Grid3<Real, MemorySpace> const& v_new,
                                Grid3<Real, MemorySpace> const& policy, BrentSettings const& bs,
                                run::Communicator const& ranks = {}) {
  int const nmu = int(v_old.extent(1)), ns = int(v_old.extent(2));
  long const n = long(v_old.extent(0)) * nmu * ns, p0 = ranks.first(n), p1 = ranks.last(n);
  Grid3<Real const, MemorySpace> const vo = v_old;
  SweepStats<Real> st{};
  // At most 64 registers a thread (8 blocks of 128 threads per SM on CUDA): the objective's gathers
  // wait on memory, and the occupancy this buys outweighs the spills. At 256^3 on an H200 the
  // Bellman sweeps ran 12 % faster than at 128 registers (4 blocks) and 2 % slower at 2 blocks.
  using Bounds = Kokkos::LaunchBounds<128, 8>;
  Kokkos::parallel_reduce(
      "parity::dual_control::bellman_update",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>, Bounds>(space, p0, p1),
      KOKKOS_LAMBDA(long p, Real& dmax, Real& dmin, Real& vmax, long& evaluations) {
        int const i = int(p / (long(nmu) * ns)), j = int((p / ns) % nmu), k = int(p % ns);
        Real const x = problem.ax.node(i), mu = problem.amu.node(j), S = problem.asg.node(k);
        auto const r = minimize_objective(problem, vo, x, mu, S, policy(i, j, k), bs);
        evaluations += r.evaluations;
        Real const d = r.fx - vo(i, j, k);
        v_new(i, j, k) = r.fx;
        policy(i, j, k) = r.x;
        dmax = d > dmax ? d : dmax;
        dmin = d < dmin ? d : dmin;
        Real const a = Kokkos::fabs(r.fx);
        vmax = a > vmax ? a : vmax;
      },
      Kokkos::Max<Real>(st.dmax), Kokkos::Min<Real>(st.dmin), Kokkos::Max<Real>(st.vmax),
      Kokkos::Sum<long>(st.evaluations));
  return st;
}

template <class ExecutionSpace, class Real, class MemorySpace>
void fill_policy(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem, Policy which,
                 Grid3<Real, MemorySpace> const& policy) {
  int const nmu = int(policy.extent(1)), ns = int(policy.extent(2));
  long const n = long(policy.extent(0)) * nmu * ns;
  bool const myopic = which == Policy::myopic;
  Kokkos::parallel_for(
      "parity::dual_control::fill_policy", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, n),
      KOKKOS_LAMBDA(long p) {
        int const i = int(p / (long(nmu) * ns)), j = int((p / ns) % nmu), k = int(p % ns);
        policy(i, j, k) =
            myopic ? problem.myopic(problem.ax.node(i), problem.amu.node(j), problem.asg.node(k)) : Real(0);
      });
}

template <class ExecutionSpace, class Real, class MemorySpace>
void add_constant(ExecutionSpace const& space, Grid3<Real, MemorySpace> const& v, Real c) {
  long const n = long(v.size());
  Real* data = v.data();
  Kokkos::parallel_for(
      "parity::dual_control::shift", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, n),
      KOKKOS_LAMBDA(long p) { data[p] += c; });
}

// V = the inert closed form V0(x), a start with the shape and size of the solution's.
template <class ExecutionSpace, class Real, class MemorySpace>
void fill_inert_value(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem,
                      Grid3<Real, MemorySpace> const& v) {
  int const nmu = int(v.extent(1)), ns = int(v.extent(2));
  long const n = long(v.extent(0)) * nmu * ns;
  Kokkos::parallel_for(
      "parity::dual_control::fill_inert_value",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, n), KOKKOS_LAMBDA(long p) {
        int const i = int(p / (long(nmu) * ns)), j = int((p / ns) % nmu), k = int(p % ns);
        v(i, j, k) = problem.inert_value(problem.ax.node(i));
      });
}

}  // namespace parity::dual_control::detail
