#pragma once
// One Kuramoto sample (kuramoto.hpp): the order parameter and the histogram of the phases.
#include <Kokkos_Core.hpp>
#include <Kokkos_ScatterView.hpp>

#include "parity/sde/detail/kuramoto_phase.hpp"
#include "parity/sde/detail/kuramoto_sums.hpp"
#include "parity/sde/ensemble.hpp"

namespace parity::sde::detail {

// Order parameter (r, psi) from the sums S, C (sums.value()), and the histogram of x mod 2 pi, into
// row s. With a mean-field layout, x holds its slots (the histogram counts this rank's oscillators
// only), and r divides by all ranks' oscillators.
template <class ExecSpace, class Real, class SumsIn>
void kuramoto_record(ExecSpace const& space, Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                     SumsIn const& sums, int s, int bins,
                     Kokkos::View<double**, typename ExecSpace::memory_space> const& order,
                     Kokkos::View<int**, typename ExecSpace::memory_space> const& hist,
                     MeanFieldLayout const* layout = nullptr) {
  using Mem = typename ExecSpace::memory_space;
  int const n = layout ? layout->n : int(x.extent(0));
  bool const slots = layout != nullptr;
  MeanFieldLayout const lay = layout ? *layout : MeanFieldLayout{};
  Kokkos::parallel_for(
      "parity::sde::kuramoto_order", Kokkos::RangePolicy<ExecSpace>(space, 0, 1), KOKKOS_LAMBDA(int) {
        Sums<2> const v = sums.value();
        order(s, 0) = Kokkos::sqrt(v.v[0] * v.v[0] + v.v[1] * v.v[1]) / double(n);
        order(s, 1) = Kokkos::atan2(v.v[0], v.v[1]);
      });
  if (bins <= 0) return;
  Kokkos::View<int*, Mem> row(Kokkos::view_alloc(space, "parity::sde::kuramoto_histogram_row"), bins);
  Kokkos::Experimental::ScatterView<int*, typename Kokkos::View<int*, Mem>::array_layout, ExecSpace> scatter(row);
  Real const to_bin = Real(bins) / (Real(2) * Kokkos::numbers::pi_v<Real>);
  Kokkos::parallel_for(
      "parity::sde::kuramoto_histogram", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)), KOKKOS_LAMBDA(int i) {
        if (slots && lay.oscillator(i) >= lay.n) return;
        auto h = scatter.access();
        int b = int(x(i) * to_bin);
        b = b < 0 ? 0 : (b >= bins ? bins - 1 : b);
        h(b) += 1;
      });
  Kokkos::Experimental::contribute(row, scatter);
  Kokkos::parallel_for(
      "parity::sde::kuramoto_histogram_store", Kokkos::RangePolicy<ExecSpace>(space, 0, bins),
      KOKKOS_LAMBDA(int b) { hist(s, b) = row(b); });
}

}  // namespace parity::sde::detail
