#pragma once
// What the engine asks of a user's model, as a concept and as a check with readable messages.
//
//   struct Growth {
//     double alpha;
//     KOKKOS_FUNCTION double reward(double z, double k, double k_next) const {
//       double const c = z * Kokkos::pow(k, alpha) - k_next;
//       return c > 0 ? Kokkos::log(c) : -Kokkos::Experimental::infinity<double>::value;
//     }
//   };
//
// reward(z, k, k') is the per-period return of choosing k' in state (z, k), in the precision the
// engine runs at; an infeasible choice returns -infinity (it is never picked while a feasible one
// exists). The model is copied into every kernel: plain values and Kokkos::Views only.
#include <concepts>
#include <type_traits>

namespace parity::dp {

template <class M, class Real>
concept GridChoiceModel = std::is_copy_constructible_v<M> && requires(M const& m, Real z, Real k, Real k_next) {
  { m.reward(z, k, k_next) } -> std::convertible_to<Real>;
};

namespace detail {

template <class M, class Real>
constexpr bool check_grid_choice_model() {
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>,
                "parity::dp: Real (the precision) must be float or double");
  static_assert(
      requires(M const& m, Real z, Real k, Real k_next) { m.reward(z, k, k_next); },
      "parity::dp: the model must provide a const member "
      "`KOKKOS_FUNCTION Real reward(Real z, Real k, Real k_next) const` (the per-period return of "
      "choosing k_next in state (z, k); -infinity where infeasible)");
  static_assert(
      requires(M const& m, Real z, Real k, Real k_next) {
        { m.reward(z, k, k_next) } -> std::convertible_to<Real>;
      },
      "parity::dp: the model's reward(z, k, k_next) must return a value convertible to Real");
  static_assert(std::is_copy_constructible_v<M>,
                "parity::dp: the model is copied into every kernel, so it must be copy-constructible "
                "(hold plain values and Kokkos::Views, not host containers or references)");
  return GridChoiceModel<M, Real>;
}

// A finite-horizon model may let the reward depend on the period (age) t = 0 .. T-1:
// `KOKKOS_FUNCTION Real reward(int t, Real z, Real k, Real k_next) const` (a life-cycle income
// profile, a retirement age); a model with the three-argument reward works as well.
template <class M, class Real>
concept PeriodGridChoiceModel = std::is_copy_constructible_v<M> &&
    requires(M const& m, int t, Real z, Real k, Real k_next) {
  { m.reward(t, z, k, k_next) } -> std::convertible_to<Real>;
};

template <class M, class Real>
constexpr bool check_finite_horizon_model() {
  if constexpr (PeriodGridChoiceModel<M, Real>) {
    static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>,
                  "parity::dp: Real (the precision) must be float or double");
    return true;
  } else {
    return check_grid_choice_model<M, Real>();
  }
}

}  // namespace detail
}  // namespace parity::dp
