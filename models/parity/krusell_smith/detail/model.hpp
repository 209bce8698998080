#pragma once
// Krusell-Smith model constants as the kernels see them (Model), the Philox streams of the
// shocks, and the device functions every stage shares: marginal utility, the perceived law of
// motion, the policy read off the grid and the Euler equation's expected marginal return.
#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>

#include "parity/interp/catmull_rom.hpp"
#include "parity/interp/multilinear.hpp"
#include "parity/krusell_smith/calibration.hpp"
#include "parity/krusell_smith/params.hpp"

namespace parity::krusell_smith::detail {

// Philox streams: the aggregate path uses one stream, agent i uses agent_stream_base + i.
inline constexpr std::uint64_t aggregate_stream = 0x4b535a70ull;  // "KSZp"
inline constexpr std::uint64_t agent_stream_base = 1ull << 40;
// A restart's cross-section is shuffled with streams restart_stream and restart_stream + 1.
inline constexpr std::uint64_t restart_stream = 0x4b535273ull;  // "KSRs"

// Constants the kernels need, copied by value into them.
template <class Real>
struct Model {
  Real beta, gamma, alpha, delta, l_bar, mu, k_min;
  Real z[2], u[2];
  Real P[4][4];
  Real b0[2], b1[2];
};

template <class Real>
Model<Real> make_model(Params const& p, Chain const& c, std::array<double, 4> const& b) {
  Model<Real> m{};
  m.beta = Real(p.beta), m.gamma = Real(p.gamma), m.alpha = Real(p.alpha), m.delta = Real(p.delta);
  m.l_bar = Real(p.l_bar), m.mu = Real(p.mu), m.k_min = Real(p.k_min);
  m.z[0] = Real(p.z_good), m.z[1] = Real(p.z_bad);
  m.u[0] = Real(c.u[0]), m.u[1] = Real(c.u[1]);
  for (int s = 0; s < 4; ++s)
    for (int t = 0; t < 4; ++t) m.P[s][t] = Real(c.P[s][t]);
  m.b0[0] = Real(b[0]), m.b1[0] = Real(b[1]), m.b0[1] = Real(b[2]), m.b1[1] = Real(b[3]);
  return m;
}

namespace kernels {

template <class Real>
KOKKOS_INLINE_FUNCTION Real marginal_utility(Real c, Real gamma) {
  return gamma == Real(1) ? Real(1) / c : Kokkos::pow(c, -gamma);
}

template <class Real>
KOKKOS_INLINE_FUNCTION Real inverse_marginal_utility(Real m, Real gamma) {
  return gamma == Real(1) ? Real(1) / m : Kokkos::pow(m, -Real(1) / gamma);
}

template <class Real>
KOKKOS_INLINE_FUNCTION Real next_K(Model<Real> const& m, int z, Real K) {
  return Kokkos::exp(m.b0[z] + m.b1[z] * Kokkos::log(K));
}

// g(node i of k, K) for state s: interpolation in K only.
template <class Axis, class G, class Real>
KOKKOS_INLINE_FUNCTION Real policy_at_node(Axis const& axK, G const& g, int s, int i, Real K, bool cubic) {
  auto row = Kokkos::subview(g, s, i, Kokkos::ALL);
  return cubic ? interp::catmull_rom(axK, row, K) : interp::linear(axK, row, K);
}

// g(k, K) for state s: 2-D interpolation.
template <class Axis, class G, class Real>
KOKKOS_INLINE_FUNCTION Real policy_at(Axis const& axk, Axis const& axK, G const& g, int s, Real k, Real K, bool cubic) {
  auto plane = Kokkos::subview(g, s, Kokkos::ALL, Kokkos::ALL);
  return cubic ? interp::catmull_rom(axk, axK, plane, k, K) : interp::bilinear(axk, axK, plane, k, K);
}

// The Euler equation's right-hand side without beta: E[(1 - delta + r') u'(c')] for an agent in
// state s who saves kp when aggregate capital is K. next_policy(sn, Kn) is next period's saving
// in state sn; callers differ only in how they read it off the policy.
template <class Real, class NextPolicy>
KOKKOS_INLINE_FUNCTION Real expected_marginal_return(Model<Real> const& m, int s, Real K, Real kp,
                                                     NextPolicy const& next_policy) {
  Real const Kn = next_K(m, s / 2, K);
  Real rhs = 0;
  for (int zn = 0; zn < 2; ++zn) {
    auto const prn = prices(m.alpha, m.l_bar, m.mu, m.z[zn], m.u[zn], Kn);
    Real const R = 1 - m.delta + prn.r;
    for (int en = 0; en < 2; ++en) {
      int const sn = 2 * zn + en;
      Real cn = income(prn, m.delta, m.l_bar, m.mu, en, kp) - next_policy(sn, Kn);
      cn = cn > Real(1e-10) ? cn : Real(1e-10);
      rhs += m.P[s][sn] * R * marginal_utility(cn, m.gamma);
    }
  }
  return rhs;
}

// What a policy update can move at node k by rounding alone: k' = cash - c with cash ~ (1 + r) k + w,
// so a few ulps of k + 4. A change within it is no change (float: 8e-5 at k = 40, 2e-3 at k = 1000;
// double: 4e-12 at most, far below --policy-tol).
template <class Real>
KOKKOS_INLINE_FUNCTION Real rounding_allowance(Real k) {
  return Real(16) * Kokkos::Experimental::epsilon_v<Real> * (Kokkos::abs(k) + Real(4));
}

}  // namespace kernels

}  // namespace parity::krusell_smith::detail
