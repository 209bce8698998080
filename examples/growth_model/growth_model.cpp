// A user's own model on the dynamic-programming engine: the stochastic growth model with log
// utility, Cobb-Douglas output and full depreciation, whose policy has the closed form
// k' = alpha beta z k^alpha (Brock & Mirman 1972). The model is a struct with one function, the
// per-period reward; parity::dp::solve runs value iteration with Howard steps on this program's
// execution space, and the program checks the grid policy against the closed form: the best grid
// point lies within one grid step of it.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include "parity/dp/value_iteration.hpp"
#include "parity/markov/ar1.hpp"

struct Growth {
  double alpha;
  // log(c) for c = z k^alpha - k' > 0; -infinity where k' costs more than output.
  KOKKOS_FUNCTION double reward(double z, double k, double k_next) const {
    double const c = z * Kokkos::pow(k, alpha) - k_next;
    return c > 0 ? Kokkos::log(c) : -Kokkos::Experimental::infinity<double>::value;
  }
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  double const alpha = 0.36, beta = 0.95;

  // log z: an AR(1) with persistence 0.9, innovations of s.d. 0.02, as 7 Rouwenhorst states.
  auto chain = parity::markov::rouwenhorst(parity::markov::Ar1{0.9, 0.02, 0.0}, 7);
  for (double& v : chain.values) v = std::exp(v);
  double const k_star = std::pow(alpha * beta, 1 / (1 - alpha));
  int const n = 2001;
  std::vector<double> grid(n);
  for (int i = 0; i < n; ++i) grid[i] = k_star * (0.3 + 1.4 * i / (n - 1));

  parity::dp::GridChoiceProblem<Growth> problem{Growth{alpha}, grid, chain, beta};
  parity::dp::Options options;
  options.tolerance = 1e-9;
  options.howard_steps = 20;
  options.search = parity::dp::Search::concave;  // log utility and a concave V: the objective is concave in k'
  auto const r = parity::dp::solve<double>(Kokkos::DefaultExecutionSpace{}, problem, options);

  double const h = grid[1] - grid[0];
  double worst = 0;
  for (std::size_t z = 0; z < chain.size(); ++z)
    for (int i = 0; i < n; ++i) {
      double const exact = alpha * beta * chain.values[z] * std::pow(grid[i], alpha);
      worst = std::max(worst, std::abs(r.policy_value[z * n + i] - exact));
    }
  std::printf(
      "growth model: %d Bellman sweeps, residual %.2e, policy within %.3g of the closed form "
      "(grid step %.3g)\n",
      r.iterations, r.residual, worst, h);
  bool const ok = r.status == parity::dp::Status::converged && worst <= h;
  if (!ok) std::printf("FAILED: the policy is more than one grid step from k' = alpha beta z k^alpha\n");
  return ok ? 0 : 1;
}
