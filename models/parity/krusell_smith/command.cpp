// `krusell-smith`: options, run report, result arrays and the one-line summary.
#include "parity/krusell_smith/command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "parity/cli/numbers.hpp"
#include "parity/cli/option_names.hpp"
#include "parity/grid/spacing.hpp"
#include "parity/krusell_smith/chain.hpp"
#include "parity/krusell_smith/entry.hpp"
#include "parity/krusell_smith/params.hpp"
#include "parity/report/npy.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/ranks.hpp"

namespace parity::krusell_smith {
namespace {

// The option that sets a field of Params, for validate()'s messages: "--" and the field with
// dashes (l_bar: --l-bar), but for the grid's fields.
cli::OptionNames const option_names = {{"nk", "--grid NK"}, {"nK", "--grid NKbar"}, {"K_min,K_max", "--Kbar-range"}};

// Fewer capital nodes cannot resolve the policy's kink at the borrowing limit: the regression then
// "converges" to a law of motion that explains little (R^2 near 0). The library allows 4.
constexpr int min_capital_nodes = 20, max_capital_nodes = 100000, max_aggregate_nodes = 10000;

struct Options {
  Params p;
  std::string grid = "100,4";
  std::string K_range = "30,50";
  std::string init_coeffs;  // "b0g,b1g,b0b,b1b" or a file holding that line (coeffs.txt)
  std::string restart;  // a previous run's --output folder
  bool restart_panel = false;
  std::string interp = "catmull-rom";
  std::string panel_launch = "graph";
  std::string panel_locate = "auto";
  std::string policy_method = "endogenous-grid";
  std::string employment_draw = "exact";
  std::string panel_start = "carry";
  std::string coefficient_change = "regression";
  std::string preset = "none";
  CLI::App* sub = nullptr;
  bool given(char const* option) const { return sub && sub->count(option) > 0; }
};

// The law of motion in a coeffs.txt written by --output: a text file whose first line is
// b0g,b1g,b0b,b1b. Messages say which item is wrong, never what the file holds (it may be binary).
std::array<double, 4> read_coeffs_file(std::string const& path, std::string const& option) {
  std::string const expected =
      "expects a text file whose first line is 4 comma-separated numbers b0_good,b1_good,b0_bad,b1_bad (the "
      "coeffs.txt that --output writes)";
  require(!std::filesystem::is_directory(path), option + ": '" + path + "' is a folder; " + expected);
  std::ifstream in(path);
  require(bool(in), option + ": cannot read '" + path + "' (give b0g,b1g,b0b,b1b or a coeffs.txt file)");
  std::string text;
  std::getline(in, text);
  if (!text.empty() && text.back() == '\r') text.pop_back();
  std::vector<double> b;
  std::string const err = cli::number_list_error(text, 4, b);
  require(err.empty(),
          option + ": '" + path + "' is not a coefficient file (" + err + " on its first line); " + expected);
  return {b[0], b[1], b[2], b[3]};
}

std::string shape_text(std::vector<std::size_t> const& shape) {
  std::string t = "(";
  for (std::size_t i = 0; i < shape.size(); ++i)
    t += fmt::format("{}{}", shape[i], shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  return t + ")";
}

// A restart file read as bad input: a missing or malformed file is the user's, named in the error.
report::NpyArray read_restart_npy(std::string const& path) {
  try {
    return report::read_npy(path);
  } catch (report::NpyReadError const& e) {
    throw InvalidInput(std::string("--restart: ") + e.what());
  }
}

// DIR/name of a restart folder: present, readable, of the expected shape, a floating-point (or,
// with integer = true, an int32) array of finite values. Any failure is bad input that names the
// file; `why` says what the expected shape is.
std::vector<double> restart_array(std::string const& dir, std::string const& name,
                                  std::vector<std::size_t> const& shape, std::string const& why, bool integer = false) {
  std::string const path = dir + "/" + name;
  report::NpyArray a = read_restart_npy(path);
  bool const floating = a.dtype == "<f8" || a.dtype == "<f4";
  require(integer ? a.dtype == "<i4" : floating,
          fmt::format("--restart: '{}' has dtype {}, expected {}", path, a.dtype,
                      integer ? "int32 (<i4)" : "float64 (<f8) or float32 (<f4)"));
  require(a.shape == shape, fmt::format("--restart: '{}' has shape {}, this run needs {} ({})", path,
                                        shape_text(a.shape), shape_text(shape), why));
  for (std::size_t i = 0; i < a.values.size(); ++i)
    require(
        std::isfinite(a.values[i]),
        fmt::format("--restart: '{}' holds a value that is not finite ({} at flat index {})", path, a.values[i], i));
  return std::move(a.values);
}

// The grid axis a restart folder was solved on must be this run's, node by node.
void require_same_axis(std::string const& dir, std::string const& name, std::vector<double> const& mine,
                       std::string const& options) {
  auto const saved = restart_array(dir, name, {mine.size()}, "the number of nodes set by --grid");
  for (std::size_t i = 0; i < mine.size(); ++i)
    require(std::abs(saved[i] - mine[i]) <= 1e-12 * std::max(1.0, std::abs(mine[i])),
            fmt::format("--restart: '{}/{}' is another grid: node {} is {:.17g}, this run's is {:.17g} (the run that "
                        "wrote it had other {})",
                        dir, name, i, saved[i], mine[i], options));
}

// Reads a previous run's --output folder into p: the law of motion (coeffs.txt), the policy as
// the initial guess (policy.npy, on the same grid: k_grid.npy and K_grid.npy are compared with
// this run's) and, with `panel`, the final cross-section (k_final.npy, employed_final.npy and
// z_path.npy's last state) as every simulation's initial distribution. Everything is checked
// here, before the run writes anything.
void load_restart(Params& p, std::string const& dir, bool panel, Precision precision) {
  require(std::filesystem::is_directory(dir),
          "--restart: '" + dir + "' is not a folder (give a previous run's --output)");
  Start& st = p.start;
  p.init_coeffs = read_coeffs_file(dir + "/coeffs.txt", "--restart");
  st.coeffs_from = dir + "/coeffs.txt";
  require_same_axis(dir, "k_grid.npy", grid::power_nodes(p.k_min, p.k_max, p.nk, p.k_power),
                    "--grid, --k-min, --k-max or --k-power");
  require_same_axis(dir, "K_grid.npy", grid::uniform_nodes(p.K_min, p.K_max, p.nK), "--grid or --Kbar-range");
  std::vector<std::size_t> const policy_shape = {std::size_t(p.nk), std::size_t(p.nK), 2, 2};
  st.policy = restart_array(dir, "policy.npy", policy_shape, "nk x nK x z x eps of --grid");
  for (std::size_t i = 0; i < st.policy.size(); ++i)
    require(st.policy[i] >= p.k_min,
            fmt::format("--restart: '{}/policy.npy' saves {} (below the borrowing limit) at flat index {}", dir,
                        st.policy[i], i));
  // policy.npy is written in double from either precision; a float run rounds it to float.
  st.policy_from = dir + "/policy.npy" + (precision == Precision::f32 ? " (float64 file, rounded to float)" : "");
  if (!panel) return;
  std::string const agents_why = fmt::format(
      "--restart-panel needs the whole cross-section: --agents {}; runs with "
      "more than 100000 agents save only a sample",
      p.agents);
  st.capital = restart_array(dir, "k_final.npy", {std::size_t(p.agents)}, agents_why);
  for (std::size_t i = 0; i < st.capital.size(); ++i)
    require(st.capital[i] >= p.k_min,
            fmt::format("--restart: '{}/k_final.npy' holds capital {} below the borrowing limit (agent {})", dir,
                        st.capital[i], i));
  auto const employed = restart_array(dir, "employed_final.npy", {std::size_t(p.agents)}, agents_why, true);
  st.employed.assign(employed.size(), 0);
  for (std::size_t i = 0; i < employed.size(); ++i) {
    require(
        employed[i] == 0 || employed[i] == 1,
        fmt::format("--restart: '{}/employed_final.npy' holds {} (agent {}); expected 0 or 1", dir, employed[i], i));
    st.employed[i] = std::int32_t(employed[i]);
  }
  auto const z = read_restart_npy(dir + "/z_path.npy");
  require(
      z.dtype == "<i4" && z.shape.size() == 1 && !z.values.empty() && (z.values.back() == 0 || z.values.back() == 1),
      "--restart: '" + dir + "/z_path.npy' must be a non-empty int32 path of 0 (good) and 1 (bad) states");
  st.z_prev = int(z.values.back());
  st.panel_from = fmt::format("{}/k_final.npy and employed_final.npy ({} agents, previous state {})", dir, p.agents,
                              st.z_prev == 0 ? "good" : "bad");
}

// Hatcher & Scheffel (2014), appendix A.1 and section 4: Euler-equation iteration for the
// policy (after Maliar et al. 2010), T = 1000 periods, stop when ||B_{j+1} - B_j|| < 1e-7 on the
// damped update, and at most 50 outer iterations (past them the paper relaxed the tolerance to
// 1e-6 and restarted; Parity reports not_converged instead). Options given explicitly win.
// What the paper leaves open stays Parity's: the damping lambda (0.3), the norm (max), the
// discarded periods (100). The paper's start, Den Haan's 10,000-agent distribution (moments
// matched for larger panels), is not public data here: the carried cross-section (panel_start
// carry) stands in for it, a draw from the model's own stationary distribution.
void apply_paper_preset(Params& p, Options const& o) {
  if (!o.given("--policy-method")) p.policy_method = PolicyMethod::time_iteration;
  if (!o.given("--coefficient-change")) p.coefficient_change = CoefficientChange::damped;
  if (!o.given("--tol")) p.tol = 1e-7;
  if (!o.given("--periods")) p.periods = 1000;
  if (!o.given("--max-iter")) p.max_iter = 50;
}

// Fills the parameter struct from the option strings; throws InvalidInput on bad text.
Params resolve(Options const& o, Precision precision) {
  Params p = o.p;
  auto const g = cli::parse_counts(o.grid, "--grid",
                                   {{"NK", min_capital_nodes, max_capital_nodes}, {"NKbar", 2, max_aggregate_nodes}});
  p.nk = int(g[0]), p.nK = int(g[1]);
  auto const K = cli::parse_numbers(o.K_range, "--Kbar-range", 2, "MIN,MAX");
  p.K_min = K[0], p.K_max = K[1];
  if (!o.init_coeffs.empty()) {
    if (o.init_coeffs.find(',') == std::string::npos) {  // a file written by a previous run
      p.init_coeffs = read_coeffs_file(o.init_coeffs, "--init-coeffs");
      p.start.coeffs_from = o.init_coeffs;
    } else {
      auto const b = cli::parse_numbers(o.init_coeffs, "--init-coeffs", 4, "b0_good,b1_good,b0_bad,b1_bad");
      for (int q = 0; q < 4; ++q) p.init_coeffs[q] = b[q];
      p.start.coeffs_from = "--init-coeffs";
    }
  }
  p.interp = o.interp == "bilinear" ? Interp::bilinear : Interp::catmull_rom;
  p.panel_launch = o.panel_launch == "kernels" ? PanelLaunch::kernels : PanelLaunch::graph;
  p.panel_locate = o.panel_locate == "bucket"    ? PanelLocate::bucket
                   : o.panel_locate == "scratch" ? PanelLocate::scratch
                   : o.panel_locate == "power"   ? PanelLocate::power
                                                 : PanelLocate::automatic;
  p.panel_start = o.panel_start == "fixed" ? PanelStart::fixed : PanelStart::carry;
  p.employment_draw = o.employment_draw == "independent" ? EmploymentDraw::independent : EmploymentDraw::exact;
  p.policy_method = o.policy_method == "time-iteration" ? PolicyMethod::time_iteration : PolicyMethod::endogenous_grid;
  p.coefficient_change = o.coefficient_change == "damped" ? CoefficientChange::damped : CoefficientChange::regression;
  if (o.preset == "paper") apply_paper_preset(p, o);
  // An option given that this run would not use is refused rather than ignored, with when it applies.
  require(!o.given("--policy-damping") || p.policy_method == PolicyMethod::time_iteration,
          "--policy-damping applies to --policy-method time-iteration only (the endogenous grid needs no damping)");
  require(
      !o.given("--panel-teams") || p.panel_locate == PanelLocate::scratch || p.panel_locate == PanelLocate::automatic,
      "--panel-teams applies to --panel-locate scratch only (power and bucket launch no teams)");
  require(!o.given("--burn-in") || p.panel_start == PanelStart::carry,
          "--burn-in applies to --panel-start carry only (fixed starts every simulation from the same "
          "cross-section)");
  require(!o.given("--checkpoint-every") || !p.checkpoint.path.empty(),
          "--checkpoint-every applies with --checkpoint FILE only");
  require(!o.given("--initial-capital") || !o.restart_panel,
          "--initial-capital does not apply with --restart-panel (every simulation starts from the saved "
          "cross-section)");
  require(!o.given("--panel-launch") || p.panel_launch == PanelLaunch::kernels || run::ranks::size() == 1,
          "--panel-launch graph applies on one rank only (across ranks the panel's sums are exchanged between its "
          "kernels, which are launched one by one)");
  validate(p, option_names);  // the grid first: a restart is compared with it
  require(o.restart.empty() || o.init_coeffs.empty(), "--restart reads the coefficients: leave out --init-coeffs");
  require(!o.restart_panel || !o.restart.empty(), "--restart-panel needs --restart DIR");
  if (!o.restart.empty()) {
    load_restart(p, o.restart, o.restart_panel, precision);
    validate(p, option_names);
  }
  return p;
}

nlohmann::json parameters_json(Params const& p) {
  return {{"beta", p.beta},
          {"gamma", p.gamma},
          {"alpha", p.alpha},
          {"delta", p.delta},
          {"l_bar", p.l_bar},
          {"mu", p.mu},
          {"z_good", p.z_good},
          {"z_bad", p.z_bad},
          {"u_good", p.u_good},
          {"u_bad", p.u_bad},
          {"duration_z", p.duration_z},
          {"duration_u_good", p.duration_u_good},
          {"duration_u_bad", p.duration_u_bad},
          {"ratio_gb", p.ratio_gb},
          {"ratio_bg", p.ratio_bg},
          {"nk", p.nk},
          {"nK", p.nK},
          {"k_min", p.k_min},
          {"k_max", p.k_max},
          {"k_power", p.k_power},
          {"K_min", p.K_min},
          {"K_max", p.K_max},
          {"policy_tol", p.policy_tol},
          {"policy_max_iter", p.policy_max_iter},
          {"policy_method", to_string(p.policy_method)},
          // What the run does not use is null.
          {"policy_damping",
           p.policy_method == PolicyMethod::time_iteration ? nlohmann::json(p.policy_damping) : nlohmann::json()},
          {"agents", p.agents},
          {"periods", p.periods},
          {"discard", p.discard},
          {"initial_capital", p.start.capital.empty() ? nlohmann::json(p.initial_capital) : nlohmann::json()},
          {"seed", p.seed},
          {"interp", to_string(p.interp)},
          {"panel_launch", to_string(p.panel_launch)},
          {"panel_locate", to_string(p.panel_locate)},
          {"panel_teams", p.panel_teams},
          {"employment_draw", to_string(p.employment_draw)},
          {"panel_start", to_string(p.panel_start)},
          {"coefficient_change", to_string(p.coefficient_change)},
          {"burn_in", p.panel_start == PanelStart::carry ? nlohmann::json(p.burn_in) : nlohmann::json()},
          {"init_coeffs", p.init_coeffs},
          {"damping", p.damping},
          {"tol", p.tol},
          {"max_iter", p.max_iter},
          {"start",
           {{"coefficients", p.start.coeffs_from}, {"policy", p.start.policy_from}, {"panel", p.start.panel_from}}},
          {"employment_shocks", p.employment_draw == EmploymentDraw::exact
                                    ? "bit-packed, exact unemployment each period (radix-selected Philox keys)"
                                    : "bit-packed, each agent's transition drawn on its own (Philox), unemployment on "
                                      "target on average"}};
}

void write_arrays(report::OutputFolder& out, Params const& p, Result const& r) {
  out.npy("policy", r.policy, {std::size_t(p.nk), std::size_t(p.nK), std::size_t(2), std::size_t(2)});
  out.npy("k_grid", r.k_grid, {r.k_grid.size()});
  out.npy("K_grid", r.K_grid, {r.K_grid.size()});
  out.npy("K_path", r.K_path, {r.K_path.size()});
  out.npy("K_alm", r.K_alm, {r.K_alm.size()});
  out.npy("z_path", r.z_path, {r.z_path.size()});
  out.npy("k_final", r.k_final, {r.k_final.size()});
  out.npy("employed_final", r.employed_final, {r.employed_final.size()});
  std::vector<double> history;
  for (auto const& b : r.coeff_history) history.insert(history.end(), b.begin(), b.end());
  out.npy("coeff_history", history, {r.coeff_history.size(), std::size_t(4)});
  out.npy("transition", std::vector<double>(r.transition.begin(), r.transition.end()),
          {std::size_t(4), std::size_t(4)});
  out.text("coeffs.txt",
           fmt::format("{:.17g},{:.17g},{:.17g},{:.17g}\n", r.coeffs[0], r.coeffs[1], r.coeffs[2], r.coeffs[3]));
}

report::RunReport make_report(Params const& p, Result const& r, run::PhaseTimes const& phases, Precision precision) {
  report::RunReport rep;
  rep.model = "krusell-smith";
  rep.precision = precision;
  rep.parameters = parameters_json(p);
  rep.phases = phases;
  rep.timing_note =
      "each phase: wall time between two fences of the execution space; policy, panel and regression summed "
      "over the outer iterations; shocks once; accuracy = Euler errors, Den Haan test and output copies";
  rep.iterations = r.iterations;
  rep.status =
      r.time_limited ? cli::status::time_limit : (r.converged ? cli::status::converged : cli::status::not_converged);
  {
    bool finite = std::isfinite(r.r_squared[0]) && std::isfinite(r.r_squared[1]);
    for (double b : r.coeffs) finite = finite && std::isfinite(b);
    for (double k : r.K_path) finite = finite && std::isfinite(k);
    if (!finite) rep.status = cli::status::non_finite;
  }
  // A policy solve stopped by --policy-max-iter is not the policy of that law of motion: the last
  // one makes the whole result unconverged; an early one is worth a warning.
  bool const last_capped = r.policy_iterations_last >= p.policy_max_iter;
  bool const first_capped = r.policy_iterations_first >= p.policy_max_iter;
  if (last_capped && rep.status == cli::status::converged) rep.status = cli::status::not_converged;
  if (first_capped && !last_capped)
    cli::warn(
        fmt::format("krusell-smith: the first Euler-equation solve stopped at --policy-max-iter {} before "
                    "meeting --policy-tol; later ones converged",
                    p.policy_max_iter));
  int const T = p.periods;
  std::vector<double> Kt(r.K_path.begin() + p.discard, r.K_path.end());
  double const mean = std::accumulate(Kt.begin(), Kt.end(), 0.0) / double(Kt.size());
  double var = 0;
  for (double k : Kt) var += (k - mean) * (k - mean);
  double const sd = std::sqrt(var / double(Kt.size()));
  double const panel_s = phases.seconds(phase_panel);
  double const agent_periods = double(p.agents) * double(T) * double(r.iterations);
  double const real_bytes = precision == Precision::f32 ? 4.0 : 8.0;
  // Per agent-period the panel kernel reads and writes k and reads one employment bit.
  double const bytes = agent_periods * (2 * real_bytes + 1.0 / 8.0);
  Chain const chain = build_chain(p);
  rep.results = {
      {"coefficients",
       {{"good", {{"b0", r.coeffs[0]}, {"b1", r.coeffs[1]}}}, {"bad", {{"b0", r.coeffs[2]}, {"b1", r.coeffs[3]}}}}},
      {"r_squared", {{"good", r.r_squared[0]}, {"bad", r.r_squared[1]}}},
      {"regression_standard_error", {{"good", r.regression_se[0]}, {"bad", r.regression_se[1]}}},
      {"coefficient_change", r.coeff_change},
      {"converged", r.converged},
      {"stopped",
       r.converged ? nlohmann::json(nullptr) : nlohmann::json{{"stage", r.stop_stage}, {"reason", r.stop_reason}}},
      {"checkpoint",
       {{"file", p.checkpoint.path},
        {"written", r.checkpoints_written},
        {"resumed_from", p.checkpoint.resume},
        {"resumed_after_iteration", r.resumed_from_iteration}}},
      {"outer_iterations", r.iterations},
      {"panel_carries", r.panel_carries},
      {"panel_locate", r.panel_locate},
      {"policy_iterations_total", r.policy_iterations_total},
      {"policy_iterations_last", r.policy_iterations_last},
      {"policy_iterations_first", r.policy_iterations_first},
      {"policy_stopped_by_cap", {{"first", first_capped}, {"last", last_capped}}},
      {"den_haan_accuracy", {{"max_error_pct", r.den_haan_max_pct}, {"mean_error_pct", r.den_haan_mean_pct}}},
      {"euler_errors",
       {{"k_cap", r.euler_k_cap},
        {"on_grid", {{"max", r.euler_on_max}, {"mean", r.euler_on_mean}}},
        {"off_grid", {{"max", r.euler_off_max}, {"mean", r.euler_off_mean}}},
        {"definition", "|1 - c_euler/c|, unit free, at grid nodes / midpoints with k <= k_cap"}}},
      {"shocks",
       {{"unemployment_max_deviation_agents", r.unemployment_max_deviation},
        {"unemployment_rate_good", r.unemployment_rate_good},
        {"unemployment_rate_bad", r.unemployment_rate_bad},
        {"p00_empirical",
         {{"gg", r.p00_empirical[0]},
          {"gb", r.p00_empirical[1]},
          {"bg", r.p00_empirical[2]},
          {"bb", r.p00_empirical[3]}}},
        {"p00_target",
         {{"gg", chain.p00[0][0]}, {"gb", chain.p00[0][1]}, {"bg", chain.p00[1][0]}, {"bb", chain.p00[1][1]}}}}},
      {"K_mean", mean},
      {"K_std", sd},
      {"K_final_panel", r.K_path.back()},
      {"work", {{"bytes", bytes}, {"phase", phase_panel}}},  // for the comparison runner's roofline
      {"k_final_min", r.k_final_min},
      {"panel",
       {{"agent_periods", agent_periods},
        {"agent_periods_per_second", panel_s > 0 ? agent_periods / panel_s : 0.0},
        {"bytes_per_agent_period", 2 * real_bytes + 1.0 / 8.0},
        {"achieved_bandwidth_GBps", panel_s > 0 ? bytes / panel_s / 1e9 : 0.0}}},
      {"transition_matrix",
       {{r.transition[0], r.transition[1], r.transition[2], r.transition[3]},
        {r.transition[4], r.transition[5], r.transition[6], r.transition[7]},
        {r.transition[8], r.transition[9], r.transition[10], r.transition[11]},
        {r.transition[12], r.transition[13], r.transition[14], r.transition[15]}}},
      {"transition_state_order", "(z, eps): (good, unemployed), (good, employed), (bad, unemployed), (bad, employed)"}};
  return rep;
}

class Command final : public cli::Command {
 public:
  std::string name() const override { return "krusell-smith"; }
  std::string description() const override {
    return "Krusell-Smith (1998) economy of the JEDC suite (Den Haan, Judd & Juillard 2010): Euler-equation policy, "
           "bit-packed panel simulation and law-of-motion regression, all on the device";
  }

  void add_options(CLI::App& sub) override {
    o_.sub = &sub;
    Params& p = o_.p;
    sub.add_option("--agents", p.agents, "Agents in the panel simulation")->capture_default_str();
    sub.add_option("--periods", p.periods, "Periods simulated per outer iteration")->capture_default_str();
    sub.add_option("--discard", p.discard, "Initial periods left out of the regression and accuracy test")
        ->capture_default_str();
    sub.add_option("--grid", o_.grid,
                   fmt::format("Policy grid NK,NKbar: individual capital ({} to {}; fewer cannot resolve the kink at "
                               "the borrowing limit) x aggregate capital (2 to {}) nodes",
                               min_capital_nodes, max_capital_nodes, max_aggregate_nodes))
        ->capture_default_str();
    sub.add_option("--interp", o_.interp, "Interpolation of the policy: catmull-rom (bicubic) or bilinear")
        ->check(CLI::IsMember({"catmull-rom", "bilinear"}))
        ->capture_default_str();
    sub.add_option("--panel-launch", o_.panel_launch,
                   "Panel kernels per period recorded once as a Kokkos graph (one launch per simulation; one rank "
                   "only) or launched one by one; the results are identical")
        ->check(CLI::IsMember({"graph", "kernels"}))
        ->capture_default_str();
    sub.add_option("--panel-locate", o_.panel_locate,
                   "How the panel step finds an agent's k cell: power (closed-form inverse of the power grid, "
                   "one record per cell), bucket (bucket table and binary search, four coefficient reads; the same "
                   "results), scratch (power with the period's records copied into team scratch memory first: "
                   "shared-memory gathers on a GPU; per-team sums, so K differs in the last bits) or auto "
                   "(scratch in double on a GPU, where it is the fastest; power otherwise)")
        ->check(CLI::IsMember({"auto", "power", "bucket", "scratch"}))
        ->capture_default_str();
    sub.add_option("--panel-teams", p.panel_teams,
                   "With --panel-locate scratch: teams per panel step, each copying the records once "
                   "(0: automatic: on a GPU one full wave, as many teams as the device holds at once; on hosts "
                   "about one per thread)")
        ->capture_default_str();
    sub.add_option("--panel-start", o_.panel_start,
                   "carry: each panel simulation starts from the previous one's final cross-section until the "
                   "coefficients move less than 100 x --tol, then from that one fixed (MMV); fixed: every simulation "
                   "starts from --initial-capital (or --restart-panel's cross-section)")
        ->check(CLI::IsMember({"carry", "fixed"}))
        ->capture_default_str();
    sub.add_option("--burn-in", p.burn_in,
                   "With --panel-start carry: keep carrying until the panel has run at least this many periods "
                   "in all (the wealth distribution needs ~10^4 periods to forget a point-mass start)")
        ->capture_default_str();
    sub.add_option(
           "--employment-draw", o_.employment_draw,
           "exact: the unemployment rate meets its target every period (the suite's panel); independent: "
           "each agent's transition drawn on its own from the chain (MMV's SHOCKS.m), the target met on average")
        ->check(CLI::IsMember({"exact", "independent"}))
        ->capture_default_str();
    sub.add_option("--seed", p.seed, "Seed of the Philox streams (aggregate and employment shocks)")
        ->capture_default_str();
    sub.add_option("--init-coeffs", o_.init_coeffs,
                   "Initial law of motion b0_good,b1_good,b0_bad,b1_bad, or a coeffs.txt written by --output "
                   "(restart); default 0,1,0,1");
    sub.add_option("--restart", o_.restart,
                   "Restart from a previous run's --output folder: its law of motion (coeffs.txt) and policy "
                   "(policy.npy, as the first guess of the Euler iteration) on the same grid");
    sub.add_flag("--restart-panel", o_.restart_panel,
                 "With --restart: also start every panel simulation from the saved cross-section (k_final.npy, "
                 "employed_final.npy) instead of --initial-capital; needs the same --agents");
    sub.add_option("--checkpoint", p.checkpoint.path,
                   "Write the outer loop's state to this file (atomically) to continue it with --resume");
    sub.add_option("--checkpoint-every", p.checkpoint.every_seconds,
                   "With --checkpoint: seconds between two checkpoints (0: after every outer iteration; always after "
                   "the last)")
        ->capture_default_str();
    sub.add_option("--resume", p.checkpoint.resume,
                   "Continue the outer loop from a --checkpoint file written with the same parameters "
                   "(--max-iter may differ)");
    sub.add_option("--time-limit", p.checkpoint.time_limit,
                   "Seconds the solve may run (0: no limit): it stops after the outer iteration that passes them, "
                   "with status time_limit (exit 3), the report of where it stopped, and the checkpoint if "
                   "--checkpoint is given, for --resume")
        ->capture_default_str();
    sub.add_option("--damping", p.damping, "Weight of the regression estimate in the coefficient update")
        ->capture_default_str();
    sub.add_option("--tol", p.tol, "Stop when the coefficient change (--coefficient-change) is below this")
        ->capture_default_str();
    sub.add_option("--coefficient-change", o_.coefficient_change,
                   "What --tol bounds: regression, max |b_ols - b| (the regression's distance from the perceived "
                   "law), or damped, the step the update takes, --damping times that (Hatcher & Scheffel's "
                   "||B_{j+1} - B_j||)")
        ->check(CLI::IsMember({"regression", "damped"}))
        ->capture_default_str();
    sub.add_option("--preset", o_.preset,
                   "paper: Hatcher & Scheffel (2014)'s settings (time-iteration policy, 1000 periods, --tol 1e-7 "
                   "on the damped change, at most 50 outer iterations); options given explicitly win")
        ->check(CLI::IsMember({"none", "paper"}))
        ->capture_default_str();
    sub.add_option("--max-iter", p.max_iter, "Maximum outer (law-of-motion) iterations")->capture_default_str();
    sub.add_option("--policy-tol", p.policy_tol,
                   "Sup-norm tolerance of the Euler-equation iteration (changes within a node's rounding, a few ulps "
                   "of k + 4, do not count)")
        ->capture_default_str();
    sub.add_option("--policy-max-iter", p.policy_max_iter, "Maximum Euler-equation iterations per outer iteration")
        ->capture_default_str();
    sub.add_option("--policy-method", o_.policy_method,
                   "Euler-equation solver of the individual policy: endogenous-grid, or time-iteration (damped, "
                   "next period's policy interpolated at k', as Maliar, Maliar & Valli's INDIVIDUAL.m)")
        ->check(CLI::IsMember({"endogenous-grid", "time-iteration"}))
        ->capture_default_str();
    sub.add_option("--policy-damping", p.policy_damping,
                   "With --policy-method time-iteration: weight of the Euler-equation update in the policy update, "
                   "in (0, 1]")
        ->capture_default_str();
    sub.add_option("--initial-capital", p.initial_capital,
                   "Capital of every agent in period 0, inside the k grid (not with --restart-panel)")
        ->capture_default_str();
    sub.add_option("--k-min", p.k_min, "Borrowing limit (this model: 0)")->capture_default_str();
    sub.add_option("--k-max", p.k_max, "Upper end of the individual capital grid")->capture_default_str();
    sub.add_option("--k-power", p.k_power, "Grid power: k nodes k_max s^power, dense near the constraint")
        ->capture_default_str();
    sub.add_option("--Kbar-range", o_.K_range, "Aggregate capital grid MIN,MAX")->capture_default_str();
    sub.add_option("--beta", p.beta, "Discount factor")->capture_default_str();
    sub.add_option("--gamma", p.gamma, "Relative risk aversion (1: log utility)")->capture_default_str();
    sub.add_option("--alpha", p.alpha, "Capital share")->capture_default_str();
    sub.add_option("--delta", p.delta, "Depreciation rate")->capture_default_str();
    sub.add_option("--l-bar", p.l_bar, "Time endowment of the employed")->capture_default_str();
    sub.add_option("--mu", p.mu, "Unemployment benefit as a share of the wage")->capture_default_str();
    sub.add_option("--z-good", p.z_good, "Aggregate productivity in good times")->capture_default_str();
    sub.add_option("--z-bad", p.z_bad, "Aggregate productivity in bad times")->capture_default_str();
    sub.add_option("--u-good", p.u_good, "Unemployment rate in good times")->capture_default_str();
    sub.add_option("--u-bad", p.u_bad, "Unemployment rate in bad times")->capture_default_str();
    sub.add_option("--duration-z", p.duration_z, "Mean duration of each aggregate state (periods)")
        ->capture_default_str();
    sub.add_option("--duration-u-good", p.duration_u_good, "Mean unemployment spell in good times")
        ->capture_default_str();
    sub.add_option("--duration-u-bad", p.duration_u_bad, "Mean unemployment spell in bad times")->capture_default_str();
    sub.add_option("--ratio-gb", p.ratio_gb, "pi_gb00/pi_gb relative to pi_bb00/pi_bb")->capture_default_str();
    sub.add_option("--ratio-bg", p.ratio_bg, "pi_bg00/pi_bg relative to pi_gg00/pi_gg")->capture_default_str();
  }

  report::RunReport execute(cli::Context& context) override {
    Params const p = resolve(o_, context.precision);
    require(!o_.given("--panel-teams") || p.panel_locate != PanelLocate::automatic ||
                context.resources.device_memory_bytes > 0,
            "--panel-teams: on this host backend --panel-locate auto means power, which launches no teams; give "
            "--panel-locate scratch");
    auto r = run_params(context, p);
    r.parameters["preset"] = o_.preset;
    return r;
  }

  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    Params p;  // small: the Krusell-Smith 100 x 4 grid, 10,000 agents, 1,100 periods
    if (size == cli::Size::medium) {
      p.nk = 250, p.nK = 50, p.agents = 100000;
    } else if (size == cli::Size::large) {
      p.nk = 500, p.nK = 50, p.agents = 1000000;
    }
    validate(p);
    return run_params(context, p);
  }

  std::string summarize(report::RunReport const& r) const override {
    auto const& x = r.results;
    if (!x.contains("coefficients")) return "no results";
    auto const& c = x["coefficients"];
    return fmt::format("lnK'={:.5f}+{:.5f}lnK (good), {:.5f}+{:.5f}lnK (bad); R2 {:.6f}/{:.6f}; Den Haan max {:.3f}%",
                       c["good"]["b0"].get<double>(), c["good"]["b1"].get<double>(), c["bad"]["b0"].get<double>(),
                       c["bad"]["b1"].get<double>(), x["r_squared"]["good"].get<double>(),
                       x["r_squared"]["bad"].get<double>(), x["den_haan_accuracy"]["max_error_pct"].get<double>());
  }

  bool distributed() const override { return true; }  // agents split across ranks (solver.hpp)
  std::vector<std::string> file_options() const override { return {"--checkpoint"}; }
  std::vector<std::string> output_files() const override { return {"coeffs.txt"}; }

 private:
  report::RunReport run_params(cli::Context& context, Params const& p) {
    require_resources(context, p);
    run::PhaseTimes phases;
    Result const r = run(p, context.precision, context.progress, phases);
    if (context.output) write_arrays(*context.output, p, r);
    auto rep = make_report(p, r, phases, context.precision);
    if (rep.status == cli::status::non_finite)
      rep.results["non_finite"] = "the law of motion, its R^2 or the aggregate capital path is NaN or infinite";
    return rep;
  }

  // Refuses a panel that cannot fit: per agent of this rank its capital (two copies) and its
  // employment bits for every period (bit-packed shocks), on the device; the final cross-section (a
  // sample of at most 100000 agents is written) on the host.
  static void require_resources(cli::Context const& context, Params const& p) {
    double const real = context.precision == Precision::f32 ? 4 : 8;
    double const agents = std::ceil(double(p.agents) / run::ranks::size());
    double const grid = double(p.nk) * p.nK * 4 * 8 * 4;
    double const panel = agents * (2 * real + double(p.periods) / 8 + 4);
    double const device = panel + grid + double(p.periods) * 64;
    double const host = std::min(double(p.agents), 1e5) * 12 * 2 + grid + double(p.periods) * 64;
    // The message names what dominates: the panel (agents x periods) or the policy grid.
    std::string const what = grid > panel ? fmt::format("krusell-smith --grid {},{} (NK x NKbar = {:.3g} policy nodes)",
                                                        p.nk, p.nK, double(p.nk) * p.nK)
                                          : fmt::format("krusell-smith --agents {} --periods {}", p.agents, p.periods);
    cli::require_memory(context, device, host, what);
  }

  Options o_;
};

}  // namespace

std::unique_ptr<cli::Command> make_command() { return std::make_unique<Command>(); }

}  // namespace parity::krusell_smith
