#pragma once
// The endogenous grid method (Carroll 2006) for a consumption-saving problem on a Markov
// exogenous state z (income, productivity):
//
//   max E sum_t beta^t u(c_t)  s.t.  c + a' = cash(z, a),  a' >= grid[0] (the borrowing limit),
//
// with Euler equation u'(c) = beta R E[u'(c') | z] wherever the limit does not bind. From a
// consumption policy c(z, a) on the grid, each sweep finds the endogenous grid of today's assets
// a_endo(z, j) at which saving grid[j] is optimal (no maximisation, no root-finding), and
// interpolates the saving policy back onto the grid. Sweeps run on the device until the sup norm
// of the change of c is below the tolerance (time iteration on the Euler equation).
//
//   struct Household {                       // CRRA utility, cash = R a + w z
//     double gamma, R, w;
//     KOKKOS_FUNCTION double marginal_utility(double c) const { return Kokkos::pow(c, -gamma); }
//     KOKKOS_FUNCTION double inverse_marginal_utility(double m) const { return Kokkos::pow(m, -1 / gamma); }
//     KOKKOS_FUNCTION double cash(double z, double a) const { return R * a + w * z; }
//     KOKKOS_FUNCTION double assets_for_cash(double z, double m) const { return (m - w * z) / R; }
//   };
//   parity::dp::EndogenousGridProblem<Household> p{household, grid, chain, beta, R};
//   auto r = parity::dp::solve<double>(space, p);      // r.consumption, r.saving
//
// Each function takes and returns the engine's precision (templates are welcome); cash must be
// increasing in a and assets_for_cash its inverse. The linear interpolation of a' is exact for a
// linear policy, so the method's error is the grid's; the Euler residuals between nodes measure it.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <concepts>
#include <string>
#include <type_traits>
#include <vector>

#include "parity/dp/detail/egm.hpp"
#include "parity/dp/options.hpp"
#include "parity/timing/scoped_phase.hpp"

namespace parity::dp {

template <class Model>
struct EndogenousGridProblem {
  Model model;
  std::vector<double> grid;  // assets a (and a'), strictly increasing; grid[0] is the borrowing limit
  markov::Chain exogenous;
  double beta = 0.96;  // discount factor, in (0, 1)
  double gross_return = 1.04;  // R of the Euler equation, > 0
};

template <class M, class Real>
concept EndogenousGridModel = std::is_copy_constructible_v<M> && requires(M const& m, Real x, Real z) {
  { m.marginal_utility(x) } -> std::convertible_to<Real>;
  { m.inverse_marginal_utility(x) } -> std::convertible_to<Real>;
  { m.cash(z, x) } -> std::convertible_to<Real>;
  { m.assets_for_cash(z, x) } -> std::convertible_to<Real>;
};

struct PolicyOptions : run::SolveOptions {  // progress: a line per sweep (options.hpp)
  double tolerance = 1e-10;  // on the sup norm of the change of c in one sweep
  int max_iterations = 10000;
  std::vector<double> initial_consumption;  // n_z x n_k; empty: consume all cash above the limit
};

struct PolicyResult {
  Status status = Status::not_converged;
  int iterations = 0;
  double residual = 0;  // sup |c_new - c| of the last sweep
  std::vector<double> residual_history;
  std::vector<double> consumption;  // c(z, a), n_z x n_k row-major
  std::vector<double> saving;  // a'(z, a), n_z x n_k row-major
};

namespace detail {

template <class M, class Real>
constexpr bool check_endogenous_grid_model() {
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>,
                "parity::dp: Real (the precision) must be float or double");
  static_assert(
      requires(M const& m, Real c) { m.marginal_utility(c); },
      "parity::dp: the model must provide `KOKKOS_FUNCTION Real marginal_utility(Real c) const`");
  static_assert(
      requires(M const& m, Real x) { m.inverse_marginal_utility(x); },
      "parity::dp: the model must provide `KOKKOS_FUNCTION Real inverse_marginal_utility(Real m) const`, "
      "the c with marginal_utility(c) == m");
  static_assert(
      requires(M const& m, Real z, Real a) { m.cash(z, a); },
      "parity::dp: the model must provide `KOKKOS_FUNCTION Real cash(Real z, Real a) const`, the "
      "resources c + a' in state (z, a)");
  static_assert(
      requires(M const& m, Real z, Real x) { m.assets_for_cash(z, x); },
      "parity::dp: the model must provide `KOKKOS_FUNCTION Real assets_for_cash(Real z, Real m) const`, "
      "the a with cash(z, a) == m");
  static_assert(std::is_copy_constructible_v<M>,
                "parity::dp: the model is copied into every kernel, so it must be copy-constructible "
                "(hold plain values and Kokkos::Views, not host containers or references)");
  return EndogenousGridModel<M, Real>;
}

}  // namespace detail

template <class Model>
void validate(EndogenousGridProblem<Model> const& p, PolicyOptions const& opt) {
  validate(GridChoiceProblem<Model>{p.model, p.grid, p.exogenous, p.beta}, Options{});
  require(std::isfinite(p.gross_return) && p.gross_return > 0, "dp: gross_return must be > 0");
  require(std::isfinite(opt.tolerance) && opt.tolerance > 0, "dp: tolerance must be > 0");
  require(opt.max_iterations >= 1, "dp: max_iterations must be at least 1");
  require(opt.initial_consumption.empty() || opt.initial_consumption.size() == p.grid.size() * p.exogenous.size(),
          "dp: initial_consumption must have n_z x n_k entries");
}

template <class Real, class ExecutionSpace, class Model>
PolicyResult solve(ExecutionSpace const& space, EndogenousGridProblem<Model> const& problem,
                   PolicyOptions const& opt = {}) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "parity::dp::solve: the first argument must be a Kokkos execution space");
  static_assert(detail::check_endogenous_grid_model<Model, Real>());
  validate(problem, opt);
  using Mem = typename ExecutionSpace::memory_space;
  using Table = detail::Table<Real, Mem>;
  int const nz = int(problem.exogenous.size()), nk = int(problem.grid.size());

  Kokkos::View<Real*, Mem> grid(Kokkos::view_alloc(space, "parity::dp::grid"), nk);
  Kokkos::View<Real*, Mem> zvalues(Kokkos::view_alloc(space, "parity::dp::exogenous_values"), nz);
  Table P(Kokkos::view_alloc(space, "parity::dp::transition"), nz, nz);
  Table c(Kokkos::view_alloc(space, "parity::dp::consumption"), nz, nk);
  Table c_new(Kokkos::view_alloc(space, "parity::dp::consumption_next"), nz, nk);
  Table a_endo(Kokkos::view_alloc(space, "parity::dp::endogenous_grid"), nz, nk);
  Table saving(Kokkos::view_alloc(space, "parity::dp::saving"), nz, nk);
  Table u_prime(Kokkos::view_alloc(space, "parity::dp::marginal_utility"), nz, nk);
  {
    auto g = Kokkos::create_mirror_view(grid);
    auto zv = Kokkos::create_mirror_view(zvalues);
    auto p = Kokkos::create_mirror_view(P);
    auto c0 = Kokkos::create_mirror_view(c);
    for (int i = 0; i < nk; ++i) g(i) = Real(problem.grid[i]);
    for (int z = 0; z < nz; ++z) {
      zv(z) = Real(problem.exogenous.values[z]);
      for (int zn = 0; zn < nz; ++zn) p(z, zn) = Real(problem.exogenous.probability(z, zn));
      for (int i = 0; i < nk; ++i) {
        double const all =
            double(problem.model.cash(Real(problem.exogenous.values[z]), Real(problem.grid[i]))) - problem.grid[0];
        c0(z, i) = Real(opt.initial_consumption.empty() ? all : opt.initial_consumption[z * nk + i]);
        require(c0(z, i) > 0, "dp: the initial consumption must be > 0 (is cash above the borrowing limit?)");
      }
    }
    Kokkos::deep_copy(space, grid, g);
    Kokkos::deep_copy(space, zvalues, zv);
    Kokkos::deep_copy(space, P, p);
    Kokkos::deep_copy(space, c, c0);
    space.fence("parity::dp::upload");
  }
  Real const beta_R = Real(problem.beta * problem.gross_return);

  PolicyResult r;
  Kokkos::Timer timer;
  timing::OptionalPhase<ExecutionSpace> phase(space, opt.phases, "parity::dp::endogenous_grid_method");
  for (int it = 1; it <= opt.max_iterations; ++it) {
    double residual = 0;
    bool well_formed = true;
    {
      detail::marginal_utilities<ExecutionSpace, Real, Model, Mem>(space, problem.model, c, u_prime);
      detail::endogenous_grid<ExecutionSpace, Real, Model, Mem>(space, problem.model, grid, zvalues, P, beta_R, u_prime,
                                                                a_endo);
      detail::policy_on_grid<ExecutionSpace, Real, Model, Mem>(space, problem.model, grid, zvalues, a_endo, c_new,
                                                               saving);
      detail::egm_residual<ExecutionSpace, Real, Mem>(space, c_new, c, a_endo, residual, well_formed);
    }
    std::swap(c, c_new);
    r.iterations = it;
    r.residual = residual;
    r.residual_history.push_back(residual);
    if (!well_formed || !std::isfinite(residual)) {
      r.status = Status::non_finite;
      break;
    }
    if (opt.progress)
      opt.progress->update({"endogenous grid", it, residual, timer.seconds(), "", opt.max_iterations, opt.tolerance});
    if (residual < opt.tolerance) {
      r.status = Status::converged;
      break;
    }
  }
  auto ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  auto sh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), saving);
  r.consumption.assign(ch.data(), ch.data() + ch.size());
  r.saving.assign(sh.data(), sh.data() + sh.size());
  return r;
}

}  // namespace parity::dp
