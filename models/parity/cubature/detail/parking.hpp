#pragma once
// The host stack of parked chunks of the cubature integrator (improved mode with
// max_host_memory_mb > 0): pieces of the list that would outgrow max_memory_mb wait in host
// memory, with shares of the tolerance and of the budget set aside, and come back when the
// current list is done.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "parity/cubature/detail/filter.hpp"
#include "parity/cubature/detail/integrator.hpp"
#include "parity/cubature/detail/parked_chunk.hpp"
#include "parity/cubature/detail/region_list.hpp"

namespace parity::cubature::detail {

// Sums over the stack, in stack order: the same sums on every backend.
template <class ExecutionSpace, class Real, class F>
auto Integrator<ExecutionSpace, Real, F>::parked_sums() const -> ParkedSums {
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
}

// Parked regions that will not be refined (a limit stopped the run): their parents' values
// become final.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::abandon_parked() {
  for (auto const& c : parked) res.unrefined_regions += c.count;
  fin_est += waiting.estimate;
  fin_err += waiting.error;
  fin_regions += waiting.parents;
  parked.clear();
  waiting = ParkedSums();
}

// The budget ended the run with the list finished: the result is the finished sums.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::stop_at_budget() {
  abandon_parked();
  res.integral = fin_est;
  res.error = fin_err;
  res.regions = fin_regions;
  budget_hit = true;
  done = true;
}

// The current list is done: refine the newest parked pieces next; false when the budget cannot
// evaluate them (their parents' values then stand and the run stops).
template <class ExecutionSpace, class Real, class F>
bool Integrator<ExecutionSpace, Real, F>::unpark_next() {
  if (parked.back().count * points > opt.max_evaluations - res.evaluations) {
    stop_at_budget();
    return false;
  }
  PendingChunk<Real> c = std::move(parked.back());
  parked.pop_back();
  waiting = parked_sums();
  ensure_list(current, c.count);
  ensure_parents(std::int64_t(c.parent.size()));
  unpark(space, c, n, current, parent_estimate);
  siblings = c.siblings;
  count = c.count;
  active_volume = c.volume;
  chunk_iterations = 0;
  return true;
}

// Parks the d pieces of the bad regions [p_begin, p_end) of the current list, in chunks that fit
// the list. Each chunk takes its volume's share of the tolerance left now, set aside until it is
// refined: regions finished in the meantime cannot use it up (without the reserve, the first
// pieces spend the tolerance and the last ones are refined without end). On top of the stack
// (the first chunk on top) each also takes its share of the evaluations left (half by its number
// of regions, half by their error, as phase 2 shares them): without it a binding budget went to
// the first chunks refined and left the others at their parents' values (f3 5-D, 2e12
// evaluations: 1.3e8 regions unrefined, true error 1.2e-6 against 5.1e-8 with 1e11 evaluations
// and no parking). At the bottom (deferred: see fit_memory_and_budget) nothing is set aside.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::park_pieces(std::int64_t p_begin, std::int64_t p_end, int d, bool bottom) {
  std::int64_t const per_chunk = std::max<std::int64_t>(1, capacity / d);
  double const density = std::max(0.0, tolerance_left()) / std::max(bad_volume, 1e-300);
  double const evaluations_left =
      bottom ? 0.0 : double(std::max<std::int64_t>(0, opt.max_evaluations - waiting.budget - res.evaluations));
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  for (std::int64_t p0 = p_begin; p0 < p_end; p0 += per_chunk) ranges.emplace_back(p0, std::min(p_end, p0 + per_chunk));
  std::vector<PendingChunk<Real>> chunks;
  for (auto r = ranges.rbegin(); r != ranges.rend(); ++r) {
    std::int64_t const p0 = r->first, p1 = r->second;
    ensure_list(next, (p1 - p0) * d);
    ensure_parents(p1 - p0);
    split_flagged<ExecutionSpace, Real>(space, n, current, count, flag, offset, d, next,
                                        nulls.sharp ? parent_estimate : Kokkos::View<Real*, Mem>(), p0, p1);
    auto const sums =
        flagged_range_sums<ExecutionSpace, Real>(space, current, count, n, box_half, flag, offset, terms, p0, p1);
    auto c = park<ExecutionSpace, Real>(space, next, (p1 - p0) * d, n, d, parent_estimate, nulls.sharp ? p1 - p0 : 0);
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
}

// Host bytes of the d pieces of `regions` parked regions.
template <class ExecutionSpace, class Real, class F>
double Integrator<ExecutionSpace, Real, F>::parked_bytes(std::int64_t regions, int d) const {
  return double(regions) * d * (2.0 * n + (nulls.sharp ? 1.0 / d : 0.0)) * sizeof(Real);
}

}  // namespace parity::cubature::detail
