// Krusell-Smith checkpoints: a solve stopped after k outer iterations (--max-iter k, checkpoint
// written) and resumed from its checkpoint returns exactly what one uninterrupted solve returns;
// checkpoints of other parameters, missing or broken files are refused as bad input; a first
// Euler-equation solve cut by its iteration cap is reported as not converged.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "parity/krusell_smith/solver.hpp"
#include "parity/run/errors.hpp"
#include "test_backend.hpp"

namespace parity_test_krusell_smith_resume {

using parity::test::ExecSpace;
namespace ks = parity::krusell_smith;
namespace fs = std::filesystem;

// A few-second solve of several outer iterations: near the fixed point, a loose tolerance, the
// per-agent employment draw (no radix select).
ks::Params small() {
  ks::Params p;
  p.agents = 1000, p.periods = 200, p.discard = 40, p.nk = 24, p.nK = 4, p.tol = 1e-4, p.policy_tol = 1e-7;
  p.init_coeffs = {0.13, 0.964, 0.12, 0.966};
  p.employment_draw = ks::EmploymentDraw::independent;
  p.burn_in = 600;  // the carry stops inside the run: the held start must survive the checkpoint
  return p;
}

template <class Real>
ks::Result solve(ks::Params const& p) {
  return ks::solve<ExecSpace, Real>(ExecSpace(), p);
}

std::string temp_file(std::string const& name) {
  auto const dir = fs::temp_directory_path() /
                   ("parity-ks-resume-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(dir);
  return (dir / name).string();
}

void expect_same(ks::Result const& a, ks::Result const& b) {
  EXPECT_EQ(a.coeffs, b.coeffs);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.converged, b.converged);
  EXPECT_EQ(a.coeff_change, b.coeff_change);
  EXPECT_EQ(a.r_squared, b.r_squared);
  EXPECT_EQ(a.regression_se, b.regression_se);
  EXPECT_EQ(a.coeff_history, b.coeff_history);
  EXPECT_EQ(a.policy_iterations_total, b.policy_iterations_total);
  EXPECT_EQ(a.policy_iterations_first, b.policy_iterations_first);
  EXPECT_EQ(a.policy_iterations_last, b.policy_iterations_last);
  EXPECT_EQ(a.panel_carries, b.panel_carries);
  EXPECT_EQ(a.K_path, b.K_path);
  EXPECT_EQ(a.K_alm, b.K_alm);
  EXPECT_EQ(a.policy, b.policy);
  EXPECT_EQ(a.k_final, b.k_final);
  EXPECT_EQ(a.k_final_min, b.k_final_min);
  EXPECT_EQ(a.euler_on_max, b.euler_on_max);
  EXPECT_EQ(a.euler_off_max, b.euler_off_max);
  EXPECT_EQ(a.den_haan_max_pct, b.den_haan_max_pct);
}

template <class Real>
void interrupted_equals_uninterrupted(std::vector<int> const& stops) {
  ks::Params const p = small();
  auto const file = temp_file(sizeof(Real) == 4 ? "float.ckpt" : "double.ckpt");
  auto const done_file = file + ".done";
  ks::Params with_checkpoint = p;  // writing checkpoints does not change the result
  with_checkpoint.checkpoint.path = done_file;
  ks::Result const whole = solve<Real>(with_checkpoint);
  ASSERT_TRUE(whole.converged);
  ASSERT_GE(whole.iterations, 4) << "the test needs a solve of several outer iterations";
  ASSERT_GT(whole.panel_carries, 0);
  ASSERT_LT(whole.panel_carries, whole.iterations) << "the carry stops inside the run";
  // Stopped after k outer iterations, resumed; for k > 1 in two legs.
  for (int k : stops) {
    ks::Params first = p;
    first.max_iter = k;
    first.checkpoint.path = file;
    ks::Result const part = solve<Real>(first);
    EXPECT_FALSE(part.converged);
    EXPECT_EQ(part.stop_stage, "law of motion");
    EXPECT_EQ(part.checkpoints_written, 1) << "default --checkpoint-every: the last iteration's checkpoint only";
    ks::Params rest = p;
    rest.checkpoint.resume = file;
    if (k > 1) {  // resume for one more iteration, then again to the end, writing every iteration
      rest.max_iter = k + 1;
      rest.checkpoint.path = file;
      rest.checkpoint.every_seconds = 0;
      ks::Result const leg = solve<Real>(rest);
      EXPECT_EQ(leg.resumed_from_iteration, k);
      EXPECT_EQ(leg.iterations, k + 1);
      rest.max_iter = p.max_iter;
    }
    ks::Result const resumed = solve<Real>(rest);
    EXPECT_EQ(resumed.resumed_from_iteration, k > 1 ? k + 1 : k);
    SCOPED_TRACE("stopped after " + std::to_string(k));
    expect_same(resumed, whole);
  }
  // A finished solve's checkpoint resumes to the same result without iterating.
  ks::Params from_done = p;
  from_done.checkpoint.resume = done_file;
  expect_same(solve<Real>(from_done), whole);
  fs::remove_all(fs::path(file).parent_path());
}

// Stopped with the start held fixed (after 3: the carry ends after 3 x 200 periods) in double,
// inside the carry (after 2) in float.
TEST(KrusellSmithResume, InterruptedThenResumedEqualsUninterruptedDouble) {
  interrupted_equals_uninterrupted<double>({3});
}
TEST(KrusellSmithResume, InterruptedThenResumedEqualsUninterruptedFloat) {
  interrupted_equals_uninterrupted<float>({2});
}

// Expects solve to refuse p as bad input with a message containing every one of parts.
void expect_refused(ks::Params const& p, std::vector<std::string> const& parts) {
  try {
    solve<double>(p);
    ADD_FAILURE() << "accepted";
  } catch (parity::InvalidInput const& e) {
    std::string const what = e.what();
    for (auto const& s : parts) EXPECT_NE(what.find(s), std::string::npos) << "'" << what << "' lacks '" << s << "'";
  }
}

TEST(KrusellSmithResume, OtherParametersMissingOrBrokenFilesAreRefused) {
  auto const file = temp_file("run.ckpt");
  ks::Params p = small();
  p.max_iter = 1;
  p.checkpoint.path = file;
  solve<double>(p);
  ks::Params other = small();
  other.checkpoint.resume = file;
  other.beta = 0.98;
  expect_refused(other, {"--resume", "other parameters", "beta=0.99", "beta=0.98"});
  other = small();
  other.checkpoint.resume = file;
  try {
    solve<float>(other);
    ADD_FAILURE() << "a double checkpoint resumed in float";
  } catch (parity::InvalidInput const& e) {
    EXPECT_NE(std::string(e.what()).find("precision=double"), std::string::npos) << e.what();
  }
  other.checkpoint.resume = file + ".missing";
  expect_refused(other, {"--resume", "does not exist"});
  {
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(file, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
  }
  other.checkpoint.resume = file;
  expect_refused(other, {"--resume", "truncated"});
  // A missing folder is created, as for every output; a folder that is a file is refused.
  other = small();
  other.max_iter = 1;
  other.checkpoint.path = (fs::path(file).parent_path() / "new-folder" / "x.ckpt").string();
  solve<double>(other);
  EXPECT_TRUE(fs::is_regular_file(other.checkpoint.path));
  other.checkpoint.path = (fs::path(file) / "x.ckpt").string();
  expect_refused(other, {"--checkpoint", "is a file"});
  fs::remove_all(fs::path(file).parent_path());
}

TEST(KrusellSmithResume, CappedFirstPolicyIsNotConverged) {
  ks::Params p = small();
  p.policy_max_iter = 5;  // far from enough for the first policy (hundreds of sweeps)
  ks::Result const r = solve<double>(p);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.stop_stage, "policy");
  EXPECT_NE(r.stop_reason.find("--policy-max-iter 5"), std::string::npos) << r.stop_reason;
  EXPECT_EQ(r.iterations, 1);
  EXPECT_EQ(r.policy_iterations_first, 5);
}

}  // namespace parity_test_krusell_smith_resume
