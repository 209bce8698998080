#pragma once
// Noisy Kuramoto oscillators coupled through a matrix (needs Kokkos Kernels):
//   gamma x_i' = omega_i + sum_j K_ij sin(x_j - x_i) + sqrt(2 gamma D) xi_i(t).
// The coupling sum is cos x_i (K s)_i - sin x_i (K c)_i with s = sin x, c = cos x: one product of K
// with the N x 2R block [s_0 c_0 ... s_{R-1} c_{R-1}] of R replicas per drift evaluation, a
// KokkosSparse::spmv of a CRS matrix (O(nonzeros) per step) or, for dense K, a KokkosBlas::gemm
// (the matrix read once for all replicas, 2 R columns; one gemm rather than two gemv reads K once).
// The steppers, the noise (KuramotoNoise: the same variate of oscillator i at step s as the
// mean-field and all-pairs kernels), the initial phases and the order-parameter records are
// those of kuramoto.hpp, so K_ij = K / N on the complete graph integrates the mean-field
// realization to rounding. Replica r is keyed by seed + r: it is the one-replica run with that seed.
//
// Across ranks (NetworkKuramotoConfig::ranks) each rank owns a contiguous range of rows
// (oscillators) for all replicas, with the noise and initial state of each row keyed by its global
// index, and its rows of K (a CRS block with global column indices, or the dense row block). Per
// drift evaluation it forms s, c of its rows; these are all-gathered through host memory
// (RowExchange: 2 R N doubles per stage) so that every rank multiplies its rows by the full [s c].
// A row's product reads the same entries in the same order as on one rank, so the phases are
// bit-identical for any rank count (see docs/models/sde.md for the GPU proviso). For r(t), the
// histograms and the final phases the phases are gathered once per sample (R N doubles) and
// recorded by the one-rank kernels on the full vectors; the local order parameter per node is
// computed by each rank for its rows and gathered.
#include <KokkosBlas3_gemm.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include "parity/run/communicator.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/solve_options.hpp"
#include "parity/sde/kuramoto.hpp"
#include "parity/sde/network.hpp"
#include "parity/sde/noise.hpp"
#include "parity/sde/stepper.hpp"

namespace parity::sde {

enum class FrequencyLaw { gaussian, lorentzian };
enum class CouplingStorage { sparse, dense };

// With the entry point's options (run::SolveOptions): progress, phases and the ranks (rows split,
// see the top of this file).
struct NetworkKuramotoConfig : run::SolveOptions {
  double gamma = 1, D = 1;
  double omega_mean = 0, omega_width = 0;  // omega_i = mean + width z_i (width 0: identical)
  FrequencyLaw omega_law = FrequencyLaw::gaussian;  // z_i standard normal or standard Cauchy
  std::vector<double> omega;  // given frequencies (overrides the law when not empty; all replicas)
  std::vector<double> initial_phases;  // given x_i(0) (default: uniform in [0, 2 pi); all replicas)
  double dt = 0.01;
  long steps = 2000;
  int sample_every = 10;
  int bins = 64;
  std::uint64_t seed = 1;  // replica r: seed + r (phases, frequencies, noise)
  int replicas = 1;
  CouplingStorage storage = CouplingStorage::sparse;
  Stepper stepper = Stepper::srk2;
  NoiseLaw noise = NoiseLaw::gaussian;
  bool local_order = false;  // r_i at the end
  bool keep_positions = false;  // copy the final phases to the host
};

namespace detail {

template <class ExecSpace, class Real>
using NetworkMatrix =
    KokkosSparse::CrsMatrix<Real, int, Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>, void, int>;

// N x M blocks, column-major: a replica's phases (or its sin and cos) are contiguous columns,
// as spmv and gemm take them.
template <class ExecSpace, class Real>
using Block = Kokkos::View<Real**, Kokkos::LayoutLeft, typename ExecSpace::memory_space>;

// Rows [row0, row1) of the host CSR matrix on the device (all N columns, global indices), values
// in Real; all rows by default. With per_row >= 0, padding rows follow (empty, and the last one
// holding zeros in column 0) so that the block's integer mean of nonzeros per row is per_row, the
// whole matrix's: a GPU spmv of Kokkos Kernels splits a row's sum over lanes by that mean, so a
// rank's rows are summed in the one-rank order. The padding rows' products are never read.
template <class ExecSpace, class Real>
NetworkMatrix<ExecSpace, Real> to_device_matrix(ExecSpace const& space, Network const& g, int row0 = 0, int row1 = -1,
                                                int per_row = -1) {
  using Matrix = NetworkMatrix<ExecSpace, Real>;
  using Mem = typename ExecSpace::memory_space;
  if (row1 < 0) row1 = g.n;
  int const rows_here = row1 - row0;
  std::int64_t const e0 = g.row_ptr[row0];
  int const nnz = int(g.row_ptr[row1] - e0);
  long padded_rows = rows_here, padded_nnz = nnz;  // floor(padded_nnz / padded_rows) = per_row
  if (per_row >= 0 && rows_here > 0) {
    padded_rows = std::max<long>(rows_here, nnz / (per_row + 1L) + 1);
    padded_nnz = std::max<long>(nnz, long(per_row) * padded_rows);
    if (padded_nnz > nnz && padded_rows == rows_here) {  // the zeros need a row of their own
      ++padded_rows;
      padded_nnz = std::max<long>(nnz, long(per_row) * padded_rows);
    }
  }
  Kokkos::View<int*, Mem> rows(Kokkos::view_alloc(space, "parity::sde::network_row_map"), padded_rows + 1);
  Kokkos::View<int*, Mem> cols(Kokkos::view_alloc(space, "parity::sde::network_columns"), padded_nnz);
  Kokkos::View<Real*, Mem> vals(Kokkos::view_alloc(space, "parity::sde::network_coupling"), padded_nnz);
  auto rh = Kokkos::create_mirror_view(rows);
  auto ch = Kokkos::create_mirror_view(cols);
  auto vh = Kokkos::create_mirror_view(vals);
  for (int i = 0; i <= rows_here; ++i) rh(i) = int(g.row_ptr[row0 + i] - e0);
  for (long i = rows_here + 1; i <= padded_rows; ++i) rh(i) = i < padded_rows ? nnz : int(padded_nnz);
  for (int e = 0; e < nnz; ++e) ch(e) = g.col[e0 + e], vh(e) = Real(g.weight[e0 + e]);
  for (long e = nnz; e < padded_nnz; ++e) ch(e) = 0, vh(e) = Real(0);
  Kokkos::deep_copy(space, rows, rh);
  Kokkos::deep_copy(space, cols, ch);
  Kokkos::deep_copy(space, vals, vh);
  space.fence("parity::sde::network_upload");
  return Matrix("parity::sde::network_matrix", int(padded_rows), g.n, int(padded_nnz), vals, rows, cols);
}

// The CRS matrix (rows x N) scattered into a zeroed dense matrix on the device (no N^2 host copy).
template <class ExecSpace, class Real>
Block<ExecSpace, Real> to_dense(ExecSpace const& space, NetworkMatrix<ExecSpace, Real> const& kmat) {
  int const n = int(kmat.numRows());
  Block<ExecSpace, Real> dense(Kokkos::view_alloc(space, "parity::sde::network_dense_coupling"), n, kmat.numCols());
  auto const rows = kmat.graph.row_map;
  auto const cols = kmat.graph.entries;
  auto const vals = kmat.values;
  Kokkos::parallel_for(
      "parity::sde::network_kuramoto_densify", Kokkos::RangePolicy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(int i) {
        for (int e = rows(i); e < rows(i + 1); ++e) dense(i, cols(e)) = vals(e);
      });
  return dense;
}

// The coupling matrix in the storage that products use.
template <class ExecSpace, class Real>
struct NetworkCoupling {
  NetworkMatrix<ExecSpace, Real> sparse;
  Block<ExecSpace, Real> dense;  // extent 0 unless dense
};

// [A B] = K [s c] (2 R columns) by spmv or gemm.
template <class ExecSpace, class Real>
void coupling_product(ExecSpace const& space, NetworkCoupling<ExecSpace, Real> const& k,
                      Block<ExecSpace, Real> const& sc, Block<ExecSpace, Real> const& ab) {
  if (k.dense.extent(0) > 0)
    KokkosBlas::gemm(space, "N", "N", Real(1), k.dense, sc, Real(0), ab);
  else
    KokkosSparse::spmv(space, "N", Real(1), k.sparse, sc, Real(0), ab);
}

// First row of rank q of `ranks` (q = ranks: N): contiguous, as even as the rows allow.
inline int network_first_row(int n, int q, int ranks) { return int(long(n) * q / ranks); }

// Several ranks: this rank's rows [row0, row0 + rows) of an R- or 2R-column block all-gathered into
// the full N-row block on every rank, through host memory (the GPU machines' MPI is not
// CUDA-aware). The buffers are sized once, for 2R columns; a gather of m columns uses the first m
// (leading columns of a column-major block are contiguous). Float values travel as doubles (exact).
template <class ExecSpace, class Real>
struct RowExchange {
  using HostBlock = Kokkos::View<Real**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  run::Communicator ranks;  // size 1: nothing to exchange
  std::vector<int> first{0};  // every rank's first row, then N
  int row0 = 0, rows = 0;
  Block<ExecSpace, Real> mine;  // this rank's s, c (rows x 2R) before the gather
  HostBlock mine_host, all_host;
  std::vector<double> mine_values, all_values;
  bool active() const { return ranks.size > 1; }
};

template <class ExecSpace, class Real>
RowExchange<ExecSpace, Real> make_row_exchange(ExecSpace const& space, int n, int replicas,
                                               run::Communicator const& ranks) {
  RowExchange<ExecSpace, Real> ex;
  ex.ranks = ranks;
  int const nranks = ranks.size > 1 ? ranks.size : 1, rank = nranks > 1 ? ranks.rank : 0;
  ex.first.resize(std::size_t(nranks) + 1);
  for (int q = 0; q <= nranks; ++q) ex.first[std::size_t(q)] = network_first_row(n, q, nranks);
  ex.row0 = ex.first[std::size_t(rank)];
  ex.rows = ex.first[std::size_t(rank) + 1] - ex.row0;
  if (!ex.active()) return ex;
  int const m = 2 * replicas;
  ex.mine = Block<ExecSpace, Real>(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_sincos_mine"), ex.rows, m);
  ex.mine_host = typename RowExchange<ExecSpace, Real>::HostBlock("parity::sde::network_rows_host", ex.rows, m);
  ex.all_host = typename RowExchange<ExecSpace, Real>::HostBlock("parity::sde::network_rows_all_host", n, m);
  ex.mine_values.resize(std::size_t(ex.rows) * m);
  ex.all_values.resize(std::size_t(n) * m);
  return ex;
}

// dst (N x m) = every rank's src (its rows x m, contiguous) placed at the rank's rows.
template <class ExecSpace, class Real>
void gather_rows(ExecSpace const& space, RowExchange<ExecSpace, Real>& ex, Block<ExecSpace, Real> const& src,
                 Block<ExecSpace, Real> const& dst) {
  int const m = int(src.extent(1)), rows = ex.rows, n = ex.first.back();
  auto const cols = Kokkos::pair<int, int>(0, m);
  auto const mine = Kokkos::subview(ex.mine_host, Kokkos::ALL, cols);
  Kokkos::deep_copy(space, mine, src);
  space.fence("parity::sde::network_rows_to_host");
  std::size_t at = 0;
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < rows; ++i) ex.mine_values[at++] = double(mine(i, j));
  ex.ranks.all_gather(std::span<double const>(ex.mine_values.data(), std::size_t(rows) * m),
                      std::span<double>(ex.all_values.data(), std::size_t(n) * m));
  auto const all = Kokkos::subview(ex.all_host, Kokkos::ALL, cols);
  at = 0;
  for (std::size_t q = 0; q + 1 < ex.first.size(); ++q)
    for (int j = 0; j < m; ++j)
      for (int i = ex.first[q]; i < ex.first[q + 1]; ++i) all(i, j) = Real(ex.all_values[at++]);
  Kokkos::deep_copy(space, dst, all);
}

// [s_r c_r] of every replica r of x's rows into columns 2r, 2r + 1 of `own` (sc itself on one
// rank; several ranks: ex.mine, then gathered into sc), then this rank's rows of K times sc into ab.
template <class ExecSpace, class Real>
void network_coupling_sums(ExecSpace const& space, Block<ExecSpace, Real> const& x,
                           NetworkCoupling<ExecSpace, Real> const& k, Block<ExecSpace, Real> const& sc,
                           Block<ExecSpace, Real> const& ab, RowExchange<ExecSpace, Real>& ex) {
  int const n = int(x.extent(0));
  Block<ExecSpace, Real> const own = ex.active() ? ex.mine : sc;
  Kokkos::parallel_for(
      "parity::sde::network_kuramoto_sincos", Kokkos::RangePolicy<ExecSpace>(space, 0, n * int(x.extent(1))),
      KOKKOS_LAMBDA(int t) {
        int const i = t % n, r = t / n;
        Real sn, cs;
        sincos_phase(x(i, r), sn, cs);
        own(i, 2 * r) = sn;
        own(i, 2 * r + 1) = cs;
      });
  if (ex.active()) gather_rows<ExecSpace, Real>(space, ex, own, sc);
  coupling_product<ExecSpace, Real>(space, k, sc, ab);
}

// omega_ir, or the common value when all are equal (no memory read).
template <class ExecSpace, class Real>
struct BlockOmega {
  Block<ExecSpace, Real> omega;
  Real common;
  bool uniform;
  KOKKOS_INLINE_FUNCTION Real operator()(int i, int r) const { return uniform ? common : omega(i, r); }
};

// f(i, r) = (omega_ir + cos x_ir A_ir - sin x_ir B_ir) / gamma for this rank's rows i.
template <class ExecSpace, class Real>
void network_drift(ExecSpace const& space, Block<ExecSpace, Real> const& x, BlockOmega<ExecSpace, Real> const& omega,
                   NetworkCoupling<ExecSpace, Real> const& k, Real inv_gamma, Block<ExecSpace, Real> const& sc_all,
                   Block<ExecSpace, Real> const& ab, Block<ExecSpace, Real> const& f,
                   RowExchange<ExecSpace, Real>& ex) {
  network_coupling_sums<ExecSpace, Real>(space, x, k, sc_all, ab, ex);
  Block<ExecSpace, Real> const sc = ex.active() ? ex.mine : sc_all;  // this rank's rows
  int const n = int(x.extent(0));
  Kokkos::parallel_for(
      "parity::sde::network_kuramoto_drift", Kokkos::RangePolicy<ExecSpace>(space, 0, n * int(x.extent(1))),
      KOKKOS_LAMBDA(int t) {
        int const i = t % n, r = t / n;
        f(i, r) = (omega(i, r) + (sc(i, 2 * r + 1) * ab(i, 2 * r) - sc(i, 2 * r) * ab(i, 2 * r + 1))) * inv_gamma;
      });
}

// out = x + a (f0 [+ f1]) + g dW(step), wrapped when `wrap`; replica r's noise is keyed by seed + r
// (the expression of all_pairs_update, so one replica integrates as the all-to-all kernels), row i
// of the block by oscillator row0 + i.
template <class ExecSpace, class Real, class Noise>
void network_update(ExecSpace const& space, Block<ExecSpace, Real> const& x, Block<ExecSpace, Real> const& f0,
                    Block<ExecSpace, Real> const& f1, Real a, Noise const& noise, long step, bool wrap,
                    Block<ExecSpace, Real> const& out, int row0) {
  bool const two = f1.extent(0) > 0;
  int const n = int(x.extent(0));
  Kokkos::parallel_for(
      "parity::sde::network_kuramoto_update", Kokkos::RangePolicy<ExecSpace>(space, 0, n * int(x.extent(1))),
      KOKKOS_LAMBDA(int t) {
        int const i = t % n, r = t / n;
        Noise replica = noise;
        replica.seed = noise.seed + std::uint64_t(r);
        Real const gdw = replica.one(step, row0 + i);
        Real y = two ? x(i, r) + (f0(i, r) + f1(i, r)) * a + gdw : x(i, r) + f0(i, r) * a + gdw;
        out(i, r) = wrap ? wrap_phase(y) : y;
      });
}

// Initial phases uniform in [0, 2 pi) and frequencies omega_mean + width z_i, drawn from oscillator
// i's initial-state stream of key seed + r exactly as kuramoto_initialize draws them (Gaussian z:
// the same numbers); row i of the blocks is oscillator row0 + i.
template <class ExecSpace, class Real>
void network_initialize(ExecSpace const& space, NetworkKuramotoConfig const& c, Block<ExecSpace, Real> const& x,
                        Block<ExecSpace, Real> const& omega, int row0) {
  std::uint64_t const seed = c.seed;
  Real const om = Real(c.omega_mean), width = Real(c.omega_width);
  bool const cauchy = c.omega_law == FrequencyLaw::lorentzian;
  int const n = int(x.extent(0));
  Kokkos::parallel_for(
      "parity::sde::network_kuramoto_initialize", Kokkos::RangePolicy<ExecSpace>(space, 0, n * int(x.extent(1))),
      KOKKOS_LAMBDA(int t) {
        int const i = t % n, r = t / n;
        random::PhiloxStream<Real> rng(seed + std::uint64_t(r), std::uint64_t(row0 + i) | initial_state_stream_bit);
        x(i, r) = wrap_phase(Real(2) * Kokkos::numbers::pi_v<Real> * rng.uniform());
        // Standard Cauchy by inversion; uniform() is in (0, 1), so tan stays finite.
        Real const z = cauchy ? Kokkos::tan(Kokkos::numbers::pi_v<Real> * (rng.uniform() - Real(0.5))) : rng.normal();
        omega(i, r) = om + width * z;
      });
}

// from[row0 + i] into row i of every column of `to`.
template <class ExecSpace, class Real>
void copy_columns_to_device(ExecSpace const& space, std::vector<double> const& from, Block<ExecSpace, Real> const& to,
                            int row0) {
  auto h = Kokkos::create_mirror_view(to);
  for (std::size_t r = 0; r < to.extent(1); ++r)
    for (std::size_t i = 0; i < to.extent(0); ++i) h(i, r) = Real(from[std::size_t(row0) + i]);
  Kokkos::deep_copy(space, to, h);
}

// Column r of a column-major block as the 1-D view the kuramoto.hpp records take.
template <class ExecSpace, class Real>
Kokkos::View<Real*, typename ExecSpace::memory_space> column(Block<ExecSpace, Real> const& b, int r) {
  return Kokkos::View<Real*, typename ExecSpace::memory_space>(b.data() + std::size_t(r) * b.stride(1), b.extent(0));
}

}  // namespace detail

// Integrates the network model with the coupling matrix `coupling` (K_ij, already normalised; the
// whole matrix on every rank, of which each keeps its rows).
template <class ExecSpace, class Real>
NetworkKuramotoRunResult integrate_network_kuramoto(ExecSpace const& space, NetworkKuramotoConfig const& c,
                                                    Network const& coupling) {
  // A null progress is silent; null phases are timed into a record of the call's own.
  run::SilentProgress silent;
  run::PhaseTimes own_times;
  run::Progress& progress = c.progress ? *c.progress : silent;
  run::PhaseTimes& times = c.phases ? *c.phases : own_times;
  require(c.stepper == Stepper::srk2 || c.stepper == Stepper::euler_maruyama,
          "sde::integrate_network_kuramoto: the stepper must be srk2 or euler_maruyama");
  using Mem = typename ExecSpace::memory_space;
  using BlockT = detail::Block<ExecSpace, Real>;
  int const n = coupling.n, nr = c.replicas, samples = int((c.steps + c.sample_every - 1) / c.sample_every);
  int const bins = c.bins > 0 ? c.bins : 1;
  NetworkKuramotoRunResult out;
  // This rank's rows [row0, row0 + rows) (all of them on one rank).
  auto exchange = detail::make_row_exchange<ExecSpace, Real>(space, n, nr, c.ranks);
  bool const split = exchange.active();
  int const row0 = exchange.row0, rows = exchange.rows;
  BlockT x(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_phase"), rows, nr);
  BlockT omega(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_omega"), rows, nr);
  BlockT f0(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_drift"), rows, nr), f1, xp;
  if (c.stepper == Stepper::srk2) {
    f1 = BlockT(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_drift_predicted"), rows, nr);
    xp = BlockT(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_phase_predicted"), rows, nr);
  }
  BlockT sc(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_sincos"), n, 2 * nr);
  BlockT ab;  // this rank's rows of K [s c] (and the sparse block's padding rows)
  // The phases of all ranks, gathered at each sample for the records (x itself on one rank).
  BlockT x_all = split ? BlockT(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_phase_all"), n, nr) : x;
  detail::SinCos<Mem> sums("parity::sde::network_kuramoto_sums");
  // Each replica's r, psi and histograms, recorded by the all-to-all model's kernels.
  std::vector<Kokkos::View<double**, Mem>> order(nr);
  std::vector<Kokkos::View<int**, Mem>> hist(nr);
  for (int r = 0; r < nr; ++r) {
    order[r] =
        Kokkos::View<double**, Mem>(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_order"), samples, 2);
    hist[r] =
        Kokkos::View<int**, Mem>(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_histogram"), samples, bins);
  }
  Real const dt = Real(c.dt), inv_gamma = Real(1.0 / c.gamma);
  bool const identical = c.omega.empty() && c.omega_width == 0;
  detail::BlockOmega<ExecSpace, Real> const om{omega, Real(c.omega_mean), identical};
  detail::NetworkCoupling<ExecSpace, Real> kmat;
  {
    timing::ScopedPhase<ExecSpace> phase(space, times, "parity::network_kuramoto::initialize");
    bool const dense = c.storage == CouplingStorage::dense;
    int const per_row = split && !dense ? int(coupling.nonzeros() / n) : -1;
    kmat.sparse = detail::to_device_matrix<ExecSpace, Real>(space, coupling, row0, row0 + rows, per_row);
    ab =
        BlockT(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_coupling_sums"), kmat.sparse.numRows(), 2 * nr);
    if (dense) {
      kmat.dense = detail::to_dense<ExecSpace, Real>(space, kmat.sparse);
      kmat.sparse = {};
    }
    detail::network_initialize<ExecSpace, Real>(space, c, x, omega, row0);
    if (!c.omega.empty()) detail::copy_columns_to_device<ExecSpace, Real>(space, c.omega, omega, row0);
    if (!c.initial_phases.empty()) {
      std::vector<double> wrapped(c.initial_phases);
      for (auto& v : wrapped) v -= std::floor(v / (2 * std::numbers::pi)) * (2 * std::numbers::pi);
      detail::copy_columns_to_device<ExecSpace, Real>(space, wrapped, x, row0);
    }
  }
  std::vector<long> sample_steps;
  long steps_done = 0;
  auto integrate_steps = [&](auto const& noise) {
    Kokkos::Timer clock;
    double last = -1;
    long step = 0;
    for (int s = 0; s < samples; ++s) {
      long const end = std::min<long>(step + c.sample_every, c.steps);
      for (; step < end; ++step) {
        detail::network_drift<ExecSpace, Real>(space, x, om, kmat, inv_gamma, sc, ab, f0, exchange);
        if (c.stepper == Stepper::srk2) {
          detail::network_update<ExecSpace, Real>(space, x, f0, {}, dt, noise, step, false, xp, row0);
          detail::network_drift<ExecSpace, Real>(space, xp, om, kmat, inv_gamma, sc, ab, f1, exchange);
          detail::network_update<ExecSpace, Real>(space, x, f0, f1, Real(0.5) * dt, noise, step, true, x, row0);
        } else {
          detail::network_update<ExecSpace, Real>(space, x, f0, {}, dt, noise, step, true, x, row0);
        }
      }
      if (split) detail::gather_rows<ExecSpace, Real>(space, exchange, x, x_all);
      for (int r = 0; r < nr; ++r) {
        auto const xr = detail::column<ExecSpace, Real>(x_all, r);
        detail::kuramoto_sums<ExecSpace, Real>(space, xr, sums);
        detail::kuramoto_record<ExecSpace, Real>(space, xr, detail::SinCosValue<Mem>{sums}, s, c.bins, order[r],
                                                 hist[r]);
      }
      sample_steps.push_back(step);
      if (clock.seconds() - last >= 0.5 || s + 1 == samples) {
        space.fence("parity::sde::network_kuramoto_progress");
        last = clock.seconds();
        progress.update({"network kuramoto steps", step, -1.0, last,
                         std::to_string(step) + "/" + std::to_string(c.steps) + " steps, " + std::to_string(n) +
                             " oscillators" + (nr > 1 ? " x " + std::to_string(nr) + " replicas" : "")});
      }
    }
    steps_done = step;
  };
  {
    timing::ScopedPhase<ExecSpace> phase(space, times, "parity::network_kuramoto::integrate");
    Real const scale = Real(std::sqrt(2.0 * c.D / c.gamma)) * Kokkos::sqrt(dt);
    if (c.noise == NoiseLaw::five_point)
      integrate_steps(detail::KuramotoNoise<NoiseLaw::five_point, Real>(c.seed, n, scale));
    else
      integrate_steps(detail::KuramotoNoise<NoiseLaw::gaussian, Real>(c.seed, n, scale));
  }
  timing::ScopedPhase<ExecSpace> phase(space, times, "parity::network_kuramoto::observables");
  auto const xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.keep_positions ? x_all : BlockT());
  out.replicas.resize(nr);
  for (int r = 0; r < nr; ++r) {
    KuramotoResult& k = out.replicas[r];
    k.samples = samples;
    k.bins = c.bins;
    k.sample_steps = sample_steps;
    k.steps_done = steps_done;
    auto oh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), order[r]);
    for (int s = 0; s < samples; ++s) k.r.push_back(oh(s, 0)), k.psi.push_back(oh(s, 1));
    if (c.bins > 0) {
      auto hh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hist[r]);
      for (int s = 0; s < samples; ++s)
        for (int b = 0; b < c.bins; ++b) k.histogram.push_back(hh(s, b));
    }
    if (c.keep_positions)
      for (int i = 0; i < n; ++i) k.positions.push_back(xh(i, r));
  }
  out.kuramoto = out.replicas[0];
  if (c.local_order) {
    // r_i = |sum_j K_ij e^{i x_j}| / sum_j K_ij: the same product as the drift, for this rank's
    // rows; several ranks: every rank's values gathered in rank order (replica-major per rank).
    detail::network_coupling_sums<ExecSpace, Real>(space, x, kmat, sc, ab, exchange);
    auto abh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ab);
    auto const w = coupling.strengths();
    std::vector<double> mine(std::size_t(rows) * nr);
    for (int r = 0; r < nr; ++r)
      for (int i = 0; i < rows; ++i) {
        double const wi = w[std::size_t(row0 + i)];
        mine[std::size_t(r) * rows + i] =
            wi != 0 ? std::hypot(double(abh(i, 2 * r)), double(abh(i, 2 * r + 1))) / std::abs(wi) : 0.0;
      }
    if (!split) {
      out.local_r = std::move(mine);
    } else {
      std::vector<double> all(std::size_t(n) * nr);
      c.ranks.all_gather(mine, all);
      out.local_r.resize(all.size());
      std::size_t at = 0;
      for (std::size_t q = 0; q + 1 < exchange.first.size(); ++q)
        for (int r = 0; r < nr; ++r)
          for (int i = exchange.first[q]; i < exchange.first[q + 1]; ++i)
            out.local_r[std::size_t(r) * n + std::size_t(i)] = all[at++];
    }
  }
  out.oscillators = n;
  out.replica_count = nr;
  out.nonzeros = coupling.nonzeros();
  out.storage = c.storage == CouplingStorage::dense ? "dense" : "sparse";
  out.dt = c.dt;
  out.work = network_step_work(n, out.nonzeros, nr, int(sizeof(Real)), c.storage == CouplingStorage::dense, !identical,
                               c.stepper == Stepper::srk2);
  return out;
}

// The parameters' network and frequencies, integrated, with the modelled work of a step.
// options.ranks: the ranks the rows are split over (see the top of this file); default one.
template <class ExecSpace, class Real>
NetworkKuramotoRunResult solve(ExecSpace const& space, NetworkKuramotoParams const& p,
                               run::SolveOptions const& options = {}) {
  validate(p);
  Network const kmat = build_coupling(p);
  NetworkKuramotoConfig c;
  c.gamma = p.gamma;
  c.D = p.D;
  c.omega_mean = p.omega_mean;
  c.omega_width = p.omega_law == "identical" ? 0.0 : p.omega_width;
  c.omega_law = p.omega_law == "lorentzian" ? FrequencyLaw::lorentzian : FrequencyLaw::gaussian;
  if (p.omega_law == "file") c.omega = read_frequencies(p.omega_file, kmat.n);
  c.dt = p.dt;
  c.steps = p.steps;
  c.sample_every = p.sample_every;
  c.bins = p.bins;
  c.seed = p.seed;
  c.replicas = p.replicas;
  c.storage = resolve_storage(p.storage, kmat.n, kmat.nonzeros(), int(sizeof(Real))) == "dense"
                  ? CouplingStorage::dense
                  : CouplingStorage::sparse;
  c.stepper = p.stepper == "euler" ? Stepper::euler_maruyama : Stepper::srk2;
  c.noise = p.noise_law == "five-point" ? NoiseLaw::five_point : NoiseLaw::gaussian;
  c.local_order = p.local_order;
  c.progress = options.progress;
  c.phases = options.phases;
  c.ranks = options.ranks;
  auto out = integrate_network_kuramoto<ExecSpace, Real>(space, c, kmat);
  // The adjacency's degree moments (unit weights: pattern files and generated networks).
  double k1 = 0, k2 = 0;
  for (int i = 0; i < kmat.n; ++i) {
    double const k = double(kmat.row_ptr[i + 1] - kmat.row_ptr[i]);
    k1 += k, k2 += k * k;
  }
  out.mean_degree = k1 / kmat.n;
  out.mean_degree_squared = k2 / kmat.n;
  return out;
}

}  // namespace parity::sde
