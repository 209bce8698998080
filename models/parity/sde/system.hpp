#pragma once
// What an SDE ensemble (ensemble.hpp) asks of a user's system, checked with readable messages, and
// the optional parts with their defaults. A system is a small copyable struct:
//
//   struct Gbm {                                   // dX = mu X dt + sigma X dW
//     using real_type = double;
//     static constexpr int dim = 1, noise_dim = 1;
//     double mu, sigma;
//     KOKKOS_FUNCTION void drift(sde::Tick const&, sde::State<Gbm> const& x, sde::State<Gbm>& f) const {
//       f[0] = mu * x[0];
//     }
//     KOKKOS_FUNCTION void noise(sde::Tick const&, sde::State<Gbm> const& x, sde::Noise<Gbm> const& dw,
//                                sde::State<Gbm>& g) const { g[0] = sigma * x[0] * dw[0]; }
//     KOKKOS_FUNCTION void initial(random::PhiloxStream<double>&, sde::State<Gbm>& x) const { x[0] = 1; }
//   };
//
// Required: real_type (float or double), dim >= 1 and noise_dim >= 1, drift, noise (g(x, t) dW,
// linear in the increments dW, which the integrator draws with variance dt) and initial. Optional:
// `static constexpr int wrapped` (a component kept modulo `period()`, which is then required;
// default none), `void set(int field, double value)` (needed only to sweep a parameter), `noisy`,
// `stratonovich` (default Ito), `period_steps()` (stepper.hpp), `time_averaged`
// (default none), `advance_min_blocks`, and an observable: `observed` with `observe()`
// (observables.hpp).
#include <Kokkos_Core.hpp>
#include <concepts>
#include <type_traits>

#include "parity/random/philox.hpp"
#include "parity/sde/observables.hpp"
#include "parity/sde/stepper.hpp"

namespace parity::sde {

// The component a system keeps modulo its period (System::wrapped), or -1 without one.
template <class System>
KOKKOS_INLINE_FUNCTION constexpr int wrapped_of() {
  if constexpr (requires { System::wrapped; })
    return int(System::wrapped);
  else
    return -1;
}

// Whether a system takes swept parameters (set(field, value)).
template <class System>
inline constexpr bool sweepable = requires(System& s, int field, double value) {
  s.set(field, value);
};

namespace detail {

template <class S>
concept system_shape = requires {
  typename S::real_type;
  { S::dim } -> std::convertible_to<int>;
  { S::noise_dim } -> std::convertible_to<int>;
};

template <class S>
concept system_precision = (std::is_same_v<typename S::real_type, float> ||
                            std::is_same_v<typename S::real_type, double>);

template <class S>
concept system_dims = S::dim >= 1 && S::noise_dim >= 1;

template <class S, class Real = typename S::real_type>
concept system_functions = requires(S const& s, Tick const& t, Kokkos::Array<Real, S::dim> const& x,
                                    Kokkos::Array<Real, S::dim>& f, Kokkos::Array<Real, S::noise_dim> const& dw,
                                    random::PhiloxStream<Real>& rng) {
  s.drift(t, x, f);
  s.noise(t, x, dw, f);
  s.initial(rng, f);
};

}  // namespace detail

// The requirements above as a concept, for constraining one's own templates; integrate() checks
// them with a message per requirement (detail::check_system).
template <class S>
concept EnsembleSystem = detail::system_shape<S> && detail::system_precision<S> && detail::system_dims<S> &&
    std::is_copy_constructible_v<S> && detail::system_functions<S>;

namespace detail {

template <class S>
constexpr bool check_system() {
  static_assert(
      requires { typename S::real_type; },
      "parity::sde: the system must declare its precision, `using real_type = float;` or double");
  if constexpr (requires { typename S::real_type; }) {
    using Real = typename S::real_type;
    static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>,
                  "parity::sde: the system's real_type must be float or double");
    static_assert(std::is_copy_constructible_v<S>,
                  "parity::sde: the system is copied into every kernel, so it must be copy-constructible "
                  "(plain values and Kokkos::Views)");
    static_assert(
        requires {
          { S::dim } -> std::convertible_to<int>;
          { S::noise_dim } -> std::convertible_to<int>;
        },
        "parity::sde: the system must declare `static constexpr int dim` (state components) and `static "
        "constexpr int noise_dim` (independent Wiener processes)");
    if constexpr (requires {
                    { S::dim } -> std::convertible_to<int>;
                    { S::noise_dim } -> std::convertible_to<int>;
                  }) {
      static_assert(S::dim >= 1 && S::noise_dim >= 1, "parity::sde: dim and noise_dim must be at least 1");
      using St = Kokkos::Array<Real, S::dim>;
      using No = Kokkos::Array<Real, S::noise_dim>;
      static_assert(
          requires(S const& s, Tick const& t, St const& x, St& f) { s.drift(t, x, f); },
          "parity::sde: the system must provide `KOKKOS_FUNCTION void drift(sde::Tick const& t, "
          "sde::State<System> const& x, sde::State<System>& f) const` (f = f(x, t))");
      static_assert(
          requires(S const& s, Tick const& t, St const& x, No const& dw, St& g) { s.noise(t, x, dw, g); },
          "parity::sde: the system must provide `KOKKOS_FUNCTION void noise(sde::Tick const& t, "
          "sde::State<System> const& x, sde::Noise<System> const& dW, sde::State<System>& g_dW) const` "
          "(g(x, t) dW for Wiener increments dW of variance dt)");
      static_assert(
          requires(S const& s, random::PhiloxStream<Real>& rng, St& x) { s.initial(rng, x); },
          "parity::sde: the system must provide `KOKKOS_FUNCTION void initial(random::PhiloxStream<real_type>& "
          "rng, sde::State<System>& x) const` (a path's initial state)");
      if constexpr (requires { S::observed; }) {
        static_assert(observed_of<S>() >= 1 && observed_of<S>() <= 16,
                      "parity::sde: System::observed (the components of the observable) must be in 1 .. 16");
        static_assert(
            requires(S const& s, Tick const& t, St const& x, Observed<S>& f) { s.observe(t, x, f); },
            "parity::sde: a system with `observed` must provide `KOKKOS_FUNCTION void observe(sde::Tick const& t, "
            "sde::State<System> const& x, sde::Observed<System>& f) const` (f = F(x, t), evaluated at every "
            "sample)");
      } else {
        static_assert(
            !requires { &S::observe; },
            "parity::sde: a system with observe() must declare `static constexpr int observed` (the number of "
            "components of its observable)");
      }
      if constexpr (wrapped_of<S>() >= 0) {
        static_assert(wrapped_of<S>() < S::dim, "parity::sde: System::wrapped must name a component below dim");
        static_assert(
            requires(S const& s) { s.period(); },
            "parity::sde: a system with a wrapped component must provide `KOKKOS_FUNCTION real_type "
            "period() const` (the component is kept modulo it)");
      }
      static_assert(EnsembleSystem<S>, "parity::sde: the system does not satisfy parity::sde::EnsembleSystem");
    }
  }
  return true;
}

}  // namespace detail
}  // namespace parity::sde
