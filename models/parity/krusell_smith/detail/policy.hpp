#pragma once
// The individual policy k' = g(k, K, z, eps) from the Euler equation given the perceived law of
// motion: one endogenous-grid update, one damped time-iteration update, and the Euler-equation
// errors of a policy on and off the grid nodes. One thread per (state, k node, K node).
#include <Kokkos_Core.hpp>

#include "parity/krusell_smith/detail/model.hpp"

namespace parity::krusell_smith::detail {

namespace kernels {

// One thread per (state s, k node i, K node j), flat index (s nk + i) nK + j: consecutive threads
// take consecutive K nodes, the contiguous index of the policy arrays. The 2,672 Euler updates of a
// first solve at 500 x 50 took 0.55 s on an H200 as a rank-3 MDRangePolicy over (4, nk, nK) and
// take 0.24 s so (perf/results/one-rank-draw-and-policy-h200).
template <class ExecSpace>
using Nodes = Kokkos::RangePolicy<ExecSpace>;

// One Euler-equation (endogenous grid) update of the policy; returns the largest |g_new - g| beyond
// the node's rounding_allowance.
// Kernel 1, one thread per (state, k' node, K node): the Euler equation gives today's consumption
// for savings k' = node i, hence the capital k_endo that chooses it. Kernel 2, one thread per
// (state, k node, K node): g_new(k) by linear interpolation of the pairs (k_endo, k'), k' = k_min
// below the first endogenous point (the borrowing constraint binds).
template <class ExecSpace, class Real, class Axis, class G, class E>
Real euler_update(ExecSpace const& space, Model<Real> const& m, Axis const& axk, Axis const& axK, G const& g,
                  G const& g_new, E const& k_endo, bool cubic) {
  int const nk = axk.size(), nK = axK.size();
  Kokkos::parallel_for(
      "parity::krusell_smith::endogenous_grid", Nodes<ExecSpace>(space, 0, 4 * nk * nK), KOKKOS_LAMBDA(int flat) {
        int const s = flat / (nk * nK), i = (flat / nK) % nk, j = flat % nK;
        int const z = s / 2, e = s % 2;
        Real const K = axK.node(j);
        Real const kp = axk.node(i);
        // Savings kp are node i, so next period's policy is read along the K axis only.
        Real const rhs = expected_marginal_return(
            m, s, K, kp, [&](int sn, Real Kn) { return policy_at_node(axK, g, sn, i, Kn, cubic); });
        Real const c = inverse_marginal_utility(m.beta * rhs, m.gamma);
        auto const pr = prices(m.alpha, m.l_bar, m.mu, m.z[z], m.u[z], K);
        Real const labour = income(pr, m.delta, m.l_bar, m.mu, e, Real(0));
        k_endo(s, i, j) = (c + kp - labour) / (1 - m.delta + pr.r);
      });
  Real change = 0;
  Kokkos::parallel_reduce(
      "parity::krusell_smith::policy_update", Nodes<ExecSpace>(space, 0, 4 * nk * nK),
      KOKKOS_LAMBDA(int flat, Real& err) {
        int const s = flat / (nk * nK), mm = (flat / nK) % nk, j = flat % nK;
        Real const k = axk.node(mm);
        Real gnew;
        if (k <= k_endo(s, 0, j)) {
          gnew = m.k_min;
        } else {
          int lo = 0, hi = nk - 1;  // last i with k_endo(i) <= k, in [0, nk - 2]
          while (hi - lo > 1) {
            int const mid = (lo + hi) / 2;
            if (k_endo(s, mid, j) <= k)
              lo = mid;
            else
              hi = mid;
          }
          Real const x0 = k_endo(s, lo, j), x1 = k_endo(s, lo + 1, j);
          Real const y0 = axk.node(lo), y1 = axk.node(lo + 1);
          Real const dx = x1 - x0;
          if (!(dx > 0)) {
            gnew = y1;
          } else if (!cubic) {
            gnew = y0 + (y1 - y0) * (k - x0) / dx;
          } else {
            // Cubic Hermite through the endogenous points with three-point slopes (exact for
            // quadratics), so the node values are as accurate as the bicubic interpolant that
            // reads them: with linear inversion the Catmull-Rom panel inherits an O(h^2) bias.
            auto x = [&](int q) { return k_endo(s, q, j); };
            auto y = [&](int q) { return axk.node(q); };
            auto slope = [&](int q) {
              int const c = q == 0 ? 1 : (q == nk - 1 ? nk - 2 : q);
              Real const hl = x(c) - x(c - 1), hr = x(c + 1) - x(c);
              if (!(hl > 0 && hr > 0)) return (y1 - y0) / dx;  // not strictly increasing: the secant
              Real const dl = (y(c) - y(c - 1)) / hl, dr = (y(c + 1) - y(c)) / hr;
              if (q == c) return (hr * dl + hl * dr) / (hl + hr);
              // one-sided at the ends: the quadratic through the three points, differentiated there
              Real const d2 = (dr - dl) / (hl + hr);
              return q == 0 ? dl - d2 * hl : dr + d2 * hr;
            };
            Real const t = (k - x0) / dx, t2 = t * t, t3 = t2 * t;
            Real const m0 = slope(lo) * dx, m1 = slope(lo + 1) * dx;
            gnew = (2 * t3 - 3 * t2 + 1) * y0 + (t3 - 2 * t2 + t) * m0 + (-2 * t3 + 3 * t2) * y1 + (t3 - t2) * m1;
          }
          gnew = gnew > m.k_min ? gnew : m.k_min;
        }
        g_new(s, mm, j) = gnew;
        Real const d = Kokkos::abs(gnew - g(s, mm, j)) - rounding_allowance(k);
        err = d > err ? d : err;
      },
      Kokkos::Max<Real>(change));
  return change;
}

// One damped time-iteration update (Maliar, Maliar & Valli's INDIVIDUAL.m), one thread per
// (state, k node, K node): with today's saving k' = g(k, K), next period's saving g(k', K') is
// interpolated in k and K, the Euler equation gives consumption c and the update is
// g_new = w (cash - c) + (1 - w) g, the Euler solution kept in [k_min, k_max]. Returns the
// undamped change max |(cash - c) - g| (MMV's stopping measure) beyond the node's rounding_allowance.
template <class ExecSpace, class Real, class Axis, class G>
Real time_iteration_update(ExecSpace const& space, Model<Real> const& m, Axis const& axk, Axis const& axK, G const& g,
                           G const& g_new, bool cubic, Real weight, Real k_max) {
  int const nk = axk.size(), nK = axK.size();
  Real change = 0;
  Kokkos::parallel_reduce(
      "parity::krusell_smith::time_iteration", Nodes<ExecSpace>(space, 0, 4 * nk * nK),
      KOKKOS_LAMBDA(int flat, Real& err) {
        int const s = flat / (nk * nK), i = (flat / nK) % nk, j = flat % nK;
        int const z = s / 2, e = s % 2;
        Real const k = axk.node(i), K = axK.node(j);
        Real const kp = g(s, i, j);
        Real const rhs = expected_marginal_return(m, s, K, kp, [&](int sn, Real Kn) {
          Real const kpp = policy_at(axk, axK, g, sn, kp, Kn, cubic);
          return kpp > m.k_min ? kpp : m.k_min;
        });
        Real const c = inverse_marginal_utility(m.beta * rhs, m.gamma);
        auto const pr = prices(m.alpha, m.l_bar, m.mu, m.z[z], m.u[z], K);
        Real kn = income(pr, m.delta, m.l_bar, m.mu, e, k) - c;
        kn = kn < m.k_min ? m.k_min : (kn > k_max ? k_max : kn);
        g_new(s, i, j) = weight * kn + (1 - weight) * kp;
        Real const d = Kokkos::abs(kn - kp) - rounding_allowance(k);
        err = d > err ? d : err;
      },
      Kokkos::Max<Real>(change));
  return change;
}

// The Euler-equation error |1 - c_euler / c| of policy g at (k, K) in state s. At the constraint
// (g = k_min) only a wish to save more counts as an error.
template <class Real, class Axis, class G>
KOKKOS_INLINE_FUNCTION double euler_error_at(Model<Real> const& m, Axis const& axk, Axis const& axK, G const& g,
                                             bool cubic, int s, Real k, Real K) {
  int const z = s / 2, e = s % 2;
  auto const pr = prices(m.alpha, m.l_bar, m.mu, m.z[z], m.u[z], K);
  Real kp = policy_at(axk, axK, g, s, k, K, cubic);
  kp = kp > m.k_min ? kp : m.k_min;
  Real const c = income(pr, m.delta, m.l_bar, m.mu, e, k) - kp;
  Real const rhs = expected_marginal_return(m, s, K, kp, [&](int sn, Real Kn) {
    Real const kpp = policy_at(axk, axK, g, sn, kp, Kn, cubic);
    return kpp > m.k_min ? kpp : m.k_min;
  });
  Real const c_euler = inverse_marginal_utility(m.beta * rhs, m.gamma);
  double err = c > 0 ? double(1 - c_euler / c) : 1.0;
  bool const constrained = kp <= m.k_min;
  if (constrained && err < 0) err = 0;  // u'(c) > beta E[...] is allowed at the constraint
  return Kokkos::abs(err);
}

// The point (k, K) of euler_errors' index (i, j): a node, or the midpoint of cell (i, j).
template <class Axis>
KOKKOS_INLINE_FUNCTION auto euler_point(Axis const& ax, int i, bool midpoint) {
  using Real = decltype(ax.node(0));
  return midpoint ? Real(0.5) * (ax.node(i) + ax.node(i + 1)) : ax.node(i);
}

// Euler-equation errors |1 - c_euler / c| at the points (k, K) = (node or midpoint) for k <= k_cap.
template <class ExecSpace, class Real, class Axis, class G>
void euler_errors(ExecSpace const& space, Model<Real> const& m, Axis const& axk, Axis const& axK, G const& g,
                  bool cubic, bool midpoints, Real k_cap, double& max_err, double& mean_err) {
  int const nk = axk.size() - (midpoints ? 1 : 0), nK = axK.size() - (midpoints ? 1 : 0);
  double mx = 0, sum = 0;
  long count = 0;
  Kokkos::parallel_reduce(
      "parity::krusell_smith::euler_errors", Kokkos::RangePolicy<ExecSpace>(space, 0, 4 * nk * nK),
      KOKKOS_LAMBDA(int flat, double& lmax, double& lsum, long& lcount) {
        int const s = flat / (nk * nK), i = (flat / nK) % nk, j = flat % nK;
        Real const k = euler_point(axk, i, midpoints), K = euler_point(axK, j, midpoints);
        if (k > k_cap) return;
        double const err = euler_error_at(m, axk, axK, g, cubic, s, k, K);
        lmax = err > lmax ? err : lmax;
        lsum += err;
        lcount += 1;
      },
      Kokkos::Max<double>(mx), sum, count);
  max_err = mx;
  mean_err = count > 0 ? sum / double(count) : 0.0;
}

// Every point's error, err(s, i, j) at euler_point(axk, i), euler_point(axK, j): where the
// largest errors lie (tests, diagnostics).
template <class ExecSpace, class Real, class Axis, class G>
Kokkos::View<double***, typename ExecSpace::memory_space> euler_error_field(ExecSpace const& space,
                                                                            Model<Real> const& m, Axis const& axk,
                                                                            Axis const& axK, G const& g, bool cubic,
                                                                            bool midpoints) {
  int const nk = axk.size() - (midpoints ? 1 : 0), nK = axK.size() - (midpoints ? 1 : 0);
  Kokkos::View<double***, typename ExecSpace::memory_space> err("parity::krusell_smith::euler_error_field", 4, nk, nK);
  Kokkos::parallel_for(
      "parity::krusell_smith::euler_error_field",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>(space, {0, 0, 0}, {4, nk, nK}),
      KOKKOS_LAMBDA(int s, int i, int j) {
        err(s, i, j) =
            euler_error_at(m, axk, axK, g, cubic, s, euler_point(axk, i, midpoints), euler_point(axK, j, midpoints));
      });
  return err;
}

}  // namespace kernels

}  // namespace parity::krusell_smith::detail
