// The dual-control command: options, the run report, .npy arrays, the one-line summary.
#include "parity/dual_control/command.hpp"
#include "parity/run/checkpoint.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "parity/cli/numbers.hpp"
#include "parity/cli/option_names.hpp"
#include "parity/dual_control/entry.hpp"
#include "parity/dual_control/params.hpp"
#include "parity/report/npy.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/ranks.hpp"

namespace parity::dual_control {
namespace {

// A solve estimated to take longer than this is warned about (unless --time-limit ends it sooner).
constexpr double long_run_seconds = 600;

State parse_state(std::string const& text, std::string const& option) {
  auto const v = cli::parse_numbers(text, option, 3, "X,MU,SIGMA");
  return {v[0], v[1], v[2]};
}

// The option that sets a field of Params, for validate()'s messages: "--" and the field with
// dashes (sigma_eps: --sigma-eps), but for the fields set together by one option.
cli::OptionNames const option_names = {{"nx,nmu,nsigma", "--grid"},
                                       {"x_lo,x_hi", "--x-range"},
                                       {"mu_lo,mu_hi", "--mu-range"},
                                       {"sigma_lo,sigma_hi", "--sigma-range"},
                                       {"reference_states", "--reference-state"}};

bool inside_grid(State const& s, Params const& p) {
  return s.x >= p.x_lo && s.x <= p.x_hi && s.mu >= p.mu_lo && s.mu <= p.mu_hi && s.Sigma >= p.sigma_lo &&
         s.Sigma <= p.sigma_hi;
}

nlohmann::json state_json(State const& s) { return {{"x", s.x}, {"mu", s.mu}, {"Sigma", s.Sigma}}; }

class Command final : public cli::Command {
 public:
  std::string name() const override { return "dual-control"; }
  std::string description() const override {
    return "Bayesian dual control with learning (Morozov & Mathur 2012; Beck & Wieland 2002): value iteration "
           "for the inert, cautionary myopic and optimal (experimenting) policies on an (x, mu, Sigma) grid. "
           "Defaults: alpha 0, gamma 0.8, delta 0.95, sigma_eps 1, xbar 0, ubar 0 (the fixed-parameter case of "
           "Beck & Wieland 2002 as we read it), omega 0.1 (our choice: keeps the myopic rule defined at "
           "Sigma = mu = 0). Arrays (--output): x, mu, Sigma, V, u [, V_myopic, u_myopic] as .npy, "
           "indexed [x, mu, Sigma]";
  }

  void add_options(CLI::App& sub) override {
    sub_ = &sub;
    sub.add_option("--policy", policy_, "inert (u = 0), myopic (cautionary, minimises the one-period loss) or optimal")
        ->check(CLI::IsMember({"inert", "myopic", "optimal"}))
        ->capture_default_str();
    sub.add_option("--alpha", p_.alpha, "Intercept alpha of x_t = alpha + beta u_t + gamma x_{t-1} + eps_t")
        ->capture_default_str();
    sub.add_option("--gamma", p_.gamma, "Persistence gamma (need delta gamma^2 < 1)")->capture_default_str();
    sub.add_option("--delta", p_.delta, "Discount factor delta in (0, 1)")->capture_default_str();
    sub.add_option("--omega", p_.omega, "Weight omega of the control in the loss")->capture_default_str();
    sub.add_option("--xbar", p_.xbar, "Target xbar of x")->capture_default_str();
    sub.add_option("--ubar", p_.ubar, "Target ubar of u")->capture_default_str();
    sub.add_option("--sigma-eps", p_.sigma_eps, "Standard deviation of the shock eps")->capture_default_str();
    sub.add_option("--grid", grid_, "Grid nodes NX,NMU,NSIGMA")->capture_default_str();
    sub.add_option("--x-range", x_range_, "Box of x: LO,HI (nodes clustered around xbar)")->capture_default_str();
    sub.add_option("--mu-range", mu_range_, "Box of the belief mean mu: LO,HI (nodes clustered around 0)")
        ->capture_default_str();
    sub.add_option("--sigma-range", sigma_range_, "Box of the belief variance Sigma: LO,HI (uniform nodes)")
        ->capture_default_str();
    sub.add_option("--x-concentration", p_.x_concentration, "Clustering of the x nodes around xbar, >= 0 (0: uniform)")
        ->capture_default_str();
    sub.add_option("--mu-concentration", p_.mu_concentration, "Clustering of the mu nodes around 0, >= 0 (0: uniform)")
        ->capture_default_str();
    sub.add_option("--quad-nodes", p_.quad_nodes, "Gauss-Hermite nodes for E V(S')")->capture_default_str();
    sub.add_option("--tol", tol_,
                   "Relative MacQueen-Porteus tolerance in (0, 1) (default 1e-6 inert/myopic, 1e-4 optimal)");
    sub.add_option("--tol-myopic", p_.tol_myopic,
                   "With --policy optimal: tolerance of the myopic solve that starts it (--policy myopic: --tol)")
        ->capture_default_str();
    sub.add_option("--max-iter", p_.max_iter, "Most iterations (then status not_converged, exit 3)")
        ->capture_default_str();
    sub.add_option("--algorithm", algorithm_,
                   "With --policy optimal: accelerated (modified policy iteration: " +
                       std::to_string(accelerated_evaluation_sweeps) +
                       " policy-evaluation sweeps after each Bellman sweep until the Bellman residual stalls near "
                       "the tolerance) or paper (plain value iteration, as Morozov & Mathur's Table 2). Same search "
                       "over u and the same stopping test on Bellman sweeps: both within the tolerance of the same "
                       "fixed point")
        ->check(CLI::IsMember({"accelerated", "paper"}))
        ->capture_default_str();
    sub.add_option("--evaluation-sweeps", evaluation_sweeps_,
                   "With --algorithm accelerated: policy-evaluation sweeps after each Bellman step, 0 to 1000 "
                   "(modified policy iteration; 0: plain value iteration); not given: " +
                       std::to_string(accelerated_evaluation_sweeps))
        ->transform(cli::count_syntax(0, 1000));
    // The search over u, which only the optimal policy runs (the inert and myopic rules are closed forms).
    sub.add_option("--scan-points", p_.scan_points,
                   "With --policy optimal: objective evaluations spread over the inert bracket of u (3 to 64)")
        ->capture_default_str();
    sub.add_option("--brent-starts", p_.brent_starts,
                   "With --policy optimal: Brent searches around the lowest local minima of that scan (plus one "
                   "around the previous u), 1 to --scan-points")
        ->capture_default_str();
    sub.add_option("--brent-max-iter", p_.brent_max_iter,
                   "With --policy optimal: most objective evaluations per Brent search (3 to 1000)")
        ->capture_default_str();
    sub.add_option("--brent-tol", p_.brent_tol, "With --policy optimal: Brent tolerance on u: tol (|u| + 1)")
        ->capture_default_str();
    sub.add_flag("--no-mp-correction", no_mp_, "Do not add the MacQueen-Porteus midpoint to V at convergence");
    sub.add_option("--reference-state", reference_,
                   "X,MU,SIGMA inside the grid where the report gives V and u (repeatable; default: those of "
                   "(0,1,0.5), (2,1,0.5), (-2,0.5,1) and (1,0,1) inside the grid)");
    sub.add_option("--simulate-paths", p_.simulate_paths, "Simulated paths per policy (0: no simulation)")
        ->capture_default_str();
    sub.add_option("--horizon", p_.horizon, "With --simulate-paths: periods per simulated path (1 to 100000)")
        ->capture_default_str();
    sub.add_option("--seed", p_.seed, "With --simulate-paths: seed of the simulation's random numbers (Philox)")
        ->capture_default_str();
    sub.add_option("--initial-state", initial_,
                   "With --simulate-paths: X,MU,SIGMA, the start of the simulated paths (beta drawn from N(MU, "
                   "SIGMA))")
        ->capture_default_str();
    sub.add_option("--checkpoint", p_.checkpoint,
                   "Write the iteration state to this file (atomically, between sweeps), for --resume");
    sub.add_option("--checkpoint-every", p_.checkpoint_every,
                   "With --checkpoint: seconds of solve time between checkpoint writes, >= 0")
        ->capture_default_str();
    sub.add_option("--resume", p_.resume,
                   "Continue from a checkpoint written with the same parameters (--max-iter may differ); the result "
                   "is the one the uninterrupted solve gives");
    sub.add_option("--time-limit", p_.time_limit,
                   "Seconds the solve may run (0: no limit): it stops at the end of the sweep that passes them, "
                   "with status time_limit (exit 3), the report and arrays of where it stopped, and the checkpoint "
                   "if --checkpoint is given, for --resume")
        ->capture_default_str();
  }

  report::RunReport execute(cli::Context& context) override {
    Params p = p_;
    p.policy = parse_policy(policy_);
    p.algorithm = parse_algorithm(algorithm_);
    int const most = std::numeric_limits<int>::max();  // the memory check bounds the product
    auto const g = cli::parse_counts(grid_, "--grid", {{"NX", 2, most}, {"NMU", 2, most}, {"NSIGMA", 2, most}});
    p.nx = int(g[0]), p.nmu = int(g[1]), p.nsigma = int(g[2]);
    auto const xr = cli::parse_numbers(x_range_, "--x-range", 2, "LO,HI");
    auto const mr = cli::parse_numbers(mu_range_, "--mu-range", 2, "LO,HI");
    auto const sr = cli::parse_numbers(sigma_range_, "--sigma-range", 2, "LO,HI");
    p.x_lo = xr[0], p.x_hi = xr[1], p.mu_lo = mr[0], p.mu_hi = mr[1], p.sigma_lo = sr[0], p.sigma_hi = sr[1];
    p.mp_correction = !no_mp_;
    if (given("--tol")) p.tol = tol_;
    if (given("--evaluation-sweeps")) p.evaluation_sweeps = evaluation_sweeps_;
    if (!reference_.empty()) {
      p.reference_states.clear();
      for (auto const& r : reference_) p.reference_states.push_back(parse_state(r, "--reference-state"));
    } else {  // the defaults are examples: those outside a smaller box are left out, not refused
      std::erase_if(p.reference_states, [&](State const& s) { return !inside_grid(s, p); });
    }
    p.initial_state = parse_state(initial_, "--initial-state");
    refuse_what_does_not_apply(p);
    return solve_and_report(context, p);
  }

  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    Params p;
    p.policy = Policy::optimal;
    int const n = size == cli::Size::small ? 16 : (size == cli::Size::medium ? 64 : 128);
    p.nx = p.nmu = p.nsigma = n;
    if (size == cli::Size::small) {  // seconds on two cores: fewer nodes, modified policy iteration
      p.quad_nodes = 16;
      p.evaluation_sweeps = 10;
    }
    return solve_and_report(context, p);
  }

  std::string summarize(report::RunReport const& r) const override {
    auto const& res = r.results;
    std::string s = fmt::format("{} policy on {}x{}x{}, {} iterations, residual {:.2e}", res.value("policy", ""),
                                res["grid"][0].get<int>(), res["grid"][1].get<int>(), res["grid"][2].get<int>(),
                                r.iterations, res.value("residual", 0.0));
    if (!res["reference_states"].empty()) {
      auto const& ref = res["reference_states"][0];
      s += fmt::format(
          ", V{} = {:.4f}, u = {:.4f}",
          fmt::format("({},{},{})", ref["x"].get<double>(), ref["mu"].get<double>(), ref["Sigma"].get<double>()),
          ref["V"].get<double>(), ref["u"].get<double>());
    }
    if (auto const& stopped = res["stopped"]; !stopped.is_null())
      s +=
          fmt::format(" (stopped by {} in the {})", r.status == cli::status::time_limit ? "--time-limit" : "--max-iter",
                      stopped["stage"].get<std::string>());
    return s;
  }

  bool distributed() const override { return true; }  // grid slabs across ranks (solver.hpp)
  std::vector<std::string> file_options() const override { return {"--checkpoint"}; }

 private:
  bool given(char const* option) const { return sub_ && sub_->count(option) > 0; }

  // An option given that this run would not use is refused rather than ignored, with when it applies.
  void refuse_what_does_not_apply(Params const& p) const {
    auto require_applies = [&](bool applies, char const* option, std::string const& when) {
      require(applies || !given(option), std::string(option) + " applies " + when);
    };
    bool const optimal = p.policy == Policy::optimal;
    require_applies(optimal, "--algorithm",
                    "to --policy optimal only (the inert and myopic solves evaluate a fixed rule)");
    require_applies(optimal, "--evaluation-sweeps",
                    "to --policy optimal only (the inert and myopic solves evaluate a fixed rule)");
    require_applies(p.algorithm == Algorithm::accelerated, "--evaluation-sweeps",
                    "to --algorithm accelerated only (paper is plain value iteration)");
    require_applies(optimal, "--tol-myopic",
                    "to --policy optimal only (the myopic solve that starts it; --policy myopic stops at --tol)");
    for (char const* option : {"--scan-points", "--brent-starts", "--brent-max-iter", "--brent-tol"})
      require_applies(optimal, option,
                      "to --policy optimal only (the search over u; the inert and myopic rules are closed forms)");
    for (char const* option : {"--horizon", "--seed", "--initial-state"})
      require_applies(p.simulate_paths > 0, option,
                      "with --simulate-paths N > 0 only (without it nothing is simulated)");
    require_applies(!p.checkpoint.empty(), "--checkpoint-every", "with --checkpoint FILE only");
  }

  report::RunReport solve_and_report(cli::Context& context, Params const& p) {
    validate(p, option_names);
    if (!p.checkpoint.empty()) {
      try {
        run::check_checkpoint_path(p.checkpoint);
      } catch (run::CheckpointError const& e) {
        throw InvalidInput(std::string("--checkpoint: ") + e.what());
      }
    }
    require_resources(context, p);
    Estimate const estimated = estimate_time(context, p);
    report::RunReport r;
    r.model = name();
    r.precision = context.precision;
    r.parameters = {{"policy", to_string(p.policy)},
                    {"alpha", p.alpha},
                    {"gamma", p.gamma},
                    {"delta", p.delta},
                    {"omega", p.omega},
                    {"xbar", p.xbar},
                    {"ubar", p.ubar},
                    {"sigma_eps", p.sigma_eps},
                    {"grid", {p.nx, p.nmu, p.nsigma}},
                    {"x_range", {p.x_lo, p.x_hi}},
                    {"mu_range", {p.mu_lo, p.mu_hi}},
                    {"sigma_range", {p.sigma_lo, p.sigma_hi}},
                    {"x_concentration", p.x_concentration},
                    {"mu_concentration", p.mu_concentration},
                    {"quad_nodes", p.quad_nodes},
                    {"tol", p.tolerance()},
                    {"max_iter", p.max_iter},
                    {"mp_correction", p.mp_correction},
                    {"simulate_paths", p.simulate_paths}};
    // What the run does not use is null: the optimal policy's solve and search, the simulation's settings.
    bool const optimal = p.policy == Policy::optimal, simulated = p.simulate_paths > 0;
    auto used = [](bool applies, nlohmann::json value) { return applies ? value : nlohmann::json(nullptr); };
    r.parameters["tol_myopic"] = used(optimal, p.tol_myopic);
    r.parameters["algorithm"] = used(optimal, to_string(p.algorithm));
    r.parameters["evaluation_sweeps"] = used(optimal, p.evaluation_sweeps_effective());
    r.parameters["scan_points"] = used(optimal, p.scan_points);
    r.parameters["brent_starts"] = used(optimal, p.brent_starts);
    r.parameters["brent_max_iter"] = used(optimal, p.brent_max_iter);
    r.parameters["brent_tol"] = used(optimal, p.brent_tol);
    r.parameters["horizon"] = used(simulated, p.horizon);
    r.parameters["seed"] = used(simulated, p.seed);
    r.parameters["initial_state"] = used(simulated, state_json(p.initial_state));
    r.parameters["time_limit"] = p.time_limit;
    Result const res = run(p, context.precision, context.progress, r.phases);
    // A float solve cannot meet a tolerance below its rounding floor: it is raised, and said so.
    if (res.tolerance_effective > res.tolerance)
      cli::warn(
          fmt::format("dual-control: the tolerance {:.3g} is below what float can resolve at delta {} "
                      "(32 eps delta/(1-delta)); this solve stopped at {:.3g} "
                      "(results.tolerance_effective). --precision double meets {:.3g}",
                      res.tolerance, p.delta, res.tolerance_effective, res.tolerance));
    r.timing_note =
        "each phase: wall time between two fences of the execution space; policy_evaluation is the "
        "inert/myopic solve (also the start of an optimal solve), value_iteration the Bellman sweeps";
    r.iterations = res.iterations;
    r.status = res.time_limited ? cli::status::time_limit
                                : (res.converged ? cli::status::converged : cli::status::not_converged);
    long const points = long(p.nx) * p.nmu * p.nsigma;
    double const main_seconds = p.policy == Policy::optimal
                                    ? r.phases.seconds("parity::dual_control::value_iteration")
                                    : r.phases.seconds("parity::dual_control::policy_evaluation");
    nlohmann::json refs = nlohmann::json::array();
    for (auto const& ref : res.references) {
      auto j = state_json(ref.state);
      j["V"] = ref.V;
      j["u"] = ref.u;
      j["V_inert_closed_form"] = ref.V_inert;
      if (p.policy == Policy::optimal) j["V_myopic"] = ref.V_myopic;
      refs.push_back(j);
    }
    r.results = {
        {"policy", to_string(p.policy)},
        {"grid", {p.nx, p.nmu, p.nsigma}},
        {"grid_points", points},
        {"iterations", res.iterations},
        {"residual", res.residual},
        {"tolerance", res.tolerance},
        {"tolerance_effective", res.tolerance_effective},
        {"converged", res.converged},
        {"mp_shift", res.mp_shift},
        {"inert_closed_form", {{"a", res.inert.a}, {"b", res.inert.b}, {"c", res.inert.c}}},
        {"reference_states", refs},
        {"grid_point_updates_per_second", main_seconds > 0 ? double(points) * res.iterations / main_seconds : 0.0},
        {"history", {{"residual", res.residual_history}}}};
    // Which solve stopped: an optimal run whose cap was spent by the myopic start never reached a
    // Bellman sweep, and "0 iterations" alone would not say why. The same shape as Krusell-Smith's.
    r.results["stopped"] =
        res.converged && !res.time_limited
            ? nlohmann::json(nullptr)
            : nlohmann::json{
                  {"stage", res.stopped_in},
                  {"reason",
                   res.time_limited
                       ? fmt::format("--time-limit {} s reached in the {}{}", p.time_limit, res.stopped_in,
                                     p.checkpoint.empty() ? "" : "; --resume " + p.checkpoint + " continues it")
                       : fmt::format("--max-iter {} reached in the {}", p.max_iter, res.stopped_in)}};
    r.results["estimate"] = {
        {"seconds", estimated.seconds},
        {"evaluation_sweeps", estimated.evaluation_sweeps},
        {"bellman_sweeps", estimated.bellman_sweeps},
        {"seconds_per_evaluation_sweep", estimated.evaluation_sweep_seconds},
        {"seconds_per_bellman_sweep", estimated.bellman_sweep_seconds},
        {"simulation_seconds", estimated.simulation_seconds},
        {"note",
         "before the solve, from the sweeps that the tolerance needs at a contraction rate delta and the "
         "kernels timed on smaller grids of this problem on this device (docs/models/dual_control.md)"}};
    if (p.policy == Policy::optimal) {
      r.results["algorithm"] = to_string(p.algorithm);
      r.results["myopic_iterations"] = res.myopic_iterations;
      r.results["evaluation_sweeps_total"] = res.evaluation_sweeps;
      r.results["history"]["evaluation_sweeps"] = res.evaluation_sweeps_history;
      r.results["objective_evaluations"] = {
          {"bellman", res.bellman_evaluations},
          {"per_bellman_update",
           res.iterations > 0 ? double(res.bellman_evaluations) / (double(points) * res.iterations) : 0.0}};
    }
    // Work of the timed phase, for the comparison runner's roofline. Every objective evaluation
    // (one per point in a policy-evaluation sweep, the search's count in a Bellman sweep) gathers
    // 8 values of V for each of the NGH Gauss-Hermite nodes (trilinear interpolation); we count
    // those nominal gathered bytes plus the writes (V; and u in a Bellman sweep). Neighbouring
    // points gather overlapping cells, so most gathers hit cache and the achieved "bandwidth" can
    // exceed what DRAM alone would allow: read it as the rate of interpolation traffic.
    {
      double const real_bytes = context.precision == Precision::f32 ? 4.0 : 8.0;
      double const gather = 8.0 * p.quad_nodes * real_bytes;  // per objective evaluation
      double const evaluation_sweep = double(points) * (gather + real_bytes);
      double bytes = 0;
      std::string phase;
      if (p.policy == Policy::optimal) {
        phase = "parity::dual_control::value_iteration";
        bytes = double(res.bellman_evaluations) * gather + double(points) * res.iterations * 2 * real_bytes +
                double(res.evaluation_sweeps) * evaluation_sweep;
      } else {
        phase = "parity::dual_control::policy_evaluation";
        bytes = double(res.iterations) * evaluation_sweep;
      }
      r.results["work"] = {{"bytes", bytes}, {"phase", phase}};
    }
    if (!res.simulation.empty()) {
      nlohmann::json sims = nlohmann::json::object();
      for (auto const& s : res.simulation)
        sims[s.policy] = {{"mean_discounted_loss", s.mean_loss},
                          {"std_error", s.std_error},
                          {"mean_final_Sigma", s.mean_final_Sigma},
                          {"mean_abs_final_mu_error", s.mean_abs_final_mu_error}};
      r.results["simulation"] = sims;
    }
    {
      bool finite = std::isfinite(res.residual) || !res.converged;
      for (double v : res.V) finite = finite && std::isfinite(v);
      for (auto const& ref : res.references) finite = finite && std::isfinite(ref.V) && std::isfinite(ref.u);
      if (!finite) {
        r.status = cli::status::non_finite;
        r.results["non_finite"] = "V or u is NaN or infinite somewhere on the grid";
      }
    }
    if (context.output) {
      auto& out = *context.output;
      std::vector<std::size_t> const shape = {std::size_t(p.nx), std::size_t(p.nmu), std::size_t(p.nsigma)};
      out.npy("x", res.x, {res.x.size()});
      out.npy("mu", res.mu, {res.mu.size()});
      out.npy("Sigma", res.Sigma, {res.Sigma.size()});
      out.npy("V", res.V, shape);
      out.npy("u", res.u, shape);
      std::vector<std::string> files = {"x.npy", "mu.npy", "Sigma.npy", "V.npy", "u.npy"};
      if (!res.V_myopic.empty()) {
        out.npy("V_myopic", res.V_myopic, shape);
        out.npy("u_myopic", res.u_myopic, shape);
        files.push_back("V_myopic.npy");
        files.push_back("u_myopic.npy");
      }
      r.results["arrays"] = {{"folder", out.dir()}, {"files", files}, {"axes", {"x", "mu", "Sigma"}}};
    }
    return r;
  }

  // Refuses a grid that cannot fit and warns on a simulation that will take very long.
  static void require_resources(cli::Context const& context, Params const& p) {
    double const points = double(p.nx) * p.nmu * p.nsigma;
    double const real = context.precision == Precision::f32 ? 4 : 8;
    bool const optimal = p.policy == Policy::optimal;
    // Device: V, V_next, u (and the myopic V, u kept for the optimal solve). Host: V and u (and the
    // myopic pair) as double, a mirror of one grid, the arrays' bytes when written.
    double const device = points * real * (optimal ? 5 : 3);
    double const host = points * (8.0 * (optimal ? 4 : 2) + real) * (context.output ? 2 : 1);
    cli::require_memory(context, device, host,
                        fmt::format("dual-control --grid {},{},{} ({:.3g} points, {} grids of V and u)", p.nx, p.nmu,
                                    p.nsigma, points, optimal ? 5 : 3));
    double const periods = double(p.simulate_paths) * p.horizon;
    if (periods > 1e10)
      cli::warn(
          fmt::format("dual-control: --simulate-paths {} x --horizon {} = {:.3g} simulated periods per policy, "
                      "each an interpolation of u and a belief update; this takes very long",
                      p.simulate_paths, p.horizon, periods));
  }

  // Times the kernels on smaller grids, estimates the solve's time, says it (stderr) and warns when
  // it is long.
  static Estimate estimate_time(cli::Context& context, Params const& p) {
    Calibration const c = calibrate(p, context.precision);
    Estimate const e = estimate(p, context.precision == Precision::f32, c, run::ranks::size());
    std::string text = fmt::format("dual-control: estimated time {} ({} policy-evaluation sweeps of {}",
                                   cli::format_duration(e.seconds), e.evaluation_sweeps,
                                   cli::format_duration(e.evaluation_sweep_seconds));
    if (e.bellman_sweeps > 0)
      text += fmt::format(", {} Bellman sweeps of {}", e.bellman_sweeps, cli::format_duration(e.bellman_sweep_seconds));
    if (e.simulation_seconds > 0) text += ", the simulation " + cli::format_duration(e.simulation_seconds);
    text +=
        fmt::format("; kernels timed on {}x{}x{}", c.evaluation_grid[0], c.evaluation_grid[1], c.evaluation_grid[2]);
    if (e.bellman_sweeps > 0)
      text += fmt::format(" and {}x{}x{}", c.bellman_grid[0], c.bellman_grid[1], c.bellman_grid[2]);
    text += " points on this device; a rough estimate)";
    if (p.time_limit > 0 && e.seconds > p.time_limit)
      text += fmt::format("; --time-limit {} s will probably stop it first", p.time_limit);
    context.progress.message(text);
    bool const limited = p.time_limit > 0 && p.time_limit <= long_run_seconds;
    if (e.seconds > long_run_seconds && !limited)
      cli::warn(
          fmt::format("dual-control: this solve may take {} (estimated); --time-limit SECONDS stops it cleanly "
                      "between sweeps (status time_limit, exit 3), and with --checkpoint FILE, --resume FILE "
                      "continues it",
                      cli::format_duration(e.seconds)));
    return e;
  }

  CLI::App* sub_ = nullptr;
  Params p_;
  double tol_ = 0;  // p_.tol and p_.evaluation_sweeps when given
  int evaluation_sweeps_ = 0;
  std::string policy_ = "optimal";
  std::string algorithm_ = "accelerated";
  std::string grid_ = "16,16,16";
  std::string x_range_ = "-10,10", mu_range_ = "-4,4", sigma_range_ = "0,4";
  std::string initial_ = "2,1,1";
  std::vector<std::string> reference_;
  bool no_mp_ = false;
};

}  // namespace

std::unique_ptr<cli::Command> make_command() { return std::make_unique<Command>(); }

}  // namespace parity::dual_control
