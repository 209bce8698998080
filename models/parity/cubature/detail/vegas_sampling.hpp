#pragma once
// One VEGAS+ iteration on the device: the samples (one thread each), the per-cell mean and
// variance, the per-axis histograms of (f J)^2 and the map's adaptation to them (vegas_map.hpp).
// A sample's thread stores its histogram term and its increment on every axis, so the histograms
// read them instead of drawing the points again.
// The map, the histograms, the cells' sigma and the samples per cell (vegas_allocation.hpp) stay
// on the device, and so do the scalars between the kernels (the sample count, the histograms'
// largest term and unit): one rank enqueues an iteration's kernels without waiting, and the host
// waits once, for the iteration's estimates (sums). On several ranks the histograms' integers, the
// cells' sums and the rank's sample bounds cross to the host, whose exchanges wait anyway.
//
// Random numbers: Philox keyed by the seed, with the iteration as the stream and sample s's axes
// d, d + 1 in counter block s ceil(n / 2) + d / 2, so a sample's point depends only on (seed,
// iteration, s) and the map, never on which thread draws it.
//
// A family of m integrands shares the samples: each component has its own sums, and the map and
// the allocation follow the components' (f_k J)^2 and variances summed with weights w_k (the
// integrator's: 1 / tolerance_k^2, so each component counts by the error it may have). A family either writes
// its m values at once (values on each thread's stack, so m <= max_vegas_components) or is
// called once per component (`Real f(x, k)`, any m up to max_vegas_indexed_components: a
// parameterised family, the values going straight to device memory).
//
// Sums: every cell sums its own samples in chunks of vegas_chunk in index order and its chunks'
// sums in order (cell_statistics); the cells' terms are summed by
// fixed_order_column_sums; each histogram term is rounded to a 64-bit fixed point whose unit
// depends only on the largest term, and the terms are added as integers (exact in any order). So
// the sums are the same bits for any thread count and any split over ranks.
//
// Across ranks (run::Communicator): rank k samples the cells [first, last) of its contiguous share
// (their samples are contiguous too), computes their terms and sigma, and the ranks gather both in
// cell order, so every rank adds the same terms in the same order as one rank and computes the
// same allocation; the histograms' integers are summed over the ranks.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "parity/algorithms/fixed_order_sum.hpp"
#include "parity/cubature/detail/vegas_allocation.hpp"
#include "parity/cubature/detail/vegas_map.hpp"
#include "parity/cubature/rule.hpp"
#include "parity/cubature/vegas_options.hpp"
#include "parity/random/philox.hpp"
#include "parity/run/communicator.hpp"
#include "parity/run/errors.hpp"

namespace parity::cubature::detail {

// Most components of an integrand family that writes its values at once (the values of one
// sample sit on each thread's stack).
inline constexpr int max_vegas_components = 16;
// Most components of a family called once per component: memory bounds m (evaluations per
// iteration x m doubles), not the stack.
inline constexpr int max_vegas_indexed_components = 1 << 16;

// Samples per chunk of a cell's sums: a cell's mean and variance add its chunks' sums in order, each
// chunk summed in index order by one thread, so a cell holding most samples is not one thread's work.
inline constexpr std::int64_t vegas_chunk = 64;

// Bins of the histograms a team adds in scratch memory at once (just under 32 KiB of 64-bit
// integers, within every backend's level 0): the axes of a pass; an axis of more bins adds straight
// to the histogram.
inline constexpr int vegas_scratch_bins = 4064;

// A sample's increment on each axis (vegas_options.hpp's max_vegas_bins: 16 bits).
using VegasIncrement = std::uint16_t;
static_assert(max_vegas_bins - 1 <= std::numeric_limits<VegasIncrement>::max());

// A family called once per component: `Real f(Point<Real> const& x, int k)`.
template <class F, class Real>
inline constexpr bool is_indexed_family = std::is_invocable_r_v<Real, F const&, Point<Real> const&, int>;

// A scalar integrand as a family of one.
template <class Real, class F>
struct VegasScalar {
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(Point<Real> const& x, Real* values) const { values[0] = f(x); }
};

// The uniforms of sample s along axes 2k and 2k + 1: one Philox block.
KOKKOS_INLINE_FUNCTION random::Block4 vegas_block(std::uint64_t seed, int iteration, std::int64_t s, int pair,
                                                  int pairs) {
  return random::philox_block(seed, std::uint64_t(iteration), std::uint64_t(s) * std::uint64_t(pairs) + pair);
}

// Where y_d (uniform u in stratum c of `strata`) lands under the map: the increment and x_d;
// multiplies jacobian by bins times the increment's width.
template <class Edges>
KOKKOS_INLINE_FUNCTION double vegas_coordinate(Edges const& edges, int d, int bins, int stratum, int strata, double u,
                                               int& increment, double& jacobian) {
  double const y = (stratum + u) / strata, scaled = y * bins;
  int const i = scaled < bins ? int(scaled) : bins - 1;
  double const lo = edges(d, i), width = edges(d, i + 1) - lo;
  increment = i;
  jacobian *= bins * width;
  return lo + (scaled - i) * width;
}

// A histogram term in fixed-point units, to nearest: one rounded product, then round(), the same
// on every backend (a written term * unit + 0.5 may be contracted into an fma on some and not on
// others).
KOKKOS_INLINE_FUNCTION std::int64_t vegas_units(double term, double unit) {
  return std::int64_t(Kokkos::round(term * unit));
}

// Sample s's values f_k J into values(s, k); returns sum_k w_k (f_k J)^2.
template <class Real, class F, class Values, class Weights>
KOKKOS_INLINE_FUNCTION double vegas_evaluate(F const& f, Point<Real> const& p, double jacobian, Values const& values,
                                             Weights const& weight, std::int64_t s, int components) {
  double sum_squares = 0;
  if constexpr (is_indexed_family<F, Real>) {
    for (int c = 0; c < components; ++c) {
      double const fj = double(f(p, c)) * jacobian;
      values(s, c) = fj;
      sum_squares += weight(c) * fj * fj;
    }
  } else {
    Real v[max_vegas_components];
    f(p, v);
    for (int c = 0; c < components; ++c) {
      double const fj = double(v[c]) * jacobian;
      values(s, c) = fj;
      sum_squares += weight(c) * fj * fj;
    }
  }
  return sum_squares;
}

template <class ExecutionSpace>
struct VegasSampler {
  using Mem = typename ExecutionSpace::memory_space;
  using Matrix = algorithms::ColumnMatrix<Mem>;

  int n = 0, bins = 0, m = 1;  // dimension, increments per axis, components
  std::int64_t cells = 0, capacity = 0;
  int scratch_bins = vegas_scratch_bins;  // bins a histogram team adds in scratch at once (0: none)
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> edges, next_edges;  // n x (bins + 1): the map, adapt's output
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> map_histogram, map_weights;  // n x bins: adapt's work
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> map_prefix;  // n x (bins + 1): adapt's running weights
  // Per axis; cell h's strata are the digits of h in the mixed radix (strata(0), strata(1), ...), so
  // its stratum on axis d is (h / (strata(0) ... strata(d - 1))) % strata(d). Fewer than 2^32 cells.
  Kokkos::View<std::uint32_t*, Mem> strata;
  Kokkos::View<std::int64_t*, Mem> offsets;  // cells + 1: cell h's samples [offsets(h), offsets(h + 1))
  Kokkos::View<std::int64_t*, Mem> first_cell;  // the cell of sample b vegas_index_block (vegas_allocation.hpp)
  Kokkos::View<std::int64_t*, Mem> cell_of;  // per sample
  Kokkos::View<double*, Mem> weight;  // per component: w_k
  Matrix values;  // samples x m: f_k J
  // Per sample: its histogram term sum_k w_k (f_k J)^2 V_h / n_h, and its increment on each axis.
  Kokkos::View<double*, Mem> sample_terms;
  Kokkos::View<VegasIncrement**, Kokkos::LayoutRight, Mem> increments;  // n x capacity
  Matrix cell_terms;  // cells x 2 m: V_h mean_h(f_k J), V_h^2 Var_h(f_k J) / n_h per component k
  Matrix cell_variance;  // cells x m: Var_h(f_k J)
  Kokkos::View<double*, Mem> sigma;  // per cell: V_h sqrt(sum_k w_k Var_h(f_k J))
  Kokkos::View<std::int64_t*, Mem> histogram;  // n bins, fixed point
  Kokkos::View<double*, Mem> block_sums;  // fixed_order_column_sums' scratch for cell_terms
  // A chunk's sum of f_k J, then of its squared deviations, per component: the chunk of cell h
  // starting at sample s is row h + s / vegas_chunk (rows increase with the chunks, so they are
  // distinct, and below cells + capacity / vegas_chunk).
  Matrix chunk_sums;
  Kokkos::View<double*, Mem> chunk_top;  // per chunk row: its samples' largest histogram term
  VegasAllocation<ExecutionSpace> allocation;  // writes offsets from sigma
  // 2 m + 1: the iteration's estimate and variance per component (cell_terms' column sums), then
  // its samples over all ranks; report_host is its copy on the host.
  Kokkos::View<double*, Mem> report;
  typename Kokkos::View<double*, Mem>::host_mirror_type report_host;
  Kokkos::View<double, Mem> largest_term;  // the histograms' largest term over all ranks
  // The histograms' unit: a bin's weight is its integer / scale; 0 where they cannot adapt the map
  // (a term not finite, or all zero). adapt reads it on the device.
  Kokkos::View<double, Mem> scale;
  std::vector<double> weights_copied;  // the component weights last copied to `weight`
  // gather_cells' buffers (several ranks only): cells x (2 m + 1), on the device and the host.
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> gathered;
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> gathered_host;
  std::vector<double> gathered_all;

  VegasSampler(ExecutionSpace const& space, int n_, int bins_, int components, std::vector<int> const& strata_host,
               std::int64_t max_samples)
      : n(n_), bins(bins_), m(components), capacity(max_samples) {
    require(bins >= 1 && bins <= max_vegas_bins, "VEGAS bins must be in [1, " + std::to_string(max_vegas_bins) + "]");
    cells = 1;
    for (int d = 0; d < n; ++d) cells *= strata_host[d];
    require(cells < (std::int64_t(1) << 32), "VEGAS stratification cells must be fewer than 2^32");
    std::vector<std::uint32_t> strata_unsigned(strata_host.begin(), strata_host.end());
    // A std::string label: a char const* variable would be taken for the memory to use.
    auto alloc = [&](std::string const& label) {
      return Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label);
    };
    edges = decltype(edges)(alloc("parity::cubature::vegas_edges"), n, bins + 1);
    next_edges = decltype(edges)(alloc("parity::cubature::vegas_next_edges"), n, bins + 1);
    map_histogram = decltype(map_histogram)(alloc("parity::cubature::vegas_map_histogram"), n, bins);
    map_weights = decltype(map_weights)(alloc("parity::cubature::vegas_map_weights"), n, bins);
    map_prefix = decltype(map_prefix)(alloc("parity::cubature::vegas_map_prefix"), n, bins + 1);
    strata = decltype(strata)(alloc("parity::cubature::vegas_strata"), n);
    offsets = decltype(offsets)(alloc("parity::cubature::vegas_offsets"), cells + 1);
    first_cell = decltype(first_cell)(alloc("parity::cubature::vegas_first_cell"), capacity / vegas_index_block + 2);
    cell_of = decltype(cell_of)(alloc("parity::cubature::vegas_cell_of"), capacity);
    weight = decltype(weight)(alloc("parity::cubature::vegas_component_weights"), m);
    values = Matrix(alloc("parity::cubature::vegas_values"), capacity, m);
    sample_terms = decltype(sample_terms)(alloc("parity::cubature::vegas_sample_terms"), capacity);
    increments = decltype(increments)(alloc("parity::cubature::vegas_increments"), n, capacity);
    cell_terms = Matrix(alloc("parity::cubature::vegas_cell_terms"), cells, 2 * m);
    cell_variance = Matrix(alloc("parity::cubature::vegas_cell_variance"), cells, m);
    sigma = decltype(sigma)(alloc("parity::cubature::vegas_sigma"), cells);
    histogram = decltype(histogram)(alloc("parity::cubature::vegas_histogram"), std::int64_t(n) * bins);
    block_sums = decltype(block_sums)(alloc("parity::cubature::vegas_block_sums"),
                                      std::max<std::int64_t>(1, algorithms::fixed_order_scratch_size(cells, 2 * m)));
    allocation = VegasAllocation<ExecutionSpace>(space, cells);
    chunk_sums = Matrix(alloc("parity::cubature::vegas_chunk_sums"), capacity / vegas_chunk + cells, m);
    chunk_top = decltype(chunk_top)(alloc("parity::cubature::vegas_chunk_top"), capacity / vegas_chunk + cells);
    report = decltype(report)(alloc("parity::cubature::vegas_report"), 2 * m + 1);
    report_host = Kokkos::create_mirror_view(report);
    largest_term = decltype(largest_term)(alloc("parity::cubature::vegas_largest_term"));
    scale = decltype(scale)(alloc("parity::cubature::vegas_histogram_scale"));
    copy_in(space, strata, strata_unsigned);
    space.fence("parity::cubature::vegas_setup");  // strata_unsigned goes out of scope
  }

  template <class T>
  static void copy_in(ExecutionSpace const& space, Kokkos::View<T*, Mem> const& to, std::vector<T> const& from) {
    Kokkos::View<T const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(from.data(), from.size());
    Kokkos::deep_copy(space, Kokkos::subview(to, std::make_pair(std::size_t(0), from.size())), h);
  }
  template <class T>
  static std::vector<T> copy_out(ExecutionSpace const& space, Kokkos::View<T*, Mem> const& from, std::size_t count) {
    std::vector<T> out(count);
    Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(out.data(), count);
    Kokkos::deep_copy(space, h, Kokkos::subview(from, std::make_pair(std::size_t(0), count)));
    space.fence("parity::cubature::vegas_copy_out");
    return out;
  }

  struct Sums {
    std::vector<double> estimate, variance;  // per component
    std::int64_t samples = 0;  // over all ranks
  };

  // The map's edges (n x (bins + 1), axis-major) to the device, and back.
  void set_map(ExecutionSpace const& space, std::vector<double> const& edges_host) {
    Kokkos::View<double const**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> from(
        edges_host.data(), n, bins + 1);
    Kokkos::deep_copy(space, edges, from);
    space.fence("parity::cubature::vegas_set_map");
  }
  std::vector<double> map(ExecutionSpace const& space) const {
    std::vector<double> out(std::size_t(n) * (bins + 1));
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> to(
        out.data(), n, bins + 1);
    Kokkos::deep_copy(space, to, edges);
    space.fence("parity::cubature::vegas_map");
    return out;
  }

  // Enqueues the next iteration's samples per cell, into offsets on the device: an even share (the
  // first iteration) or following sigma^beta of the last iteration's cells. At most capacity
  // samples; sample_count reads how many.
  void allocate(ExecutionSpace const& space, bool first, double beta) {
    if (first)
      allocation.even(space, capacity, offsets, first_cell);
    else
      allocation.following(space, sigma, beta, capacity, offsets, first_cell);
  }
  std::int64_t sample_count(ExecutionSpace const& space) const { return offset(space, cells); }

  // offsets(h), read from the device.
  std::int64_t offset(ExecutionSpace const& space, std::int64_t h) const {
    std::int64_t value = 0;
    Kokkos::View<std::int64_t, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> to(&value);
    Kokkos::deep_copy(space, to, Kokkos::subview(offsets, h));
    space.fence("parity::cubature::vegas_offset");
    return value;
  }

  // The iteration's estimate and variance per component and its samples, the same on every rank:
  // waits for the kernels of iterate.
  Sums sums(ExecutionSpace const& space) const {
    Kokkos::deep_copy(space, report_host, report);
    space.fence("parity::cubature::vegas_sums");
    Sums out;
    for (int c = 0; c < m; ++c) {
      out.estimate.push_back(report_host(2 * c));
      out.variance.push_back(report_host(2 * c + 1));
    }
    out.samples = std::int64_t(report_host(2 * m));
    return out;
  }

  // Enqueues one iteration with the map on the device, the allocation of the last allocate and the
  // given component weights: evaluates this rank's samples, leaves the iteration's estimates in
  // report (read by sums), each cell's sigma in sigma, and the histograms, summed over the ranks,
  // in histogram with their unit in scale, for adapt.
  template <class Real, class F>
  void iterate(ExecutionSpace const& space, F const& f, std::uint64_t seed, int iteration,
               std::vector<double> const& weights_host, run::Communicator const& ranks = {}) {
    if (weights_host != weights_copied) {  // a family's weights change while the map adapts
      weights_copied = weights_host;  // a copy that outlives the transfer
      copy_in(space, weight, weights_copied);
    }
    int const dim = n, nbins = bins, pairs = (n + 1) / 2, components = m;
    std::int64_t const ncells = cells;
    std::int64_t const c0 = ranks.first(ncells), c1 = ranks.last(ncells);  // this rank's cells
    // and samples [s0, offsets(c1)). The kernels run over [s0, bound) and threads at or past
    // offsets(c1) return: one rank takes capacity as the bound and reads nothing; several ranks
    // read their bounds.
    bool const several = ranks.several();
    std::int64_t const s0 = several && c0 > 0 ? offset(space, c0) : 0;
    std::int64_t const bound = several ? offset(space, c1) : capacity;
    auto const edges_ = edges;
    auto const strata_ = strata;
    auto const offsets_ = offsets;
    auto const first_cell_ = first_cell;
    auto const cell_of_ = cell_of;
    auto const values_ = values;
    auto const terms_ = sample_terms;
    auto const increments_ = increments;
    auto const weight_ = weight;
    double const volume = 1.0 / double(ncells);
    Kokkos::parallel_for(
        "parity::cubature::vegas_sample", Kokkos::RangePolicy<ExecutionSpace>(space, s0, bound),
        KOKKOS_LAMBDA(std::int64_t s) {
          std::int64_t const end = offsets_(c1);
          if (s >= end) return;
          // The cell, offsets(lo) <= s < offsets(lo + 1), between the index's entries for s's block
          // and the next (or this rank's last cell): a few steps, mostly shared by a warp.
          std::int64_t const b = s / vegas_index_block;
          std::int64_t lo = first_cell_(b), hi = (b + 1) * vegas_index_block < end ? first_cell_(b + 1) + 1 : c1;
          while (hi - lo > 1) {
            std::int64_t const mid = (lo + hi) / 2;
            if (offsets_(mid) <= s)
              lo = mid;
            else
              hi = mid;
          }
          Point<Real> p;
          p.dim = dim;
          double jacobian = 1;
          std::uint32_t rest = std::uint32_t(lo);  // the cell's strata, axis by axis
          for (int k = 0; k < pairs; ++k) {
            random::Block4 const b = vegas_block(seed, iteration, s, k, pairs);
            for (int e = 0; e < 2 && 2 * k + e < dim; ++e) {
              int const d = 2 * k + e;
              std::uint32_t const radix = strata_(d), stratum = rest % radix;
              rest /= radix;
              int increment;
              double const u = random::uniform_double(b.v[2 * e], b.v[2 * e + 1]);
              p.x[d] = Real(vegas_coordinate(edges_, d, nbins, int(stratum), int(radix), u, increment, jacobian));
              increments_(d, s) = VegasIncrement(increment);
            }
          }
          cell_of_(s) = lo;
          double const sum_squares = vegas_evaluate<Real>(f, p, jacobian, values_, weight_, s, components);
          terms_(s) = sum_squares * volume / double(offsets_(lo + 1) - offsets_(lo));
        });
    auto const sigma_ = sigma;
    cell_statistics(space, c0, c1, s0, bound, volume);
    auto const variance_ = cell_variance;
    auto const top_ = chunk_top;
    // Each cell's sigma, and the largest histogram term over this rank's cells (from their chunks'
    // largest) into largest_term, left on the device. A NaN term counts as infinite, which a
    // maximum cannot lose and which marks the histograms as unusable all the same.
    Kokkos::parallel_reduce(
        "parity::cubature::vegas_cell_sigma", Kokkos::RangePolicy<ExecutionSpace>(space, c0, c1),
        KOKKOS_LAMBDA(std::int64_t h, double& largest) {
          double var_sum = 0;
          for (int c = 0; c < components; ++c) var_sum += weight_(c) * variance_(h, c);
          sigma_(h) = volume * Kokkos::sqrt(var_sum);
          for (std::int64_t s = offsets_(h); s < offsets_(h + 1); s += vegas_chunk) {
            double const top = top_(h + s / vegas_chunk);
            double const t = top == top ? top : Kokkos::Experimental::infinity<double>::value;
            largest = t > largest ? t : largest;
          }
        },
        Kokkos::Max<double, Mem>(largest_term));
    if (several) gather_cells(space, ranks, c0, c1);
    algorithms::fixed_order_column_sums_on_device(space, cell_terms, ncells, block_sums, report);
    histograms(space, c1, s0, bound, ranks);
  }

  // What thread j of a chunk kernel works on (one thread per sample s = j / m and component
  // c = j % m, over [s0, bound)): where s starts a chunk of its cell h (s - offsets(h) a multiple of
  // vegas_chunk), the chunk's samples [first, last) and its row of chunk_sums; `valid` false for
  // the other samples and those at or past offsets(c1).
  struct Chunk {
    bool valid;
    std::int64_t row, h, first, last;
    int c;
  };
  template <class Offsets, class CellOf>
  KOKKOS_INLINE_FUNCTION static Chunk chunk_of(Offsets const& offsets_, CellOf const& cell_of_, std::int64_t c1,
                                               std::int64_t j, int components) {
    std::int64_t const s = j / components;
    Chunk k{false, 0, 0, s, s, int(j % components)};
    if (s >= offsets_(c1)) return k;
    k.h = cell_of_(s);
    std::int64_t const start = offsets_(k.h), end = offsets_(k.h + 1);
    if ((s - start) % vegas_chunk != 0) return k;
    k.valid = true;
    k.row = k.h + s / vegas_chunk;
    k.last = s + vegas_chunk < end ? s + vegas_chunk : end;
    return k;
  }

  // Cell h's chunk sums of component c, added in chunk order.
  template <class Offsets, class Partial>
  KOKKOS_INLINE_FUNCTION static double cell_sum(Offsets const& offsets_, Partial const& partial, std::int64_t h,
                                                int c) {
    double sum = 0;
    for (std::int64_t s = offsets_(h); s < offsets_(h + 1); s += vegas_chunk) sum += partial(h + s / vegas_chunk, c);
    return sum;
  }

  // Each cell's mean and variance of f_k J (two passes: no cancellation between sum f^2 and n
  // mean^2) into cell_terms and cell_variance, for the cells [c0, c1) and their samples, below
  // bound from s0. Each pass sums chunks of vegas_chunk samples (one thread per chunk and
  // component, in index order), then each cell adds its chunks' sums in order (one thread per cell
  // and component): the same additions on every backend and thread count, and a cell of one chunk
  // sums exactly as one loop over its samples.
  void cell_statistics(ExecutionSpace const& space, std::int64_t c0, std::int64_t c1, std::int64_t s0,
                       std::int64_t bound, double volume) {
    int const components = m;
    auto const offsets_ = offsets;
    auto const cell_of_ = cell_of;
    auto const values_ = values;
    auto const partial = chunk_sums;
    auto const terms = cell_terms;
    auto const variance_ = cell_variance;  // holds the means between the passes
    Kokkos::RangePolicy<ExecutionSpace> const per_sample(space, s0 * components, bound * components);
    Kokkos::parallel_for(
        "parity::cubature::vegas_chunk_sums", per_sample, KOKKOS_LAMBDA(std::int64_t j) {
          Chunk const k = chunk_of(offsets_, cell_of_, c1, j, components);
          if (!k.valid) return;
          double sum = 0;
          for (std::int64_t s = k.first; s < k.last; ++s) sum += values_(s, k.c);
          partial(k.row, k.c) = sum;
        });
    Kokkos::parallel_for(
        "parity::cubature::vegas_cell_means", Kokkos::RangePolicy<ExecutionSpace>(space, 0, (c1 - c0) * components),
        KOKKOS_LAMBDA(std::int64_t j) {
          std::int64_t const h = c0 + j / components;
          int const c = int(j % components);
          variance_(h, c) = cell_sum(offsets_, partial, h, c) / double(offsets_(h + 1) - offsets_(h));
        });
    auto const terms_ = sample_terms;
    auto const top_ = chunk_top;
    Kokkos::parallel_for(
        "parity::cubature::vegas_chunk_squares", per_sample, KOKKOS_LAMBDA(std::int64_t j) {
          Chunk const k = chunk_of(offsets_, cell_of_, c1, j, components);
          if (!k.valid) return;
          double const mean = variance_(k.h, k.c);
          double squares = 0;
          for (std::int64_t s = k.first; s < k.last; ++s)
            squares += (values_(s, k.c) - mean) * (values_(s, k.c) - mean);
          partial(k.row, k.c) = squares;
          if (k.c == 0) {  // the chunk's largest histogram term; a NaN is kept
            double top = 0;
            for (std::int64_t s = k.first; s < k.last; ++s) {
              double const term = terms_(s);
              top = (term > top || term != term) ? term : top;
            }
            top_(k.row) = top;
          }
        });
    Kokkos::parallel_for(
        "parity::cubature::vegas_cells", Kokkos::RangePolicy<ExecutionSpace>(space, 0, (c1 - c0) * components),
        KOKKOS_LAMBDA(std::int64_t j) {
          std::int64_t const h = c0 + j / components;
          int const c = int(j % components);
          double const count = double(offsets_(h + 1) - offsets_(h));
          double const squares = cell_sum(offsets_, partial, h, c);
          double const mean = variance_(h, c);
          double const var = squares / (count - 1);
          terms(h, 2 * c) = volume * mean;
          terms(h, 2 * c + 1) = volume * volume * var / count;
          variance_(h, c) = var;
        });
  }

  // Every rank's cell terms and sigmas [c0, c1) into every rank's cell_terms and sigma, in cell order.
  void gather_cells(ExecutionSpace const& space, run::Communicator const& ranks, std::int64_t c0, std::int64_t c1) {
    std::int64_t const width = std::int64_t(cell_terms.extent(1)) + 1;  // the terms, then sigma
    if (gathered.extent(0) == 0) {  // allocated at the first gather, kept for the next iterations
      gathered = decltype(gathered)(
          Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("parity::cubature::vegas_gather")), cells,
          width);
      gathered_host = decltype(gathered_host)(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("parity::cubature::vegas_gather_host")), cells,
          width);
      gathered_all.resize(std::size_t(cells * width));
    }
    auto const rows = gathered;
    auto const host = gathered_host;
    auto const terms = cell_terms;
    auto const sigma_ = sigma;
    Kokkos::parallel_for(
        "parity::cubature::vegas_pack_cells", Kokkos::RangePolicy<ExecutionSpace>(space, c0, c1),
        KOKKOS_LAMBDA(std::int64_t h) {
          for (std::int64_t j = 0; j + 1 < width; ++j) rows(h, j) = terms(h, j);
          rows(h, width - 1) = sigma_(h);
        });
    Kokkos::deep_copy(space, host, rows);
    space.fence("parity::cubature::vegas_gather_cells");
    ranks.all_gather(std::span<double const>(host.data() + c0 * width, std::size_t((c1 - c0) * width)), gathered_all);
    std::copy(gathered_all.begin(), gathered_all.end(), host.data());
    Kokkos::deep_copy(space, rows, host);
    Kokkos::parallel_for(
        "parity::cubature::vegas_unpack_cells", Kokkos::RangePolicy<ExecutionSpace>(space, 0, cells),
        KOKKOS_LAMBDA(std::int64_t h) {
          for (std::int64_t j = 0; j + 1 < width; ++j) terms(h, j) = rows(h, j);
          sigma_(h) = rows(h, width - 1);
        });
  }

  // Per axis and increment: the sum over the samples in it of sum_k w_k (f_k J)^2 V_h / n_h, an
  // estimate of the integral of sum_k w_k (f_k J)^2 over the slab (the samples' density is n_h / V_h
  // in cell h). Each term is rounded to a multiple of a unit set by the largest term t over all
  // ranks, u = samples t / 2^62, so that no bin's integer sum can overflow; the rounding (below
  // 2^-63 of the largest possible bin per term) is far below the sampling noise the map adapts to.
  // Reads the samples' terms and increments from the sampling kernel; leaves the
  // unit's inverse in scale (0 where the terms are all zero or one is not finite: then the map stays
  // as it is) and the samples over all ranks in report. This rank's samples are [s0, offsets(c1)),
  // below bound.
  void histograms(ExecutionSpace const& space, std::int64_t c1, std::int64_t s0, std::int64_t bound,
                  run::Communicator const& ranks) {
    int const dim = n, nbins = bins, components = m;
    std::int64_t const ncells = cells;
    auto const offsets_ = offsets;
    auto const terms_ = sample_terms;
    auto const increments_ = increments;
    auto const largest_ = largest_term;
    auto const scale_ = scale;
    auto const report_ = report;
    // The largest term over this rank's samples is in largest_term (iterate's cell_sigma pass).
    if (ranks.several()) {
      double top = 0;
      Kokkos::deep_copy(space, top, largest_);
      space.fence("parity::cubature::vegas_largest_term");
      top = ranks.max(top);
      Kokkos::deep_copy(space, largest_, top);
      space.fence("parity::cubature::vegas_largest_term_in");  // top goes out of scope
    }
    Kokkos::parallel_for(
        "parity::cubature::vegas_histogram_scale", Kokkos::RangePolicy<ExecutionSpace>(space, 0, 1),
        KOKKOS_LAMBDA(int) {
          double const top = largest_(), samples = double(offsets_(ncells));
          // Fixed-point units per 1; a non-finite term, or all-zero terms, leave the map as it is.
          scale_() = Kokkos::isfinite(top) && top > 0 ? 0x1p62 / (samples * top) : 0.0;
          report_(2 * components) = samples;
        });
    // Integer additions are exact in any order, so atomics keep the bits. Each team adds its block
    // of samples into its own copy of a few axes' bins in scratch memory, then those into the
    // histogram: one global atomic per bin and team instead of one per sample and axis. Axes of
    // more than vegas_scratch_bins bins add straight to the histogram.
    auto const histogram_ = histogram;
    Kokkos::deep_copy(space, histogram, std::int64_t(0));
    int const per_pass = std::min(dim, scratch_bins / nbins);  // axes
    if (per_pass == 0) {
      Kokkos::parallel_for(
          "parity::cubature::vegas_histogram", Kokkos::RangePolicy<ExecutionSpace>(space, s0, bound),
          KOKKOS_LAMBDA(std::int64_t s) {
            double const unit = scale_();
            if (!(unit > 0) || s >= offsets_(c1)) return;
            std::int64_t const units = vegas_units(terms_(s), unit);
            for (int d = 0; d < dim; ++d)
              Kokkos::atomic_add(&histogram_(std::int64_t(d) * nbins + increments_(d, s)), units);
          });
    } else {
      using Team = Kokkos::TeamPolicy<ExecutionSpace>;
      using Bins = Kokkos::View<std::int64_t*, typename ExecutionSpace::scratch_memory_space,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
      // Enough teams to fill the device (about one per 128 of its threads; four per thread on a
      // host), each of 1,024 to 16,384 samples: fewer leave a GPU idle at 1e6 samples, more add
      // flushes. The sums are exact, so the split does not change them.
      bool const host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
      std::int64_t const fill = std::max<std::int64_t>(1, host ? 4 * space.concurrency() : space.concurrency() / 128);
      std::int64_t const per_team = std::clamp<std::int64_t>((bound - s0 + fill - 1) / fill, 1024, 16384);
      std::int64_t const teams = std::max<std::int64_t>(1, (bound - s0 + per_team - 1) / per_team);
      int const width = per_pass * nbins;
      Team const policy =
          Team(space, int(teams), Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(Bins::shmem_size(width)));
      Kokkos::parallel_for(
          "parity::cubature::vegas_histogram", policy, KOKKOS_LAMBDA(typename Team::member_type const& team) {
            double const unit = scale_();
            if (!(unit > 0)) return;  // the whole team: the histograms are not used
            Bins bins_(team.team_scratch(0), width);
            std::int64_t const end = offsets_(c1);
            std::int64_t const first = s0 + std::int64_t(team.league_rank()) * per_team;
            std::int64_t const last = first + per_team < end ? first + per_team : (first < end ? end : first);
            for (int d0 = 0; d0 < dim; d0 += per_pass) {
              int const axes = dim - d0 < per_pass ? dim - d0 : per_pass;
              Kokkos::parallel_for(Kokkos::TeamThreadRange(team, width), [&](int b) { bins_(b) = 0; });
              team.team_barrier();
              Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](std::int64_t s) {
                std::int64_t const units = vegas_units(terms_(s), unit);
                for (int e = 0; e < axes; ++e) Kokkos::atomic_add(&bins_(e * nbins + increments_(d0 + e, s)), units);
              });
              team.team_barrier();
              Kokkos::parallel_for(Kokkos::TeamThreadRange(team, axes * nbins), [&](int b) {
                if (bins_(b) != 0) Kokkos::atomic_add(&histogram_(std::int64_t(d0) * nbins + b), bins_(b));
              });
              team.team_barrier();
            }
          });
    }
    if (ranks.several()) {
      std::size_t const length = std::size_t(dim) * std::size_t(nbins);
      std::vector<std::int64_t> counts = copy_out(space, histogram, length);
      ranks.sum(counts);
      copy_in(space, histogram, counts);
      space.fence("parity::cubature::vegas_histogram_in");  // counts goes out of scope
    }
  }

  // Enqueues the map's adaptation to the histograms of the last iterate (bin weights integer /
  // scale, both on the device; a scale of 0 leaves the map as it is), one team per axis, through
  // adapt_axis's element functions and fixed-order block sums, so the same edges as adapt_axis on
  // the host: the increments' smoothing, damping and new edges spread over the team's threads, the
  // block sums over map_blocks threads, and only the blocks' running totals in one thread.
  void adapt(ExecutionSpace const& space, double alpha) {
    if (bins < 2 || alpha == 0) return;
    int const nbins = bins;
    auto const scale_ = scale;
    auto const histogram_ = histogram;
    auto const values = map_histogram;
    auto const weights = map_weights;
    auto const prefixes = map_prefix;
    auto const old = edges;
    auto const next = next_edges;
    using Team = Kokkos::TeamPolicy<ExecutionSpace>;
    using Scratch =
        Kokkos::View<double*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    std::size_t const scratch = Scratch::shmem_size(2 * map_blocks);
    // On a GPU 256 threads an axis: each thread's share of the increments is what takes the time
    // (the team's size does not change the sums' order).
    bool const host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
    Team const team_policy = host ? Team(space, n, Kokkos::AUTO) : Team(space, n, 256);
    Kokkos::parallel_for(
        "parity::cubature::vegas_adapt_map", Team(team_policy).set_scratch_size(0, Kokkos::PerTeam(scratch)),
        KOKKOS_LAMBDA(typename Team::member_type const& team) {
          int const d = team.league_rank();
          Scratch blocks(team.team_scratch(0), 2 * map_blocks);  // the blocks' sums, then their starts
          double* const h = &values(d, 0);
          double* const r = &weights(d, 0);
          double* const prefix = &prefixes(d, 0);
          double const* const from = &old(d, 0);
          double* const to = &next(d, 0);
          double const unit = scale_();
          if (!(unit > 0)) {  // no usable histograms: the axis stays as it is
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nbins + 1), [&](int k) { to[k] = from[k]; });
            return;
          }
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nbins),
                               [&](int i) { h[i] = double(histogram_(std::int64_t(d) * nbins + i)) / unit; });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nbins), [&](int i) { r[i] = smoothed_bin(h, i, nbins); });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, map_blocks),
                               [&](int b) { blocks(b) = block_sum(r, nbins, b); });
          team.team_barrier();
          double total = 0;
          Kokkos::single(
              Kokkos::PerTeam(team),
              [&](double& sum) {
                sum = 0;
                for (int b = 0; b < map_blocks; ++b) sum += blocks(b);
              },
              total);
          bool usable = total > 0 && Kokkos::isfinite(total);
          double damped_total = 0;
          if (usable) {
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nbins),
                                 [&](int i) { r[i] = damped_share(r[i] / total, alpha); });
            team.team_barrier();
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, map_blocks),
                                 [&](int b) { blocks(b) = block_sum(r, nbins, b); });
            team.team_barrier();
            Kokkos::single(
                Kokkos::PerTeam(team),
                [&](double& sum) {
                  sum = 0;
                  for (int b = 0; b < map_blocks; ++b) {
                    blocks(map_blocks + b) = sum;
                    sum += blocks(b);
                  }
                  prefix[nbins] = sum;
                },
                damped_total);
            team.team_barrier();
            usable = damped_total > 0;
          }
          if (!usable) {  // the axis stays as it is
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nbins + 1), [&](int k) { to[k] = from[k]; });
            return;
          }
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, map_blocks),
                               [&](int b) { block_prefix(r, prefix, nbins, b, blocks(map_blocks + b)); });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 1, nbins),
                               [&](int k) { to[k] = placed_edge(r, prefix, damped_total, from, nbins, k); });
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            to[0] = from[0];
            to[nbins] = from[nbins];
          });
          team.team_barrier();
          // Each edge clamped to [the previous one, the last], in order, is the running maximum of
          // the edges so far, capped: maxima per block, their running maxima, then each block's.
          int const inner = nbins - 1;  // edges 1 .. bins - 1
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, map_blocks), [&](int b) {
            double top = -1.7976931348623157e308;
            for (int k = 1 + block_begin(inner, b); k < 1 + block_begin(inner, b + 1); ++k)
              top = top < to[k] ? to[k] : top;
            blocks(b) = top;
          });
          team.team_barrier();
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            double running = to[0];
            for (int b = 0; b < map_blocks; ++b) {
              blocks(map_blocks + b) = running;
              running = running < blocks(b) ? blocks(b) : running;
            }
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, map_blocks), [&](int b) {
            double running = blocks(map_blocks + b);
            for (int k = 1 + block_begin(inner, b); k < 1 + block_begin(inner, b + 1); ++k) {
              running = running < to[k] ? to[k] : running;
              to[k] = running < from[nbins] ? running : from[nbins];
            }
          });
        });
    std::swap(edges, next_edges);
  }
};

}  // namespace parity::cubature::detail
