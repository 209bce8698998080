#pragma once
// The algorithm of integrate_family (family.hpp): integrate()'s improved phase 1 run for every
// component of a family at once. The regions of all components share one list, ordered by
// component (the even partition is written component by component and a split keeps the order),
// so one launch per step serves them all and each component's sums are a segment of the list's,
// summed as fixed_order_column_sums sums integrate()'s list. Each component has its own totals,
// tolerance and status; a component leaves the list when it converges, meets a non-finite value,
// or cannot pay for its next split. When the split list would outgrow the memory, the components
// of highest index are deferred: they leave the list and start again, from their even partition,
// in a later pass over the deferred ones, so that each runs its own steps unchanged.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "parity/algorithms/compact.hpp"
#include "parity/algorithms/fixed_order_segment_sums.hpp"
#include "parity/cubature/detail/final_status.hpp"
#include "parity/cubature/detail/region_list.hpp"
#include "parity/cubature/detail/rule_setup.hpp"
#include "parity/cubature/detail/two_level.hpp"
#include "parity/cubature/options.hpp"
#include "parity/run/progress.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::cubature::detail {

// Component k of a family as the scalar integrand the rule takes.
template <class F, class Real>
struct FamilyMember {
  F f;
  int k;
  KOKKOS_INLINE_FUNCTION Real operator()(Point<Real> const& x) const { return f(x, k); }
};

// The integrand of region r of a family's list: its component's.
template <class F, class Real, class Mem>
struct ComponentIntegrand {
  F f;
  Kokkos::View<int*, Mem> component;
  KOKKOS_INLINE_FUNCTION FamilyMember<F, Real> operator()(std::int64_t r) const { return {f, component(r)}; }
};

// The rule on regions 0..count-1, each with its component's integrand (evaluate_regions_of).
template <class ExecutionSpace, class Real, class F>
void evaluate_family_list(ExecutionSpace const& space, F const& f, int n,
                          RegionList<Real, typename ExecutionSpace::memory_space> const& list,
                          Kokkos::View<int*, typename ExecutionSpace::memory_space> component, std::int64_t count,
                          int team_size, Kokkos::View<int*, typename ExecutionSpace::memory_space> finite,
                          NullRules<Real> const& nulls, int* largest_team = nullptr) {
  using Select = ComponentIntegrand<F, Real, typename ExecutionSpace::memory_space>;
  evaluate_regions_of<ExecutionSpace, Real>(space, Select{f, component}, n, list, count, team_size, finite, nulls, 0,
                                            largest_team, "parity::cubature::family_evaluate");
}

template <class ExecutionSpace, class Real, class F>
class FamilyIntegrator {
 public:
  // The problem must have passed integrate_family's checks (family.hpp).
  FamilyIntegrator(ExecutionSpace const& space, F const& f, int components, std::vector<double> const& lower,
                   std::vector<double> const& upper, Tolerances const& tol, Options const& opt);
  std::vector<Result> run();

  // Public only because nvcc rejects extended device lambdas in private member functions.
  using Mem = typename ExecutionSpace::memory_space;
  using List = RegionList<Real, Mem>;
  // What the host keeps of one component between steps (integrate()'s running sums).
  struct Member {
    double fin_est = 0, fin_err = 0, tol_now = 0, active_volume = 1.0;
    double bad_est = 0, bad_err = 0, bad_volume = 0;
    std::int64_t fin_regions = 0, count = 0, bad = 0;
    bool done = false;
  };
  void partition(std::vector<int> const& ids);
  void defer(int k);
  void evaluate(int it);
  void segments();
  void totals(int it);
  void classify(int it);
  bool refine(int it);
  void end(int k, double integral, double error, std::int64_t regions);
  void clear_flags_of_ended();
  void split(std::int64_t bad);

  ExecutionSpace space;
  F const& f;
  int m;
  Tolerances const& tol;
  Options const& opt;
  int n = 0;
  int team_size = 0;
  RuleSetup<Real> rule;
  Kokkos::Array<double, max_dim> lo{}, hi{}, box_half{};
  Kokkos::Array<int, max_dim> counts{};  // pieces per axis of each component's even partition
  std::int64_t per_component = 1;  // regions of each component's even partition
  std::int64_t count = 0, capacity = 0;
  int siblings = 0;  // 0: the even partition (no parents); 2 after a split
  int iteration_limit = 0;
  Kokkos::Timer clock;

  List current, next;
  Kokkos::View<int*, Mem> component, next_component, finite, flag;
  Kokkos::View<std::int64_t*, Mem> offset, begin;
  Kokkos::View<double*, Mem> threshold;
  Kokkos::View<Real*, Mem> parent_estimate;
  algorithms::ColumnMatrix<Mem> terms;
  std::vector<std::int64_t> host_begin;
  std::vector<Member> members;
  std::vector<Result> res;
  std::vector<int> deferred;  // components to run again in the next pass
};

template <class ExecutionSpace, class Real, class F>
FamilyIntegrator<ExecutionSpace, Real, F>::FamilyIntegrator(ExecutionSpace const& space_, F const& f_, int m_,
                                                            std::vector<double> const& lower,
                                                            std::vector<double> const& upper, Tolerances const& tol_,
                                                            Options const& opt_)
    : space(space_), f(f_), m(m_), tol(tol_), opt(opt_), members(m_), res(m_) {
  n = int(lower.size());
  team_size = resolve_team_size<ExecutionSpace>(opt.team_size);
  box_arrays(lower, upper, lo, hi, box_half);
  rule = rule_setup<Real>(opt, n);
  // integrate()'s list and work arrays, with a component index and two more sums per region.
  double const region_bytes = 2.0 * (2 * n + 2) * sizeof(Real) + 4.0 * sizeof(int) + 4.0 * sizeof(int) +
                              sizeof(std::int64_t) + 6.0 * sizeof(double);
  double const memory_bytes = opt.max_memory_mb * 1048576.0;
  std::int64_t const fits = std::int64_t(std::min(memory_bytes / region_bytes, double(1 << 30)));
  // Each component's even partition is integrate()'s (a coarser one changes what the estimate
  // sees: measured true errors 6x the tolerance); a pass takes the components that fit.
  std::int64_t const affordable = std::max<std::int64_t>(1, opt.max_evaluations / rule.points);
  counts = even_partition_counts(std::min<std::int64_t>(opt.initial_regions, affordable), n);
  for (int i = 0; i < n; ++i) per_component *= counts[i];
  capacity = std::max(2 * per_component, fits);
  iteration_limit = 16 * opt.max_phase1_iterations;
  for (int k = 0; k < m; ++k) defer(k);  // every component starts in the first pass
  host_begin.assign(m + 1, 0);
  begin = Kokkos::View<std::int64_t*, Mem>("parity::cubature::family_begin", m + 1);
  threshold = Kokkos::View<double*, Mem>("parity::cubature::family_threshold", m);
}

template <class ExecutionSpace, class Real, class F>
std::vector<Result> FamilyIntegrator<ExecutionSpace, Real, F>::run() {
  while (!deferred.empty()) {
    std::sort(deferred.begin(), deferred.end());  // deferred at several steps
    // A pass starts with as many components as leave room for their first split.
    std::size_t const take = std::size_t(std::max<std::int64_t>(1, capacity / (2 * per_component)));
    std::vector<int> const ids(deferred.begin(), deferred.begin() + std::min(take, deferred.size()));
    deferred.erase(deferred.begin(), deferred.begin() + std::ptrdiff_t(ids.size()));
    for (int k : ids) members[k].done = false;
    partition(ids);
    for (int it = 1;; ++it) {
      evaluate(it);
      totals(it);
      classify(it);
      if (!refine(it)) break;
    }
  }
  // The flags integrate() keeps were set as statuses where each component ended.
  for (auto& r : res)
    set_final_status(r, tol, opt.max_evaluations, r.status == Status::integrand_not_finite,
                     r.status == Status::budget_exhausted);
  return res;
}

// The j-th component of `ids` gets the even partition in regions j * per_component ..
// (j + 1) * per_component - 1 (ids ascending, so the list stays ordered by component).
template <class ExecutionSpace, class Real, class F>
void FamilyIntegrator<ExecutionSpace, Real, F>::partition(std::vector<int> const& ids) {
  count = per_component * std::int64_t(ids.size());
  siblings = 0;
  if (std::int64_t(current.estimate.extent(0)) < count) {
    current = List();
    current = List(count, n);
  }
  if (std::int64_t(component.extent(0)) < count)
    component =
        Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::component"), count);
  Kokkos::View<int*, Mem> pass(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::pass"), ids.size());
  Kokkos::deep_copy(space, pass,
                    Kokkos::View<int const*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(ids.data(), ids.size()));
  even_partition<ExecutionSpace, Real>(space, current, n, per_component, counts, lo, hi);
  auto const center = current.center;
  auto const half = current.half;
  auto const comp = component;
  std::int64_t const each = per_component;
  int const dims = n;
  Kokkos::parallel_for(
      "parity::cubature::family_partition", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r) {
        comp(r) = pass(r / each);
        if (r < each) return;
        for (int i = 0; i < dims; ++i) {
          center(r, i) = center(r % each, i);
          half(r, i) = half(r % each, i);
        }
      });
}

// The rule on the whole list, the two-level check against the parents, and each component's
// share of the list (segments()).
template <class ExecutionSpace, class Real, class F>
void FamilyIntegrator<ExecutionSpace, Real, F>::evaluate(int it) {
  if (std::int64_t(flag.extent(0)) < count) {
    std::int64_t const size = std::max(count, std::min(2 * std::int64_t(flag.extent(0)), capacity));
    auto alloc = [](char const* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
    finite = Kokkos::View<int*, Mem>(alloc("parity::cubature::finite"), size);
    flag = Kokkos::View<int*, Mem>(alloc("parity::cubature::bad"), size);
    offset = Kokkos::View<std::int64_t*, Mem>(alloc("parity::cubature::offset"), size);
    terms = algorithms::ColumnMatrix<Mem>(alloc("parity::cubature::terms"), size, 6);
  }
  evaluate_family_list<ExecutionSpace, Real>(space, f, n, current, component, count, team_size, finite, rule.nulls);
  if (rule.nulls.sharp && siblings > 1)
    two_level_check<ExecutionSpace, Real>(space, current, count / siblings, siblings, parent_estimate,
                                          rule.nulls.c_scale, rule.nulls.c_add);
  segments();
  for (int k = 0; k < m; ++k) {
    members[k].count = host_begin[k + 1] - host_begin[k];
    if (members[k].count == 0) continue;
    res[k].evaluations += members[k].count * rule.points;
    res[k].regions_evaluated += members[k].count;
    res[k].phase1_iterations = it;
  }
}

// begin(k): the first region of component k (or of the next component present); begin(m) = count.
template <class ExecutionSpace, class Real, class F>
void FamilyIntegrator<ExecutionSpace, Real, F>::segments() {
  auto const comp = component;
  auto const b = begin;
  std::int64_t const rows = count;
  int const last = m;
  Kokkos::parallel_for(
      "parity::cubature::family_segments", Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows + 1),
      KOKKOS_LAMBDA(std::int64_t r) {
        int const from = r == 0 ? 0 : comp(r - 1) + 1;
        int const to = r == rows ? last : comp(r);
        for (int k = from; k <= to; ++k) b(k) = r;
      });
  Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(host_begin.data(), m + 1);
  Kokkos::deep_copy(space, host, begin);
  space.fence("parity::cubature::family_segments");
}

// Each component's totals and tolerance, as integrate()'s; a component that converged or met a
// non-finite value ends here.
template <class ExecutionSpace, class Real, class F>
void FamilyIntegrator<ExecutionSpace, Real, F>::totals(int it) {
  {
    auto const est = current.estimate;
    auto const err = current.error;
    auto const t = terms;
    auto const fin = finite;
    Kokkos::parallel_for(
        "parity::cubature::family_totals", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r) {
          t(r, 0) = est(r);
          t(r, 1) = err(r);
          t(r, 2) = fin(r) ? 0.0 : 1.0;
          for (int c = 3; c < 6; ++c) t(r, c) = 0.0;
        });
  }
  auto const sums = algorithms::fixed_order_segment_sums(space, terms, begin, m);
  for (int k = 0; k < m; ++k) {
    Member& c = members[k];
    if (c.done || c.count == 0) continue;
    double const* s = &sums[std::size_t(k) * 6];
    double const total_est = c.fin_est + s[0];
    double const total_err = c.fin_err + s[1];
    c.tol_now = std::max(tol.absolute, tol.relative * std::abs(total_est));
    res[k].history.push_back(Phase1Step{it, c.count, 0, total_est, total_err, res[k].evaluations});
    if (s[2] > 0 || total_err <= c.tol_now) {
      if (s[2] > 0) res[k].status = Status::integrand_not_finite;
      end(k, total_est, total_err, c.fin_regions + c.count);
    }
  }
}

// Classifies every region against its component's volume share of what is left of the
// tolerance (integrate()'s improved mode); finished regions leave the list. The regions of
// components that ended in totals() are all finished (their sums are not used).
template <class ExecutionSpace, class Real, class F>
void FamilyIntegrator<ExecutionSpace, Real, F>::classify(int it) {
  {
    auto const host = Kokkos::create_mirror_view(Kokkos::HostSpace(), threshold);
    for (int k = 0; k < m; ++k) {
      Member const& c = members[k];
      host(k) = c.done ? std::numeric_limits<double>::infinity()
                       : std::max(0.9 * c.tol_now - c.fin_err, 0.0) / std::max(c.active_volume, 1e-300);
    }
    Kokkos::deep_copy(space, threshold, host);
  }
  {
    auto const half = current.half;
    auto const est = current.estimate;
    auto const err = current.error;
    auto const comp = component;
    auto const tol_c = threshold;
    auto const t = terms;
    auto const fl = flag;
    int const dims = n;
    auto const box = box_half;
    Kokkos::parallel_for(
        "parity::cubature::family_classify", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
        KOKKOS_LAMBDA(std::int64_t r) {
          double const v = volume_fraction<Real>(half, r, dims, box);
          bool const is_bad = !(double(err(r)) <= tol_c(comp(r)) * v);
          fl(r) = is_bad ? 1 : 0;
          t(r, 0) = is_bad ? 0.0 : double(est(r));
          t(r, 1) = is_bad ? 0.0 : double(err(r));
          t(r, 2) = is_bad ? v : 0.0;
          t(r, 3) = is_bad ? double(err(r)) : 0.0;
          t(r, 4) = is_bad ? 1.0 : 0.0;
          t(r, 5) = is_bad ? double(est(r)) : 0.0;
        });
  }
  auto const sums = algorithms::fixed_order_segment_sums(space, terms, begin, m);
  int left = 0;
  std::int64_t unfinished = 0;
  for (int k = 0; k < m; ++k) {
    Member& c = members[k];
    if (c.done || c.count == 0) continue;
    double const* s = &sums[std::size_t(k) * 6];
    c.fin_est += s[0];
    c.fin_err += s[1];
    c.bad = std::int64_t(s[4]);
    c.fin_regions += c.count - c.bad;
    c.bad_volume = s[2];
    c.bad_err = s[3];
    c.bad_est = s[5];
    res[k].history.back().bad = c.bad;
    if (c.bad == 0) {
      end(k, c.fin_est, c.fin_err, c.fin_regions);
      continue;
    }
    ++left;
    unfinished += c.bad;
  }
  if (opt.progress)
    opt.progress->update({"family", it, -1.0, clock.seconds(),
                          "regions " + std::to_string(count) + ", unfinished " + std::to_string(unfinished) + " in " +
                              std::to_string(left) + " of " + std::to_string(m) + " components"});
}

// Ends the components that cannot pay for their next split (budget), or all of them when the
// split list would not fit the memory or the iteration limit is reached; splits the rest.
// Returns false when no component is left.
template <class ExecutionSpace, class Real, class F>
bool FamilyIntegrator<ExecutionSpace, Real, F>::refine(int it) {
  bool ended = false;
  std::int64_t bad = 0;
  for (int k = 0; k < m; ++k) {
    Member& c = members[k];
    if (c.done) continue;
    std::int64_t const left = std::max<std::int64_t>(0, opt.max_evaluations - res[k].evaluations);
    if (2 * c.bad * rule.points > left) {
      res[k].status = Status::budget_exhausted;
      end(k, c.fin_est + c.bad_est, c.fin_err + c.bad_err, c.fin_regions + c.bad);
      ended = true;
    } else {
      bad += c.bad;
    }
  }
  if (bad == 0) return false;
  if (it >= iteration_limit) {
    for (int k = 0; k < m; ++k)
      if (!members[k].done)
        end(k, members[k].fin_est + members[k].bad_est, members[k].fin_err + members[k].bad_err,
            members[k].fin_regions + members[k].bad);
    return false;
  }
  if (2 * bad > capacity) {
    // Keep the components of lowest index whose pieces fit and defer the others; one whose
    // pieces alone would not fit ends with its unfinished regions.
    bad = 0;
    bool full = false;
    for (int k = 0; k < m; ++k) {
      Member& c = members[k];
      if (c.done) continue;
      if (2 * c.bad > capacity) {
        res[k].unrefined_regions = c.bad;
        end(k, c.fin_est + c.bad_est, c.fin_err + c.bad_err, c.fin_regions + c.bad);
      } else if (!full && 2 * (bad + c.bad) <= capacity) {
        bad += c.bad;
      } else {
        full = true;  // the components after it wait too, so every pass keeps the lowest indices
        defer(k);
      }
    }
    ended = true;
    if (bad == 0) return false;
  }
  if (ended) clear_flags_of_ended();
  std::int64_t const flagged = algorithms::compaction_offsets(space, flag, offset, count);
  require(flagged == bad, "parity::cubature::integrate_family: the unfinished regions do not add up");
  split(bad);
  for (auto& c : members)
    if (!c.done) c.active_volume = c.bad_volume;
  return true;
}

// Component k starts again (from its even partition) in the next pass; the evaluations it spent
// so far are counted as repeated.
template <class ExecutionSpace, class Real, class F>
void FamilyIntegrator<ExecutionSpace, Real, F>::defer(int k) {
  std::int64_t const spent = res[k].evaluations + res[k].repeated_evaluations;
  res[k] = Result();
  res[k].rule = rule.rule;
  res[k].points = rule.points;
  res[k].mode = opt.mode;
  res[k].error_estimate = rule.estimate;
  res[k].phase1_capacity = capacity;
  res[k].repeated_evaluations = spent;
  members[k] = Member();
  members[k].done = true;  // out of the list until its pass starts
  deferred.push_back(k);
}

template <class ExecutionSpace, class Real, class F>
void FamilyIntegrator<ExecutionSpace, Real, F>::end(int k, double integral, double error, std::int64_t regions) {
  members[k].done = true;
  res[k].integral = integral;
  res[k].error = error;
  res[k].last_error = res[k].error;
  res[k].regions = regions;
}

// Unflags the regions of the components refine() ended (their threshold becomes infinite).
template <class ExecutionSpace, class Real, class F>
void FamilyIntegrator<ExecutionSpace, Real, F>::clear_flags_of_ended() {
  auto const host = Kokkos::create_mirror_view(Kokkos::HostSpace(), threshold);
  for (int k = 0; k < m; ++k) host(k) = members[k].done ? 1.0 : 0.0;
  Kokkos::deep_copy(space, threshold, host);
  auto const ended = threshold;
  auto const comp = component;
  auto const fl = flag;
  Kokkos::parallel_for(
      "parity::cubature::family_unflag", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r) {
        if (ended(comp(r)) > 0) fl(r) = 0;
      });
}

// Bisects the flagged regions into the next list, keeping each piece's component and its
// parent's estimate (the two-level check).
template <class ExecutionSpace, class Real, class F>
void FamilyIntegrator<ExecutionSpace, Real, F>::split(std::int64_t bad) {
  std::int64_t const size = 2 * bad;
  if (std::int64_t(next.estimate.extent(0)) < size) {
    next = List();
    next = List(std::max(size, std::min(2 * size, capacity)), n);
  }
  if (std::int64_t(next_component.extent(0)) < size)
    next_component = Kokkos::View<int*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::component"), next.estimate.extent(0));
  if (rule.nulls.sharp && std::int64_t(parent_estimate.extent(0)) < bad)
    parent_estimate = Kokkos::View<Real*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::cubature::parent_estimate"), next.estimate.extent(0));
  split_flagged<ExecutionSpace, Real>(space, n, current, count, flag, offset, 2, next,
                                      rule.nulls.sharp ? parent_estimate : Kokkos::View<Real*, Mem>());
  auto const comp = component;
  auto const to = next_component;
  auto const fl = flag;
  auto const off = offset;
  Kokkos::parallel_for(
      "parity::cubature::family_split_components", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count),
      KOKKOS_LAMBDA(std::int64_t r) {
        if (!fl(r)) return;
        to(2 * off(r)) = comp(r);
        to(2 * off(r) + 1) = comp(r);
      });
  std::swap(current, next);
  std::swap(component, next_component);
  siblings = 2;
  count = size;
}

}  // namespace parity::cubature::detail
