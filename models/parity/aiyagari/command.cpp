#include "parity/aiyagari/command.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "parity/aiyagari/entry.hpp"
#include "parity/cli/option_names.hpp"
#include "parity/run/errors.hpp"

namespace parity::aiyagari {
namespace {

// The option of each library parameter, so a library message names what the user typed
// ("asset_max must exceed borrowing_limit" -> "--asset-max must exceed --borrowing-limit").
cli::OptionNames const option_names = {{"crra"},
                                       {"beta"},
                                       {"rho"},
                                       {"sigma"},
                                       {"income_states"},
                                       {"tauchen_width"},
                                       {"alpha"},
                                       {"delta"},
                                       {"borrowing_limit"},
                                       {"asset_points"},
                                       {"asset_max"},
                                       {"grid_curvature"},
                                       {"rate_tol", "--tol"},
                                       {"policy_tol"},
                                       {"distribution_tol"},
                                       {"max_iter"}};

class Command final : public cli::Command {
 public:
  std::string name() const override { return "aiyagari"; }
  std::string description() const override {
    return "Stationary equilibrium of Aiyagari (1994): households self-insure against labour-endowment risk "
           "(CRRA utility, log labour AR(1) discretised by Tauchen or Rouwenhorst, normalised to mean 1) under a "
           "borrowing limit; the net interest rate clears the capital market of a Cobb-Douglas firm. Household "
           "policy by the endogenous grid method, wealth distribution by Young's histogram method, both on the "
           "device; r by Brent's method. Arrays (--output): assets, labour, labour_transition, mass, consumption, "
           "saving (the last three indexed [labour state, asset node])";
  }

  void add_options(CLI::App& sub) override {
    sub.add_option("--crra", p_.crra, "Relative risk aversion (1: log utility)")->capture_default_str();
    sub.add_option("--beta", p_.beta, "Discount factor, in (0, 1)")->capture_default_str();
    sub.add_option("--rho", p_.rho, "Persistence of log labour")->capture_default_str();
    sub.add_option("--sigma", p_.sigma, "Unconditional standard deviation of log labour (Aiyagari's sigma)")
        ->capture_default_str();
    sub.add_option("--income-states", p_.income_states, "Labour states of the discretised AR(1)")
        ->capture_default_str();
    sub.add_option("--discretisation", discretisation_, "tauchen or rouwenhorst")
        ->check(CLI::IsMember({"tauchen", "rouwenhorst"}))
        ->capture_default_str();
    tauchen_width_ = sub.add_option("--tauchen-width", p_.tauchen_width,
                                    "Tauchen: the grid spans +- this many unconditional deviations")
                         ->capture_default_str();
    sub.add_option("--alpha", p_.alpha, "Capital share of the Cobb-Douglas firm")->capture_default_str();
    sub.add_option("--delta", p_.delta, "Depreciation rate")->capture_default_str();
    sub.add_option("--borrowing-limit", p_.borrowing_limit, "Least assets a household may hold (<= 0)")
        ->capture_default_str();
    sub.add_option("--asset-points", p_.asset_points, "Nodes of the asset grid")->capture_default_str();
    sub.add_option("--asset-max", p_.asset_max, "Largest asset node")->capture_default_str();
    sub.add_option(
           "--grid-curvature", p_.grid_curvature,
           "Asset nodes at limit + (max - limit) (i/(n-1))^curvature: 1 uniform, larger clusters near the limit")
        ->capture_default_str();
    sub.add_option("--tol", p_.rate_tol, "Width of the final bracket of the interest rate")->capture_default_str();
    policy_tol_ = sub.add_option("--policy-tol", p_.policy_tol,
                                 "Sup change of consumption per sweep at which the household's policy has converged "
                                 "(default 1e-10 in double, 1e-5 in float)");
    distribution_tol_ = sub.add_option("--distribution-tol", p_.distribution_tol,
                                       "Sup change of the distribution's masses per step at which it is stationary "
                                       "(default 1e-12 in double, 1e-8 in float)");
    sub.add_option(
           "--max-iter", p_.max_iter,
           "Evaluations of the market-clearing condition by Brent's method at most (after the search for a bracket)")
        ->capture_default_str();
  }

  report::RunReport execute(cli::Context& context) override {
    Params p = p_;
    p.discretisation = discretisation_ == "rouwenhorst" ? Discretisation::rouwenhorst : Discretisation::tauchen;
    require(tauchen_width_->count() == 0 || p.discretisation == Discretisation::tauchen,
            "--tauchen-width applies to --discretisation tauchen only");
    if (context.precision == Precision::f32) {
      if (policy_tol_->count() == 0) p.policy_tol = 1e-5;
      if (distribution_tol_->count() == 0) p.distribution_tol = 1e-8;
    }
    return solve_and_report(context, p);
  }

  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    Params p;
    p.asset_points = size == cli::Size::small ? 200 : (size == cli::Size::medium ? 2000 : 20000);
    if (context.precision == Precision::f32) p.policy_tol = 1e-5, p.distribution_tol = 1e-8;
    return solve_and_report(context, p);
  }

  std::string summarize(report::RunReport const& r) const override {
    auto const& res = r.results;
    if (res.value("interest_rate", nlohmann::json()).is_null()) return "no equilibrium (a value is not finite)";
    return fmt::format("r = {:.4f}%, K = {:.4f}, saving rate {:.2f}%, wealth Gini {:.3f}",
                       100 * res["interest_rate"].get<double>(), res["capital"].get<double>(),
                       100 * res["saving_rate"].get<double>(), res["gini"].get<double>());
  }

 private:
  report::RunReport solve_and_report(cli::Context& context, Params const& p) {
    option_names.with_option_words([&] { validate(p); });
    double const cells = double(p.income_states) * p.asset_points;
    double const real = context.precision == Precision::f32 ? 4 : 8;
    // Device: 8 tables of cells (policy: c, c_next, a_endo, saving; distribution: saving, mass,
    // mass_next, lottery mass and weight, an int index). Host: the results as double, twice when
    // written as arrays.
    cli::require_memory(context, cells * (10 * real + 4), cells * 8 * 3 * (context.output ? 2 : 1),
                        fmt::format("aiyagari --income-states {} --asset-points {} ({:.3g} cells)", p.income_states,
                                    p.asset_points, cells));
    report::RunReport r;
    r.model = "aiyagari";
    r.parameters = {{"crra", p.crra},
                    {"beta", p.beta},
                    {"rho", p.rho},
                    {"sigma", p.sigma},
                    {"income_states", p.income_states},
                    {"discretisation", to_string(p.discretisation)},
                    {"tauchen_width", p.tauchen_width},
                    {"alpha", p.alpha},
                    {"delta", p.delta},
                    {"borrowing_limit", p.borrowing_limit},
                    {"asset_points", p.asset_points},
                    {"asset_max", p.asset_max},
                    {"grid_curvature", p.grid_curvature},
                    {"rate_tol", p.rate_tol},
                    {"policy_tol", p.policy_tol},
                    {"distribution_tol", p.distribution_tol},
                    {"max_iter", p.max_iter}};
    Result const res =
        option_names.with_option_words([&] { return run(p, context.precision, context.progress, r.phases); });
    r.timing_note =
        "each phase: wall time between two fences of the execution space; egm_sweep: one sweep of the endogenous "
        "grid method, distribution_step: one step of Young's method (host set-up and Brent's steps excluded)";
    r.iterations = long(res.history.size());
    if (res.non_finite) {
      r.status = cli::status::non_finite;
      r.results = {{"interest_rate", nullptr}, {"non_finite", "a policy or the distribution is not finite"}};
      return r;
    }
    r.status = res.converged ? cli::status::converged : cli::status::not_converged;
    nlohmann::json history = nlohmann::json::array();
    for (auto const& s : res.history)
      history.push_back({{"interest_rate", s.interest_rate},
                         {"capital_supply", s.capital_supply},
                         {"capital_demand", s.capital_demand},
                         {"policy_iterations", s.policy_iterations},
                         {"distribution_iterations", s.distribution_iterations}});
    r.results = {{"interest_rate", res.interest_rate},
                 {"interest_rate_bracket", {res.rate_lower, res.rate_upper}},
                 {"wage", res.wage},
                 {"capital", res.capital},
                 {"capital_demand", res.capital_demand},
                 {"output", res.output},
                 {"saving_rate", res.saving_rate},
                 {"gini", res.gini},
                 {"mass_at_asset_max", res.mass_at_top},
                 {"labour", res.labour},
                 {"labour_distribution", res.labour_distribution},
                 {"history", history}};
    if (res.mass_at_top > 1e-6)
      cli::warn(fmt::format("aiyagari: {:.2g} of the households hold the largest asset node {}; raise --asset-max",
                            res.mass_at_top, p.asset_max));
    if (context.output) {
      auto& out = *context.output;
      std::size_t const nz = res.labour.size(), nk = res.assets.size();
      out.npy("assets", res.assets, {nk});
      out.npy("labour", res.labour, {nz});
      out.npy("labour_transition", res.labour_transition, {nz, nz});
      out.npy("mass", res.mass, {nz, nk});
      out.npy("consumption", res.consumption, {nz, nk});
      out.npy("saving", res.saving, {nz, nk});
    }
    return r;
  }

  Params p_;
  std::string discretisation_ = "tauchen";
  CLI::Option* tauchen_width_ = nullptr;
  CLI::Option* policy_tol_ = nullptr;
  CLI::Option* distribution_tol_ = nullptr;
};

}  // namespace

std::unique_ptr<cli::Command> make_command() { return std::make_unique<Command>(); }

}  // namespace parity::aiyagari
