#pragma once
// Phase 2 of the cubature integrator on the host side: the tolerance and budget shares of the
// regions phase 1 handed over, the heaps sized to max_memory_mb, the batches of regions, and the
// redistribution of the evaluations finished regions left unused (the kernel: phase2_kernel.hpp).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>

#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/cubature/detail/integrator.hpp"
#include "parity/cubature/detail/phase2_kernel.hpp"
#include "parity/cubature/detail/rank_rows.hpp"
#include "parity/cubature/detail/region_list.hpp"
#include "parity/cubature/detail/two_level.hpp"
#include "parity/run/errors.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::cubature::detail {

// Paper mode: the rule on the pieces phase 1 handed over (the first step of CUHRE on each, done
// for all at once), and their totals for the budget shares.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::evaluate_handed_over() {
  unevaluated = false;
  evaluate_regions();
  res.phase2_evaluations += count * points;
  {
    auto const half = current.half;
    auto const err = current.error;
    auto const t = terms;
    auto const fin = finite;
    int const dims = n;
    auto const box = box_half;
    Kokkos::parallel_for(
        "parity::cubature::handed_over", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r) {
          t(r, 0) = volume_fraction<Real>(half, r, dims, box);
          t(r, 1) = double(err(r));
          t(r, 2) = fin(r) ? 0.0 : 1.0;
          t(r, 3) = 0.0;
        });
  }
  auto const sums = algorithms::fixed_order_column_sums(space, terms, count, block_sums);
  bad_volume = sums[0];
  bad_error = sums[1];
  not_finite = not_finite || sums[2] > 0;
}

// Phase 2 for the `count` regions of `current` (with their split axes; evaluated unless paper
// mode's phase 1 handed over unevaluated pieces), sharing `left` evaluations among them and, in
// improved mode, `slack` of the tolerance by volume; in paper mode each runs to (tau_rel,
// tau_abs) of its own integral, as sequential CUHRE does. Their sums join the finished ones.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::phase2(std::int64_t left, double const slack) {
  timing::OptionalPhase<ExecutionSpace> phase(space, opt.phases, "parity::cubature::phase2");
  res.phase2_regions += count;
  if (unevaluated) {
    evaluate_handed_over();
    left = std::max<std::int64_t>(0, left - count * points);
    if (not_finite) {
      fin_est = fin_err = res.last_error = std::numeric_limits<double>::quiet_NaN();
      return;
    }
  }
  // Not zero-filled: the kernels below write every entry before it is read (zero-filling the
  // heaps, sized by --max-memory-mb, cost more than the whole integration on small problems).
  Kokkos::View<double*, Mem> share(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::tolerance_share"),
                                   count);
  Kokkos::View<std::int64_t*, Mem> budget(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::budget_share"), count);
  {
    auto const half = current.half;
    auto const err = current.error;
    double const inv_volume = bad_volume > 0 ? 1.0 / bad_volume : 0.0;
    double const inv_error = bad_error > 0 ? 1.0 / bad_error : 0.0;
    double const even = 0.5 / double(count);
    bool const own = paper;
    double const tau_abs = tol.absolute;
    std::int64_t const cnt = count;
    int const dims = n;
    auto const box = box_half;
    Kokkos::parallel_for(
        "parity::cubature::shares", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r) {
          double const v = volume_fraction<Real>(half, r, dims, box);
          share(r) = own ? tau_abs : slack * v * inv_volume;
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
                            double(count) * ((phase2_sum_columns + 1) * sizeof(double) + 4 * sizeof(std::int64_t));
  double const heap_bytes = std::max(memory_bytes - kept_bytes, memory_bytes / 8);
  int const stride = 2 * n + 3;
  int const heap_capacity =
      opt.heap_capacity > 0 ? opt.heap_capacity
                            : int(std::clamp<double>(std::floor(heap_bytes / (double(count) * stride * sizeof(Real))),
                                                     16.0, double(1 << 24)));
  double const per_region_bytes = double(heap_capacity) * stride * sizeof(Real);
  std::int64_t const batch = std::clamp<std::int64_t>(std::int64_t(heap_bytes / per_region_bytes), 1, count);
  require(batch <= (1 << 30), "phase-2 batch too large");
  res.phase2_batch = std::max<std::int64_t>(res.phase2_batch, batch);
  res.heap_capacity = std::max(res.heap_capacity, heap_capacity);
  Matrix<Mem> sums("parity::cubature::phase2_sums", count, phase2_sum_columns);
  double const relative = paper ? tol.relative : 0.0;
  bool const average = paper && opt.cuhre_average;
  Counts region_counts("parity::cubature::phase2_counts", count, 3);
  res.phase2_rounds = std::max(res.phase2_rounds, 1);
  // This rank's regions [p0, p1) (all of them on one rank), in batches; the heaps, the shares
  // and every limit are those of one rank, so each region runs the same steps for any rank count.
  std::int64_t const p0 = opt.ranks.first(count), p1 = opt.ranks.last(count);
  Heaps heaps;
  std::exception_ptr failed;
  try {
    heaps = Heaps(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::heaps"), std::min(batch, p1 - p0),
                  heap_capacity, stride);
    for (std::int64_t first = p0; first < p1; first += batch) {
      int const m = int(std::min(batch, p1 - first));
      phase2_batch<ExecutionSpace, Real>(space, f, n, current, first, m, team_size, heaps, share, budget, sums,
                                         region_counts, false, nulls, relative, average);
      report({"phase 2", int((first - p0) / batch) + 1, -1.0, clock.seconds(),
              "regions " + std::to_string(first + m - p0) + " of " + std::to_string(p1 - p0)});
    }
  } catch (...) {
    if (!opt.ranks.several()) throw;
    failed = std::current_exception();
  }
  if (opt.ranks.several()) gather_phase2(sums, region_counts, failed);
  // With every heap resident (one batch), the evaluations that finished regions left unused
  // go to the regions their share stopped, in proportion to their error, and those resume.
  // Fixed-order sums keep this deterministic.
  Matrix<Mem> redistribution("parity::cubature::redistribution", count, 2);
  for (int round = 2; batch == count && round <= 64; ++round) {
    auto const rc = region_counts;
    auto const sm = sums;
    auto const t = redistribution;
    Kokkos::parallel_for(
        "parity::cubature::unused_budget", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r) {
          t(r, 0) = rc(r, 2) == reason_budget ? sm(r, 1) : 0.0;
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
        KOKKOS_LAMBDA(std::int64_t r, std::int64_t & able) {
          if (rc(r, 2) != reason_budget) return;
          std::int64_t const extra = std::int64_t(unused * sm(r, 1) * inv);
          budget(r) = rc(r, 0) + extra;
          able += extra >= cost ? 1 : 0;
        },
        movable);
    if (movable == 0) break;
    try {
      if (p1 > p0)
        phase2_batch<ExecutionSpace, Real>(space, f, n, current, p0, int(p1 - p0), team_size, heaps, share, budget,
                                           sums, region_counts, true, nulls, relative, average);
    } catch (...) {
      if (!opt.ranks.several()) throw;
      failed = std::current_exception();
    }
    if (opt.ranks.several()) gather_phase2(sums, region_counts, failed);
    res.phase2_rounds = std::max(res.phase2_rounds, round);
    report({"phase 2", round, -1.0, clock.seconds(),
            "unused evaluations moved to " + std::to_string(movable) + " regions"});
  }
  if (batch == count && opt.heap_capacity == 0)
    regrow_full_heaps(heaps, sums, region_counts, share, left, heap_bytes, relative, average);
  auto const totals = algorithms::fixed_order_column_sums(space, sums, count);
  std::int64_t evals = 0, leaves = 0, n_budget = 0, n_storage = 0, n_nan = 0;
  Kokkos::parallel_reduce(
      "parity::cubature::phase2_counts", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r, std::int64_t & e, std::int64_t & l, std::int64_t & b, std::int64_t & s,
                    std::int64_t & x) {
        e += region_counts(r, 0);
        l += region_counts(r, 1);
        b += region_counts(r, 2) == reason_budget ? 1 : 0;
        s += region_counts(r, 2) == reason_storage ? 1 : 0;
        x += region_counts(r, 2) == reason_not_finite ? 1 : 0;
      },
      evals, leaves, n_budget, n_storage, n_nan);
  res.evaluations += evals;
  res.phase2_evaluations += evals;
  res.regions_evaluated += evals / points;
  res.phase2_budget_limited += n_budget;
  res.phase2_storage_limited += n_storage;
  not_finite = not_finite || n_nan > 0;
  budget_hit = budget_hit || n_budget > 0;
  res.last_error = fin_err + totals[sum_last_error];
  fin_est += totals[sum_integral];
  fin_err += totals[sum_error];
  fin_regions += leaves;
}

// The regions whose heap filled resume, alone, in heaps as large as the memory of all the heaps
// allows: each heap is copied over as it stands, so a region refines the subregions it would have
// with that storage from the start (sequential CUHRE's, while it fits). They share the evaluations
// the others left unused by their errors; again while heaps fill and can grow at least twofold.
// The capacity depends only on how many heaps filled on all ranks, so each region runs the same
// steps for any rank count. Needs every heap resident (one batch) and a capacity set by the
// memory, not by Options::heap_capacity. While the full heaps are copied aside they add their
// share of the heaps' memory to it.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::regrow_full_heaps(Heaps& heaps, Matrix<Mem> const& sums, Counts const& counts,
                                                            Kokkos::View<double*, Mem> const& share, std::int64_t left,
                                                            double heap_bytes, double relative, bool average) {
  int const stride = 2 * n + 3;
  std::int64_t const p0 = opt.ranks.first(count), p1 = opt.ranks.last(count);
  // The heap slot of each of this rank's regions (its place in `heaps`).
  Kokkos::View<std::int64_t*, Mem> slot(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::heap_slot"),
                                        count);
  Kokkos::parallel_for(
      "parity::cubature::heap_slot", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r) { slot(r) = r >= p0 && r < p1 ? r - p0 : -1; });
  Matrix<Mem> full_terms("parity::cubature::full_heaps", count, 3);
  for (int round = 1;; ++round) {
    int const capacity = int(heaps.extent(1));
    Kokkos::parallel_for(
        "parity::cubature::full_heaps", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r) {
          bool const full = counts(r, 2) == reason_storage;
          full_terms(r, 0) = full ? 1.0 : 0.0;
          full_terms(r, 1) = full ? sums(r, sum_error) : 0.0;
          full_terms(r, 2) = double(counts(r, 0));
        });
    auto const s = algorithms::fixed_order_column_sums(space, full_terms, count);
    std::int64_t const full = std::int64_t(s[0]);
    double const unused = double(left) - s[2];
    if (full == 0 || !(s[1] > 0) || unused < double(2 * points)) return;
    double const fits = std::floor(heap_bytes / (double(full) * stride * sizeof(Real)));
    int const grown = int(std::min(fits, double(1 << 24)));
    if (grown < 2 * capacity) return;
    // This rank's full regions in order, their heaps set aside while the old heaps are freed.
    Kokkos::View<std::int64_t*, Mem> index("parity::cubature::full_heap_index", full);
    std::int64_t local = 0;
    Kokkos::parallel_scan(
        "parity::cubature::full_heap_index", Kokkos::RangePolicy<ExecutionSpace>(space, p0, p1),
        KOKKOS_LAMBDA(std::int64_t r, std::int64_t & k, bool last) {
          if (counts(r, 2) != reason_storage) return;
          if (last) index(k) = r;
          ++k;
        },
        local);
    auto const copy = [&](Heaps const& from, Heaps const& to, bool by_slot) {
      std::int64_t const cap = capacity;
      Kokkos::parallel_for(
          "parity::cubature::copy_heaps", Kokkos::RangePolicy<ExecutionSpace>(space, 0, local * cap),
          KOKKOS_LAMBDA(std::int64_t i) {
            std::int64_t const k = i / cap, q = i % cap, j = index(k);
            if (q >= counts(j, 1)) return;
            std::int64_t const a = by_slot ? slot(j) : k;
            for (int m = 0; m < stride; ++m) to(k, q, m) = from(a, q, m);
          });
    };
    Heaps aside(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::full_heaps_aside"), local, capacity,
                stride);
    copy(heaps, aside, true);
    heaps = Heaps();
    heaps = Heaps(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::heaps"), local, grown, stride);
    copy(aside, heaps, false);
    aside = Heaps();
    // Their tolerances, budgets, sums and counts side by side; each resumes where it stopped.
    Kokkos::View<double*, Mem> tolerance("parity::cubature::regrown_tolerance", local);
    Kokkos::View<std::int64_t*, Mem> budget("parity::cubature::regrown_budget", local);
    Matrix<Mem> part_sums("parity::cubature::regrown_sums", local, phase2_sum_columns);
    Counts part_counts("parity::cubature::regrown_counts", local, 3);
    double const per_error = unused / s[1];
    Kokkos::parallel_for(
        "parity::cubature::regrown_regions", Kokkos::RangePolicy<ExecutionSpace>(space, 0, local),
        KOKKOS_LAMBDA(std::int64_t k) {
          std::int64_t const j = index(k);
          tolerance(k) = share(j);
          budget(k) = counts(j, 0) + std::int64_t(per_error * sums(j, sum_error));
          for (int c = 0; c < phase2_sum_columns; ++c) part_sums(k, c) = sums(j, c);
          part_counts(k, 0) = counts(j, 0);
          part_counts(k, 1) = counts(j, 1);
          part_counts(k, 2) = reason_budget;  // what a resumed round continues
          slot(j) = k;
        });
    std::exception_ptr failed;
    try {
      if (local > 0)
        phase2_batch<ExecutionSpace, Real>(space, f, n, RegionList<Real, Mem>(), 0, int(local), team_size, heaps,
                                           tolerance, budget, part_sums, part_counts, true, nulls, relative, average);
      Kokkos::parallel_for(
          "parity::cubature::regrown_results", Kokkos::RangePolicy<ExecutionSpace>(space, 0, local),
          KOKKOS_LAMBDA(std::int64_t k) {
            std::int64_t const j = index(k);
            for (int c = 0; c < phase2_sum_columns; ++c) sums(j, c) = part_sums(k, c);
            for (int c = 0; c < 3; ++c) counts(j, c) = part_counts(k, c);
          });
    } catch (...) {
      if (!opt.ranks.several()) throw;
      failed = std::current_exception();
    }
    if (opt.ranks.several()) gather_phase2(sums, counts, failed);
    res.phase2_regrown += full;
    res.heap_capacity = std::max(res.heap_capacity, grown);
    report({"phase 2", round, -1.0, clock.seconds(),
            "heaps of " + std::to_string(full) + " regions grown to " + std::to_string(grown) + " subregions"});
  }
}

// Several ranks: every region's phase-2 sums reported and its last estimates' error, and its
// counts (evaluations, heap size, why it stopped) from the rank that refined it, to every rank
// (7 doubles a region; the evaluation count in two halves of 32 bits, exact in doubles). A resumed
// region resumes on the rank that refined it, from that rank's own sums.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::gather_phase2(Matrix<Mem> const& sums, Counts const& counts,
                                                        std::exception_ptr failed) {
  if (!failed) {
    try {
      ensure_rank_rows(7 * count);
      pack_phase2(sums, counts);
    } catch (...) {
      failed = std::current_exception();
    }
  }
  gather_rows(space, opt.ranks, rank_rows, count, 7, failed);
  unpack_phase2(sums, counts);
}

template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::pack_phase2(Matrix<Mem> const& sums, Counts const& counts) {
  auto const rows = rank_rows;
  Kokkos::parallel_for(
      "parity::cubature::pack_phase2",
      Kokkos::RangePolicy<ExecutionSpace>(space, opt.ranks.first(count), opt.ranks.last(count)),
      KOKKOS_LAMBDA(std::int64_t r) {
        rows(7 * r) = sums(r, sum_integral);
        rows(7 * r + 1) = sums(r, sum_error);
        rows(7 * r + 2) = double(counts(r, 0) >> 32);
        rows(7 * r + 3) = double(counts(r, 0) & 0xffffffff);
        rows(7 * r + 4) = double(counts(r, 1));
        rows(7 * r + 5) = double(counts(r, 2));
        rows(7 * r + 6) = sums(r, sum_last_error);
      });
}

template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::unpack_phase2(Matrix<Mem> const& sums, Counts const& counts) {
  auto const rows = rank_rows;
  double const high = 4294967296.0;  // 2^32
  Kokkos::parallel_for(
      "parity::cubature::unpack_phase2", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r) {
        sums(r, sum_integral) = rows(7 * r);
        sums(r, sum_error) = rows(7 * r + 1);
        counts(r, 0) = std::int64_t(rows(7 * r + 2) * high) + std::int64_t(rows(7 * r + 3));
        counts(r, 1) = std::int64_t(rows(7 * r + 4));
        counts(r, 2) = std::int64_t(rows(7 * r + 5));
        sums(r, sum_last_error) = rows(7 * r + 6);
      });
}

}  // namespace parity::cubature::detail
