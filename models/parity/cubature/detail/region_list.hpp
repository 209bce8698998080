#pragma once
// The region list of the cubature integrator: boxes (center, half-widths) with their estimates,
// errors and split axes in device Views, and the kernels that fill it (the even partition, the
// rule applied to every region, the split of flagged regions into a new list).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/cubature/options.hpp"
#include "parity/cubature/rule.hpp"
#include "parity/cubature/rule9.hpp"

namespace parity::cubature::detail {

template <class Mem>
using Matrix = algorithms::ColumnMatrix<Mem>;

template <class Real, class Mem>
struct RegionList {
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> center, half;
  Kokkos::View<Real*, Mem> estimate, error;
  Kokkos::View<int*, Mem> axis;
  RegionList() = default;
  // Not zero-filled: entries are written (partition, split, evaluation) before they are read.
  RegionList(std::int64_t capacity, int n)
      : center(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::center"), capacity, n),
        half(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::half_width"), capacity, n),
        estimate(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::estimate"), capacity),
        error(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::error"), capacity),
        axis(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::axis"), capacity) {}
};

template <class ExecutionSpace>
int resolve_team_size(int requested) {
  if (requested > 0) return requested;
  bool const host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible;
  return host ? 1 : 32;
}

// Refuses a team above `largest`, the most this backend runs the kernel with (past it the launch
// itself fails); checked before anything is allocated.
template <class ExecutionSpace>
void require_team_size(int requested, int largest) {
  int const team = resolve_team_size<ExecutionSpace>(requested);
  require(team <= largest, "team size " + std::to_string(team) +
                               " is above the largest team this backend runs the cubature kernels with (" +
                               std::to_string(largest) + ")");
}

// The box [lower, upper] as the kernels take it: bounds and half-widths per axis.
inline void box_arrays(std::vector<double> const& lower, std::vector<double> const& upper,
                       Kokkos::Array<double, max_dim>& lo, Kokkos::Array<double, max_dim>& hi,
                       Kokkos::Array<double, max_dim>& half) {
  for (std::size_t i = 0; i < lower.size(); ++i) {
    lo[i] = lower[i];
    hi[i] = upper[i];
    half[i] = 0.5 * (upper[i] - lower[i]);
  }
}

// Pieces per axis of the even partition into about `target` regions (at most target), as equal
// along every axis as the product allows.
inline Kokkos::Array<int, max_dim> even_partition_counts(std::int64_t target, int n) {
  Kokkos::Array<int, max_dim> counts{};
  int base = std::max(1, int(std::floor(std::pow(double(target), 1.0 / n))));
  auto power = [&](int b) {
    std::int64_t p = 1;
    for (int i = 0; i < n && p <= target; ++i) p *= b;
    return p;
  };
  while (power(base + 1) <= target) ++base;
  while (base > 1 && power(base) > target) --base;
  std::int64_t product = power(base);
  for (int i = 0; i < n; ++i) counts[i] = base;
  for (int i = 0; i < n; ++i)
    if (product / base * (base + 1) <= target) {
      counts[i] = base + 1;
      product = product / base * (base + 1);
    }
  return counts;
}

// Regions r = 0..count-1 of the even partition with counts[i] pieces along axis i.
template <class ExecutionSpace, class Real>
void even_partition(ExecutionSpace const& space, RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                    int n, std::int64_t count, Kokkos::Array<int, max_dim> counts, Kokkos::Array<double, max_dim> lower,
                    Kokkos::Array<double, max_dim> upper) {
  auto const center = list.center;
  auto const half = list.half;
  Kokkos::parallel_for(
      "parity::cubature::even_partition", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r) {
        std::int64_t rest = r;
        for (int i = 0; i < n; ++i) {
          int const d = int(rest % counts[i]);
          rest /= counts[i];
          double const w = (upper[i] - lower[i]) / counts[i];
          center(r, i) = Real(lower[i] + (d + 0.5) * w);
          half(r, i) = Real(0.5 * w);
        }
      });
}

// The integrand of every region of integrate()'s list: the same functor (integrate_family's
// lists pick one per region).
template <class F>
struct SameIntegrand {
  F f;
  KOKKOS_INLINE_FUNCTION F const& operator()(std::int64_t) const { return f; }
};

// Applies the rule to regions first..count-1 of the list, one team per region, region r with the
// integrand integrand_of(r). With largest_team set, launches nothing and stores there the largest
// team the backend runs this kernel with (team_size is then unused).
template <class ExecutionSpace, class Real, class Select>
void evaluate_regions_of(ExecutionSpace const& space, Select const& integrand_of, int n,
                         RegionList<Real, typename ExecutionSpace::memory_space> const& list, std::int64_t count,
                         int team_size, Kokkos::View<int*, typename ExecutionSpace::memory_space> finite,
                         NullRules<Real> const& nulls, std::int64_t first, int* largest_team,
                         std::string const& label) {
  if (count <= first && !largest_team) return;
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using Scratch = Kokkos::View<Real*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  auto const center = list.center;
  auto const half = list.half;
  auto const estimate = list.estimate;
  auto const error = list.error;
  auto const axis = list.axis;
  std::size_t const bytes = Scratch::shmem_size(rule_scratch_reals<Real>());
  auto const kernel = KOKKOS_LAMBDA(typename Policy::member_type const& team) {
    std::int64_t const r = first + team.league_rank();
    Scratch s(team.team_scratch(0), rule_scratch_reals<Real>());
    auto const e = evaluate_rule(team, integrand_of(r), n, &center(r, 0), &half(r, 0), s.data(), nulls);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      estimate(r) = e.integral;
      error(r) = e.error;
      axis(r) = e.axis;
      finite(r) = e.finite ? 1 : 0;
    });
  };
  if (largest_team) {
    // A team of one is within every backend's limit (a larger request may throw right here).
    *largest_team =
        Policy(space, 1, 1).set_scratch_size(0, Kokkos::PerTeam(bytes)).team_size_max(kernel, Kokkos::ParallelForTag());
    return;
  }
  Kokkos::parallel_for(label, Policy(space, int(count - first), team_size).set_scratch_size(0, Kokkos::PerTeam(bytes)),
                       kernel);
}

// evaluate_regions_of with f for every region (integrate()'s lists).
template <class ExecutionSpace, class Real, class F>
void evaluate_list(ExecutionSpace const& space, F const& f, int n,
                   RegionList<Real, typename ExecutionSpace::memory_space> const& list, std::int64_t count,
                   int team_size, Kokkos::View<int*, typename ExecutionSpace::memory_space> finite,
                   NullRules<Real> const& nulls, std::int64_t first = 0, int* largest_team = nullptr) {
  evaluate_regions_of<ExecutionSpace, Real>(space, SameIntegrand<F>{f}, n, list, count, team_size, finite, nulls, first,
                                            largest_team, "parity::cubature::phase1_evaluate");
}

// Writes the d pieces of every flagged region (offset from the scan) into `to`. With d = 1 the
// flagged regions are copied together with their estimates (the hand-over to phase 2). Only the
// flagged regions whose offset lies in [first, last) are written, to slots from 0.
template <class ExecutionSpace, class Real>
void split_flagged(ExecutionSpace const& space, int n,
                   RegionList<Real, typename ExecutionSpace::memory_space> const& from, std::int64_t count,
                   Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
                   Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> offset, int d,
                   RegionList<Real, typename ExecutionSpace::memory_space> const& to,
                   Kokkos::View<Real*, typename ExecutionSpace::memory_space> parent = {}, std::int64_t first = 0,
                   std::int64_t last = std::numeric_limits<std::int64_t>::max()) {
  auto const fc = from.center;
  auto const fh = from.half;
  auto const fe = from.estimate;
  auto const fr = from.error;
  auto const fa = from.axis;
  auto const tc = to.center;
  auto const th = to.half;
  auto const te = to.estimate;
  auto const tr = to.error;
  auto const ta = to.axis;
  bool const keep_parent = d > 1 && parent.extent(0) > 0;
  Kokkos::parallel_for(
      "parity::cubature::split", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count), KOKKOS_LAMBDA(std::int64_t r) {
        if (!flag(r) || offset(r) < first || offset(r) >= last) return;
        std::int64_t const slot = offset(r) - first;
        if (keep_parent) parent(slot) = fe(r);
        int const a = fa(r);
        Real const h = fh(r, a) / Real(d);
        Real const left = fc(r, a) - fh(r, a);
        for (int k = 0; k < d; ++k) {
          std::int64_t const o = slot * d + k;
          for (int i = 0; i < n; ++i) {
            tc(o, i) = fc(r, i);
            th(o, i) = fh(r, i);
          }
          if (d > 1) {
            tc(o, a) = left + Real(2 * k + 1) * h;
            th(o, a) = h;
          } else {
            te(o) = fe(r);
            tr(o) = fr(r);
            ta(o) = fa(r);
          }
        }
      });
}

// Volume of region r as a fraction of the whole box.
template <class Real, class View>
KOKKOS_INLINE_FUNCTION double volume_fraction(View const& half, std::int64_t r, int n,
                                              Kokkos::Array<double, max_dim> const& box_half) {
  double v = 1;
  for (int i = 0; i < n; ++i) v *= double(half(r, i)) / box_half[i];
  return v;
}

}  // namespace parity::cubature::detail
