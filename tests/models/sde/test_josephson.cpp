// Josephson junction: deterministic limits with exactly known behaviour (at rest in a minimum of
// V = sin(2 pi x); a running solution against an independent host RK4 integration) and float vs
// double ensemble averages within their statistical errors.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/ensemble_layout.hpp"
#include "parity/sde/solver.hpp"
#include "test_backend.hpp"

namespace parity_test_sde_josephson {

using parity::test::ExecSpace;
namespace sde = parity::sde;

template <class Real>
parity::sde::JosephsonResult solve(sde::JosephsonParams const& p) {
  return sde::solve<ExecSpace, Real>(ExecSpace(), p);
}

TEST(Josephson, NoDriveNoNoiseComesToRestInAMinimum) {
  sde::JosephsonParams p;
  p.a = 0, p.f = 0, p.D = 0;
  p.paths = 256, p.periods = 80, p.transient_periods = 50, p.bins = 100;
  auto const r = solve<double>(p);
  auto const& e = r.ensemble;
  // Energy v^2/2 + V decays (dE/dt = -gamma v^2): every path ends at rest at a minimum, x = 3/4 mod 1.
  EXPECT_EQ(e.histogram[75], p.paths);
  std::size_t const last = std::size_t(e.samples - 1) * 2;
  EXPECT_LT(e.variance[last + 1], 1e-16);
  EXPECT_NEAR(e.mean[last + 1], 0.0, 1e-8);
  EXPECT_NEAR(e.time_average[1], 0.0, 1e-6);
  // Only v is time-averaged (JosephsonSystem::time_averaged): x's entry says so rather than 0.
  EXPECT_TRUE(std::isnan(e.time_average[0]));
  // And in float.
  auto const rf = solve<float>(p);
  EXPECT_EQ(rf.ensemble.histogram[75], p.paths);
}

// Host RK4 of x'' + gamma x' = -2 pi cos(2 pi x) + f; returns the time-averaged velocity over
// (t0, t1] from x(0) = 0, v(0) = 0.
double rk4_mean_velocity(double gamma, double f, double h, long n0, long n1) {
  auto acc = [&](double x, double v) {
    return -gamma * v - 2 * std::numbers::pi * std::cos(2 * std::numbers::pi * x) + f;
  };
  double x = 0, v = 0, x0 = 0;
  for (long i = 0; i < n1; ++i) {
    if (i == n0) x0 = x;
    double const k1x = v, k1v = acc(x, v);
    double const k2x = v + 0.5 * h * k1v, k2v = acc(x + 0.5 * h * k1x, v + 0.5 * h * k1v);
    double const k3x = v + 0.5 * h * k2v, k3v = acc(x + 0.5 * h * k2x, v + 0.5 * h * k2v);
    double const k4x = v + h * k3v, k4v = acc(x + h * k3x, v + h * k3v);
    x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
  }
  return (x - x0) / (h * (n1 - n0));
}

TEST(Josephson, RunningStateMatchesHostRk4) {
  // f = 10 > max V' = 2 pi: no fixed point, every path runs on the same limit cycle.
  sde::JosephsonParams p;
  p.a = 0, p.f = 10, p.D = 0;
  p.paths = 64, p.periods = 150, p.transient_periods = 50;
  double const dt = 2 * std::numbers::pi / p.omega / p.steps_per_period;
  double const ref = rk4_mean_velocity(p.gamma, p.f, dt / 10, 10 * p.transient_periods * p.steps_per_period,
                                       10 * p.periods * p.steps_per_period);
  auto const r = solve<double>(p);
  double const v = r.ensemble.time_average[1];
  std::printf("  running state: <<v>> = %.6f (SRK2), %.6f (host RK4), path spread %.1e\n", v, ref,
              r.ensemble.time_average_error[1]);
  EXPECT_GT(ref, (p.f - 2 * std::numbers::pi) / p.gamma);
  EXPECT_LT(ref, (p.f + 2 * std::numbers::pi) / p.gamma);
  EXPECT_NEAR(v, ref, 2e-3 * ref);
  EXPECT_LT(r.ensemble.time_average_error[1], 1e-3 * ref);  // all paths on one limit cycle
  p.stepper = "euler";
  double const ve = solve<double>(p).ensemble.time_average[1];
  EXPECT_NEAR(ve, ref, 3e-2 * ref);
  EXPECT_GT(std::abs(ve - ref), std::abs(v - ref));  // the second-order stepper is closer
}

TEST(Josephson, FloatAndDoubleAgreeWithinStatisticalError) {
  sde::JosephsonParams p;
  p.D = 0.1, p.paths = 1024, p.periods = 30, p.transient_periods = 10;
  p.sweeps = {sde::SweepSpec{"a", 0.0, 4.2, 2}};
  auto const d = solve<double>(p), f = solve<float>(p);
  for (int q = 0; q < 2; ++q) {
    double const vd = d.ensemble.time_average[q * 2 + 1], vf = f.ensemble.time_average[q * 2 + 1];
    double const ed = d.ensemble.time_average_error[q * 2 + 1], ef = f.ensemble.time_average_error[q * 2 + 1];
    std::printf("  a = %.1f: <<v>> double %.4f +- %.4f, float %.4f +- %.4f\n", d.axis_values[0][q], vd, ed, vf, ef);
    EXPECT_GT(ed, 0);
    EXPECT_NEAR(vf, vd, 4 * std::sqrt(ed * ed + ef * ef));
  }
}

// The largest ensemble a sweep point may hold, 2^31 - 1 paths: its chunk layout and the memory
// estimate the commands check before allocating (a GPU has room for such a run, so the estimate,
// not the host's memory, must hold) count 2^21 chunks, the last one 1023 paths short, with no int
// overflow on the way ("paths + one chunk" is past int's range).
TEST(EnsembleLayout, LargestPathCountStaysInRange) {
  long const paths = (1L << 31) - 1;
  auto const l = sde::ensemble_layout(1, paths);
  EXPECT_EQ(l.chunks, 1L << 21);
  EXPECT_EQ(l.units, 1L << 21);
  EXPECT_EQ(l.u0, 0);
  EXPECT_EQ(l.u1, l.units);
  EXPECT_EQ(l.first_path, 0);
  EXPECT_EQ(l.local_paths, paths);
  long next = 0;  // four ranks share them without gap or overlap
  for (int rank = 0; rank < 4; ++rank) {
    auto const s = sde::ensemble_layout(1, paths, rank, 4);
    EXPECT_EQ(s.first_path, next);
    EXPECT_GT(s.local_paths, 0);
    next += s.local_paths;
  }
  EXPECT_EQ(next, paths);

  sde::EnsembleShape shape;
  shape.paths = paths;
  shape.dim = 2;
  shape.samples = 2000;
  shape.bins = 64;
  shape.real_bytes = 8;
  double const per_path = 2 * 8 + 4 + 2 * 8;  // state, winding, time sums
  double const chunk_sums = double(1L << 21) * 4 * 8;
  double const samples = 2000.0 * 4 * 8;
  double const bytes = sde::ensemble_device_bytes(shape);
  EXPECT_GE(bytes, double(paths) * per_path + chunk_sums + samples);
  EXPECT_LT(bytes, double(paths) * per_path + chunk_sums + samples + 1e6);
  shape.ranks = 4;  // each rank a quarter of the paths, all the chunk sums twice (its own and all)
  EXPECT_LT(sde::ensemble_device_bytes(shape), bytes / 3);
}

// Every path of a value that is 1 everywhere (no per-path memory): the chunk sums of the last
// chunks of 2^31 - 1 paths, each the count of its paths.
struct One {
  KOKKOS_INLINE_FUNCTION double operator()(int, int) const { return 1.0; }
};

TEST(EnsembleLayout, LastChunkOfTheLargestEnsembleIsSummed) {
  int const paths = int((1L << 31) - 1);
  long const last = sde::moment_chunks(paths) - 1;
  using Partial = Kokkos::View<double**, Kokkos::LayoutRight, ExecSpace::memory_space>;
  Partial partial("partial", 2, 2);
  sde::detail::moment_partials<1>(ExecSpace(), One{}, paths, last - 1, 0, partial);
  auto const h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), partial);
  EXPECT_EQ(h(0, 0), 1024);  // a whole chunk
  EXPECT_EQ(h(0, 1), 1024);
  EXPECT_EQ(h(1, 0), 1023);  // the last, one path short
  EXPECT_EQ(h(1, 1), 1023);
}

// A library user set fields, so validate() names them; the command passes its options instead.
TEST(SdeParams, MessagesNameTheField) {
  auto refusal = [](auto const& p, parity::ParameterName name = parity::field_name) -> std::string {
    try {
      sde::validate(p, name);
    } catch (parity::InvalidInput const& e) {
      return e.what();
    }
    return "";
  };
  sde::JosephsonParams j;
  j.D = -1;
  EXPECT_EQ(refusal(j), "D, the noise intensity, must be >= 0");
  EXPECT_EQ(refusal(j, [](std::string const& f) { return "<" + f + ">"; }), "<D>, the noise intensity, must be >= 0");
  j = {};
  j.transient_periods = j.periods;
  EXPECT_EQ(refusal(j), "transient_periods must be in [0, periods)");
  sde::KuramotoParams k;
  k.oscillators = 1;
  EXPECT_EQ(refusal(k), "oscillators must be in [2, 2^30]");
  k = {};
  k.dt = 1;
  EXPECT_EQ(refusal(k).rfind("dt 1 is too large", 0), 0u) << refusal(k);
  k = {};
  k.coupling = "ring";
  EXPECT_EQ(refusal(k), "coupling must be mean-field or all-pairs");
}

}  // namespace parity_test_sde_josephson
