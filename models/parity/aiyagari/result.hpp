#pragma once
// What an Aiyagari solve returns (host data, no Kokkos).
#include <vector>

namespace parity::aiyagari {

struct Step {  // one evaluation of the market-clearing condition
  double interest_rate, capital_supply, capital_demand;
  int policy_iterations, distribution_iterations;
};

struct Result {
  bool converged = false;  // the bracket of r closed to rate_tol, every inner solve converged
  bool non_finite = false;
  double interest_rate = 0;  // net, per period
  double wage = 0;
  double capital = 0;  // the households' mean assets at interest_rate
  double capital_demand = 0;  // the firm's at interest_rate
  double output = 0;
  double saving_rate = 0;  // delta K / Y
  double gini = 0;  // of the wealth (assets) distribution
  double rate_lower = 0, rate_upper = 0;  // the final bracket of r
  double mass_at_top = 0;  // the mass on the grid's last node (large: raise asset_max)
  std::vector<Step> history;
  // Arrays: the asset grid, the labour states (values, transition, stationary distribution), and
  // per (labour state, asset node), row-major: the distribution's mass, consumption and saving.
  std::vector<double> assets, labour, labour_transition, labour_distribution;
  std::vector<double> mass, consumption, saving;
};

}  // namespace parity::aiyagari
