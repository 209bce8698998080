// CLI for the cubature model: options, the JSON report, history arrays, summaries.
#include "models/cubature/command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "models/cubature/entry.hpp"
#include "models/cubature/params.hpp"
#include "parity/cli/numbers.hpp"
#include "parity/cli/sweep.hpp"
#include "parity/report/npy.hpp"
#include "parity/run/ranks.hpp"

namespace parity::cubature {
namespace {

nlohmann::json parameters_json(Params const& p) {
  Problem const q = validate(p);
  auto const& o = p.options;
  return {{"integrand", p.integrand},
          {"dim", p.dim},
          {"lower", q.lower},
          {"upper", q.upper},
          {"a", q.a},
          {"u", q.u},
          {"rel_tol", p.tolerances.relative},
          {"abs_tol", p.tolerances.absolute},
          {"max_evals", o.max_evaluations},
          {"initial_regions", o.initial_regions},
          {"max_regions", o.max_regions},
          {"phase2_regions", o.phase2_regions},
          {"max_split", o.max_split},
          {"max_phase1_iterations", o.max_phase1_iterations},
          {"heap_capacity", o.heap_capacity},
          {"max_memory_mb", o.max_memory_mb},
          {"max_host_memory_mb", o.max_host_memory_mb},
          {"team_size", o.team_size},
          {"mode", to_string(o.mode)},
          {"error_estimate", to_string(o.error_estimate)},
          {"rule", o.mode == Mode::paper || o.rule == Rule::degree7
                       ? "Genz-Malik degree 7 with embedded degree 5"
                       : "fully symmetric degree 9 (Genz & Malik) with null rules of degree 7, 5, 3, 1"},
          {"algorithm", o.mode == Mode::paper ? "two-phase (Arumugam et al. 2013), as published"
                                              : "two-phase (Arumugam et al. 2013): breadth-first phase 1 while the "
                                                "list fits max_memory_mb, PAGANI-style filtering, null-rule error "
                                                "estimate (Berntsen, Espelid & Genz 1991)"}};
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

nlohmann::json result_json(Params const& p, RunResult const& r) {
  auto const& x = r.integration;
  double const true_error = std::abs(x.integral - r.exact);
  bool const known = std::isfinite(r.exact);  // f3 and f4 have references for small n only
  auto or_null = [&](auto v) { return known ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"integrand", p.integrand},
          {"dim", p.dim},
          {"integral", x.integral},
          {"error_estimate", x.error},
          {"exact", or_null(r.exact)},
          {"true_error", or_null(true_error)},
          {"relative_true_error", or_null(r.exact != 0 ? true_error / std::abs(r.exact) : true_error)},
          {"estimate_bounds_true_error", or_null(true_error <= x.error)},
          {"tolerance", x.tolerance},
          {"evaluations", x.evaluations},
          {"regions", x.regions},
          {"regions_evaluated", x.regions_evaluated},
          {"status", case_status(x)},
          {"stopped_by", to_string(x.status)},
          {"phase1_iterations", x.phase1_iterations},
          {"phase2_regions", x.phase2_regions},
          {"phase2_budget_limited", x.phase2_budget_limited},
          {"phase2_storage_limited", x.phase2_storage_limited},
          {"phase2_batch", x.phase2_batch},
          {"phase2_rounds", x.phase2_rounds},
          {"heap_capacity", x.heap_capacity},
          {"phase1_capacity", x.phase1_capacity},
          {"filtered_regions", x.filtered_regions},
          {"parked_chunks", x.parked_chunks},
          {"peak_host_mb", x.peak_host_mb},
          {"unrefined_regions", x.unrefined_regions},
          {"mode", to_string(x.mode)},
          {"error_estimate_method", to_string(x.error_estimate)},
          {"rule", to_string(x.rule)},
          {"rule_points", x.points},
          // The work of the whole run (both phases), for the comparison runner's roofline.
          {"work", {{"flops", double(x.evaluations) * flops_per_evaluation(*parse_family(p.integrand), p.dim)}}}};
}

void write_history(report::OutputFolder& out, std::string const& prefix, Result const& r) {
  std::size_t const m = r.history.size();
  std::vector<double> regions(m), bad(m), integral(m), error(m), evaluations(m);
  for (std::size_t i = 0; i < m; ++i) {
    regions[i] = double(r.history[i].regions);
    bad[i] = double(r.history[i].bad);
    integral[i] = r.history[i].integral;
    error[i] = r.history[i].error;
    evaluations[i] = double(r.history[i].evaluations);
  }
  auto put = [&](char const* name, std::vector<double> const& v) { out.npy(prefix + name, v, {m}); };
  put("phase1_regions", regions);
  put("phase1_unfinished", bad);
  put("phase1_integral", integral);
  put("phase1_error", error);
  put("phase1_evaluations", evaluations);
}

class Command final : public cli::Command {
 public:
  std::string name() const override { return "cubature"; }
  std::string description() const override {
    return "Adaptive multidimensional cubature (Genz-Malik rule, two-phase parallel algorithm) of a built-in integrand";
  }

  void add_options(CLI::App& sub) override {
    sub.add_option("--integrand", params_.integrand,
                   "Genz family: oscillatory, product_peak, corner_peak, gaussian, c0, discontinuous; or the "
                   "paper's f1..f5 (unit cube, no parameters)")
        ->capture_default_str();
    sub.add_option("--dim", params_.dim, "Dimension n (1..16)")->capture_default_str();
    sub.add_option("--lower", params_.lower, "Lower bounds: one value or n, comma separated")
        ->delimiter(',')
        ->default_str("0");
    sub.add_option("--upper", params_.upper, "Upper bounds: one value or n, comma separated")
        ->delimiter(',')
        ->default_str("1");
    a_option_ =
        sub.add_option("--a", params_.a,
                       "Genz difficulty a_i: one value or n (default per family: oscillatory 2, product_peak 5, "
                       "corner_peak 1, gaussian 5, c0 2, discontinuous 1)")
            ->delimiter(',');
    u_option_ =
        sub.add_option("--u", params_.u, "Genz location u_i: one value or n")->delimiter(',')->default_str("0.5");
    sub.add_option("--rel-tol", params_.tolerances.relative, "Relative tolerance, in [0, 1)")->capture_default_str();
    sub.add_option("--abs-tol", params_.tolerances.absolute, "Absolute tolerance, >= 0")->capture_default_str();
    sub.add_option("--max-evals", max_evals_, "Most integrand evaluations (e.g. 1e8)")
        ->transform(cli::count<std::int64_t>(1))
        ->default_str("1e9");
    sub.add_option("--mode", mode_,
                   "improved (|I7 - I5| raised by null rules on coarse regions, breadth-first phase 1 while the list "
                   "fits --max-memory-mb, filtering) or paper (Arumugam et al. 2013 as published)")
        ->check(CLI::IsMember({"improved", "paper"}))
        ->capture_default_str();
    sub.add_option("--error-estimate", error_estimate_,
                   "automatic (null_rules in improved mode, difference in paper mode), difference (|I7 - I5|), "
                   "null_rules or two_level (null rules unfloored where asymptotic, checked at every split)")
        ->check(CLI::IsMember({"automatic", "difference", "null_rules", "two_level"}))
        ->capture_default_str();
    sub.add_option("--rule", rule_,
                   "Improved mode's cubature rule: degree9 (fully symmetric, 273-1105 points at n = 5-8, null-rule "
                   "estimate) or degree7 (Genz-Malik, 93-401 points); paper mode always uses degree7")
        ->check(CLI::IsMember({"degree7", "degree9"}))
        ->capture_default_str();
    auto& o = params_.options;
    sub.add_option("--initial-regions", o.initial_regions,
                   "Phase 1 starts from an even partition of about this many regions")
        ->capture_default_str();
    sub.add_option("--max-regions", o.max_regions, "Lmax: phase-1 splits aim at a list of this many regions")
        ->capture_default_str();
    sub.add_option("--phase2-regions", o.phase2_regions, "Hand over to phase 2 once this many regions are unfinished")
        ->capture_default_str();
    sub.add_option("--max-split", o.max_split, "Most pieces a region is cut into in one phase-1 step")
        ->capture_default_str();
    sub.add_option("--max-phase1-iterations", o.max_phase1_iterations, "Phase-1 iteration limit")
        ->capture_default_str();
    sub.add_option("--heap-capacity", o.heap_capacity,
                   "Subregions each phase-2 region may hold (0: as many as --max-memory-mb allows)")
        ->capture_default_str();
    sub.add_option("--max-memory-mb", o.max_memory_mb,
                   "Memory for the phase-2 heaps of one batch (MB); improved mode: also for the phase-1 region lists")
        ->capture_default_str();
    sub.add_option("--max-host-memory-mb", o.max_host_memory_mb,
                   "Improved mode: host memory for unevaluated regions parked while the list is refined in pieces "
                   "that fit --max-memory-mb (MB; 0: hand the list to phase 2's heaps instead)")
        ->capture_default_str();
    sub.add_option("--team-size", o.team_size, "Threads per region (0: 1 on CPUs, 32 on GPUs)")->capture_default_str();
    sub.add_option("--sweep", sweep_text_,
                   "Integrate a batch, one integral per value: NAME:LO:HI:N with NAME a (every a_i set to the "
                   "value) or u (every u_i); Genz families only");
    sub.add_option("--concurrency", concurrency_,
                   "With --sweep: integrals in flight at once on a GPU, each on its own stream (0 or 1: one at a "
                   "time, the fastest measured but for tiny integrals; host backends run them one after another)")
        ->capture_default_str();
  }

  report::RunReport execute(cli::Context& context) override {
    params_.options.max_evaluations = max_evals_;
    params_.options.mode = mode_ == "paper" ? Mode::paper : Mode::improved;
    params_.options.rule = rule_ == "degree9" ? Rule::degree9 : Rule::degree7;
    params_.options.error_estimate = error_estimate_ == "difference"   ? ErrorEstimate::difference
                                     : error_estimate_ == "null_rules" ? ErrorEstimate::null_rules
                                     : error_estimate_ == "two_level"  ? ErrorEstimate::two_level
                                                                       : ErrorEstimate::automatic;
    require(params_.tolerances.relative < 1,
            "--rel-tol must lie in [0, 1) (a relative tolerance of 1 or more accepts any estimate)");
    auto const family = parse_family(params_.integrand);
    if (family && is_paper(*family))
      for (auto* o : {a_option_, u_option_})
        require(o->count() == 0, o->get_name() + ": " + params_.integrand +
                                     " is one of the paper's fixed integrands and has no parameters (leave it out)");
    require(concurrency_ >= 0 && concurrency_ <= 1024, "--concurrency must be in [0, 1024]");
    if (sweep_text_.empty()) return run_cases(context, {params_}, "");
    cli::SweepSpec const sweep = cli::parse_sweep(sweep_text_);
    require(sweep.name == "a" || sweep.name == "u", "--sweep '" + sweep_text_ + "': NAME must be a or u");
    require((sweep.name == "a" ? a_option_ : u_option_)->count() == 0,
            "--sweep " + sweep_text_ + " sets every " + sweep.name + "_i at each point: leave out --" + sweep.name);
    require(!family || !is_paper(*family),
            "--sweep: " + params_.integrand + " has no parameters (sweeps are for the Genz families)");
    std::vector<Params> cases(sweep.n, params_);
    for (int k = 0; k < sweep.n; ++k)
      (sweep.name == "a" ? cases[k].a : cases[k].u) = std::vector<double>{sweep.value(k)};
    auto r = run_cases(context, cases, "sweep", true);
    r.parameters["sweep"] = {{"name", sweep.name}, {"lo", sweep.lo}, {"hi", sweep.hi}, {"n", sweep.n}};
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
    auto one = [](nlohmann::json const& c) {
      double const true_error = c["true_error"].is_null() ? std::nan("") : c["true_error"].get<double>();
      return fmt::format("{} {}-D: I = {:.12g} +- {:.2g} (true error {:.2g}), {} evaluations, {}",
                         c["integrand"].get<std::string>(), c["dim"].get<int>(), c["integral"].get<double>(),
                         c["error_estimate"].get<double>(), true_error, c["evaluations"].get<long long>(),
                         c["status"].get<std::string>());
    };
    if (!r.results.contains("cases")) return one(r.results);
    auto const& cases = r.results["cases"];
    if (cases.size() > 4) {  // a sweep: one line for all of them
      std::size_t converged = 0;
      long long evaluations = 0;
      double worst = 0;
      for (auto const& c : cases) {
        converged += c["status"] == cli::status::converged ? 1 : 0;
        evaluations += c["evaluations"].get<long long>();
        if (!c["relative_true_error"].is_null()) worst = std::max(worst, c["relative_true_error"].get<double>());
      }
      return fmt::format(
          "{} integrals of {} {}-D: {} converged, {} evaluations in all, largest relative true error {:.2g}",
          cases.size(), cases[0]["integrand"].get<std::string>(), cases[0]["dim"].get<int>(), converged, evaluations,
          worst);
    }
    std::string s;
    for (auto const& c : r.results["cases"]) s += (s.empty() ? "" : "; ") + one(c);
    return s;
  }

  // Every rank holds the region lists; the rule's applications and phase 2's regions are split
  // (detail/phase1.hpp, detail/phase2.hpp).
  bool distributed() const override { return true; }

 private:
  // The cases one after another, or (batch) in one run_batch call.
  report::RunReport run_cases(cli::Context& context, std::vector<Params> const& cases, std::string const& tag,
                              bool batch = false) {
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
      cli::require_memory(context, o.max_memory_mb * 1048576.0 * (batch ? std::max(concurrency_, 1) : 1),
                          o.max_host_memory_mb * 1048576.0,
                          fmt::format("cubature with --max-memory-mb {} and --max-host-memory-mb {}", o.max_memory_mb,
                                      o.max_host_memory_mb));
    }
    std::string worst = cli::status::converged;
    std::vector<RunResult> batched;
    if (batch) batched = run_batch(cases, context.precision, concurrency_, context.progress, r.phases);
    for (std::size_t k = 0; k < cases.size(); ++k) {
      Params const& p = cases[k];
      RunResult const x = batch ? batched[k] : cubature::run(p, context.precision, context.progress, r.phases);
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
    }
    return r;
  }

  Params params_;
  std::int64_t max_evals_ = 1000000000;
  std::string mode_ = "improved", error_estimate_ = "automatic";
  std::string rule_ = to_string(Options{}.rule);
  CLI::Option* a_option_ = nullptr;
  CLI::Option* u_option_ = nullptr;
  std::string sweep_text_;
  int concurrency_ = 0;
};

}  // namespace

std::unique_ptr<cli::Command> make_command() { return std::make_unique<Command>(); }

}  // namespace parity::cubature
