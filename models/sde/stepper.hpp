#pragma once
// Fixed-step SDE steppers for dX = f(X, t) dt + g(X, t) dW with a state of a few components.
//
// A system is a small copyable struct (see ensemble.hpp for the whole contract):
//   using real_type = float | double;
//   static constexpr int dim;        // state components
//   static constexpr int noise_dim;  // independent Wiener processes
//   KOKKOS_FUNCTION void drift(Tick const& t, State const& x, State& f) const;           // f(x, t)
//   KOKKOS_FUNCTION void noise(Tick const& t, State const& x, Noise const& dW, State& gdw) const;  // g dW
//   KOKKOS_FUNCTION int period_steps() const;   // optional: steps per period of a periodic drive
//   static constexpr unsigned noisy;             // optional: bit k set = component k receives g dW
//                                                // (default all); the steppers add nothing to the
//                                                // others (x + 0 is not x for x = -0, so a compiler
//                                                // keeps the addition of a zero g dW)
// Time enters only as the integer step count t.step (time = step * dt) and, for a system with
// period_steps(), the step within the period t.phase, kept incrementally by the integrators (no
// 64-bit division per step): float runs do not lose the phase when t >> dt.
#include <Kokkos_Core.hpp>

namespace parity::sde {

enum class Stepper { euler_maruyama, srk2 };

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

// Euler-Maruyama: x += f(x, t) dt + g(x, t) dW. Weak order 1 (strong order 1 for additive noise).
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
  for (int k = 0; k < System::dim; ++k)
    x[k] += noisy<System>(k) ? (f0[k] + f1[k]) * half_dt + gdw[k] : (f0[k] + f1[k]) * half_dt;
}

template <Stepper S, class System>
KOKKOS_INLINE_FUNCTION void step_once(System const& s, Tick const& step, typename System::real_type dt,
                                      State<System>& x, Noise<System> const& dW) {
  if constexpr (S == Stepper::euler_maruyama)
    euler_maruyama_step(s, step, dt, x, dW);
  else
    srk2_step(s, step, dt, x, dW);
}

}  // namespace parity::sde
