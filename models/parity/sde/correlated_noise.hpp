#pragma once
// Correlated Wiener processes: a constant correlation matrix C (noise_dim x noise_dim) for the
// increments dW, E[dW_i dW_j] = C_ij dt. The host factors C = L L^T once (Cholesky); the kernels
// draw independent increments dZ and integrate the system with g L in place of g, so every scheme
// sees independent Wiener processes (its columns are g L e_j, its weighted sums g (L w)) and the
// system's noise() receives the correlated increments L dZ. A semi-definite C (perfectly correlated
// processes) factors with zero columns.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"
#include "parity/sde/stepper.hpp"

namespace parity::sde {

// The lower-triangular factor L of C = L L^T (row-major n x n, as C), or InvalidInput when C is not
// a symmetric positive semi-definite matrix with unit diagonal.
inline std::vector<double> cholesky_factor(std::vector<double> const& c, int n) {
  require(int(c.size()) == n * n, "sde: the noise correlation must have noise_dim^2 = " + std::to_string(n * n) +
                                      " entries, got " + std::to_string(c.size()));
  double const tol = 1e-12;
  for (int i = 0; i < n; ++i) {
    require(std::abs(c[i * n + i] - 1) <= tol, "sde: the noise correlation must have a unit diagonal");
    for (int j = 0; j < i; ++j)
      require(std::abs(c[i * n + j] - c[j * n + i]) <= tol && std::abs(c[i * n + j]) <= 1 + tol,
              "sde: the noise correlation must be symmetric with entries in [-1, 1]");
  }
  std::vector<double> l(std::size_t(n) * n, 0.0);
  for (int j = 0; j < n; ++j) {
    double d = c[j * n + j];
    for (int k = 0; k < j; ++k) d -= l[j * n + k] * l[j * n + k];
    require(d >= -1e-10, "sde: the noise correlation must be positive semi-definite");
    double const ljj = d > 1e-14 ? std::sqrt(d) : 0.0;
    l[j * n + j] = ljj;
    for (int i = j + 1; i < n; ++i) {
      double s = c[i * n + j];
      for (int k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
      // A zero pivot: the rest of column j must vanish too, else C is not semi-definite.
      require(ljj > 0 || std::abs(s) <= 1e-10, "sde: the noise correlation must be positive semi-definite");
      l[i * n + j] = ljj > 0 ? s / ljj : 0.0;
    }
  }
  return l;
}

namespace detail {
// System::noisy, where the system declares it (a mask of 32 bits does not fit every dim).
template <class System, bool = requires { System::noisy; }
> struct NoisyMask {};
template <class System>
struct NoisyMask<System, true> {
  static constexpr unsigned noisy = System::noisy;
};
}  // namespace detail

// A system whose Wiener processes are correlated by the factor L (row-major, device memory):
// drift as the system's; noise(t, x, dZ) = the system's noise(t, x, L dZ).
template <class System>
struct CorrelatedNoise : detail::NoisyMask<System> {
  using real_type = typename System::real_type;
  static constexpr int dim = System::dim, noise_dim = System::noise_dim;
  static constexpr bool stratonovich = is_stratonovich<System>();
  System const& system;
  real_type const* factor;  // L, noise_dim x noise_dim, lower triangular

  KOKKOS_INLINE_FUNCTION CorrelatedNoise(System const& s, real_type const* l) : system(s), factor(l) {}
  KOKKOS_INLINE_FUNCTION void drift(Tick const& t, State<System> const& x, State<System>& f) const {
    system.drift(t, x, f);
  }
  KOKKOS_INLINE_FUNCTION void noise(Tick const& t, State<System> const& x, Noise<System> const& dz,
                                    State<System>& out) const {
    Noise<System> dw;
    for (int i = 0; i < noise_dim; ++i) {
      real_type v = 0;
      for (int j = 0; j <= i; ++j) v += factor[i * noise_dim + j] * dz[j];
      dw[i] = v;
    }
    system.noise(t, x, dw, out);
  }
};

// One step of scheme S with the Wiener processes correlated by `factor` (null: independent). One
// process has nothing to correlate: no second code path in the kernel then.
template <Stepper S, class System>
KOKKOS_INLINE_FUNCTION void step_correlated(System const& s, typename System::real_type const* factor, Tick const& t,
                                            typename System::real_type dt, State<System>& x, Noise<System> const& dW,
                                            std::uint64_t area_signs) {
  if constexpr (System::noise_dim > 1) {
    if (factor) {
      step_once<S>(CorrelatedNoise<System>(s, factor), t, dt, x, dW, area_signs);
      return;
    }
  }
  step_once<S>(s, t, dt, x, dW, area_signs);
}

}  // namespace parity::sde
