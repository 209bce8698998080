// Network Kuramoto (sparse coupling through Kokkos Kernels) against independent results:
//  - the complete graph with K_ij = K / N integrates the mean-field kernel's realization (same
//    noise and initial state) to rounding, with sparse and with dense storage;
//  - dense (gemm) and sparse (spmv) storage of one matrix give the same trajectories to rounding;
//  - replica r of a run with R replicas and seed s is the one-replica run with seed s + r;
//  - on a 2-D periodic lattice, small phase differences relax as discretised diffusion: a Fourier
//    mode decays with the lattice Laplacian's eigenvalue (and with the stepper's exact growth factor);
//  - identical noisy oscillators on a random regular graph reach the order parameter of the
//    annealed (mean-field) self-consistency r = I1(K r / D) / I0(K r / D);
//  - on a heterogeneous (scale-free) network the onset is at K_c = 2 D <k>^2 / <k^2> (annealed
//    network, Ichinomiya 2004; Restrepo, Ott & Hunt 2005), well below the homogeneous 2 D;
//  - the row blocks that ranks multiply (padded CRS, dense) give the whole matrix's rows bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/kuramoto.hpp"
#include "parity/sde/network.hpp"
#include "parity/sde/network_kuramoto.hpp"
#include "test_backend.hpp"

namespace parity_test_sde_network_kuramoto {

using parity::test::ExecSpace;
namespace sde = parity::sde;

template <class Real>
sde::NetworkKuramotoRunResult run(sde::NetworkKuramotoConfig const& c, sde::Network const& k) {
  return sde::integrate_network_kuramoto<ExecSpace, Real>(ExecSpace(), c, k);
}

sde::Network generated(std::string const& kind, int n, double k = 0, std::uint64_t seed = 1) {
  sde::NetworkSpec s;
  s.kind = kind, s.n = n, s.mean_degree = k, s.seed = seed;
  return sde::generate_network(s);
}

double circular_distance(double a, double b) {
  double d = std::fmod(std::abs(a - b), 2 * std::numbers::pi);
  return std::min(d, 2 * std::numbers::pi - d);
}

// N -> oo order parameter of identical noisy oscillators with coupling K: r = I1(K r/D) / I0(K r/D).
double self_consistent_r(double K, double D) {
  double r = 1;
  for (int it = 0; it < 100000; ++it) {
    double const z = K * r / D;
    double const next = std::cyl_bessel_i(1.0, z) / std::cyl_bessel_i(0.0, z);
    if (std::abs(next - r) < 1e-13) return next;
    r = next;
  }
  return r;
}

double mean_from(std::vector<double> const& v, std::size_t first) {
  double s = 0;
  for (std::size_t i = first; i < v.size(); ++i) s += v[i];
  return s / double(v.size() - first);
}

template <class Real>
void compare_with_mean_field(sde::Stepper stepper, double tol_x, double tol_r,
                             sde::CouplingStorage storage = sde::CouplingStorage::sparse) {
  int const n = 160;
  sde::KuramotoConfig m;
  m.n = n, m.K = 8, m.steps = 120, m.sample_every = 30, m.omega_spread = 0.5, m.stepper = stepper;
  m.keep_positions = true;
  auto const mf = sde::integrate_kuramoto<ExecSpace, Real>(ExecSpace(), m);
  sde::NetworkKuramotoConfig c;
  c.omega_width = 0.5, c.steps = 120, c.sample_every = 30, c.stepper = stepper, c.keep_positions = true;
  c.storage = storage;
  auto const net = run<Real>(c, sde::coupling_matrix(generated("complete", n), 8, "n")).kuramoto;
  double dx = 0, dr = 0;
  for (int i = 0; i < n; ++i) dx = std::max(dx, circular_distance(mf.positions[i], net.positions[i]));
  for (int s = 0; s < mf.samples; ++s) dr = std::max(dr, std::abs(mf.r[s] - net.r[s]));
  std::printf("  %s %s %s: max |x_mean_field - x_network| = %.2e, max |dr| = %.2e, r(end) = %.3f\n",
              sizeof(Real) == 8 ? "double" : "float", stepper == sde::Stepper::srk2 ? "srk2" : "euler",
              storage == sde::CouplingStorage::dense ? "dense" : "sparse", dx, dr, net.r.back());
  EXPECT_LT(dx, tol_x);
  EXPECT_LT(dr, tol_r);
  EXPECT_GT(mf.r.back(), 0.3);  // K = 8, D = 1 synchronises: the comparison is not of noise alone
}

TEST(NetworkKuramoto, CompleteGraphIsTheMeanField) {
  compare_with_mean_field<double>(sde::Stepper::srk2, 1e-10, 1e-11);
  compare_with_mean_field<double>(sde::Stepper::euler_maruyama, 1e-10, 1e-11);
  compare_with_mean_field<float>(sde::Stepper::srk2, 1e-4, 1e-5);
  compare_with_mean_field<double>(sde::Stepper::srk2, 1e-10, 1e-11, sde::CouplingStorage::dense);
  compare_with_mean_field<double>(sde::Stepper::euler_maruyama, 1e-10, 1e-11, sde::CouplingStorage::dense);
  compare_with_mean_field<float>(sde::Stepper::srk2, 1e-4, 1e-5, sde::CouplingStorage::dense);
}

double max_circular_distance(std::vector<double> const& a, std::vector<double> const& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, circular_distance(a[i], b[i]));
  return d;
}

// One Erdos-Renyi matrix (weighted by the degree normalisation, so K is not symmetric), stored
// sparse and dense, two replicas, Gaussian frequencies: the products sum the same terms in
// different orders (gemm adds the zeros too), so the trajectories agree to rounding.
template <class Real>
void dense_against_sparse(sde::Stepper stepper, double tol) {
  auto const k = sde::coupling_matrix(generated("erdos-renyi", 300, 12, 7), 3, "degree");
  sde::NetworkKuramotoConfig c;
  c.omega_width = 0.3, c.steps = 150, c.sample_every = 50, c.stepper = stepper, c.keep_positions = true;
  c.replicas = 2, c.local_order = true, c.seed = 11;
  auto const sparse = run<Real>(c, k);
  c.storage = sde::CouplingStorage::dense;
  auto const dense = run<Real>(c, k);
  ASSERT_EQ(dense.storage, "dense");
  ASSERT_EQ(dense.replicas.size(), 2u);
  double dx = 0, dr = 0, dl = 0;
  for (int r = 0; r < 2; ++r) {
    dx = std::max(dx, max_circular_distance(sparse.replicas[r].positions, dense.replicas[r].positions));
    for (std::size_t s = 0; s < sparse.replicas[r].r.size(); ++s)
      dr = std::max(dr, std::abs(sparse.replicas[r].r[s] - dense.replicas[r].r[s]));
  }
  for (std::size_t i = 0; i < sparse.local_r.size(); ++i)
    dl = std::max(dl, std::abs(sparse.local_r[i] - dense.local_r[i]));
  std::printf("  %s %s: dense - sparse: max |dx| = %.2e, max |dr| = %.2e, max |d r_i| = %.2e\n",
              sizeof(Real) == 8 ? "double" : "float", stepper == sde::Stepper::srk2 ? "srk2" : "euler", dx, dr, dl);
  EXPECT_LT(dx, tol);
  EXPECT_LT(dr, tol);
  EXPECT_LT(dl, tol);
  EXPECT_EQ(sparse.local_r.size(), 2u * 300u);
}

TEST(NetworkKuramoto, DenseAndSparseStorageAgree) {
  dense_against_sparse<double>(sde::Stepper::srk2, 1e-10);
  dense_against_sparse<double>(sde::Stepper::euler_maruyama, 1e-10);
  dense_against_sparse<float>(sde::Stepper::srk2, 2e-3);
}

// R replicas share K and are integrated together (one product with 2 R columns); replica r is keyed
// by seed + r in the initial phases, the frequencies and the noise, so it is the one-replica run
// with that seed (to rounding: a multi-column product may order its sums differently), and the
// replicas differ from one another.
template <class Real>
void replicas_against_single_runs(sde::CouplingStorage storage, double tol) {
  auto const k = sde::coupling_matrix(generated("watts-strogatz", 256, 6, 2), 4, "mean-degree");
  sde::NetworkKuramotoConfig c;
  c.omega_width = 0.2, c.omega_law = sde::FrequencyLaw::lorentzian, c.steps = 100, c.sample_every = 25;
  c.keep_positions = true, c.storage = storage, c.seed = 40, c.replicas = 3;
  auto const together = run<Real>(c, k);
  c.replicas = 1;
  for (int r = 0; r < 3; ++r) {
    c.seed = 40 + std::uint64_t(r);
    auto const alone = run<Real>(c, k).kuramoto;
    auto const& mine = together.replicas[r];
    double const dx = max_circular_distance(mine.positions, alone.positions);
    double dr = 0;
    for (std::size_t s = 0; s < alone.r.size(); ++s) dr = std::max(dr, std::abs(mine.r[s] - alone.r[s]));
    std::printf("  %s %s replica %d against seed %d alone: max |dx| = %.2e, max |dr| = %.2e\n",
                sizeof(Real) == 8 ? "double" : "float", storage == sde::CouplingStorage::dense ? "dense" : "sparse", r,
                40 + r, dx, dr);
    EXPECT_LT(dx, tol);
    EXPECT_LT(dr, tol);
    if (sizeof(Real) == 8) EXPECT_EQ(mine.histogram, alone.histogram);  // float: a phase may change bin
  }
  // Independent realizations: well apart after 100 steps of unit noise.
  EXPECT_GT(max_circular_distance(together.replicas[0].positions, together.replicas[1].positions), 0.5);
  EXPECT_NE(together.replicas[1].r.back(), together.replicas[2].r.back());
}

TEST(NetworkKuramoto, ReplicasAreTheRunsOfTheirSeeds) {
  replicas_against_single_runs<double>(sde::CouplingStorage::sparse, 1e-10);
  replicas_against_single_runs<double>(sde::CouplingStorage::dense, 1e-10);
  replicas_against_single_runs<float>(sde::CouplingStorage::sparse, 2e-3);
}

// x_i = pi + eps cos(q . r_i) on an L x L periodic lattice, D = 0, identical frequencies, K_ij =
// (K / 4) A_ij: for eps -> 0, x' = -(K / 4) (L x), L the graph Laplacian, whose eigenvalue for wave
// vector q = 2 pi (m1, m2) / L is lambda = 4 - 2 cos q1 - 2 cos q2. The mode's amplitude after n
// steps is eps g^n with g = 1 - h (Euler) or 1 - h + h^2 / 2 (SRK2 without noise is Heun),
// h = (K / 4) lambda dt, and tends to eps exp(-(K / 4) lambda t); the rest is O(eps^2).
template <class Real>
void lattice_mode(sde::Stepper stepper, int m1, int m2, double tol) {
  int const L = 16, n = L * L;
  // float resolves x ~ pi to 2.4e-7 rad: a larger mode keeps the rounding below its tolerance.
  double const eps = sizeof(Real) == 8 ? 1e-3 : 3e-2, K = 4, dt = 0.01;
  long const steps = 200;
  sde::NetworkSpec s;
  s.kind = "lattice", s.n = n;
  auto const k = sde::coupling_matrix(sde::generate_network(s), K, "mean-degree");
  sde::NetworkKuramotoConfig c;
  c.D = 0, c.dt = dt, c.steps = steps, c.sample_every = 50, c.stepper = stepper, c.keep_positions = true;
  double const two_pi = 2 * std::numbers::pi;
  std::vector<double> mode(n);
  for (int r = 0; r < L; ++r)
    for (int col = 0; col < L; ++col) mode[r * L + col] = std::cos(two_pi * (m1 * col + m2 * r) / L);
  c.initial_phases.resize(n);
  for (int i = 0; i < n; ++i) c.initial_phases[i] = std::numbers::pi + eps * mode[i];
  auto const x = run<Real>(c, k).kuramoto.positions;
  double proj = 0, norm = 0;
  for (int i = 0; i < n; ++i) proj += (x[i] - std::numbers::pi) * mode[i], norm += mode[i] * mode[i];
  double const amplitude = proj / norm / eps;
  double const lambda = 4 - 2 * std::cos(two_pi * m1 / L) - 2 * std::cos(two_pi * m2 / L);
  double const h = K / 4 * lambda * dt;
  double const g = stepper == sde::Stepper::srk2 ? 1 - h + h * h / 2 : 1 - h;
  double const discrete = std::pow(g, double(steps)), continuous = std::exp(-K / 4 * lambda * dt * double(steps));
  std::printf("  %s %s mode (%d, %d): amplitude %.6f, stepper's g^n %.6f, exp(-lambda t) %.6f\n",
              sizeof(Real) == 8 ? "double" : "float", stepper == sde::Stepper::srk2 ? "srk2" : "euler", m1, m2,
              amplitude, discrete, continuous);
  EXPECT_NEAR(amplitude, discrete, tol * discrete);
  // Heun's global error is O((h / dt)^3 t dt^2); Euler's O(h^2 n / 2), a few percent here.
  EXPECT_NEAR(amplitude, continuous, (stepper == sde::Stepper::srk2 ? std::max(1e-4, tol) : 0.05) * continuous);
}

TEST(NetworkKuramoto, LatticeRelaxesAsDiscreteDiffusion) {
  lattice_mode<double>(sde::Stepper::srk2, 1, 2, 1e-5);
  lattice_mode<double>(sde::Stepper::srk2, 3, 0, 1e-5);
  lattice_mode<double>(sde::Stepper::euler_maruyama, 1, 1, 1e-5);
  lattice_mode<float>(sde::Stepper::srk2, 1, 2, 2e-3);
}

// Identical noisy oscillators, K_ij = (K / k) A_ij on a random k-regular graph: in the annealed
// approximation every node feels K r, so r solves the mean-field equation. Time average over
// t in [10, 30]; finite N adds fluctuations of O(1 / sqrt(N)) per sample, and sparse quenched
// corrections are O(1 / k).
TEST(NetworkKuramoto, RandomRegularMatchesAnnealedSelfConsistency) {
  int const n = 4096, k = 40;
  double const K = 4, D = 1;
  auto const kmat = sde::coupling_matrix(generated("random-regular", n, k), K, "degree");
  sde::NetworkKuramotoConfig c;
  c.D = D, c.dt = 0.02, c.steps = 1500, c.sample_every = 25, c.local_order = true;
  auto const res = run<double>(c, kmat);
  double const r = mean_from(res.kuramoto.r, res.kuramoto.r.size() / 3);
  double const theory = self_consistent_r(K, D);
  double local = 0;
  for (double v : res.local_r) local += v;
  local /= n;
  std::printf(
      "  random regular N = %d, k = %d, K = %g, D = %g: <r> = %.4f, annealed theory %.4f, mean local r_i %.4f\n", n, k,
      K, D, r, theory, local);
  EXPECT_NEAR(r, theory, 0.03);
  // Each node's neighbourhood is as synchronised as the whole (plus the 1 / sqrt(k) of a sample).
  EXPECT_NEAR(local, r, 0.1);
}

// Identical noisy oscillators on a scale-free network (P(k) ~ k^-2.2 on [6, 200], N = 8192),
// K_ij = (K / <k>) A_ij. Annealed network (A_ij -> k_i k_j / (N <k>)): node i feels
// (K / <k>) k_i R with R = sum_j k_j r_j / (N <k>), r_i = I1(z_i) / I0(z_i), z_i = K k_i R / (<k> D);
// linearising gives the onset K_c = 2 D <k>^2 / <k^2> (here about 0.77 D), below the 2 D of a
// homogeneous network. Below K_c the order parameter is finite-size noise, O(1 / sqrt(N)); at
// K = 1.5 D (above K_c, below 2 D) it matches the annealed prediction for this degree sequence.
TEST(NetworkKuramoto, HeterogeneousOnsetScalesWithDegreeMoments) {
  sde::NetworkSpec s;
  s.kind = "scale-free", s.n = 8192, s.exponent = 2.2, s.k_min = 6, s.k_max = 200, s.seed = 3;
  auto const a = sde::generate_network(s);
  auto const k = a.strengths();
  double k1 = 0, k2 = 0;
  for (double v : k) k1 += v, k2 += v * v;
  k1 /= a.n, k2 /= a.n;
  double const D = 1, Kc = 2 * D * k1 * k1 / k2;
  auto annealed_r = [&](double K) {
    double R = 1;
    auto f = [](double z) { return std::cyl_bessel_i(1.0, z) / std::cyl_bessel_i(0.0, z); };
    for (int it = 0; it < 20000; ++it) {
      double next = 0;
      for (double v : k) next += v * f(K * v * R / (k1 * D));
      next /= a.n * k1;
      if (std::abs(next - R) < 1e-12) break;
      R = next;
    }
    double r = 0;
    for (double v : k) r += f(K * v * R / (k1 * D));
    return r / a.n;
  };
  auto measured_r = [&](double K) {
    sde::NetworkKuramotoConfig c;
    c.D = D, c.dt = 0.02, c.steps = 2000, c.sample_every = 25;
    auto const res = run<double>(c, sde::coupling_matrix(a, K, "mean-degree"));
    return mean_from(res.kuramoto.r, res.kuramoto.r.size() / 2);
  };
  double const below = measured_r(0.5 * Kc), above = measured_r(1.5 * D);
  double const theory = annealed_r(1.5 * D);
  std::printf(
      "  scale-free N = %d: <k> = %.2f, <k^2>/<k>^2 = %.3f, K_c = %.3f; <r>(K = K_c / 2) = %.4f, "
      "<r>(K = 1.5) = %.4f, annealed %.4f (homogeneous theory: %.4f)\n",
      a.n, k1, k2 / (k1 * k1), Kc, below, above, theory, self_consistent_r(1.5 * D, D));
  ASSERT_LT(Kc, 0.8 * D);  // the network is heterogeneous enough for K = 1.5 D to separate the two
  EXPECT_LT(below, 4 / std::sqrt(double(a.n)));
  EXPECT_GT(theory, 0.2);  // clearly synchronised, where a homogeneous network with this <k> is not
  EXPECT_NEAR(above, theory, 0.03);
}

// Across ranks each rank multiplies its rows of K (a padded CRS block, or the dense row block) by
// the full [s c]; each row of a block's product must equal that row of the whole matrix's product
// bit for bit, for any cut. The network has 100 rows of 30 entries and 400 of 3 (whole-matrix mean
// 8 per row), so the blocks are padded both ways: a dense first block with empty rows, sparse ones
// with a row of zeros. Every padded block has the whole matrix's integer mean of nonzeros per row,
// from which a GPU spmv of Kokkos Kernels picks its lanes per row (on hosts a row is one lane).
template <class Real>
void row_blocks_against_whole(int ranks) {
  using Block = sde::detail::Block<ExecSpace, Real>;
  using Coupling = sde::detail::NetworkCoupling<ExecSpace, Real>;
  int const n = 500, m = 4;  // m = 2 R columns
  std::vector<int> rows, cols;
  std::vector<double> weights;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < (i < 100 ? 30 : 3); ++k)
      rows.push_back(i), cols.push_back((7 * i + 13 * k + 1) % n), weights.push_back(1.0 / (k + 1) + 0.01 * i);
  auto const g = sde::network_from_triplets(n, rows, cols, weights, false);
  int const per_row = int(g.nonzeros() / n);
  ASSERT_EQ(per_row, 8);
  ExecSpace space;
  Block sc("parity::test::sc", n, m);
  auto sch = Kokkos::create_mirror_view(sc);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < n; ++i) sch(i, j) = Real(std::sin(0.37 * i + 1.3 * j));
  Kokkos::deep_copy(sc, sch);
  auto product = [&](Coupling const& k, int out_rows) {
    Block ab("parity::test::ab", out_rows, m);
    sde::detail::coupling_product<ExecSpace, Real>(space, k, sc, ab);
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ab);
  };
  Coupling whole, whole_dense;
  whole.sparse = sde::detail::to_device_matrix<ExecSpace, Real>(space, g);
  whole_dense.dense = sde::detail::to_dense<ExecSpace, Real>(space, whole.sparse);
  auto const expect = product(whole, n), expect_dense = product(whole_dense, n);
  int padded = 0;
  for (int q = 0; q < ranks; ++q) {
    int const r0 = sde::detail::network_first_row(n, q, ranks), r1 = sde::detail::network_first_row(n, q + 1, ranks);
    Coupling block, dense;
    block.sparse = sde::detail::to_device_matrix<ExecSpace, Real>(space, g, r0, r1, per_row);
    dense.dense =
        sde::detail::to_dense<ExecSpace, Real>(space, sde::detail::to_device_matrix<ExecSpace, Real>(space, g, r0, r1));
    EXPECT_EQ(block.sparse.nnz() / block.sparse.numRows(), per_row) << "rows " << r0 << " to " << r1;
    padded += block.sparse.numRows() > r1 - r0;
    auto const got = product(block, block.sparse.numRows()), got_dense = product(dense, r1 - r0);
    int differ = 0;
    for (int j = 0; j < m; ++j)
      for (int i = r0; i < r1; ++i)
        differ += got(i - r0, j) != expect(i, j) || got_dense(i - r0, j) != expect_dense(i, j);
    EXPECT_EQ(differ, 0) << "rows " << r0 << " to " << r1 << " of " << ranks << " blocks";
  }
  EXPECT_EQ(padded, ranks);  // no block has the whole matrix's mean: all padded
}

TEST(NetworkKuramoto, RowBlocksMultiplyAsTheWholeMatrix) {
  for (int ranks : {2, 3, 7}) {
    row_blocks_against_whole<double>(ranks);
    row_blocks_against_whole<float>(ranks);
  }
}

}  // namespace parity_test_sde_network_kuramoto
