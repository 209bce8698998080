#pragma once
// Noisy Kuramoto oscillators coupled through a sparse matrix (needs Kokkos Kernels):
//   gamma x_i' = omega_i + sum_j K_ij sin(x_j - x_i) + sqrt(2 gamma D) xi_i(t).
// The coupling sum is cos x_i (K s)_i - sin x_i (K c)_i with s = sin x, c = cos x: one
// KokkosSparse::spmv of the N x 2 block [s c] per drift evaluation, so a step costs O(nonzeros).
// The steppers, the noise (KuramotoNoise: the same variate of oscillator i at step s as the
// mean-field and all-pairs kernels), the initial phases and the order-parameter records are
// those of kuramoto.hpp, so K_ij = K / N on the complete graph integrates the mean-field
// realization to rounding.
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "models/sde/kuramoto.hpp"
#include "models/sde/network.hpp"
#include "models/sde/noise.hpp"
#include "models/sde/stepper.hpp"

namespace parity::sde {

enum class FrequencyLaw { gaussian, lorentzian };

struct NetworkKuramotoConfig {
  double gamma = 1, D = 1;
  double omega_mean = 0, omega_width = 0;  // omega_i = mean + width z_i (width 0: identical)
  FrequencyLaw omega_law = FrequencyLaw::gaussian;  // z_i standard normal or standard Cauchy
  std::vector<double> omega;  // given frequencies (overrides the law when not empty)
  std::vector<double> initial_phases;  // given x_i(0) (default: uniform in [0, 2 pi))
  double dt = 0.01;
  long steps = 2000;
  int sample_every = 10;
  int bins = 64;
  std::uint64_t seed = 1;
  Stepper stepper = Stepper::srk2;
  NoiseLaw noise = NoiseLaw::gaussian;
  bool local_order = false;  // r_i at the end
  bool keep_positions = false;  // copy the final phases to the host
};

namespace detail {

template <class ExecSpace, class Real>
using NetworkMatrix =
    KokkosSparse::CrsMatrix<Real, int, Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>, void, int>;

template <class ExecSpace, class Real>
using Block = Kokkos::View<Real**, Kokkos::LayoutLeft, typename ExecSpace::memory_space>;

// The host CSR matrix on the device, values in Real.
template <class ExecSpace, class Real>
NetworkMatrix<ExecSpace, Real> to_device_matrix(ExecSpace const& space, Network const& g) {
  using Matrix = NetworkMatrix<ExecSpace, Real>;
  using Mem = typename ExecSpace::memory_space;
  int const n = g.n, nnz = int(g.nonzeros());
  Kokkos::View<int*, Mem> rows(Kokkos::view_alloc(space, "parity::sde::network_row_map"), n + 1);
  Kokkos::View<int*, Mem> cols(Kokkos::view_alloc(space, "parity::sde::network_columns"), nnz);
  Kokkos::View<Real*, Mem> vals(Kokkos::view_alloc(space, "parity::sde::network_coupling"), nnz);
  auto rh = Kokkos::create_mirror_view(rows);
  auto ch = Kokkos::create_mirror_view(cols);
  auto vh = Kokkos::create_mirror_view(vals);
  for (int i = 0; i <= n; ++i) rh(i) = int(g.row_ptr[i]);
  for (int e = 0; e < nnz; ++e) ch(e) = g.col[e], vh(e) = Real(g.weight[e]);
  Kokkos::deep_copy(space, rows, rh);
  Kokkos::deep_copy(space, cols, ch);
  Kokkos::deep_copy(space, vals, vh);
  space.fence("parity::sde::network_upload");
  return Matrix("parity::sde::network_matrix", n, n, nnz, vals, rows, cols);
}

// [A B] = K [sin x, cos x] into ab; sc keeps [sin x, cos x] for the caller.
template <class ExecSpace, class Real, class Matrix>
void network_coupling_sums(ExecSpace const& space, Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                           Matrix const& kmat, Block<ExecSpace, Real> const& sc, Block<ExecSpace, Real> const& ab) {
  Kokkos::parallel_for(
      "parity::sde::network_kuramoto_sincos", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(int i) {
        Real sn, cs;
        sincos_phase(x(i), sn, cs);
        sc(i, 0) = sn;
        sc(i, 1) = cs;
      });
  KokkosSparse::spmv(space, "N", Real(1), kmat, sc, Real(0), ab);
}

// f(i) = (omega_i + cos x_i A_i - sin x_i B_i) / gamma.
template <class ExecSpace, class Real, class Matrix>
void network_drift(ExecSpace const& space, Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                   OmegaOf<ExecSpace, Real> const& omega, Matrix const& kmat, Real inv_gamma,
                   Block<ExecSpace, Real> const& sc, Block<ExecSpace, Real> const& ab,
                   Kokkos::View<Real*, typename ExecSpace::memory_space> const& f) {
  network_coupling_sums<ExecSpace, Real>(space, x, kmat, sc, ab);
  Kokkos::parallel_for(
      "parity::sde::network_kuramoto_drift", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(int i) { f(i) = (omega(i) + (sc(i, 1) * ab(i, 0) - sc(i, 0) * ab(i, 1))) * inv_gamma; });
}

// Initial phases uniform in [0, 2 pi) and frequencies omega_mean + width z_i, drawn from oscillator
// i's initial-state stream exactly as kuramoto_initialize draws them (Gaussian z: the same numbers).
template <class ExecSpace, class Real>
void network_initialize(ExecSpace const& space, NetworkKuramotoConfig const& c,
                        Kokkos::View<Real*, typename ExecSpace::memory_space> const& x,
                        Kokkos::View<Real*, typename ExecSpace::memory_space> const& omega) {
  std::uint64_t const seed = c.seed;
  Real const om = Real(c.omega_mean), width = Real(c.omega_width);
  bool const cauchy = c.omega_law == FrequencyLaw::lorentzian;
  Kokkos::parallel_for(
      "parity::sde::network_kuramoto_initialize", Kokkos::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(int i) {
        random::PhiloxStream<Real> rng(seed, std::uint64_t(i) | initial_state_stream_bit);
        x(i) = wrap_phase(Real(2) * Kokkos::numbers::pi_v<Real> * rng.uniform());
        // Standard Cauchy by inversion; uniform() is in (0, 1), so tan stays finite.
        Real const z = cauchy ? Kokkos::tan(Kokkos::numbers::pi_v<Real> * (rng.uniform() - Real(0.5))) : rng.normal();
        omega(i) = om + width * z;
      });
}

template <class ExecSpace, class Real>
void copy_to_device(ExecSpace const& space, std::vector<double> const& from,
                    Kokkos::View<Real*, typename ExecSpace::memory_space> const& to) {
  auto h = Kokkos::create_mirror_view(to);
  for (std::size_t i = 0; i < from.size(); ++i) h(i) = Real(from[i]);
  Kokkos::deep_copy(space, to, h);
}

}  // namespace detail

// Integrates the network model with the coupling matrix `coupling` (K_ij, already normalised).
template <class ExecSpace, class Real>
NetworkKuramotoRunResult integrate_network_kuramoto(ExecSpace const& space, NetworkKuramotoConfig const& c,
                                                    Network const& coupling, run::Progress& progress,
                                                    run::PhaseTimes& times) {
  using Mem = typename ExecSpace::memory_space;
  int const n = coupling.n, samples = int((c.steps + c.sample_every - 1) / c.sample_every);
  NetworkKuramotoRunResult out;
  KuramotoResult& r = out.kuramoto;
  r.samples = samples;
  r.bins = c.bins;
  Kokkos::View<Real*, Mem> x(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_phase"), n);
  Kokkos::View<Real*, Mem> omega(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_omega"), n);
  Kokkos::View<Real*, Mem> f0(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_drift"), n), f1, xp;
  if (c.stepper == Stepper::srk2) {
    f1 = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_drift_predicted"), n);
    xp = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_phase_predicted"), n);
  }
  detail::Block<ExecSpace, Real> sc(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_sincos"), n, 2);
  detail::Block<ExecSpace, Real> ab(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_coupling_sums"), n, 2);
  detail::SinCos<Mem> sums("parity::sde::network_kuramoto_sums");
  Kokkos::View<double**, Mem> order(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_order"), samples, 2);
  Kokkos::View<int**, Mem> hist(Kokkos::view_alloc(space, "parity::sde::network_kuramoto_histogram"), samples,
                                c.bins > 0 ? c.bins : 1);
  Real const dt = Real(c.dt), inv_gamma = Real(1.0 / c.gamma);
  bool const identical = c.omega.empty() && c.omega_width == 0;
  detail::OmegaOf<ExecSpace, Real> const om{omega, Real(c.omega_mean), identical};
  detail::NetworkMatrix<ExecSpace, Real> kmat;
  {
    timing::ScopedPhase<ExecSpace> phase(space, times, "parity::network_kuramoto::initialize");
    kmat = detail::to_device_matrix<ExecSpace, Real>(space, coupling);
    detail::network_initialize<ExecSpace, Real>(space, c, x, omega);
    if (!c.omega.empty()) detail::copy_to_device<ExecSpace, Real>(space, c.omega, omega);
    if (!c.initial_phases.empty()) {
      std::vector<double> wrapped(c.initial_phases);
      for (auto& v : wrapped) v -= std::floor(v / (2 * std::numbers::pi)) * (2 * std::numbers::pi);
      detail::copy_to_device<ExecSpace, Real>(space, wrapped, x);
    }
  }
  auto integrate_steps = [&](auto const& noise) {
    Kokkos::Timer clock;
    double last = -1;
    long step = 0;
    for (int s = 0; s < samples; ++s) {
      long const end = std::min<long>(step + c.sample_every, c.steps);
      for (; step < end; ++step) {
        detail::network_drift<ExecSpace, Real>(space, x, om, kmat, inv_gamma, sc, ab, f0);
        if (c.stepper == Stepper::srk2) {
          detail::all_pairs_update<ExecSpace, Real>(space, x, f0, {}, dt, noise, step, false, xp);
          detail::network_drift<ExecSpace, Real>(space, xp, om, kmat, inv_gamma, sc, ab, f1);
          detail::all_pairs_update<ExecSpace, Real>(space, x, f0, f1, Real(0.5) * dt, noise, step, true, x);
        } else {
          detail::all_pairs_update<ExecSpace, Real>(space, x, f0, {}, dt, noise, step, true, x);
        }
      }
      detail::kuramoto_sums<ExecSpace, Real>(space, x, sums);
      detail::kuramoto_record<ExecSpace, Real>(space, x, sums, s, c.bins, order, hist);
      r.sample_steps.push_back(step);
      if (clock.seconds() - last >= 0.5 || s + 1 == samples) {
        space.fence("parity::sde::network_kuramoto_progress");
        last = clock.seconds();
        progress.update(
            {"network kuramoto steps", step, -1.0, last,
             std::to_string(step) + "/" + std::to_string(c.steps) + " steps, " + std::to_string(n) + " oscillators"});
      }
    }
    r.steps_done = step;
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
  auto oh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), order);
  for (int s = 0; s < samples; ++s) r.r.push_back(oh(s, 0)), r.psi.push_back(oh(s, 1));
  if (c.bins > 0) {
    auto hh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hist);
    for (int s = 0; s < samples; ++s)
      for (int b = 0; b < c.bins; ++b) r.histogram.push_back(hh(s, b));
  }
  if (c.keep_positions) {
    auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    r.positions.assign(xh.data(), xh.data() + n);
  }
  if (c.local_order) {
    // r_i = |sum_j K_ij e^{i x_j}| / sum_j K_ij: the same sparse product as the drift.
    detail::network_coupling_sums<ExecSpace, Real>(space, x, kmat, sc, ab);
    auto abh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ab);
    auto const w = coupling.strengths();
    out.local_r.resize(n);
    for (int i = 0; i < n; ++i)
      out.local_r[i] = w[i] != 0 ? std::hypot(double(abh(i, 0)), double(abh(i, 1))) / std::abs(w[i]) : 0.0;
  }
  out.oscillators = n;
  out.nonzeros = coupling.nonzeros();
  out.dt = c.dt;
  return out;
}

// The parameters' network and frequencies, integrated; the work per oscillator step from the
// matrix's nonzeros.
template <class ExecSpace, class Real>
NetworkKuramotoRunResult solve(ExecSpace const& space, NetworkKuramotoParams const& p, run::Progress& progress,
                               run::PhaseTimes& times) {
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
  c.stepper = p.stepper == "euler" ? Stepper::euler_maruyama : Stepper::srk2;
  c.noise = p.noise_law == "five-point" ? NoiseLaw::five_point : NoiseLaw::gaussian;
  c.local_order = p.local_order;
  auto out = integrate_network_kuramoto<ExecSpace, Real>(space, c, kmat, progress, times);
  // The adjacency's degree moments (unit weights: pattern files and generated networks).
  double k1 = 0, k2 = 0;
  for (int i = 0; i < kmat.n; ++i) {
    double const k = double(kmat.row_ptr[i + 1] - kmat.row_ptr[i]);
    k1 += k, k2 += k * k;
  }
  out.mean_degree = k1 / kmat.n;
  out.mean_degree_squared = k2 / kmat.n;
  // Per oscillator step, each array touched once per pass: sincos pass (x read, s c written),
  // spmv (row map, per nonzero a column index and a value, s c read, A B written), drift pass
  // (s c A B read, f written, omega_i when they differ), the update passes (Euler: x f read, x
  // written; SRK2: x f0 read xp written, x f0 f1 read x written). Flops: sincos 2, 4 per nonzero,
  // 5 in the drift, 3 per update (noise not counted).
  double const R = sizeof(Real), nz = double(out.nonzeros) / kmat.n;
  double const om = c.omega.empty() && c.omega_width == 0 ? 0.0 : 1.0;
  double const drift_bytes = 3 * R + (4 + nz * (4 + R) + 4 * R) + (5 + om) * R;
  double const drift_flops = 2 + 4 * nz + 5;
  bool const srk2 = c.stepper == Stepper::srk2;
  out.bytes_per_step = srk2 ? 2 * drift_bytes + 7 * R : drift_bytes + 3 * R;
  out.flops_per_step = srk2 ? 2 * drift_flops + 8 : drift_flops + 3;
  return out;
}

}  // namespace parity::sde
