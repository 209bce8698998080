#pragma once
// VEGAS+'s samples per stratification cell, computed on the device from the cells' sigma (which
// stays there): the same offsets as allocate_samples (vegas_map.hpp, the host reference) given the
// same d_h and total, with only the sample count coming back to the host.
//
//  - d_h = sigma_h^beta by algorithms::portable_pow, the same bits on every backend;
//  - sum_h d_h by algorithms::fixed_order_column_sums, the same bits for any thread count;
//  - n_h = 2 + floor((N - 2 H) d_h / sum d) (or the even share where the sum is 0 or not finite);
//  - offsets by an exclusive scan of the integers n_h (exact in any order), each clamped to
//    N - 2 (H - h - 1) so the rounding of the shares cannot pass N. allocate_samples clamps as it
//    goes, offsets[h + 1] = min(offsets[h] + n_h, N - 2 (H - h - 1)); that equals the clamp of the
//    unclamped sums, because every n_h >= 2 keeps an offset clamped once it is.
// Every rank computes the whole allocation from the sigma of all cells (gathered in cell order),
// so the ranks agree on it.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/algorithms/portable_power.hpp"

namespace parity::cubature::detail {

template <class ExecutionSpace>
struct VegasAllocation {
  using Mem = typename ExecutionSpace::memory_space;

  std::int64_t cells = 0;
  algorithms::ColumnMatrix<Mem> power;  // cells x 1: d_h = sigma_h^beta
  Kokkos::View<double*, Mem> scratch;  // fixed_order_column_sums' block sums

  VegasAllocation() = default;
  VegasAllocation(ExecutionSpace const& space, std::int64_t cells_) : cells(cells_) {
    power = algorithms::ColumnMatrix<Mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("parity::cubature::vegas_sigma_power")),
        cells, 1);
    scratch = Kokkos::View<double*, Mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("parity::cubature::vegas_allocation_sums")),
        std::max<std::int64_t>(1, algorithms::fixed_order_scratch_size(cells, 1)));
  }

  // N = evaluations samples shared evenly: 2 + floor((N - 2 H) / H) per cell, as allocate_samples
  // gives for equal weights. Writes offsets (cells + 1) and returns the samples, offsets(cells).
  std::int64_t even(ExecutionSpace const& space, std::int64_t evaluations,
                    Kokkos::View<std::int64_t*, Mem> const& offsets) const {
    return scan(space, evaluations, 0.0, true, offsets);
  }

  // Samples following sigma^beta (beta in [0, 1]).
  std::int64_t following(ExecutionSpace const& space, Kokkos::View<double*, Mem> const& sigma, double beta,
                         std::int64_t evaluations, Kokkos::View<std::int64_t*, Mem> const& offsets) const {
    if (beta == 0) return even(space, evaluations, offsets);  // d_h = 1: the even share's bits
    auto const power_ = power;
    Kokkos::parallel_for(
        "parity::cubature::vegas_sigma_power", Kokkos::RangePolicy<ExecutionSpace>(space, 0, cells),
        KOKKOS_LAMBDA(std::int64_t h) { power_(h, 0) = algorithms::portable_pow(sigma(h), beta); });
    double const total = algorithms::fixed_order_column_sums(space, power, cells, scratch)[0];
    // A NaN or infinite sigma makes the sum NaN or infinite (d_h >= 0): the even share.
    return scan(space, evaluations, total, !(total > 0 && std::isfinite(total)), offsets);
  }

  // The shares' counts and offsets (even: the even share, else power / total). Public: CUDA's
  // extended lambdas cannot be defined in a private member function.
  std::int64_t scan(ExecutionSpace const& space, std::int64_t evaluations, double total, bool even,
                    Kokkos::View<std::int64_t*, Mem> const& offsets) const {
    std::int64_t const ncells = cells, spare = evaluations - 2 * cells;
    double const even_share = 1.0 / double(cells);
    auto const power_ = power;
    std::int64_t unclamped = 0;
    Kokkos::parallel_scan(
        "parity::cubature::vegas_allocation", Kokkos::RangePolicy<ExecutionSpace>(space, 0, cells),
        KOKKOS_LAMBDA(std::int64_t h, std::int64_t & sum, bool final) {
          double const share = even ? even_share : power_(h, 0) / total;
          sum += 2 + std::int64_t(Kokkos::floor(double(spare) * share));
          if (final) {
            std::int64_t const limit = evaluations - 2 * (ncells - h - 1);
            offsets(h + 1) = sum < limit ? sum : limit;
            if (h == 0) offsets(0) = 0;
          }
        },
        unclamped);
    return unclamped < evaluations ? unclamped : evaluations;  // offsets(cells): its limit is N
  }
};

}  // namespace parity::cubature::detail
