#pragma once
// Krusell-Smith algorithm with every stage on the device:
//   policy      Euler-equation iteration (endogenous grid points) for k' = g(k, K, z, eps) given
//               the perceived law ln K' = b0(z) + b1(z) ln K; one thread per grid point.
//   shocks      aggregate path from the Markov chain (Philox); employment bit-packed (one bit per
//               agent-period), unemployment exactly at its target each period (see below).
//   panel       per period one pass over the agents: k' by Catmull-Rom (or bilinear) interpolation
//               of g, with the cross-sectional mean fused into the same kernel as a reduction.
//   regression  OLS of ln K' on ln K per aggregate state (host: the path is only T long), damped
//               update of the coefficients until they move less than the tolerance.
//
// Employment shocks with exact unemployment. Given z_{t-1}, z_t and the U_{t-1} unemployed of
// the previous period, the target is U_t = round(u(z_t) N). Of the unemployed, exactly
// m_U = round(pi_{00|z z'} U_{t-1}) stay unemployed, and exactly m_E = U_t - m_U of the employed
// lose their job. Within each group the ones chosen are those with the smallest 64-bit Philox keys
// (keyed by seed, agent, period): the ranks of i.i.d. keys are a uniformly random order, so each
// group's choice is a uniformly random subset of the exact size (the JEDC suite's "draw, then
// adjust to the exact number", done in one step). The m-th smallest key is found by an 8-pass
// radix select (256-bin histograms), so the draw is the same on every backend.
//
// Next-period capital of the agents. At period t every agent sees the same K_t and z_t, so the
// interpolant in K is evaluated once per k node (a small kernel) and each agent then interpolates
// in k only: for tensor-product schemes (bilinear, bicubic Catmull-Rom) this is exactly the 2-D
// interpolant, at a quarter of the memory traffic per agent.
#include <Kokkos_Core.hpp>
#include <Kokkos_Graph.hpp>
#include <Kokkos_ScatterView.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "models/krusell_smith/calibration.hpp"
#include "models/krusell_smith/params.hpp"
#include "models/krusell_smith/result.hpp"
#include "parity/grid/axis.hpp"
#include "parity/grid/root_guess.hpp"
#include "parity/grid/spacing.hpp"
#include "parity/interp/catmull_rom.hpp"
#include "parity/interp/multilinear.hpp"
#include "parity/random/philox.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/run/resident_teams.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::krusell_smith {

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
  using Policy3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;
  Kokkos::parallel_for(
      "parity::krusell_smith::endogenous_grid", Policy3(space, {0, 0, 0}, {4, nk, nK}),
      KOKKOS_LAMBDA(int s, int i, int j) {
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
      "parity::krusell_smith::policy_update", Policy3(space, {0, 0, 0}, {4, nk, nK}),
      KOKKOS_LAMBDA(int s, int mm, int j, Real& err) {
        Real const k = axk.node(mm);
        Real gnew;
        if (k <= k_endo(s, 0, j)) {
          gnew = m.k_min;
        } else {
          int lo = 0, hi = nk - 1;  // last i with k_endo(i) <= k, in [0, nk - 2]
          while (hi - lo > 1) {
            int const mid = (lo + hi) / 2;
            if (k_endo(s, mid, j) <= k) lo = mid;
            else hi = mid;
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
Real time_iteration_update(ExecSpace const& space, Model<Real> const& m, Axis const& axk, Axis const& axK,
                           G const& g, G const& g_new, bool cubic, Real weight, Real k_max) {
  int const nk = axk.size(), nK = axK.size();
  using Policy3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;
  Real change = 0;
  Kokkos::parallel_reduce(
      "parity::krusell_smith::time_iteration", Policy3(space, {0, 0, 0}, {4, nk, nK}),
      KOKKOS_LAMBDA(int s, int i, int j, Real& err) {
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

// Euler-equation errors |1 - c_euler / c| at the points (k, K) = (node or midpoint) for k <= k_cap.
// At the constraint (g = k_min) only a wish to save more counts as an error.
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
        int const z = s / 2, e = s % 2;
        Real const k = midpoints ? Real(0.5) * (axk.node(i) + axk.node(i + 1)) : axk.node(i);
        Real const K = midpoints ? Real(0.5) * (axK.node(j) + axK.node(j + 1)) : axK.node(j);
        if (k > k_cap) return;
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
        err = Kokkos::abs(err);
        lmax = err > lmax ? err : lmax;
        lsum += err;
        lcount += 1;
      },
      Kokkos::Max<double>(mx), sum, count);
  max_err = mx;
  mean_err = count > 0 ? sum / double(count) : 0.0;
}

KOKKOS_INLINE_FUNCTION int popcount32(std::uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return int((x * 0x01010101u) >> 24);
}

KOKKOS_INLINE_FUNCTION std::uint64_t agent_key(std::uint64_t seed, std::int64_t i, int t) {
  auto const b = random::philox_block(seed, agent_stream_base + std::uint64_t(i), std::uint64_t(t));
  return (std::uint64_t(b.v[0]) << 32) | b.v[1];
}

}  // namespace kernels

// Bit-packed employment: bit (t, i) of words[t * nwords + i / 32] is 1 when agent i is employed.
template <class MemSpace>
struct Employment {
  Kokkos::View<std::uint32_t*, MemSpace> words;
  long agents = 0, nwords = 0;
  int periods = 0;
};

// Aggregate path z_0..z_{T-1} (0 good, 1 bad) from the Markov chain; z_0 from the stationary
// distribution (1/2, 1/2 for symmetric durations).
inline std::vector<std::int32_t> aggregate_path(Params const& p, Chain const& c) {
  std::vector<std::int32_t> z(p.periods);
  auto uniform = [&](long t) {
    auto const b = random::philox_block(p.seed, aggregate_stream, std::uint64_t(t));
    return random::uniform_double(b.v[0], b.v[1]);
  };
  double const pi_good = c.pz[1][0] / (c.pz[0][1] + c.pz[1][0]);
  z[0] = uniform(0) < pi_good ? 0 : 1;
  for (int t = 1; t < p.periods; ++t) z[t] = uniform(t) < c.pz[z[t - 1]][z[t - 1]] ? z[t - 1] : 1 - z[t - 1];
  return z;
}

// Employment of every agent in every period, unemployment exactly round(u(z_t) N) each period.
template <class ExecSpace>
Employment<typename ExecSpace::memory_space> generate_employment(ExecSpace const& space, Params const& p,
                                                                 Chain const& c,
                                                                 std::vector<std::int32_t> const& z) {
  using Mem = typename ExecSpace::memory_space;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  Employment<Mem> emp;
  long const N = p.agents;
  int const T = p.periods;
  emp.agents = N;
  emp.periods = T;
  emp.nwords = (N + 31) / 32;
  long const nwords = emp.nwords;
  emp.words = Kokkos::View<std::uint32_t*, Mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::employment_bits"), std::size_t(T) * nwords);
  auto words = emp.words;
  Kokkos::View<long**, Mem> hist("parity::krusell_smith::radix_histogram", 2, 256);
  auto hist_h = Kokkos::create_mirror_view(hist);
  auto scatter = Kokkos::Experimental::create_scatter_view(hist);
  std::uint64_t const seed = p.seed;
  long U_prev = 0;
  for (int t = 0; t < T; ++t) {
    long const U = std::lround(c.u[z[t]] * double(N));
    long target[2];  // group 0: unemployed (or everybody at t = 0), group 1: employed
    long size[2];
    if (t == 0) {
      target[0] = U, target[1] = 0, size[0] = N, size[1] = 0;
    } else {
      long mU = std::lround(c.p00[z[t - 1]][z[t]] * double(U_prev));
      mU = std::min(mU, std::min(U_prev, U));
      mU = std::max(mU, U - (N - U_prev));
      target[0] = mU, target[1] = U - mU, size[0] = U_prev, size[1] = N - U_prev;
    }
    U_prev = U;
    long const prev_offset = t == 0 ? -1 : long(t - 1) * nwords;
    // Radix select of each group's target-th smallest key: keys below it are selected. A level
    // whose chosen bin starts exactly at the target ends the search (the lower bits stay 0).
    std::uint64_t threshold[2] = {0, 0};
    bool all[2], active[2], resolved[2] = {false, false};
    long remaining[2];
    for (int gi = 0; gi < 2; ++gi) {
      all[gi] = target[gi] >= size[gi] && size[gi] > 0;
      active[gi] = target[gi] > 0 && target[gi] < size[gi];
      remaining[gi] = target[gi];
    }
    bool const select = p.employment_draw == EmploymentDraw::exact;
    if (!select) {
      // Each agent on its own: unemployed with P(u -> u) or P(e -> u) for z_{t-1} -> z_t (u(z_0)
      // at t = 0) when its key's top 53 bits as a uniform x = (key >> 11) 2^-53 fall below it,
      // i.e. key < ceil(pu 2^53) 2^11: a fixed threshold per group, no select.
      double const pu[2] = {t == 0 ? c.u[z[0]] : c.p00[z[t - 1]][z[t]], t == 0 ? c.u[z[0]] : c.p10[z[t - 1]][z[t]]};
      for (int gi = 0; gi < 2; ++gi) {
        all[gi] = pu[gi] >= 1;
        active[gi] = pu[gi] > 0 && pu[gi] < 1;
        threshold[gi] = active[gi] ? std::uint64_t(std::ceil(std::ldexp(pu[gi], 53))) << 11 : 0;
      }
    }
    for (int level = 0; select && level < 8 && (active[0] || active[1]); ++level) {
      Kokkos::deep_copy(space, hist, 0L);
      scatter.reset();
      int const shift = 56 - 8 * level;
      std::uint64_t const prefix0 = threshold[0], prefix1 = threshold[1];
      bool const act0 = active[0], act1 = active[1];
      Kokkos::parallel_for(
          "parity::krusell_smith::radix_histogram", Range(space, 0, N), KOKKOS_LAMBDA(std::int64_t i) {
            int const grp = prev_offset < 0 ? 0 : int((words(prev_offset + i / 32) >> (i % 32)) & 1u);
            if (grp == 0 ? !act0 : !act1) return;
            std::uint64_t const key = kernels::agent_key(seed, i, t);
            if (level > 0 && (key >> (shift + 8)) != (grp == 0 ? prefix0 : prefix1)) return;
            auto access = scatter.access();
            access(grp, int((key >> shift) & 255u)) += 1;
          });
      Kokkos::Experimental::contribute(hist, scatter);
      Kokkos::deep_copy(space, hist_h, hist);
      space.fence("parity::krusell_smith::radix_histogram_copy");
      for (int gi = 0; gi < 2; ++gi) {
        if (!active[gi]) continue;
        long cum = 0;
        int bin = 255;
        for (int b = 0; b < 256; ++b) {
          if (remaining[gi] < cum + hist_h(gi, b)) {
            bin = b;
            break;
          }
          cum += hist_h(gi, b);
        }
        remaining[gi] -= cum;
        threshold[gi] = (threshold[gi] << 8) | std::uint64_t(bin);
        if (remaining[gi] == 0) {  // the target-th key is the first of its bin: done
          threshold[gi] <<= 8 * (7 - level);
          active[gi] = false;
          resolved[gi] = true;
        }
      }
    }
    for (int gi = 0; gi < 2; ++gi) active[gi] = active[gi] || resolved[gi];
    // Write this period's bits, one thread per 32-agent word.
    std::uint64_t const th0 = threshold[0], th1 = threshold[1];
    bool const all0 = all[0], all1 = all[1], act0 = active[0], act1 = active[1];
    long const offset = long(t) * nwords;
    Kokkos::parallel_for(
        "parity::krusell_smith::employment_write", Range(space, 0, nwords), KOKKOS_LAMBDA(std::int64_t w) {
          std::uint32_t const prev = prev_offset < 0 ? 0u : words(prev_offset + w);
          std::uint32_t word = 0;
          for (int b = 0; b < 32; ++b) {
            std::int64_t const i = w * 32 + b;
            if (i >= N) break;
            int const grp = prev_offset < 0 ? 0 : int((prev >> b) & 1u);
            std::uint64_t const key = kernels::agent_key(seed, i, t);
            bool const selected = grp == 0 ? (all0 || (act0 && key < th0)) : (all1 || (act1 && key < th1));
            if (!selected) word |= (1u << b);  // selected agents are unemployed
          }
          words(offset + w) = word;
        });
  }
  space.fence("parity::krusell_smith::employment_done");
  return emp;
}

// Per period: unemployed count, and transitions (u->u, from u, e->u, from e) from t-1 to t.
template <class ExecSpace, class Mem>
Kokkos::View<long**, Kokkos::LayoutRight, Kokkos::HostSpace> employment_counts(ExecSpace const& space,
                                                                          Employment<Mem> const& emp) {
  int const T = emp.periods;
  long const nwords = emp.nwords, N = emp.agents;
  auto words = emp.words;
  Kokkos::View<long**, Kokkos::LayoutRight, Mem> counts("parity::krusell_smith::employment_counts", T, 5);
  Kokkos::parallel_for(
      "parity::krusell_smith::employment_counts", Kokkos::RangePolicy<ExecSpace>(space, 0, T), KOKKOS_LAMBDA(int t) {
        long unemployed = 0, uu = 0, u = 0, eu = 0, e = 0;
        for (long w = 0; w < nwords; ++w) {
          long const valid = N - w * 32 < 32 ? N - w * 32 : 32;
          std::uint32_t const mask = valid == 32 ? 0xffffffffu : ((1u << valid) - 1u);
          std::uint32_t const cu = ~words(long(t) * nwords + w) & mask;
          unemployed += kernels::popcount32(cu);
          if (t > 0) {
            std::uint32_t const pu = ~words(long(t - 1) * nwords + w) & mask;
            uu += kernels::popcount32(pu & cu);
            u += kernels::popcount32(pu);
            eu += kernels::popcount32(~pu & mask & cu);
            e += kernels::popcount32(~pu & mask);
          }
        }
        counts(t, 0) = unemployed, counts(t, 1) = uu, counts(t, 2) = u, counts(t, 3) = eu, counts(t, 4) = e;
      });
  Kokkos::View<long**, Kokkos::LayoutRight, Kokkos::HostSpace> h("parity::krusell_smith::employment_counts_host", T, 5);
  Kokkos::deep_copy(h, counts);
  return h;
}

// Panel simulation for T periods from every agent at initial_capital, giving K_0..K_T (the
// cross-sectional means) on the device. Per period: a K-slice of g at (K_t, z_t) (2 x nk cubics),
// then one pass over the agents with the mean fused in as a reduction.
//
// The 2T + 1 kernels are the same every outer iteration (only g's values change), so by default
// they are recorded once as a Kokkos graph and the whole simulation is one graph launch (on CUDA a
// CUDA graph: no per-kernel launch latency, which dominates below ~10^6 agents; on host backends
// the nodes run in order as plain kernels). `--panel-launch kernels` launches them one by one.
namespace kernels {

// One k cell's cubic at (K_t, z_t) for one employment state, with the cell's two nodes: an agent
// of the `power` panel step reads this one aligned record (one or two cache sectors) instead of
// the axis nodes and four separately stored coefficients.
template <class Real>
struct alignas(8 * sizeof(Real)) CellCubic {
  Real x0, x1;  // the cell [x0, x1]
  Real a[4];    // k'(x) = a0 + a1 t + a2 t^2 + a3 t^3, t = (x - x0) / (x1 - x0)
  Real pad[2];
};

// Cubic coefficients, per employment state e and k cell i, of the policy interpolated at K_t.
// The K stencil is built once per thread (every node of the slice shares K_t); in k the cell is
// known, so the cubic is written down from the Hermite form of the Catmull-Rom interpolant (node
// values and the three-point slopes of core/parity/interp/catmull_rom.hpp), or the line of the
// linear one: exactly the 2-D tensor-product interpolant restricted to K = K_t, up to rounding.
template <class Axis, class G, class Real, class Mem>
struct PolicySlice {
  Axis axk, axK;
  G g;
  Kokkos::View<Real***, Mem> coef;          // bucket step: coef(e, i, q)
  Kokkos::View<CellCubic<Real>*, Mem> rec;  // power step: rec(e * (nk - 1) + i)
  Kokkos::View<double, Mem> sum;
  Kokkos::View<double*, Mem> K_path;
  double invN;
  int t, zt;
  bool cubic, records;
  KOKKOS_FUNCTION void operator()(int e, int i) const {
    double const Kt = sum() * invN;
    if (e == 0 && i == 0) K_path(t) = Kt;
    int const s = 2 * zt + e;
    int const nk = axk.size();
    // The policy at k node j, interpolated in K at K_t.
    interp::Stencil4<Real> wK{0, 0, {Real(0), Real(0), Real(0), Real(0)}};
    grid::CellPosition<Real> qK{0, Real(0)};
    if (cubic) wK = interp::catmull_rom_stencil(axK, Real(Kt));
    else qK = axK.locate(Real(Kt));
    auto value = [&](int j) {
      if (!cubic) return g(s, j, qK.cell) + qK.t * (g(s, j, qK.cell + 1) - g(s, j, qK.cell));
      Real v = 0;
      for (int b = 0; b < wK.count; ++b) v += wK.w[b] * g(s, j, wK.start + b);
      return v;
    };
    Real a[4] = {Real(0), Real(0), Real(0), Real(0)};
    Real const y0 = value(i), y1 = value(i + 1);
    if (!cubic) {
      a[0] = y0, a[1] = y1 - y0;
    } else {
      int start = i - 1;  // the stencil of cell i (nk >= 4)
      start = start < 0 ? 0 : (start > nk - 4 ? nk - 4 : start);
      Real y[4];
      for (int q = 0; q < 4; ++q) y[q] = q + start == i ? y0 : (q + start == i + 1 ? y1 : value(start + q));
      Real const h = axk.node(i + 1) - axk.node(i);
      Real w0[4] = {Real(0), Real(0), Real(0), Real(0)}, w1[4] = {Real(0), Real(0), Real(0), Real(0)};
      interp::detail::add_slope(axk, i, h, start, w0);  // h * slope at node i
      interp::detail::add_slope(axk, i + 1, h, start, w1);
      Real m0 = 0, m1 = 0;
      for (int q = 0; q < 4; ++q) m0 += w0[q] * y[q], m1 += w1[q] * y[q];
      a[0] = y0;
      a[1] = m0;
      a[2] = 3 * (y1 - y0) - 2 * m0 - m1;
      a[3] = 2 * (y0 - y1) + m0 + m1;
    }
    if (records) {
      CellCubic<Real> r{};
      r.x0 = axk.node(i), r.x1 = axk.node(i + 1);
      for (int q = 0; q < 4; ++q) r.a[q] = a[q];
      rec(long(e) * (nk - 1) + i) = r;
    } else {
      for (int q = 0; q < 4; ++q) coef(e, i, q) = a[q];
    }
  }
};

// One period for every agent: k' from its cell's cubic, the sum of k' reduced. The cell comes
// from the axis (bucket table, then binary search among the nodes the bucket spans).
template <class Axis, class Real, class Mem>
struct PanelStep {
  Axis axk;
  Kokkos::View<std::uint32_t*, Mem> words;
  Kokkos::View<Real***, Mem> coef;
  Kokkos::View<Real*, Mem> k;
  long offset;
  Real k_min;
  KOKKOS_FUNCTION void operator()(std::int64_t i, double& acc) const {
    int const e = int((words(offset + i / 32) >> (i % 32)) & 1u);
    auto const pos = axk.locate(k(i));
    Real const tt = pos.t;
    Real kp = coef(e, pos.cell, 0) + tt * (coef(e, pos.cell, 1) + tt * (coef(e, pos.cell, 2) + tt * coef(e, pos.cell, 3)));
    kp = kp > k_min ? kp : k_min;
    k(i) = kp;
    acc += double(kp);
  }
};

// The same step with the cell found in closed form: the k nodes are lo + (hi - lo) s^p with s
// uniform, so the cell is floor((n - 1) ((x - lo) / (hi - lo))^(1/p)), computed in float and then
// corrected against the record's own nodes (at most a step or two). The cell, t and the cubic
// are those of PanelStep, so the results are identical.
template <class Real, class Mem>
struct PanelStepPower {
  Kokkos::View<std::uint32_t*, Mem> words;
  Kokkos::View<CellCubic<Real>*, Mem> rec;
  Kokkos::View<Real*, Mem> k;
  long offset;
  Real k_min, lo, hi, inv_range;
  float inv_power;
  int cells;
  KOKKOS_FUNCTION int employment(std::int64_t i) const { return int((words(offset + i / 32) >> (i % 32)) & 1u); }
  KOKKOS_FUNCTION Real clamp(Real x) const { return x < lo ? lo : (x > hi ? hi : x); }
  // The closed-form cell of a clamped x, before the correction against the nodes: u^(1/p) by
  // grid::approximate_root (within 0.03 % at p = 7, a fraction of a cell; fewer instructions than
  // libm's exp2/log2, though the H200 panel times did not move: 0.153 / 0.077 s either way).
  KOKKOS_FUNCTION int cell_guess(Real x) const {
    int const c = int(grid::approximate_root(float((x - lo) * inv_range), inv_power) * float(cells));
    return c < 0 ? 0 : (c > cells - 1 ? cells - 1 : c);
  }
  // k' from the cell's cubic a at t, kept at or above k_min.
  KOKKOS_FUNCTION Real next_capital(Real const (&a)[4], Real t) const {
    Real const kp = a[0] + t * (a[1] + t * (a[2] + t * a[3]));
    return kp > k_min ? kp : k_min;
  }
  KOKKOS_FUNCTION void operator()(std::int64_t i, double& acc) const {
    Real const x = clamp(k(i));
    int c = cell_guess(x);
    long const base = long(employment(i)) * cells;
    CellCubic<Real> r = rec(base + c);
    while (c > 0 && x < r.x0) r = rec(base + --c);
    while (c < cells - 1 && x >= r.x1) r = rec(base + ++c);
    Real const kp = next_capital(r.a, (x - r.x0) / (r.x1 - r.x0));
    k(i) = kp;
    acc += double(kp);
  }
};

// PanelStepPower with the period's records in team scratch memory (PanelLocate::scratch). A team
// copies the 2 (nk - 1) cubics and the nk nodes once, then steps a contiguous chunk of agents:
// the same cell, t and cubic as PanelStepPower, so the same k'; the sum is reduced per team.
// Each thread loads the capital and employment of Unroll agents (a team size apart, so every
// load is coalesced) before it steps any of them: Unroll independent loads in flight per thread,
// which the step needs to cover memory latency with one wave of teams (Little's law). On the H200
// (10^7 agents, 500x50, double) Unroll 2 took the panel from 0.118 s to 0.099 s; 4 and 8 took
// 0.139 and 0.116 s: 58 and 78 registers instead of 48, fewer teams per multiprocessor.
// On a GPU the team is max_team threads and the launch bounds hold min_teams teams per
// multiprocessor by registers (48 in double, 32 in float at Unroll 2), so the league of one full
// wave (run::resident_teams) is known.
#ifndef PARITY_KS_PANEL_UNROLL
#define PARITY_KS_PANEL_UNROLL 2
#endif
template <class ExecSpace, class Real, int Unroll = PARITY_KS_PANEL_UNROLL>
struct PanelStepScratch {
  static_assert(Unroll >= 1);
  static constexpr unsigned max_team = 256, min_teams = sizeof(Real) == 8 ? 5 : 8;
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<max_team, min_teams>>;
  using Mem = typename ExecSpace::memory_space;
  using Member = typename Policy::member_type;
  struct alignas(4 * sizeof(Real)) Cubic {  // one vector load on a GPU
    Real a[4];
  };
  template <class T>
  using ScratchView = Kokkos::View<T, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  PanelStepPower<Real, Mem> power;  // the data and the per-agent arithmetic
  long agents, chunk;  // agents per team: team league_rank steps [rank chunk, (rank + 1) chunk)

  static std::size_t scratch_bytes(int cells) {
    return sizeof(Cubic) * std::size_t(2 * cells) + sizeof(Real) * std::size_t(cells + 1) + 2 * alignof(Cubic);
  }

  KOKKOS_FUNCTION void operator()(Member const& team, double& acc) const {
    auto const& rec = power.rec;
    int const cells = power.cells;
    auto& scratch = team.team_scratch(0);
    ScratchView<Cubic*> cubic(static_cast<Cubic*>(scratch.get_shmem_aligned(sizeof(Cubic) * 2 * cells, alignof(Cubic))),
                              2 * cells);
    ScratchView<Real*> node(static_cast<Real*>(scratch.get_shmem_aligned(sizeof(Real) * (cells + 1), alignof(Cubic))),
                            cells + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * cells), [&](int j) {
      for (int q = 0; q < 4; ++q) cubic(j).a[q] = rec(j).a[q];
      if (j < cells) node(j) = rec(j).x0;  // both employment states' records share the nodes
      if (j == cells - 1) node(cells) = rec(j).x1;
    });
    team.team_barrier();
    long const begin = long(team.league_rank()) * chunk;
    long const end = begin + chunk < agents ? begin + chunk : agents;
    long const stride = team.team_size();
    double part = 0;
    // Thread r steps agents begin + r + stride (Unroll q + u), u = 0..Unroll-1, for q = 0, 1, ...
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, team.team_size()),
        [&](int r, double& sum) {
          for (long first = begin + r; first < end; first += Unroll * stride) {
            Real x[Unroll];
            int e[Unroll];
            for (int u = 0; u < Unroll; ++u) {
              long const i = first + u * stride;
              x[u] = i < end ? power.k(i) : power.lo;
              e[u] = i < end ? power.employment(i) : 0;
            }
            for (int u = 0; u < Unroll; ++u) {
              long const i = first + u * stride;
              if (i >= end) break;
              Real const xu = power.clamp(x[u]);
              int c = power.cell_guess(xu);
              while (c > 0 && xu < node(c)) --c;
              while (c < cells - 1 && xu >= node(c + 1)) ++c;
              Cubic const rc = cubic(long(e[u]) * cells + c);
              Real const kp = power.next_capital(rc.a, (xu - node(c)) / (node(c + 1) - node(c)));
              power.k(i) = kp;
              sum += double(kp);
            }
          }
        },
        part);
    Kokkos::single(Kokkos::PerTeam(team), [&] { acc += part; });
  }
};

template <class Mem>
struct LastMean {
  Kokkos::View<double, Mem> sum;
  Kokkos::View<double*, Mem> K_path;
  double invN;
  int T;
  KOKKOS_FUNCTION void operator()(int) const { K_path(T) = sum() * invN; }
};

}  // namespace kernels

template <class ExecSpace, class Real, class Axis>
class PanelSimulation {
 public:
  using Mem = typename ExecSpace::memory_space;
  using G = Kokkos::View<Real***, Mem>;

  PanelSimulation(ExecSpace const& space, Params const& p, Axis const& axk, Axis const& axK, Employment<Mem> const& emp,
                  std::vector<std::int32_t> const& z, Kokkos::View<Real*, Mem> const& k)
      : space_(space),
        N_(p.agents),
        T_(p.periods),
        initial_capital_(p.initial_capital),
        g_("parity::krusell_smith::policy_for_panel", 4, axk.size(), axK.size()),
        coef_("parity::krusell_smith::policy_slice", 2, axk.size() - 1, 4),
        rec_("parity::krusell_smith::policy_slice_records", 2 * (axk.size() - 1)),
        sum_("parity::krusell_smith::capital_sum"),
        K_path_("parity::krusell_smith::K_path", p.periods + 1),
        k_(k),
        locate_(p.panel_locate) {
    double const invN = 1.0 / double(N_);
    bool const cubic = p.interp == Interp::catmull_rom;
    int const cells = axk.size() - 1;
    using Scratch = kernels::PanelStepScratch<ExecSpace, Real>;
    bool const gpu = run::resident_teams(space_, 1, 0) > 0;  // the backend counts resident teams: a GPU
    if (locate_ == PanelLocate::automatic)
      locate_ = gpu && std::is_same_v<Real, double> ? PanelLocate::scratch : PanelLocate::power;
    if (locate_ == PanelLocate::scratch && Scratch::Policy::scratch_size_max(0) < int(Scratch::scratch_bytes(cells)))
      locate_ = PanelLocate::power;  // the records do not fit a team's scratch: same k' from global memory
    bool const records = locate_ != PanelLocate::bucket;
    // The k axis is the power grid of solve(): nodes lo + (hi - lo) s^k_power.
    Real const lo = Real(p.k_min), hi = Real(p.k_max);
    if (locate_ == PanelLocate::scratch) {
      // A team copies the records once for `chunk` agents, at least 16 per thread, so on a GPU the
      // copies cost a fraction of the agents' bytes. Teams split the agents statically, so the
      // league is one full wave where the backend says how many teams it holds at once
      // (run::resident_teams, at most the launch bounds' teams per multiprocessor; on the H200 in
      // double 5: 660 teams took 0.119 s per panel before the unrolled loads, 792 teams 0.175 s for
      // their second, mostly idle wave, 1,056 teams 0.152 s); on hosts (team size 1) about one
      // chunk per thread. --panel-teams overrides the league.
      typename Scratch::Policy probe(space_, 1, Kokkos::AUTO);
      probe.set_scratch_size(0, Kokkos::PerTeam(Scratch::scratch_bytes(cells)));
      Scratch const f{{emp.words, rec_, k_, 0, Real(p.k_min), lo, hi, Real(1) / (hi - lo), float(1.0 / p.k_power), cells},
                      N_, 1};
      team_size_ = gpu ? int(Scratch::max_team) : probe.team_size_recommended(f, Kokkos::ParallelReduceTag());
      long const wave = run::resident_teams(space_, team_size_, Scratch::scratch_bytes(cells),
                                            int(Scratch::max_team * Scratch::min_teams) / team_size_);
      long const threads = std::max<long>(1, long(space_.concurrency()));
      long const per_thread = std::max<long>(16, (N_ + threads - 1) / threads);
      long const min_chunk = 16L * team_size_;
      if (p.panel_teams > 0)
        chunk_ = std::max<long>(1, (N_ + p.panel_teams - 1) / p.panel_teams);
      else if (wave > 0)
        chunk_ = std::max<long>(min_chunk, (N_ + wave - 1) / wave);
      else
        chunk_ = std::max<long>(1, per_thread * team_size_);
      league_ = int((N_ + chunk_ - 1) / chunk_);
    }
    slices_.reserve(T_);
    for (int t = 0; t < T_; ++t) {
      slices_.push_back({axk, axK, g_, coef_, rec_, sum_, K_path_, invN, t, z[t], cubic, records});
      long const offset = long(t) * emp.nwords;
      kernels::PanelStepPower<Real, Mem> const power{emp.words, rec_, k_, offset, Real(p.k_min), lo, hi,
                                                     Real(1) / (hi - lo), float(1.0 / p.k_power), cells};
      if (locate_ == PanelLocate::power)
        power_steps_.push_back(power);
      else if (locate_ == PanelLocate::scratch)
        scratch_steps_.push_back({power, N_, chunk_});
      else
        steps_.push_back({axk, emp.words, coef_, k_, offset, Real(p.k_min)});
    }
    last_ = {sum_, K_path_, invN, T_};
    if (p.panel_launch == PanelLaunch::graph) {
      graph_ = Kokkos::Experimental::create_graph<ExecSpace>([&](auto root) {
        Kokkos::Experimental::GraphNodeRef<ExecSpace> node = root;  // type-erased: reassigned below
        enqueue([&](auto const& label, auto const& policy, auto const& f) { node = node.then_parallel_for(label, policy, f); },
                [&](auto const& label, auto const& policy, auto const& f, auto const& result) {
                  node = node.then_parallel_reduce(label, policy, f, result);
                });
      });
      graph_->instantiate();  // here, so the first simulation's time is the launch alone
    }
  }

  PanelLocate locate() const { return locate_; }

  // Every simulation starts from this cross-section (one capital per agent, their sum) instead
  // of every agent at initial_capital (a restart).
  void set_initial(Kokkos::View<Real*, Mem> const& k0, double sum) {
    k0_ = k0;
    k0_sum_ = sum;
  }

  // The next simulations start from this one's final cross-section (MMV's MAIN.m: "we use the
  // terminal distribution of the current iteration as initial distribution for a subsequent
  // iteration"), so the panel's distribution is drawn from the ergodic set rather than from a
  // point mass that 100 discarded periods do not wash out. Agents keep their capital; their
  // employment in period 0 is the shocks', as in MMV.
  void carry_final_state() {
    if (carried_.extent(0) == 0)
      carried_ = Kokkos::View<Real*, Mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::capital_carried"), N_);
    Kokkos::deep_copy(space_, carried_, k_);
    double sum = 0;
    Kokkos::deep_copy(space_, sum, sum_);  // the last period's reduction: the sum of k_T
    space_.fence("parity::krusell_smith::carry_final_state");
    set_initial(carried_, sum);
  }

  // Simulates the panel under policy g; returns K_0..K_T on the device (valid once space fences).
  Kokkos::View<double*, Mem> run(G const& g) {
    Kokkos::deep_copy(space_, g_, g);
    if (k0_.extent(0) > 0) {
      Kokkos::deep_copy(space_, k_, k0_);
      Kokkos::deep_copy(space_, sum_, k0_sum_);
    } else {
      Kokkos::deep_copy(space_, k_, Real(initial_capital_));
      Kokkos::deep_copy(space_, sum_, double(initial_capital_) * double(N_));
    }
    if (graph_) {
      graph_->submit(space_);
    } else {
      enqueue([](auto const& label, auto const& policy, auto const& f) { Kokkos::parallel_for(label, policy, f); },
              [](auto const& label, auto const& policy, auto const& f, auto const& result) {
                Kokkos::parallel_reduce(label, policy, f, result);
              });
    }
    return K_path_;
  }

 private:
  // The simulation's kernels in order, handed to a launcher: recorded into the graph or run now.
  template <class ForKernel, class ReduceKernel>
  void enqueue(ForKernel&& for_kernel, ReduceKernel&& reduce_kernel) const {
    using AgentRange = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
    using SliceRange = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    long const cells = long(coef_.extent(1));
    for (int t = 0; t < T_; ++t) {
      for_kernel(std::string("parity::krusell_smith::policy_slice"), SliceRange(space_, {0, 0}, {2, cells}), slices_[t]);
      if (locate_ == PanelLocate::power)
        reduce_kernel(std::string("parity::krusell_smith::panel_step"), AgentRange(space_, 0, N_), power_steps_[t], sum_);
      else if (locate_ == PanelLocate::scratch)
        reduce_kernel(std::string("parity::krusell_smith::panel_step_scratch"),
                      typename kernels::PanelStepScratch<ExecSpace, Real>::Policy(space_, league_, team_size_)
                          .set_scratch_size(0, Kokkos::PerTeam(kernels::PanelStepScratch<ExecSpace, Real>::scratch_bytes(
                                                   int(rec_.extent(0) / 2)))),
                      scratch_steps_[t], sum_);
      else
        reduce_kernel(std::string("parity::krusell_smith::panel_step_bucket"), AgentRange(space_, 0, N_), steps_[t],
                      sum_);
    }
    for_kernel(std::string("parity::krusell_smith::K_last"), Kokkos::RangePolicy<ExecSpace>(space_, 0, 1), last_);
  }

  ExecSpace space_;
  long N_;
  int T_;
  double initial_capital_;
  G g_;
  Kokkos::View<Real***, Mem> coef_;
  Kokkos::View<kernels::CellCubic<Real>*, Mem> rec_;
  Kokkos::View<double, Mem> sum_;
  Kokkos::View<double*, Mem> K_path_;
  Kokkos::View<Real*, Mem> k_;
  Kokkos::View<Real*, Mem> k0_;  // the initial cross-section of a restart; empty: initial_capital
  double k0_sum_ = 0;
  Kokkos::View<Real*, Mem> carried_;  // carry_final_state's copy of k_T
  PanelLocate locate_;
  int team_size_ = 1, league_ = 1;  // scratch: the team policy
  long chunk_ = 1;
  std::vector<kernels::PolicySlice<Axis, G, Real, Mem>> slices_;
  std::vector<kernels::PanelStep<Axis, Real, Mem>> steps_;
  std::vector<kernels::PanelStepPower<Real, Mem>> power_steps_;
  std::vector<kernels::PanelStepScratch<ExecSpace, Real>> scratch_steps_;
  kernels::LastMean<Mem> last_;
  std::optional<Kokkos::Experimental::Graph<ExecSpace>> graph_;
};

// OLS of ln K_{t+1} on ln K_t over t in [discard, T) for each aggregate state.
struct Regression {
  std::array<double, 4> b{};
  std::array<double, 2> r2{}, se{};
};

inline Regression regress(std::vector<double> const& K, std::vector<std::int32_t> const& z, int discard) {
  Regression reg;
  int const T = int(z.size());
  for (int s = 0; s < 2; ++s) {
    double n = 0, sx = 0, sy = 0;
    for (int t = discard; t < T; ++t)
      if (z[t] == s) n += 1, sx += std::log(K[t]), sy += std::log(K[t + 1]);
    require(n >= 3, "the simulated path has fewer than 3 periods in one aggregate state: use more --periods");
    double const mx = sx / n, my = sy / n;
    double sxx = 0, sxy = 0, syy = 0;
    for (int t = discard; t < T; ++t)
      if (z[t] == s) {
        double const dx = std::log(K[t]) - mx, dy = std::log(K[t + 1]) - my;
        sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
      }
    double const b1 = sxx > 0 ? sxy / sxx : 1.0;
    double const b0 = my - b1 * mx;
    double ssr = 0;
    for (int t = discard; t < T; ++t)
      if (z[t] == s) {
        double const res = std::log(K[t + 1]) - b0 - b1 * std::log(K[t]);
        ssr += res * res;
      }
    reg.b[2 * s] = b0, reg.b[2 * s + 1] = b1;
    reg.r2[s] = syy > 0 ? 1 - ssr / syy : 1.0;
    reg.se[s] = std::sqrt(ssr / std::max(1.0, n - 2));
  }
  return reg;
}

// Den Haan (2010): the law of motion iterated on its own from K_0 along the z path.
inline std::vector<double> dynamic_law_of_motion(std::array<double, 4> const& b, std::vector<std::int32_t> const& z,
                                                 double K0) {
  std::vector<double> K(z.size() + 1);
  K[0] = K0;
  for (std::size_t t = 0; t < z.size(); ++t) K[t + 1] = std::exp(b[2 * z[t]] + b[2 * z[t] + 1] * std::log(K[t]));
  return K;
}

// A restart's cross-section as period 0 of this run's panel. The saved agents have capital k_T
// and their employment in T - 1 (aggregate state z_prev); this run's shocks already fix who is
// unemployed in period 0. As the exact draw would from the saved employment, exactly
// m = round(pi00(z_prev -> z_0) U_prev) of the period-0 unemployed take the capital of a
// previously unemployed agent and the rest of them that of a previously employed one; the
// employed take the remaining capitals. Within each group the saved agents are taken in a
// uniformly random order (Philox Fisher-Yates keyed by the seed), so the pairs (capital,
// employment) are those the chain gives and the capitals are the saved ones, each used once.
// employed0[i]: agent i employed in period 0 of this run. Host code, once per solve.
inline std::vector<double> restart_cross_section(Params const& p, Chain const& c, int z0,
                                                 std::vector<std::int32_t> const& employed0) {
  auto const& st = p.start;
  std::size_t const N = st.capital.size();
  require(employed0.size() == N && st.employed.size() == N,
          "restart: the saved cross-section and this run's panel differ in size");
  std::vector<std::size_t> from_u, from_e;  // saved agents, by their employment in T - 1
  for (std::size_t j = 0; j < N; ++j) (st.employed[j] ? from_e : from_u).push_back(j);
  auto shuffle = [&](std::vector<std::size_t>& v, std::uint64_t stream) {
    for (std::size_t i = v.size(); i > 1; --i) {
      auto const b = random::philox_block(p.seed, stream, std::uint64_t(i));
      auto const j = std::min(std::size_t(random::uniform_double(b.v[0], b.v[1]) * double(i)), i - 1);
      std::swap(v[i - 1], v[j]);
    }
  };
  shuffle(from_u, restart_stream);
  shuffle(from_e, restart_stream + 1);
  long const U_prev = long(from_u.size());
  long U = 0;
  for (auto e : employed0) U += e ? 0 : 1;
  long m = std::lround(c.p00[st.z_prev][z0] * double(U_prev));
  m = std::min(m, std::min(U_prev, U));
  m = std::max(m, U - (long(N) - U_prev));
  // Unemployed in period 0 take from_u[0, m) then from_e[0, U - m); the employed the rest.
  std::size_t next_u_for_u = 0, next_e_for_u = 0;
  std::size_t next_u_for_e = std::size_t(m), next_e_for_e = std::size_t(U - m);
  std::vector<double> k(N);
  for (std::size_t i = 0; i < N; ++i) {
    std::size_t j;
    if (!employed0[i]) j = next_u_for_u < std::size_t(m) ? from_u[next_u_for_u++] : from_e[next_e_for_u++];
    else j = next_u_for_e < from_u.size() ? from_u[next_u_for_e++] : from_e[next_e_for_e++];
    k[i] = st.capital[j];
  }
  return k;
}

template <class ExecutionSpace, class Real>
Result solve(ExecutionSpace const& space, Params const& p, run::Progress& progress, run::PhaseTimes& phases) {
  validate(p);
  using Mem = typename ExecutionSpace::memory_space;
  using Axis = grid::Axis<Real, Mem>;
  Kokkos::Timer clock;
  Result res;
  Chain const chain = build_chain(p);
  for (int s = 0; s < 4; ++s)
    for (int t = 0; t < 4; ++t) res.transition[4 * s + t] = chain.P[s][t];

  auto const k_nodes = grid::power_nodes(p.k_min, p.k_max, p.nk, p.k_power);
  auto const K_nodes = grid::uniform_nodes(p.K_min, p.K_max, p.nK);
  Axis const axk("krusell_smith_k", k_nodes), axK("krusell_smith_K", K_nodes);
  int const nk = p.nk, nK = p.nK;
  bool const cubic = p.interp == Interp::catmull_rom;

  // Policy views g(s, i, j), s = 2 z + e; initial guess: save 90% of k, or a restart's policy
  // (policy.npy's layout, (nk, nK, z, e)).
  Kokkos::View<Real***, Mem> g("parity::krusell_smith::policy", 4, nk, nK);
  Kokkos::View<Real***, Mem> g_new("parity::krusell_smith::policy_next", 4, nk, nK);
  Kokkos::View<Real***, Mem> k_endo("parity::krusell_smith::k_endogenous", 4, nk, nK);
  {
    auto gh = Kokkos::create_mirror_view(g);
    auto const& g0 = p.start.policy;
    for (int s = 0; s < 4; ++s)
      for (int i = 0; i < nk; ++i)
        for (int j = 0; j < nK; ++j)
          gh(s, i, j) = g0.empty() ? Real(0.9 * k_nodes[i]) : Real(g0[(std::size_t(i) * nK + j) * 4 + s]);
    Kokkos::deep_copy(g, gh);
  }
  // The updates measure changes beyond each node's rounding_allowance, so --policy-tol holds in
  // float too (a floor of 8 eps k_max = 1e-3 here once stopped float solves after one Euler sweep
  // per outer iteration, and the outer loop crept: 166 iterations against double's 23).
  Real const policy_tol = Real(p.policy_tol);

  std::vector<std::int32_t> z;
  Employment<Mem> emp;
  {
    timing::ScopedPhase phase(space, phases, "shocks");
    z = aggregate_path(p, chain);
    emp = generate_employment(space, p, chain, z);
  }
  res.z_path = z;

  Kokkos::View<Real*, Mem> k_agents(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::capital"),
                                    p.agents);
  auto panel = [&] {
    timing::ScopedPhase phase(space, phases, "panel_setup");
    return PanelSimulation<ExecutionSpace, Real, Axis>(space, p, axk, axK, emp, z, k_agents);
  }();
  res.panel_locate = to_string(panel.locate());
  Kokkos::View<Real*, Mem> k_start;  // a restart's cross-section, matched to period 0's employment
  if (!p.start.capital.empty()) {
    timing::ScopedPhase phase(space, phases, "panel_setup");
    auto words0 = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), Kokkos::subview(emp.words, Kokkos::make_pair(0L, emp.nwords)));
    std::vector<std::int32_t> employed0(p.agents);
    for (long i = 0; i < p.agents; ++i) employed0[i] = std::int32_t((words0(i / 32) >> (i % 32)) & 1u);
    auto const k0 = restart_cross_section(p, chain, z[0], employed0);
    k_start = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "parity::krusell_smith::capital_start"),
                                       p.agents);
    auto k_start_h = Kokkos::create_mirror_view(k_start);
    double sum = 0;
    for (long i = 0; i < p.agents; ++i) sum += double(k_start_h(i) = Real(k0[i]));
    Kokkos::deep_copy(k_start, k_start_h);
    panel.set_initial(k_start, sum);
  }
  std::array<double, 4> b = p.init_coeffs;
  std::vector<double> K_host;
  Regression reg;
  double last_diff = 0.0;  // the first policy is solved to full precision (restarts need it)
  long simulated_periods = 0;
  for (int it = 1; it <= p.max_iter; ++it) {
    Model<Real> const model = make_model<Real>(p, chain, b);
    int policy_it = 0;
    Real change = 0;
    // Later outer iterations far from the fixed point need a less exact policy: 1e-3 of the last
    // coefficient change.
    Real const tol_it = std::max(policy_tol, Real(1e-3 * last_diff));
    {
      timing::ScopedPhase phase(space, phases, "policy");
      do {
        change = p.policy_method == PolicyMethod::time_iteration
                     ? kernels::time_iteration_update(space, model, axk, axK, g, g_new, cubic,
                                                      Real(p.policy_damping), Real(p.k_max))
                     : kernels::euler_update(space, model, axk, axK, g, g_new, k_endo, cubic);
        std::swap(g, g_new);
        ++policy_it;
      } while (change > tol_it && policy_it < p.policy_max_iter);
    }
    res.policy_iterations_total += policy_it;
    res.policy_iterations_last = policy_it;
    if (it == 1) res.policy_iterations_first = policy_it;
    {
      timing::ScopedPhase phase(space, phases, "panel");
      auto K_dev = panel.run(g);
      auto K_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), K_dev);
      K_host.assign(K_h.data(), K_h.data() + K_h.size());
    }
    double diff = 0;
    {
      timing::ScopedPhase phase(space, phases, "regression");
      reg = regress(K_host, z, p.discard);
      for (int q = 0; q < 4; ++q) diff = std::max(diff, std::abs(reg.b[q] - b[q]));
    }
    // MMV carry the distribution until the coefficients move less than 100 x the tolerance and
    // then hold the start fixed, so the last iterations solve one fixed problem. A solve that
    // starts near the fixed point (a restart, good --init-coeffs) would carry too little, so the
    // carry also goes on until the panel has run --burn-in periods in all.
    simulated_periods += p.periods;
    if (p.panel_start == PanelStart::carry && (diff > 100 * p.tol || simulated_periods < p.burn_in)) {
      panel.carry_final_state();
      ++res.panel_carries;
    }
    res.iterations = it;
    res.coeff_change = diff;
    res.coeffs = b;  // the law the agents perceived for this policy and panel
    res.r_squared = reg.r2;
    res.regression_se = reg.se;
    char line[256];
    std::snprintf(line, sizeof line, "b_good=(%.6f, %.6f) b_bad=(%.6f, %.6f) policy its %d, mean K %.4f", b[0], b[1],
                  b[2], b[3], policy_it, K_host.back());
    progress.update({"law of motion", it, diff, clock.seconds(), line});
    last_diff = diff;
    if (!std::isfinite(diff)) break;
    if (diff < p.tol) {
      res.converged = true;
      res.coeff_history.push_back(b);
      break;
    }
    for (int q = 0; q < 4; ++q) b[q] = p.damping * reg.b[q] + (1 - p.damping) * b[q];
    res.coeff_history.push_back(b);
  }

  {
    timing::ScopedPhase phase(space, phases, "accuracy");
    Model<Real> const model = make_model<Real>(p, chain, res.coeffs);
    res.euler_k_cap = std::min(p.k_max, 5.0 * p.K_max);
    kernels::euler_errors(space, model, axk, axK, g, cubic, false, Real(res.euler_k_cap), res.euler_on_max,
                          res.euler_on_mean);
    kernels::euler_errors(space, model, axk, axK, g, cubic, true, Real(res.euler_k_cap), res.euler_off_max,
                          res.euler_off_mean);
    res.K_path = K_host;
    res.K_alm = dynamic_law_of_motion(res.coeffs, z, K_host[0]);
    double mx = 0, sum = 0;
    int n = 0;
    for (int t = p.discard; t <= p.periods; ++t) {
      double const e = 100.0 * std::abs(std::log(res.K_alm[t]) - std::log(K_host[t]));
      mx = std::max(mx, e), sum += e, ++n;
    }
    res.den_haan_max_pct = mx;
    res.den_haan_mean_pct = sum / n;

    // Shocks: exactness of the unemployment targets and the empirical transition frequencies.
    auto counts = employment_counts(space, emp);
    double uu[2][2] = {{0, 0}, {0, 0}}, u0[2][2] = {{0, 0}, {0, 0}};
    double n_u[2] = {0, 0}, n_t[2] = {0, 0};
    long dev = 0;
    for (int t = 0; t < p.periods; ++t) {
      long const target = std::lround(chain.u[z[t]] * double(p.agents));
      dev = std::max(dev, std::labs(counts(t, 0) - target));
      n_u[z[t]] += double(counts(t, 0)), n_t[z[t]] += double(p.agents);
      if (t > 0) {
        uu[z[t - 1]][z[t]] += double(counts(t, 1));
        u0[z[t - 1]][z[t]] += double(counts(t, 2));
      }
    }
    res.unemployment_max_deviation = dev;
    res.unemployment_rate_good = n_t[0] > 0 ? n_u[0] / n_t[0] : 0;
    res.unemployment_rate_bad = n_t[1] > 0 ? n_u[1] / n_t[1] : 0;
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 2; ++c) res.p00_empirical[2 * a + c] = u0[a][c] > 0 ? uu[a][c] / u0[a][c] : -1;

    // Final cross-section (a sample of at most 100,000 agents) and its employment in period T-1.
    long const sample = std::min<long>(p.agents, 100000);
    auto k_sample = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), Kokkos::subview(k_agents, Kokkos::make_pair(0L, sample)));
    res.k_final.assign(k_sample.data(), k_sample.data() + sample);
    long const nwords = emp.nwords;
    auto w_sample = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(),
        Kokkos::subview(emp.words, Kokkos::make_pair(long(p.periods - 1) * nwords, long(p.periods - 1) * nwords +
                                                                                        (sample + 31) / 32)));
    res.employed_final.resize(sample);
    for (long i = 0; i < sample; ++i) res.employed_final[i] = std::int32_t((w_sample(i / 32) >> (i % 32)) & 1u);
    double kmin = 0;
    Kokkos::parallel_reduce(
        "parity::krusell_smith::capital_min", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space, 0, p.agents),
        KOKKOS_LAMBDA(std::int64_t i, double& m) {
          double const v = double(k_agents(i));
          m = v < m ? v : m;
        },
        Kokkos::Min<double>(kmin));
    res.k_final_min = kmin;
    double ksum = 0;
    for (double v : res.k_final) ksum += v;
    res.k_final_mean = ksum / double(sample);

    auto gh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g);
    res.policy.resize(std::size_t(nk) * nK * 4);
    for (int i = 0; i < nk; ++i)
      for (int j = 0; j < nK; ++j)
        for (int s = 0; s < 4; ++s) res.policy[(std::size_t(i) * nK + j) * 4 + s] = double(gh(s, i, j));
    res.k_grid = k_nodes;
    res.K_grid = K_nodes;
  }
  return res;
}

}  // namespace parity::krusell_smith
