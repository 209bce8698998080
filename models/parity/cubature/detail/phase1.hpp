#pragma once
// Phase 1 of the cubature integrator (breadth-first, every region of the list at once): the
// steps of one iteration - evaluate the list, total it against the tolerance, classify its
// regions, and split the unfinished ones into the next list (or hand the list to phase 2).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "parity/algorithms/compact.hpp"
#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/cubature/detail/filter.hpp"
#include "parity/cubature/detail/integrator.hpp"
#include "parity/cubature/detail/rank_rows.hpp"
#include "parity/cubature/detail/region_list.hpp"
#include "parity/cubature/detail/two_level.hpp"

namespace parity::cubature::detail {

template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::phase1() {
  even_partition<ExecutionSpace, Real>(space, current, n, count, counts, lo, hi);
  for (int it = 1;; ++it)
    if (phase1_step(it) == Flow::stop) break;
}

template <class ExecutionSpace, class Real, class F>
Flow Integrator<ExecutionSpace, Real, F>::phase1_step(int it) {
  evaluate_current(it);
  Phase1Step step{it, count, 0, 0.0, 0.0, 0};
  if (totals(step)) return Flow::stop;
  classify(step);
  if (bad == 0 && !parked.empty()) return unpark_next() ? Flow::next_iteration : Flow::stop;
  if (bad == 0) {
    res.integral = fin_est;
    res.error = fin_err;
    res.regions = fin_regions;
    done = true;
    return Flow::stop;
  }
  return refine(it);
}

// The rule on every region of the current list (on this rank's share, then gathered, with several
// ranks) and the two-level check against the parents; both phases evaluate their lists this way.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::evaluate_regions() {
  reserve(count);
  if (opt.ranks.several())
    evaluate_shares();
  else
    evaluate_list<ExecutionSpace, Real>(space, f, n, current, count, team_size, finite, nulls);
  if (nulls.sharp && siblings > 1)
    two_level_check<ExecutionSpace, Real>(space, current, count / siblings, siblings, parent_estimate, nulls.c_scale,
                                          nulls.c_add);
  res.evaluations += count * points;
  res.regions_evaluated += count;
}

template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::evaluate_current(int it) {
  evaluate_regions();
  res.phase1_iterations = it;
  ++chunk_iterations;
}

// Several ranks: each applies the rule to its share of the list, then every rank gets every
// region's estimate, error, split axis and finiteness (4 doubles a region). The evaluation of a
// region does not depend on the rank that does it, so every rank then holds one rank's list.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::evaluate_shares() {
  std::int64_t const p0 = opt.ranks.first(count), p1 = opt.ranks.last(count);
  std::exception_ptr failed;
  try {
    ensure_rank_rows(4 * count);
    evaluate_list<ExecutionSpace, Real>(space, f, n, current, p1, team_size, finite, nulls, p0);
    pack_evaluations(p0, p1);
  } catch (...) {
    failed = std::current_exception();
  }
  gather_rows(space, opt.ranks, rank_rows, count, 4, failed);
  unpack_evaluations();
}

template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::pack_evaluations(std::int64_t p0, std::int64_t p1) {
  auto const rows = rank_rows;
  auto const est = current.estimate;
  auto const err = current.error;
  auto const ax = current.axis;
  auto const fin = finite;
  Kokkos::parallel_for(
      "parity::cubature::pack_evaluations", Kokkos::RangePolicy<ExecutionSpace>(space, p0, p1),
      KOKKOS_LAMBDA(std::int64_t r) {
        rows(4 * r) = double(est(r));
        rows(4 * r + 1) = double(err(r));
        rows(4 * r + 2) = double(ax(r));
        rows(4 * r + 3) = double(fin(r));
      });
}

template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::unpack_evaluations() {
  auto const rows = rank_rows;
  auto const est = current.estimate;
  auto const err = current.error;
  auto const ax = current.axis;
  auto const fin = finite;
  Kokkos::parallel_for(
      "parity::cubature::unpack_evaluations", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r) {
        est(r) = Real(rows(4 * r));
        err(r) = Real(rows(4 * r + 1));
        ax(r) = int(rows(4 * r + 2));
        fin(r) = int(rows(4 * r + 3));
      });
}

// Totals and the tolerance; true when the run ends here (converged, or a non-finite value).
template <class ExecutionSpace, class Real, class F>
bool Integrator<ExecutionSpace, Real, F>::totals(Phase1Step& step) {
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
  auto const sums = algorithms::fixed_order_column_sums(space, terms, count, block_sums);
  double const total_est = fin_est + sums[0] + waiting.estimate;
  double const total_err = fin_err + sums[1] + waiting.error;
  tol_now = std::max(tol.absolute, tol.relative * std::abs(total_est));
  step = Phase1Step{step.iteration, count, 0, total_est, total_err, res.evaluations};
  if (sums[2] > 0) {
    not_finite = true;
    res.integral = total_est;
    res.error = total_err;
    res.regions = fin_regions + count + waiting.parents;
    res.history.push_back(step);
    done = true;
    return true;
  }
  if (total_err <= tol_now) {
    res.integral = total_est;
    res.error = total_err;
    res.regions = fin_regions + count + waiting.parents;
    res.history.push_back(step);
    report({"phase 1", step.iteration, total_err, clock.seconds(), "regions " + std::to_string(count) + ", converged"});
    done = true;
    return true;
  }
  return false;
}

// Classifies each region as the paper's UPDATE and PARTITION do (good when its error <
// max(tau_abs, tau_rel |I_j|)), or against the volume share of what is left of the tolerance
// (improved: 0.9 tau less the finished regions' error, over the unfinished volume, as in
// PAGANI); finished regions leave the list.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::classify(Phase1Step& step) {
  {
    auto const half = current.half;
    auto const est = current.estimate;
    auto const err = current.error;
    auto const t = terms;
    auto const fl = flag;
    int const dims = n;
    auto const box = box_half;
    double const tol_c = paper ? 0.0
                               : std::max(tolerance_left(), parking ? 0.05 * tol_now * active_volume : 0.0) /
                                     std::max(active_volume, 1e-300);
    bool const own = paper;
    double const tau_abs = tol.absolute, tau_rel = tol.relative;
    Kokkos::parallel_for(
        "parity::cubature::classify", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r) {
          double const v = volume_fraction<Real>(half, r, dims, box);
          bool const is_bad = own ? !(double(err(r)) < Kokkos::max(tau_abs, tau_rel * Kokkos::abs(double(est(r)))))
                                  : !(double(err(r)) <= tol_c * v);
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
  report({"phase 1", step.iteration, step.error, clock.seconds(),
          "regions " + std::to_string(count) + ", unfinished " + std::to_string(bad) + ", integral " +
              short_number(step.integral) + ", tolerance " + short_number(tol_now) +
              (parked.empty() ? std::string() : ", parked chunks " + std::to_string(parked.size()))});
}

// Paper: split the bad regions into d pieces each, d = SPLIT-FACTOR = clamp(Lmax / bad, 2,
// max_split) (the list then holds about Lmax); once it holds Lmax or more, the pieces go to phase
// 2. Improved: bisect them while the list fits `capacity`,
// finishing the regions of smallest error when it would not. What the list may spend leaves out
// the budget set aside for parked regions.
template <class ExecutionSpace, class Real, class F>
Flow Integrator<ExecutionSpace, Real, F>::refine(int it) {
  std::int64_t const left = std::max<std::int64_t>(0, opt.max_evaluations - waiting.budget - res.evaluations);
  int d = 2;
  bool handover = false;
  if (paper) {
    d = int(std::clamp<std::int64_t>(opt.max_regions / bad, 2, opt.max_split));
    if (bad * d * points > left) d = int(std::min<std::int64_t>(d, left / (bad * points)));
    // The iteration limit and the budget hand over the bad regions as they are.
    handover = it >= iteration_limit || d < 2;
    if (!handover && bad * d >= opt.max_regions) {
      split_or_hand_over(left, d, false);
      unevaluated = true;  // phase 2 applies the rule to them first (CUHRE's first step)
      return Flow::stop;
    }
  } else {
    if (auto const flow = fit_memory_and_budget(left)) return *flow;
    handover = (!parking && 2 * bad > capacity) || chunk_iterations >= iteration_limit;
  }
  return split_or_hand_over(left, d, handover);
}

// Improved mode: the memory filter when the split list would not fit, and what to do when the
// budget cannot split every unfinished region. Returns a flow when the iteration ends here.
template <class ExecutionSpace, class Real, class F>
std::optional<Flow> Integrator<ExecutionSpace, Real, F>::fit_memory_and_budget(std::int64_t left) {
  if (2 * bad > capacity) {
    auto const filtered = filter_smallest<ExecutionSpace, Real>(space, current, count, n, box_half, flag, offset, terms,
                                                                capacity / 2, 0.5 * std::max(0.0, tolerance_left()));
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
    return unpark_next() ? Flow::next_iteration : Flow::stop;
  }
  if (2 * bad * points > left && (parking || 2 * bad <= capacity)) {
    // The budget cannot split every unfinished region: split the worst ones it pays for and
    // finish the others as they are (breadth-first, instead of phase 2's heaps; measured
    // better on smooth integrands and far faster on GPUs, whose heaps run one region per team).
    std::int64_t const affordable = left / (2 * points);
    double const inf = std::numeric_limits<double>::infinity();
    auto const cut = affordable > 0 ? filter_smallest<ExecutionSpace, Real>(space, current, count, n, box_half, flag,
                                                                            offset, terms, affordable, inf)
                                    : finish_below<ExecutionSpace, Real>(space, current, count, n, box_half, flag,
                                                                         offset, terms, inf, inf);
    finish(cut);
    if (bad == 0 && !parked.empty() && waiting.budget > 0)
      return unpark_next() ? Flow::next_iteration : Flow::stop;  // the list spent its share; parked chunks hold theirs
    if (bad == 0) {
      stop_at_budget();
      return Flow::stop;
    }
  }
  return std::nullopt;
}

// Splits the bad regions of the current list into d pieces each as the next list (parking the
// pieces that would not fit), or hands the list to phase 2.
template <class ExecutionSpace, class Real, class F>
Flow Integrator<ExecutionSpace, Real, F>::split_or_hand_over(std::int64_t left, int d, bool handover) {
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
    split_flagged<ExecutionSpace, Real>(space, n, current, count, flag, offset, 1, next);
    std::swap(current, next);
    next = List();
    count = bad;
    if (parked.empty()) return Flow::stop;  // phase 2 takes the rest
    // Parked chunks wait (host memory full, or this list reached the iteration limit): phase 2
    // refines this list alone, with its share of the budget and of the tolerance, and phase 1
    // goes on with the chunks. Handing them over at their parents' values instead stopped their
    // refinement for good (f3 5-D, 4e11 evaluations, H200: true error 1.1e-6).
    phase1_timer.reset();
    phase2(left, std::max(tolerance_left(), 0.1 * tol_now * bad_volume));
    phase1_timer.emplace(space, opt.phases, "parity::cubature::phase1");
    return unpark_next() ? Flow::next_iteration : Flow::stop;
  }
  ensure_list(next, split_parents * d);
  ensure_parents(split_parents);
  split_flagged<ExecutionSpace, Real>(space, n, current, count, flag, offset, d, next,
                                      nulls.sharp ? parent_estimate : Kokkos::View<Real*, Mem>(), 0, split_parents);
  siblings = d;
  std::swap(current, next);
  count = split_parents * d;
  return Flow::next_iteration;
}

}  // namespace parity::cubature::detail
