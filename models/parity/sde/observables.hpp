#pragma once
// Ensemble statistics beyond the per-component mean and variance (ensemble.hpp): the covariance of
// the state components and a system's own observables, with the sums reduced in one fixed order.
//
// A system may declare a functional of its state, evaluated on the device at every sample:
//   static constexpr int observed = M;   // its components (1 .. 16)
//   KOKKOS_FUNCTION void observe(sde::Tick const& t, sde::State<System> const& x,
//                                sde::Observed<System>& f) const;   // f = F(x, t)
// x is the state as the stepper holds it (a wrapped component in [0, period())); t.step is the step
// count of the sample (time = step * dt). Per sample and sweep point the ensemble reports the
// mean, variance, covariance and standard error of the mean of F's components.
//
// Order of the sums: a chunk of 1024 paths (ensemble_layout.hpp) is split into 32 lanes, lane b
// adding the terms of paths b, b + 32, ... in turn; the chunk's sum adds its lanes 0 .. 31 in turn;
// a sweep point's sum adds its chunk sums the same way (32 lanes of every 32nd chunk, then the
// lanes). Each addition is one thread's sequential loop, so the bits depend neither on the thread
// count, nor the team size, nor how the chunks are dealt to ranks; only on the arithmetic (fused
// multiply-adds) of the backend's compiler.
#include <Kokkos_Core.hpp>

#include "parity/sde/ensemble_layout.hpp"
#include "parity/sde/stepper.hpp"

namespace parity::sde {

// Components of a system's observable F (System::observed), or 0 without one.
template <class System>
KOKKOS_INLINE_FUNCTION constexpr int observed_of() {
  if constexpr (requires { System::observed; })
    return int(System::observed);
  else
    return 0;
}

template <class System>
using Observed = Kokkos::Array<typename System::real_type, (observed_of<System>() > 0 ? observed_of<System>() : 1)>;

// Sums per path at a sample: the dim state components, their dim (dim + 1) / 2 products
// (x_i x_j, i <= j, row by row), and the same for the M observables.
template <int Dim, int M>
struct SampleTerms {
  static constexpr int state_products = Dim * (Dim + 1) / 2;
  static constexpr int observed_offset = Dim + state_products;
  static constexpr int count = observed_offset + M + M * (M + 1) / 2;
};

namespace detail {

inline constexpr int sum_lanes = 32;

// lanes(t, k) for t = c * 32 + b, c < partial.extent(0): lane b of chunk first_chunk + c, the
// sum over its paths i = b, b + 32, ... of terms(l, k) (l: the path's index on this rank); then
// partial(c, k) = lanes 0 .. 31 of chunk c added in turn.
template <int K, class ExecSpace, class Terms, class Lanes, class Partial>
void fixed_order_partials(ExecSpace const& space, Terms const& terms, int paths, long first_chunk, long first_path,
                          Lanes const& lanes, Partial const& partial) {
  long const chunks = moment_chunks(paths), n = long(partial.extent(0));
  Kokkos::parallel_for(
      "parity::sde::observable_lanes", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long>>(space, 0, n * sum_lanes),
      KOKKOS_LAMBDA(long t) {
        long const u = first_chunk + t / sum_lanes;
        int const b = int(t % sum_lanes);
        int const p = int(u / chunks);
        long const begin = (u % chunks) * moment_chunk,
                   end = begin + moment_chunk < paths ? begin + moment_chunk : paths;
        double s[K], c[K];
        for (int k = 0; k < K; ++k) s[k] = 0;
        for (long i = begin + b; i < end; i += sum_lanes) {
          terms(int(long(p) * paths + i - first_path), c);
          for (int k = 0; k < K; ++k) s[k] += c[k];
        }
        for (int k = 0; k < K; ++k) lanes(t, k) = s[k];
      });
  Kokkos::parallel_for(
      "parity::sde::observable_partials", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long>>(space, 0, n),
      KOKKOS_LAMBDA(long c) {
        for (int k = 0; k < K; ++k) {
          double s = 0;
          for (int b = 0; b < sum_lanes; ++b) s += lanes(c * sum_lanes + b, k);
          partial(c, k) = s;
        }
      });
}

// out(p, k) = the sum of point p's chunk sums partial(p * chunks + c, k) in the lane order above
// (lanes: a work array of params * 32 rows).
template <int K, class ExecSpace, class Partial, class Lanes, class Out>
void fixed_order_totals(ExecSpace const& space, int params, int paths, Partial const& partial, Lanes const& lanes,
                        Out const& out) {
  long const chunks = moment_chunks(paths);
  Kokkos::parallel_for(
      "parity::sde::observable_point_lanes", Kokkos::RangePolicy<ExecSpace>(space, 0, params * sum_lanes),
      KOKKOS_LAMBDA(int t) {
        int const p = t / sum_lanes, b = t % sum_lanes;
        double s[K];
        for (int k = 0; k < K; ++k) s[k] = 0;
        for (long c = b; c < chunks; c += sum_lanes)
          for (int k = 0; k < K; ++k) s[k] += partial(p * chunks + c, k);
        for (int k = 0; k < K; ++k) lanes(t, k) = s[k];
      });
  Kokkos::parallel_for(
      "parity::sde::observable_totals", Kokkos::RangePolicy<ExecSpace>(space, 0, params), KOKKOS_LAMBDA(int p) {
        for (int k = 0; k < K; ++k) {
          double s = 0;
          for (int b = 0; b < sum_lanes; ++b) s += lanes(p * sum_lanes + b, k);
          out(p, k) = s;
        }
      });
}

// The terms of path l at a sample (SampleTerms' order): value(l, k) is the unwrapped state; the
// observable sees the stored state (real_type, wrapped) of the path's sweep point.
template <class System, class Value, class States, class Sweep>
struct SampleTermsOf {
  static constexpr int dim = System::dim, M = observed_of<System>();
  using Layout = SampleTerms<dim, M>;
  Value value;
  States x;
  System base;
  Sweep sweep;
  Tick tick;
  int paths, first_path;
  KOKKOS_INLINE_FUNCTION void operator()(int l, double* c) const {
    double v[dim];
    for (int k = 0; k < dim; ++k) v[k] = value(l, k);
    int o = 0;
    for (int k = 0; k < dim; ++k) c[o++] = v[k];
    for (int i = 0; i < dim; ++i)
      for (int j = i; j < dim; ++j) c[o++] = v[i] * v[j];
    if constexpr (M > 0) {
      System s = base;
      sweep.apply((first_path + l) / paths, s);
      State<System> st;
      for (int k = 0; k < dim; ++k) st[k] = x(l, k);
      Observed<System> f;
      s.observe(tick, st, f);
      double w[M];
      for (int m = 0; m < M; ++m) w[m] = double(f[m]);
      for (int m = 0; m < M; ++m) c[o++] = w[m];
      for (int i = 0; i < M; ++i)
        for (int j = i; j < M; ++j) c[o++] = w[i] * w[j];
    }
  }
};

// Copies the unwrapped states of the paths i < keep of every sweep point held on this rank into
// out(p, i, k) (entries of other ranks' paths are left as they are).
template <int Dim, class ExecSpace, class Value, class Out>
void keep_states(ExecSpace const& space, Value const& value, int paths, int first_path, int local, Out const& out) {
  int const keep = int(out.extent(1));
  Kokkos::parallel_for(
      "parity::sde::keep_states", Kokkos::RangePolicy<ExecSpace>(space, 0, local), KOKKOS_LAMBDA(int l) {
        int const g = first_path + l, i = g % paths;
        if (i < keep)
          for (int k = 0; k < Dim; ++k) out(g / paths, i, k) = value(l, k);
      });
}

}  // namespace detail
}  // namespace parity::sde
