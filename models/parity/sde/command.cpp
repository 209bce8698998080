#include "parity/sde/command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "parity/cli/numbers.hpp"
#include "parity/cli/option_names.hpp"
#include "parity/report/npy.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/ranks.hpp"
#include "parity/sde/command_options.hpp"
#include "parity/sde/ensemble_layout.hpp"
#include "parity/sde/entry.hpp"
#include "parity/sde/params.hpp"
#include "parity/sde/report.hpp"
#include "parity/sde/result.hpp"

namespace parity::sde {
namespace {

constexpr double paper_josephson_srk2_flops = 79;  // Januszewski & Kostur (2010), appendix
// Their counts for the Kuramoto programs (SRK2, per oscillator and step, Fig. 5 and appendix):
// PROG2, all pairs, 44 + 6N; PROG3, mean field through the order parameter (their Eq. 4.2), 66.
constexpr double paper_kuramoto_all_pairs_flops(double n) { return 44 + 6 * n; }
constexpr double paper_kuramoto_mean_field_flops = 66;
// Sums per path of the covariance of (x, v): x, v, x x, x v, v v (SampleTerms, observables.hpp).
constexpr int sums_with_covariance = 5;
constexpr char const* noise_law_help =
    "gaussian (normals by Box-Muller) or five-point (discrete variates with the normal's moments through the "
    "fifth: the same ensemble statistics to the scheme's weak order, much cheaper; no single-path accuracy)";

double phase_seconds(report::RunReport const& r, std::string const& name) { return r.phases.seconds(name); }

// The options that set the fields validate() names (the rest: "--" and the field with dashes).
cli::OptionNames const josephson_options = {{"a", "--amplitude (-a)"},
                                            {"f", "--force (-f)"},
                                            {"D", "--noise (-D)"},
                                            {"transient_periods", "--transient"},
                                            {"sweeps", "--sweep"}};
cli::OptionNames const kuramoto_options = {
    {"oscillators", "--oscillators (-N)"}, {"K", "--coupling-strength (-K)"}, {"D", "--noise (-D)"}};

// Memory of an ensemble run: what integrate() allocates (ensemble_device_bytes, from the same
// layout) and `extra` device bytes of the system; on the host the copies of the moments and
// histogram (results, arrays, report) and, on several ranks, the chunk sums gathered.
void require_ensemble_memory(cli::Context const& context, long paths, long samples, long points, int dim, int bins,
                             double extra, std::string const& what, int terms = 0, double kept = 0,
                             int density_bins = 0) {
  EnsembleShape shape;
  shape.density_bins = density_bins;
  shape.terms = terms;
  shape.kept = kept;
  shape.points = points;
  shape.paths = paths;
  shape.dim = dim;
  shape.samples = samples;
  shape.bins = bins;
  shape.real_bytes = context.precision == Precision::f32 ? 4 : 8;
  shape.ranks = run::ranks::size();
  // Host backends' scatter views keep a histogram per thread.
  shape.histogram_copies = context.resources.device_memory_bytes > 0 ? 1 : 1 + context.resources.concurrency;
  double const device = ensemble_device_bytes(shape) + extra;
  double const chunk_sums = shape.ranks > 1 ? 2.0 * double(points) * moment_chunks(paths) * 2 * dim * 8 : 0.0;
  double const host = double(samples) * double(points) * (2 * dim + terms) * 8 * 3 + double(points) * bins * 4 +
                      chunk_sums + double(points) * kept * 8 * 3 +
                      (density_bins > 0 ? double(samples) * double(points) * (density_bins + 2) * 8.0 * 2 : 0.0);
  cli::require_memory(context, device, host, what);
}

// Rates, and the work of the timed integration phase for the comparison runner's roofline.
void add_rates(nlohmann::json& results, double steps_total, std::string const& phase, double seconds,
               double flops_per_step, double bytes_per_step) {
  results["work"] = {
      {"flops", steps_total * flops_per_step}, {"bytes", steps_total * bytes_per_step}, {"phase", phase}};
  results["steps_total"] = steps_total;
  results["integrate_seconds"] = seconds;
  results["flops_per_step"] = flops_per_step;
  results["bytes_per_step"] = bytes_per_step;
  if (seconds > 0) {
    results["steps_per_second"] = steps_total / seconds;
    results["gflops"] = steps_total * flops_per_step / seconds * 1e-9;
  }
}

// ----------------------------------------------------------------------------------- josephson

class JosephsonCommand final : public cli::Command {
 public:
  std::string name() const override { return "josephson"; }
  std::string description() const override {
    return "Noisy driven Josephson junction x'' + gamma x' = -V'(x) + a cos(omega t) + f + sqrt(2 gamma D) xi, "
           "V = sin(2 pi x): ensembles and parameter sweeps, asymptotic mean velocity <<v>>";
  }

  void add_options(CLI::App& sub) override {
    fixed_["gamma"] = sub.add_option("--gamma", p_.gamma, "Damping gamma")->capture_default_str();
    fixed_["a"] = sub.add_option("--amplitude,-a", p_.a, "Drive amplitude a")->capture_default_str();
    sub.add_option("--omega", p_.omega, "Drive angular frequency omega")->capture_default_str();
    fixed_["D"] =
        sub.add_option("--noise,-D", p_.D, "Noise intensity D (thermal, sqrt(2 gamma D) xi)")->capture_default_str();
    fixed_["f"] = sub.add_option("--force,-f", p_.f, "Constant bias force f")->capture_default_str();
    sub.add_option("--steps-per-period", p_.steps_per_period, "Time steps per drive period (dt = 2 pi / omega / this)")
        ->transform(cli::count<int>(4, 1000000))
        ->capture_default_str();
    sub.add_option("--periods", p_.periods, "Run length in drive periods (times --steps-per-period at most 2^40)")
        ->transform(cli::count<long>(1, long(1) << 38))
        ->capture_default_str();
    sub.add_option("--transient", p_.transient_periods, "Periods skipped before averaging <<v>> (below --periods)")
        ->transform(cli::count<long>(0, long(1) << 38))
        ->capture_default_str();
    sub.add_option("--paths", p_.paths,
                   "Trajectories per parameter value (paper: 2^19; at least 2 for an error bar; times the sweep "
                   "points below 2^31)")
        ->transform(cli::count<int>(1))
        ->capture_default_str();
    sub.add_option("--sample-every", p_.sample_every, "Steps between on-device ensemble samples")
        ->transform(cli::count<int>(1))
        ->capture_default_str();
    sub.add_option("--bins", p_.bins, "Bins of the histogram of x mod 1 at the end")
        ->transform(cli::count<int>(1, 100000))
        ->capture_default_str();
    sub.add_option("--seed", p_.seed, "Random seed (Philox key)")->capture_default_str();
    sub.add_option("--stepper", p_.stepper,
                   "srk2 (2nd-order stochastic Runge-Kutta), euler (Euler-Maruyama), milstein (strong order 1) or "
                   "weak2 (Platen's weak order 2)")
        ->check(CLI::IsMember({"srk2", "euler", "milstein", "weak2"}))
        ->capture_default_str();
    noise_law_ = sub.add_option("--noise-law", p_.noise_law, noise_law_help)
                     ->check(CLI::IsMember({"gaussian", "five-point"}))
                     ->capture_default_str();
    sub.add_option("--sweep", sweep_text_,
                   "Sweep a parameter, NAME:LO:HI:N with NAME in a, f, D, gamma; twice for a 2-D sweep "
                   "(all points in one launch)");
    sub.add_flag("--no-covariance", no_covariance_,
                 "Reduce only the mean and variance of x and v at each sample (no covariance, no standard errors)");
    sub.add_option("--terminal-states", p_.terminal_states,
                   "Write the final (x, v) of the first N paths of each sweep point to "
                   "terminal_states.npy in the --output folder")
        ->transform(cli::count<int>(0))
        ->capture_default_str();
    sub.add_option("--trajectories", p_.trajectories,
                   "Write the unwrapped x of the first N paths of each sweep point at every sample to "
                   "trajectories.npy in the --output folder")
        ->transform(cli::count<int>(0))
        ->capture_default_str();
    density_range_ = sub.add_option("--density-range", density_text_,
                                    "XMIN,XMAX: write density.npy, the histogram of the unwrapped x over "
                                    "[XMIN, XMAX) (periods of the potential) at every sample, to the --output "
                                    "folder (off by default)");
    density_bins_ = sub.add_option("--density-bins", p_.density_bins,
                                   "Bins of --density-range (default: one per period, XMAX - XMIN)")
                        ->transform(cli::count<int>(1, 100000));
  }

  report::RunReport execute(cli::Context& context) override {
    p_.sweeps.clear();
    for (auto const& s : sweep_text_) {
      p_.sweeps.push_back(parse_sweep(s));
      auto const it = fixed_.find(p_.sweeps.back().name);
      if (it != fixed_.end() && it->second->count() > 0)
        throw InvalidInput(fmt::format("--sweep {} sets {} at every sweep point: leave out {}", s,
                                       p_.sweeps.back().name, it->second->get_name()));
    }
    bool swept_noise = false;
    for (auto const& s : p_.sweeps) swept_noise = swept_noise || (s.name == "D" && (s.lo > 0 || s.hi > 0));
    require_noise(noise_law_, p_.D > 0 || swept_noise, "--noise (-D) is 0");
    require(p_.terminal_states == 0 || context.output != nullptr,
            "--terminal-states writes terminal_states.npy into the --output folder: give one");
    parse_density();
    require((p_.trajectories == 0 && p_.density_bins == 0) || context.output != nullptr,
            "--trajectories and --density-range write .npy files into the --output folder: give one");
    p_.covariance = !no_covariance_;
    return solve_and_report(p_, context);
  }

  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    JosephsonParams p;
    p.paths = size == cli::Size::small ? 1 << 12 : (size == cli::Size::medium ? 1 << 16 : 1 << 19);
    p.periods = size == cli::Size::small ? 100 : (size == cli::Size::medium ? 500 : 2000);
    p.transient_periods = p.periods / 10;
    return solve_and_report(p, context);
  }

  std::string summarize(report::RunReport const& r) const override {
    auto const& res = r.results;
    auto const& v = res["mean_velocity"];
    std::string s;
    auto number = [](nlohmann::json const& x, char const* format) {
      return x.is_number() && std::isfinite(x.get<double>()) ? fmt::format(fmt::runtime(format), x.get<double>())
                                                             : std::string("n/a");
    };
    if (v.size() == 1)
      s = "<<v>> = " + number(v[0], "{:.4f}") + " +- " + number(res["mean_velocity_error"][0], "{:.4f}");
    else {
      double lo = 1e300, hi = -1e300;
      for (auto const& x : v)
        if (x.is_number()) lo = std::min(lo, x.get<double>()), hi = std::max(hi, x.get<double>());
      s = fmt::format("<<v>> in [{:.4f}, {:.4f}] over {} sweep points", lo, hi, v.size());
    }
    if (res.contains("steps_per_second")) s += fmt::format(", {:.3g} steps/s", res["steps_per_second"].get<double>());
    return s;
  }

  bool distributed() const override { return true; }  // paths split across ranks (ensemble.hpp)

 private:
  report::RunReport solve_and_report(JosephsonParams const& p, cli::Context& context) {
    validate(p, josephson_options);
    report::RunReport r;
    r.model = "josephson";
    r.parameters = {{"gamma", p.gamma},
                    {"a", p.a},
                    {"omega", p.omega},
                    {"D", p.D},
                    {"f", p.f},
                    {"steps_per_period", p.steps_per_period},
                    {"periods", p.periods},
                    {"transient_periods", p.transient_periods},
                    {"paths", p.paths},
                    {"sample_every", p.sample_every},
                    {"bins", p.bins},
                    {"seed", p.seed},
                    {"stepper", p.stepper},
                    {"noise_law", p.noise_law},
                    {"covariance", p.covariance},
                    {"terminal_states", p.terminal_states},
                    {"trajectories", p.trajectories},
                    {"density_bins", p.density_bins},
                    {"initial_conditions", "x uniform in [0,1), v uniform in [-2,2)"}};
    if (p.density_bins > 0) r.parameters["density_range"] = {p.density_lo, p.density_hi};
    nlohmann::json sweeps = nlohmann::json::array();
    for (auto const& s : p.sweeps) sweeps.push_back({{"name", s.name}, {"lo", s.lo}, {"hi", s.hi}, {"n", s.n}});
    r.parameters["sweeps"] = sweeps;
    {
      double points = 1;
      for (auto const& s : p.sweeps) points *= s.n;
      double const steps = double(p.periods) * p.steps_per_period;
      long const samples = (p.periods * p.steps_per_period + p.sample_every - 1) / p.sample_every;
      double const drive_table = double(p.steps_per_period) * (context.precision == Precision::f32 ? 4 : 8);
      require_ensemble_memory(context, p.paths, samples, long(points), 2, p.bins, drive_table,
                              fmt::format("josephson with --paths {} x {} sweep points", p.paths, points),
                              p.covariance ? sums_with_covariance : 0,
                              2.0 * p.terminal_states + 2.0 * double(samples) * p.trajectories, p.density_bins);
      double const path_steps = points * p.paths * steps;
      if (path_steps > 1e14)
        cli::warn(
            fmt::format("josephson: {:.3g} path steps (--paths x sweep points x --periods x "
                        "--steps-per-period); this takes very long",
                        path_steps));
    }

    auto const res = run(p, context.precision, context.progress, r.phases);
    auto const& e = res.ensemble;
    r.iterations = res.steps;
    r.timing_note =
        "each phase: wall time between two fences; integrate = all steps plus the on-device sampling "
        "every sample_every steps";
    int const P = e.params, dim = e.dim, S = e.samples;
    std::vector<double> vbar(P), verr(P), xfinal(P), vfinal(P), xvar(P), vvar(P);
    for (int q = 0; q < P; ++q) {
      vbar[q] = e.time_average[q * dim + 1];
      // The spread of one path's average says nothing: with one path the error bar is undefined.
      verr[q] = p.paths >= 2 ? e.time_average_error[q * dim + 1] : std::numeric_limits<double>::quiet_NaN();
      std::size_t const last = (std::size_t(S - 1) * P + q) * dim;
      xfinal[q] = e.mean[last];
      vfinal[q] = e.mean[last + 1];
      xvar[q] = e.variance[last];
      vvar[q] = e.variance[last + 1];
    }
    auto& out = r.results;
    out["dt"] = res.dt;
    out["steps"] = res.steps;
    out["paths_total"] = res.paths_total;
    out["sweep_points"] = P;
    out["sweep_axes"] = nlohmann::json::array();
    for (std::size_t i = 0; i < res.axis_names.size(); ++i)
      out["sweep_axes"].push_back({{"name", res.axis_names[i]}, {"values", res.axis_values[i]}});
    out["mean_velocity"] = vbar;
    out["mean_velocity_error"] = verr;
    out["mean_velocity_note"] =
        "<<v>>: time average of v over steps after the transient, averaged over paths; "
        "error = standard deviation of the per-path averages / sqrt(paths); null (undefined) "
        "with one path";
    out["final_mean_x"] = xfinal;
    out["final_variance_x"] = xvar;
    out["final_mean_v"] = vfinal;
    out["final_variance_v"] = vvar;
    if (!e.covariance.empty()) {
      // Standard errors sqrt(variance / (paths - 1)) and the covariance of x and v at the end.
      std::vector<double> xerr(P), verr_final(P), cxv(P);
      for (int q = 0; q < P; ++q) {
        std::size_t const last = std::size_t(S - 1) * P + q;
        xerr[q] = e.mean_error[last * dim];
        verr_final[q] = e.mean_error[last * dim + 1];
        cxv[q] = e.covariance[last * dim * dim + 1];
      }
      out["final_mean_x_error"] = xerr;
      out["final_mean_v_error"] = verr_final;
      out["final_covariance_xv"] = cxv;
    }
    out["histogram_bins"] = e.bins;
    if (P == 1) out["histogram"] = e.histogram;
    out["flops_per_step_paper"] =
        p.stepper == "srk2" ? nlohmann::json(paper_josephson_srk2_flops) : nlohmann::json(nullptr);
    out["flops_convention"] =
        "add/sub/mul 1, fma 2, sin/cos/log/sqrt 1; Box-Muller counted (five-point variates 0), Philox integer ops not";
    double const steps_total = double(res.steps) * double(res.paths_total);
    add_rates(out, steps_total, "parity::josephson::integrate", phase_seconds(r, "parity::josephson::integrate"),
              res.flops_per_step, res.bytes_per_step);
    if (p.stepper == "srk2" && out.contains("steps_per_second"))
      out["gflops_paper_count"] = out["steps_per_second"].get<double>() * paper_josephson_srk2_flops * 1e-9;

    r.status = cli::status::ok;
    if (!all_finite(vbar) || !all_finite(xfinal) || !all_finite(vfinal))
      mark_non_finite(r,
                      "<<v>> or the final ensemble mean is NaN or infinite: the integration diverged (check "
                      "--gamma, --amplitude, --force and --steps-per-period)");
    if (context.output) write_arrays(*context.output, res, p.paths >= 2);
    return r;
  }

  // --density-range XMIN,XMAX (and --density-bins) into p_; bins 0 (off) without a range.
  void parse_density() {
    p_.density_lo = p_.density_hi = 0;
    if (density_range_->count() == 0) {
      require(density_bins_->count() == 0, "--density-bins needs --density-range XMIN,XMAX");
      p_.density_bins = 0;
      return;
    }
    std::string const& t = density_text_;
    auto const comma = t.find(',');
    char* end = nullptr;
    bool ok = comma != std::string::npos && comma > 0;
    if (ok) {
      std::string const lo = t.substr(0, comma), hi = t.substr(comma + 1);
      p_.density_lo = std::strtod(lo.c_str(), &end);
      ok = *end == '\0';
      p_.density_hi = std::strtod(hi.c_str(), &end);
      ok = ok && !hi.empty() && *end == '\0';
    }
    ok = ok && std::isfinite(p_.density_lo) && std::isfinite(p_.density_hi) && p_.density_lo < p_.density_hi;
    require(ok, fmt::format("--density-range {}: expected XMIN,XMAX (periods of the potential) with XMIN < XMAX", t));
    if (density_bins_->count() == 0) {
      double const width = p_.density_hi - p_.density_lo;
      require(
          width == std::round(width) && width <= 100000,
          fmt::format("--density-range {}: not a whole number of periods (at most 100000); give --density-bins", t));
      p_.density_bins = int(width);
    }
  }

  static void write_arrays(report::OutputFolder& out, JosephsonResult const& res, bool error_defined) {
    auto const& e = res.ensemble;
    int const P = e.params, dim = e.dim, S = e.samples;
    std::vector<std::size_t> pshape;
    for (auto const& v : res.axis_values) pshape.push_back(v.size());
    auto with = [&](std::vector<std::size_t> front, std::vector<std::size_t> back) {
      for (auto b : back) front.push_back(b);
      return front;
    };
    std::vector<double> vbar(P), verr(P);
    for (int q = 0; q < P; ++q) {
      vbar[q] = e.time_average[q * dim + 1];
      verr[q] = error_defined ? e.time_average_error[q * dim + 1] : std::numeric_limits<double>::quiet_NaN();
    }
    out.npy("mean_velocity", vbar, pshape.empty() ? std::vector<std::size_t>{1} : pshape);
    out.npy("mean_velocity_error", verr, pshape.empty() ? std::vector<std::size_t>{1} : pshape);
    for (std::size_t i = 0; i < res.axis_names.size(); ++i)
      out.npy("sweep_" + res.axis_names[i], res.axis_values[i], {res.axis_values[i].size()});
    std::vector<double> t(S);
    for (int s = 0; s < S; ++s) t[s] = double(e.sample_steps[s]) * res.dt;
    out.npy("t", t, {std::size_t(S)});
    char const* names[2] = {"x", "v"};
    for (int k = 0; k < dim; ++k) {
      std::vector<double> m(std::size_t(S) * P), v(std::size_t(S) * P);
      for (std::size_t i = 0; i < m.size(); ++i) m[i] = e.mean[i * dim + k], v[i] = e.variance[i * dim + k];
      out.npy(std::string("mean_") + names[k], m, with({std::size_t(S)}, pshape));
      out.npy(std::string("variance_") + names[k], v, with({std::size_t(S)}, pshape));
    }
    if (!e.covariance.empty()) {
      std::vector<double> c(std::size_t(S) * P), ex(c.size()), ev(c.size());
      for (std::size_t i = 0; i < c.size(); ++i)
        c[i] = e.covariance[i * dim * dim + 1], ex[i] = e.mean_error[i * dim], ev[i] = e.mean_error[i * dim + 1];
      out.npy("covariance_xv", c, with({std::size_t(S)}, pshape));
      out.npy("mean_error_x", ex, with({std::size_t(S)}, pshape));
      out.npy("mean_error_v", ev, with({std::size_t(S)}, pshape));
    }
    if (e.terminal_paths > 0)
      out.npy("terminal_states", e.terminal_states, with(pshape, {std::size_t(e.terminal_paths), std::size_t(dim)}));
    if (!e.trajectories.empty()) {
      std::vector<double> tx(e.trajectories.size() / dim);
      for (std::size_t i = 0; i < tx.size(); ++i) tx[i] = e.trajectories[i * dim];
      out.npy("trajectories", tx, {std::size_t(S), std::size_t(P), std::size_t(e.trajectory_paths)});
    }
    if (e.density_bins > 0) {
      int const B = e.density_bins;
      std::vector<double> edges(B + 1);
      for (int b = 0; b <= B; ++b) edges[b] = e.density_lo + (e.density_hi - e.density_lo) * b / B;
      out.npy("density", std::span<const std::int32_t>(e.density), {std::size_t(S), std::size_t(P), std::size_t(B)});
      out.npy("density_outside", std::span<const std::int32_t>(e.density_outside), {std::size_t(S), std::size_t(P), 2});
      out.npy("density_edges", edges, {edges.size()});
    }
    std::vector<double> centers(e.bins);
    for (int b = 0; b < e.bins; ++b) centers[b] = (b + 0.5) / e.bins;
    out.npy("x_bins", centers, {centers.size()});
    out.npy("histogram", std::span<const std::int32_t>(e.histogram), with(pshape, {std::size_t(e.bins)}));
  }

  JosephsonParams p_;
  CLI::Option* noise_law_ = nullptr;
  bool no_covariance_ = false;
  CLI::Option* density_range_ = nullptr;
  CLI::Option* density_bins_ = nullptr;
  std::string density_text_;
  std::vector<std::string> sweep_text_;
  std::map<std::string, CLI::Option*> fixed_;  // the options a --sweep of that name replaces
};

// ------------------------------------------------------------------------------------ kuramoto

// Stationary order parameter of the noisy Kuramoto model with identical oscillators for N -> oo:
// P(x) ~ exp((K r / D) cos x), so r = I1(K r / D) / I0(K r / D); r = 0 for K <= 2 D.
double kuramoto_theory_r(double K, double D) {
  if (D <= 0) return 1.0;
  double const a = K / D;
  if (a <= 2) return 0.0;
  double r = 1.0;
  for (int it = 0; it < 10000; ++it) {
    double const z = a * r;
    double const next = z > 700 ? 1.0 - 0.5 / z : std::cyl_bessel_i(1.0, z) / std::cyl_bessel_i(0.0, z);
    if (std::abs(next - r) < 1e-14) return next;
    r = next;
  }
  return r;
}

class KuramotoCommand final : public cli::Command {
 public:
  std::string name() const override { return "kuramoto"; }
  std::string description() const override {
    return "Noisy Kuramoto model gamma x_i' = omega_i + (K/N) sum_j sin(x_j - x_i) + sqrt(2 gamma D) xi_i: order "
           "parameter r(t) and phase density, mean-field or all-pairs kernel";
  }

  void add_options(CLI::App& sub) override {
    sub.add_option("--oscillators,-N", p_.oscillators, "Number of oscillators N (paper: 2^24; all pairs: at most 2^20)")
        ->transform(cli::count<int>(2, 1 << 30))
        ->capture_default_str();
    sub.add_option("--coupling-strength,-K", p_.K, "Coupling K (K_ij = K / N)")->capture_default_str();
    sub.add_option("--gamma", p_.gamma, "Friction gamma")->capture_default_str();
    sub.add_option("--noise,-D", p_.D, "Noise intensity D (the paper's T with gamma = 1)")->capture_default_str();
    sub.add_option("--omega-mean", p_.omega_mean, "Mean natural frequency")->capture_default_str();
    sub.add_option("--omega-spread", p_.omega_spread, "Standard deviation of the natural frequencies (Gaussian)")
        ->capture_default_str();
    add_sampling_options(sub, p_);
    sub.add_option("--seed", p_.seed, "Random seed (Philox key)")->capture_default_str();
    sub.add_option("--stepper", p_.stepper, "srk2 or euler")
        ->check(CLI::IsMember({"srk2", "euler"}))
        ->capture_default_str();
    noise_law_ = sub.add_option("--noise-law", p_.noise_law, noise_law_help)
                     ->check(CLI::IsMember({"gaussian", "five-point"}))
                     ->capture_default_str();
    sub.add_option("--coupling", p_.coupling, "mean-field (O(N) per step) or all-pairs (O(N^2), team-scratch tiles)")
        ->check(CLI::IsMember({"mean-field", "all-pairs"}))
        ->capture_default_str();
    tile_ = sub.add_option("--tile", p_.tile, "All pairs: oscillators per tile in team scratch")
                ->transform(cli::count<int>(1, 4096))
                ->capture_default_str();
    splits_ =
        sub.add_option("--column-splits", p_.column_splits,
                       "All pairs: teams sharing a row tile, each over a share of the columns (0: enough to fill the "
                       "device, 1 on hosts)")
            ->transform(cli::count<int>(0, 16))
            ->capture_default_str();
  }

  report::RunReport execute(cli::Context& context) override {
    if (p_.coupling != "all-pairs")
      for (auto* o : {tile_, splits_})
        require(o->count() == 0, o->get_name() + " applies to --coupling all-pairs only (the mean field has no tiles)");
    require_noise(noise_law_, p_.D > 0, "--noise (-D) is 0");
    return solve_and_report(p_, context);
  }

  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    KuramotoParams p;
    p.oscillators = size == cli::Size::small ? 1 << 12 : (size == cli::Size::medium ? 1 << 20 : 1 << 24);
    if (size == cli::Size::small) p.dt = 0.02, p.steps = 1000, p.sample_every = 10;  // same t = 20
    return solve_and_report(p, context);
  }

  std::string summarize(report::RunReport const& r) const override {
    auto const& res = r.results;
    std::string s = fmt::format("r(end) = {:.4f}, <r> over the second half = {:.4f}", res["r_final"].get<double>(),
                                res["r_mean_second_half"].get<double>());
    // The theory holds for identical oscillators only (null with --omega-spread).
    if (res["r_theory"].is_number()) s += fmt::format(" (N -> oo theory {:.4f})", res["r_theory"].get<double>());
    if (res.contains("steps_per_second"))
      s += fmt::format(", {:.3g} oscillator steps/s", res["steps_per_second"].get<double>());
    return s;
  }

  // Oscillators (mean field) or rows (all pairs) split across ranks (kuramoto.hpp).
  bool distributed() const override { return true; }

 private:
  report::RunReport solve_and_report(KuramotoParams const& p, cli::Context& context) {
    validate(p, kuramoto_options);
    report::RunReport r;
    r.model = "kuramoto";
    r.parameters = sampling_parameters(p);
    r.parameters.update({{"oscillators", p.oscillators},
                         {"K", p.K},
                         {"gamma", p.gamma},
                         {"D", p.D},
                         {"omega_mean", p.omega_mean},
                         {"omega_spread", p.omega_spread},
                         {"coupling", p.coupling},
                         {"tile", p.tile},
                         {"column_splits", p.column_splits}});
    {
      double const n = p.oscillators, samples = std::ceil(double(p.steps) / p.sample_every);
      double const real = context.precision == Precision::f32 ? 4 : 8;
      // Phases, stage copies, drifts and frequencies per oscillator; r, psi and the histogram per sample.
      double const device = n * 8 * real + samples * (16 + 4.0 * p.bins);
      double const host = samples * (16 + 4.0 * p.bins) * 3;
      cli::require_memory(context, device, host, fmt::format("kuramoto with -N {}", p.oscillators));
      if (p.coupling == "all-pairs") {
        double const pairs = n * n * double(p.steps) * (p.stepper == "srk2" ? 2 : 1);
        if (pairs > 1e13)
          cli::warn(
              fmt::format("kuramoto --coupling all-pairs: {:.3g} pair interactions (N^2 per drift evaluation, "
                          "-N {} x --steps {}); this takes very long (progress every sample)",
                          pairs, p.oscillators, p.steps));
      }
    }
    auto const res = run(p, context.precision, context.progress, r.phases);
    auto const& k = res.kuramoto;
    r.iterations = k.steps_done;
    r.timing_note =
        "each phase: wall time between two fences; integrate = all steps plus sampling r and the "
        "histogram every sample_every steps";
    auto const t = report_order_parameter(r, k, p.dt);
    auto& out = r.results;
    if (p.coupling == "all-pairs") out["column_splits"] = k.column_splits;
    out["r_theory"] = p.omega_spread == 0 ? nlohmann::json(kuramoto_theory_r(p.K, p.D)) : nlohmann::json(nullptr);
    out["r_theory_note"] =
        "identical oscillators, N -> infinity: r = I1(K r / D) / I0(K r / D); finite N adds "
        "O(1/sqrt(N)) fluctuations";
    out["flops_convention"] =
        "add/sub/mul 1, fma 2, sin/cos/log/sqrt 1; Box-Muller counted (five-point variates 0), "
        "Philox integer ops not; per oscillator step";
    add_rates(out, double(k.steps_done) * p.oscillators, "parity::kuramoto::integrate",
              phase_seconds(r, "parity::kuramoto::integrate"), res.flops_per_step, res.bytes_per_step);
    double const paper_flops = p.coupling == "all-pairs" ? paper_kuramoto_all_pairs_flops(double(p.oscillators))
                                                         : paper_kuramoto_mean_field_flops;
    out["flops_per_step_paper"] = p.stepper == "srk2" ? nlohmann::json(paper_flops) : nlohmann::json(nullptr);
    if (p.stepper == "srk2" && out.contains("steps_per_second"))
      out["gflops_paper_count"] = out["steps_per_second"].get<double>() * paper_flops * 1e-9;
    set_order_parameter_status(r, k);
    if (context.output) write_order_parameter(*context.output, k, t);
    return r;
  }

  KuramotoParams p_;
  CLI::Option* noise_law_ = nullptr;
  CLI::Option* tile_ = nullptr;
  CLI::Option* splits_ = nullptr;
};

}  // namespace

std::unique_ptr<cli::Command> make_josephson_command() { return std::make_unique<JosephsonCommand>(); }
std::unique_ptr<cli::Command> make_kuramoto_command() { return std::make_unique<KuramotoCommand>(); }

}  // namespace parity::sde
