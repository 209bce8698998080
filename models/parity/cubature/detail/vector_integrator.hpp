#pragma once
// The algorithm of integrate_vector (vector.hpp): integrate()'s improved phase 1 on one region list
// whose regions carry an estimate and an error per component. A region is unfinished while any
// component that has not met its tolerance finds its error above its volume share of what that
// component has left of its tolerance; a step splits the unfinished regions for all components.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "parity/algorithms/compact.hpp"
#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/cubature/detail/final_status.hpp"
#include "parity/cubature/detail/region_list.hpp"
#include "parity/cubature/detail/rule_setup.hpp"
#include "parity/cubature/detail/vector_rule.hpp"
#include "parity/cubature/options.hpp"
#include "parity/run/progress.hpp"

namespace parity::cubature::detail {

template <class ExecutionSpace, class Real, class F>
class VectorIntegrator {
 public:
  // The problem must have passed integrate_vector's checks (vector.hpp).
  VectorIntegrator(ExecutionSpace const& space, F const& f, int components, std::vector<double> const& lower,
                   std::vector<double> const& upper, Tolerances const& tol, Options const& opt);
  std::vector<Result> run();

  // Public only because nvcc rejects extended device lambdas in private member functions.
  using Mem = typename ExecutionSpace::memory_space;
  using List = VectorRegionList<Real, Mem>;
  // What the host keeps of one component between steps (integrate()'s running sums).
  struct Member {
    double fin_est = 0, fin_err = 0, tol_now = 0, bad_est = 0, bad_err = 0;
    double total_est = 0, total_err = 0;
    bool met = false;  // the component's total error meets its tolerance at this step
  };
  void reserve(std::int64_t size);
  void evaluate(int it);
  bool totals(int it);
  void classify(int it);
  bool refine(int it);
  void end(bool with_unfinished);
  void split();

  ExecutionSpace space;
  F const& f;
  int m;
  Tolerances const& tol;
  Options const& opt;
  int n = 0;
  int team_size = 0;
  RuleSetup<Real> rule;
  Kokkos::Array<double, max_dim> lo{}, hi{}, box_half{};
  std::int64_t count = 0, capacity = 0, bad = 0, fin_regions = 0;
  double active_volume = 1.0;
  int siblings = 0;  // 0: the even partition (no parents); 2 after a split
  int iteration_limit = 0;
  bool not_finite = false, budget_hit = false;
  Kokkos::Timer clock;

  List current, next;
  Kokkos::View<int*, Mem> finite, flag;
  Kokkos::View<std::int64_t*, Mem> offset;
  Kokkos::View<double*, Mem> terms, block_sums, threshold;
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> parent_estimate;
  std::vector<Member> members;
  std::vector<Result> res;
};

template <class ExecutionSpace, class Real, class F>
VectorIntegrator<ExecutionSpace, Real, F>::VectorIntegrator(ExecutionSpace const& space_, F const& f_, int m_,
                                                            std::vector<double> const& lower,
                                                            std::vector<double> const& upper, Tolerances const& tol_,
                                                            Options const& opt_)
    : space(space_), f(f_), m(m_), tol(tol_), opt(opt_), members(m_), res(m_) {
  n = int(lower.size());
  team_size = resolve_team_size<ExecutionSpace>(opt.team_size);
  box_arrays(lower, upper, lo, hi, box_half);
  rule = rule_setup<Real>(opt, n);
  // integrate()'s even partition and list, with m estimates, errors and parent values a region.
  std::int64_t const affordable = std::max<std::int64_t>(1, opt.max_evaluations / rule.points);
  auto const counts = even_partition_counts(std::min<std::int64_t>(opt.initial_regions, affordable), n);
  count = 1;
  for (int i = 0; i < n; ++i) count *= counts[i];
  double const region_bytes = 2.0 * (2 * n + 2 * m) * sizeof(Real) + m * sizeof(Real) + 4.0 * sizeof(int) +
                              sizeof(std::int64_t) + (4.0 * m + 1) * sizeof(double);
  double const memory_bytes = opt.max_memory_mb * 1048576.0;
  capacity = std::max<std::int64_t>(count, std::int64_t(std::min(memory_bytes / region_bytes, double(1 << 30))));
  iteration_limit = 16 * opt.max_phase1_iterations;
  for (auto& r : res) {
    r.rule = rule.rule;
    r.points = rule.points;
    r.mode = opt.mode;
    r.error_estimate = rule.estimate;
    r.phase1_capacity = capacity;
  }
  current = List(count, n, m);
  even_partition<ExecutionSpace, Real>(space, current.boxes, n, count, counts, lo, hi);
  threshold = Kokkos::View<double*, Mem>("parity::cubature::vector_threshold", m);
}

template <class ExecutionSpace, class Real, class F>
std::vector<Result> VectorIntegrator<ExecutionSpace, Real, F>::run() {
  for (int it = 1;; ++it) {
    evaluate(it);
    if (totals(it)) break;
    classify(it);
    if (bad == 0) {
      end(false);
      break;
    }
    if (!refine(it)) break;
  }
  for (auto& r : res) set_final_status(r, tol, opt.max_evaluations, not_finite, budget_hit);
  return res;
}

// Work arrays for `size` regions.
template <class ExecutionSpace, class Real, class F>
void VectorIntegrator<ExecutionSpace, Real, F>::reserve(std::int64_t size) {
  if (std::int64_t(flag.extent(0)) >= size) return;
  size = std::max(size, std::min(2 * std::int64_t(flag.extent(0)), capacity));
  auto alloc = [](char const* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
  finite = Kokkos::View<int*, Mem>(alloc("parity::cubature::finite"), size);
  flag = Kokkos::View<int*, Mem>(alloc("parity::cubature::bad"), size);
  offset = Kokkos::View<std::int64_t*, Mem>(alloc("parity::cubature::offset"), size);
  // The terms of totals() (2 m + 1 columns) and of classify() (4 m + 1) share one buffer.
  terms = Kokkos::View<double*, Mem>(alloc("parity::cubature::terms"), size * (4 * m + 1));
  block_sums = Kokkos::View<double*, Mem>(alloc("parity::cubature::block_sums"),
                                          algorithms::fixed_order_scratch_size(size, 4 * m + 1));
}

// The rule on the whole list and the two-level check against the parents.
template <class ExecutionSpace, class Real, class F>
void VectorIntegrator<ExecutionSpace, Real, F>::evaluate(int it) {
  reserve(count);
  evaluate_vector_regions<ExecutionSpace, Real>(space, f, m, n, current, count, team_size, finite, rule.nulls);
  if (rule.nulls.sharp && siblings > 1)
    vector_two_level_check<ExecutionSpace, Real>(space, current, count / siblings, siblings, parent_estimate,
                                                 rule.nulls.c_scale, rule.nulls.c_add);
  for (auto& r : res) {
    r.evaluations += count * rule.points;
    r.regions_evaluated += count;
    r.phase1_iterations = it;
  }
}

// Each component's totals and tolerance; true when the run ends here (every component meets its
// tolerance, or a value was not finite).
template <class ExecutionSpace, class Real, class F>
bool VectorIntegrator<ExecutionSpace, Real, F>::totals(int it) {
  int const columns = 2 * m + 1;
  algorithms::ColumnMatrix<Mem> t(terms.data(), count, columns);
  {
    auto const est = current.estimate;
    auto const err = current.error;
    auto const fin = finite;
    int const comps = m;
    Kokkos::parallel_for(
        "parity::cubature::vector_totals", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r) {
          for (int k = 0; k < comps; ++k) {
            t(r, 2 * k) = est(r, k);
            t(r, 2 * k + 1) = err(r, k);
          }
          t(r, 2 * comps) = fin(r) ? 0.0 : 1.0;
        });
  }
  auto const sums = algorithms::fixed_order_column_sums(space, t, count, block_sums);
  bool all_met = true;
  for (int k = 0; k < m; ++k) {
    Member& c = members[k];
    c.total_est = c.fin_est + sums[2 * k];
    c.total_err = c.fin_err + sums[2 * k + 1];
    c.tol_now = std::max(tol.absolute, tol.relative * std::abs(c.total_est));
    c.met = c.total_err <= c.tol_now;
    all_met = all_met && c.met;
    res[k].history.push_back(Phase1Step{it, count, 0, c.total_est, c.total_err, res[k].evaluations});
  }
  not_finite = sums[2 * m] > 0;
  if (!not_finite && !all_met) return false;
  for (int k = 0; k < m; ++k) {
    res[k].integral = members[k].total_est;
    res[k].error = members[k].total_err;
    res[k].last_error = res[k].error;
    res[k].regions = fin_regions + count;
  }
  return true;
}

// Classifies every region: unfinished when a component that has not met its tolerance finds the
// region's error above the region's volume share of what is left of that component's tolerance
// (integrate()'s improved mode); finished regions leave the list.
template <class ExecutionSpace, class Real, class F>
void VectorIntegrator<ExecutionSpace, Real, F>::classify(int it) {
  {
    auto const host = Kokkos::create_mirror_view(Kokkos::HostSpace(), threshold);
    for (int k = 0; k < m; ++k) {
      Member const& c = members[k];
      host(k) = c.met ? std::numeric_limits<double>::infinity()
                      : std::max(0.9 * c.tol_now - c.fin_err, 0.0) / std::max(active_volume, 1e-300);
    }
    Kokkos::deep_copy(space, threshold, host);
  }
  int const columns = 4 * m + 1;
  algorithms::ColumnMatrix<Mem> t(terms.data(), count, columns);
  {
    auto const half = current.boxes.half;
    auto const est = current.estimate;
    auto const err = current.error;
    auto const tol_c = threshold;
    auto const fl = flag;
    int const dims = n, comps = m;
    auto const box = box_half;
    Kokkos::parallel_for(
        "parity::cubature::vector_classify", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r) {
          double const v = volume_fraction<Real>(half, r, dims, box);
          bool is_bad = false;
          for (int k = 0; k < comps; ++k) is_bad = is_bad || !(double(err(r, k)) <= tol_c(k) * v);
          fl(r) = is_bad ? 1 : 0;
          for (int k = 0; k < comps; ++k) {
            double const e = double(est(r, k)), s = double(err(r, k));
            t(r, 2 * k) = is_bad ? 0.0 : e;  // finished: into the component's finished sums
            t(r, 2 * k + 1) = is_bad ? 0.0 : s;
            t(r, 2 * comps + 2 * k) = is_bad ? e : 0.0;  // unfinished
            t(r, 2 * comps + 2 * k + 1) = is_bad ? s : 0.0;
          }
          t(r, 4 * comps) = is_bad ? v : 0.0;
        });
  }
  auto const sums = algorithms::fixed_order_column_sums(space, t, count, block_sums);
  bad = algorithms::compaction_offsets(space, flag, offset, count);
  fin_regions += count - bad;
  int met = 0;
  for (int k = 0; k < m; ++k) {
    Member& c = members[k];
    c.fin_est += sums[2 * k];
    c.fin_err += sums[2 * k + 1];
    c.bad_est = sums[2 * m + 2 * k];
    c.bad_err = sums[2 * m + 2 * k + 1];
    res[k].history.back().bad = bad;
    met += c.met ? 1 : 0;
  }
  active_volume = sums[4 * m];
  if (opt.progress)
    opt.progress->update({"vector", it, -1.0, clock.seconds(),
                          "regions " + std::to_string(count) + ", unfinished " + std::to_string(bad) + ", " +
                              std::to_string(met) + " of " + std::to_string(m) + " components within tolerance"});
}

// Ends the run when the budget cannot split every unfinished region, when the split list would not
// fit the memory, or at the iteration limit (false); else splits them (true).
template <class ExecutionSpace, class Real, class F>
bool VectorIntegrator<ExecutionSpace, Real, F>::refine(int it) {
  std::int64_t const left = std::max<std::int64_t>(0, opt.max_evaluations - res[0].evaluations);
  if (2 * bad * rule.points > left) {
    budget_hit = true;
  } else if (2 * bad > capacity) {
    for (auto& r : res) r.unrefined_regions = bad;
  } else if (it < iteration_limit) {
    split();
    return true;
  }
  end(true);
  return false;
}

// The results: the finished regions' sums, with the unfinished regions at their values.
template <class ExecutionSpace, class Real, class F>
void VectorIntegrator<ExecutionSpace, Real, F>::end(bool with_unfinished) {
  for (int k = 0; k < m; ++k) {
    Member const& c = members[k];
    res[k].integral = c.fin_est + (with_unfinished ? c.bad_est : 0.0);
    res[k].error = c.fin_err + (with_unfinished ? c.bad_err : 0.0);
    res[k].last_error = res[k].error;
    res[k].regions = fin_regions + (with_unfinished ? bad : 0);
  }
}

// Bisects the flagged regions into the next list, keeping each piece's parent values (the
// two-level check).
template <class ExecutionSpace, class Real, class F>
void VectorIntegrator<ExecutionSpace, Real, F>::split() {
  std::int64_t const size = 2 * bad;
  if (next.capacity() < size) {
    next = List();
    next = List(std::max(size, std::min(2 * size, capacity)), n, m);
  }
  split_flagged<ExecutionSpace, Real>(space, n, current.boxes, count, flag, offset, 2, next.boxes);
  if (rule.nulls.sharp) {
    if (std::int64_t(parent_estimate.extent(0)) < bad)
      parent_estimate = Kokkos::View<Real**, Kokkos::LayoutRight, Mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::parent_estimate"), next.capacity(), m);
    auto const est = current.estimate;
    auto const parent = parent_estimate;
    auto const fl = flag;
    auto const off = offset;
    int const comps = m;
    Kokkos::parallel_for(
        "parity::cubature::vector_parents", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r) {
          if (!fl(r)) return;
          for (int k = 0; k < comps; ++k) parent(off(r), k) = est(r, k);
        });
  }
  std::swap(current, next);
  siblings = 2;
  count = size;
}

}  // namespace parity::cubature::detail
