#pragma once
// Deterministic adaptive cubature: the two-phase parallel algorithm of Arumugam, Godunov,
// Ranjan, Terzic & Zubair (2013) around the Genz-Malik degree-7/5 rule (rule.hpp).
//
//   Result r = integrate<ExecutionSpace, Real>(space, f, lower, upper, tolerances, options);
//
// f is a device-callable functor, `KOKKOS_FUNCTION Real operator()(Point<Real> const& x) const`,
// with x[0..n-1] the coordinates (n = lower.size() <= max_dim = 16).
//
// Phase 1 (breadth-first, all regions at once): the box is cut evenly into about
// `initial_regions` regions; every region of the list is evaluated in parallel (one Kokkos team
// per region); the regions whose error is within their volume share of the tolerance
// max(tau_abs, tau_rel |I|) are finished and accumulated; the others are each cut into d pieces
// along their split axis, d = clamp(max_regions / bad, 2, max_split), and compacted into the
// next list with a parallel scan. Phase 1 ends when the global error meets the tolerance, when
// no bad region is left, or when at least `phase2_regions` regions are still bad (or after
// `max_phase1_iterations`, or when the next step would exceed the evaluation budget).
//
// Improved mode (the default; `mode paper` is the published algorithm above) differs in phase 1:
// the regions are bisected for as long as the list fits `max_memory_mb` (null-rule error
// estimate, PAGANI-style classification against the tolerance left over the unfinished volume and
// filtering of the smallest errors when memory is short). When the evaluation budget cannot split
// every unfinished region, the worst ones it pays for are split and the others finished as they
// are (breadth-first to the end of the budget; phase 2 is not needed for it). With
// `max_host_memory_mb` > 0, a list that would outgrow `max_memory_mb` is refined in pieces: the
// pieces of all but the first bad regions are parked in host memory (a stack, newest first), each
// with its volume's share of the tolerance and a share of the evaluations left set aside, and come
// back when the current list is done, so device memory stays bounded without phase 2 (for tight
// tolerances with large budgets).
// Otherwise the list goes to phase 2. When the host memory is full, the current list goes to
// phase 2 alone (with its shares of the tolerance and budget) and the parked chunks come back after.
//
// Phase 2 (depth-first, one region per team): each remaining region runs a sequential
// CUHRE-style loop - a max-heap on the error of at most `heap_capacity` subregions (0: as many
// as `max_memory_mb` allows with all phase-2 regions resident, at least 16), the worst
// one bisected along its split axis - until its error meets its share of the remaining
// tolerance (shared out by volume), its share of the remaining evaluation budget is spent
// (half shared evenly, half by error), or its heap is full. Heaps live in one device View;
// as many phase-2 regions run at once as `max_memory_mb` allows (batches), so memory stays
// bounded whatever the number of regions.
//
// Determinism: every sum over regions is taken in a fixed blocked order and every region
// runs the same sequence of steps whatever the thread count or batch size, so the integral
// and the evaluation count do not depend on the number of threads.
//
// The returned status says why it stopped: converged (error <= max(tau_abs, tau_rel |I|)),
// budget_exhausted, storage_exhausted, integrand_not_finite (a NaN or infinity was seen), or
// not_converged (the tolerance moved with |I| after the shares were handed out; rare).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "models/cubature/options.hpp"
#include "models/cubature/rule.hpp"
#include "parity/algorithms/compact.hpp"
#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/containers/flat_max_heap.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::cubature {

namespace detail {

inline std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

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

// Applies the rule to regions 0..count-1 of the list, one team per region.
template <class ExecutionSpace, class Real, class F>
void evaluate_list(ExecutionSpace const& space, F const& f, int n,
                   RegionList<Real, typename ExecutionSpace::memory_space> const& list, std::int64_t count,
                   int team_size, Kokkos::View<int*, typename ExecutionSpace::memory_space> finite,
                   NullRules<Real> const& nulls) {
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using Scratch = Kokkos::View<Real*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  auto const center = list.center;
  auto const half = list.half;
  auto const estimate = list.estimate;
  auto const error = list.error;
  auto const axis = list.axis;
  std::size_t const bytes = Scratch::shmem_size(rule_scratch_reals<Real>());
  Kokkos::parallel_for(
      "parity::cubature::phase1_evaluate",
      Policy(space, int(count), team_size).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(typename Policy::member_type const& team) {
        int const r = team.league_rank();
        Scratch s(team.team_scratch(0), rule_scratch_reals<Real>());
        auto const e = evaluate_region(team, f, n, &center(r, 0), &half(r, 0), s.data(), nulls);
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          estimate(r) = e.integral;
          error(r) = e.error;
          axis(r) = e.axis;
          finite(r) = e.finite ? 1 : 0;
        });
      });
}

// Writes the d pieces of every flagged region (offset from the scan) into `to`. With d = 1 the
// flagged regions are copied together with their estimates (the hand-over to phase 2). Only the
// flagged regions whose offset lies in [first, last) are written, to slots from 0.
template <class ExecutionSpace, class Real>
void split_flagged(ExecutionSpace const& space, int n, RegionList<Real, typename ExecutionSpace::memory_space> const& from,
                   std::int64_t count, Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
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

// The two-level raise of one split's pieces: err -> err scale + add (see two_level_check).
struct TwoLevelRaise {
  double scale, add;
};
KOKKOS_INLINE_FUNCTION TwoLevelRaise two_level_raise(double parent, double sum, double sum_err, double c_scale,
                                                     double c_add) {
  double const diff = Kokkos::abs(parent - sum);
  return {sum_err > 0 ? 1 + c_scale * diff / sum_err : 1.0, c_add * diff};
}

// The two-level check of DCUHRE (Berntsen, Espelid & Genz 1991): the d pieces of one parent
// (consecutive in the list) integrate to the parent's value up to the parent's true error, so
// their difference D = |parent - sum of pieces| is a second, independent sample of the error
// one level up. Each piece's error is raised to err (1 + c_scale D / sum of the pieces' errors)
// + c_add D. Applied to groups 0..groups-1 of d pieces.
template <class ExecutionSpace, class Real>
void two_level_check(ExecutionSpace const& space, RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                     std::int64_t groups, int d, Kokkos::View<Real*, typename ExecutionSpace::memory_space> parent,
                     double c_scale, double c_add) {
  auto const est = list.estimate;
  auto const err = list.error;
  Kokkos::parallel_for(
      "parity::cubature::two_level", Kokkos::RangePolicy<ExecutionSpace>(space, 0, groups),
      KOKKOS_LAMBDA(std::int64_t g) {
        double sum = 0, sum_err = 0;
        for (int k = 0; k < d; ++k) {
          sum += double(est(g * d + k));
          sum_err += double(err(g * d + k));
        }
        auto const raise = two_level_raise(double(parent(g)), sum, sum_err, c_scale, c_add);
        for (int k = 0; k < d; ++k) err(g * d + k) = Real(double(err(g * d + k)) * raise.scale + raise.add);
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

// Unfinished (flagged) regions whose error exceeds t.
template <class ExecutionSpace, class Real>
std::int64_t count_above(ExecutionSpace const& space, Kokkos::View<Real*, typename ExecutionSpace::memory_space> err,
                         Kokkos::View<int*, typename ExecutionSpace::memory_space> flag, std::int64_t count, double t) {
  std::int64_t above = 0;
  Kokkos::parallel_reduce(
      "parity::cubature::count_above", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r, std::int64_t & a) { a += (flag(r) && double(err(r)) > t) ? 1 : 0; }, above);
  return above;
}

struct Filtered {
  std::int64_t regions = 0;
  double estimate = 0, error = 0, volume = 0;
};

// Estimate, error, volume and count summed over the regions r of the list with select(r), in a
// fixed order (terms is the work matrix).
template <class ExecutionSpace, class Real, class Select>
std::vector<double> sums_where(ExecutionSpace const& space, RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                               std::int64_t count, int n, Kokkos::Array<double, max_dim> const& box_half,
                               Matrix<typename ExecutionSpace::memory_space> terms, Select const& select) {
  auto const err = list.error;
  auto const est = list.estimate;
  auto const half = list.half;
  Kokkos::parallel_for(
      "parity::cubature::selected_terms", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r) {
        bool const sel = select(r);
        terms(r, 0) = sel ? double(est(r)) : 0.0;
        terms(r, 1) = sel ? double(err(r)) : 0.0;
        terms(r, 2) = sel ? volume_fraction<Real>(half, r, n, box_half) : 0.0;
        terms(r, 3) = sel ? 1.0 : 0.0;
      });
  return algorithms::fixed_order_column_sums(space, terms, count);
}

template <class ExecutionSpace, class Real>
Filtered finish_below(ExecutionSpace const& space, RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                      std::int64_t count, int n, Kokkos::Array<double, max_dim> const& box_half,
                      Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
                      Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> offset,
                      Matrix<typename ExecutionSpace::memory_space> terms, double t, double allowance);

// PAGANI-style memory filter: finishes the unfinished regions of smallest error, as few as
// leave at most `keep` unfinished, if their errors add up to at most `allowance`; then
// recomputes the compaction offsets. Returns what it finished (nothing if not allowed).
// Deterministic: the threshold comes from integer counts, the sums from fixed-order sums.
template <class ExecutionSpace, class Real>
Filtered filter_smallest(ExecutionSpace const& space, RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                         std::int64_t count, int n, Kokkos::Array<double, max_dim> const& box_half,
                         Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
                         Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> offset,
                         Matrix<typename ExecutionSpace::memory_space> terms, std::int64_t keep, double allowance) {
  auto const err = list.error;
  double max_err = 0;
  Kokkos::parallel_reduce(
      "parity::cubature::max_error", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r, double& m) {
        if (flag(r)) m = Kokkos::fmax(m, double(err(r)));
      },
      Kokkos::Max<double>(max_err));
  if (!(allowance > 0) || count_above<ExecutionSpace, Real>(space, err, flag, count, 0.0) <= keep) return {};
  double lo = 0, hi = max_err;  // above(lo) > keep >= above(hi)
  for (int k = 0; k < 200; ++k) {
    double const mid = 0.5 * (lo + hi);
    if (!(mid > lo && mid < hi)) break;
    if (count_above<ExecutionSpace, Real>(space, err, flag, count, mid) <= keep)
      hi = mid;
    else
      lo = mid;
  }
  return finish_below<ExecutionSpace, Real>(space, list, count, n, box_half, flag, offset, terms, hi, allowance);
}

// Finishes the unfinished regions whose error is at most t, if their errors add up to at most
// `allowance`, and recomputes the compaction offsets. Returns what it finished.
template <class ExecutionSpace, class Real>
Filtered finish_below(ExecutionSpace const& space, RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                      std::int64_t count, int n, Kokkos::Array<double, max_dim> const& box_half,
                      Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
                      Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> offset,
                      Matrix<typename ExecutionSpace::memory_space> terms, double t, double allowance) {
  auto const err = list.error;
  auto const sums = sums_where<ExecutionSpace, Real>(
      space, list, count, n, box_half, terms, KOKKOS_LAMBDA(std::int64_t r) { return flag(r) && double(err(r)) <= t; });
  if (sums[1] > allowance) return {};
  Kokkos::parallel_for(
      "parity::cubature::filter", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r) {
        if (flag(r) && double(err(r)) <= t) flag(r) = 0;
      });
  std::int64_t const bad = algorithms::compaction_offsets(space, flag, offset, count);
  Filtered out;
  out.regions = std::int64_t(sums[3] + 0.5);
  out.estimate = sums[0];
  out.error = sums[1];
  out.volume = sums[2];
  return out;
}

// Estimate, error and volume summed over the unfinished regions whose offset lies in [first, last).
template <class ExecutionSpace, class Real>
std::vector<double> flagged_range_sums(ExecutionSpace const& space,
                                       RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                                       std::int64_t count, int n, Kokkos::Array<double, max_dim> const& box_half,
                                       Kokkos::View<int*, typename ExecutionSpace::memory_space> flag,
                                       Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> offset,
                                       Matrix<typename ExecutionSpace::memory_space> terms, std::int64_t first,
                                       std::int64_t last) {
  return sums_where<ExecutionSpace, Real>(
      space, list, count, n, box_half, terms,
      KOKKOS_LAMBDA(std::int64_t r) { return flag(r) && offset(r) >= first && offset(r) < last; });
}

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

enum Phase2Reason : int { reason_running = 0, reason_met = 1, reason_budget = 2, reason_storage = 3, reason_not_finite = 4 };

// Phase 2 for regions first..first+count-1 of `list`, one team each, heaps in `heaps`.
template <class ExecutionSpace, class Real, class F>
void phase2_batch(ExecutionSpace const& space, F const& f, int n,
                  RegionList<Real, typename ExecutionSpace::memory_space> const& list, std::int64_t first, int count,
                  int team_size, Kokkos::View<Real***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> heaps,
                  Kokkos::View<double*, typename ExecutionSpace::memory_space> tolerance,
                  Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> budget,
                  Matrix<typename ExecutionSpace::memory_space> sums,
                  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> counts,
                  bool resume, NullRules<Real> const& nulls) {
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using Space = typename ExecutionSpace::scratch_memory_space;
  using RealScratch = Kokkos::View<Real*, Space, Kokkos::MemoryUnmanaged>;
  using DoubleScratch = Kokkos::View<double*, Space, Kokkos::MemoryUnmanaged>;
  using IntScratch = Kokkos::View<std::int64_t*, Space, Kokkos::MemoryUnmanaged>;
  int const real_slots = int(rule_scratch_reals<Real>()) + 6 * max_dim + 3;  // rule, A (c,h), B (c,h), popped entry
  std::size_t const bytes =
      RealScratch::shmem_size(real_slots) + DoubleScratch::shmem_size(2) + IntScratch::shmem_size(4) + 256;
  auto const center = list.center;
  auto const half = list.half;
  auto const estimate = list.estimate;
  auto const error = list.error;
  auto const axis = list.axis;
  int const capacity = int(heaps.extent(1));
  int const stride = 2 * n + 3;
  std::int64_t const cost = 2 * rule_points(n);
  Kokkos::parallel_for(
      "parity::cubature::phase2", Policy(space, count, team_size).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(typename Policy::member_type const& team) {
        int const slot = team.league_rank();
        std::int64_t const j = first + slot;
        RealScratch rs(team.team_scratch(0), real_slots);
        DoubleScratch ds(team.team_scratch(0), 2);     // running integral, error
        IntScratch is(team.team_scratch(0), 4);        // heap size, evaluations, reason, -
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
            ds(0) = sums(j, 0);
            ds(1) = sums(j, 1);
          } else {
            int size = 0;
            heap_push(heap, stride, n, size, &center(j, 0), &half(j, 0), estimate(j), error(j), axis(j));
            is(0) = size;
            is(1) = 0;
            ds(0) = estimate(j);
            ds(1) = error(j);
          }
          is(2) = reason_running;
        });
        team.team_barrier();
        while (true) {
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            int size = int(is(0));
            int reason = reason_running;
            if (ds(1) <= tol) {
              // Confirm with exact sums (the running ones drift by rounding).
              double se = 0, sr = 0;
              for (int q = 0; q < size; ++q) {
                se += heap[q * stride + 2 * n];
                sr += heap[q * stride + 2 * n + 1];
              }
              ds(0) = se;
              ds(1) = sr;
              if (sr <= tol) reason = reason_met;
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
          auto ea = evaluate_region(team, f, n, ca, ha, rule_s, nulls);
          auto eb = evaluate_region(team, f, n, cb, hb, rule_s, nulls);
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
          sums(j, 0) = se;
          sums(j, 1) = sr;
          counts(j, 0) = is(1);
          counts(j, 1) = size;
          counts(j, 2) = is(2);
        });
      });
}

// Regions parked on the host (improved mode, when splitting the unfinished regions would outgrow
// max_memory_mb): the unevaluated pieces of split regions, in sibling groups of `siblings`, with
// their parents' estimates (the two-level check) and the sums of their parents' estimates, errors
// and volumes, which stand in for them until they are evaluated.
template <class Real>
struct PendingChunk {
  std::int64_t count = 0;
  int siblings = 0;
  std::vector<Real> center, half;  // count x n, row-major
  std::vector<Real> parent;        // count / siblings (empty unless the two-level check is on)
  double estimate = 0, error = 0, volume = 0;
  double reserve = 0;  // the share of the tolerance set aside for these regions when they were parked
  std::int64_t budget = 0;  // the share of the evaluation budget set aside for them then
  double bytes() const { return double(center.size() + half.size() + parent.size()) * sizeof(Real); }
};

// Copies the first `count` regions' boxes of `list` (and `groups` parent estimates) to a chunk.
template <class ExecutionSpace, class Real>
PendingChunk<Real> park(ExecutionSpace const& space, RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                        std::int64_t count, int n, int siblings, Kokkos::View<Real*, typename ExecutionSpace::memory_space> parent,
                        std::int64_t groups) {
  using Host = Kokkos::View<Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using Host1 = Kokkos::View<Real*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  PendingChunk<Real> c;
  c.count = count;
  c.siblings = siblings;
  c.center.resize(std::size_t(count) * n);
  c.half.resize(std::size_t(count) * n);
  auto const rows = std::make_pair(std::int64_t(0), count);
  Kokkos::deep_copy(space, Host(c.center.data(), count, n), Kokkos::subview(list.center, rows, Kokkos::ALL));
  Kokkos::deep_copy(space, Host(c.half.data(), count, n), Kokkos::subview(list.half, rows, Kokkos::ALL));
  if (groups > 0) {
    c.parent.resize(std::size_t(groups));
    Kokkos::deep_copy(space, Host1(c.parent.data(), groups), Kokkos::subview(parent, std::make_pair(std::int64_t(0), groups)));
  }
  space.fence("parity::cubature::park");
  return c;
}

// Copies a chunk back into the first regions of `list` (and its parents into `parent`).
template <class ExecutionSpace, class Real>
void unpark(ExecutionSpace const& space, PendingChunk<Real> const& c, int n,
            RegionList<Real, typename ExecutionSpace::memory_space> const& list,
            Kokkos::View<Real*, typename ExecutionSpace::memory_space> parent) {
  using Host = Kokkos::View<Real const**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using Host1 = Kokkos::View<Real const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  auto const rows = std::make_pair(std::int64_t(0), c.count);
  Kokkos::deep_copy(space, Kokkos::subview(list.center, rows, Kokkos::ALL), Host(c.center.data(), c.count, n));
  Kokkos::deep_copy(space, Kokkos::subview(list.half, rows, Kokkos::ALL), Host(c.half.data(), c.count, n));
  if (!c.parent.empty())
    Kokkos::deep_copy(space, Kokkos::subview(parent, std::make_pair(std::int64_t(0), std::int64_t(c.parent.size()))),
                      Host1(c.parent.data(), std::int64_t(c.parent.size())));
  space.fence("parity::cubature::unpark");
}

}  // namespace detail

// Integrates f over the box [lower, upper] (see the top of this file). `progress` and `times`
// may be null.
template <class ExecutionSpace, class Real, class F>
Result integrate(ExecutionSpace const& space, F const& f, std::vector<double> const& lower,
                 std::vector<double> const& upper, Tolerances const& tol, Options const& opt,
                 run::Progress* progress = nullptr, run::PhaseTimes* times = nullptr) {
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>);
  using Mem = typename ExecutionSpace::memory_space;
  using List = detail::RegionList<Real, Mem>;
  validate(lower, upper, tol, opt);
  run::SilentProgress silent;
  run::Progress& out = progress ? *progress : silent;
  run::PhaseTimes local_times;
  run::PhaseTimes& phase_times = times ? *times : local_times;

  int const n = int(lower.size());
  std::int64_t const points = rule_points(n);
  int const team_size = detail::resolve_team_size<ExecutionSpace>(opt.team_size);
  Kokkos::Array<double, max_dim> lo{}, hi{}, box_half{};
  for (int i = 0; i < n; ++i) {
    lo[i] = lower[i];
    hi[i] = upper[i];
    box_half[i] = 0.5 * (upper[i] - lower[i]);
  }

  Result res;
  Kokkos::Timer clock;
  bool const paper = opt.mode == Mode::paper;
  ErrorEstimate const estimate_kind =
      opt.error_estimate != ErrorEstimate::automatic ? opt.error_estimate
                                                     : (paper ? ErrorEstimate::difference : ErrorEstimate::null_rules);
  NullRules<Real> nulls = estimate_kind == ErrorEstimate::null_rules || estimate_kind == ErrorEstimate::two_level
                              ? make_null_rules<Real>(n)
                              : NullRules<Real>();
  nulls.sharp = estimate_kind == ErrorEstimate::two_level;
  res.mode = opt.mode;
  res.error_estimate = estimate_kind;
  double const memory_bytes = opt.max_memory_mb * 1048576.0;

  // Even partition: about `initial_regions` (fewer if the budget is smaller), as equal counts
  // per axis as the product allows.
  std::int64_t const target = std::max<std::int64_t>(1, std::min<std::int64_t>(opt.initial_regions, opt.max_evaluations / points));
  Kokkos::Array<int, max_dim> counts{};
  {
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
  }
  std::int64_t count = 1;
  for (int i = 0; i < n; ++i) count *= counts[i];

  // Longest list phase 1 may hold: paper mode max_regions; improved mode as many regions as
  // max_memory_mb holds (two lists and the per-region work arrays). Arrays grow on demand.
  double const region_bytes = 2.0 * (2 * n + 2) * sizeof(Real) + 2.0 * sizeof(int) + 4.0 * sizeof(int) +
                              sizeof(std::int64_t) + 4.0 * sizeof(double);
  std::int64_t const capacity =
      paper ? std::max<std::int64_t>(count, opt.max_regions)
            : std::max<std::int64_t>(count, std::int64_t(std::min(memory_bytes / region_bytes, double(1 << 30))));
  res.phase1_capacity = capacity;
  List current(count, n), next;
  Kokkos::View<int*, Mem> finite, flag;
  Kokkos::View<std::int64_t*, Mem> offset;
  detail::Matrix<Mem> terms;
  Kokkos::View<double*, Mem> block_sums;  // fixed_order_column_sums' scratch for the terms of a list
  auto reserve = [&](std::int64_t m) {  // work arrays for m regions
    if (std::int64_t(flag.extent(0)) >= m) return;
    std::int64_t const size = std::max(m, std::min(2 * std::int64_t(flag.extent(0)), capacity));
    finite = Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::finite"), size);
    flag = Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::bad"), size);
    offset = Kokkos::View<std::int64_t*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::offset"), size);
    terms = detail::Matrix<Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::terms"), size, 4);
    block_sums = Kokkos::View<double*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::block_sums"),
                                            algorithms::fixed_order_scratch_size(size, 4));
  };
  auto ensure_list = [&](List& l, std::int64_t m) {
    if (std::int64_t(l.estimate.extent(0)) >= m) return;
    l = List();  // free first
    l = List(std::max(m, std::min(2 * m, capacity)), n);
  };

  double fin_est = 0, fin_err = 0;   // finished regions
  std::int64_t fin_regions = 0;
  double tol_now = 0;
  bool not_finite = false, budget_hit = false, done = false;
  std::int64_t bad = 0;
  double bad_volume = 0, bad_error = 0;
  double active_volume = 1.0;        // volume fraction of the current list
  int const iteration_limit = paper ? opt.max_phase1_iterations : 16 * opt.max_phase1_iterations;
  // two_level: the values of the parents of the current list's regions (groups of `siblings`
  // consecutive regions; 0 for the even partition, which has no parents).
  Kokkos::View<Real*, Mem> parent_estimate;
  int siblings = 0;
  auto ensure_parents = [&](std::int64_t m) {
    if (nulls.sharp && std::int64_t(parent_estimate.extent(0)) < m)
      parent_estimate = Kokkos::View<Real*, Mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::parent_estimate"),
          std::max(m, std::min(2 * m, capacity)));
  };
  // Improved mode with max_host_memory_mb > 0: when splitting the unfinished regions would outgrow
  // `capacity`, the pieces of all but the first capacity / 4 of them are parked on the host (a
  // stack: the newest, deepest pieces are refined first) and their parents' values stand in for
  // them until they come back. Memory stays bounded on both sides; phase 2 (heaps) is then only
  // the fallback for a list whose pieces the full host memory cannot take (the parked chunks
  // come back after it).
  bool const parking = !paper && opt.max_host_memory_mb > 0;
  double const host_bytes = opt.max_host_memory_mb * 1048576.0;
  std::vector<detail::PendingChunk<Real>> parked;
  struct ParkedSums {
    double estimate = 0, error = 0, volume = 0, bytes = 0, reserve = 0;
    std::int64_t parents = 0, budget = 0;
  };
  auto parked_sums = [&]() {  // in stack order: the same sums on every backend
    ParkedSums t;
    for (auto const& c : parked) {
      t.estimate += c.estimate;
      t.error += c.error;
      t.volume += c.volume;
      t.bytes += c.bytes();
      t.reserve += c.reserve;
      t.budget += c.budget;
      t.parents += c.count / std::max(1, c.siblings);
    }
    return t;
  };
  ParkedSums waiting;  // parked_sums() of the current stack
  // The tolerance not yet given out: 0.9 tau (PAGANI's margin) less the finished regions' error and
  // what parked chunks hold in reserve. Classification, filtering, parking and a mid-run phase 2
  // share it out.
  auto tolerance_left = [&]() { return 0.9 * tol_now - fin_err - waiting.reserve; };
  // Parked regions that will not be refined (a limit stopped the run): their parents' values
  // become final.
  auto abandon_parked = [&]() {
    for (auto const& c : parked) res.unrefined_regions += c.count;
    fin_est += waiting.estimate;
    fin_err += waiting.error;
    fin_regions += waiting.parents;
    parked.clear();
    waiting = ParkedSums();
  };
  // The budget ended the run with the list finished: the result is the finished sums.
  auto stop_at_budget = [&]() {
    abandon_parked();
    res.integral = fin_est;
    res.error = fin_err;
    res.regions = fin_regions;
    budget_hit = true;
    done = true;
  };
  // Unfinished regions finished as they are (filter_smallest, finish_below): their sums move from
  // the unfinished totals to the finished ones.
  auto finish = [&](auto const& sums) {
    fin_est += sums.estimate;
    fin_err += sums.error;
    fin_regions += sums.regions;
    bad_volume -= sums.volume;
    bad_error -= sums.error;
    bad -= sums.regions;
    res.history.back().bad = bad;
  };
  int chunk_iterations = 0;  // since the current list started (the iteration limit counts these)
  // The current list is done: refine the newest parked pieces next; false when the budget cannot
  // evaluate them (their parents' values then stand and the run stops).
  auto unpark_next = [&]() {
    if (parked.back().count * points > opt.max_evaluations - res.evaluations) {
      stop_at_budget();
      return false;
    }
    detail::PendingChunk<Real> c = std::move(parked.back());
    parked.pop_back();
    waiting = parked_sums();
    ensure_list(current, c.count);
    ensure_parents(std::int64_t(c.parent.size()));
    detail::unpark(space, c, n, current, parent_estimate);
    siblings = c.siblings;
    count = c.count;
    active_volume = c.volume;
    chunk_iterations = 0;
    return true;
  };
  // Parks the d pieces of the bad regions [p_begin, p_end) of the current list, in chunks that fit
  // the list. Each chunk takes its volume's share of the tolerance left now, set aside until it is
  // refined: regions finished in the meantime cannot use it up (without the reserve, the first
  // pieces spend the tolerance and the last ones are refined without end). On top of the stack
  // (the first chunk on top) each also takes its share of the evaluations left (half by its number
  // of regions, half by their error, as phase 2 shares them): without it a binding budget went to
  // the first chunks refined and left the others at their parents' values (f3 5-D, 2e12
  // evaluations: 1.3e8 regions unrefined, true error 1.2e-6 against 5.1e-8 with 1e11 evaluations
  // and no parking). At the bottom (deferred: see below) nothing is set aside.
  auto park_pieces = [&](std::int64_t p_begin, std::int64_t p_end, int d, bool bottom) {
    std::int64_t const per_chunk = std::max<std::int64_t>(1, capacity / d);
    double const density = std::max(0.0, tolerance_left()) / std::max(bad_volume, 1e-300);
    double const evaluations_left =
        bottom ? 0.0 : double(std::max<std::int64_t>(0, opt.max_evaluations - waiting.budget - res.evaluations));
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (std::int64_t p0 = p_begin; p0 < p_end; p0 += per_chunk) ranges.emplace_back(p0, std::min(p_end, p0 + per_chunk));
    std::vector<detail::PendingChunk<Real>> chunks;
    for (auto r = ranges.rbegin(); r != ranges.rend(); ++r) {
      std::int64_t const p0 = r->first, p1 = r->second;
      ensure_list(next, (p1 - p0) * d);
      ensure_parents(p1 - p0);
      detail::split_flagged<ExecutionSpace, Real>(space, n, current, count, flag, offset, d, next,
                                                  nulls.sharp ? parent_estimate : Kokkos::View<Real*, Mem>(), p0, p1);
      auto const sums = detail::flagged_range_sums<ExecutionSpace, Real>(space, current, count, n, box_half, flag,
                                                                        offset, terms, p0, p1);
      auto c = detail::park<ExecutionSpace, Real>(space, next, (p1 - p0) * d, n, d, parent_estimate,
                                                  nulls.sharp ? p1 - p0 : 0);
      c.estimate = sums[0];
      c.error = sums[1];
      c.volume = sums[2];
      c.reserve = density * c.volume;
      double const by_count = double(p1 - p0) / double(bad);
      double const share = 0.5 * by_count + 0.5 * (bad_error > 0 ? c.error / bad_error : by_count);
      c.budget = std::int64_t(evaluations_left * share);
      active_volume -= c.volume;
      chunks.push_back(std::move(c));
      ++res.parked_chunks;
    }
    if (bottom)
      parked.insert(parked.begin(), std::make_move_iterator(chunks.rbegin()), std::make_move_iterator(chunks.rend()));
    else
      parked.insert(parked.end(), std::make_move_iterator(chunks.begin()), std::make_move_iterator(chunks.end()));
    waiting = parked_sums();
    res.peak_host_mb = std::max(res.peak_host_mb, waiting.bytes / 1048576.0);
  };
  // Host bytes of the d pieces of `regions` parked regions.
  auto parked_bytes = [&](std::int64_t regions, int d) {
    return double(regions) * d * (2.0 * n + (nulls.sharp ? 1.0 / d : 0.0)) * sizeof(Real);
  };

  // Phase 2 for the `count` regions of `current` (evaluated, with their split axes), sharing `left`
  // evaluations and `slack` of the tolerance among them; their sums join the finished ones.
  auto phase2 = [&](std::int64_t const left, double const slack) {
    timing::ScopedPhase<ExecutionSpace> phase(space, phase_times, "parity::cubature::phase2");
    res.phase2_regions += count;
    // Not zero-filled: the kernels below write every entry before it is read (zero-filling the
    // heaps, sized by --max-memory-mb, cost more than the whole integration on small problems).
    Kokkos::View<double*, Mem> share(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::tolerance_share"), count);
    Kokkos::View<std::int64_t*, Mem> budget(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::budget_share"), count);
    {
      auto const half = current.half;
      auto const err = current.error;
      double const inv_volume = bad_volume > 0 ? 1.0 / bad_volume : 0.0;
      double const inv_error = bad_error > 0 ? 1.0 / bad_error : 0.0;
      double const even = 0.5 / double(count);
      std::int64_t const cnt = count;
      Kokkos::parallel_for(
          "parity::cubature::shares", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
          KOKKOS_LAMBDA(std::int64_t r) {
            double const v = detail::volume_fraction<Real>(half, r, n, box_half);
            share(r) = slack * v * inv_volume;
            double const fraction = inv_error > 0 ? even + 0.5 * double(err(r)) * inv_error : 1.0 / double(cnt);
            budget(r) = std::int64_t(double(left) * fraction);
          });
    }
    // Heaps for as many regions at once as the memory limit allows, beside what phase 2 keeps (the
    // current list, the shares and sums): phase 1's spare list and work arrays are freed first.
    // Sizing the heaps by the whole limit overran it by the list (a 100 GB limit asked for 98 GB
    // of heaps beside a list of tens of GB, and the allocation failed).
    next = List();
    finite = {};
    flag = {};
    offset = {};
    terms = {};
    block_sums = {};
    parent_estimate = {};
    double const kept_bytes = double(current.estimate.extent(0)) * ((2 * n + 2) * sizeof(Real) + sizeof(int)) +
                              double(count) * (3 * sizeof(double) + 4 * sizeof(std::int64_t));
    double const heap_bytes = std::max(memory_bytes - kept_bytes, memory_bytes / 8);
    int const stride = 2 * n + 3;
    int const heap_capacity =
        opt.heap_capacity > 0
            ? opt.heap_capacity
            : int(std::clamp<double>(std::floor(heap_bytes / (double(count) * stride * sizeof(Real))), 16.0, double(1 << 24)));
    double const per_region_bytes = double(heap_capacity) * stride * sizeof(Real);
    std::int64_t const batch = std::clamp<std::int64_t>(std::int64_t(heap_bytes / per_region_bytes), 1, count);
    require(batch <= (1 << 30), "phase-2 batch too large");
    res.phase2_batch = std::max<std::int64_t>(res.phase2_batch, batch);
    res.heap_capacity = std::max(res.heap_capacity, heap_capacity);
    Kokkos::View<Real***, Kokkos::LayoutRight, Mem> heaps(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::heaps"),
                                                         batch, heap_capacity, stride);
    detail::Matrix<Mem> sums("parity::cubature::phase2_sums", count, 2);
    Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem> region_counts("parity::cubature::phase2_counts", count, 3);
    res.phase2_rounds = std::max(res.phase2_rounds, 1);
    for (std::int64_t first = 0; first < count; first += batch) {
      int const m = int(std::min(batch, count - first));
      detail::phase2_batch<ExecutionSpace, Real>(space, f, n, current, first, m, team_size, heaps, share, budget, sums,
                                                 region_counts, false, nulls);
      out.update({"phase 2", first / batch + 1, -1.0, clock.seconds(),
                  "regions " + std::to_string(first + m) + " of " + std::to_string(count)});
    }
    // With every heap resident (one batch), the evaluations that finished regions left unused
    // go to the regions their share stopped, in proportion to their error, and those resume.
    // Fixed-order sums keep this deterministic.
    detail::Matrix<Mem> redistribution("parity::cubature::redistribution", count, 2);
    for (int round = 2; batch == count && round <= 64; ++round) {
      auto const rc = region_counts;
      auto const sm = sums;
      auto const t = redistribution;
      Kokkos::parallel_for(
          "parity::cubature::unused_budget", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
          KOKKOS_LAMBDA(std::int64_t r) {
            t(r, 0) = rc(r, 2) == detail::reason_budget ? sm(r, 1) : 0.0;
            t(r, 1) = double(rc(r, 0));
          });
      auto const s = algorithms::fixed_order_column_sums(space, redistribution, count);
      double const unused = double(left) - s[1];
      if (!(s[0] > 0) || unused < double(2 * points)) break;
      std::int64_t movable = 0;
      double const inv = 1.0 / s[0];
      std::int64_t const cost = 2 * points;
      Kokkos::parallel_reduce(
          "parity::cubature::new_budget", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
          KOKKOS_LAMBDA(std::int64_t r, std::int64_t& able) {
            if (rc(r, 2) != detail::reason_budget) return;
            std::int64_t const extra = std::int64_t(unused * sm(r, 1) * inv);
            budget(r) = rc(r, 0) + extra;
            able += extra >= cost ? 1 : 0;
          },
          movable);
      if (movable == 0) break;
      detail::phase2_batch<ExecutionSpace, Real>(space, f, n, current, 0, int(count), team_size, heaps, share, budget,
                                                 sums, region_counts, true, nulls);
      res.phase2_rounds = std::max(res.phase2_rounds, round);
      out.update({"phase 2", round, -1.0, clock.seconds(),
                  "unused evaluations moved to " + std::to_string(movable) + " regions"});
    }
    auto const totals = algorithms::fixed_order_column_sums(space, sums, count);
    std::int64_t evals = 0, leaves = 0, n_budget = 0, n_storage = 0, n_nan = 0;
    Kokkos::parallel_reduce(
        "parity::cubature::phase2_counts", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r, std::int64_t& e, std::int64_t& l, std::int64_t& b, std::int64_t& s,
                      std::int64_t& x) {
          e += region_counts(r, 0);
          l += region_counts(r, 1);
          b += region_counts(r, 2) == detail::reason_budget ? 1 : 0;
          s += region_counts(r, 2) == detail::reason_storage ? 1 : 0;
          x += region_counts(r, 2) == detail::reason_not_finite ? 1 : 0;
        },
        evals, leaves, n_budget, n_storage, n_nan);
    res.evaluations += evals;
    res.regions_evaluated += evals / points;
    res.phase2_budget_limited += n_budget;
    res.phase2_storage_limited += n_storage;
    not_finite = not_finite || n_nan > 0;
    budget_hit = budget_hit || n_budget > 0;
    fin_est += totals[0];
    fin_err += totals[1];
    fin_regions += leaves;
  };

  {
    std::optional<timing::ScopedPhase<ExecutionSpace>> phase1_timer;  // paused while phase 2 runs
    phase1_timer.emplace(space, phase_times, "parity::cubature::phase1");
    detail::even_partition<ExecutionSpace, Real>(space, current, n, count, counts, lo, hi);
    for (int it = 1;; ++it) {
      reserve(count);
      detail::evaluate_list<ExecutionSpace, Real>(space, f, n, current, count, team_size, finite, nulls);
      if (nulls.sharp && siblings > 1)
        detail::two_level_check<ExecutionSpace, Real>(space, current, count / siblings, siblings, parent_estimate,
                                                     nulls.c_scale, nulls.c_add);
      res.evaluations += count * points;
      res.regions_evaluated += count;
      res.phase1_iterations = it;
      ++chunk_iterations;

      // Totals and the tolerance.
      {
        auto const est = current.estimate;
        auto const err = current.error;
        auto const t = terms;
        auto const fin = finite;
        Kokkos::parallel_for(
            "parity::cubature::totals", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
            KOKKOS_LAMBDA(std::int64_t r) {
              t(r, 0) = est(r);
              t(r, 1) = err(r);
              t(r, 2) = fin(r) ? 0.0 : 1.0;
              t(r, 3) = 0.0;
            });
      }
      auto const totals = algorithms::fixed_order_column_sums(space, terms, count, block_sums);
      double const total_est = fin_est + totals[0] + waiting.estimate;
      double const total_err = fin_err + totals[1] + waiting.error;
      tol_now = std::max(tol.absolute, tol.relative * std::abs(total_est));
      Phase1Step step{it, count, 0, total_est, total_err, res.evaluations};
      if (totals[2] > 0) {
        not_finite = true;
        res.integral = total_est;
        res.error = total_err;
        res.regions = fin_regions + count + waiting.parents;
        res.history.push_back(step);
        done = true;
        break;
      }
      if (total_err <= tol_now) {
        res.integral = total_est;
        res.error = total_err;
        res.regions = fin_regions + count + waiting.parents;
        res.history.push_back(step);
        out.update({"phase 1", it, total_err, clock.seconds(),
                    "regions " + std::to_string(count) + ", converged"});
        done = true;
        break;
      }

      // Classify against the volume share of the tolerance (paper), or of what is left of it
      // (improved: 0.9 tau less the finished regions' error, over the unfinished volume, as in
      // PAGANI); finished regions leave the list.
      {
        auto const half = current.half;
        auto const est = current.estimate;
        auto const err = current.error;
        auto const t = terms;
        auto const fl = flag;
        double const tol_c =
            paper ? tol_now
                  : std::max(tolerance_left(), parking ? 0.05 * tol_now * active_volume : 0.0) /
                        std::max(active_volume, 1e-300);
        Kokkos::parallel_for(
            "parity::cubature::classify", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
            KOKKOS_LAMBDA(std::int64_t r) {
              double const v = detail::volume_fraction<Real>(half, r, n, box_half);
              bool const is_bad = !(double(err(r)) <= tol_c * v);
              fl(r) = is_bad ? 1 : 0;
              t(r, 0) = is_bad ? 0.0 : double(est(r));
              t(r, 1) = is_bad ? 0.0 : double(err(r));
              t(r, 2) = is_bad ? v : 0.0;
              t(r, 3) = is_bad ? double(err(r)) : 0.0;
            });
      }
      auto const split_sums = algorithms::fixed_order_column_sums(space, terms, count, block_sums);
      bad = algorithms::compaction_offsets(space, flag, offset, count);
      fin_est += split_sums[0];
      fin_err += split_sums[1];
      fin_regions += count - bad;
      bad_volume = split_sums[2];
      bad_error = split_sums[3];
      step.bad = bad;
      res.history.push_back(step);
      out.update({"phase 1", it, total_err, clock.seconds(),
                  "regions " + std::to_string(count) + ", unfinished " + std::to_string(bad) +
                      ", integral " + detail::short_number(total_est) +
                      ", tolerance " + detail::short_number(tol_now) +
                      (parked.empty() ? std::string() : ", parked chunks " + std::to_string(parked.size()))});
      if (bad == 0 && !parked.empty()) {
        if (!unpark_next()) break;
        continue;
      }
      if (bad == 0) {
        res.integral = fin_est;
        res.error = fin_err;
        res.regions = fin_regions;
        done = true;
        break;
      }

      // Paper: split the bad regions into d pieces each (the list then holds about
      // max_regions); hand over once phase2_regions are bad. Improved: bisect them while the
      // list fits `capacity`, finishing the regions of smallest error when it would not. What the
      // list may spend leaves out the budget set aside for parked regions.
      std::int64_t const left = std::max<std::int64_t>(0, opt.max_evaluations - waiting.budget - res.evaluations);
      int d = 2;
      bool handover = false;
      if (paper) {
        d = int(std::clamp<std::int64_t>(opt.max_regions / bad, 2, opt.max_split));
        if (bad * d * points > left) d = int(std::min<std::int64_t>(d, left / (bad * points)));
        handover = bad >= opt.phase2_regions || it >= iteration_limit || d < 2;
      } else {
        if (2 * bad > capacity) {
          auto const filtered = detail::filter_smallest<ExecutionSpace, Real>(
              space, current, count, n, box_half, flag, offset, terms, capacity / 2,
              0.5 * std::max(0.0, tolerance_left()));
          if (filtered.regions > 0) {
            finish(filtered);
            res.filtered_regions += filtered.regions;
          }
        }
        if (2 * bad * points > left && parking && waiting.budget > 0 && waiting.bytes + parked_bytes(bad, 2) <= host_bytes) {
          // The list has spent its share of the budget while parked chunks hold theirs: its pieces
          // are deferred to the bottom of the stack, refined with what the chunks above leave
          // (finishing them as they are now would waste what those chunks do not spend).
          park_pieces(0, bad, 2, true);
          if (!unpark_next()) break;
          continue;
        }
        if (2 * bad * points > left && (parking || 2 * bad <= capacity)) {
          // The budget cannot split every unfinished region: split the worst ones it pays for and
          // finish the others as they are (breadth-first, instead of phase 2's heaps; measured
          // better on smooth integrands and far faster on GPUs, whose heaps run one region per team).
          std::int64_t const affordable = left / (2 * points);
          double const inf = std::numeric_limits<double>::infinity();
          auto const cut = affordable > 0
                               ? detail::filter_smallest<ExecutionSpace, Real>(space, current, count, n, box_half, flag,
                                                                               offset, terms, affordable, inf)
                               : detail::finish_below<ExecutionSpace, Real>(space, current, count, n, box_half, flag,
                                                                            offset, terms, inf, inf);
          finish(cut);
          if (bad == 0 && !parked.empty() && waiting.budget > 0) {
            if (!unpark_next()) break;  // the list spent its share; parked chunks hold theirs
            continue;
          }
          if (bad == 0) {
            stop_at_budget();
            break;
          }
        }
        handover = (!parking && 2 * bad > capacity) || chunk_iterations >= iteration_limit;
      }
      active_volume = bad_volume;
      std::int64_t split_parents = bad;  // the bad regions split into `next` now
      if (parking && !handover && 2 * bad > capacity) {
        // Keep the first capacity / 4 bad regions (their pieces fill half a list) and park the
        // pieces of the others, in chunks of a list's worth; the first chunk ends on top.
        std::int64_t const keep = std::max<std::int64_t>(1, capacity / (2 * d));
        if (waiting.bytes + parked_bytes(bad - keep, d) > host_bytes) {
          handover = true;  // host memory full: phase 2's heaps take this list (see below)
        } else {
          park_pieces(keep, bad, d, false);
          split_parents = keep;
        }
      }
      if (handover) {
        ensure_list(next, bad);
        detail::split_flagged<ExecutionSpace, Real>(space, n, current, count, flag, offset, 1, next);
        std::swap(current, next);
        next = List();
        count = bad;
        if (parked.empty()) break;  // phase 2 takes the rest
        // Parked chunks wait (host memory full, or this list reached the iteration limit): phase 2
        // refines this list alone, with its share of the budget and of the tolerance, and phase 1
        // goes on with the chunks. Handing them over at their parents' values instead stopped their
        // refinement for good (f3 5-D, 4e11 evaluations, H200: true error 1.1e-6).
        phase1_timer.reset();
        phase2(left, std::max(tolerance_left(), 0.1 * tol_now * bad_volume));
        phase1_timer.emplace(space, phase_times, "parity::cubature::phase1");
        if (!unpark_next()) break;
        continue;
      }
      ensure_list(next, split_parents * d);
      ensure_parents(split_parents);
      detail::split_flagged<ExecutionSpace, Real>(space, n, current, count, flag, offset, d, next,
                                                  nulls.sharp ? parent_estimate : Kokkos::View<Real*, Mem>(), 0,
                                                  split_parents);
      siblings = d;
      std::swap(current, next);
      count = split_parents * d;
    }
  }

  if (!done) {
    phase2(std::max<std::int64_t>(0, opt.max_evaluations - res.evaluations),
           std::max(tol_now - fin_err, 0.1 * tol_now * bad_volume));
    res.integral = fin_est;
    res.error = fin_err;
    res.regions = fin_regions;
  }

  res.tolerance = std::max(tol.absolute, tol.relative * std::abs(res.integral));
  if (not_finite || !std::isfinite(res.integral) || !std::isfinite(res.error))
    res.status = Status::integrand_not_finite;
  else if (res.error <= res.tolerance)
    res.status = Status::converged;
  else if (budget_hit || res.evaluations + points > opt.max_evaluations)
    res.status = Status::budget_exhausted;
  else if (res.phase2_storage_limited > 0 || res.unrefined_regions > 0)
    res.status = Status::storage_exhausted;
  else
    res.status = Status::not_converged;
  return res;
}

}  // namespace parity::cubature
