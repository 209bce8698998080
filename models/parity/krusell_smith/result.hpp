#pragma once
// What a Krusell-Smith solve returns: plain host data, no Kokkos.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace parity::krusell_smith {

// The solver's timed phases (run::PhaseTimes names), "parity::<model>::<stage>" as in every model.
inline constexpr char const* phase_shocks = "parity::krusell_smith::shocks";
inline constexpr char const* phase_panel_setup = "parity::krusell_smith::panel_setup";
inline constexpr char const* phase_policy = "parity::krusell_smith::policy";
inline constexpr char const* phase_panel = "parity::krusell_smith::panel";
inline constexpr char const* phase_regression = "parity::krusell_smith::regression";
inline constexpr char const* phase_accuracy = "parity::krusell_smith::accuracy";

struct Result {
  // Aggregate law of motion ln K' = b0(z) + b1(z) ln K: {b0_good, b1_good, b0_bad, b1_bad}.
  std::array<double, 4> coeffs{};
  std::array<double, 2> r_squared{};  // of the final regression, good and bad state
  std::array<double, 2> regression_se{};  // standard error of the regression (log points)
  double coeff_change = 0;  // the last iteration's change as Params::coefficient_change measures it
  int iterations = 0;  // outer (law-of-motion) iterations
  bool converged = false;
  bool time_limited = false;  // stopped by Checkpointing::time_limit after an outer iteration
  // Why an unconverged solve ended: the stage ("law of motion" or "policy") and what stopped it.
  // Empty when converged.
  std::string stop_stage, stop_reason;
  int resumed_from_iteration = 0;  // outer iterations a resumed checkpoint had done (0: fresh solve)
  int checkpoints_written = 0;
  long policy_iterations_total = 0;
  int policy_iterations_last = 0;
  int policy_iterations_first = 0;  // of the first outer iteration: what a restarted policy saves
  std::vector<std::array<double, 4>> coeff_history;  // b after each outer iteration
  int panel_carries = 0;  // simulations whose final cross-section started the next one
  std::string panel_locate;  // the panel step used (scratch falls back to power when it does not fit)

  // Den Haan (2010) accuracy test: the law of motion iterated on its own along the same z path
  // from the panel's K_0, compared with the panel's K in periods >= discard (percent).
  double den_haan_max_pct = 0, den_haan_mean_pct = 0;
  // Euler-equation errors |1 - c_euler / c| of the final policy (unit free), on the grid nodes
  // and on the midpoints between them (k and K), for k <= euler_k_cap.
  double euler_on_max = 0, euler_on_mean = 0, euler_off_max = 0, euler_off_mean = 0;
  double euler_k_cap = 0;

  // Shocks: the exact unemployment target each period is met (max deviation in agents) and the
  // empirical transition frequencies of the panel.
  long unemployment_max_deviation = 0;
  double unemployment_rate_good = 0, unemployment_rate_bad = 0;
  std::array<double, 4> p00_empirical{};  // P(u -> u | z -> z') in the panel, index 2 z + z_next

  // Simulation.
  std::vector<double> K_path;  // K_0 .. K_T (panel means), T + 1 values
  std::vector<double> K_alm;  // dynamic simulation of the law of motion, T + 1 values
  std::vector<std::int32_t> z_path;  // 0 good, 1 bad, T values
  std::vector<double> k_final;  // capital of the first min(N, sample) agents at T
  std::vector<std::int32_t> employed_final;  // their employment in period T - 1
  double k_final_min = 0;  // over all agents (device reduction)
  double k_final_mean = 0;  // mean of the saved cross-section when it is the whole panel

  // Policy on the grid, shape (nk, nK, 2, 2): g[((i * nK + j) * 2 + z) * 2 + e], with the axes.
  std::vector<double> policy;
  std::vector<double> k_grid, K_grid;

  // Chain (row-major 4x4, state 2 z + e).
  std::array<double, 16> transition{};
};

}  // namespace parity::krusell_smith
