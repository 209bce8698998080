#pragma once
// What an RBC solve returns (host data, no Kokkos).
#include <vector>

namespace parity::rbc {

struct Result {
  bool converged = false;
  bool non_finite = false;
  int iterations = 0;  // Bellman sweeps
  double residual = 0;  // sup |TV - V| of the last sweep
  double lower_bound = 0, upper_bound = 0;  // MacQueen-Porteus: V* - V lies in [lower, upper]
  double steady_capital = 0;
  // log10 of the largest and the mean unit-free Euler equation error over the states whose choice
  // is inside the grid: |1 - u'^-1(beta E[u'(C') (alpha Z' K'^(alpha-1) + 1 - delta)]) / C|, with C'
  // from the policy at K' (Aruoba, Fernández-Villaverde and Rubio-Ramírez 2006).
  double euler_error_max = 0, euler_error_mean = 0;
  std::vector<double> residual_history;
  // Arrays: the capital grid, productivity (values, transition), and per (productivity state,
  // capital node), row-major: V, the chosen K' and C.
  std::vector<double> capital, productivity, productivity_transition;
  std::vector<double> value, capital_next, consumption;
};

}  // namespace parity::rbc
