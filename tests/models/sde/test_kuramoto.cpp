// Noisy Kuramoto: the all-pairs (team-scratch tiles) and mean-field kernels integrate the same
// realization; the stationary order parameter matches the N -> oo self-consistency
// r = I1(K r / D) / I0(K r / D); same seed, same numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/kuramoto.hpp"
#include "test_backend.hpp"

namespace parity_test_sde_kuramoto {

using parity::test::ExecSpace;
using parity::test::MemSpace;
namespace sde = parity::sde;

template <class Real>
sde::KuramotoResult run(sde::KuramotoConfig const& c, Kokkos::View<Real**, MemSpace> kmat = {}) {
  return sde::integrate_kuramoto<ExecSpace, Real>(ExecSpace(), c, kmat);
}

double circular_distance(double a, double b) {
  double d = std::fmod(std::abs(a - b), 2 * std::numbers::pi);
  return std::min(d, 2 * std::numbers::pi - d);
}

template <class Real>
void compare_kernels(sde::Stepper stepper, double tol_x, double tol_r, bool with_matrix, int tile = 64, int splits = 0,
                     int n = 160, sde::NoiseLaw law = sde::NoiseLaw::gaussian) {
  sde::KuramotoConfig c;
  c.noise = law;
  c.n = n;  // 160: not a multiple of the tile
  c.tile = tile;
  c.column_splits = splits;
  c.K = 8;
  c.steps = 120;
  c.sample_every = 30;
  c.omega_spread = 0.5;
  c.stepper = stepper;
  c.keep_positions = true;
  auto const mf = run<Real>(c);
  c.coupling = sde::Coupling::all_pairs;
  auto const ap = run<Real>(c);
  Kokkos::View<Real**, MemSpace> kmat("kmat", c.n, c.n);
  Kokkos::deep_copy(kmat, Real(c.K / c.n));
  auto const am = with_matrix ? run<Real>(c, kmat) : ap;
  double dx = 0, dxm = 0, dr = 0;
  for (int i = 0; i < c.n; ++i) {
    dx = std::max(dx, circular_distance(mf.positions[i], ap.positions[i]));
    dxm = std::max(dxm, circular_distance(am.positions[i], ap.positions[i]));
  }
  for (int s = 0; s < mf.samples; ++s) dr = std::max(dr, std::abs(mf.r[s] - ap.r[s]));
  std::printf("  %s %s%s: max |x_mean_field - x_all_pairs| = %.2e, max |dr| = %.2e, matrix K vs constant %.2e\n",
              sizeof(Real) == 8 ? "double" : "float", stepper == sde::Stepper::srk2 ? "srk2" : "euler",
              law == sde::NoiseLaw::five_point ? " five-point" : "", dx, dr, dxm);
  EXPECT_LT(dx, tol_x);
  EXPECT_LT(dr, tol_r);
  EXPECT_LT(dxm, tol_x);
  EXPECT_GT(mf.r.back(), 0.3);  // K = 8, D = 1 synchronizes: the comparison is not of noise alone
}

TEST(Kuramoto, AllPairsAndMeanFieldAgree) {
  compare_kernels<double>(sde::Stepper::euler_maruyama, 1e-10, 1e-11, false);
  compare_kernels<double>(sde::Stepper::srk2, 1e-10, 1e-11, true);
  compare_kernels<float>(sde::Stepper::srk2, 1e-4, 1e-5, true);
  // Odd tile and odd last tile (160 = 2 * 63 + 34; 63 columns = 31 column pairs and a half-empty
  // one): the all-pairs kernel's padded column pairs.
  compare_kernels<double>(sde::Stepper::srk2, 1e-10, 1e-11, true, 63);
  compare_kernels<double>(sde::Stepper::euler_maruyama, 1e-10, 1e-11, true, 53);  // 160 = 3 * 53 + 1
  // Column shares: 2 and 3 teams per row tile (3 tiles of 53 + 1 split 1/1/2 and so on), their
  // partial sums combined by a second kernel.
  compare_kernels<double>(sde::Stepper::srk2, 1e-10, 1e-11, true, 53, 2);
  compare_kernels<double>(sde::Stepper::srk2, 1e-10, 1e-11, true, 40, 3);
  compare_kernels<float>(sde::Stepper::srk2, 1e-4, 1e-5, true, 32, 4);
  // N not a multiple of the normals per Philox block (4 float, 2 double): the mean-field threads
  // whose last oscillators lie past N.
  compare_kernels<float>(sde::Stepper::srk2, 1e-4, 1e-5, false, 64, 0, 161);
  compare_kernels<float>(sde::Stepper::euler_maruyama, 1e-4, 1e-5, false, 64, 0, 163);
  compare_kernels<double>(sde::Stepper::srk2, 1e-10, 1e-11, false, 64, 0, 163);
  // Five-point noise: units of 4 variates in both precisions (161: a last unit past N).
  compare_kernels<float>(sde::Stepper::srk2, 1e-4, 1e-5, true, 64, 0, 161, sde::NoiseLaw::five_point);
  compare_kernels<double>(sde::Stepper::euler_maruyama, 1e-10, 1e-11, false, 53, 2, 162, sde::NoiseLaw::five_point);
  compare_kernels<double>(sde::Stepper::srk2, 1e-10, 1e-11, false, 64, 0, 163, sde::NoiseLaw::five_point);
}

// Each oscillator of a step gets its own normal of the step's stream, and the oscillators one
// mean-field thread updates (t, t + M, ...) get the normals of one Philox block, in order.
template <sde::NoiseLaw Law, class Real>
void check_noise_numbering(int n) {
  sde::detail::KuramotoNoise<Law, Real> const noise(1, n, Real(1));
  constexpr int B = sde::detail::KuramotoNoise<Law, Real>::per_block;
  ASSERT_EQ(noise.blocks, (n + B - 1) / B);
  std::vector<int> seen(std::size_t(noise.blocks) * B, 0);
  for (int i = 0; i < n; ++i) {
    auto const m = noise.index(i);
    ASSERT_LT(m, seen.size());
    EXPECT_EQ(seen[m]++, 0) << "n " << n << " oscillator " << i;
    int const t = i % noise.blocks, k = i / noise.blocks;
    EXPECT_EQ(m, std::uint64_t(B) * t + k);  // normal k of block t
  }
}

TEST(Kuramoto, NoiseNumberingGivesEachOscillatorItsOwnNormal) {
  for (int n : {1, 2, 3, 4, 5, 7, 8, 9, 160, 161, 162, 163, 1000}) {
    check_noise_numbering<sde::NoiseLaw::gaussian, float>(n);
    check_noise_numbering<sde::NoiseLaw::gaussian, double>(n);
    check_noise_numbering<sde::NoiseLaw::five_point, float>(n);
    check_noise_numbering<sde::NoiseLaw::five_point, double>(n);
  }
}

TEST(Kuramoto, ColumnSharesChosenForTheDevice) {
  ExecSpace space;
  // Never more shares than column tiles, at least one, at most 16; an explicit request is kept.
  EXPECT_GE(sde::detail::all_pairs_splits(space, 160, 64, 0), 1);
  EXPECT_LE(sde::detail::all_pairs_splits(space, 160, 64, 0), 3);
  EXPECT_EQ(sde::detail::all_pairs_splits(space, 1 << 16, 128, 5), 5);
  EXPECT_EQ(sde::detail::all_pairs_splits(space, 1 << 16, 128, 100), 16);
  EXPECT_EQ(sde::detail::all_pairs_splits(space, 256, 128, 100), 2);
  // Host backends (concurrency far below N): one share.
  if (space.concurrency() * 2 <= 1 << 16) EXPECT_EQ(sde::detail::all_pairs_splits(space, 1 << 16, 128, 0), 1);
}

TEST(Kuramoto, DeviceChunksFillWholeWaves) {
  using sde::detail::mean_field_device_chunk_units;
  auto chunks = [](long units, long chunk) { return (units + chunk - 1) / chunk; };
  // 2^24 float oscillators (2^22 units) on 1,056 places: one wave of 1,056 chunks, not 1,024.
  EXPECT_EQ(chunks(1L << 22, mean_field_device_chunk_units(1L << 22, 1056)), 1056);
  // Larger: a whole number of waves of chunks of at most 4096 units.
  for (long units : {1L << 23, 1L << 24, 3000001L, 1L << 26})
    for (long wave : {1056L, 912L, 1L}) {
      int const chunk = mean_field_device_chunk_units(units, wave);
      EXPECT_LE(chunk, 4096);
      long const c = chunks(units, chunk), waves = (c + wave - 1) / wave;
      EXPECT_LE(c, waves * wave);
      EXPECT_GT(c, (waves - 1) * wave) << units << " units, wave " << wave;
      EXPECT_GE(chunk * c, units);
    }
  // Small: never fewer than 256 units (one per thread of a team).
  EXPECT_EQ(mean_field_device_chunk_units(12500, 1056), 256);
  EXPECT_EQ(mean_field_device_chunk_units(1, 1056), 256);
}

TEST(Kuramoto, StationaryOrderParameterMatchesSelfConsistency) {
  // K / D = 4: r solves r = I1(4 r) / I0(4 r).
  double rt = 1;
  for (int i = 0; i < 2000; ++i) rt = std::cyl_bessel_i(1.0, 4 * rt) / std::cyl_bessel_i(0.0, 4 * rt);
  sde::KuramotoConfig c;
  c.n = 2048;
  c.dt = 0.02;
  c.steps = 1000;
  c.sample_every = 10;
  // Euler, SRK2, and SRK2 with five-point noise (a weak scheme: the stationary law is what it must get).
  for (int variant = 0; variant < 3; ++variant) {
    c.stepper = variant == 0 ? sde::Stepper::euler_maruyama : sde::Stepper::srk2;
    c.noise = variant == 2 ? sde::NoiseLaw::five_point : sde::NoiseLaw::gaussian;
    auto const r = run<double>(c);
    double m = 0;
    int cnt = 0;
    for (int s = r.samples / 2; s < r.samples; ++s) m += r.r[s], ++cnt;
    m /= cnt;
    std::printf("  stationary r = %.4f (theory %.4f), r(0 + 10 steps) = %.3f\n", m, rt, r.r[0]);
    EXPECT_NEAR(m, rt, 0.03);
    long total = 0;
    for (int b = 0; b < r.bins; ++b) total += r.histogram[std::size_t(r.samples - 1) * r.bins + b];
    EXPECT_EQ(total, c.n);
  }
}

TEST(Kuramoto, SameSeedSameNumbers) {
  sde::KuramotoConfig c;
  c.n = 1000;
  c.steps = 100;
  auto const a = run<float>(c), b = run<float>(c);
  EXPECT_EQ(a.r, b.r);
  EXPECT_EQ(a.histogram, b.histogram);
}

}  // namespace parity_test_sde_kuramoto
