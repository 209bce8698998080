// parity-linear-sde-<backend>: Parity's executable with three more commands, `gbm` and `ou`
// (geometric Brownian motion and the Ornstein-Uhlenbeck process through parity::sde::integrate),
// whose ensemble statistics have closed forms: the Parity side of perf/suites/sde_peers.json; and
// `adaptive-pulse` (sde::integrate_adaptive against fixed steps at equal work).
// Every other command is the one of parity-<backend>, so one executable runs the whole suite.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/application.hpp"
#include "parity/cli/command.hpp"
#include "parity/cli/numbers.hpp"
#include "parity/run/errors.hpp"
#include "perf/linear_sde/linear_sde.hpp"

namespace {

using parity::linear_sde::Params;
namespace cli = parity::cli;
namespace report = parity::report;

// E[X_T] and Var[X_T] of the exact solution.
struct Moments {
  double mean, variance;
};

Moments exact_moments(Params const& p) {
  double const T = p.horizon;
  if (p.system == "ou") {
    double const decay = std::exp(-p.theta * T);
    return {p.mean + (p.x0 - p.mean) * decay, p.sigma * p.sigma / (2 * p.theta) * -std::expm1(-2 * p.theta * T)};
  }
  double const m = p.x0 * std::exp(p.mu * T);
  return {m, m * m * std::expm1(p.sigma * p.sigma * T)};
}

class LinearSdeCommand final : public cli::Command {
 public:
  explicit LinearSdeCommand(std::string system) { p_.system = std::move(system); }
  std::string name() const override { return p_.system; }
  std::string description() const override {
    return p_.system == "ou"
               ? "Ornstein-Uhlenbeck ensemble dX = theta (mean - X) dt + sigma dW: E[X_T] and Var[X_T] against "
                 "their closed forms"
               : "Geometric Brownian motion ensemble dX = mu X dt + sigma X dW (Ito): E[X_T] and Var[X_T] against "
                 "their closed forms";
  }
  bool writes_arrays() const override { return false; }

  void add_options(CLI::App& sub) override {
    if (p_.system == "ou") {
      p_.sigma = 1;
      sub.add_option("--theta", p_.theta, "Mean-reversion rate theta (> 0)")->capture_default_str();
      sub.add_option("--mean", p_.mean, "Long-run mean")->capture_default_str();
    } else {
      sub.add_option("--mu", p_.mu, "Drift rate mu")->capture_default_str();
    }
    sub.add_option("--sigma", p_.sigma, "Noise amplitude sigma")->capture_default_str();
    sub.add_option("--x0", p_.x0, "Initial value X(0)")->capture_default_str();
    sub.add_option("--horizon", p_.horizon, "End time T (> 0)")->capture_default_str();
    sub.add_option("--steps", p_.steps, "Fixed steps over [0, T] (dt = T / steps)")
        ->transform(cli::count<long>(1, long(1) << 30))
        ->capture_default_str();
    sub.add_option("--paths", p_.paths, "Trajectories (at least 2, for the standard errors)")
        ->transform(cli::count<int>(2))
        ->capture_default_str();
    sub.add_option("--seed", p_.seed, "Random seed (Philox key)")->capture_default_str();
    sub.add_option("--stepper", p_.stepper, "euler, srk2, milstein or weak2 (docs/models/sde.md)")
        ->check(CLI::IsMember({"euler", "srk2", "milstein", "weak2"}))
        ->capture_default_str();
    sub.add_option("--noise-law", p_.noise_law, "gaussian or five-point (weak noise)")
        ->check(CLI::IsMember({"gaussian", "five-point"}))
        ->capture_default_str();
  }

  report::RunReport execute(cli::Context& context) override { return solve_and_report(p_, context); }

  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    Params p;
    p.system = p_.system;
    p.paths = size == cli::Size::small ? 1 << 12 : 1 << 20;
    return solve_and_report(p, context);
  }

  std::string summarize(report::RunReport const& r) const override {
    auto const& x = r.results;
    return fmt::format("E[X_T] = {:.6g} +- {:.2g} (exact {:.6g}), Var[X_T] = {:.6g} +- {:.2g} (exact {:.6g})",
                       x["mean"].get<double>(), x["mean_error"].get<double>(), x["exact_mean"].get<double>(),
                       x["variance"].get<double>(), x["variance_error"].get<double>(),
                       x["exact_variance"].get<double>());
  }

 private:
  report::RunReport solve_and_report(Params const& p, cli::Context& context) {
    parity::require(p.horizon > 0 && std::isfinite(p.horizon), "--horizon must be a positive number");
    parity::require(p.system != "ou" || p.theta > 0, "--theta must be positive");
    double const real = context.precision == parity::Precision::f32 ? 4 : 8;
    cli::require_memory(context, double(p.paths) * (real + 64), 0,
                        fmt::format("{} with --paths {}", p.system, p.paths));
    report::RunReport r;
    r.model = p.system;
    r.parameters = {{"horizon", p.horizon}, {"steps", p.steps}, {"paths", p.paths},     {"sigma", p.sigma},
                    {"x0", p.x0},           {"seed", p.seed},   {"stepper", p.stepper}, {"noise_law", p.noise_law}};
    if (p.system == "ou") {
      r.parameters["theta"] = p.theta;
      r.parameters["mean"] = p.mean;
    } else {
      r.parameters["mu"] = p.mu;
    }
    auto const got = parity::linear_sde::run(p, context.precision, context.progress, r.phases);
    Moments const exact = exact_moments(p);
    double const steps_total = double(p.paths) * double(p.steps);
    double const seconds = r.phases.seconds("parity::" + p.system + "::integrate");
    r.iterations = p.steps;
    r.timing_note =
        "each phase: wall time between two fences; integrate = all steps plus the on-device moments at the end";
    auto& out = r.results;
    out["dt"] = p.horizon / double(p.steps);
    out["mean"] = got.mean;
    out["mean_error"] = got.mean_error;
    out["exact_mean"] = exact.mean;
    out["mean_bias"] = got.mean - exact.mean;
    out["variance"] = got.variance;
    out["variance_error"] = got.variance_error;
    out["exact_variance"] = exact.variance;
    out["variance_bias"] = got.variance - exact.variance;
    out["error_note"] =
        "errors: one standard error over the paths (the variance's by the delta method from the covariance of X "
        "and X^2); bias: estimate - closed form, the scheme's weak error plus sampling error";
    out["steps_total"] = steps_total;
    out["throughput"] = {{"value", steps_total}, {"unit", "path steps"}};
    if (seconds > 0) out["steps_per_second"] = steps_total / seconds;
    if (!std::isfinite(got.mean) || !std::isfinite(got.variance)) r.status = cli::status::non_finite;
    return r;
  }

  Params p_;
};

// adaptive-pulse: error against work of per-path adaptive steps and of fixed steps on the same
// Brownian paths (linear_sde.hpp); the numbers to watch are the two errors at the two works.
class AdaptivePulseCommand final : public cli::Command {
 public:
  std::string name() const override { return "adaptive-pulse"; }
  std::string description() const override {
    return "dX = -a(t) X dt + sigma dW with a sharp pulse in a(t): adaptive steps (sde::integrate_adaptive) against "
           "fixed steps of at least the same work, pathwise errors against the exact solution";
  }
  bool writes_arrays() const override { return false; }

  void add_options(CLI::App& sub) override {
    sub.add_option("--paths", p_.paths, "Trajectories (at least 2)")
        ->transform(cli::count<int>(2))
        ->capture_default_str();
    sub.add_option("--tolerance", p_.tolerance, "atol = rtol of the step-doubling controller")->capture_default_str();
    sub.add_option("--pulse", p_.pulse, "Height of the rate's pulse")->capture_default_str();
    sub.add_option("--width", p_.width, "Width of the rate's pulse in time")->capture_default_str();
    sub.add_option("--seed", p_.seed, "Random seed (Philox key)")->capture_default_str();
  }

  report::RunReport execute(cli::Context& context) override { return solve_and_report(p_, context); }

  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    parity::linear_sde::PulseParams p;
    p.paths = size == cli::Size::small ? 1 << 10 : 1 << 16;
    return solve_and_report(p, context);
  }

  std::string summarize(report::RunReport const& r) const override {
    auto const& x = r.results;
    return fmt::format("adaptive: E|error| {:.3g} at {:.1f} steps/path; fixed: {:.3g} at {:.0f} steps/path",
                       x["adaptive_error"].get<double>(), x["adaptive_work"].get<double>(),
                       x["fixed_error"].get<double>(), x["fixed_work"].get<double>());
  }

 private:
  report::RunReport solve_and_report(parity::linear_sde::PulseParams const& p, cli::Context& context) {
    parity::require(p.tolerance > 0 && std::isfinite(p.tolerance), "--tolerance must be positive");
    parity::require(p.width > 0 && p.pulse >= 0, "--width must be positive and --pulse non-negative");
    parity::require(context.precision == parity::Precision::f64, "adaptive-pulse runs in double precision");
    report::RunReport r;
    r.model = "adaptive-pulse";
    r.parameters = {{"paths", p.paths},
                    {"tolerance", p.tolerance},
                    {"pulse", p.pulse},
                    {"width", p.width},
                    {"t0", p.t0},
                    {"a0", p.a0},
                    {"sigma", p.sigma},
                    {"seed", p.seed},
                    {"max_level", p.max_level},
                    {"min_level", p.min_level}};
    auto const got = parity::linear_sde::run_pulse(p, r.phases);
    auto& out = r.results;
    out["adaptive_error"] = got.adaptive_error;
    out["adaptive_work"] = got.adaptive_work;
    out["rejected_per_path"] = got.rejected;
    out["capped_paths"] = got.capped;
    out["fixed_error"] = got.fixed_error;
    out["fixed_work"] = got.fixed_work;
    out["adaptive_mean"] = got.adaptive_mean;
    out["fixed_mean"] = got.fixed_mean;
    out["mean_error"] = got.mean_error;
    out["exact_mean"] = got.exact_mean;
    out["error_note"] =
        "error: mean over paths of |X_T - exact X_T| on the same Brownian tree (exact: midpoint quadrature of the "
        "closed form on the finest grid); work: Euler steps per path, 3 per adaptive attempt";
    if (!std::isfinite(got.adaptive_error) || !std::isfinite(got.fixed_error)) r.status = cli::status::non_finite;
    return r;
  }

  parity::linear_sde::PulseParams p_;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::unique_ptr<parity::cli::Command>> extra;
  extra.push_back(std::make_unique<LinearSdeCommand>("gbm"));
  extra.push_back(std::make_unique<LinearSdeCommand>("ou"));
  extra.push_back(std::make_unique<AdaptivePulseCommand>());
  return parity::backend::run_application(argc, argv, std::move(extra));
}
