#pragma once
// Column sums whose bits do not depend on the backend or the thread count: the rows are summed in
// blocks of fixed_order_block, each block left to right, then the block sums likewise, level by
// level, until one row is left. A parallel_reduce would be faster but its order (and so its
// rounding) changes with the thread count; these sums are the same on Serial, OpenMP and CUDA.
//
//   auto s = fixed_order_column_sums(space, terms, rows);  // s[c] = sum of terms(0..rows-1, c)
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

namespace parity::algorithms {

// The terms to sum: rows x columns, row-major.
template <class MemorySpace>
using ColumnMatrix = Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace>;

inline constexpr std::int64_t fixed_order_block = 256;

// Doubles of scratch fixed_order_column_sums needs for the block sums of `rows` rows of `columns`.
inline std::int64_t fixed_order_scratch_size(std::int64_t rows, int columns) {
  std::int64_t need = 0;
  for (std::int64_t len = rows; len > 1; len = (len + fixed_order_block - 1) / fixed_order_block)
    need += (len + fixed_order_block - 1) / fixed_order_block * columns;
  return need;
}

namespace detail {

// Columns summed together by one team (fixed_order_block_sums): a tile of fixed_order_block rows
// by these columns sits in the team's scratch memory.
inline constexpr int fixed_order_tile_columns = 16;

// next(b, c) = the sum of in(i, c) over block b's rows i < len, left to right. On a host, one
// thread per block and column reads its rows in place. On a GPU that would leave each thread
// waiting on 256 scattered loads with few threads to hide them; there a team per block (and
// group of up to fixed_order_tile_columns columns) loads the block's rows into scratch memory,
// coalesced, and one thread per column adds them there in the same order: the same bits.
template <class ExecutionSpace>
void fixed_order_block_sums(ExecutionSpace const& space, ColumnMatrix<typename ExecutionSpace::memory_space> in,
                            std::int64_t len, ColumnMatrix<typename ExecutionSpace::memory_space> next) {
  using Mem = typename ExecutionSpace::memory_space;
  int const k = int(in.extent(1));
  std::int64_t const block = fixed_order_block, blocks = (len + block - 1) / block;
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    Kokkos::parallel_for(
        "parity::algorithms::fixed_order_block_sums", Kokkos::RangePolicy<ExecutionSpace>(space, 0, blocks * k),
        KOKKOS_LAMBDA(std::int64_t j) {  // one thread per block and column: many columns run in parallel
          std::int64_t const b = j / k;
          int const c = int(j % k);
          std::int64_t const end = (b + 1) * block < len ? (b + 1) * block : len;
          double s = 0;
          for (std::int64_t i = b * block; i < end; ++i) s += in(i, c);
          next(b, c) = s;
        });
    return;
  }
  using Team = Kokkos::TeamPolicy<ExecutionSpace>;
  using Tile = Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::scratch_memory_space,
                            Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  int const group = k < fixed_order_tile_columns ? k : fixed_order_tile_columns;
  int const groups = (k + group - 1) / group;
  Team const policy = Team(space, int(blocks * groups), Kokkos::AUTO)
                          .set_scratch_size(0, Kokkos::PerTeam(Tile::shmem_size(block, group)));
  Kokkos::parallel_for(
      "parity::algorithms::fixed_order_block_sums", policy, KOKKOS_LAMBDA(typename Team::member_type const& team) {
        std::int64_t const b = team.league_rank() / groups;
        int const first = (team.league_rank() % groups) * group;
        int const width = k - first < group ? k - first : group;
        std::int64_t const begin = b * block;
        int const rows = int((begin + block < len ? begin + block : len) - begin);
        Tile tile(team.team_scratch(0), block, group);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows * width),
                             [&](int j) { tile(j / width, j % width) = in(begin + j / width, first + j % width); });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, width), [&](int c) {
          double s = 0;
          for (int i = 0; i < rows; ++i) s += tile(i, c);
          next(b, first + c) = s;
        });
      });
}

// Whether len rows of k columns and their block sums fit in `doubles`.
inline bool fixed_order_fits(std::int64_t len, int k, std::int64_t doubles) {
  return (len + (len + fixed_order_block - 1) / fixed_order_block) * k <= doubles;
}

// Sums the rows level by level into blocks of `scratch` (replaced by a larger allocation where it
// is too small) until one row is left, or until len rows and their block sums (x columns) are at
// most `fits` doubles, and returns those len rows: terms itself where no level ran, else a slice
// of scratch, valid while the caller holds scratch. rows >= 1.
template <class ExecutionSpace>
ColumnMatrix<typename ExecutionSpace::memory_space> fixed_order_levels(
    ExecutionSpace const& space, ColumnMatrix<typename ExecutionSpace::memory_space> terms, std::int64_t rows,
    Kokkos::View<double*, typename ExecutionSpace::memory_space>& scratch, std::int64_t& len, std::int64_t fits = 0) {
  using Mem = typename ExecutionSpace::memory_space;
  int const k = int(terms.extent(1));
  std::int64_t const need = fixed_order_scratch_size(rows, k);
  if (std::int64_t(scratch.extent(0)) < need)
    scratch = Kokkos::View<double*, Mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "parity::algorithms::fixed_order_scratch"), need);
  std::int64_t const block = fixed_order_block;
  std::int64_t used = 0;
  auto current = terms;
  len = rows;
  while (len > 1 && !fixed_order_fits(len, k, fits)) {
    std::int64_t const blocks = (len + block - 1) / block;
    ColumnMatrix<Mem> next(scratch.data() + used, blocks, k);  // unmanaged: a slice of scratch
    used += blocks * k;
    fixed_order_block_sums(space, current, len, next);
    current = next;
    len = blocks;
  }
  return current;
}

// Doubles fixed_order_tail_sums holds (the rows and their block sums): 31 KiB of one team's
// scratch memory, within every backend's level 0.
inline constexpr std::int64_t fixed_order_tail = 3968;

// sums(offset + c) = the column sums of in's len rows (with their block sums at most
// fixed_order_tail doubles), in the blocked order, by one team: it loads the rows into scratch
// memory, coalesced, and adds them level after level there. On a GPU the last levels cost one
// launch instead of one each and a copy.
template <class ExecutionSpace>
void fixed_order_tail_sums(ExecutionSpace const& space, ColumnMatrix<typename ExecutionSpace::memory_space> in,
                           std::int64_t len, Kokkos::View<double*, typename ExecutionSpace::memory_space> sums,
                           std::int64_t offset) {
  using Team = Kokkos::TeamPolicy<ExecutionSpace>;
  using Cells =
      Kokkos::View<double*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  int const k = int(in.extent(1));
  std::int64_t const block = fixed_order_block, first = len * k, second = (len + block - 1) / block * k;
  Team const policy = Team(space, 1, Kokkos::AUTO)
                          .set_scratch_size(0, Kokkos::PerTeam(Cells::shmem_size(first) + Cells::shmem_size(second)));
  Kokkos::parallel_for(
      "parity::algorithms::fixed_order_tail_sums", policy, KOKKOS_LAMBDA(typename Team::member_type const& team) {
        Cells a(team.team_scratch(0), first), b(team.team_scratch(0), second);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first), [&](std::int64_t j) { a(j) = in(j / k, j % k); });
        team.team_barrier();
        double* from = a.data();
        double* to = b.data();
        for (std::int64_t n = len; n > 1;) {  // each level's rows, row-major, into the other buffer
          std::int64_t const blocks = (n + block - 1) / block;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, blocks * k), [&](std::int64_t j) {
            std::int64_t const r = j / k, c = j % k, end = (r + 1) * block < n ? (r + 1) * block : n;
            double s = 0;
            for (std::int64_t i = r * block; i < end; ++i) s += from[i * k + c];
            to[j] = s;
          });
          team.team_barrier();
          double* const t = from;
          from = to;
          to = t;
          n = blocks;
        }
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, k), [&](int c) { sums(offset + c) = from[c]; });
      });
}

}  // namespace detail

// Column sums of terms(0..rows-1, :) in the fixed blocked order above, returned on the host. The
// block sums go to `scratch` when it holds fixed_order_scratch_size(rows, columns) doubles, else to
// one temporary allocation: a device allocation and its release synchronize the whole device,
// which would serialize callers that run on several execution-space instances at once.
template <class ExecutionSpace>
std::vector<double> fixed_order_column_sums(ExecutionSpace const& space,
                                            ColumnMatrix<typename ExecutionSpace::memory_space> terms,
                                            std::int64_t rows,
                                            Kokkos::View<double*, typename ExecutionSpace::memory_space> scratch = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, typename ExecutionSpace::memory_space>::accessible);
  int const k = int(terms.extent(1));
  std::vector<double> out(k, 0.0);
  if (rows == 0) return out;
  std::int64_t len = 0;
  auto const first = Kokkos::subview(detail::fixed_order_levels(space, terms, rows, scratch, len), 0, Kokkos::ALL);
  // Copied on `space` and fenced there: a copy without an execution space fences every instance.
  auto const host = Kokkos::create_mirror_view(Kokkos::HostSpace(), first);
  Kokkos::deep_copy(space, host, first);
  space.fence("parity::algorithms::fixed_order_column_sums");
  for (int c = 0; c < k; ++c) out[c] = host(c);
  return out;
}

// The same sums left on the device: sums(offset + c) = the sum of column c, enqueued on `space`
// without waiting, so a caller that reads them later (or only on the device) keeps the device
// busy. `scratch` as above, kept alive by the caller until the kernels have run (where it is too
// small, the temporary one is waited for before it is released).
template <class ExecutionSpace>
void fixed_order_column_sums_on_device(ExecutionSpace const& space,
                                       ColumnMatrix<typename ExecutionSpace::memory_space> terms, std::int64_t rows,
                                       Kokkos::View<double*, typename ExecutionSpace::memory_space> scratch,
                                       Kokkos::View<double*, typename ExecutionSpace::memory_space> sums,
                                       std::int64_t offset = 0) {
  int const k = int(terms.extent(1));
  if (rows == 0) {
    Kokkos::deep_copy(space, Kokkos::subview(sums, std::make_pair(offset, offset + k)), 0.0);
    return;
  }
  bool const temporary = std::int64_t(scratch.extent(0)) < fixed_order_scratch_size(rows, k);
  std::int64_t len = 0;
  auto const last = detail::fixed_order_levels(space, terms, rows, scratch, len, detail::fixed_order_tail);
  if (detail::fixed_order_fits(len, k, detail::fixed_order_tail))
    detail::fixed_order_tail_sums(space, last, len, sums, offset);
  else  // one row of too many columns for the tail: copied
    Kokkos::parallel_for(
        "parity::algorithms::fixed_order_column_sums_out", Kokkos::RangePolicy<ExecutionSpace>(space, 0, k),
        KOKKOS_LAMBDA(int c) { sums(offset + c) = last(0, c); });
  if (temporary) space.fence("parity::algorithms::fixed_order_column_sums_on_device");
}

}  // namespace parity::algorithms
