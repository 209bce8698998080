#pragma once
// Phase 2 of the cubature integrator on the device: one team per region runs a sequential
// CUHRE-style loop over a max-heap of its subregions (the driver is in phase2.hpp).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "parity/containers/flat_max_heap.hpp"
#include "parity/cubature/detail/region_list.hpp"
#include "parity/cubature/detail/two_level.hpp"
#include "parity/cubature/rule.hpp"

namespace parity::cubature::detail {

// Heap entries: [center (n), half-widths (n), estimate, error, axis], a max-heap on the error.
template <class Real>
KOKKOS_INLINE_FUNCTION void heap_push(Real* heap, int stride, int n, int& size, Real const* c, Real const* h,
                                      Real estimate, Real error, int axis) {
  Real* e = heap + size * stride;
  for (int m = 0; m < n; ++m) {
    e[m] = c[m];
    e[n + m] = h[m];
  }
  e[2 * n] = estimate;
  e[2 * n + 1] = error;
  e[2 * n + 2] = Real(axis);
  containers::heap_push(heap, stride, 2 * n + 1, size);
}

// Removes the entry with the largest error, copying it to `top` (stride Reals).
template <class Real>
KOKKOS_INLINE_FUNCTION void heap_pop(Real* heap, int stride, int n, int& size, Real* top) {
  containers::heap_pop(heap, stride, 2 * n + 1, size, top);
}

// CUBA's Cuhre weights the running estimate after each split by 1 / max(error^2, 2^-104).
KOKKOS_INLINE_FUNCTION double cuhre_weight(double error) { return 1 / Kokkos::max(error * error, 0x1p-104); }

enum Phase2Reason : int {
  reason_running = 0,
  reason_met = 1,
  reason_budget = 2,
  reason_storage = 3,
  reason_not_finite = 4
};

// The columns of phase 2's per-region sums: the integral and error reported, the last estimates'
// sums, and CUHRE's running weight sum and weighted sum (average).
enum Phase2Sum : int { sum_integral = 0, sum_error, sum_last_integral, sum_last_error, sum_weight, sum_weighted };
inline constexpr int phase2_sum_columns = 6;

// Phase 2 for regions first..first+count-1 of `list`, one team each, heaps in `heaps`; region j
// stops when its error <= max(tolerance(j), relative |its integral|). With `average`, its
// integral and error are CUBA's Cuhre default: the average of the running estimates after each
// split weighted by 1 / error^2, and that average's error 1 / sqrt(sum of the weights); else the
// last estimates. With largest_team set, launches nothing and stores there the largest team the
// backend runs this kernel with (team_size is then unused).
template <class ExecutionSpace, class Real, class F>
void phase2_batch(ExecutionSpace const& space, F const& f, int n,
                  RegionList<Real, typename ExecutionSpace::memory_space> const& list, std::int64_t first, int count,
                  int team_size,
                  Kokkos::View<Real***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> heaps,
                  Kokkos::View<double*, typename ExecutionSpace::memory_space> tolerance,
                  Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> budget,
                  Matrix<typename ExecutionSpace::memory_space> sums,
                  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> counts,
                  bool resume, NullRules<Real> const& nulls, double relative = 0.0, bool average = false,
                  int* largest_team = nullptr) {
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using Space = typename ExecutionSpace::scratch_memory_space;
  using RealScratch = Kokkos::View<Real*, Space, Kokkos::MemoryUnmanaged>;
  using DoubleScratch = Kokkos::View<double*, Space, Kokkos::MemoryUnmanaged>;
  using IntScratch = Kokkos::View<std::int64_t*, Space, Kokkos::MemoryUnmanaged>;
  int const real_slots = int(rule_scratch_reals<Real>()) + 6 * max_dim + 3;  // rule, A (c,h), B (c,h), popped entry
  std::size_t const bytes =
      RealScratch::shmem_size(real_slots) + DoubleScratch::shmem_size(4) + IntScratch::shmem_size(4) + 256;
  auto const center = list.center;
  auto const half = list.half;
  auto const estimate = list.estimate;
  auto const error = list.error;
  auto const axis = list.axis;
  int const capacity = int(heaps.extent(1));
  int const stride = 2 * n + 3;
  std::int64_t const cost = 2 * (nulls.nine.enabled ? rule9_points(n) : rule_points(n));
  auto const kernel = KOKKOS_LAMBDA(typename Policy::member_type const& team) {
    int const slot = team.league_rank();
    std::int64_t const j = first + slot;
    RealScratch rs(team.team_scratch(0), real_slots);
    DoubleScratch ds(team.team_scratch(0), 4);  // running integral, error; weight sum, weighted sum
    IntScratch is(team.team_scratch(0), 4);  // heap size, evaluations, reason, -
    Real* const rule_s = rs.data();
    Real* const ca = rule_s + rule_scratch_reals<Real>();
    Real* const ha = ca + max_dim;
    Real* const cb = ha + max_dim;
    Real* const hb = cb + max_dim;
    Real* const top = hb + max_dim;  // stride <= 2 max_dim + 3
    Real* const heap = &heaps(slot, 0, 0);
    double const tol = tolerance(j);
    std::int64_t const allowed = budget(j);
    // A resumed round continues only the regions its budget stopped, from their heaps.
    if (resume && counts(j, 2) != reason_budget) return;

    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (resume) {
        is(0) = counts(j, 1);
        is(1) = counts(j, 0);
        ds(0) = sums(j, sum_last_integral);
        ds(1) = sums(j, sum_last_error);
        ds(2) = sums(j, sum_weight);
        ds(3) = sums(j, sum_weighted);
      } else {
        int size = 0;
        heap_push(heap, stride, n, size, &center(j, 0), &half(j, 0), estimate(j), error(j), axis(j));
        is(0) = size;
        is(1) = 0;
        ds(0) = estimate(j);
        ds(1) = error(j);
        ds(2) = cuhre_weight(ds(1));
        ds(3) = ds(2) * ds(0);
      }
      is(2) = reason_running;
    });
    team.team_barrier();
    while (true) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        int size = int(is(0));
        int reason = reason_running;
        if (average) {
          if (Kokkos::sqrt(1 / ds(2)) <= Kokkos::max(tol, relative * Kokkos::abs(ds(3) / ds(2)))) reason = reason_met;
        } else if (ds(1) <= Kokkos::max(tol, relative * Kokkos::abs(ds(0)))) {
          // Confirm with exact sums (the running ones drift by rounding).
          double se = 0, sr = 0;
          for (int q = 0; q < size; ++q) {
            se += heap[q * stride + 2 * n];
            sr += heap[q * stride + 2 * n + 1];
          }
          ds(0) = se;
          ds(1) = sr;
          if (sr <= Kokkos::max(tol, relative * Kokkos::abs(se))) reason = reason_met;
        }
        if (reason == reason_running && is(1) + cost > allowed) reason = reason_budget;
        if (reason == reason_running && size + 1 > capacity) reason = reason_storage;
        if (reason == reason_running) {
          heap_pop(heap, stride, n, size, top);
          int const a = int(top[2 * n + 2]);
          for (int m = 0; m < n; ++m) {
            ca[m] = cb[m] = top[m];
            ha[m] = hb[m] = top[n + m];
          }
          Real const hh = top[n + a] / 2;
          ha[a] = hb[a] = hh;
          ca[a] = top[a] - hh;
          cb[a] = top[a] + hh;
          ds(0) -= top[2 * n];
          ds(1) -= top[2 * n + 1];
        }
        is(0) = size;
        is(2) = reason;
      });
      team.team_barrier();
      if (is(2) != reason_running) break;
      auto ea = evaluate_rule(team, f, n, ca, ha, rule_s, nulls);
      auto eb = evaluate_rule(team, f, n, cb, hb, rule_s, nulls);
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        if (nulls.sharp) {  // the two-level check (two_level_check) on the popped parent
          auto const raise = two_level_raise(double(top[2 * n]), double(ea.integral) + double(eb.integral),
                                             double(ea.error) + double(eb.error), nulls.c_scale, nulls.c_add);
          ea.error = Real(double(ea.error) * raise.scale + raise.add);
          eb.error = Real(double(eb.error) * raise.scale + raise.add);
        }
        int size = int(is(0));
        heap_push(heap, stride, n, size, ca, ha, ea.integral, ea.error, ea.axis);
        heap_push(heap, stride, n, size, cb, hb, eb.integral, eb.error, eb.axis);
        is(0) = size;
        is(1) += cost;
        ds(0) += double(ea.integral) + double(eb.integral);
        ds(1) += double(ea.error) + double(eb.error);
        double const w = cuhre_weight(ds(1));
        ds(2) += w;
        ds(3) += w * ds(0);
        if (!ea.finite || !eb.finite) is(2) = reason_not_finite;
      });
      team.team_barrier();
      if (is(2) != reason_running) break;
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      int const size = int(is(0));
      double se = 0, sr = 0;
      for (int q = 0; q < size; ++q) {
        se += heap[q * stride + 2 * n];
        sr += heap[q * stride + 2 * n + 1];
      }
      sums(j, sum_integral) = average ? ds(3) / ds(2) : se;
      sums(j, sum_error) = average ? Kokkos::sqrt(1 / ds(2)) : sr;
      sums(j, sum_last_integral) = se;
      sums(j, sum_last_error) = sr;
      sums(j, sum_weight) = ds(2);
      sums(j, sum_weighted) = ds(3);
      counts(j, 0) = is(1);
      counts(j, 1) = size;
      counts(j, 2) = is(2);
    });
  };
  if (largest_team) {
    // A team of one is within every backend's limit (a larger request may throw right here).
    *largest_team =
        Policy(space, 1, 1).set_scratch_size(0, Kokkos::PerTeam(bytes)).team_size_max(kernel, Kokkos::ParallelForTag());
    return;
  }
  Kokkos::parallel_for("parity::cubature::phase2",
                       Policy(space, count, team_size).set_scratch_size(0, Kokkos::PerTeam(bytes)), kernel);
}

}  // namespace parity::cubature::detail
