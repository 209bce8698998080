#pragma once
// Bayesian dual control on a tensor grid (x, mu, Sigma), written once in Kokkos.
//
// Given the state S = (x, mu, Sigma) and the control u, the next observation is predicted as
//   x' ~ N(alpha + mu u + gamma x, s^2),  s^2 = u^2 Sigma + sigma_eps^2,
// and Bayes' rule (Kalman form, well defined at Sigma = 0) gives, with x' = m + s z,
//   mu' = mu + Sigma u z / s,  Sigma' = Sigma sigma_eps^2 / s^2.
// So E V(S') is a one-dimensional Gauss-Hermite sum over z, each term a trilinear interpolation
// of V (held constant outside the box). The expected one-period loss is
//   L(S, u) = (alpha + mu u + gamma x - xbar)^2 + u^2 Sigma + sigma_eps^2 + omega (u - ubar)^2.
// Every sweep is one thread per grid point; the convergence test is a device reduction giving the
// MacQueen-Porteus bound delta/(1-delta) (max dV - min dV), relative to max |V|.
//
// Across ranks (GridRanks): the points, in memory order, are cut into contiguous slabs, one per
// rank. A sweep updates this rank's slab only (reading all of V_old), then the slabs of V (and u)
// are all-gathered through host memory, so every rank holds the whole grid for the next sweep;
// the sweep statistics are global maxima, minima and integer sums. Every point's value depends only
// on V_old, and max, min and integer sums are exact in any order, so V, u and the iteration
// history are bit-identical to a one-rank run for any rank count.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "models/dual_control/brent.hpp"
#include "models/dual_control/checkpoint.hpp"
#include "models/dual_control/estimate.hpp"
#include "models/dual_control/params.hpp"
#include "models/dual_control/result.hpp"
#include "parity/grid/axis.hpp"
#include "parity/grid/spacing.hpp"
#include "parity/interp/multilinear.hpp"
#include "parity/quadrature/gauss_hermite.hpp"
#include "parity/random/philox.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::dual_control {

template <class Real, class MemorySpace>
using Grid3 = Kokkos::View<Real***, Kokkos::LayoutRight, MemorySpace>;

// The model on the device: parameters, axes, the quadrature rule. Copied by value into kernels.
template <class Real, class MemorySpace>
struct Problem {
  Real alpha, gamma, delta, omega, xbar, ubar, sig2;
  Real inert_a, inert_b, inert_c;  // closed-form inert cost-to-go
  Real vmin;  // sigma_eps^2 / (1 - delta): no policy does better
  // ubar = 0 and a mu axis symmetric about 0: the problem is unchanged under (u, mu) -> (-u, -mu)
  // (beta u has the same law), so V is even in mu and at mu = 0 the objective is even in u.
  bool mirror_symmetric;
  grid::Axis<Real, MemorySpace> ax, amu, asg;
  quadrature::DeviceGaussHermite<Real, MemorySpace> gh;

  KOKKOS_INLINE_FUNCTION Real loss(Real x, Real mu, Real S, Real u) const {
    Real const e = alpha + mu * u + gamma * x - xbar;
    Real const d = u - ubar;
    return e * e + u * u * S + sig2 + omega * d * d;
  }

  KOKKOS_INLINE_FUNCTION Real inert_value(Real x) const { return inert_a + x * (inert_b + x * inert_c); }

  // Minimiser of the expected one-period loss (cautionary myopic rule).
  KOKKOS_INLINE_FUNCTION Real myopic(Real x, Real mu, Real S) const {
    return (mu * (xbar - alpha - gamma * x) + omega * ubar) / (S + mu * mu + omega);
  }

  // E V(S') for control u: trilinear interpolation at the Gauss-Hermite nodes; Sigma' is the same
  // for every node, so its cell is found once.
  template <class Values>
  KOKKOS_INLINE_FUNCTION Real expected_next(Values const& v, Real x, Real mu, Real S, Real u) const {
    Real const s2 = u * u * S + sig2;
    Real const s = Kokkos::sqrt(s2);
    Real const m = alpha + mu * u + gamma * x;
    Real const gain = S * u / s;
    auto const r = asg.locate(S * sig2 / s2);
    int const k = r.cell;
    Real const tk = r.t;
    Real sum = 0;
    int const n = gh.size();
    for (int q = 0; q < n; ++q) {
      Real const z = gh.nodes(q);
      auto const p = ax.locate(m + s * z);
      auto const pm = amu.locate(mu + gain * z);
      int const i = p.cell, j = pm.cell;
      Real const c00 = v(i, j, k) + tk * (v(i, j, k + 1) - v(i, j, k));
      Real const c01 = v(i, j + 1, k) + tk * (v(i, j + 1, k + 1) - v(i, j + 1, k));
      Real const c10 = v(i + 1, j, k) + tk * (v(i + 1, j, k + 1) - v(i + 1, j, k));
      Real const c11 = v(i + 1, j + 1, k) + tk * (v(i + 1, j + 1, k + 1) - v(i + 1, j + 1, k));
      Real const c0 = c00 + pm.t * (c01 - c00);
      Real const c1 = c10 + pm.t * (c11 - c10);
      sum += gh.weights(q) * (c0 + p.t * (c1 - c0));
    }
    return sum;
  }

  // V at any state by trilinear interpolation (held constant outside the box).
  template <class Values>
  KOKKOS_INLINE_FUNCTION Real interpolate(Values const& v, Real x, Real mu, Real S) const {
    return interp::trilinear(ax, amu, asg, v, x, mu, S);
  }

  // The Bellman objective L(S, u) + delta E V(S').
  template <class Values>
  KOKKOS_INLINE_FUNCTION Real objective(Values const& v, Real x, Real mu, Real S, Real u) const {
    return loss(x, mu, S, u) + delta * expected_next(v, x, mu, S, u);
  }

  // The controls that can be optimal (eq. 9 of Morozov & Mathur): V(S) >= L(S,u) + delta vmin and
  // V(S) <= V_inert(x), so an optimal u satisfies L(S,u) <= V_inert(x) - delta vmin, a quadratic
  // inequality A u^2 + B u + C <= 0 whose solution set contains u = 0 and the myopic u.
  KOKKOS_INLINE_FUNCTION void bracket(Real x, Real mu, Real S, Real& lo, Real& hi) const {
    Real const c0 = alpha + gamma * x - xbar;
    Real const A = mu * mu + S + omega;
    Real const B = 2 * mu * c0 - 2 * omega * ubar;
    Real const C = c0 * c0 + sig2 + omega * ubar * ubar - (inert_value(x) - delta * vmin);
    Real disc = B * B - 4 * A * C;
    disc = disc > 0 ? disc : Real(0);
    Real const root = Kokkos::sqrt(disc);
    lo = (-B - root) / (2 * A);
    hi = (-B + root) / (2 * A);
  }
};

// f(u) = objective at one state, for Brent.
template <class Real, class MemorySpace, class Values>
struct Objective {
  Problem<Real, MemorySpace> const* problem;
  Values const* v;
  Real x, mu, S;
  KOKKOS_INLINE_FUNCTION Real operator()(Real u) const { return problem->objective(*v, x, mu, S, u); }
};

struct BrentSettings {
  int starts = 3;
  int scan_points = 16;
  int max_evaluations = 60;
  double tol = 1e-6;
};

// Safeguarded multi-start minimisation of the Bellman objective over the inert bracket [lo, hi]:
//  1. a scan of `scan_points` equally spaced u across the bracket;
//  2. Brent's method on the two scan cells around each of the `starts` lowest discrete local minima
//     of the scan (the objective often has two minima, e.g. experimenting up or down at mu = 0);
//  3. Brent's method around the warm start (the previous sweep's u; the myopic u at first);
//  4. the kinks of the interpolated objective, u = 0 and the u where Sigma' crosses a Sigma node;
//  5. the best of all of these and of the warm-start and myopic u themselves.
// Keeping the warm-start candidate makes successive value-iteration sweeps monotone even where the
// interpolated objective has several nearly equal local minima.
// Where the problem is mirror-symmetric and mu = 0, the objective is even in u and its minima come
// in pairs +-u; the search is then over u >= 0, so the policy takes the non-negative one of each
// pair on every backend (otherwise rounding alone would choose, differently on each).
constexpr int max_scan_points = 64;

template <class Real, class MemorySpace, class Values>
KOKKOS_INLINE_FUNCTION BrentResult<Real> minimize_objective(Problem<Real, MemorySpace> const& problem, Values const& v,
                                                            Real x, Real mu, Real S, Real u_warm,
                                                            BrentSettings const& bs) {
  Objective<Real, MemorySpace, Values> f{&problem, &v, x, mu, S};
  Real lo, hi;
  problem.bracket(x, mu, S, lo, hi);
  if (problem.mirror_symmetric && mu == Real(0)) lo = Real(0);  // the bracket holds u = 0
  Real const um = problem.myopic(x, mu, S);
  u_warm = u_warm < lo ? lo : (u_warm > hi ? hi : u_warm);
  Real const tol = Real(bs.tol);
  BrentResult<Real> best{um, f(um), 1};
  int evaluations = 1;
  if (u_warm != um) {
    Real const fw = f(u_warm);
    ++evaluations;
    if (fw < best.fx) best = {u_warm, fw, 1};
  }
  int const n = bs.scan_points;
  Real const h = (hi - lo) / Real(n - 1);
  Real fs[max_scan_points];
  for (int m = 0; m < n; ++m) fs[m] = f(lo + h * Real(m));
  evaluations += n;
  unsigned long long used = 0;  // bit m: scan point m already searched around
  for (int s = 0; s < bs.starts; ++s) {
    int pick = -1;
    for (int m = 0; m < n; ++m) {
      bool const local_min = (m == 0 || fs[m] <= fs[m - 1]) && (m == n - 1 || fs[m] <= fs[m + 1]);
      if (local_min && !((used >> m) & 1ull) && (pick < 0 || fs[m] < fs[pick])) pick = m;
    }
    if (pick < 0) break;
    used |= 1ull << pick;
    Real const a = lo + h * Real(pick > 0 ? pick - 1 : 0);
    Real const b = pick + 1 < n ? lo + h * Real(pick + 1) : hi;
    auto const r = brent_minimize(f, a, b, lo + h * Real(pick), tol, tol, bs.max_evaluations);
    evaluations += r.evaluations;
    if (r.fx < best.fx) best = r;
  }
  {
    Real const a = u_warm - h < lo ? lo : u_warm - h;
    Real const b = u_warm + h > hi ? hi : u_warm + h;
    auto const r = brent_minimize(f, a, b, u_warm, tol, tol, bs.max_evaluations);
    evaluations += r.evaluations;
    if (r.fx < best.fx) best = r;
  }
  // The trilinear interpolation makes the objective kinked, with a local minimum exactly at a kink
  // where the interpolated V is convex across a node. Two kinks involve every quadrature node at
  // once and can hold the global minimum, in a dip narrower than the scan's spacing (up to 10x the
  // tolerance deeper than the smooth minimum on an 11x11x7 grid): u = 0 (mu' = mu, a mu node) and
  // the u where Sigma' = Sigma sig2 / (u^2 Sigma + sig2) is a Sigma node. Brent found them only by
  // chance, differently at mu and -mu and on each backend; their positions are known, so evaluate
  // them, unless the loss alone (E V >= vmin) already rules one out.
  auto const kink = [&](Real uc) {
    if (uc < lo || uc > hi || problem.loss(x, mu, S, uc) + problem.delta * problem.vmin >= best.fx) return;
    Real const fc = f(uc);
    ++evaluations;
    if (fc < best.fx) best = {uc, fc, 1};
  };
  kink(Real(0));
  for (int k = 0; k < problem.asg.size(); ++k) {  // Sigma' falls from Sigma (u = 0) towards 0 as u grows
    Real const Sk = problem.asg.node(k);
    if (Sk >= S) break;
    if (Sk <= Real(0)) continue;
    Real const uk = Kokkos::sqrt(problem.sig2 * (S - Sk) / (S * Sk));
    kink(uk);
    kink(-uk);
  }
  best.evaluations = evaluations;
  return best;
}

// Sup-norm statistics of one sweep: max and min of V_new - V_old, max |V_new|.
template <class Real>
struct SweepStats {
  Real dmax, dmin, vmax;
  long evaluations;  // objective evaluations (each NGH trilinear gathers of 8 values)
};

// The ranks the grid is split over and their collectives on host memory (the executables fill
// these in from parity/run/ranks.hpp); the default is one rank with nothing to exchange. Every
// rank calls the collectives in the same order.
struct GridRanks {
  int rank = 0, size = 1;
  // all = every rank's `mine` concatenated in rank order
  std::function<void(std::span<double const> mine, std::span<double> all)> all_gather;
  std::function<double(double)> max, min;
  std::function<void(std::span<std::int64_t> values)> sum;  // values[i] = their sum over the ranks
  bool several() const { return size > 1; }
  // This rank's points [first, last) of n: contiguous slabs in memory order.
  long first(long n) const { return several() ? n * rank / size : 0; }
  long last(long n) const { return several() ? n * (rank + 1) / size : n; }
};

// gather_slabs' host buffers (this rank's slab, the grid; doubles in float), sized once per solve.
template <class Real>
struct SlabBuffers {
  Kokkos::View<Real*, Kokkos::HostSpace> slab, grid;
  std::vector<double> slab_values, grid_values;  // float only
  SlabBuffers(GridRanks const& ranks, long n) {
    if (!ranks.several()) return;
    slab = decltype(slab)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::dual_control::slab_host"),
                          std::size_t(ranks.last(n) - ranks.first(n)));
    grid = decltype(grid)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::dual_control::slabs_host"),
                          std::size_t(n));
    if constexpr (!std::is_same_v<Real, double>) slab_values.resize(slab.size()), grid_values.resize(grid.size());
  }
};

// Every rank's slab [ranks.first(n), ranks.last(n)) of g (n points, contiguous in memory order)
// copied into g on every rank through host memory (the GPU machines' MPI is not CUDA-aware): one
// copy of the slab out, the all-gather, one copy of the grid back. Float travels as double (exact).
template <class ExecutionSpace, class Real, class MemorySpace>
void gather_slabs(ExecutionSpace const& space, GridRanks const& ranks, Grid3<Real, MemorySpace> const& g,
                  SlabBuffers<Real>& b) {
  if (!ranks.several()) return;
  long const n = long(g.size()), p0 = ranks.first(n), p1 = ranks.last(n);
  Kokkos::View<Real*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> const flat(g.data(), std::size_t(n));
  Kokkos::deep_copy(space, b.slab, Kokkos::subview(flat, Kokkos::pair<long, long>(p0, p1)));
  space.fence("parity::dual_control::slab_to_host");
  if constexpr (std::is_same_v<Real, double>) {
    ranks.all_gather(std::span<double const>(b.slab.data(), b.slab.size()),
                     std::span<double>(b.grid.data(), b.grid.size()));
  } else {
    std::copy(b.slab.data(), b.slab.data() + b.slab.size(), b.slab_values.begin());
    ranks.all_gather(b.slab_values, b.grid_values);
    std::copy(b.grid_values.begin(), b.grid_values.end(), b.grid.data());
  }
  Kokkos::deep_copy(space, flat, b.grid);
  space.fence("parity::dual_control::slabs_to_device");
}

// The statistics of one sweep over all ranks' slabs (exact: maxima, minima, an integer sum).
template <class Real>
SweepStats<Real> global_stats(GridRanks const& ranks, SweepStats<Real> st) {
  if (!ranks.several()) return st;
  st.dmax = Real(ranks.max(double(st.dmax)));
  st.dmin = Real(ranks.min(double(st.dmin)));
  st.vmax = Real(ranks.max(double(st.vmax)));
  std::int64_t e[1] = {st.evaluations};
  ranks.sum(e);
  st.evaluations = long(e[0]);
  return st;
}

// One policy-evaluation sweep: V_new = L(S, u(S)) + delta E V_old(S').
template <class ExecutionSpace, class Real, class MemorySpace>
SweepStats<Real> evaluate_policy(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem,
                                 Grid3<Real, MemorySpace> const& v_old, Grid3<Real, MemorySpace> const& policy,
                                 Grid3<Real, MemorySpace> const& v_new, GridRanks const& ranks = {}) {
  int const nmu = int(v_old.extent(1)), ns = int(v_old.extent(2));
  long const n = long(v_old.extent(0)) * nmu * ns, p0 = ranks.first(n), p1 = ranks.last(n);
  Grid3<Real const, MemorySpace> const vo = v_old;
  SweepStats<Real> st{};
  Kokkos::parallel_reduce(
      "parity::dual_control::policy_evaluation",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, p0, p1),
      KOKKOS_LAMBDA(long p, Real& dmax, Real& dmin, Real& vmax) {
        int const i = int(p / (long(nmu) * ns)), j = int((p / ns) % nmu), k = int(p % ns);
        Real const x = problem.ax.node(i), mu = problem.amu.node(j), S = problem.asg.node(k);
        Real const vn = problem.objective(vo, x, mu, S, policy(i, j, k));
        Real const d = vn - vo(i, j, k);
        v_new(i, j, k) = vn;
        dmax = d > dmax ? d : dmax;
        dmin = d < dmin ? d : dmin;
        Real const a = Kokkos::fabs(vn);
        vmax = a > vmax ? a : vmax;
      },
      Kokkos::Max<Real>(st.dmax), Kokkos::Min<Real>(st.dmin), Kokkos::Max<Real>(st.vmax));
  st.evaluations = p1 - p0;
  return st;
}

// One Bellman sweep: V_new = min_u {L + delta E V_old}, u_new its minimiser.
template <class ExecutionSpace, class Real, class MemorySpace>
SweepStats<Real> bellman_update(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem,
                                Grid3<Real, MemorySpace> const& v_old, Grid3<Real, MemorySpace> const& v_new,
                                Grid3<Real, MemorySpace> const& policy, BrentSettings const& bs,
                                GridRanks const& ranks = {}) {
  int const nmu = int(v_old.extent(1)), ns = int(v_old.extent(2));
  long const n = long(v_old.extent(0)) * nmu * ns, p0 = ranks.first(n), p1 = ranks.last(n);
  Grid3<Real const, MemorySpace> const vo = v_old;
  SweepStats<Real> st{};
  // At most 128 registers a thread (4 blocks of 128 threads per SM on CUDA). Unconstrained, nvcc 13
  // gives this kernel 136 (double) once it also counts the evaluations, against 126 before; with the
  // bound it gives 128 and no spills. A variant at 146 ran its Bellman sweeps 1.6x slower on an H200.
  using Bounds = Kokkos::LaunchBounds<128, 4>;
  Kokkos::parallel_reduce(
      "parity::dual_control::bellman_update",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>, Bounds>(space, p0, p1),
      KOKKOS_LAMBDA(long p, Real& dmax, Real& dmin, Real& vmax, long& evaluations) {
        int const i = int(p / (long(nmu) * ns)), j = int((p / ns) % nmu), k = int(p % ns);
        Real const x = problem.ax.node(i), mu = problem.amu.node(j), S = problem.asg.node(k);
        auto const r = minimize_objective(problem, vo, x, mu, S, policy(i, j, k), bs);
        evaluations += r.evaluations;
        Real const d = r.fx - vo(i, j, k);
        v_new(i, j, k) = r.fx;
        policy(i, j, k) = r.x;
        dmax = d > dmax ? d : dmax;
        dmin = d < dmin ? d : dmin;
        Real const a = Kokkos::fabs(r.fx);
        vmax = a > vmax ? a : vmax;
      },
      Kokkos::Max<Real>(st.dmax), Kokkos::Min<Real>(st.dmin), Kokkos::Max<Real>(st.vmax),
      Kokkos::Sum<long>(st.evaluations));
  return st;
}

template <class ExecutionSpace, class Real, class MemorySpace>
void fill_policy(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem, Policy which,
                 Grid3<Real, MemorySpace> const& policy) {
  int const nmu = int(policy.extent(1)), ns = int(policy.extent(2));
  long const n = long(policy.extent(0)) * nmu * ns;
  bool const myopic = which == Policy::myopic;
  Kokkos::parallel_for(
      "parity::dual_control::fill_policy", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, n),
      KOKKOS_LAMBDA(long p) {
        int const i = int(p / (long(nmu) * ns)), j = int((p / ns) % nmu), k = int(p % ns);
        policy(i, j, k) =
            myopic ? problem.myopic(problem.ax.node(i), problem.amu.node(j), problem.asg.node(k)) : Real(0);
      });
}

template <class ExecutionSpace, class Real, class MemorySpace>
void add_constant(ExecutionSpace const& space, Grid3<Real, MemorySpace> const& v, Real c) {
  long const n = long(v.size());
  Real* data = v.data();
  Kokkos::parallel_for(
      "parity::dual_control::shift", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, n),
      KOKKOS_LAMBDA(long p) { data[p] += c; });
}

// Iterates a sweep until the MacQueen-Porteus relative bound is below tol (or max_iter sweeps).
struct IterationOutcome {
  long iterations = 0;
  double residual = 0;
  double mp_mid = 0;  // delta/(1-delta) (min dV + max dV)/2 of the last sweep
  bool converged = false;
  bool out_of_time = false;  // stopped by the time limit before converging
  std::vector<double> residuals;  // after each sweep
};

// Sweeps continue from `out` (a resumed solve starts where its checkpoint was); after each one,
// after_sweep(out) may save the state. A sweep that does not converge ends the stage when
// out_of_time() says the time limit has passed.
template <class Real, class Sweep, class AfterSweep, class OutOfTime>
IterationOutcome iterate(Sweep&& sweep, double delta, double tol, long max_iter, run::Progress& progress,
                         std::string const& stage, Kokkos::Timer const& timer, IterationOutcome out,
                         AfterSweep&& after_sweep, OutOfTime&& out_of_time) {
  double const scale = delta / (1 - delta);
  for (long it = out.iterations + 1; it <= max_iter && !out.converged; ++it) {
    SweepStats<Real> const st = sweep();
    double const vmax = std::max(double(st.vmax), std::numeric_limits<double>::min());
    out.iterations = it;
    out.residual = scale * (double(st.dmax) - double(st.dmin)) / vmax;
    out.mp_mid = scale * 0.5 * (double(st.dmin) + double(st.dmax));
    out.residuals.push_back(out.residual);
    run::ProgressLine line{stage, it, out.residual, timer.seconds(), ""};
    line.target = tol;
    progress.update(line);
    if (!std::isfinite(out.residual)) break;
    out.converged = out.residual <= tol;
    out.out_of_time = !out.converged && it < max_iter && out_of_time();
    after_sweep(out);
    if (out.out_of_time) break;
  }
  return out;
}

template <class Real>
double tolerance_floor(double delta) {
  return 32.0 * double(std::numeric_limits<Real>::epsilon()) * delta / (1 - delta);
}

template <class Real, class MemorySpace>
Problem<Real, MemorySpace> make_problem(Params const& p) {
  auto const inert = inert_closed_form(p);
  Problem<Real, MemorySpace> pr;
  pr.alpha = Real(p.alpha);
  pr.gamma = Real(p.gamma);
  pr.delta = Real(p.delta);
  pr.omega = Real(p.omega);
  pr.xbar = Real(p.xbar);
  pr.ubar = Real(p.ubar);
  pr.sig2 = Real(p.sigma_eps * p.sigma_eps);
  pr.inert_a = Real(inert.a);
  pr.inert_b = Real(inert.b);
  pr.inert_c = Real(inert.c);
  pr.vmin = Real(p.sigma_eps * p.sigma_eps / (1 - p.delta));
  pr.ax = grid::Axis<Real, MemorySpace>("dual_control::x",
                                        grid::clustered_nodes(p.x_lo, p.x_hi, p.nx, p.xbar, p.x_concentration));
  // mu = 0 is always a node: there the myopic and optimal controls are 0 (ubar = 0) and V has a
  // ridge at the inert value, which interpolation between nodes at +-mu would flatten.
  auto const mu_nodes = grid::clustered_nodes(p.mu_lo, p.mu_hi, p.nmu, 0.0, p.mu_concentration);
  pr.amu = grid::Axis<Real, MemorySpace>("dual_control::mu", mu_nodes);
  // The mirror symmetry of the problem carries over to the discrete one only on a mirror-symmetric
  // mu axis (an odd node count on a symmetric range).
  bool nodes_mirrored = true;
  for (std::size_t j = 0; j < mu_nodes.size(); ++j)
    nodes_mirrored = nodes_mirrored && mu_nodes[j] == -mu_nodes[mu_nodes.size() - 1 - j];
  pr.mirror_symmetric = p.ubar == 0 && nodes_mirrored;
  pr.asg = grid::Axis<Real, MemorySpace>("dual_control::Sigma", grid::uniform_nodes(p.sigma_lo, p.sigma_hi, p.nsigma));
  pr.gh = quadrature::to_device<Real, MemorySpace>(quadrature::gauss_hermite(p.quad_nodes));
  return pr;
}

// V, u (and the policy's own value) at a few states, on the device.
template <class ExecutionSpace, class Real, class MemorySpace>
void reference_values(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem, Policy which,
                      Grid3<Real, MemorySpace> const& v, Grid3<Real, MemorySpace> const& v_myopic,
                      BrentSettings const& bs, std::vector<State> const& states, std::vector<ReferenceValue>& out) {
  int const n = int(states.size());
  out.clear();
  if (n == 0) return;
  Kokkos::View<Real* [5], MemorySpace> d("parity::dual_control::reference_values", n);
  auto h = Kokkos::create_mirror_view(d);
  for (int r = 0; r < n; ++r) {
    h(r, 0) = Real(states[r].x);
    h(r, 1) = Real(states[r].mu);
    h(r, 2) = Real(states[r].Sigma);
  }
  Kokkos::deep_copy(d, h);
  Grid3<Real const, MemorySpace> const vc = v, vm = v_myopic;
  Kokkos::parallel_for(
      "parity::dual_control::reference_values", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n), KOKKOS_LAMBDA(int r) {
        Real const x = d(r, 0), mu = d(r, 1), S = d(r, 2);
        auto const& pr = problem;
        Real u = 0;
        if (which == Policy::myopic) u = pr.myopic(x, mu, S);
        if (which == Policy::optimal) u = minimize_objective(pr, vc, x, mu, S, pr.myopic(x, mu, S), bs).x;
        d(r, 3) = u;
        d(r, 4) = pr.interpolate(vc, x, mu, S);
        d(r, 2) = pr.interpolate(vm, x, mu, S);  // reuse column 2 for V_myopic (the state is kept on the host)
      });
  Kokkos::deep_copy(h, d);
  auto const inert = [&] {
    InertClosedForm f;
    f.a = double(problem.inert_a);
    f.b = double(problem.inert_b);
    f.c = double(problem.inert_c);
    return f;
  }();
  for (int r = 0; r < n; ++r) {
    ReferenceValue rv;
    rv.state = states[r];
    rv.u = double(h(r, 3));
    rv.V = double(h(r, 4));
    rv.V_myopic = double(h(r, 2));
    rv.V_inert = inert(states[r].x);
    out.push_back(rv);
  }
}

// Simulates the controlled system under one policy from the initial belief: path p draws the true
// beta from N(mu0, Sigma0) and then one shock per period from Philox stream p, so every policy
// (and every backend) sees the same beta and shocks (common random numbers). Returns the mean
// realised discounted loss sum_t delta^t [(x_t - xbar)^2 + omega (u_t - ubar)^2] and its standard
// error, the mean belief variance at the horizon and the mean |mu_T - beta|.
// The paths run in chunks of at least four times the backend's concurrency (at most 100 chunks), so
// long simulations report progress; the chunks' sums are added in order, the same on every backend.
// Nothing (std::nullopt) when out_of_time() says the time limit passed before the last chunk.
// out_of_time is a std::function: nvcc refuses a host lambda's type as a template argument of a
// function that holds device lambdas.
template <class ExecutionSpace, class Real, class MemorySpace>
std::optional<SimulationSummary> simulate(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem,
                                          Policy which, Grid3<Real, MemorySpace> const& v, BrentSettings const& bs,
                                          Params const& params, run::Progress& progress, Kokkos::Timer const& timer,
                                          std::function<bool()> const& out_of_time) {
  Grid3<Real const, MemorySpace> const vc = v;
  Real const x0 = Real(params.initial_state.x), mu0 = Real(params.initial_state.mu),
             S0 = Real(params.initial_state.Sigma);
  Real const sigma = Kokkos::sqrt(problem.sig2);
  std::uint64_t const seed = params.seed;
  int const horizon = params.horizon;
  double sum = 0, sumsq = 0, sum_S = 0, sum_err = 0;
  long const paths = params.simulate_paths;
  long const chunk = std::max(4L * long(space.concurrency()), (paths + 99) / 100);
  std::string const stage = "simulation (" + to_string(which) + " policy)";
  for (long begin = 0; begin < paths; begin += chunk) {
    long const end = std::min(paths, begin + chunk);
    double c_sum = 0, c_sumsq = 0, c_S = 0, c_err = 0;
    Kokkos::parallel_reduce(
        "parity::dual_control::simulate",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, begin, end),
        KOKKOS_LAMBDA(long path, double& s, double& s2, double& sS, double& se) {
          random::PhiloxStream<Real> rng(seed, std::uint64_t(path));
          Real const beta = mu0 + Kokkos::sqrt(S0) * rng.normal();
          Real x = x0, mu = mu0, S = S0, discount = 1;
          double loss = 0;
          for (int t = 0; t < horizon; ++t) {
            Real u = 0;
            if (which == Policy::myopic) u = problem.myopic(x, mu, S);
            if (which == Policy::optimal) u = minimize_objective(problem, vc, x, mu, S, problem.myopic(x, mu, S), bs).x;
            Real const eps = sigma * rng.normal();
            Real const xn = problem.alpha + beta * u + problem.gamma * x + eps;
            Real const dx = xn - problem.xbar, du = u - problem.ubar;
            loss += double(discount * (dx * dx + problem.omega * du * du));
            discount *= problem.delta;
            Real const s2n = u * u * S + problem.sig2;
            mu += S * u * (xn - problem.alpha - problem.gamma * x - mu * u) / s2n;
            S = S * problem.sig2 / s2n;
            x = xn;
          }
          s += loss;
          s2 += loss * loss;
          sS += double(S);
          se += double(Kokkos::fabs(mu - beta));
        },
        Kokkos::Sum<double>(c_sum), Kokkos::Sum<double>(c_sumsq), Kokkos::Sum<double>(c_S), Kokkos::Sum<double>(c_err));
    sum += c_sum, sumsq += c_sumsq, sum_S += c_S, sum_err += c_err;
    run::ProgressLine line{stage, end, -1.0, timer.seconds(),
                           std::to_string(end) + "/" + std::to_string(paths) + " paths"};
    line.total = paths;
    progress.update(line);
    if (end < paths && out_of_time()) return std::nullopt;
  }
  double const n = double(params.simulate_paths);
  SimulationSummary out;
  out.policy = to_string(which);
  out.mean_loss = sum / n;
  double const var = n > 1 ? std::max(sumsq / n - out.mean_loss * out.mean_loss, 0.0) * n / (n - 1) : 0.0;
  out.std_error = std::sqrt(var / n);
  out.mean_final_Sigma = sum_S / n;
  out.mean_abs_final_mu_error = sum_err / n;
  return out;
}

template <class Real, class MemorySpace>
std::vector<double> to_vector(Kokkos::View<Real const*, MemorySpace> const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.size());
}

template <class Real, class MemorySpace>
std::vector<double> to_vector(Grid3<Real, MemorySpace> const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) out[i] = double(h.data()[i]);
  return out;
}

// Host values (double) into a grid of the solve's precision: exact for a state read from a
// checkpoint, which holds the grid's own values widened to double.
template <class Real, class MemorySpace>
void from_vector(std::vector<double> const& h, Grid3<Real, MemorySpace> const& v) {
  auto m = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < h.size(); ++i) m.data()[i] = Real(h[i]);
  Kokkos::deep_copy(v, m);
}

template <class ExecutionSpace, class Real>
Result solve(ExecutionSpace const& space, Params const& params, run::Progress& progress, run::PhaseTimes& phases,
             GridRanks const& ranks = {}) {
  using Mem = typename ExecutionSpace::memory_space;
  validate(params);
  Kokkos::Timer timer;
  Result result;
  result.policy = params.policy;
  result.inert = inert_closed_form(params);
  result.tolerance = params.tolerance();
  result.tolerance_effective = std::max(result.tolerance, tolerance_floor<Real>(params.delta));
  double const tol_myopic = std::max(params.tol_myopic, tolerance_floor<Real>(params.delta));
  long const points = long(params.nx) * params.nmu * params.nsigma;
  std::string const print = fingerprint(params, sizeof(Real) == sizeof(float) ? "float" : "double");
  IterationState resumed;
  if (!params.resume.empty()) resumed = read_iteration_state(params.resume, print, points);

  Problem<Real, Mem> problem;
  Grid3<Real, Mem> v, v_next, u, v_myopic, u_myopic;
  {
    timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::setup");
    problem = make_problem<Real, Mem>(params);
    v = Grid3<Real, Mem>("parity::dual_control::V", params.nx, params.nmu, params.nsigma);
    v_next = Grid3<Real, Mem>("parity::dual_control::V_next", params.nx, params.nmu, params.nsigma);
    u = Grid3<Real, Mem>("parity::dual_control::u", params.nx, params.nmu, params.nsigma);
  }
  SlabBuffers<Real> slabs(ranks, long(params.nx) * params.nmu * params.nsigma);
  BrentSettings const bs{params.brent_starts, params.scan_points, params.brent_max_iter, params.brent_tol};
  int const evaluation_sweeps = params.evaluation_sweeps_effective();
  double const delta = params.delta, scale = delta / (1 - delta);

  // Checkpoints between sweeps, at most one per checkpoint_every seconds (and after the sweep
  // that converges, so a finished stage is never redone).
  double last_checkpoint = timer.seconds();
  auto save = [&](IterationState state, IterationOutcome const& out) {
    if (params.checkpoint.empty()) return;
    if (!out.converged && !out.out_of_time && timer.seconds() - last_checkpoint < params.checkpoint_every) return;
    state.iterations = out.iterations;
    state.residual = out.residual;
    state.mp_mid = out.mp_mid;
    state.converged = out.converged;
    state.residuals = out.residuals;
    if (ranks.rank != 0) return;  // every rank holds the whole grid; one writes it
    Kokkos::fence();
    state.V = to_vector(v);
    state.u = to_vector(u);
    if (state.stage == 1) state.V_myopic = to_vector(v_myopic);
    run::write_checkpoint(params.checkpoint, to_checkpoint(state, print));
    last_checkpoint = timer.seconds();
  };
  // Whether the time limit has passed; on several ranks whether it has on any, so all stop together.
  auto out_of_time = [&] {
    if (params.time_limit <= 0) return false;
    double late = timer.seconds() >= params.time_limit ? 1.0 : 0.0;
    if (ranks.several()) late = ranks.max(late);
    return late > 0;
  };
  auto restore = [](IterationState const& st) {
    IterationOutcome out;
    out.iterations = st.iterations;
    out.residual = st.residual;
    out.mp_mid = st.mp_mid;
    out.converged = st.converged;
    out.residuals = st.residuals;
    return out;
  };

  // Policy evaluation of inert (u = 0) or myopic, from V = 0.
  Policy const first = params.policy == Policy::inert ? Policy::inert : Policy::myopic;
  bool const skip_first = !params.resume.empty() && resumed.stage == 1;
  IterationOutcome eval;
  if (skip_first) {
    eval.iterations = resumed.myopic_iterations;
    eval.converged = true;  // value iteration starts only from a converged myopic solve
  } else {
    timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::policy_evaluation");
    fill_policy(space, problem, first, u);
    IterationOutcome start;
    if (!params.resume.empty()) {
      from_vector(resumed.V, v);
      start = restore(resumed);
    }
    auto sweep = [&] {
      auto const st = global_stats(ranks, evaluate_policy(space, problem, v, u, v_next, ranks));
      gather_slabs(space, ranks, v_next, slabs);
      std::swap(v, v_next);
      return st;
    };
    eval = iterate<Real>(
        sweep, delta, params.policy == Policy::optimal ? tol_myopic : result.tolerance_effective, params.max_iter,
        progress, to_string(first) + " evaluation", timer, start,
        [&](IterationOutcome const& out) { save(IterationState{}, out); }, out_of_time);
    if (params.mp_correction && eval.converged) add_constant(space, v, Real(eval.mp_mid));
  }

  if (params.policy != Policy::optimal) {
    result.iterations = eval.iterations;
    result.residual = eval.residual;
    result.converged = eval.converged;
    result.mp_shift = params.mp_correction && eval.converged ? eval.mp_mid : 0.0;
    result.residual_history = eval.residuals;
    result.time_limited = eval.out_of_time;
    if (!eval.converged) result.stopped_in = "policy evaluation";
  } else {
    result.myopic_iterations = eval.iterations;
    {
      timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::setup");
      v_myopic = Grid3<Real, Mem>("parity::dual_control::V_myopic", params.nx, params.nmu, params.nsigma);
      u_myopic = Grid3<Real, Mem>("parity::dual_control::u_myopic", params.nx, params.nmu, params.nsigma);
      if (skip_first) {
        from_vector(resumed.V_myopic, v_myopic);
        fill_policy(space, problem, Policy::myopic, u_myopic);
        from_vector(resumed.V, v);
        from_vector(resumed.u, u);
      } else {
        Kokkos::deep_copy(space, v_myopic, v);
        Kokkos::deep_copy(space, u_myopic, u);
      }
    }
    if (!eval.converged) {
      result.residual = eval.residual;
      result.residual_history = eval.residuals;
      result.converged = false;
      result.time_limited = eval.out_of_time;
      result.stopped_in = "myopic warm start";
    } else {
      timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::value_iteration");
      // Modified policy iteration: `evaluation_sweeps` sweeps of the current policy after each
      // Bellman sweep; the stopping test is on the Bellman sweeps. Once the Bellman residual stalls
      // near the tolerance (falls by less than half, below 10 tol), the rest is plain value
      // iteration: in float the residual can stall at the rounding noise of the minimum over u,
      // which the evaluation sweeps at a fixed u do not share, while successive Bellman sweeps do.
      IterationState vi_state;
      vi_state.stage = 1;
      vi_state.myopic_iterations = eval.iterations;
      vi_state.evaluation_sweeps_now = evaluation_sweeps;
      IterationOutcome start;
      if (skip_first) {
        vi_state = resumed;
        start = restore(resumed);
      }
      auto sweep = [&] {
        auto const st = global_stats(ranks, bellman_update(space, problem, v, v_next, u, bs, ranks));
        gather_slabs(space, ranks, v_next, slabs);
        gather_slabs(space, ranks, u, slabs);
        vi_state.bellman_evaluations += st.evaluations;
        std::swap(v, v_next);
        double const vmax = std::max(double(st.vmax), std::numeric_limits<double>::min());
        double const residual = scale * (double(st.dmax) - double(st.dmin)) / vmax;
        bool const done = residual <= result.tolerance_effective;
        if (residual > 0.5 * vi_state.previous_residual && residual < 10 * result.tolerance_effective)
          vi_state.evaluation_sweeps_now = 0;
        vi_state.previous_residual = residual;
        vi_state.evaluation_sweeps_history.push_back(done ? 0 : vi_state.evaluation_sweeps_now);
        if (!done)
          for (int m = 0; m < vi_state.evaluation_sweeps_now; ++m) {
            evaluate_policy(space, problem, v, u, v_next, ranks);
            gather_slabs(space, ranks, v_next, slabs);
            std::swap(v, v_next);
            ++vi_state.evaluation_sweeps;
          }
        return st;
      };
      auto const vi = iterate<Real>(
          sweep, delta, result.tolerance_effective, params.max_iter, progress, "value iteration", timer, start,
          [&](IterationOutcome const& out) { save(vi_state, out); }, out_of_time);
      result.iterations = vi.iterations;
      result.residual = vi.residual;
      result.converged = vi.converged;
      result.time_limited = vi.out_of_time;
      result.evaluation_sweeps = vi_state.evaluation_sweeps;
      result.bellman_evaluations = vi_state.bellman_evaluations;
      result.evaluation_sweeps_history.assign(vi_state.evaluation_sweeps_history.begin(),
                                              vi_state.evaluation_sweeps_history.end());
      result.mp_shift = params.mp_correction && vi.converged ? vi.mp_mid : 0.0;
      result.residual_history = vi.residuals;
      if (!vi.converged) result.stopped_in = "value iteration";
      if (params.mp_correction && vi.converged) add_constant(space, v, Real(vi.mp_mid));
    }
  }

  // A solve stopped by the time limit is not simulated; a simulation that reaches the limit stops
  // between chunks and reports nothing.
  if (params.simulate_paths > 0 && !result.time_limited) {
    timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::simulation");
    for (Policy which : {Policy::inert, Policy::myopic, Policy::optimal}) {
      if (which == Policy::optimal && params.policy != Policy::optimal) continue;
      auto sim = simulate(space, problem, which, v, bs, params, progress, timer, out_of_time);
      if (!sim) {
        result.time_limited = true;
        result.stopped_in = "simulation";
        result.simulation.clear();
        break;
      }
      result.simulation.push_back(*sim);
    }
  }

  {
    timing::ScopedPhase<ExecutionSpace> phase(space, phases, "parity::dual_control::results");
    reference_values(space, problem, params.policy, v, params.policy == Policy::optimal ? v_myopic : v, bs,
                     params.reference_states, result.references);
    result.x = to_vector<Real, Mem>(problem.ax.nodes());
    result.mu = to_vector<Real, Mem>(problem.amu.nodes());
    result.Sigma = to_vector<Real, Mem>(problem.asg.nodes());
    result.V = to_vector(v);
    result.u = to_vector(u);
    if (params.policy == Policy::optimal) {
      result.V_myopic = to_vector(v_myopic);
      result.u_myopic = to_vector(u_myopic);
    }
  }
  return result;
}

// The same for library use without the command line's reporting: silent, phases not recorded.
template <class ExecutionSpace, class Real>
Result solve(ExecutionSpace const& space, Params const& params) {
  run::SilentProgress progress;
  run::PhaseTimes phases;
  return solve<ExecutionSpace, Real>(space, params, progress, phases);
}

// The same problem on a grid of about `target` points (the whole grid if it is not larger): x and
// mu shrink alike; Sigma keeps up to 32 nodes, since the search evaluates the objective at a kink
// per Sigma node below S.
inline Params calibration_params(Params p, long target) {
  double const points = double(p.nx) * p.nmu * p.nsigma;
  if (points <= double(target)) return p;
  auto clamp_nodes = [](double n, int most) { return int(std::clamp(std::lround(n), 2L, long(most))); };
  int const ns = clamp_nodes(std::max(p.nsigma * std::cbrt(double(target) / points), 32.0), p.nsigma);
  double const f = std::sqrt(double(target) / ns / (double(p.nx) * p.nmu));
  p.nx = clamp_nodes(p.nx * f, p.nx);
  int nmu = clamp_nodes(p.nmu * f, p.nmu);
  if (p.nmu % 2 == 1 && nmu % 2 == 0) ++nmu;  // an odd count keeps the node at mu = 0 and the mirror symmetry
  p.nmu = std::min(nmu, p.nmu);
  p.nsigma = ns;
  return p;
}

// V = the inert closed form V0(x), a start with the shape and size of the solution's.
template <class ExecutionSpace, class Real, class MemorySpace>
void fill_inert_value(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem,
                      Grid3<Real, MemorySpace> const& v) {
  int const nmu = int(v.extent(1)), ns = int(v.extent(2));
  long const n = long(v.extent(0)) * nmu * ns;
  Kokkos::parallel_for(
      "parity::dual_control::fill_inert_value",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, n), KOKKOS_LAMBDA(long p) {
        int const i = int(p / (long(nmu) * ns)), j = int((p / ns) % nmu), k = int(p % ns);
        v(i, j, k) = problem.inert_value(problem.ax.node(i));
      });
}

// Times the solve's kernels on smaller grids of the same problem, for estimate() (estimate.hpp):
// policy-evaluation sweeps of the policy the solve evaluates (inert or myopic) on about
// max(4096, 4 x concurrency) points, and for the optimal policy Bellman sweeps on about
// max(512, concurrency) points, both from V = V0(x). Each figure is the mean of two sweeps after a
// first that also starts the kernels. Three sweeps of each kind, on a host as on a GPU a fraction of
// one sweep of a grid large enough to need an estimate.
template <class ExecutionSpace, class Real>
Calibration calibrate(ExecutionSpace const& space, Params const& params) {
  using Mem = typename ExecutionSpace::memory_space;
  long const concurrency = std::max(1L, long(space.concurrency()));
  Calibration c;
  auto grid_of = [](Params const& q) { return std::array<int, 3>{q.nx, q.nmu, q.nsigma}; };
  auto per_sweep = [&](auto&& sweep) {
    sweep();  // also starts the kernel and the threads
    space.fence("parity::dual_control::calibration");
    Kokkos::Timer t;
    for (int r = 0; r < 2; ++r) sweep();
    space.fence("parity::dual_control::calibration");
    return t.seconds() / 2;
  };
  {
    Params const q = calibration_params(params, std::max(4096L, 4 * concurrency));
    auto const problem = make_problem<Real, Mem>(q);
    Grid3<Real, Mem> v("parity::dual_control::calibration_V", q.nx, q.nmu, q.nsigma),
        v_next("parity::dual_control::calibration_V_next", q.nx, q.nmu, q.nsigma),
        u("parity::dual_control::calibration_u", q.nx, q.nmu, q.nsigma);
    fill_inert_value(space, problem, v);
    fill_policy(space, problem, params.policy == Policy::inert ? Policy::inert : Policy::myopic, u);
    double const seconds = per_sweep([&] {
      evaluate_policy(space, problem, v, u, v_next);
      std::swap(v, v_next);
    });
    c.evaluation_grid = grid_of(q);
    c.evaluation_seconds_per_point = seconds / (double(q.nx) * q.nmu * q.nsigma);
  }
  if (params.policy == Policy::optimal) {
    Params const q = calibration_params(params, std::max(512L, concurrency));
    auto const problem = make_problem<Real, Mem>(q);
    Grid3<Real, Mem> v("parity::dual_control::calibration_V", q.nx, q.nmu, q.nsigma),
        v_next("parity::dual_control::calibration_V_next", q.nx, q.nmu, q.nsigma),
        u("parity::dual_control::calibration_u", q.nx, q.nmu, q.nsigma);
    fill_inert_value(space, problem, v);
    fill_policy(space, problem, Policy::myopic, u);
    BrentSettings const bs{params.brent_starts, params.scan_points, params.brent_max_iter, params.brent_tol};
    long evaluations = 0;
    double const seconds = per_sweep([&] {
      evaluations = bellman_update(space, problem, v, v_next, u, bs).evaluations;
      std::swap(v, v_next);
    });
    double const points = double(q.nx) * q.nmu * q.nsigma;
    c.bellman_grid = grid_of(q);
    c.bellman_seconds_per_point = seconds / points;
    c.bellman_evaluations_per_point = double(evaluations) / points;
  }
  return c;
}

}  // namespace parity::dual_control
