#pragma once
// Fixed-step SDE steppers for dX = f(X, t) dt + g(X, t) dW with a state of a few components.
//
// A system is a small copyable struct (see ensemble.hpp for the whole contract):
//   using real_type = float | double;
//   static constexpr int dim;        // state components
//   static constexpr int noise_dim;  // Wiener processes
//   KOKKOS_FUNCTION void drift(Tick const& t, State const& x, State& f) const;           // f(x, t)
//   KOKKOS_FUNCTION void noise(Tick const& t, State const& x, Noise const& dW, State& gdw) const;  // g dW
//   KOKKOS_FUNCTION int period_steps() const;   // optional: steps per period of a periodic drive
//   static constexpr unsigned noisy;             // optional: bit k set = component k receives g dW
//                                                // (default all); the steppers add nothing to the
//                                                // others (x + 0 is not x for x = -0, so a compiler
//                                                // keeps the addition of a zero g dW)
//   static constexpr bool stratonovich;          // optional: the SDE is read in Stratonovich's sense
//                                                // (default false: Ito's)
// dW holds Wiener increments of variance dt each (the integrators draw sqrt(dt) times a standard
// variate). noise() must be linear in dW, g(x, t) dW: the higher-order schemes read g's columns
// g e_j and combine them through noise() with other weight vectors.
//
// Schemes (orders for smooth coefficients; "commutative" noise: g's columns satisfy
// (g_i . grad) g_j = (g_j . grad) g_i, which holds for one Wiener process and for additive noise):
//   stepper          strong order                      weak order          g evaluations
//   euler_maruyama   1/2 (1 with additive noise)       1                   1
//   srk2             1/2 (1 additive or Stratonovich   1 (2 with additive  1 (2 Stratonovich)
//                    with commutative noise)           noise)
//   milstein         1 with commutative noise, else    1                   2 noise_dim (3
//                    1/2                                                   Stratonovich)
//   weak2            1 with commutative noise, else    2                   3 noise_dim
//                    1/2                                                   (5 noise_dim if noise_dim > 1)
// A Stratonovich system is integrated by srk2 (then Heun's scheme, which averages g dW at both
// ends of the step) or milstein (the Stratonovich form of the correction, dW^2 / 2 instead of
// (dW^2 - dt) / 2); the integrators refuse the two Ito-only schemes for it.
// Time enters only as the integer step count t.step (time = step * dt) and, for a system with
// period_steps(), the step within the period t.phase, kept incrementally by the integrators (no
// 64-bit division per step): float runs do not lose the phase when t >> dt.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace parity::sde {

enum class Stepper { euler_maruyama, srk2, milstein, weak2 };

// Time of a step: step count, step within the drive period (0 .. period - 1), period in steps
// (1 without a periodic drive).
struct Tick {
  long step = 0;
  int phase = 0, period = 1;
  KOKKOS_INLINE_FUNCTION Tick next() const { return {step + 1, phase + 1 == period ? 0 : phase + 1, period}; }
};

// Steps per drive period of a system (1 when it has none).
template <class System>
KOKKOS_INLINE_FUNCTION int period_steps(System const& s) {
  if constexpr (requires { s.period_steps(); })
    return s.period_steps();
  else
    return 1;
}

template <class System>
KOKKOS_INLINE_FUNCTION Tick tick_at(System const& s, long step) {
  int const p = period_steps(s);
  return {step, int(step % p), p};
}

// Whether component k receives noise (System::noisy, or all).
template <class System>
KOKKOS_INLINE_FUNCTION constexpr bool noisy(int k) {
  if constexpr (requires { System::noisy; })
    return ((System::noisy >> k) & 1u) != 0;
  else
    return true;
}

template <class System>
using State = Kokkos::Array<typename System::real_type, System::dim>;
template <class System>
using Noise = Kokkos::Array<typename System::real_type, System::noise_dim>;

// Whether a system is read in Stratonovich's sense (System::stratonovich; default Ito's).
template <class System>
KOKKOS_INLINE_FUNCTION constexpr bool is_stratonovich() {
  if constexpr (requires { System::stratonovich; })
    return bool(System::stratonovich);
  else
    return false;
}

// Whether a scheme converges to the solution of a system in its interpretation.
template <class System>
constexpr bool scheme_applies(Stepper s) {
  return !is_stratonovich<System>() || s == Stepper::srk2 || s == Stepper::milstein;
}

namespace detail {

// g(x, t) v, the components that receive no noise set to zero (a system may leave them unset).
template <class System>
KOKKOS_INLINE_FUNCTION void g_times(System const& s, Tick const& t, State<System> const& x, Noise<System> const& v,
                                    State<System>& out) {
  s.noise(t, x, v, out);
  for (int k = 0; k < System::dim; ++k)
    if (!noisy<System>(k)) out[k] = 0;
}

// Column j of g(x, t).
template <class System>
KOKKOS_INLINE_FUNCTION void g_column(System const& s, Tick const& t, State<System> const& x, int j,
                                     State<System>& out) {
  Noise<System> e;
  for (int q = 0; q < System::noise_dim; ++q) e[q] = q == j ? 1 : 0;
  g_times(s, t, x, e, out);
}

}  // namespace detail

// Number of the pair (lo, hi), lo < hi < n, in the order (0, 1), (0, 2), .., (1, 2), ..
KOKKOS_INLINE_FUNCTION constexpr int area_pair(int lo, int hi, int n) {
  return lo * n - lo * (lo + 1) / 2 + (hi - lo - 1);
}

// Euler-Maruyama: x += f(x, t) dt + g(x, t) dW (Ito).
template <class System>
KOKKOS_INLINE_FUNCTION void euler_maruyama_step(System const& s, Tick const& step, typename System::real_type dt,
                                                State<System>& x, Noise<System> const& dW) {
  State<System> f, gdw;
  s.drift(step, x, f);
  s.noise(step, x, dW, gdw);
  for (int k = 0; k < System::dim; ++k) x[k] += noisy<System>(k) ? f[k] * dt + gdw[k] : f[k] * dt;
}

// Second-order stochastic Runge-Kutta for additive noise (Heun type, as in Januszewski & Kostur
// 2010 and Honeycutt 1992): predictor x~ = x + f(x, t) dt + g dW, then
// x += (f(x, t) + f(x~, t + dt)) dt / 2 + g dW with the same dW. Weak order 2 and strong order 1
// for additive noise; with state-dependent g it stays a consistent Ito scheme of weak order 1.
// For a Stratonovich system the corrector also averages the noise, (g(x, t) + g(x~, t + dt)) dW / 2:
// Heun's scheme, strong order 1 for commutative noise.
template <class System>
KOKKOS_INLINE_FUNCTION void srk2_step(System const& s, Tick const& step, typename System::real_type dt,
                                      State<System>& x, Noise<System> const& dW) {
  using Real = typename System::real_type;
  State<System> f0, f1, gdw, xp;
  s.drift(step, x, f0);
  s.noise(step, x, dW, gdw);
  for (int k = 0; k < System::dim; ++k) xp[k] = noisy<System>(k) ? x[k] + f0[k] * dt + gdw[k] : x[k] + f0[k] * dt;
  s.drift(step.next(), xp, f1);
  Real const half_dt = Real(0.5) * dt;
  if constexpr (is_stratonovich<System>()) {
    State<System> gdw1;
    s.noise(step.next(), xp, dW, gdw1);
    for (int k = 0; k < System::dim; ++k)
      x[k] += noisy<System>(k) ? (f0[k] + f1[k]) * half_dt + Real(0.5) * (gdw[k] + gdw1[k]) : (f0[k] + f1[k]) * half_dt;
  } else {
    for (int k = 0; k < System::dim; ++k)
      x[k] += noisy<System>(k) ? (f0[k] + f1[k]) * half_dt + gdw[k] : (f0[k] + f1[k]) * half_dt;
  }
}

// Milstein's scheme in derivative-free (Runge-Kutta) form, Kloeden & Platen (1992), Sect. 11.1:
// x += f dt + sum_j g_j dW_j + sum_j1 D_j1(w_j1), where g_j are the columns of g at x and D_j(w)
// approximates sqrt(dt) ((g_j . grad) g) w by differences along g_j:
//   Ito:          D_j(w) = (g(Y_j) - g(x)) w / sqrt(dt),  Y_j = x + f dt + g_j sqrt(dt),
//                 w_j2 = (dW_j dW_j2 - dt [j = j2]) / 2;
//   Stratonovich: D_j(w) = (g(x + g_j sqrt(dt)) - g(x - g_j sqrt(dt))) w / (2 sqrt(dt)),
//                 w_j2 = dW_j dW_j2 / 2 (the weights do not have mean zero there, so the difference
//                 is central: a one-sided one would leave a bias of order sqrt(dt)).
// The sum approximates (1/2) sum (g_j1 . grad) g_j2 (dW_j1 dW_j2 - dt [j1 = j2]) (Ito), which is
// the double Wiener integrals' term only for commutative noise (no Levy areas are drawn): strong
// order 1 there, 1/2 otherwise. Costs 2 noise_dim evaluations of g (3 noise_dim, Stratonovich).
template <class System>
KOKKOS_INLINE_FUNCTION void milstein_step(System const& s, Tick const& step, typename System::real_type dt,
                                          State<System>& x, Noise<System> const& dW) {
  using Real = typename System::real_type;
  constexpr int dim = System::dim, nd = System::noise_dim;
  Real const sqrt_dt = Kokkos::sqrt(dt);
  State<System> f, corr;
  s.drift(step, x, f);
  State<System> col[nd];
  for (int j = 0; j < nd; ++j) detail::g_column(s, step, x, j, col[j]);
  for (int k = 0; k < dim; ++k) corr[k] = 0;
  for (int j1 = 0; j1 < nd; ++j1) {
    State<System> y, gp, gm;
    Noise<System> w;
    for (int j2 = 0; j2 < nd; ++j2) w[j2] = Real(0.5) * dW[j1] * dW[j2];
    if constexpr (is_stratonovich<System>()) {
      for (int k = 0; k < dim; ++k) y[k] = x[k] + col[j1][k] * sqrt_dt;
      detail::g_times(s, step, y, w, gp);
      for (int k = 0; k < dim; ++k) y[k] = x[k] - col[j1][k] * sqrt_dt;
      detail::g_times(s, step, y, w, gm);
      for (int k = 0; k < dim; ++k) corr[k] += Real(0.5) * (gp[k] - gm[k]);
    } else {
      w[j1] -= Real(0.5) * dt;
      for (int k = 0; k < dim; ++k) y[k] = x[k] + f[k] * dt + col[j1][k] * sqrt_dt;
      detail::g_times(s, step, y, w, gp);
      for (int k = 0; k < dim; ++k) {
        Real gw = 0;
        for (int j2 = 0; j2 < nd; ++j2) gw += col[j2][k] * w[j2];
        corr[k] += gp[k] - gw;
      }
    }
  }
  for (int k = 0; k < dim; ++k) {
    if (!noisy<System>(k)) {
      x[k] += f[k] * dt;
      continue;
    }
    Real gdw = 0;
    for (int j = 0; j < nd; ++j) gdw += col[j][k] * dW[j];
    x[k] += f[k] * dt + gdw + corr[k] / sqrt_dt;
  }
}

// Platen's explicit weak order 2 scheme (Kloeden & Platen 1992, eq. 15.1.3), Ito:
//   x += (f(x, t) + f(Yb, t + dt)) dt / 2
//      + 1/4 sum_j [(g_j(R+_j) + g_j(R-_j) + 2 g_j) dW_j + (g_j(R+_j) - g_j(R-_j)) (dW_j^2 - dt) / sqrt(dt)]
//      + 1/4 sum_j sum_{r != j} [(g_j(U+_r) + g_j(U-_r) - 2 g_j) dW_j
//                                + (g_j(U+_r) - g_j(U-_r)) (dW_j dW_r + V_rj) / sqrt(dt)]
// with Yb = x + f dt + g dW, R+-_j = x + f dt +- g_j sqrt(dt) (g at t + dt there, which carries g's
// time derivative), U+-_r = x +- g_r sqrt(dt), and V_rj = -V_jr = +-dt with equal probability for
// r < j (`area_signs` bit p of the pair's number p, see area_pair): the weak stand-in for the Levy
// areas. Weak order 2 for multiplicative, non-commutative noise; with commutative noise the V terms
// of a pair cancel and Milstein's term remains, hence strong order 1 there. Weighted sums through
// noise() (it is linear in its weights) cost 3 noise_dim evaluations of g plus 2 noise_dim for the U
// points (noise_dim > 1).
template <class System>
KOKKOS_INLINE_FUNCTION void weak2_step(System const& s, Tick const& step, typename System::real_type dt,
                                       State<System>& x, Noise<System> const& dW, std::uint64_t area_signs = 0) {
  using Real = typename System::real_type;
  constexpr int dim = System::dim, nd = System::noise_dim;
  static_assert(nd * (nd - 1) / 2 <= 64, "parity::sde: weak2 draws one sign per pair of Wiener processes, at most 64");
  Real const sqrt_dt = Kokkos::sqrt(dt), quarter = Real(0.25);
  State<System> f0, f1, xe, acc;
  s.drift(step, x, f0);
  State<System> col[nd];
  for (int j = 0; j < nd; ++j) detail::g_column(s, step, x, j, col[j]);
  for (int k = 0; k < dim; ++k) {
    Real gdw = 0;
    for (int j = 0; j < nd; ++j) gdw += col[j][k] * dW[j];
    xe[k] = x[k] + f0[k] * dt;
    acc[k] = xe[k] + gdw;  // Yb for now
  }
  s.drift(step.next(), acc, f1);
  for (int k = 0; k < dim; ++k) acc[k] = 0;
  Tick const next = step.next();
  for (int j = 0; j < nd; ++j) {
    State<System> r, gp, gm;
    Noise<System> v;
    for (int q = 0; q < nd; ++q) v[q] = 0;
    Real const c = (dW[j] * dW[j] - dt) / sqrt_dt;
    for (int k = 0; k < dim; ++k) r[k] = xe[k] + col[j][k] * sqrt_dt;
    v[j] = quarter * (dW[j] + c);
    detail::g_times(s, next, r, v, gp);
    for (int k = 0; k < dim; ++k) r[k] = xe[k] - col[j][k] * sqrt_dt;
    v[j] = quarter * (dW[j] - c);
    detail::g_times(s, next, r, v, gm);
    for (int k = 0; k < dim; ++k) acc[k] += gp[k] + gm[k] + Real(0.5) * col[j][k] * dW[j];
  }
  if constexpr (nd > 1) {
    for (int r = 0; r < nd; ++r) {
      State<System> u, gp, gm;
      Noise<System> vp, vm;
      for (int j = 0; j < nd; ++j) {
        if (j == r) {
          vp[j] = vm[j] = 0;
          continue;
        }
        int const lo = j < r ? j : r, hi = j < r ? r : j;
        bool const plus = ((area_signs >> area_pair(lo, hi, nd)) & 1u) != 0;
        Real const v = (plus == (r < j)) ? dt : -dt;  // V_rj, antisymmetric
        Real const c = (dW[j] * dW[r] + v) / sqrt_dt;
        vp[j] = quarter * (dW[j] + c);
        vm[j] = quarter * (dW[j] - c);
      }
      for (int k = 0; k < dim; ++k) u[k] = x[k] + col[r][k] * sqrt_dt;
      detail::g_times(s, step, u, vp, gp);
      for (int k = 0; k < dim; ++k) u[k] = x[k] - col[r][k] * sqrt_dt;
      detail::g_times(s, step, u, vm, gm);
      for (int k = 0; k < dim; ++k) {
        Real gdw = 0;
        for (int j = 0; j < nd; ++j)
          if (j != r) gdw += col[j][k] * dW[j];
        acc[k] += gp[k] + gm[k] - Real(0.5) * gdw;
      }
    }
  }
  Real const half_dt = Real(0.5) * dt;
  for (int k = 0; k < dim; ++k)
    x[k] += noisy<System>(k) ? (f0[k] + f1[k]) * half_dt + acc[k] : (f0[k] + f1[k]) * half_dt;
}

// One step of scheme S. `area_signs`: weak2's random signs for pairs of Wiener processes (unused by
// the others and with one Wiener process).
template <Stepper S, class System>
KOKKOS_INLINE_FUNCTION void step_once(System const& s, Tick const& step, typename System::real_type dt,
                                      State<System>& x, Noise<System> const& dW, std::uint64_t area_signs = 0) {
  static_assert(scheme_applies<System>(S),
                "parity::sde: Euler-Maruyama and weak2 are Ito schemes; integrate a Stratonovich system with "
                "srk2 (Heun) or milstein");
  if constexpr (S == Stepper::euler_maruyama)
    euler_maruyama_step(s, step, dt, x, dW);
  else if constexpr (S == Stepper::srk2)
    srk2_step(s, step, dt, x, dW);
  else if constexpr (S == Stepper::milstein)
    milstein_step(s, step, dt, x, dW);
  else
    weak2_step(s, step, dt, x, dW, area_signs);
}

}  // namespace parity::sde
