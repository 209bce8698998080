#pragma once
// Krusell-Smith (1998) incomplete-markets economy in the version of the JEDC comparison suite
// (Den Haan, Judd & Juillard 2010): unemployment insurance mu * w financed by a labour tax
// tau = mu u / (l L), solved by the Krusell-Smith simulation algorithm (Maliar, Maliar & Valli
// 2010) with every stage on the device.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"
#include "parity/run/parameter_name.hpp"

namespace parity::krusell_smith {

enum class Interp { catmull_rom, bilinear };
// How the panel's per-period kernels are launched: recorded once as a Kokkos graph and launched
// as one (default), or one by one (to measure what the graph saves).
enum class PanelLaunch { graph, kernels };
// How an agent finds its k cell and that cell's cubic in the panel step: `power` inverts the
// power-spaced k grid in closed form (one float pow) and reads one record per cell holding the
// cell's nodes and cubic (one or two cache sectors); `bucket` uses the axis' bucket table and
// binary search and four separately stored coefficients (the earlier kernel). Same results.
// `scratch` is `power` with the period's cubics and nodes first copied into each team's scratch
// memory: on a GPU an agent's record read is then a shared-memory gather instead of one L1
// wavefront per lane (the bound of `power` at 10^7 agents); the sum is reduced per team, so
// K differs from `power` in the last bits. Falls back to `power` when the records do not fit.
// automatic: scratch for double on a GPU (the fastest there, measured on an H200), power elsewhere.
enum class PanelLocate { power, bucket, scratch, automatic };
// How the individual policy is solved from the Euler equation: endogenous grid points (default;
// no root finding, no interpolation of next period's policy in k) or damped time iteration at the
// k nodes as in Maliar, Maliar & Valli's INDIVIDUAL.m (next period's policy interpolated at k').
// Two methods for one fixed point: their gap measures the k-interpolation error of the policy.
enum class PolicyMethod { endogenous_grid, time_iteration };
// How employment is drawn: `exact` meets the unemployment target every period (of the unemployed
// exactly round(pi00 U) stay, the rest of the target is drawn from the employed); `independent`
// draws every agent's transition on its own from the chain, as MMV's SHOCKS.m does, so the
// cross-section's unemployment rate only meets the target on average.
enum class EmploymentDraw { exact, independent };
// Where each outer iteration's panel simulation starts: `carry` from the previous simulation's
// final cross-section while the coefficients still move more than 100 x tol, then from that one
// held fixed (MMV's MAIN.m); `fixed` always from the first start (every agent at
// initial_capital, or a restart's cross-section).
enum class PanelStart { carry, fixed };
// What the outer loop's tolerance bounds: `regression`, the distance of the regression estimate
// from the perceived law, max |b_ols - b| (MMV); `damped`, the step actually taken,
// max |b_{j+1} - b_j| = damping x max |b_ols - b| (Hatcher & Scheffel's ||B_{j+1} - B_j||, the
// norm read as the max norm).
enum class CoefficientChange { regression, damped };

// Where a solve starts, when not from the defaults (a restart from a previous run's --output
// folder, read and checked by the command). Host data; empty vectors mean the default start.
struct Start {
  // Initial guess of the Euler iteration in policy.npy's layout: g[((i * nK + j) * 2 + z) * 2 + e]
  // on this run's grid. Empty: save 90% of k.
  std::vector<double> policy;
  // Initial cross-section of the panel: every agent's capital (k_final.npy: k_T of the previous
  // run), its employment in the period before (employed_final.npy, 1 = employed) and that
  // period's aggregate state (z_path.npy's last value, 0 good). Empty: all at initial_capital.
  std::vector<double> capital;
  std::vector<std::int32_t> employed;
  int z_prev = 0;
  // What the run starts from, for the report.
  std::string coeffs_from = "default", policy_from = "initial guess k' = 0.9 k",
              panel_from = "every agent at initial_capital";
};

// Checkpoints of the outer loop (see detail/checkpoint.hpp). Not part of the model: they change
// where a solve starts and what it leaves on disk, never its result.
struct Checkpointing {
  std::string path;  // written after outer iterations ("": none)
  double every_seconds = 60;  // at most this long between two writes (0: after every outer iteration)
  std::string resume;  // a checkpoint to continue from ("": a fresh solve)
  double time_limit = 0;  // seconds of solve time after which it stops at the end of an outer iteration (0: none)
};

struct Params {
  // Preferences and technology (Den Haan, Judd & Juillard 2010).
  double beta = 0.99;
  double gamma = 1.0;  // CRRA coefficient; 1 = log utility (the suite's choice)
  double alpha = 0.36;
  double delta = 0.025;
  double l_bar = 1.0 / 0.9;  // time endowment
  double mu = 0.15;  // unemployment benefit as a share of the wage
  double z_good = 1.01, z_bad = 0.99;
  double u_good = 0.04, u_bad = 0.10;
  // Markov chain targets.
  double duration_z = 8.0;  // mean duration of each aggregate state (quarters)
  double duration_u_good = 1.5;  // mean unemployment spell in good times
  double duration_u_bad = 2.5;  // ... in bad times
  double ratio_gb = 1.25;  // pi_{gb00}/pi_{gb} = ratio_gb * pi_{bb00}/pi_{bb}
  double ratio_bg = 0.75;  // pi_{bg00}/pi_{bg} = ratio_bg * pi_{gg00}/pi_{gg}

  // Individual policy grid: k' = g(k, K, z, eps).
  int nk = 100;
  int nK = 4;
  double k_min = 0.0;  // borrowing limit
  double k_max = 1000.0;
  double k_power = 7.0;  // k nodes k_min + (k_max - k_min) s^power, dense near the constraint
  double K_min = 30.0, K_max = 50.0;
  double policy_tol = 1e-9;  // sup-norm change of the policy between Euler iterations
  int policy_max_iter = 20000;
  PolicyMethod policy_method = PolicyMethod::endogenous_grid;
  double policy_damping = 0.7;  // time iteration: weight of the Euler-equation update (MMV: 0.7)

  // Panel simulation.
  long agents = 10000;
  int periods = 1100;
  int discard = 100;
  double initial_capital = 40.0;  // every agent's capital in period 0
  std::uint64_t seed = 20100101;
  Interp interp = Interp::catmull_rom;
  PanelLaunch panel_launch = PanelLaunch::graph;
  PanelLocate panel_locate = PanelLocate::automatic;
  int panel_teams = 0;  // scratch: teams per panel step (0: automatic)
  EmploymentDraw employment_draw = EmploymentDraw::exact;
  PanelStart panel_start = PanelStart::carry;
  long burn_in = 10000;  // carry: periods simulated in all before the start may be held fixed

  // Aggregate law of motion ln K' = b0(z) + b1(z) ln K: {b0_good, b1_good, b0_bad, b1_bad}.
  std::array<double, 4> init_coeffs = {0.0, 1.0, 0.0, 1.0};
  double damping = 0.3;  // weight of the regression estimate in the update
  double tol = 1e-6;  // stop when the coefficient change (below) is under tol
  CoefficientChange coefficient_change = CoefficientChange::regression;
  int max_iter = 300;

  Start start;  // restart data (default: none)
  Checkpointing checkpoint;
};

inline std::string to_string(Interp m) { return m == Interp::catmull_rom ? "catmull-rom" : "bilinear"; }
inline std::string to_string(PanelLaunch m) { return m == PanelLaunch::graph ? "graph" : "kernels"; }
inline std::string to_string(PolicyMethod m) {
  return m == PolicyMethod::endogenous_grid ? "endogenous-grid" : "time-iteration";
}
inline std::string to_string(PanelStart m) { return m == PanelStart::carry ? "carry" : "fixed"; }
inline std::string to_string(CoefficientChange m) {
  return m == CoefficientChange::regression ? "regression" : "damped";
}
inline std::string to_string(EmploymentDraw m) { return m == EmploymentDraw::exact ? "exact" : "independent"; }
inline std::string to_string(PanelLocate m) {
  return m == PanelLocate::power     ? "power"
         : m == PanelLocate::bucket  ? "bucket"
         : m == PanelLocate::scratch ? "scratch"
                                     : "auto";
}

// validate() names each parameter through a ParameterName: by default the field of Params (`delta`,
// `l_bar`; `K_min,K_max` for the aggregate grid); the command passes the option that sets it.
using parity::field_name;
using parity::ParameterName;

// A number as messages show it: the shortest of %.15g .. %.17g that reads back as v (0.99, not
// 0.98999999999999999).
inline std::string number_text(double v) {
  char buf[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

inline void validate(Params const& p, ParameterName name = field_name) {
  auto finite = [](double x) { return std::isfinite(x); };
  auto n = [&](char const* field) { return name(field); };
  auto t = [](double v) { return number_text(v); };
  auto i = [](long v) { return std::to_string(v); };
  require(finite(p.beta) && p.beta > 0 && p.beta < 1, n("beta") + " must lie in (0, 1), got " + t(p.beta));
  require(finite(p.gamma) && p.gamma > 0 && p.gamma <= 20, n("gamma") + " must lie in (0, 20], got " + t(p.gamma));
  require(finite(p.alpha) && p.alpha > 0 && p.alpha < 1, n("alpha") + " must lie in (0, 1), got " + t(p.alpha));
  require(finite(p.delta) && p.delta >= 0 && p.delta <= 1, n("delta") + " must lie in [0, 1], got " + t(p.delta));
  require(finite(p.l_bar) && p.l_bar > 0, n("l_bar") + " must be positive, got " + t(p.l_bar));
  require(finite(p.mu) && p.mu >= 0 && p.mu < 1, n("mu") + " must lie in [0, 1), got " + t(p.mu));
  require(finite(p.z_good) && p.z_good > 0, n("z_good") + " must be positive, got " + t(p.z_good));
  require(finite(p.z_bad) && p.z_bad > 0, n("z_bad") + " must be positive, got " + t(p.z_bad));
  require(p.z_good > p.z_bad, n("z_good") + " must exceed " + n("z_bad") +
                                  " (the good aggregate state is the more productive one), got " + t(p.z_good) +
                                  " and " + t(p.z_bad));
  require(finite(p.u_good) && p.u_good > 0 && p.u_good < 1, n("u_good") + " must lie in (0, 1), got " + t(p.u_good));
  require(finite(p.u_bad) && p.u_bad > 0 && p.u_bad < 1, n("u_bad") + " must lie in (0, 1), got " + t(p.u_bad));
  require(finite(p.duration_z) && p.duration_z > 1, n("duration_z") + " must exceed 1 period, got " + t(p.duration_z));
  require(finite(p.duration_u_good) && p.duration_u_good >= 1,
          n("duration_u_good") + " must be >= 1 period, got " + t(p.duration_u_good));
  require(finite(p.duration_u_bad) && p.duration_u_bad >= 1,
          n("duration_u_bad") + " must be >= 1 period, got " + t(p.duration_u_bad));
  require(finite(p.ratio_gb) && p.ratio_gb > 0, n("ratio_gb") + " must be positive, got " + t(p.ratio_gb));
  require(finite(p.ratio_bg) && p.ratio_bg > 0, n("ratio_bg") + " must be positive, got " + t(p.ratio_bg));
  require(p.nk >= 4 && p.nk <= 100000, n("nk") + " must lie in [4, 100000], got " + i(p.nk));
  require(p.nK >= 2 && p.nK <= 10000, n("nK") + " must lie in [2, 10000], got " + i(p.nK));
  require(finite(p.k_min) && p.k_min == 0.0,
          n("k_min") + " must be 0: the borrowing limit of this model is k >= 0, got " + t(p.k_min));
  require(finite(p.k_max) && p.k_max > p.k_min + 1,
          n("k_max") + " must exceed the borrowing limit by more than 1, got " + t(p.k_max));
  require(finite(p.k_power) && p.k_power >= 1 && p.k_power <= 10,
          n("k_power") + " must lie in [1, 10], got " + t(p.k_power));
  require(p.panel_teams >= 0, n("panel_teams") + " must be >= 0 (0: automatic), got " + i(p.panel_teams));
  std::string const K_range = t(p.K_min) + "," + t(p.K_max);
  require(finite(p.K_min) && finite(p.K_max) && p.K_min > 0 && p.K_max > p.K_min,
          n("K_min,K_max") + " needs 0 < lower < upper, got " + K_range);
  require(p.K_max <= p.k_max,
          n("K_min,K_max") + ": the upper end must not exceed " + n("k_max") + " " + t(p.k_max) + ", got " + K_range);
  require(finite(p.policy_tol) && p.policy_tol > 0, n("policy_tol") + " must be positive, got " + t(p.policy_tol));
  require(p.policy_max_iter >= 1, n("policy_max_iter") + " must be >= 1, got " + i(p.policy_max_iter));
  require(finite(p.policy_damping) && p.policy_damping > 0 && p.policy_damping <= 1,
          n("policy_damping") + " must lie in (0, 1], got " + t(p.policy_damping));
  require(p.agents >= 32 && p.agents <= (1L << 36), n("agents") + " must lie in [32, 2^36], got " + i(p.agents));
  require(p.periods >= 10, n("periods") + " must be >= 10, got " + i(p.periods));
  require(p.burn_in >= 0, n("burn_in") + " must be >= 0, got " + i(p.burn_in));
  require(p.discard >= 0 && p.discard + 8 <= p.periods, n("discard") + " must be >= 0 and leave at least 8 of the " +
                                                            i(p.periods) + " periods (" + n("periods") + "), got " +
                                                            i(p.discard));
  require(finite(p.initial_capital) && p.initial_capital > p.k_min && p.initial_capital < p.k_max,
          n("initial_capital") + " must lie inside the k grid (" + t(p.k_min) + ", " + t(p.k_max) + "), got " +
              t(p.initial_capital));
  for (double b : p.init_coeffs) require(finite(b), n("init_coeffs") + " must be finite numbers");
  require(finite(p.damping) && p.damping > 0 && p.damping <= 1,
          n("damping") + " must lie in (0, 1], got " + t(p.damping));
  require(finite(p.tol) && p.tol > 0, n("tol") + " must be positive, got " + t(p.tol));
  require(p.max_iter >= 1, n("max_iter") + " must be >= 1, got " + i(p.max_iter));
  require(finite(p.checkpoint.every_seconds) && p.checkpoint.every_seconds >= 0,
          n("checkpoint_every") + " must be a number of seconds >= 0, got " + t(p.checkpoint.every_seconds));
  require(finite(p.checkpoint.time_limit) && p.checkpoint.time_limit >= 0,
          n("time_limit") + " must be a number of seconds >= 0 (0: none), got " + t(p.checkpoint.time_limit));
  Start const& st = p.start;
  if (!st.policy.empty()) {
    require(
        st.policy.size() == std::size_t(p.nk) * std::size_t(p.nK) * 4,
        "restart: the initial policy has " + std::to_string(st.policy.size()) +
            " values, the grid needs nk x nK x 2 x 2 = " + std::to_string(std::size_t(p.nk) * std::size_t(p.nK) * 4));
    for (double g : st.policy)
      require(
          finite(g) && g >= p.k_min,
          "restart: the initial policy holds a value that is not finite or below the borrowing limit " + n("k_min"));
  }
  if (!st.capital.empty() || !st.employed.empty()) {
    require(long(st.capital.size()) == p.agents && long(st.employed.size()) == p.agents,
            "restart: the initial cross-section has " + std::to_string(st.capital.size()) + " agents, " + n("agents") +
                " is " + std::to_string(p.agents));
    for (double k : st.capital)
      require(finite(k) && k >= p.k_min,
              "restart: the initial cross-section holds a capital that is not finite or below the borrowing limit " +
                  n("k_min"));
    for (auto e : st.employed) require(e == 0 || e == 1, "restart: the initial employment must be 0 or 1");
    require(st.z_prev == 0 || st.z_prev == 1, "restart: the previous aggregate state must be 0 (good) or 1 (bad)");
  }
  // The Markov chain must exist for these targets (probabilities in [0, 1]).
  std::string const chain = n("u_good") + ", " + n("u_bad") + ", " + n("duration_u_good") + ", " + n("duration_u_bad") +
                            ", " + n("ratio_gb") + " and " + n("ratio_bg");
  double const p00_gg = 1 - 1 / p.duration_u_good, p00_bb = 1 - 1 / p.duration_u_bad;
  require(p.ratio_gb * p00_bb <= 1 && p.ratio_bg * p00_gg <= 1,
          n("ratio_gb") + " or " + n("ratio_bg") + " gives a probability of staying unemployed above 1 (with " +
              n("duration_u_good") + " and " + n("duration_u_bad") + ")");
  double const p10_gb = (p.u_bad - p.u_good * p.ratio_gb * p00_bb) / (1 - p.u_good);
  double const p10_bg = (p.u_good - p.u_bad * p.ratio_bg * p00_gg) / (1 - p.u_bad);
  require(p10_gb >= 0 && p10_gb <= 1 && p10_bg >= 0 && p10_bg <= 1,
          "the unemployment targets and durations (" + chain + ") imply a job-loss probability outside [0, 1]");
}

}  // namespace parity::krusell_smith
