#pragma once
// The state of one integration (integrate.hpp): the region lists and work arrays, the running
// sums of the finished regions, the parked chunks and the result, in one object whose member
// functions are the algorithm's steps. The steps are defined beside the concept they belong to:
// phase1.hpp (evaluation, totals, classification, splitting), parking.hpp (the host stack of
// parked chunks), phase2.hpp (the heaps).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/cubature/detail/filter.hpp"
#include "parity/cubature/detail/final_status.hpp"
#include "parity/cubature/detail/parked_chunk.hpp"
#include "parity/cubature/detail/region_list.hpp"
#include "parity/cubature/detail/rule_setup.hpp"
#include "parity/cubature/options.hpp"
#include "parity/cubature/rule.hpp"
#include "parity/cubature/rule9.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::cubature::detail {

// INIT-PARTITION's l: the largest l with l^n <= lmax (at least 1).
inline int init_partition_parts(std::int64_t lmax, int n) {
  auto fits = [&](std::int64_t l) {
    std::int64_t p = 1;
    for (int i = 0; i < n; ++i)
      if ((p *= l) > lmax) return false;
    return true;
  };
  int l = 1;
  while (fits(l + 1)) ++l;
  return l;
}

inline std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

// What phase 1 does after a step: go on with the next iteration, or stop (the result is known,
// or the list goes to phase 2).
enum class Flow { next_iteration, stop };

template <class ExecutionSpace, class Real, class F>
class Integrator {
 public:
  // The problem must have passed validate().
  Integrator(ExecutionSpace const& space, F const& f, std::vector<double> const& lower,
             std::vector<double> const& upper, Tolerances const& tol, Options const& opt);
  Result run();
  void evaluate_handed_over();

  // The steps below are public only because nvcc rejects extended device lambdas in private or
  // protected member functions; the class itself lives in detail/.
  using Mem = typename ExecutionSpace::memory_space;
  using List = RegionList<Real, Mem>;
  struct ParkedSums {
    double estimate = 0, error = 0, volume = 0, bytes = 0, reserve = 0;
    std::int64_t parents = 0, budget = 0;
  };

  // Storage (this file).
  void reserve(std::int64_t m);
  void ensure_list(List& l, std::int64_t m);
  void ensure_parents(std::int64_t m);
  void finish(Filtered const& sums);
  double tolerance_left() const { return 0.9 * tol_now - fin_err - waiting.reserve; }
  void report(run::ProgressLine const& line) const {
    if (opt.progress) opt.progress->update(line);
  }
  void set_status();

  // Phase 1 (phase1.hpp).
  void phase1();
  Flow phase1_step(int it);
  void evaluate_regions();
  void evaluate_current(int it);
  void evaluate_shares();
  void pack_evaluations(std::int64_t p0, std::int64_t p1);
  void unpack_evaluations();
  bool totals(Phase1Step& step);
  void classify(Phase1Step& step);
  Flow refine(int it);
  std::optional<Flow> fit_memory_and_budget(std::int64_t left);
  Flow split_or_hand_over(std::int64_t left, int d, bool handover);

  // Parking (parking.hpp).
  ParkedSums parked_sums() const;
  void abandon_parked();
  void stop_at_budget();
  bool unpark_next();
  void park_pieces(std::int64_t p_begin, std::int64_t p_end, int d, bool bottom);
  double parked_bytes(std::int64_t regions, int d) const;

  // Phase 2 (phase2.hpp).
  using Counts = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem>;
  using Heaps = Kokkos::View<Real***, Kokkos::LayoutRight, Mem>;
  void phase2(std::int64_t left, double slack);
  void regrow_full_heaps(Heaps& heaps, Matrix<Mem> const& sums, Counts const& counts,
                         Kokkos::View<double*, Mem> const& share, std::int64_t left, double heap_bytes, double relative,
                         bool average);
  void gather_phase2(Matrix<Mem> const& sums, Counts const& counts, std::exception_ptr failed);
  void pack_phase2(Matrix<Mem> const& sums, Counts const& counts);
  void unpack_phase2(Matrix<Mem> const& sums, Counts const& counts);
  void ensure_rank_rows(std::int64_t size);

  ExecutionSpace space;
  F const& f;
  Tolerances const& tol;
  Options const& opt;
  std::optional<timing::OptionalPhase<ExecutionSpace>> phase1_timer;  // paused while phase 2 runs

  int n = 0;
  std::int64_t points = 0;
  int team_size = 0;
  Kokkos::Array<double, max_dim> lo{}, hi{}, box_half{};
  Result res;
  Kokkos::Timer clock;
  bool paper = false;
  NullRules<Real> nulls;
  double memory_bytes = 0;
  Kokkos::Array<int, max_dim> counts{};  // pieces per axis of the even partition

  // The current list (count regions) and the next one; the work arrays for a list; `capacity`
  // bounds their length (paper mode max_regions; improved mode what max_memory_mb holds).
  std::int64_t count = 1;
  std::int64_t capacity = 0;
  List current, next;
  Kokkos::View<int*, Mem> finite, flag;
  Kokkos::View<std::int64_t*, Mem> offset;
  Matrix<Mem> terms;
  Kokkos::View<double*, Mem> block_sums;  // fixed_order_column_sums' scratch for the terms of a list
  Kokkos::View<double*, Mem> rank_rows;  // several ranks: the per-region results they exchange

  double fin_est = 0, fin_err = 0;  // finished regions
  std::int64_t fin_regions = 0;
  double tol_now = 0;
  bool not_finite = false, budget_hit = false, done = false;
  std::int64_t bad = 0;
  double bad_volume = 0, bad_error = 0;
  double active_volume = 1.0;  // volume fraction of the current list
  bool unevaluated = false;  // paper mode: the list handed to phase 2 is the split pieces, not yet evaluated
  int iteration_limit = 0;
  // two_level: the values of the parents of the current list's regions (groups of `siblings`
  // consecutive regions; 0 for the even partition, which has no parents).
  Kokkos::View<Real*, Mem> parent_estimate;
  int siblings = 0;

  // Improved mode with max_host_memory_mb > 0: when splitting the unfinished regions would outgrow
  // `capacity`, the pieces of all but the first capacity / 4 of them are parked on the host (a
  // stack: the newest, deepest pieces are refined first) and their parents' values stand in for
  // them until they come back. Memory stays bounded on both sides; phase 2 (heaps) is then only
  // the fallback for a list whose pieces the full host memory cannot take (the parked chunks
  // come back after it).
  bool parking = false;
  double host_bytes = 0;
  std::vector<PendingChunk<Real>> parked;
  ParkedSums waiting;  // parked_sums() of the current stack
  int chunk_iterations = 0;  // since the current list started (the iteration limit counts these)
};

template <class ExecutionSpace, class Real, class F>
Integrator<ExecutionSpace, Real, F>::Integrator(ExecutionSpace const& space_, F const& f_,
                                                std::vector<double> const& lower, std::vector<double> const& upper,
                                                Tolerances const& tol_, Options const& opt_)
    : space(space_), f(f_), tol(tol_), opt(opt_) {
  n = int(lower.size());
  team_size = resolve_team_size<ExecutionSpace>(opt.team_size);
  box_arrays(lower, upper, lo, hi, box_half);
  paper = opt.mode == Mode::paper;
  auto const setup = rule_setup<Real>(opt, n);
  points = setup.points;
  nulls = setup.nulls;
  res.rule = setup.rule;
  res.points = points;
  res.mode = opt.mode;
  res.error_estimate = setup.estimate;
  memory_bytes = opt.max_memory_mb * 1048576.0;

  // Even partition: about `initial_regions` (fewer if the budget is smaller); paper mode
  // INIT-PARTITION, l equal parts per axis with l^n <= Lmax (and within the budget).
  std::int64_t const affordable = std::max<std::int64_t>(1, opt.max_evaluations / points);
  if (paper) {
    int const l = init_partition_parts(std::min<std::int64_t>(opt.max_regions, affordable), n);
    for (int i = 0; i < n; ++i) counts[i] = l;
  } else {
    counts = even_partition_counts(std::min<std::int64_t>(opt.initial_regions, affordable), n);
  }
  count = 1;
  for (int i = 0; i < n; ++i) count *= counts[i];

  // Longest list phase 1 may hold: paper mode max_regions; improved mode as many regions as
  // max_memory_mb holds (two lists and the per-region work arrays). Arrays grow on demand.
  double const region_bytes = 2.0 * (2 * n + 2) * sizeof(Real) + 2.0 * sizeof(int) + 4.0 * sizeof(int) +
                              sizeof(std::int64_t) + 4.0 * sizeof(double);
  capacity = paper
                 ? std::max<std::int64_t>(count, opt.max_regions)
                 : std::max<std::int64_t>(count, std::int64_t(std::min(memory_bytes / region_bytes, double(1 << 30))));
  res.phase1_capacity = capacity;
  current = List(count, n);
  iteration_limit = paper ? opt.max_phase1_iterations : 16 * opt.max_phase1_iterations;
  parking = !paper && opt.max_host_memory_mb > 0;
  host_bytes = opt.max_host_memory_mb * 1048576.0;
}

// Work arrays for m regions.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::reserve(std::int64_t m) {
  if (std::int64_t(flag.extent(0)) >= m) return;
  std::int64_t const size = std::max(m, std::min(2 * std::int64_t(flag.extent(0)), capacity));
  finite = Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::finite"), size);
  flag = Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::bad"), size);
  offset = Kokkos::View<std::int64_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::offset"),
                                            size);
  terms = Matrix<Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::terms"), size, 4);
  block_sums =
      Kokkos::View<double*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::block_sums"),
                                 algorithms::fixed_order_scratch_size(size, 4));
}

template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::ensure_list(List& l, std::int64_t m) {
  if (std::int64_t(l.estimate.extent(0)) >= m) return;
  l = List();  // free first
  l = List(std::max(m, std::min(2 * m, capacity)), n);
}

template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::ensure_parents(std::int64_t m) {
  if (nulls.sharp && std::int64_t(parent_estimate.extent(0)) < m)
    parent_estimate =
        Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::parent_estimate"),
                                 std::max(m, std::min(2 * m, capacity)));
}

template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::ensure_rank_rows(std::int64_t size) {
  if (std::int64_t(rank_rows.extent(0)) < size)
    rank_rows = Kokkos::View<double*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::rank_rows"), size);
}

// Unfinished regions finished as they are (filter_smallest, finish_below): their sums move from
// the unfinished totals to the finished ones.
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::finish(Filtered const& sums) {
  fin_est += sums.estimate;
  fin_err += sums.error;
  fin_regions += sums.regions;
  bad_volume -= sums.volume;
  bad_error -= sums.error;
  bad -= sums.regions;
  res.history.back().bad = bad;
}

// Why the run stopped (see integrate.hpp).
template <class ExecutionSpace, class Real, class F>
void Integrator<ExecutionSpace, Real, F>::set_status() {
  set_final_status(res, tol, opt.max_evaluations, not_finite, budget_hit);
}

// Phase 1, then phase 2 for what phase 1 left unfinished.
template <class ExecutionSpace, class Real, class F>
Result Integrator<ExecutionSpace, Real, F>::run() {
  phase1_timer.emplace(space, opt.phases, "parity::cubature::phase1");
  phase1();
  phase1_timer.reset();
  if (!done) {
    phase2(std::max<std::int64_t>(0, opt.max_evaluations - res.evaluations),
           std::max(tol_now - fin_err, 0.1 * tol_now * bad_volume));
    res.integral = fin_est;
    res.error = fin_err;
    res.regions = fin_regions;
    if (!(paper && opt.cuhre_average)) res.last_error = res.error;  // else phase2() sets it
  } else {
    res.last_error = res.error;
  }
  set_status();
  return res;
}

}  // namespace parity::cubature::detail
