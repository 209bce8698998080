// The dual-control command: options, the run report, .npy arrays, the one-line summary.
#include "models/dual_control/command.hpp"
#include "parity/run/checkpoint.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/dual_control/entry.hpp"
#include "models/dual_control/params.hpp"
#include "parity/cli/numbers.hpp"
#include "parity/report/npy.hpp"
#include "parity/run/errors.hpp"

namespace parity::dual_control {
namespace {

// "a,b,c" -> numbers; exactly `count` of them, all finite.
std::vector<double> parse_numbers(std::string const& text, std::size_t count, std::string const& option) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    double const v = std::strtod(item.c_str(), &end);
    require(!item.empty() && end && *end == '\0' && std::isfinite(v),
            option + " expects " + std::to_string(count) + " comma-separated numbers, got '" + text + "'");
    out.push_back(v);
  }
  require(out.size() == count,
          option + " expects " + std::to_string(count) + " comma-separated numbers, got '" + text + "'");
  return out;
}

// "NX,NMU,NSIGMA", each a count in the common syntax (16 or 1e3); validate() checks the range.
std::array<int, 3> parse_grid(std::string const& text) {
  std::string const message = "--grid expects 3 comma-separated whole numbers NX,NMU,NSIGMA, got '" + text + "'";
  std::array<int, 3> n{};
  std::stringstream ss(text);
  std::string item;
  std::size_t k = 0;
  while (std::getline(ss, item, ',')) {
    require(k < 3, message);
    try {
      n[k++] = int(cli::parse_count(item, "--grid", std::numeric_limits<int>::min(), 1 << 20));
    } catch (InvalidInput const&) {
      throw InvalidInput(message);
    }
  }
  require(k == 3, message);
  return n;
}

State parse_state(std::string const& text, std::string const& option) {
  auto const v = parse_numbers(text, 3, option);
  return {v[0], v[1], v[2]};
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
    Params const d;
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
    sub.add_option("--x-concentration", p_.x_concentration, "Clustering of the x nodes around xbar (0: uniform)")
        ->capture_default_str();
    sub.add_option("--mu-concentration", p_.mu_concentration, "Clustering of the mu nodes around 0 (0: uniform)")
        ->capture_default_str();
    sub.add_option("--quad-nodes", p_.quad_nodes, "Gauss-Hermite nodes for E V(S')")->capture_default_str();
    tol_option_ = sub.add_option("--tol", p_.tol,
                                 "Relative MacQueen-Porteus tolerance (default 1e-6 inert/myopic, 1e-4 optimal)");
    sub.add_option("--tol-myopic", p_.tol_myopic, "Tolerance of the myopic solve that starts the optimal one")
        ->capture_default_str();
    sub.add_option("--max-iter", p_.max_iter, "Most iterations (then status not_converged, exit 3)")
        ->capture_default_str();
    sub.add_option(
           "--algorithm", algorithm_,
           "Optimal policy: accelerated (modified policy iteration: " + std::to_string(accelerated_evaluation_sweeps) +
               " policy-evaluation sweeps after each Bellman sweep until the Bellman residual stalls near "
               "the tolerance) or paper (plain value iteration, as Morozov & Mathur's Table 2). Same search "
               "over u and the same stopping test on Bellman sweeps: both within the tolerance of the same "
               "fixed point")
        ->check(CLI::IsMember({"accelerated", "paper"}))
        ->capture_default_str();
    sub.add_option("--evaluation-sweeps", p_.evaluation_sweeps,
                   "Policy-evaluation sweeps after each Bellman step (modified policy iteration; 0: plain value "
                   "iteration; default: the algorithm's, " +
                       std::to_string(accelerated_evaluation_sweeps) + " accelerated, 0 paper)");
    sub.add_option("--scan-points", p_.scan_points,
                   "Objective evaluations spread over the inert bracket of u (3 to 64)")
        ->capture_default_str();
    sub.add_option("--brent-starts", p_.brent_starts,
                   "Brent searches around the lowest local minima of that scan (plus one around the previous u)")
        ->capture_default_str();
    sub.add_option("--brent-max-iter", p_.brent_max_iter, "Most objective evaluations per Brent search")
        ->capture_default_str();
    sub.add_option("--brent-tol", p_.brent_tol, "Brent tolerance on u: tol (|u| + 1)")->capture_default_str();
    sub.add_flag("--no-mp-correction", no_mp_, "Do not add the MacQueen-Porteus midpoint to V at convergence");
    sub.add_option("--reference-state", reference_, "X,MU,SIGMA where the report gives V and u (repeatable)");
    sub.add_option("--simulate-paths", p_.simulate_paths, "Simulated paths per policy (0: no simulation)")
        ->capture_default_str();
    sub.add_option("--horizon", p_.horizon, "Periods per simulated path")->capture_default_str();
    sub.add_option("--seed", p_.seed, "Seed of the simulation's random numbers (Philox)")->capture_default_str();
    sub.add_option("--initial-state", initial_,
                   "X,MU,SIGMA: start of the simulated paths (beta drawn from N(MU, SIGMA))")
        ->capture_default_str();
    sub.add_option("--checkpoint", p_.checkpoint,
                   "Write the iteration state to this file (atomically, between sweeps), for --resume");
    sub.add_option("--checkpoint-every", p_.checkpoint_every, "Seconds of solve time between checkpoint writes")
        ->capture_default_str();
    sub.add_option("--resume", p_.resume,
                   "Continue from a checkpoint written with the same parameters (--max-iter may differ); the result "
                   "is the one the uninterrupted solve gives");
  }

  report::RunReport execute(cli::Context& context) override {
    Params p = p_;
    p.policy = parse_policy(policy_);
    p.algorithm = parse_algorithm(algorithm_);
    auto const g = parse_grid(grid_);
    p.nx = g[0], p.nmu = g[1], p.nsigma = g[2];
    auto const xr = parse_numbers(x_range_, 2, "--x-range");
    auto const mr = parse_numbers(mu_range_, 2, "--mu-range");
    auto const sr = parse_numbers(sigma_range_, 2, "--sigma-range");
    p.x_lo = xr[0], p.x_hi = xr[1], p.mu_lo = mr[0], p.mu_hi = mr[1], p.sigma_lo = sr[0], p.sigma_hi = sr[1];
    p.mp_correction = !no_mp_;
    if (tol_option_ && tol_option_->count() > 0)
      require(p.tol > 0 && p.tol < 1 && std::isfinite(p.tol), "--tol (a relative tolerance) must lie in (0, 1)");
    if (!reference_.empty()) {
      p.reference_states.clear();
      for (auto const& r : reference_) p.reference_states.push_back(parse_state(r, "--reference-state"));
    }
    p.initial_state = parse_state(initial_, "--initial-state");
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
      s += fmt::format(" (stopped by --max-iter in the {})", stopped["stage"].get<std::string>());
    return s;
  }

  bool distributed() const override { return true; }  // grid slabs across ranks (solver.hpp)
  std::vector<std::string> file_options() const override { return {"--checkpoint"}; }

 private:
  report::RunReport solve_and_report(cli::Context& context, Params const& p) {
    validate(p);
    if (!p.checkpoint.empty()) {
      try {
        run::check_checkpoint_path(p.checkpoint);
      } catch (run::CheckpointError const& e) {
        throw InvalidInput(std::string("--checkpoint: ") + e.what());
      }
    }
    require_resources(context, p);
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
                    {"tol_myopic", p.tol_myopic},
                    {"max_iter", p.max_iter},
                    {"algorithm", to_string(p.algorithm)},
                    {"evaluation_sweeps", p.evaluation_sweeps_effective()},
                    {"scan_points", p.scan_points},
                    {"brent_starts", p.brent_starts},
                    {"brent_max_iter", p.brent_max_iter},
                    {"brent_tol", p.brent_tol},
                    {"mp_correction", p.mp_correction},
                    {"simulate_paths", p.simulate_paths},
                    {"horizon", p.horizon},
                    {"seed", p.seed},
                    {"initial_state", state_json(p.initial_state)}};
    Result const res = run(p, context.precision, context.progress, r.phases);
    r.timing_note =
        "each phase: wall time between two fences of the execution space; policy_evaluation is the "
        "inert/myopic solve (also the start of an optimal solve), value_iteration the Bellman sweeps";
    r.iterations = res.iterations;
    r.status = res.converged ? cli::status::converged : cli::status::not_converged;
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
        res.converged
            ? nlohmann::json(nullptr)
            : nlohmann::json{{"stage", res.stopped_in},
                             {"reason", fmt::format("--max-iter {} reached in the {}", p.max_iter, res.stopped_in)}};
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

  Params p_;
  std::string policy_ = "optimal";
  std::string algorithm_ = "accelerated";
  std::string grid_ = "16,16,16";
  std::string x_range_ = "-10,10", mu_range_ = "-4,4", sigma_range_ = "0,4";
  std::string initial_ = "2,1,1";
  std::vector<std::string> reference_;
  bool no_mp_ = false;
  CLI::Option* tol_option_ = nullptr;
};

}  // namespace

std::unique_ptr<cli::Command> make_command() { return std::make_unique<Command>(); }

}  // namespace parity::dual_control
