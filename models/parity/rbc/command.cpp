#include "parity/rbc/command.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "parity/cli/option_names.hpp"
#include "parity/rbc/entry.hpp"
#include "parity/run/errors.hpp"

namespace parity::rbc {
namespace {

// The option of each library parameter, so a library message names what the user typed.
cli::OptionNames const option_names = {{"crra"},
                                       {"beta"},
                                       {"alpha"},
                                       {"delta"},
                                       {"rho"},
                                       {"sigma"},
                                       {"productivity_states"},
                                       {"tauchen_width"},
                                       {"capital_points"},
                                       {"capital_span"},
                                       {"tol"},
                                       {"max_iter"},
                                       {"howard_steps"}};

class Command final : public cli::Command {
 public:
  std::string name() const override { return "rbc"; }
  std::string description() const override {
    return "Real business cycle model of Aldrich, Fernandez-Villaverde, Gallant and Rubio-Ramirez (2011) by value "
           "function iteration on the device: CRRA utility, Cobb-Douglas output, log productivity AR(1) on a "
           "Tauchen chain, next period's capital chosen on the capital grid (a bisection of the concave objective "
           "by default, as in the paper). Results: sweeps, residual, Euler equation errors. Arrays (--output): "
           "capital, productivity, productivity_transition, value, capital_next, consumption (the last three "
           "indexed [productivity state, capital node])";
  }

  void add_options(CLI::App& sub) override {
    sub.add_option("--crra", p_.crra, "Relative risk aversion (1: log utility)")->capture_default_str();
    sub.add_option("--beta", p_.beta, "Discount factor, in (0, 1)")->capture_default_str();
    sub.add_option("--alpha", p_.alpha, "Capital share")->capture_default_str();
    sub.add_option("--delta", p_.delta, "Depreciation rate")->capture_default_str();
    sub.add_option("--rho", p_.rho, "Persistence of log productivity")->capture_default_str();
    sub.add_option("--sigma", p_.sigma, "Standard deviation of the innovation of log productivity")
        ->capture_default_str();
    sub.add_option("--productivity-states", p_.productivity_states, "States of the Tauchen chain")
        ->capture_default_str();
    sub.add_option("--tauchen-width", p_.tauchen_width, "Tauchen's grid spans +- this many unconditional deviations")
        ->capture_default_str();
    sub.add_option("--capital-points", p_.capital_points, "Nodes of the capital grid (equally spaced)")
        ->capture_default_str();
    sub.add_option("--capital-span", p_.capital_span,
                   "The capital grid spans [1 - span, 1 + span] times the deterministic steady state")
        ->capture_default_str();
    sub.add_option("--tol", p_.tol, "Sup norm of the change of V in one sweep at which iteration stops")
        ->capture_default_str();
    sub.add_option("--max-iter", p_.max_iter, "Bellman sweeps at most")->capture_default_str();
    sub.add_option("--howard-steps", p_.howard_steps,
                   "Policy-evaluation steps after each sweep (modified policy iteration; 0: plain value iteration)")
        ->capture_default_str();
    sub.add_option("--search", search_,
                   "How each state's best capital is found: binary (bisection on the concave objective, the paper's) "
                   "or exhaustive (every node)")
        ->check(CLI::IsMember({"binary", "exhaustive"}))
        ->capture_default_str();
    sub.add_flag("--monotone", p_.monotone,
                 "Search only between the choices of neighbouring capital nodes (the policy rises with capital)");
  }

  report::RunReport execute(cli::Context& context) override {
    Params p = p_;
    p.search = search_ == "exhaustive" ? Search::exhaustive : Search::binary;
    return solve_and_report(context, p);
  }

  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    Params p;
    p.capital_points = size == cli::Size::small ? 256 : (size == cli::Size::medium ? 4096 : 65536);
    if (context.precision == Precision::f32) p.tol = 1e-4;
    return solve_and_report(context, p);
  }

  std::string summarize(report::RunReport const& r) const override {
    auto const& res = r.results;
    if (res.value("euler_error_max_log10", nlohmann::json()).is_null()) return "no solution (a value is not finite)";
    return fmt::format("{} sweeps, residual {:.2e}, Euler errors: max 10^{:.2f}, mean 10^{:.2f}", r.iterations,
                       res["residual"].get<double>(), res["euler_error_max_log10"].get<double>(),
                       res["euler_error_mean_log10"].get<double>());
  }

 private:
  report::RunReport solve_and_report(cli::Context& context, Params const& p) {
    option_names.with_option_words([&] { validate(p); });
    double const cells = double(p.productivity_states) * p.capital_points;
    double const real = context.precision == Precision::f32 ? 4 : 8;
    // Device: V, TV, EV and the reward at the policy (reals), the policy (int). Host: six arrays
    // of doubles, twice when written.
    cli::require_memory(context, cells * (4 * real + 4), cells * 8 * 6 * (context.output ? 2 : 1),
                        fmt::format("rbc --productivity-states {} --capital-points {} ({:.3g} cells)",
                                    p.productivity_states, p.capital_points, cells));
    if (p.search == Search::exhaustive && !p.monotone &&
        double(p.capital_points) * p.capital_points * p.productivity_states > 1e11)
      cli::warn(
          fmt::format("rbc --search exhaustive evaluates {:.2g} choices per sweep (hundreds of sweeps); "
                      "--search binary or --monotone takes far fewer",
                      double(p.capital_points) * p.capital_points * p.productivity_states));
    report::RunReport r;
    r.model = "rbc";
    r.parameters = {{"crra", p.crra},
                    {"beta", p.beta},
                    {"alpha", p.alpha},
                    {"delta", p.delta},
                    {"rho", p.rho},
                    {"sigma", p.sigma},
                    {"productivity_states", p.productivity_states},
                    {"tauchen_width", p.tauchen_width},
                    {"capital_points", p.capital_points},
                    {"capital_span", p.capital_span},
                    {"tol", p.tol},
                    {"max_iter", p.max_iter},
                    {"howard_steps", p.howard_steps},
                    {"search", to_string(p.search)},
                    {"monotone", p.monotone}};
    Result const res =
        option_names.with_option_words([&] { return run(p, context.precision, context.progress, r.phases); });
    r.timing_note =
        "each phase: wall time between two fences of the execution space; bellman: one sweep (expectation, "
        "maximisation, sup norm of the change), policy_evaluation: the Howard steps after it (upload of the "
        "problem and download of the results excluded)";
    r.iterations = res.iterations;
    if (res.non_finite) {
      r.status = cli::status::non_finite;
      r.results = {{"euler_error_max_log10", nullptr}, {"non_finite", "a value is not finite"}};
      return r;
    }
    r.status = res.converged ? cli::status::converged : cli::status::not_converged;
    r.results = {{"residual", res.residual},
                 {"value_bounds", {res.lower_bound, res.upper_bound}},
                 {"steady_state_capital", res.steady_capital},
                 {"euler_error_max_log10", res.euler_error_max},
                 {"euler_error_mean_log10", res.euler_error_mean},
                 {"residual_history", res.residual_history}};
    // The compulsory memory traffic of the sweeps, for the comparison runner's bandwidth floor:
    // each sweep reads V and writes TV and the policy at least once (the expectation, the search
    // and the sup norm re-read them from cache at best); Howard steps are not counted.
    r.results["work"] = {{"bytes", double(res.iterations) * cells * (2 * real + 4)}, {"phase", "parity::dp::bellman"}};
    if (context.output) {
      auto& out = *context.output;
      std::size_t const nz = res.productivity.size(), nk = res.capital.size();
      out.npy("capital", res.capital, {nk});
      out.npy("productivity", res.productivity, {nz});
      out.npy("productivity_transition", res.productivity_transition, {nz, nz});
      out.npy("value", res.value, {nz, nk});
      out.npy("capital_next", res.capital_next, {nz, nk});
      out.npy("consumption", res.consumption, {nz, nk});
    }
    return r;
  }

  Params p_;
  std::string search_ = "binary";
};

}  // namespace

std::unique_ptr<cli::Command> make_command() { return std::make_unique<Command>(); }

}  // namespace parity::rbc
