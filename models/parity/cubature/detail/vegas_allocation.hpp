#pragma once
// VEGAS+'s samples per stratification cell, computed on the device from the cells' sigma (which
// stays there): the same offsets as allocate_samples (vegas_map.hpp, the host reference) given the
// same d_h and total. Nothing comes back to the host: the kernels are enqueued without waiting,
// and the sample count is offsets(cells), read when the caller needs it.
//
//  - d_h = sigma_h^beta by algorithms::portable_pow, the same bits on every backend;
//  - sum_h d_h by algorithms::fixed_order_column_sums_on_device, the same bits for any thread
//    count, left on the device;
//  - n_h = 2 + floor((N - 2 H) d_h / sum d) (or the even share where the sum is 0 or not finite);
//  - offsets by an exclusive scan of the integers n_h (exact in any order), each clamped to
//    N - 2 (H - h - 1) so the rounding of the shares cannot pass N. allocate_samples clamps as it
//    goes, offsets[h + 1] = min(offsets[h] + n_h, N - 2 (H - h - 1)); that equals the clamp of the
//    unclamped sums, because every n_h >= 2 keeps an offset clamped once it is.
// Every rank computes the whole allocation from the sigma of all cells (gathered in cell order),
// so the ranks agree on it.
//
// The scan also writes the cells' index where asked: first_cell(b) is the cell holding sample
// b vegas_index_block, so a sample's cell lies between the entries of its block and the next and
// its search spans at most vegas_index_block / 2 + 1 cells instead of all of them.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>

#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/algorithms/portable_power.hpp"

namespace parity::cubature::detail {

// Samples per entry of the cells' index (every cell holds two samples at least, so a block of them
// spans at most 33 cells).
inline constexpr std::int64_t vegas_index_block = 64;

template <class ExecutionSpace>
struct VegasAllocation {
  using Mem = typename ExecutionSpace::memory_space;

  std::int64_t cells = 0;
  algorithms::ColumnMatrix<Mem> power;  // cells x 1: d_h = sigma_h^beta
  Kokkos::View<double*, Mem> scratch;  // fixed_order_column_sums' block sums
  Kokkos::View<double*, Mem> total;  // 1: sum_h d_h

  VegasAllocation() = default;
  VegasAllocation(ExecutionSpace const& space, std::int64_t cells_) : cells(cells_) {
    power = algorithms::ColumnMatrix<Mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("parity::cubature::vegas_sigma_power")),
        cells, 1);
    scratch = Kokkos::View<double*, Mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("parity::cubature::vegas_allocation_sums")),
        std::max<std::int64_t>(1, algorithms::fixed_order_scratch_size(cells, 1)));
    total = Kokkos::View<double*, Mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("parity::cubature::vegas_allocation_total")),
        1);
  }

  // N = evaluations samples shared evenly: 2 + floor((N - 2 H) / H) per cell, as allocate_samples
  // gives for equal weights. Writes offsets (cells + 1); offsets(cells) is the sample count. Where
  // first_cell is not empty (it holds evaluations / vegas_index_block + 1 entries), writes the
  // cells' index too.
  void even(ExecutionSpace const& space, std::int64_t evaluations, Kokkos::View<std::int64_t*, Mem> const& offsets,
            Kokkos::View<std::int64_t*, Mem> const& first_cell = {}) const {
    scan(space, evaluations, true, offsets, first_cell);
  }

  // Samples following sigma^beta (beta in [0, 1]).
  void following(ExecutionSpace const& space, Kokkos::View<double*, Mem> const& sigma, double beta,
                 std::int64_t evaluations, Kokkos::View<std::int64_t*, Mem> const& offsets,
                 Kokkos::View<std::int64_t*, Mem> const& first_cell = {}) const {
    if (beta == 0) return even(space, evaluations, offsets, first_cell);  // d_h = 1: the even share's bits
    auto const power_ = power;
    Kokkos::parallel_for(
        "parity::cubature::vegas_sigma_power", Kokkos::RangePolicy<ExecutionSpace>(space, 0, cells),
        KOKKOS_LAMBDA(std::int64_t h) { power_(h, 0) = algorithms::portable_pow(sigma(h), beta); });
    algorithms::fixed_order_column_sums_on_device(space, power, cells, scratch, total);
    scan(space, evaluations, false, offsets, first_cell);
  }

  // The shares' counts and offsets (even: the even share, else power / total; a NaN or infinite
  // sigma makes the total NaN or infinite, d_h >= 0, and then the even share too). Each offset is
  // clamped to N - 2 (H - h - 1), so offsets(cells) = min(sum_h n_h, N). Public: CUDA's extended
  // lambdas cannot be defined in a private member function.
  void scan(ExecutionSpace const& space, std::int64_t evaluations, bool even,
            Kokkos::View<std::int64_t*, Mem> const& offsets, Kokkos::View<std::int64_t*, Mem> const& first_cell) const {
    std::int64_t const ncells = cells, spare = evaluations - 2 * cells, block = vegas_index_block;
    double const even_share = 1.0 / double(cells);
    bool const index = first_cell.extent(0) > 0;
    auto const power_ = power;
    auto const total_ = total;
    // No result is asked of the scan: asking would wait for it.
    Kokkos::parallel_scan(
        "parity::cubature::vegas_allocation", Kokkos::RangePolicy<ExecutionSpace>(space, 0, cells),
        KOKKOS_LAMBDA(std::int64_t h, std::int64_t & sum, bool final) {
          double const t = even ? 0.0 : total_(0);
          bool const share_evenly = even || !(t > 0 && Kokkos::isfinite(t));
          double const share = share_evenly ? even_share : power_(h, 0) / t;
          std::int64_t const before = sum;
          sum += 2 + std::int64_t(Kokkos::floor(double(spare) * share));
          if (final) {
            std::int64_t const limit = evaluations - 2 * (ncells - h - 1);
            std::int64_t const end = sum < limit ? sum : limit;
            offsets(h + 1) = end;
            if (h == 0) offsets(0) = 0;
            if (index) {  // the entries of the samples [offsets(h), end) of this cell
              std::int64_t const start = h == 0 ? 0 : (before < limit - 2 ? before : limit - 2);
              for (std::int64_t b = (start + block - 1) / block; b * block < end; ++b) first_cell(b) = h;
            }
          }
        });
  }
};

}  // namespace parity::cubature::detail
