#pragma once
// The kernels of value function iteration on a grid choice: the conditional expectation over the
// Markov chain, the Bellman update with its maximisation, the policy-evaluation (Howard) step, and
// the spread of TV - V. Each reads and writes whole tables; value_iteration.hpp sequences them.
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "parity/dp/options.hpp"

namespace parity::dp::detail {

template <class Real, class MemorySpace>
using Table = Kokkos::View<Real**, Kokkos::LayoutRight, MemorySpace>;

// Kernels over the (z, i) cells of an n_z x n_k table run as one flat range, at = z n_k + i. A
// 2-D MDRange would leave host threads idle (Kokkos tiles the outer extent by 2 and takes the inner
// one whole: n_z / 2 tiles) and reduces slowly on GPUs (a fixed grid of blocks walking tiles).
// Each cell's work is independent and the reductions are min and max, so results do not depend
// on the order.
template <class F>
struct OnCells {
  F f;
  int nk;
  KOKKOS_FUNCTION void operator()(int at) const { f(at / nk, at % nk); }
};

template <class F, class... Value>
struct ReduceOnCells {
  F f;
  int nk;
  KOKKOS_FUNCTION void operator()(int at, Value&... v) const { f(at / nk, at % nk, v...); }
};

template <class ExecutionSpace, class F>
void for_cells(std::string const& label, ExecutionSpace const& space, int nz, int nk, F const& f) {
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, nz * nk), OnCells<F>{f, nk});
}

template <class ExecutionSpace, class F, class... Reducer>
void reduce_cells(std::string const& label, ExecutionSpace const& space, int nz, int nk, F const& f,
                  Reducer const&... reducers) {
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, nz * nk),
                          ReduceOnCells<F, typename Reducer::value_type...>{f, nk}, reducers...);
}

// The device tables of a grid-choice solve, with the problem and the starting V (n_z x n_k
// row-major; empty: zero) uploaded. Value iteration and backward induction share them.
template <class Real, class MemorySpace>
struct GridChoiceTables {
  Kokkos::View<Real*, MemorySpace> grid, zvalues;
  Table<Real, MemorySpace> P, V, TV, EV, R;  // R: the reward at the policy
  Table<int, MemorySpace> policy;

  template <class ExecutionSpace, class Model>
  GridChoiceTables(ExecutionSpace const& space, GridChoiceProblem<Model> const& problem,
                   std::vector<double> const& initial_value) {
    int const nz = int(problem.exogenous.size()), nk = int(problem.grid.size());
    grid = Kokkos::View<Real*, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::grid"), nk);
    zvalues = Kokkos::View<Real*, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::exogenous_values"), nz);
    P = Table<Real, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::transition"), nz, nz);
    V = Table<Real, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::value"), nz, nk);
    TV = Table<Real, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::bellman_value"), nz, nk);
    EV = Table<Real, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::expected_value"), nz, nk);
    R = Table<Real, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::reward_at_policy"), nz, nk);
    policy = Table<int, MemorySpace>(Kokkos::view_alloc(space, "parity::dp::policy"), nz, nk);
    auto g = Kokkos::create_mirror_view(grid);
    auto zv = Kokkos::create_mirror_view(zvalues);
    auto p = Kokkos::create_mirror_view(P);
    auto v = Kokkos::create_mirror_view(V);
    for (int i = 0; i < nk; ++i) g(i) = Real(problem.grid[i]);
    for (int z = 0; z < nz; ++z) {
      zv(z) = Real(problem.exogenous.values[z]);
      for (int zn = 0; zn < nz; ++zn) p(z, zn) = Real(problem.exogenous.probability(z, zn));
      for (int i = 0; i < nk; ++i) v(z, i) = initial_value.empty() ? Real(0) : Real(initial_value[z * nk + i]);
    }
    Kokkos::deep_copy(space, grid, g);
    Kokkos::deep_copy(space, zvalues, zv);
    Kokkos::deep_copy(space, P, p);
    Kokkos::deep_copy(space, V, v);
    space.fence("parity::dp::upload");
  }
};

// EV(z, j) = sum_z' P(z, z') V(z', j), summed in the order of z' (the same on every backend).
template <class ExecutionSpace, class Real, class MemorySpace>
void expected_value(ExecutionSpace const& space, Table<const Real, MemorySpace> const& P,
                    Table<const Real, MemorySpace> const& V, Table<Real, MemorySpace> const& EV) {
  int const nz = int(V.extent(0)), nk = int(V.extent(1));
  for_cells(
      "parity::dp::expected_value", space, nz, nk, KOKKOS_LAMBDA(int z, int j) {
        Real s = 0;
        for (int zn = 0; zn < nz; ++zn) s += P(z, zn) * V(zn, j);
        EV(z, j) = s;
      });
}

// The model's reward in period `period` (models whose reward depends on age take it first).
template <class Real, class Model>
KOKKOS_INLINE_FUNCTION Real period_reward(Model const& m, int period, Real z, Real k, Real k_next) {
  if constexpr (requires { m.reward(period, z, k, k_next); })
    return Real(m.reward(period, z, k, k_next));
  else
    return Real(m.reward(z, k, k_next));
}

// The objective of choosing grid point j in state (z, i) in period `period` (0: a stationary problem).
template <class Real, class Model, class MemorySpace>
struct Objective {
  Model model;
  Kokkos::View<const Real*, MemorySpace> grid;
  Table<const Real, MemorySpace> EV;
  Real beta;
  int period = 0;
  KOKKOS_INLINE_FUNCTION Real reward(Real zv, Real k, int j) const {
    return period_reward<Real>(model, period, zv, k, grid(j));
  }
  KOKKOS_INLINE_FUNCTION Real operator()(Real zv, int z, Real k, int j) const {
    return reward(zv, k, j) + beta * EV(z, j);
  }
};

// The best j in [lo, hi] for state (z, i) and its objective. Ties go to the smallest j on every backend.
template <class Real, class Model, class MemorySpace>
KOKKOS_INLINE_FUNCTION int best_choice(Objective<Real, Model, MemorySpace> const& f, Search search, Real zv, int z,
                                       Real k, int lo, int hi, Real& best) {
  if (search == Search::concave) {
    // A strictly concave objective rises, then falls: halve [lo, hi] on the sign of the step at the
    // midpoint. Infeasible choices (-infinity) lie above the feasible ones and compare as a fall.
    while (hi - lo > 2) {
      int const mid = lo + (hi - lo) / 2;
      if (f(zv, z, k, mid) < f(zv, z, k, mid + 1))
        lo = mid + 1;
      else
        hi = mid;
    }
  }
  int arg = lo;
  best = f(zv, z, k, lo);
  for (int j = lo + 1; j <= hi; ++j) {
    Real const v = f(zv, z, k, j);
    if (v > best) best = v, arg = j;
  }
  return arg;
}

// TV(z, i) = max_j reward(z, k_i, k_j) + beta EV(z, j); the argmax and the reward there.
//
// A declared-monotone policy (j*(z, i) non-decreasing in i) is found level by level: the two ends
// with every choice, then at level l = 1, 2, ... the points i = floor((2q + 1) N / 2^l) (N = n_k - 1)
// between the neighbours a, b of the level before, searching only [j*(a), j*(b)]. Each level is
// one kernel and evaluates at most 2 n_k choices per z, so a sweep costs about 2 n_k log2(n_k)
// instead of n_k^2; the maximiser is the exhaustive search's whenever the policy is monotone.
template <class ExecutionSpace, class Real, class Model, class MemorySpace>
void bellman_update(ExecutionSpace const& space, Objective<Real, Model, MemorySpace> const& f,
                    Kokkos::View<const Real*, MemorySpace> const& zvalues, Search search, bool monotone,
                    Table<Real, MemorySpace> const& TV, Table<int, MemorySpace> const& policy,
                    Table<Real, MemorySpace> const& reward_at_policy) {
  int const nz = int(TV.extent(0)), nk = int(TV.extent(1));
  auto const update = KOKKOS_LAMBDA(int z, int i, int lo, int hi) {
    Real const zv = zvalues(z), k = f.grid(i);
    Real best;
    int const j = best_choice(f, search, zv, z, k, lo, hi, best);
    TV(z, i) = best;
    policy(z, i) = j;
    reward_at_policy(z, i) = f.reward(zv, k, j);
  };
  if (!monotone) {
    for_cells(
        "parity::dp::bellman_update", space, nz, nk, KOKKOS_LAMBDA(int z, int i) { update(z, i, 0, nk - 1); });
    return;
  }
  long const N = nk - 1;
  for_cells(
      "parity::dp::bellman_update_monotone", space, nz, 2,
      KOKKOS_LAMBDA(int z, int end) { update(z, end == 0 ? 0 : int(N), 0, nk - 1); });
  for (int level = 1; (1L << (level - 1)) < N; ++level) {
    int const points = int(1L << (level - 1));
    for_cells(
        "parity::dp::bellman_update_monotone", space, nz, points, KOKKOS_LAMBDA(int z, int q) {
          int const a = int((2L * q) * N >> level), b = int((2L * q + 2) * N >> level);
          int const i = int((2L * q + 1) * N >> level);
          if (i == a || i == b) return;  // computed at an earlier level
          update(z, i, policy(z, a), policy(z, b));
        });
  }
}

// One policy-evaluation step: Vnext(z, i) = R(z, i) + beta sum_z' P(z, z') V(z', policy(z, i)).
// One Bellman sweep over the tables: EV = P V, then TV, the policy and its reward R.
template <class ExecutionSpace, class Real, class Model, class MemorySpace>
void bellman_sweep(ExecutionSpace const& space, GridChoiceTables<Real, MemorySpace>& t,
                   Objective<Real, Model, MemorySpace> const& f, Search search, bool monotone) {
  expected_value<ExecutionSpace, Real, MemorySpace>(space, t.P, t.V, t.EV);
  bellman_update<ExecutionSpace, Real, Model, MemorySpace>(space, f, t.zvalues, search, monotone, t.TV, t.policy, t.R);
}

template <class ExecutionSpace, class Real, class MemorySpace>
void howard_step(ExecutionSpace const& space, Table<const Real, MemorySpace> const& P,
                 Table<const int, MemorySpace> const& policy, Table<const Real, MemorySpace> const& reward_at_policy,
                 Real beta, Table<const Real, MemorySpace> const& V, Table<Real, MemorySpace> const& Vnext) {
  int const nz = int(V.extent(0)), nk = int(V.extent(1));
  for_cells(
      "parity::dp::policy_evaluation", space, nz, nk, KOKKOS_LAMBDA(int z, int i) {
        int const j = policy(z, i);
        Real s = 0;
        for (int zn = 0; zn < nz; ++zn) s += P(z, zn) * V(zn, j);
        Vnext(z, i) = reward_at_policy(z, i) + beta * s;
      });
}

// min and max of TV - V (order-independent, so the same on every backend); NaN when any is.
template <class ExecutionSpace, class Real, class MemorySpace>
void difference_range(ExecutionSpace const& space, Table<const Real, MemorySpace> const& TV,
                      Table<const Real, MemorySpace> const& V, double& lo, double& hi) {
  int const nz = int(V.extent(0)), nk = int(V.extent(1));
  Real mn, mx;
  int bad = 0;  // the Max reducer starts from its identity, INT_MIN, where no thread sets it
  reduce_cells(
      "parity::dp::difference_range", space, nz, nk,
      KOKKOS_LAMBDA(int z, int i, Real& lmin, Real& lmax, int& lbad) {
        Real const d = TV(z, i) - V(z, i);
        if (!(d == d) || Kokkos::isinf(d) || Kokkos::isinf(TV(z, i))) lbad = 1;
        lmin = d < lmin ? d : lmin;
        lmax = d > lmax ? d : lmax;
      },
      Kokkos::Min<Real>(mn), Kokkos::Max<Real>(mx), Kokkos::Max<int>(bad));
  double const nan = Kokkos::Experimental::quiet_NaN<double>::value;
  lo = bad > 0 ? nan : double(mn);
  hi = bad > 0 ? nan : double(mx);
}

// V += shift everywhere.
template <class ExecutionSpace, class Real, class MemorySpace>
void shift(ExecutionSpace const& space, Table<Real, MemorySpace> const& V, Real s) {
  int const nz = int(V.extent(0)), nk = int(V.extent(1));
  for_cells(
      "parity::dp::shift", space, nz, nk, KOKKOS_LAMBDA(int z, int i) { V(z, i) += s; });
}

}  // namespace parity::dp::detail
