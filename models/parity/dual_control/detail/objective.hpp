#pragma once
// The minimisation of the objective over the control at one state (solver.hpp): a scan, then
// Brent from the best bracket(s).
#include <Kokkos_Core.hpp>

#include "parity/dual_control/brent.hpp"
#include "parity/dual_control/detail/problem.hpp"

namespace parity::dual_control::detail {

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
  // A Sigma kink is evaluated on its node's slice and stops once it cannot beat the best (one
  // evaluation in the count, stopped or not).
  auto const sigma_kink = [&](Real uc, int k) {
    if (uc < lo || uc > hi || problem.loss(x, mu, S, uc) + problem.delta * problem.vmin >= best.fx) return;
    Real fc;
    ++evaluations;
    if (problem.objective_at_sigma_node(v, x, mu, S, uc, k, best.fx, fc) && fc < best.fx) best = {uc, fc, 1};
  };
  kink(Real(0));
  for (int k = 0; k < problem.asg.size(); ++k) {  // Sigma' falls from Sigma (u = 0) towards 0 as u grows
    Real const Sk = problem.asg.node(k);
    if (Sk >= S) break;
    if (Sk <= Real(0)) continue;
    Real const uk = Kokkos::sqrt(problem.sig2 * (S - Sk) / (S * Sk));
    sigma_kink(uk, k);
    sigma_kink(-uk, k);
  }
  best.evaluations = evaluations;
  return best;
}

}  // namespace parity::dual_control::detail
