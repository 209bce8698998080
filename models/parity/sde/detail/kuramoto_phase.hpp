#pragma once
// The Kuramoto kernels' shared pieces: sin and cos of a phase, the wrap into [0, 2 pi), the
// initial phases and frequencies, the mean-field drift and the noise numbering (KuramotoNoise).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "parity/random/philox.hpp"
#include "parity/sde/detail/kuramoto_sums.hpp"
#include "parity/sde/ensemble.hpp"
#include "parity/sde/kuramoto_config.hpp"
#include "parity/sde/noise.hpp"
#include "parity/sde/trig.hpp"

namespace parity::sde::detail {

// sin x, cos x of a phase in radians.
template <class Real>
KOKKOS_INLINE_FUNCTION void sincos_phase(Real x, Real& s, Real& c) {
  constexpr Real inv_two_pi = Real(0.5) * Kokkos::numbers::inv_pi_v<Real>;
  sincos_2pi(x * inv_two_pi, s, c);
}

// Adds sin x and cos x of a phase to the order-parameter sums (v[0]: sin, v[1]: cos).
template <class Real>
KOKKOS_INLINE_FUNCTION void add_phase(Sums<2>& acc, Real x) {
  Real sn, cs;
  sincos_phase(x, sn, cs);
  acc.v[0] += double(sn);
  acc.v[1] += double(cs);
}

// omega_i, or the common value when all are equal (no memory read).
template <class Real, class View>
struct Omega {
  View omega;
  Real common;
  bool uniform;
  KOKKOS_INLINE_FUNCTION Real operator()(int i) const { return uniform ? common : omega(i); }
};

template <class Real>
KOKKOS_INLINE_FUNCTION Real wrap_phase(Real y) {
  Real const two_pi = Real(2) * Kokkos::numbers::pi_v<Real>;
  if (y >= two_pi || y < Real(0)) y -= Kokkos::floor(y / two_pi) * two_pi;
  return y >= two_pi ? Real(0) : y;
}

template <class ExecSpace, class Real>
void kuramoto_initialize(ExecSpace const& space, KuramotoConfig const& c,
                         Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                         Kokkos::View<Real*, typename ExecSpace::memory_space> const& omega) {
  std::uint64_t const seed = c.seed;
  Real const om = Real(c.omega_mean), spread = Real(c.omega_spread);
  Kokkos::parallel_for(
      "parity::sde::kuramoto_initialize", Kokkos::RangePolicy<ExecSpace>(space, 0, c.n), KOKKOS_LAMBDA(int i) {
        random::PhiloxStream<Real> rng(seed, std::uint64_t(i) | initial_state_stream_bit);
        x(i) = wrap_phase(Real(2) * Kokkos::numbers::pi_v<Real> * rng.uniform());
        omega(i) = om + spread * rng.normal();
      });
}

template <class ExecSpace, class Real>
void kuramoto_sums(ExecSpace const& space, Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                   SinCos<typename ExecSpace::memory_space> const& out) {
  Kokkos::parallel_reduce(
      "parity::sde::kuramoto_sums", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(int i, Sums<2>& s) { add_phase(s, x(i)); },
      Kokkos::Sum<Sums<2>, typename ExecSpace::memory_space>(out));
}

// Mean-field drift of oscillator i: (omega_i + (K/N)(cos x S - sin x C)) / gamma.
template <class Real>
KOKKOS_INLINE_FUNCTION Real mean_field_drift(Real xi, Real omega_i, Real k_over_n, Real inv_gamma, Real S, Real C) {
  Real sn, cs;
  sincos_phase(xi, sn, cs);
  return (omega_i + k_over_n * (cs * S - sn * C)) * inv_gamma;
}

template <class ExecSpace, class Real>
using OmegaOf = Omega<Real, Kokkos::View<Real*, typename ExecSpace::memory_space>>;

// g dW of oscillator i at step s: with B variates per thread (one unit, noise.hpp; gaussian: the
// normals of a Philox block, 4 float, 2 double; five-point: 4, 16 bits of a Philox block) and
// M = ceil(N / B), variate B (i % M) + i / M of stream s. The B variates of thread t (gaussian:
// one Philox call, B / 2 Box-Muller pairs) serve oscillators t, t + M, ..., t + (B - 1) M, which
// mean-field thread t updates; neighbouring threads touch neighbouring phases (coalesced). One
// step uses one variate per oscillator, so numbering them along the step's stream rather than
// along each oscillator's own stream is what lets a Philox block be shared (a Philox block per
// normal was most of the mean-field kernel's instructions).
template <NoiseLaw Law, class Real>
struct KuramotoNoise {
  // One unit per thread. Five-point with two units (8 oscillators per thread from one Philox
  // block) was slower on an H200: 340 against 213 us per SRK2 step in float at 2^24, the float
  // passes spilling under their 32-register cap, double at 114-144 registers
  // (perf/results/sde-five-point-h200).
  static constexpr int per_block = variates_per_unit<Law, Real>;
  std::uint64_t seed;
  int blocks;  // M
  Real scale;  // g sqrt(dt)
  KuramotoNoise(std::uint64_t seed_, int n, Real scale_)
      : seed(seed_), blocks((n + per_block - 1) / per_block), scale(scale_) {}
  // Position of oscillator i's normal in its step's stream.
  KOKKOS_INLINE_FUNCTION std::uint64_t index(int i) const {
    return std::uint64_t(per_block) * std::uint64_t(i % blocks) + std::uint64_t(i / blocks);
  }
  // g dW of oscillator i alone (gaussian: one Philox block, the one Box-Muller half it needs).
  KOKKOS_INLINE_FUNCTION Real one(long step, int i) const {
    return scale * variate_at<Law, Real>(seed, std::uint64_t(step), index(i));
  }
  // g dW of the oscillators of unit t: gdw[k] is oscillator t + k M's.
  KOKKOS_INLINE_FUNCTION void block(long step, int t, Real (&gdw)[per_block]) const {
    variate_unit<Law, Real>(seed, std::uint64_t(step), std::uint64_t(t), gdw, scale);
  }
};

}  // namespace parity::sde::detail
