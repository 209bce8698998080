#include "parity/sde/network_command.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "parity/cli/numbers.hpp"
#include "parity/report/npy.hpp"
#include "parity/run/errors.hpp"
#include "parity/sde/command_options.hpp"
#include "parity/sde/network.hpp"
#include "parity/sde/report.hpp"

namespace parity::sde {
namespace {

constexpr char const* unavailable_note =
    "not built: the network Kuramoto model needs Kokkos Kernels (configure Parity with it: docs/models/sde.md)";

// Onset of synchronisation of identical noisy oscillators in the annealed-network approximation
// (A_ij -> k_i k_j / (N <k>)): K_ij = lambda A_ij synchronises above lambda_c = 2 D <k> / <k^2>
// (Ichinomiya 2004; Restrepo, Ott & Hunt 2005 for the quenched largest-eigenvalue version).
double annealed_onset(std::string const& normalization, double D, double n, double k1, double k2) {
  if (k2 <= 0) return std::nan("");
  double const lambda_c = 2 * D * k1 / k2;
  if (normalization == "n") return lambda_c * n;
  if (normalization == "mean-degree") return lambda_c * k1;
  return 2 * D;  // "degree": every node feels K times the degree-weighted order parameter
}

class NetworkKuramotoCommand final : public cli::Command {
 public:
  std::string name() const override { return "network-kuramoto"; }
  std::string description() const override {
    return "Noisy Kuramoto oscillators on a network, gamma x_i' = omega_i + sum_j K_ij sin(x_j - x_i) + "
           "sqrt(2 gamma D) xi_i, K_ij from a generated or Matrix Market network (sparse products by Kokkos Kernels)";
  }

  void add_options(CLI::App& sub) override {
    n_ = sub.add_option("--oscillators,-N", p_.graph.n, "Number of oscillators N (generated networks)")
             ->transform(cli::count<int>(2, 1 << 26))
             ->capture_default_str();
    sub.add_option("--network", p_.graph.kind,
                   "complete, erdos-renyi, watts-strogatz, lattice (2-D, periodic), random-regular, scale-free "
                   "(configuration model, P(k) ~ k^-exponent) or file (--network-file)")
        ->capture_default_str();
    sub.add_option("--network-file", p_.network_file,
                   "Matrix Market coordinate file of A_ij (real, integer or pattern; "
                   "general or symmetric)");
    auto* mean_degree = sub.add_option("--mean-degree", p_.graph.mean_degree,
                                       "erdos-renyi: <k>; watts-strogatz: ring neighbours k (even); random-regular: k")
                            ->capture_default_str();
    auto* rewire =
        sub.add_option("--rewire", p_.graph.rewire, "watts-strogatz: rewiring probability")->capture_default_str();
    auto* width = sub.add_option("--lattice-width", p_.graph.width, "lattice: columns (0: sqrt N)")
                      ->transform(cli::count<int>(0, 1 << 26))
                      ->capture_default_str();
    auto* exponent =
        sub.add_option("--degree-exponent", p_.graph.exponent, "scale-free: exponent of P(k)")->capture_default_str();
    auto* k_min = sub.add_option("--k-min", p_.graph.k_min, "scale-free: smallest degree")
                      ->transform(cli::count<int>(1))
                      ->capture_default_str();
    auto* k_max = sub.add_option("--k-max", p_.graph.k_max, "scale-free: largest degree (0: sqrt N)")
                      ->transform(cli::count<int>(0))
                      ->capture_default_str();
    auto* seed = sub.add_option("--network-seed", p_.graph.seed,
                                "Seed of the random networks (erdos-renyi, watts-strogatz, random-regular, scale-free)")
                     ->capture_default_str();
    // The networks each option describes (the others do not read it).
    by_network_ = {{mean_degree, {"erdos-renyi", "watts-strogatz", "random-regular"}},
                   {rewire, {"watts-strogatz"}},
                   {width, {"lattice"}},
                   {exponent, {"scale-free"}},
                   {k_min, {"scale-free"}},
                   {k_max, {"scale-free"}},
                   {seed, {"erdos-renyi", "watts-strogatz", "random-regular", "scale-free"}}};
    sub.add_option("--normalization", p_.normalization,
                   "K_ij = K A_ij / norm: n (N), mean-degree (<k>) or degree (k_i)")
        ->capture_default_str();
    sub.add_option("--coupling-strength,-K", p_.K, "Coupling K")->capture_default_str();
    sub.add_option("--gamma", p_.gamma, "Friction gamma")->capture_default_str();
    sub.add_option("--noise,-D", p_.D, "Noise intensity D")->capture_default_str();
    sub.add_option("--omega-law", p_.omega_law, "Natural frequencies: identical, gaussian, lorentzian or file")
        ->capture_default_str();
    omega_mean_ = sub.add_option("--omega-mean", p_.omega_mean,
                                 "The frequency of identical oscillators, the mean (gaussian) or centre (lorentzian)")
                      ->capture_default_str();
    omega_width_ = sub.add_option("--omega-width", p_.omega_width,
                                  "Standard deviation (gaussian) or half width (lorentzian) of the frequencies")
                       ->capture_default_str();
    sub.add_option("--omega-file", p_.omega_file, "One frequency per oscillator, whitespace separated");
    add_sampling_options(sub, p_);
    sub.add_option("--seed", p_.seed, "Random seed of the phases, frequencies and noise (Philox key)")
        ->capture_default_str();
    sub.add_option("--stepper", p_.stepper, "srk2 or euler")->capture_default_str();
    noise_law_ = sub.add_option("--noise-law", p_.noise_law, "gaussian or five-point")->capture_default_str();
    sub.add_option("--replicas", p_.replicas,
                   "Independent realizations sharing K, integrated together (one product with 2 R columns); "
                   "replica r is the run with seed + r")
        ->transform(cli::count<int>(1, 4096))
        ->capture_default_str();
    sub.add_option("--storage", p_.storage,
                   "Coupling matrix: sparse (CRS, spmv), dense (N x N, gemm; N <= 2^15) or auto (the one that "
                   "reads fewer bytes)")
        ->capture_default_str();
  }

  report::RunReport execute(cli::Context& context) override {
    validate(p_);
    // Options the chosen network or frequency law does not read are refused, not ignored.
    auto const& kind = p_.graph.kind;
    for (auto const& [option, kinds] : by_network_) {
      if (option->count() == 0 || std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) continue;
      std::string list;
      for (auto const& k : kinds) list += (list.empty() ? "" : ", ") + k;
      throw InvalidInput(option->get_name() + " applies to --network " + list + " only (not " + kind + ")");
    }
    require(n_->count() == 0 || kind != "file",
            "--oscillators (-N) applies to generated networks only (--network file takes N from the file)");
    auto const& law = p_.omega_law;
    require(omega_mean_->count() == 0 || law != "file",
            "--omega-mean applies to --omega-law identical, gaussian or lorentzian only (file gives every frequency)");
    require(omega_width_->count() == 0 || law == "gaussian" || law == "lorentzian",
            "--omega-width applies to --omega-law gaussian or lorentzian only (not " + law + ")");
    require_noise(noise_law_, p_.D > 0, "--noise (-D) is 0");
    return solve_and_report(p_, context);
  }

  // Rows (oscillators) split across ranks (network_kuramoto.hpp).
  bool distributed() const override { return true; }

  std::string unavailable() const override { return network_kuramoto_available() ? "" : unavailable_note; }

  report::RunReport run_default(cli::Context& context, cli::Size size) override {
    NetworkKuramotoParams p;
    p.graph.n = size == cli::Size::small ? 1 << 12 : (size == cli::Size::medium ? 1 << 18 : 1 << 22);
    if (size == cli::Size::small) p.dt = 0.02, p.steps = 1000, p.sample_every = 10;
    return solve_and_report(p, context);
  }

  std::string summarize(report::RunReport const& r) const override {
    auto const& res = r.results;
    std::string s =
        fmt::format("r(end) = {:.4f}, <r> over the second half = {:.4f}, {} couplings", res["r_final"].get<double>(),
                    res["r_mean_second_half"].get<double>(), res["nonzeros"].get<long>());
    if (res.contains("steps_per_second"))
      s += fmt::format(", {:.3g} oscillator steps/s", res["steps_per_second"].get<double>());
    return s;
  }

 private:
  report::RunReport solve_and_report(NetworkKuramotoParams const& p, cli::Context& context) {
    validate(p);  // bad input is named first, on every build
    // A build limitation, not bad input: exit status 1.
    if (auto const why = unavailable(); !why.empty()) throw std::runtime_error("network-kuramoto: " + why);
    report::RunReport r;
    r.model = "network-kuramoto";
    r.parameters = sampling_parameters(p);
    r.parameters.update({{"network", p.graph.kind},
                         {"network_file", p.network_file},
                         {"oscillators", p.graph.n},
                         {"mean_degree", p.graph.mean_degree},
                         {"rewire", p.graph.rewire},
                         {"lattice_width", p.graph.width},
                         {"degree_exponent", p.graph.exponent},
                         {"k_min", p.graph.k_min},
                         {"k_max", p.graph.k_max},
                         {"network_seed", p.graph.seed},
                         {"normalization", p.normalization},
                         {"K", p.K},
                         {"gamma", p.gamma},
                         {"D", p.D},
                         {"omega_law", p.omega_law},
                         {"omega_mean", p.omega_mean},
                         {"omega_width", p.omega_width},
                         {"omega_file", p.omega_file},
                         {"replicas", p.replicas},
                         {"storage", p.storage}});
    auto const res = run(p, context.precision, context.progress, r.phases);
    auto const& k = res.kuramoto;
    r.iterations = k.steps_done;
    r.timing_note =
        "each phase: wall time between two fences; initialize includes copying the matrix to the "
        "device; integrate = all steps plus sampling r and the histogram every sample_every steps";
    auto const t = report_order_parameter(r, k, p.dt);  // replica 0
    auto& out = r.results;
    out["oscillators"] = res.oscillators;
    out["replicas"] = res.replica_count;
    out["storage"] = res.storage;
    out["nonzeros"] = res.nonzeros;
    out["mean_degree"] = res.mean_degree;
    out["mean_degree_squared"] = res.mean_degree_squared;
    double const onset =
        annealed_onset(p.normalization, p.D, res.oscillators, res.mean_degree, res.mean_degree_squared);
    out["K_onset_annealed"] =
        p.omega_law == "identical" && std::isfinite(onset) ? nlohmann::json(onset) : nlohmann::json(nullptr);
    out["K_onset_note"] =
        "identical oscillators, annealed network: K_ij = lambda A_ij synchronises above "
        "lambda = 2 D <k> / <k^2>, expressed in this normalization's K";
    if (res.replica_count > 1) {
      // Every replica's r(end) and its time average over the second half: the spread across
      // independent realizations.
      std::vector<double> ends, means;
      for (auto const& rep : res.replicas) {
        ends.push_back(rep.r.back());
        double m = 0;
        std::size_t const from = rep.r.size() / 2;
        for (std::size_t s = from; s < rep.r.size(); ++s) m += rep.r[s];
        means.push_back(m / double(rep.r.size() - from));
      }
      out["replica_r_final"] = ends;
      out["replica_r_mean_second_half"] = means;
    }
    if (!res.local_r.empty()) {
      double m = 0;
      for (double v : res.local_r) m += v;
      out["local_r_mean"] = m / double(res.local_r.size());
    }
    out["flops_convention"] =
        "per step of all replicas: sincos 2, 4 per coupling per replica (dense: N^2 couplings), drift 5, "
        "updates 3 (Euler) or 3 + 4 (SRK2), noise not counted; bytes: each array touched once per pass, "
        "the matrix once per product";
    double const steps = double(k.steps_done);
    double const seconds = r.phases.seconds("parity::network_kuramoto::integrate");
    out["work"] = {{"flops", steps * res.work.flops},
                   {"bytes", steps * res.work.bytes},
                   {"phase", "parity::network_kuramoto::integrate"}};
    out["steps_total"] = steps * res.oscillators * res.replica_count;  // oscillator steps
    out["integrate_seconds"] = seconds;
    out["flops_per_step"] = res.work.flops;
    out["bytes_per_step"] = res.work.bytes;
    out["matrix_bytes_per_product"] = res.work.matrix_bytes;
    if (seconds > 0) {
      out["steps_per_second"] = steps * res.oscillators * res.replica_count / seconds;
      out["seconds_per_step"] = seconds / steps;
      out["achieved_bandwidth_GBps"] = steps * res.work.bytes / seconds * 1e-9;
      out["achieved_gflops"] = steps * res.work.flops / seconds * 1e-9;
    }
    set_order_parameter_status(r, k);
    if (context.output) {
      write_order_parameter(*context.output, k, t);
      if (!res.local_r.empty()) {
        if (res.replica_count > 1)
          context.output->npy("local_r", res.local_r, {std::size_t(res.replica_count), std::size_t(res.oscillators)});
        else
          context.output->npy("local_r", res.local_r, {res.local_r.size()});
      }
    }
    return r;
  }

  NetworkKuramotoParams p_;
  CLI::Option* n_ = nullptr;
  CLI::Option* omega_mean_ = nullptr;
  CLI::Option* omega_width_ = nullptr;
  CLI::Option* noise_law_ = nullptr;
  std::vector<std::pair<CLI::Option*, std::vector<std::string>>> by_network_;
};

}  // namespace

std::unique_ptr<cli::Command> make_network_kuramoto_command() { return std::make_unique<NetworkKuramotoCommand>(); }

}  // namespace parity::sde
