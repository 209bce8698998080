#pragma once
// The degree-9 rule (rule9.hpp) applied to a vector-valued integrand: every point is evaluated
// once for all m components, each component gets the scalar rule's estimate and error from its
// own values, and the region gets one split axis from the components' fourth differences summed
// (hcubature's choice for vector integrands).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "parity/cubature/detail/region_list.hpp"
#include "parity/cubature/detail/two_level.hpp"
#include "parity/cubature/rule.hpp"
#include "parity/cubature/rule9.hpp"

namespace parity::cubature::detail {

// One value per component, summed elementwise by team reductions.
template <class Real>
struct VectorValues {
  Real v[max_vector_components];
};

template <class Real>
struct VectorValuesSum {
  using reducer = VectorValuesSum;
  using value_type = VectorValues<Real>;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  value_type& value;
  KOKKOS_INLINE_FUNCTION explicit VectorValuesSum(value_type& v) : value(v) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, value_type const& src) const {
    for (int k = 0; k < max_vector_components; ++k) dest.v[k] += src.v[k];
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    for (int k = 0; k < max_vector_components; ++k) v.v[k] = Real(0);
  }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return value; }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return result_view_type(&value, 1); }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }
};

// The region list of a vector integrand: the boxes and split axes (estimate and error of `boxes`
// stay empty) and m estimates and errors per region.
template <class Real, class Mem>
struct VectorRegionList {
  RegionList<Real, Mem> boxes;
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> estimate, error;
  VectorRegionList() = default;
  // Not zero-filled: entries are written (partition, split, evaluation) before they are read.
  VectorRegionList(std::int64_t capacity, int n, int m)
      : estimate(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::vector_estimate"), capacity, m),
        error(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::vector_error"), capacity, m) {
    boxes.center = decltype(boxes.center)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::center"),
                                          capacity, n);
    boxes.half = decltype(boxes.half)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::half_width"),
                                      capacity, n);
    boxes.axis =
        decltype(boxes.axis)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::axis"), capacity);
  }
  std::int64_t capacity() const { return std::int64_t(estimate.extent(0)); }
};

// Adds the m values of f at p to acc.
template <class Real, class F>
KOKKOS_INLINE_FUNCTION void add_values(F const& f, Point<Real> const& p, int m, VectorValues<Real>& acc) {
  Real values[max_vector_components];
  f(p, values);
  for (int k = 0; k < m; ++k) acc.v[k] += values[k];
}

// The degree-9 rule on regions 0..count-1, one team per region; component k's rule scratch is
// the block k * rule_scratch_reals() of the team's scratch, laid out as the scalar rule's. With
// largest_team set, launches nothing and stores there the largest team the backend runs this
// kernel with.
template <class ExecutionSpace, class Real, class F>
void evaluate_vector_regions(ExecutionSpace const& space, F const& f, int m, int n,
                             VectorRegionList<Real, typename ExecutionSpace::memory_space> const& list,
                             std::int64_t count, int team_size,
                             Kokkos::View<int*, typename ExecutionSpace::memory_space> finite,
                             NullRules<Real> const& nulls, int* largest_team = nullptr) {
  if (count <= 0 && !largest_team) return;
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using Scratch = Kokkos::View<Real*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  auto const center = list.boxes.center;
  auto const half = list.boxes.half;
  auto const axis = list.boxes.axis;
  auto const estimate = list.estimate;
  auto const error = list.error;
  int const block = int(rule_scratch_reals<Real>());
  std::size_t const bytes = Scratch::shmem_size(std::size_t(block) * m);
  auto const kernel = KOKKOS_LAMBDA(typename Policy::member_type const& team) {
    std::int64_t const r = team.league_rank();
    Scratch s(team.team_scratch(0), std::size_t(block) * m);
    Real* const scratch = s.data();
    Real const* const c = &center(r, 0);
    Real const* const h = &half(r, 0);
    Degree9Weights<Real> const& k = nulls.nine;
    // The center and the axis points +-g1..+-g4, component j's values in block j.
    Real const offset[8] = {k.g[0], -k.g[0], k.g[1], -k.g[1], k.g[2], -k.g[2], k.g[3], -k.g[3]};
    visit_axis_points(team, n, c, h, offset, [&](Point<Real> const& p, int slot) {
      Real values[max_vector_components];
      f(p, values);
      for (int j = 0; j < m; ++j) scratch[j * block + slot] = values[j];
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * m),
                         [&](int q) { degree9_axis_sums(scratch + (q / n) * block, q % n, k); });

    VectorValues<Real> s5, s6, s7, s8;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, degree9_pair_points(n)),
        [&](int q, VectorValues<Real>& acc) { add_values(f, degree9_pair_point(q, n, c, h, k), m, acc); },
        VectorValuesSum<Real>(s5));
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, degree9_mixed_points(n)),
        [&](int q, VectorValues<Real>& acc) { add_values(f, degree9_mixed_point(q, n, c, h, k), m, acc); },
        VectorValuesSum<Real>(s6));
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, degree9_triple_points(n)),
        [&](int q, VectorValues<Real>& acc) { add_values(f, degree9_triple_point(q, n, c, h, k), m, acc); },
        VectorValuesSum<Real>(s7));
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, degree9_corner_points(n)),
        [&](int q, VectorValues<Real>& acc) { add_values(f, degree9_corner_point(q, n, c, h, k), m, acc); },
        VectorValuesSum<Real>(s8));
    team.team_barrier();

    // Each component's estimate; the split axis from the fourth differences summed over them.
    Real diff[max_dim];
    for (int i = 0; i < n; ++i) diff[i] = 0;
    Real fscale = 0;
    bool all_finite = true;
    for (int j = 0; j < m; ++j) {
      Real const* const own = scratch + j * block;
      RegionEstimate<Real> const e = degree9_estimate(nulls, n, h, own, s5.v[j], s6.v[j], s7.v[j], s8.v[j]);
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        estimate(r, j) = e.integral;
        error(r, j) = e.error;
      });
      all_finite = all_finite && e.finite;
      for (int i = 0; i < n; ++i) diff[i] += own[4 * max_dim + i];
      fscale = Kokkos::fmax(fscale, degree9_value_scale(own, n));
    }
    Real maxdiff = 0;
    for (int i = 0; i < n; ++i) maxdiff = Kokkos::fmax(maxdiff, diff[i]);
    int const a = split_axis(diff, h, n, maxdiff, fscale);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      axis(r) = a;
      finite(r) = all_finite ? 1 : 0;
    });
  };
  if (largest_team) {
    *largest_team =
        Policy(space, 1, 1).set_scratch_size(0, Kokkos::PerTeam(bytes)).team_size_max(kernel, Kokkos::ParallelForTag());
    return;
  }
  Kokkos::parallel_for("parity::cubature::vector_evaluate",
                       Policy(space, int(count), team_size).set_scratch_size(0, Kokkos::PerTeam(bytes)), kernel);
}

// The two-level check (two_level_check) for each component of sibling pairs 0..groups-1:
// parent(g, k) is the parent's value of component k.
template <class ExecutionSpace, class Real>
void vector_two_level_check(ExecutionSpace const& space,
                            VectorRegionList<Real, typename ExecutionSpace::memory_space> const& list,
                            std::int64_t groups, int d,
                            Kokkos::View<Real**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> parent,
                            double c_scale, double c_add) {
  auto const est = list.estimate;
  auto const err = list.error;
  int const m = int(est.extent(1));
  Kokkos::parallel_for(
      "parity::cubature::vector_two_level", Kokkos::RangePolicy<ExecutionSpace>(space, 0, groups * m),
      KOKKOS_LAMBDA(std::int64_t q) {
        std::int64_t const g = q / m;
        int const j = int(q % m);
        double sum = 0, sum_err = 0;
        for (int k = 0; k < d; ++k) {
          sum += double(est(g * d + k, j));
          sum_err += double(err(g * d + k, j));
        }
        auto const raise = two_level_raise(double(parent(g, j)), sum, sum_err, c_scale, c_add);
        for (int k = 0; k < d; ++k) err(g * d + k, j) = Real(double(err(g * d + k, j)) * raise.scale + raise.add);
      });
}

}  // namespace parity::cubature::detail
