#pragma once
// The dual-control problem on the device (solver.hpp): parameters, axes, quadrature rule, the
// expected loss and continuation value at a state and control.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "parity/dual_control/params.hpp"
#include "parity/grid/axis.hpp"
#include "parity/grid/spacing.hpp"
#include "parity/interp/multilinear.hpp"
#include "parity/quadrature/gauss_hermite.hpp"

namespace parity::dual_control::detail {

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
  // The same rule by decreasing weight, and after each of its nodes the weight of those after it.
  quadrature::DeviceGaussHermite<Real, MemorySpace> gh_by_weight;
  Kokkos::View<const Real*, MemorySpace> weight_after;

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

  // The objective at a Sigma kink, the u where Sigma' is the Sigma node k: E V is bilinear on that
  // node's slice. Every interpolated V is at least vmin, so after the quadrature nodes taken so far
  // (by decreasing weight) the loss plus delta (their sum + vmin times the weight left) bounds the
  // value from below: false as soon as that reaches `bound` (the value cannot be below it), else
  // true with the value. Most kinks fail after a few of the heaviest nodes.
  template <class Values>
  KOKKOS_INLINE_FUNCTION bool objective_at_sigma_node(Values const& v, Real x, Real mu, Real S, Real u, int k,
                                                      Real bound, Real& value) const {
    Real const s = Kokkos::sqrt(u * u * S + sig2);
    Real const m = alpha + mu * u + gamma * x;
    Real const gain = S * u / s;
    Real const l = loss(x, mu, S, u);
    Real sum = 0;
    int const n = gh_by_weight.size();
    for (int q = 0; q < n; ++q) {
      Real const z = gh_by_weight.nodes(q);
      auto const p = ax.locate(m + s * z);
      auto const pm = amu.locate(mu + gain * z);
      int const i = p.cell, j = pm.cell;
      Real const c0 = v(i, j, k) + pm.t * (v(i, j + 1, k) - v(i, j, k));
      Real const c1 = v(i + 1, j, k) + pm.t * (v(i + 1, j + 1, k) - v(i + 1, j, k));
      sum += gh_by_weight.weights(q) * (c0 + p.t * (c1 - c0));
      if (l + delta * (sum + weight_after(q) * vmin) >= bound) return false;
    }
    value = l + delta * sum;
    return true;
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
  auto const rule = quadrature::gauss_hermite(p.quad_nodes);
  pr.gh = quadrature::to_device<Real, MemorySpace>(rule);
  auto by_weight = rule;
  std::vector<int> order(rule.nodes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rule.weights[a] > rule.weights[b]; });
  std::vector<double> after(order.size());
  double left = 0;  // summed from the lightest node up: the smallest roundings
  for (std::size_t q = order.size(); q-- > 0;) {
    by_weight.nodes[q] = rule.nodes[order[q]];
    by_weight.weights[q] = rule.weights[order[q]];
    after[q] = left;
    left += rule.weights[order[q]];
  }
  pr.gh_by_weight = quadrature::to_device<Real, MemorySpace>(by_weight);
  Kokkos::View<Real*, MemorySpace> weight_after("parity::dual_control::weight_after", after.size());
  auto weight_after_host = Kokkos::create_mirror_view(weight_after);
  for (std::size_t q = 0; q < after.size(); ++q) weight_after_host(q) = Real(after[q]);
  Kokkos::deep_copy(weight_after, weight_after_host);
  pr.weight_after = weight_after;
  return pr;
}

}  // namespace parity::dual_control::detail
