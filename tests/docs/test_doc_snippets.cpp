// The C++ blocks of docs/library.md and docs/api/*.md, compiled: tests/docs/extract_snippets.py writes each named
// block (`<!-- snippet: name -->` before it) to doc_snippets/<name>.inc at configure time, and
// this file includes each one where the names it uses are declared, so a documented call that no
// longer compiles fails the build. The cheap ones also run and are checked.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parity/cubature/family.hpp"
#include "parity/cubature/integrands.hpp"
#include "parity/cubature/integrate.hpp"
#include "parity/cubature/vector.hpp"
#include "parity/cubature/vegas.hpp"
#include "parity/dp/distribution.hpp"
#include "parity/dp/egm.hpp"
#include "parity/dual_control/solver.hpp"
#include "parity/grid/spacing.hpp"
#include "parity/krusell_smith/solver.hpp"
#include "parity/markov/ar1.hpp"
#include "parity/sde/adaptive.hpp"
#include "parity/sde/ensemble.hpp"
#include "test_backend.hpp"

namespace {

using ExecSpace = parity::test::ExecSpace;

namespace dp_snippet {
#include "doc_snippets/dp_household.inc"

struct Outcome {
  double K;
  parity::dp::Status policy, distribution;
};

Outcome run(std::vector<double> const& grid) {
#include "doc_snippets/dp_egm_and_distribution.inc"
  return {K, policy.status, dist.status};
}
}  // namespace dp_snippet

// An integrand of any dimension: the mean of the coordinates (integral 1/2 over the unit cube).
struct MeanCoordinate {
  int dim;
  KOKKOS_FUNCTION double operator()(parity::cubature::Point<double> const& x) const {
    double s = 0;
    for (int i = 0; i < dim; ++i) s += x[i];
    return s / dim;
  }
};

template <class Real>
parity::cubature::Result cubature_integrate(ExecSpace const& space, MeanCoordinate const& f,
                                            std::vector<double> const& lower, std::vector<double> const& upper,
                                            parity::cubature::Tolerances const& tolerances,
                                            parity::cubature::Options const& options) {
#include "doc_snippets/cubature_integrate.inc"
  return r;
}

parity::cubature::VegasResult cubature_vegas(ExecSpace const& space) {
  MeanCoordinate const f{20};
#include "doc_snippets/cubature_vegas.inc"
  return r;
}

std::vector<parity::cubature::VegasResult> cubature_vegas_family(ExecSpace const& space) {
#include "doc_snippets/cubature_vegas_family.inc"
  return r;
}

std::vector<parity::cubature::Result> cubature_family(ExecSpace const& space) {
#include "doc_snippets/cubature_family.inc"
  return r;
}

std::vector<parity::cubature::Result> cubature_vector(ExecSpace const& space) {
#include "doc_snippets/cubature_vector.inc"
  return r;
}

struct Decay {  // dX = -X dt + dW: compiled only
  using real_type = double;
  static constexpr int dim = 1, noise_dim = 1;
  KOKKOS_FUNCTION void drift(parity::sde::Tick const&, parity::sde::State<Decay> const& x,
                             parity::sde::State<Decay>& f) const {
    f[0] = -x[0];
  }
  KOKKOS_FUNCTION void noise(parity::sde::Tick const&, parity::sde::State<Decay> const&,
                             parity::sde::Noise<Decay> const& dw, parity::sde::State<Decay>& g) const {
    g[0] = dw[0];
  }
  KOKKOS_FUNCTION void initial(parity::random::PhiloxStream<double>&, parity::sde::State<Decay>& x) const { x[0] = 0; }
};

[[maybe_unused]] parity::sde::EnsembleResult sde_integrate(ExecSpace const& space, Decay const& system,
                                                           parity::sde::Sweep const& sweep,
                                                           parity::sde::EnsembleConfig const& config) {
#include "doc_snippets/sde_integrate.inc"
  return r;
}

[[maybe_unused]] parity::sde::AdaptiveResult sde_integrate_adaptive(ExecSpace const& space, Decay const& system) {
#include "doc_snippets/sde_integrate_adaptive.inc"
  return r;
}

template <class Real>
parity::dual_control::Result dual_control_solve(ExecSpace const& space, parity::dual_control::Params const& params,
                                                parity::run::Progress& progress, parity::run::PhaseTimes& times) {
#include "doc_snippets/dual_control_solve.inc"
  (void)q;
  return r;
}

template <class Real>
parity::krusell_smith::Result krusell_smith_solve(ExecSpace const& space, parity::krusell_smith::Params const& params,
                                                  parity::run::SolveOptions const& options) {
#include "doc_snippets/krusell_smith_solve.inc"
  return r;
}

// Instantiated, not run (a solve of each takes seconds to minutes).
[[maybe_unused]] auto const dual_control_double = &dual_control_solve<double>;
[[maybe_unused]] auto const krusell_smith_double = &krusell_smith_solve<double>;

}  // namespace

TEST(DocSnippets, EndogenousGridAndDistributionRun) {
  auto const out = dp_snippet::run(parity::grid::power_nodes(0.0, 60.0, 300, 2.0));
  EXPECT_EQ(out.policy, parity::dp::Status::converged);
  EXPECT_EQ(out.distribution, parity::dp::Status::converged);
  // beta R < 1: the households hold some but bounded wealth, inside the grid.
  EXPECT_GT(out.K, 0.0);
  EXPECT_LT(out.K, 60.0);
}

TEST(DocSnippets, CubatureCallsIntegrate) {
  parity::cubature::Tolerances tol;
  tol.relative = 1e-9;
  auto const r = cubature_integrate<double>(ExecSpace(), MeanCoordinate{3}, {0, 0, 0}, {1, 1, 1}, tol, {});
  EXPECT_EQ(r.status, parity::cubature::Status::converged);
  EXPECT_NEAR(r.integral, 0.5, 1e-12);  // linear: the rule is exact
}

TEST(DocSnippets, VegasFamilyOfGenzParameters) {
  auto const r = cubature_vegas_family(ExecSpace());
  ASSERT_EQ(r.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    double const exact = parity::cubature::genz_exact(parity::cubature::Family::gaussian,
                                                      std::vector<double>(6, 2.0 + k), std::vector<double>(6, 0.5),
                                                      std::vector<double>(6, 0.0), std::vector<double>(6, 1.0));
    EXPECT_EQ(r[k].status, parity::cubature::VegasStatus::converged);
    EXPECT_NEAR(r[k].integral, exact, 5 * r[k].error);
  }
}

TEST(DocSnippets, FamilyOfGenzParameters) {
  auto const r = cubature_family(ExecSpace());
  ASSERT_EQ(r.size(), 10u);
  for (int k = 0; k < 10; ++k) {
    double const exact = parity::cubature::genz_exact(
        parity::cubature::Family::gaussian, std::vector<double>(4, 1.0 + 0.5 * k), std::vector<double>(4, 0.4),
        std::vector<double>(4, 0.0), std::vector<double>(4, 1.0));
    EXPECT_EQ(r[k].status, parity::cubature::Status::converged);
    EXPECT_NEAR(r[k].integral, exact, 1e-8 * exact);
  }
}

TEST(DocSnippets, MomentsOnOnePartition) {
  auto const r = cubature_vector(ExecSpace());
  ASSERT_EQ(r.size(), 3u);
  // Per axis: the integral of exp(-4 (x - 1/2)^2) over [0, 1] is sqrt(pi) erf(1) / 2, its mean
  // 1/2 by symmetry, and its second moment (by parts) 1/4 + j2 / g0.
  double const pi = std::acos(-1.0), g0 = 0.5 * std::sqrt(pi) * std::erf(1.0);
  double const j2 = g0 / 8 - std::exp(-1.0) / 8;  // integral of y^2 e^{-4 y^2} over |y| <= 1/2
  double const exact[3] = {g0 * g0 * g0, 0.5 * g0 * g0 * g0, (j2 + 0.25 * g0) * g0 * g0};
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(r[k].status, parity::cubature::Status::converged) << k;
    EXPECT_NEAR(r[k].integral, exact[k], 1e-9 * exact[k]) << k;
    EXPECT_EQ(r[k].evaluations, r[0].evaluations) << k;
  }
}

TEST(DocSnippets, VegasCallsIntegrateVegas) {
  auto const r = cubature_vegas(ExecSpace());
  EXPECT_EQ(r.status, parity::cubature::VegasStatus::converged);
  EXPECT_NEAR(r.integral, 0.5, 5 * r.error + 1e-12);
}
