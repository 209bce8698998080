// CLI for the cubature model: options, the JSON report, history arrays, summaries.
#include "parity/cubature/command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "parity/cli/numbers.hpp"
#include "parity/cli/option_names.hpp"
#include "parity/cli/sweep.hpp"
#include "parity/cubature/entry.hpp"
#include "parity/cubature/method_choice.hpp"
#include "parity/cubature/params.hpp"
#include "parity/report/npy.hpp"
#include "parity/run/ranks.hpp"

namespace parity::cubature {
namespace {

// The option of each field of Params that validate() names.
cli::OptionNames const option_names = {{"integrand"}, {"dim"}, {"lower"}, {"upper"}, {"a"}, {"u"}};

// The parameters of every method: the integrand on its box and the tolerances.
nlohmann::json problem_json(Params const& p, Problem const& q) {
  return {{"integrand", p.integrand},
          {"dim", p.dim},
          {"lower", q.lower},
          {"upper", q.upper},
          {"a", q.a},
          {"u", q.u},
          {"rel_tol", p.tolerances.relative},
          {"abs_tol", p.tolerances.absolute},
          {"method", to_string(p.method)}};
}

nlohmann::json parameters_json(Params const& p) {
  nlohmann::json j = problem_json(p, validate(p, option_names));
  auto const& o = p.options;
  j.update({{"max_evals", o.max_evaluations},
            {"initial_regions", o.initial_regions},
            {"max_regions", o.max_regions},
            {"max_split", o.max_split},
            {"max_phase1_iterations", o.max_phase1_iterations},
            {"heap_capacity", o.heap_capacity},
            {"max_memory_mb", o.max_memory_mb},
            {"max_host_memory_mb", o.max_host_memory_mb},
            {"team_size", o.team_size},
            {"cuhre_average", o.cuhre_average},
            {"mode", to_string(o.mode)},
            {"error_estimate", to_string(o.error_estimate)},
            {"rule", !uses_degree9(o, p.dim)
                         ? "Genz-Malik degree 7 with embedded degree 5"
                         : "fully symmetric degree 9 (Genz & Malik) with null rules of degree 7, 5, 3, 1"},
            {"algorithm", o.mode == Mode::paper ? "two-phase (Arumugam et al. 2013), as published: CUHRE's rule and "
                                                  "error estimate, INIT-PARTITION into l^n <= Lmax parts, regions "
                                                  "good when error < max(tau_abs, tau_rel |I_j|), phase 2 sequential "
                                                  "CUHRE on every region to (tau_rel, tau_abs)"
                                                : "two-phase (Arumugam et al. 2013): breadth-first phase 1 while the "
                                                  "list fits max_memory_mb, PAGANI-style filtering, null-rule error "
                                                  "estimate (Berntsen, Espelid & Genz 1991)"}});
  return j;
}

// The case's stop in the one status vocabulary of every command (parity/cli/command.hpp); the
// cubature-specific reason stays in "stopped_by".
std::string common_status(Status s) {
  switch (s) {
    case Status::converged:
      return cli::status::converged;
    case Status::budget_exhausted:
    case Status::storage_exhausted:
      return cli::status::budget_exhausted;
    case Status::integrand_not_finite:
      return cli::status::non_finite;
    case Status::not_converged:
      break;
  }
  return cli::status::not_converged;
}

std::string case_status(Result const& x) {
  if (!std::isfinite(x.integral) || !std::isfinite(x.error)) return cli::status::non_finite;
  return common_status(x.status);
}

// The results of every method: the integrand, the distance of the integral to its closed form
// (null where there is none: f3 and f4 have references for small n only) and the work of the whole
// run, for the comparison runner's roofline.
nlohmann::json accuracy_json(Params const& p, double integral, double exact, std::int64_t evaluations) {
  double const true_error = std::abs(integral - exact);
  auto or_null = [&](double v) { return std::isfinite(exact) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"integrand", p.integrand},
          {"dim", p.dim},
          {"method", to_string(p.method)},
          {"exact", or_null(exact)},
          {"true_error", or_null(true_error)},
          {"relative_true_error", or_null(exact != 0 ? true_error / std::abs(exact) : true_error)},
          {"evaluations", evaluations},
          {"work", {{"flops", double(evaluations) * flops_per_evaluation(*parse_family(p.integrand), p.dim)}}}};
}

// One field of every step of a history, as doubles for an array file.
template <class Step, class Field>
std::vector<double> column(std::vector<Step> const& history, Field const& field) {
  std::vector<double> values(history.size());
  for (std::size_t i = 0; i < history.size(); ++i) values[i] = double(field(history[i]));
  return values;
}

nlohmann::json result_json(Params const& p, RunResult const& r) {
  auto const& x = r.integration;
  nlohmann::json j = accuracy_json(p, x.integral, r.exact, x.evaluations);
  j.update(
      {{"integral", x.integral},
       {"error_estimate", x.error},
       {"last_error_estimate", x.last_error},
       {"estimate_bounds_true_error",
        std::isfinite(r.exact) ? nlohmann::json(std::abs(x.integral - r.exact) <= x.error) : nlohmann::json(nullptr)},
       {"tolerance", x.tolerance},
       {"regions", x.regions},
       {"regions_evaluated", x.regions_evaluated},
       {"status", case_status(x)},
       {"stopped_by", to_string(x.status)},
       {"phase1_iterations", x.phase1_iterations},
       {"phase2_regions", x.phase2_regions},
       {"phase2_evaluations", x.phase2_evaluations},
       {"phase2_budget_limited", x.phase2_budget_limited},
       {"phase2_storage_limited", x.phase2_storage_limited},
       {"phase2_regrown", x.phase2_regrown},
       {"phase2_batch", x.phase2_batch},
       {"phase2_rounds", x.phase2_rounds},
       {"heap_capacity", x.heap_capacity},
       {"phase1_capacity", x.phase1_capacity},
       {"filtered_regions", x.filtered_regions},
       {"parked_chunks", x.parked_chunks},
       {"peak_host_mb", x.peak_host_mb},
       {"unrefined_regions", x.unrefined_regions},
       {"repeated_evaluations", x.repeated_evaluations},
       {"mode", to_string(x.mode)},
       {"error_estimate_method", to_string(x.error_estimate)},
       {"rule", to_string(x.rule)},
       {"rule_points", x.points}});
  return j;
}

void write_history(report::OutputFolder& out, std::string const& prefix, Result const& r) {
  auto put = [&](char const* name, auto const& field) {
    out.npy(prefix + name, column(r.history, field), {r.history.size()});
  };
  put("phase1_regions", [](Phase1Step const& s) { return s.regions; });
  put("phase1_unfinished", [](Phase1Step const& s) { return s.bad; });
  put("phase1_integral", [](Phase1Step const& s) { return s.integral; });
  put("phase1_error", [](Phase1Step const& s) { return s.error; });
  put("phase1_evaluations", [](Phase1Step const& s) { return s.evaluations; });
}

// --method vegas: its own parameters (the deterministic method's options do not apply).
nlohmann::json vegas_parameters_json(Params const& p) {
  nlohmann::json j = problem_json(p, validate(p));
  auto const& o = p.vegas;
  j.update({{"seed", o.seed},
            {"evals_per_iteration", o.evaluations_per_iteration},
            {"adaptation_iterations", o.adaptation_iterations},
            {"max_evals", o.max_evaluations},
            {"bins", o.bins},
            {"alpha", o.alpha},
            {"beta", o.beta},
            {"min_q", o.min_q},
            {"restarts", o.restarts},
            {"algorithm",
             "VEGAS+ (Lepage 2021): adaptive separable map and adaptive stratified sampling, Philox "
             "random numbers, inverse-variance weighted average of the iterations after adaptation"}});
  return j;
}

// Converged only when the iterations also agree (Q >= min_q): otherwise the error is not to be
// trusted and the run says so.
std::string vegas_status(VegasResult const& x) {
  if (!std::isfinite(x.integral) || !std::isfinite(x.error)) return cli::status::non_finite;
  switch (x.status) {
    case VegasStatus::converged:
      return x.chi2_consistent ? cli::status::converged : cli::status::not_converged;
    case VegasStatus::budget_exhausted:
      return cli::status::budget_exhausted;
    case VegasStatus::integrand_not_finite:
      break;
  }
  return cli::status::non_finite;
}

nlohmann::json vegas_result_json(Params const& p, VegasRunResult const& r) {
  auto const& x = r.integration;
  nlohmann::json j = accuracy_json(p, x.integral, r.exact, x.evaluations);
  j.update({{"estimate", x.integral},
            {"error", x.error},
            {"error_meaning", "one standard deviation"},
            {"chi2_per_dof", x.chi2_per_dof},
            {"dof", x.dof},
            {"restarts", x.restarts},
            {"q", x.q},
            {"chi2_consistent", x.chi2_consistent},
            {"tolerance", x.tolerance},
            {"iterations", x.iterations},
            {"kept_iterations", x.kept_iterations},
            {"status", vegas_status(x)},
            {"stopped_by", to_string(x.status)},
            {"bins", x.bins},
            {"strata", x.strata},
            {"iteration_estimates", column(x.history, [](VegasIteration const& s) { return s.estimate; })},
            {"iteration_errors", column(x.history, [](VegasIteration const& s) { return s.error; })}});
  return j;
}

class Command final : public cli::Command {
 public:
  std::string name() const override { return "cubature"; }
  std::string description() const override {
    return "Adaptive multidimensional cubature of a built-in integrand: two-phase parallel algorithm with the fully "
           "symmetric degree-9 rule (default) or the Genz-Malik degree-7 rule, or VEGAS+ Monte Carlo (--method vegas)";
  }

  void add_options(CLI::App& sub) override {
    app_ = &sub;
    sub.add_option("--method", method_,
                   "deterministic (the two-phase adaptive rules, up to 16 dimensions), vegas (VEGAS+ Monte Carlo: "
                   "adaptive map and stratified sampling, up to 32 dimensions) or auto (vegas above 16 "
                   "dimensions, from 12, and from 8 at --rel-tol 1e-4 or looser, unless the integrand oscillates "
                   "(oscillatory, f2..f5); deterministic otherwise; the report says which and why)")
        ->check(CLI::IsMember({"deterministic", "vegas", "auto"}))
        ->capture_default_str();
    sub.add_option("--integrand", params_.integrand,
                   "Genz family: oscillatory, product_peak, corner_peak, gaussian, c0, discontinuous; or the "
                   "paper's f1..f5 (unit cube, no parameters; f1-pagani: f1 with the exponent -1, PAGANI's)")
        ->capture_default_str();
    sub.add_option("--dim", params_.dim, "Dimension n: 1 to 16 (--method vegas: 1 to 32)")
        ->transform(cli::count<int>(1, max_vegas_dim))
        ->capture_default_str();
    sub.add_option("--lower", lower_text_, "Lower bounds: one value or n, comma separated")->capture_default_str();
    sub.add_option("--upper", upper_text_, "Upper bounds: one value or n, comma separated")->capture_default_str();
    a_option_ = sub.add_option("--a", a_text_,
                               "Genz difficulty a_i: one value or n, comma separated (default per family: oscillatory "
                               "2, product_peak 5, corner_peak 1, gaussian 5, c0 2, discontinuous 1)");
    u_option_ = sub.add_option("--u", u_text_,
                               "Genz location u_i: one value or n, comma separated (oscillatory reads u_1, "
                               "discontinuous u_1 and u_2; corner_peak has none)")
                    ->capture_default_str();
    rel_tol_option_ = sub.add_option("--rel-tol", params_.tolerances.relative,
                                     "Relative tolerance, in [0, 1) (default 1e-6 in double precision, 1e-3 in float: "
                                     "float's rounding holds the error estimates near 1e-4 of the integral; --method "
                                     "vegas: 1e-3, its error falls as 1/sqrt(evaluations))")
                          ->check(cli::real_in({0.0, 1.0, false, true}));
    sub.add_option("--abs-tol", params_.tolerances.absolute, "Absolute tolerance, >= 0")
        ->check(cli::real_in(cli::at_least(0)))
        ->capture_default_str();
    sub.add_option("--max-evals", max_evals_, "Most integrand evaluations (e.g. 1e8)")
        ->transform(cli::count<std::int64_t>(1))
        ->default_str("1e9");
    sub.add_option("--mode", mode_,
                   "improved (breadth-first phase 1 while the list fits --max-memory-mb, null-rule error estimates, "
                   "filtering) or paper (Arumugam et al. 2013 as published: CUHRE's degree-9 rule, INIT-PARTITION "
                   "into l^n <= --max-regions parts, per-region classification, phase 2 sequential CUHRE on every "
                   "region handed over)")
        ->check(CLI::IsMember({"improved", "paper"}))
        ->capture_default_str();
    sub.add_option("--error-estimate", error_estimate_,
                   "automatic (two_level with the degree-9 rule, null_rules with degree 7 in improved mode, "
                   "difference in paper mode's one dimension), difference (|I7 - I5|; degree-7 rule only), null_rules, "
                   "or two_level "
                   "(null rules unfloored where asymptotic, checked at every split)")
        ->check(CLI::IsMember({"automatic", "difference", "null_rules", "two_level"}))
        ->capture_default_str();
    rule_option_ =
        sub.add_option("--rule", rule_,
                       "Improved mode's cubature rule: degree9 (fully symmetric, 273-1105 points at n = "
                       "5-8, null-rule estimate; n >= 2, in one dimension degree7 stands in) or degree7 "
                       "(Genz-Malik, 93-401 points); the paper mode always uses degree9 (CUHRE's; degree7 in one "
                       "dimension)")
            ->check(CLI::IsMember({"degree7", "degree9"}))
            ->capture_default_str();
    auto& o = params_.options;
    initial_regions_option_ = sub.add_option("--initial-regions", o.initial_regions,
                                             "Improved mode: phase 1 starts from an even partition of about this "
                                             "many regions (paper mode: INIT-PARTITION from --max-regions)")
                                  ->transform(cli::count<int>(1, 1 << 24))
                                  ->capture_default_str();
    paper_only_ = {
        sub.add_option("--max-regions", o.max_regions,
                       "Paper mode: Lmax (the paper's 32768): INIT-PARTITION into l^n <= Lmax equal parts, "
                       "phase-1 splits aim at a list of this many regions, phase 2 once it has that many")
            ->transform(cli::count<int>(2, 1 << 24))
            ->capture_default_str(),
        sub.add_option("--max-split", o.max_split, "Paper mode: most pieces a region is cut into in one phase-1 step")
            ->transform(cli::count<int>(2, 64))
            ->capture_default_str()};
    cuhre_average_option_ = sub.add_flag("--cuhre-average", o.cuhre_average,
                                         "Paper mode: each phase-2 region stops on, and reports, CUBA Cuhre's "
                                         "default estimate (as the paper's sequential baseline ran): its running "
                                         "estimates averaged with weights 1 / error^2, and that average's error, "
                                         "which is not a bound (last_error is the last estimates')");
    sub.add_option("--max-phase1-iterations", o.max_phase1_iterations,
                   "Phase-1 iteration limit (the improved mode allows 16 times this)")
        ->transform(cli::count<int>(1, max_phase1_iteration_limit))
        ->capture_default_str();
    sub.add_option("--heap-capacity", o.heap_capacity,
                   "Subregions each phase-2 region may hold: 0 (as many as --max-memory-mb allows, at least 16) or "
                   "2 to 2^24")
        ->transform(cli::count<int>(0, 1 << 24))
        ->capture_default_str();
    sub.add_option("--max-memory-mb", o.max_memory_mb,
                   "Memory for the phase-2 heaps of one batch (MB); improved mode: also for the phase-1 region lists")
        ->check(cli::real_in(cli::above(0)))
        ->capture_default_str();
    host_memory_option_ =
        sub.add_option("--max-host-memory-mb", o.max_host_memory_mb,
                       "Improved mode: host memory for unevaluated regions parked while the list is refined in pieces "
                       "that fit --max-memory-mb (MB; 0: hand the list to phase 2's heaps instead)")
            ->check(cli::real_in(cli::at_least(0)))
            ->capture_default_str();
    sub.add_option("--team-size", o.team_size,
                   "Threads per region (0: 1 on CPUs, 32 on GPUs); at most what the backend runs the kernels with "
                   "(on host backends the thread count)")
        ->transform(cli::count<int>(0, 1024))
        ->capture_default_str();
    sub.add_option("--sweep", sweep_text_,
                   "Integrate a batch, one integral per value: NAME:LO:HI:N with NAME a (every a_i set to the "
                   "value) or u (every u_i); Genz families only");
    concurrency_option_ =
        sub.add_option("--concurrency", concurrency_,
                       "With --sweep: integrals in flight at once on a GPU, each on its own stream (0 or 1: one at a "
                       "time, the fastest measured but for tiny integrals; host backends run them one after another)")
            ->transform(cli::count<int>(0, 1024))
            ->capture_default_str();
    sampling_option_ =
        sub.add_option("--sweep-sampling", sampling_,
                       "With --sweep: shared (the sweep's integrals as one family, one launch per step for all of "
                       "them: the deterministic method's regions in one list, VEGAS one sampling; the deterministic "
                       "default where the improved mode runs on one rank without --max-host-memory-mb), partition "
                       "(deterministic, at most 16 values in 2 or more dimensions: one partition for all, each point "
                       "evaluated once for every value) or separate (one integral per value)")
            ->check(CLI::IsMember({"shared", "partition", "separate"}))
            ->capture_default_str();
    auto& v = params_.vegas;
    vegas_only_ = {
        sub.add_option("--seed", v.seed, "--method vegas: the Philox seed (the same seed gives the same bits)")
            ->capture_default_str(),
        sub.add_option("--evals-per-iteration", v.evaluations_per_iteration,
                       "--method vegas: integrand evaluations per iteration, at most (e.g. 1e5)")
            ->transform(cli::count<std::int64_t>(16, std::int64_t(1) << 31))
            ->default_str("1e5"),
        sub.add_option("--adaptation-iterations", v.adaptation_iterations,
                       "--method vegas: first iterations that only adapt the map and stratification (their "
                       "estimates are discarded)")
            ->transform(cli::count<int>(0, 1000))
            ->capture_default_str(),
        sub.add_option("--restarts", v.restarts,
                       "--method vegas: times the kept iterations may meet the tolerance while disagreeing "
                       "(chi^2 Q < 0.05) and be dropped as adaptation, the average starting again (0: stop "
                       "and report not_converged)")
            ->transform(cli::count<int>(0, 100))
            ->capture_default_str()};
  }

  report::RunReport execute(cli::Context& context) override {
    if (method_ == "vegas") return execute_vegas(context);
    if (method_ == "deterministic") return execute_deterministic(context);
    // auto: decided on the tolerance as given, or as the deterministic method's default; a
    // chosen vegas without --rel-tol then takes its own default, as --method vegas does.
    double const tolerance = rel_tol_option_->count() > 0          ? params_.tolerances.relative
                             : context.precision == Precision::f32 ? float_rel_tol
                                                                   : double_rel_tol;
    auto const family = parse_family(params_.integrand);
    // An unknown integrand goes to the deterministic path, whose checks name it.
    MethodChoice const choice = family ? choose_method(*family, params_.dim, tolerance)
                                       : MethodChoice{Method::deterministic, "unknown integrand"};
    context.progress.message(fmt::format("cubature --method auto: {} ({})", to_string(choice.method), choice.reason));
    report::RunReport r = choice.method == Method::vegas ? execute_vegas(context) : execute_deterministic(context);
    r.parameters["method_requested"] = "auto";
    r.results["method_reason"] = choice.reason;
    return r;
  }

  report::RunReport execute_deterministic(cli::Context& context) {
    for (auto const* option : vegas_only_)
      require(option->count() == 0, option->get_name() + " applies to --method vegas only");
    auto& o = params_.options;
    o.max_evaluations = max_evals_;
    o.mode = mode_ == "paper" ? Mode::paper : Mode::improved;
    o.rule = rule_ == "degree9" ? Rule::degree9 : Rule::degree7;
    o.error_estimate = error_estimate_ == "difference"   ? ErrorEstimate::difference
                       : error_estimate_ == "null_rules" ? ErrorEstimate::null_rules
                       : error_estimate_ == "two_level"  ? ErrorEstimate::two_level
                                                         : ErrorEstimate::automatic;
    parse_box(params_);
    bool const single = context.precision == Precision::f32;
    if (rel_tol_option_->count() == 0) params_.tolerances.relative = single ? float_rel_tol : double_rel_tol;
    require(params_.dim <= max_dim, fmt::format("--dim {}: the deterministic method integrates up to {} dimensions "
                                                "(--method vegas: up to {})",
                                                params_.dim, max_dim, max_vegas_dim));
    check_options(single);
    if (o.team_size > 0) {
      // Past the backend's limit the launch fails with Kokkos' own message.
      int const largest = max_team_size(context.precision);
      require(o.team_size <= largest,
              fmt::format("--team-size {}: this backend runs the cubature kernels with teams of at most {} threads",
                          o.team_size, largest));
    }
    if (sweep_text_.empty()) return run_cases(context, {params_}, "");
    cli::SweepSpec const sweep = cli::parse_sweep(sweep_text_);
    std::vector<Params> const cases = sweep_cases(params_, sweep);
    // One family (integrate_family) where it runs; else one integral per value (integrate_batch).
    std::string const cannot = o.mode == Mode::paper          ? "--mode paper"
                               : o.max_host_memory_mb > 0     ? "--max-host-memory-mb"
                               : run::ranks::size() > 1       ? "several ranks"
                               : concurrency_option_->count() ? "--concurrency"
                                                              : "";
    bool const partition = sampling_ == "partition";
    if (partition) {
      require(cannot.empty(), "--sweep-sampling partition does not run with " + cannot +
                                  " (--sweep-sampling separate runs one integral per value)");
      require(cases.size() <= std::size_t(max_vector_components),
              fmt::format("--sweep-sampling partition: at most {} values share one partition (got {}; "
                          "--sweep-sampling shared takes more)",
                          max_vector_components, cases.size()));
      require(uses_degree9(o, params_.dim),
              "--sweep-sampling partition applies the degree-9 rule, in two or more "
              "dimensions (--sweep-sampling shared runs the others)");
    }
    bool const family = sampling_ == "shared" && cannot.empty();
    require(partition || family || sampling_option_->count() == 0 || sampling_ == "separate",
            "--sweep-sampling shared: the deterministic family does not run with " + cannot +
                " (--sweep-sampling separate runs one integral per value)");
    auto r = run_cases(context, cases, "sweep",
                       partition ? Batch::partition
                       : family  ? Batch::family
                                 : Batch::separate);
    r.parameters["sweep"] = {{"name", sweep.name}, {"lo", sweep.lo}, {"hi", sweep.hi}, {"n", sweep.n}};
    r.parameters["sweep_sampling"] = partition ? "partition" : family ? "shared" : "separate";
    r.parameters["concurrency"] = concurrency_;
    return r;
  }

  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    // In float the rounding of the sums stops the error estimates near 1e-4 of the integral (the
    // oscillatory 5-D case stalls at 1.4e-4): the built-in cases ask float for 1e-3 (see `run --help`).
    bool const single = context.precision == Precision::f32;
    auto make = [single](char const* integrand, int dim, double rel, double max_evals) {
      Params p;
      p.integrand = integrand;
      p.dim = dim;
      p.tolerances.relative = single ? std::max(rel, 1e-3) : rel;
      p.options.max_evaluations = std::int64_t(max_evals);
      return p;
    };
    std::vector<Params> cases;
    switch (size) {
      case cli::Size::small:
        cases = {make("gaussian", 4, 1e-6, 5e7), make("oscillatory", 5, 1e-6, 5e7)};
        break;
      case cli::Size::medium:
        cases = {make("gaussian", 5, 1e-5, 1e9), make("product_peak", 4, 1e-6, 1e9), make("c0", 4, 1e-5, 1e9),
                 make("oscillatory", 6, 1e-6, 1e9)};
        break;
      case cli::Size::large:
        cases = {make("gaussian", 6, 1e-6, 1e10), make("corner_peak", 6, 1e-6, 1e10),
                 make("product_peak", 5, 1e-6, 1e10), make("oscillatory", 8, 1e-6, 1e10),
                 make("discontinuous", 4, 1e-4, 1e10)};
        break;
    }
    return run_cases(context, cases, "default");
  }

  std::string summarize(report::RunReport const& r) const override {
    if (r.results.contains("method") && r.results["method"] == "vegas" && r.results.contains("cases")) {
      auto const& c = r.results;
      auto const& first = c["cases"][0];
      std::string const worst =
          c["worst_true_error"].is_null()
              ? std::string("exact values unknown")
              : fmt::format("largest true error {:.2g} ({:.2g} errors)", c["worst_true_error"].get<double>(),
                            c["worst_true_error_in_errors"].get<double>());
      return fmt::format("{} integrals of {} {}-D (vegas, {} sampling): {} converged, {} sample points, {}",
                         c["integrals"].get<std::size_t>(), first["integrand"].get<std::string>(),
                         first["dim"].get<int>(), c["sweep_sampling"].get<std::string>(),
                         c["converged"].get<std::size_t>(), c["sample_points"].get<long long>(), worst);
    }
    // f3 and f4 have reference values in few dimensions only.
    auto true_error = [](nlohmann::json const& c) {
      return c["true_error"].is_null() ? std::string("exact value unknown")
                                       : fmt::format("true error {:.2g}", c["true_error"].get<double>());
    };
    if (r.results.contains("method") && r.results["method"] == "vegas") {
      auto const& c = r.results;
      return fmt::format(
          "{} {}-D (vegas): I = {:.12g} +- {:.2g} ({}), chi2/dof {:.2f}, {} iterations, {} evaluations, {}",
          c["integrand"].get<std::string>(), c["dim"].get<int>(), c["estimate"].get<double>(), c["error"].get<double>(),
          true_error(c), c["chi2_per_dof"].get<double>(), c["iterations"].get<int>(), c["evaluations"].get<long long>(),
          c["status"].get<std::string>());
    }
    auto one = [&](nlohmann::json const& c) {
      return fmt::format("{} {}-D: I = {:.12g} +- {:.2g} ({}), {} evaluations, {}", c["integrand"].get<std::string>(),
                         c["dim"].get<int>(), c["integral"].get<double>(), c["error_estimate"].get<double>(),
                         true_error(c), c["evaluations"].get<long long>(), c["status"].get<std::string>());
    };
    if (!r.results.contains("cases")) return one(r.results);
    auto const& cases = r.results["cases"];
    if (cases.size() > 4) {  // a sweep: one line for all of them, from run_cases' summary
      auto const& c = r.results;
      auto const& worst = c["worst_relative_true_error"];
      bool const partition = r.parameters.value("sweep_sampling", "") == "partition";
      return fmt::format("{} integrals of {} {}-D: {} converged, {} evaluations {}, {}", cases.size(),
                         cases[0]["integrand"].get<std::string>(), cases[0]["dim"].get<int>(),
                         c["converged"].get<std::size_t>(), static_cast<long long>(c["evaluations"].get<double>()),
                         partition ? "on one partition (each gives every value)" : "in all",
                         worst.is_null() ? std::string("exact values unknown")
                                         : fmt::format("largest relative true error {:.2g}", worst.get<double>()));
    }
    std::string s;
    for (auto const& c : r.results["cases"]) s += (s.empty() ? "" : "; ") + one(c);
    return s;
  }

  // Every rank holds the region lists; the rule's applications and phase 2's regions are split
  // (detail/phase1.hpp, detail/phase2.hpp).
  bool distributed() const override { return true; }

 private:
  // The runs of --sweep NAME:LO:HI:N from `base`: every a_i (or u_i) set to each value in turn;
  // refuses sweeps that would change nothing or that the integrand has no parameter for.
  std::vector<Params> sweep_cases(Params const& base, cli::SweepSpec const& sweep) const {
    auto const family = parse_family(base.integrand);
    require(sweep.name == "a" || sweep.name == "u", "--sweep '" + sweep_text_ + "': NAME must be a or u");
    require((sweep.name == "a" ? a_option_ : u_option_)->count() == 0,
            "--sweep " + sweep_text_ + " sets every " + sweep.name + "_i at each point: leave out --" + sweep.name);
    require(!family || !is_paper(*family),
            "--sweep: " + base.integrand + " has no parameters (sweeps are for the Genz families)");
    require(sweep.name != "u" || family != Family::corner_peak,
            "--sweep " + sweep_text_ + ": corner_peak has no location u (every point would be the same integral)");
    std::vector<Params> cases(sweep.n, base);
    for (int k = 0; k < sweep.n; ++k) {
      (sweep.name == "a" ? cases[k].a : cases[k].u) = std::vector<double>{sweep.value(k)};
      validate(cases[k], [&](std::string const& field) {
        return field == "a" && sweep.name == "a" ? "--sweep " + sweep_text_ : option_names(field);
      });
    }
    return cases;
  }

  // --method vegas: one integral (its samples split over the ranks), the deterministic method's
  // options refused.
  report::RunReport execute_vegas(cli::Context& context) {
    for (char const* name : {"--mode", "--error-estimate", "--rule", "--initial-regions", "--max-regions",
                             "--max-split", "--cuhre-average", "--max-phase1-iterations", "--heap-capacity",
                             "--max-memory-mb", "--max-host-memory-mb", "--team-size", "--concurrency"})
      require(app_->get_option(name)->count() == 0,
              std::string(name) + " applies to --method deterministic only (VEGAS has no regions)");
    Params p = params_;
    p.method = Method::vegas;
    p.vegas.max_evaluations = max_evals_;
    parse_box(p);
    if (rel_tol_option_->count() == 0) p.tolerances.relative = vegas_rel_tol;
    check_integrand_options(p);
    auto const& v = p.vegas;
    require(v.max_evaluations / (v.adaptation_iterations + 1) >= v.evaluations_per_iteration,
            fmt::format("--max-evals {}: below (--adaptation-iterations + 1) x --evals-per-iteration = {} (the "
                        "adaptation and one iteration to keep)",
                        v.max_evaluations, (v.adaptation_iterations + 1) * v.evaluations_per_iteration));
    if (!sweep_text_.empty()) return execute_vegas_sweep(context, p);
    require(sampling_option_->count() == 0, "--sweep-sampling applies to --sweep only (one integral runs by itself)");
    report::RunReport r;
    r.model = "cubature";
    r.timing_note = "vegas: wall time of the whole integration (every iteration ends in a copy to the host)";
    r.parameters = vegas_parameters_json(p);  // validates before any work
    auto const start = std::chrono::steady_clock::now();
    VegasRunResult const x = cubature::run_vegas(p, context.precision);
    r.phases.add("parity::cubature::vegas",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    auto const& res = x.integration;
    r.iterations = res.iterations;
    r.results = vegas_result_json(p, x);
    r.status = vegas_status(res);
    if (r.status != cli::status::converged && run::ranks::root())
      fmt::print(stderr,
                 "cubature: {} {}-D (vegas) stopped with status {} (error {:.3g}, tolerance {:.3g}, chi2/dof {:.3g}, "
                 "Q {:.3g})\n",
                 p.integrand, p.dim, r.status, res.error, res.tolerance, res.chi2_per_dof, res.q);
    if (context.output) {
      auto put = [&](char const* name, auto const& field) {
        context.output->npy(name, column(res.history, field), {res.history.size()});
      };
      put("vegas_estimate", [](VegasIteration const& s) { return s.estimate; });
      put("vegas_error", [](VegasIteration const& s) { return s.error; });
      put("vegas_evaluations", [](VegasIteration const& s) { return s.evaluations; });
      put("vegas_kept", [](VegasIteration const& s) { return s.adaptation ? 0.0 : 1.0; });
    }
    return r;
  }

  // --method vegas --sweep: the sweep's integrals as one family sharing the samples
  // (--sweep-sampling shared) or as one integrate_vegas call each (separate), timed alike: the
  // wall time of all of them, set-up included. Each has its own status and closed form.
  report::RunReport execute_vegas_sweep(cli::Context& context, Params const& base) {
    cli::SweepSpec const sweep = cli::parse_sweep(sweep_text_);
    std::vector<Params> const cases = sweep_cases(base, sweep);
    require(sampling_ != "partition",
            "--sweep-sampling partition is the deterministic method's (VEGAS shares one "
            "sampling with --sweep-sampling shared)");
    Sampling const sampling = sampling_ == "separate" ? Sampling::separate : Sampling::shared;
    std::size_t const m = cases.size();
    nlohmann::json parameters = nlohmann::json::array();
    for (auto const& p : cases) parameters.push_back(vegas_parameters_json(p));
    if (sampling == Sampling::shared) {
      // The family's samples x m values, and per cell (at most a quarter of the samples) 2 m terms,
      // m variances and the terms' block sums.
      double const per_iteration = double(base.vegas.evaluations_per_iteration);
      double const bytes = 8.0 * (per_iteration * double(m) + per_iteration / 4 * 3 * double(m) * 1.01);
      cli::require_memory(context, bytes, 0.0,
                          fmt::format("--sweep {} --sweep-sampling shared: {} integrands' values at {:g} evaluations "
                                      "per iteration",
                                      sweep_text_, m, per_iteration));
    }
    report::RunReport r;
    r.model = "cubature";
    r.timing_note = sampling == Sampling::shared
                        ? "vegas sweep, shared sampling: wall time of one integrate_vegas_family over every value "
                          "(one launch per iteration), set-up included"
                        : "vegas sweep, separate sampling: wall time of one integrate_vegas call per value, one "
                          "after another, set-up included";
    VegasFamilyOptions options;
    options.sampling = sampling;
    auto const start = std::chrono::steady_clock::now();
    std::vector<VegasRunResult> const x = run_vegas_family(cases, context.precision, options);
    r.phases.add("parity::cubature::vegas_sweep",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    nlohmann::json results = nlohmann::json::array();
    std::size_t converged = 0, known = 0;
    long long points = 0, evaluations = 0;
    double worst = 0, worst_relative = 0, worst_in_errors = 0;
    std::string status = cli::status::converged;
    for (std::size_t k = 0; k < m; ++k) {
      auto const& res = x[k].integration;
      results.push_back(vegas_result_json(cases[k], x[k]));
      std::string const s = vegas_status(res);
      converged += s == cli::status::converged ? 1 : 0;
      if (s != cli::status::converged && status == cli::status::converged) status = s;
      // Shared: every integrand is evaluated at the family's points.
      points = sampling == Sampling::shared ? res.evaluations : points + res.evaluations;
      evaluations += res.evaluations;
      r.iterations = sampling == Sampling::shared ? res.iterations : r.iterations + res.iterations;
      if (!std::isfinite(x[k].exact)) continue;
      double const e = std::abs(res.integral - x[k].exact);
      worst = std::max(worst, e);
      worst_relative = std::max(worst_relative, x[k].exact != 0 ? e / std::abs(x[k].exact) : e);
      worst_in_errors = std::max(worst_in_errors, res.error > 0 ? e / res.error : (e > 0 ? HUGE_VAL : 0.0));
      ++known;
    }
    auto or_null = [&](double v) { return known > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
    r.status = status;
    r.parameters = {{"cases", parameters},
                    {"sweep", {{"name", sweep.name}, {"lo", sweep.lo}, {"hi", sweep.hi}, {"n", sweep.n}}},
                    {"sweep_sampling", to_string(sampling)}};
    r.results = {{"cases", results},
                 {"method", "vegas"},
                 {"sweep_sampling", to_string(sampling)},
                 {"integrals", m},
                 {"converged", converged},
                 {"sample_points", points},
                 {"evaluations", evaluations},
                 {"iterations", r.iterations},
                 {"worst_true_error", or_null(worst)},
                 {"worst_relative_true_error", or_null(worst_relative)},
                 {"worst_true_error_in_errors", or_null(worst_in_errors)}};
    if (converged < m)
      fmt::print(stderr, "cubature: {} of {} integrals of {} {}-D (vegas, {} sampling) did not converge (first: {})\n",
                 m - converged, m, base.integrand, base.dim, to_string(sampling), status);
    if (context.output) {
      context.output->npy("sweep_estimate", column(x, [](VegasRunResult const& c) { return c.integration.integral; }),
                          {m});
      context.output->npy("sweep_error", column(x, [](VegasRunResult const& c) { return c.integration.error; }), {m});
      context.output->npy("sweep_exact", column(x, [](VegasRunResult const& c) { return c.exact; }), {m});
    }
    return r;
  }

  // The cases one after another, or in one run_batch or run_family call.
  enum class Batch { none, separate, family, partition };
  report::RunReport run_cases(cli::Context& context, std::vector<Params> const& cases, std::string const& tag,
                              Batch batch = Batch::none) {
    report::RunReport r;
    r.model = "cubature";
    r.timing_note =
        "each phase: wall time between two fences of the execution space (phase 1 breadth-first, "
        "phase 2 per-region heaps)";
    bool all_converged = true;
    nlohmann::json results = nlohmann::json::array();
    nlohmann::json parameters = nlohmann::json::array();
    for (auto const& p : cases) parameters.push_back(parameters_json(p));  // validates before any work
    {
      auto const& o = cases.front().options;
      // Only a GPU runs several integrals of a batch at once (integrate_batch).
      int const at_once =
          batch == Batch::separate && context.resources.device_memory_bytes > 0 ? std::max(concurrency_, 1) : 1;
      cli::require_memory(context, o.max_memory_mb * 1048576.0 * at_once, o.max_host_memory_mb * 1048576.0,
                          fmt::format("cubature with --max-memory-mb {} and --max-host-memory-mb {}", o.max_memory_mb,
                                      o.max_host_memory_mb));
    }
    std::string worst = cli::status::converged;
    std::vector<RunResult> batched;
    if (batch == Batch::separate)
      batched = run_batch(cases, context.precision, concurrency_, context.progress, r.phases);
    else if (batch == Batch::family || batch == Batch::partition)
      batched = run_family(cases, context.precision, context.progress, r.phases, batch == Batch::partition);
    for (std::size_t k = 0; k < cases.size(); ++k) {
      Params const& p = cases[k];
      RunResult const x =
          batch != Batch::none ? batched[k] : cubature::run(p, context.precision, context.progress, r.phases);
      auto const& res = x.integration;
      r.iterations += res.phase1_iterations;
      if (case_status(res) != cli::status::converged) {
        all_converged = false;
        if (worst == cli::status::converged) worst = case_status(res);
        // A warning, printed even with --quiet (by rank 0 only): the number is not to be trusted
        // to the tolerance.
        if (run::ranks::root())
          fmt::print(stderr, "cubature: {} {}-D stopped with status {} (error estimate {:.3g}, tolerance {:.3g})\n",
                     p.integrand, p.dim, case_status(res), res.error, res.tolerance);
      }
      context.progress.message(fmt::format(
          "cubature: {} {}-D, {} mode: {} phase-1 iterations, {} regions handed to "
          "phase 2, {} of {} evaluations in phase 2{}",
          p.integrand, p.dim, to_string(res.mode), res.phase1_iterations, res.phase2_regions, res.phase2_evaluations,
          res.evaluations, res.phase2_regrown > 0 ? fmt::format(", {} full heaps grown", res.phase2_regrown) : ""));
      results.push_back(result_json(p, x));
      if (context.output) {
        std::string const prefix = cases.size() > 1 ? fmt::format("{}{}_{}{}d_", tag, k, p.integrand, p.dim) : "";
        write_history(*context.output, prefix, res);
      }
    }
    r.status = all_converged ? std::string(cli::status::converged) : worst;
    if (cases.size() == 1) {
      r.parameters = parameters[0];
      r.results = results[0];
    } else {
      r.parameters = {{"cases", parameters}};
      r.results = {{"cases", results}};
      // The cases' summary, for tables over many values and the summary line.
      std::size_t converged = 0;
      double evaluations = 0;
      nlohmann::json worst_relative;  // null where no case has an exact value
      for (auto const& c : results) {
        converged += c["status"] == cli::status::converged;
        if (!c["relative_true_error"].is_null())
          worst_relative = worst_relative.is_null()
                               ? c["relative_true_error"].get<double>()
                               : std::max(worst_relative.get<double>(), c["relative_true_error"].get<double>());
        evaluations += c["evaluations"].get<double>();
      }
      // On one partition every call of the integrand gives all the values: one count.
      if (batch == Batch::partition) evaluations = results[0]["evaluations"].get<double>();
      r.results.update(
          {{"converged", converged}, {"worst_relative_true_error", worst_relative}, {"evaluations", evaluations}});
    }
    return r;
  }

  // --lower, --upper, --a and --u into p.
  void parse_box(Params& p) const {
    p.lower = cli::parse_reals(lower_text_, "--lower");
    p.upper = cli::parse_reals(upper_text_, "--upper");
    p.a = a_option_->count() > 0 ? cli::parse_reals(a_text_, "--a") : std::vector<double>{};
    p.u = cli::parse_reals(u_text_, "--u");
  }

  // Refuses the integrand's parameters where it has none, and a tolerance of 0 on both counts
  // (every method).
  void check_integrand_options(Params const& p) const {
    auto const family = parse_family(p.integrand);
    if (family && is_paper(*family))
      for (auto const* option : {a_option_, u_option_})
        require(option->count() == 0,
                option->get_name() + ": " + p.integrand +
                    " is one of the paper's fixed integrands and has no parameters (leave it out)");
    require(u_option_->count() == 0 || family != Family::corner_peak,
            "--u: corner_peak has no location parameter (leave it out)");
    require(p.tolerances.relative > 0 || p.tolerances.absolute > 0,
            "--rel-tol and --abs-tol are both 0: at least one must be > 0");
  }

  // Refuses what the chosen mode, rule or integrand would not use, and the combinations the
  // options' own ranges cannot see, naming the options as typed; before any work.
  void check_options(bool single) const {
    auto const& o = params_.options;
    auto const& tol = params_.tolerances;
    bool const paper = o.mode == Mode::paper;
    auto refuse_unless = [](CLI::Option const* option, bool applies, std::string const& when) {
      require(applies || option->count() == 0, option->get_name() + " " + when);
    };
    refuse_unless(rule_option_, !paper,
                  "applies to --mode improved only (the paper mode always uses CUHRE's degree-9 rule)");
    refuse_unless(initial_regions_option_, !paper,
                  "applies to --mode improved only (the paper mode's INIT-PARTITION follows --max-regions)");
    refuse_unless(host_memory_option_, !paper,
                  "applies to --mode improved only (the paper mode hands unfinished regions to phase 2)");
    for (auto const* option : paper_only_)
      refuse_unless(option, paper,
                    "applies to --mode paper only (the improved mode bisects while the list fits --max-memory-mb)");
    refuse_unless(cuhre_average_option_, paper, "applies to --mode paper only (phase 2's sequential CUHRE)");
    refuse_unless(concurrency_option_, !sweep_text_.empty(), "applies to --sweep only (one integral runs by itself)");
    refuse_unless(sampling_option_, !sweep_text_.empty(), "applies to --sweep only (one integral runs by itself)");
    refuse_unless(rule_option_, o.rule != Rule::degree9 || params_.dim >= 2,
                  "degree9 needs --dim 2 or more (in one dimension the degree-7 rule stands in)");
    bool const nine = uses_degree9(o, params_.dim);
    require(!(nine && o.error_estimate == ErrorEstimate::difference),
            "--error-estimate difference needs --rule degree7 or --mode paper (the degree-9 rule has no embedded "
            "degree-5 rule to take |I7 - I5| from)");
    check_integrand_options(params_);
    std::int64_t const points = nine ? rule9_points(params_.dim) : rule_points(params_.dim);
    require(o.max_evaluations >= points,
            fmt::format("--max-evals {}: below one application of the rule ({} points in {} dimensions)",
                        o.max_evaluations, points, params_.dim));
    require(o.heap_capacity != 1, "--heap-capacity 1: must be 0 (as many as --max-memory-mb allows) or in [2, 2^24]");
    if (single && rel_tol_option_->count() > 0 && tol.relative < float_floor && tol.absolute == 0)
      cli::warn(
          fmt::format("cubature --precision float --rel-tol {:g}: float's rounding holds the error estimates near "
                      "1e-4 of the integral, so this likely ends budget_exhausted (use --precision double)",
                      tol.relative));
  }

  // --rel-tol when not given: float's rounding stops the error estimates near 1e-4 of the integral
  // (5-D Genz cases: 4e-5 to 2e-4), so float gets 1e-3 as the `run` command's cases do.
  static constexpr double double_rel_tol = 1e-6, float_rel_tol = 1e-3, float_floor = 1e-4;
  // --method vegas's --rel-tol when not given: Monte Carlo's error falls as 1/sqrt(evaluations).
  static constexpr double vegas_rel_tol = 1e-3;

  Params params_;
  CLI::App* app_ = nullptr;
  std::string method_ = "deterministic";
  std::vector<CLI::Option*> vegas_only_;  // --seed, --evals-per-iteration, --adaptation-iterations, --restarts
  std::string lower_text_ = "0", upper_text_ = "1", a_text_, u_text_ = "0.5";
  CLI::Option* rel_tol_option_ = nullptr;
  CLI::Option* rule_option_ = nullptr;
  CLI::Option* host_memory_option_ = nullptr;
  CLI::Option* concurrency_option_ = nullptr;
  std::vector<CLI::Option*> paper_only_;  // --max-regions, --max-split
  CLI::Option* cuhre_average_option_ = nullptr;
  CLI::Option* initial_regions_option_ = nullptr;
  std::int64_t max_evals_ = 1000000000;
  std::string mode_ = "improved", error_estimate_ = "automatic";
  std::string rule_ = to_string(Options{}.rule);
  CLI::Option* a_option_ = nullptr;
  CLI::Option* u_option_ = nullptr;
  std::string sweep_text_;
  int concurrency_ = 0;
  std::string sampling_ = "shared";
  CLI::Option* sampling_option_ = nullptr;
};

}  // namespace

std::unique_ptr<cli::Command> make_command() { return std::make_unique<Command>(); }

}  // namespace parity::cubature
