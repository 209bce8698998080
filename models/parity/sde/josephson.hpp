#pragma once
// The driven, damped Josephson junction (Stewart-McCumber model) in the dimensionless form of
// Januszewski & Kostur (2010):
//   x'' + gamma x' = -V'(x) + a cos(omega t) + f + sqrt(2 gamma D) xi(t),  V(x) = sin(2 pi x),
// as the first-order system dx = v dt, dv = (-gamma v - 2 pi cos(2 pi x) + a cos(omega t) + f) dt
// + sqrt(2 gamma D) dW. The time step is the drive period over steps_per_period; the drive
// cos(omega t) at step phase k of the period is read from a table of cos(2 pi k / steps_per_period)
// (computed once in double, `drive_table`, device memory the caller owns, required); cos(2 pi x)
// by cos_2pi (trig.hpp) on x in [0, 1) (the integrator keeps x reduced).
#include <Kokkos_Core.hpp>
#include <type_traits>

#include "parity/random/philox.hpp"
#include "parity/sde/stepper.hpp"
#include "parity/sde/trig.hpp"

#ifndef PARITY_SDE_JOSEPHSON_FLOAT_MIN_BLOCKS
#define PARITY_SDE_JOSEPHSON_FLOAT_MIN_BLOCKS 8
#endif
#ifndef PARITY_SDE_JOSEPHSON_DOUBLE_MIN_BLOCKS
#define PARITY_SDE_JOSEPHSON_DOUBLE_MIN_BLOCKS 0
#endif

namespace parity::sde {

template <class Real>
struct JosephsonSystem {
  using real_type = Real;
  static constexpr int dim = 2, noise_dim = 1;
  static constexpr int wrapped = 0;  // x, modulo the potential's period 1
  static constexpr unsigned time_averaged = 1u << 1;  // v only: <<v>> (x's time average is not used)
  static constexpr unsigned noisy = 1u << 1;  // the noise enters v only
  // Float: 8 blocks of 256 threads per multiprocessor (at most 32 registers, full occupancy on
  // sm_90, as the native reference kernel reaches by itself; without it 40 registers, 75 %);
  // double: the compiler's choice (56 registers). PARITY_SDE_JOSEPHSON_FLOAT_MIN_BLOCKS=0 at
  // compile time builds the float kernel without launch bounds, to measure the trade (with the cap
  // the Philox round keys are re-derived per block: about 5 more instructions per step).
  static constexpr unsigned advance_min_blocks =
      std::is_same_v<Real, float> ? PARITY_SDE_JOSEPHSON_FLOAT_MIN_BLOCKS : PARITY_SDE_JOSEPHSON_DOUBLE_MIN_BLOCKS;

  enum Field { gamma_field = 0, a_field = 1, f_field = 2, D_field = 3 };

  Real gamma = Real(0.9), a = Real(4.2), f = Real(0.1), D = Real(0.001);
  int steps_per_period = 100;
  Real noise_amp = 0;  // sqrt(2 gamma D), kept in step with gamma and D by update()
  Real const* drive_table = nullptr;  // [steps_per_period] cos(2 pi k / steps_per_period), required

  KOKKOS_INLINE_FUNCTION void update() { noise_amp = Kokkos::sqrt(Real(2) * gamma * D); }
  KOKKOS_INLINE_FUNCTION Real period() const { return Real(1); }
  KOKKOS_INLINE_FUNCTION int period_steps() const { return steps_per_period; }
  // Unconditional table read: the predictor's drive(phase + 1) and the next step's drive(phase) are
  // then the same load, which the compiler can reuse across the unrolled steps.
  KOKKOS_INLINE_FUNCTION Real drive(int phase) const { return drive_table[phase]; }
  KOKKOS_INLINE_FUNCTION void set(int field, double value) {
    if (field == gamma_field) gamma = Real(value);
    if (field == a_field) a = Real(value);
    if (field == f_field) f = Real(value);
    if (field == D_field) D = Real(value);
    update();
  }
  KOKKOS_INLINE_FUNCTION void drift(Tick const& t, State<JosephsonSystem> const& s, State<JosephsonSystem>& out) const {
    out[0] = s[1];
    out[1] = -gamma * s[1] - cos_2pi<Real, TimesTwoPi>(s[0]) + a * drive(t.phase) + f;  // V'(x) = 2 pi cos(2 pi x)
  }
  KOKKOS_INLINE_FUNCTION void noise(Tick const&, State<JosephsonSystem> const&, Noise<JosephsonSystem> const& dW,
                                    State<JosephsonSystem>& out) const {
    out[0] = 0;
    out[1] = noise_amp * dW[0];
  }
  // Paper's initial conditions: x uniform in [0, 1), v uniform in [-2, 2).
  KOKKOS_INLINE_FUNCTION void initial(random::PhiloxStream<Real>& rng, State<JosephsonSystem>& s) const {
    s[0] = rng.uniform();
    s[1] = Real(4) * rng.uniform() - Real(2);
  }
};

}  // namespace parity::sde
