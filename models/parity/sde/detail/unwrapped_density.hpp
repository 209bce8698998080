#pragma once
// The density of the unwrapped wrapped component (a position: its value in [0, period) plus the
// winding count times the period) at each sample of an ensemble (ensemble.hpp): a histogram over
// [lo, hi) periods in `bins` equal bins per sweep point, with the paths outside counted as under-
// and overflow. Counts are integers added atomically, so they are exact in any order: the same on
// every thread count, team size and rank count. Nothing is allocated or launched when off.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "parity/run/communicator.hpp"
#include "parity/sde/density_range.hpp"
#include "parity/sde/ensemble_layout.hpp"
#include "parity/sde/result.hpp"

namespace parity::sde::detail {

template <class ExecSpace>
class UnwrappedDensity {
 public:
  using Mem = typename ExecSpace::memory_space;

  // Slots per (sample, point): bins, then underflow and overflow.
  UnwrappedDensity(ExecSpace const& space, DensityRange const& range, int params, int paths, int samples,
                   run::Communicator const& ranks)
      : space_(space), range_(range), params_(params), paths_(paths), samples_(samples), ranks_(ranks) {
    int const n = range.bins > 0 ? samples : 0;
    counts_ = Kokkos::View<int***, Mem>(Kokkos::view_alloc(space, "parity::sde::unwrapped_density"), n, params,
                                        range.bins > 0 ? range.bins + 2 : 0);
  }

  bool on() const { return counts_.extent(0) > 0; }

  // Counts the paths [first_path, first_path + local) at sample s; x and wind are this rank's
  // states, component `wrapped` kept in [0, period) with its winding count.
  template <class States, class Wind>
  void sample(int s, States const& x, Wind const& wind, int wrapped, double period, int first_path) {
    if (!on()) return;
    auto const counts = Kokkos::subview(counts_, s, Kokkos::ALL, Kokkos::ALL);
    int const bins = range_.bins, paths = paths_;
    double const lo = range_.lo, per_bin = double(bins) / (range_.hi - range_.lo);
    Kokkos::parallel_for(
        "parity::sde::unwrapped_density", Kokkos::RangePolicy<ExecSpace>(space_, 0, int(wind.extent(0))),
        KOKKOS_LAMBDA(int l) {
          // In periods: the winding count is exact, the position in the period adds its fraction.
          double const u = (double(wind(l)) + double(x(l, wrapped)) / period - lo) * per_bin;
          // NaN (a diverged path) counts as overflow.
          int const b = u < 0 ? bins : (!(u < double(bins)) ? bins + 1 : int(u));
          Kokkos::atomic_add(&counts((first_path + l) / paths, b), 1);
        });
  }

  // r.density [S][P][bins], r.density_outside [S][P][2] (under, over) and the range; summed over
  // ranks (integers: exact in any order).
  void finish(EnsembleResult& r) {
    if (!on()) return;
    auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts_);
    int const B = range_.bins;
    std::vector<std::int64_t> all(h.size());
    std::size_t i = 0;
    for (int s = 0; s < samples_; ++s)
      for (int p = 0; p < params_; ++p)
        for (int b = 0; b < B + 2; ++b) all[i++] = h(s, p, b);
    if (ranks_.several()) ranks_.sum(all);
    r.density_bins = B;
    r.density_lo = range_.lo;
    r.density_hi = range_.hi;
    r.density.resize(std::size_t(samples_) * params_ * B);
    r.density_outside.resize(std::size_t(samples_) * params_ * 2);
    for (std::size_t sp = 0; sp < std::size_t(samples_) * params_; ++sp) {
      for (int b = 0; b < B; ++b) r.density[sp * B + b] = std::int32_t(all[sp * (B + 2) + b]);
      r.density_outside[2 * sp] = std::int32_t(all[sp * (B + 2) + B]);
      r.density_outside[2 * sp + 1] = std::int32_t(all[sp * (B + 2) + B + 1]);
    }
  }

 private:
  ExecSpace space_;
  DensityRange range_;
  int params_, paths_, samples_;
  run::Communicator ranks_;
  Kokkos::View<int***, Mem> counts_;
};

}  // namespace parity::sde::detail
