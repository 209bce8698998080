#pragma once
// Roofline probes written as Kokkos kernels: the execution space's copy bandwidth and its
// floating-point rate (independent FMA chains), so every benchmark can state the fraction of the
// bound it reaches on the same device, backend and build.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "perf/probe/types.hpp"

namespace parity::probe {

template <class ExecutionSpace>
double copy_bandwidth(ExecutionSpace const& space, std::int64_t n, int repetitions, double& checksum) {
  using Mem = typename ExecutionSpace::memory_space;
  Kokkos::View<double*, Mem> a(Kokkos::view_alloc(space, "parity::probe::copy_src"), n);
  Kokkos::View<double*, Mem> b(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "parity::probe::copy_dst"), n);
  Kokkos::parallel_for(
      "parity::probe::copy_init", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) { a(i) = double(i % 1024); });
  double best = 1e300;
  for (int r = 0; r <= repetitions; ++r) {  // r = 0 is a warm-up
    space.fence();
    Kokkos::Timer timer;
    Kokkos::parallel_for(
        "parity::probe::copy", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n),
        KOKKOS_LAMBDA(std::int64_t i) { b(i) = a(i); });
    space.fence();
    if (r > 0) best = Kokkos::min(best, timer.seconds());
  }
  double sum = 0;
  Kokkos::parallel_reduce(
      "parity::probe::copy_check", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n),
      KOKKOS_LAMBDA(std::int64_t i, double& s) { s += b(i); }, sum);
  checksum += sum;
  return 2.0 * sizeof(double) * double(n) / best;
}

template <class Real, class ExecutionSpace>
double fma_rate(ExecutionSpace const& space, std::int64_t threads, int iterations, int repetitions, double& checksum) {
  using Mem = typename ExecutionSpace::memory_space;
  Kokkos::View<Real*, Mem> out(Kokkos::view_alloc(space, "parity::probe::fma_out"), threads);
  double best = 1e300;
  for (int r = 0; r <= repetitions; ++r) {
    space.fence();
    Kokkos::Timer timer;
    Kokkos::parallel_for(
        "parity::probe::fma", Kokkos::RangePolicy<ExecutionSpace>(space, 0, threads), KOKKOS_LAMBDA(std::int64_t i) {
          // Eight independent chains hide FMA latency; the multiplier keeps values bounded.
          Real const m = Real(0.999999), c = Real(1e-7) * Real(i % 7);
          Real x0 = Real(i % 13), x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6,
               x7 = x0 + 7;
          for (int k = 0; k < iterations; ++k) {
            x0 = x0 * m + c;
            x1 = x1 * m + c;
            x2 = x2 * m + c;
            x3 = x3 * m + c;
            x4 = x4 * m + c;
            x5 = x5 * m + c;
            x6 = x6 * m + c;
            x7 = x7 * m + c;
          }
          out(i) = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
        });
    space.fence();
    if (r > 0) best = Kokkos::min(best, timer.seconds());
  }
  Real sum = 0;
  Kokkos::parallel_reduce(
      "parity::probe::fma_check", Kokkos::RangePolicy<ExecutionSpace>(space, 0, threads),
      KOKKOS_LAMBDA(std::int64_t i, Real & s) { s += out(i); }, sum);
  checksum += double(sum);
  return 2.0 * 8.0 * double(iterations) * double(threads) / best;
}

template <class ExecutionSpace>
Result measure(ExecutionSpace const& space, Sizes const& s) {
  Result r;
  r.copy_bytes_per_second = copy_bandwidth(space, s.copy_elements, s.repetitions, r.checksum);
  r.fp32_flops = fma_rate<float>(space, s.fma_threads, s.fma_iterations, s.repetitions, r.checksum);
  r.fp64_flops = fma_rate<double>(space, s.fma_threads, s.fma_iterations, s.repetitions, r.checksum);
  return r;
}

}  // namespace parity::probe
