// A peer for the cubature benchmarks: the same built-in integrands, box and tolerances through
// hcubature of the cubature library (S. G. Johnson; Debian libcubature-dev; serial C, the
// Genz-Malik degree-7/5 rule with a global heap of regions). It takes the options of
// `parity-<backend> cubature` and writes a report the runner (perf/runner.py --peer) reads:
//
//   hcubature-peer info --json FILE
//   hcubature-peer cubature --integrand NAME --dim n [--lower ..] [--upper ..] [--a ..] [--u ..]
//                  [--rel-tol t] [--abs-tol t] [--max-evals N] [--precision double]
//                  --json FILE [--quiet] [Parity algorithm options: accepted, ignored]
//
// Exit status as Parity's: 0 converged, 3 not converged (budget), 2 bad input, 1 failure.
// Integrand definitions: models/parity/cubature/integrands.hpp (written again here in plain C++, so
// the peer needs no Kokkos); reference integrals: models/parity/cubature/genz.hpp, paper.hpp.
#include <cubature.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "parity/cubature/genz.hpp"
#include "parity/cubature/options.hpp"

namespace {

namespace cub = parity::cubature;
using cub::Family;

struct Problem {
  Family family = Family::gaussian;
  int n = 0;
  std::vector<double> a, u;
  std::int64_t evaluations = 0;
};

double evaluate(Problem const& p, double const* x) {
  int const n = p.n;
  auto const& a = p.a;
  auto const& u = p.u;
  switch (p.family) {
    case Family::oscillatory: {
      double s = 2 * M_PI * u[0];
      for (int i = 0; i < n; ++i) s += a[i] * x[i];
      return std::cos(s);
    }
    case Family::product_peak: {
      double q = 1;
      for (int i = 0; i < n; ++i) q *= 1 / (1 / (a[i] * a[i]) + (x[i] - u[i]) * (x[i] - u[i]));
      return q;
    }
    case Family::corner_peak: {
      double s = 1;
      for (int i = 0; i < n; ++i) s += a[i] * x[i];
      return std::pow(s, -double(n + 1));
    }
    case Family::gaussian: {
      double s = 0;
      for (int i = 0; i < n; ++i) s += a[i] * a[i] * (x[i] - u[i]) * (x[i] - u[i]);
      return std::exp(-s);
    }
    case Family::c0: {
      double s = 0;
      for (int i = 0; i < n; ++i) s += a[i] * std::fabs(x[i] - u[i]);
      return std::exp(-s);
    }
    case Family::discontinuous: {
      if (x[0] > u[0] || (n > 1 && x[1] > u[1])) return 0;
      double s = 0;
      for (int i = 0; i < n; ++i) s += a[i] * x[i];
      return std::exp(s);
    }
    case Family::f1:
    case Family::f1_pagani: {
      double s = 0;
      for (int i = 0; i < n; ++i) s += x[i] * x[i];
      double const d = 0.1 + std::cos(s) * std::cos(s);
      return p.family == Family::f1 ? 1 / (d * d) : 1 / d;
    }
    case Family::f2: {
      double q = 1, w = 4;
      for (int i = 0; i < n; ++i, w *= 4) q *= std::cos(w * x[i]);
      return std::cos(q);
    }
    case Family::f3: {
      double q = 1;
      for (int i = 0; i < n; ++i) q *= (i + 1) * std::asin(std::pow(x[i], i + 1));
      return std::sin(q);
    }
    case Family::f4: {
      double q = 1;
      for (int i = 0; i < n; ++i) q *= std::asin(x[i]);
      return std::sin(q);
    }
    case Family::f5: {
      double s = 0;
      for (int i = 0; i < n; ++i) s += std::cos(10 * x[i]);
      return s / (2 * cub::paper_beta);
    }
  }
  return 0;
}

int integrand(unsigned, double const* x, void* data, unsigned, double* value) {
  auto& p = *static_cast<Problem*>(data);
  ++p.evaluations;
  value[0] = evaluate(p, x);
  return 0;
}

std::vector<double> list(std::string const& s) {
  std::vector<double> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    double const x = std::stod(item, &used);
    parity::require(used == item.size(), "not a number: '" + item + "'");
    v.push_back(x);
  }
  return v;
}

std::vector<double> expand(std::vector<double> const& v, int n, double fallback) {
  if (v.empty()) return std::vector<double>(n, fallback);
  if (v.size() == 1) return std::vector<double>(n, v[0]);
  parity::require(int(v.size()) == n, "a list option needs one value or n values");
  return v;
}

std::string number(double x) {  // JSON number, or null for NaN and infinities
  if (!std::isfinite(x)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string list_json(std::vector<double> const& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + number(v[i]);
  return s + "]";
}

std::string backend_json() {
  return R"({"backend": "hcubature", "execution_space": "serial C: libcubature hcubature, one thread", )"
         R"("device_name": "host CPU, one core", "concurrency": 1, "kokkos_version": null, "kernel_compiler": ")" +
         std::string(__VERSION__) + R"(", "precision": "double"})";
}

void write(std::string const& path, std::string const& text) {
  std::ofstream out(path);
  out << text << "\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  parity::require(!args.empty(), "usage: hcubature-peer info|cubature [options] --json FILE");
  std::string json_path;
  if (args[0] == "info") {
    for (std::size_t i = 1; i + 1 < args.size(); ++i)
      if (args[i] == "--json") json_path = args[i + 1];
    parity::require(!json_path.empty(), "info needs --json FILE");
    write(json_path, R"({"backend": )" + backend_json() + R"(, "parity": {"peer": "hcubature", "commit": null}})");
    return 0;
  }
  parity::require(args[0] == "cubature", "unknown command '" + args[0] + "' (known: info, cubature)");
  std::string integrand_name = "gaussian", precision = "double";
  int n = 4;
  std::vector<double> lower{0.0}, upper{1.0}, a, u{0.5};
  double rel = 1e-6, abs_tol = 0.0, max_evals = 1e9;
  std::vector<std::string> ignored;
  static char const* const parity_only[] = {"--initial-regions",
                                            "--max-regions",
                                            "--phase2-regions",
                                            "--max-split",
                                            "--max-phase1-iterations",
                                            "--heap-capacity",
                                            "--max-memory-mb",
                                            "--team-size",
                                            "--threads",
                                            "--output-dir",
                                            "--mode",
                                            "--error-estimate"};
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string const& k = args[i];
    if (k == "--quiet" || k == "-q") continue;
    parity::require(i + 1 < args.size(), "option " + k + " needs a value");
    std::string const& v = args[++i];
    if (k == "--integrand")
      integrand_name = v;
    else if (k == "--dim")
      n = std::stoi(v);
    else if (k == "--lower")
      lower = list(v);
    else if (k == "--upper")
      upper = list(v);
    else if (k == "--a")
      a = list(v);
    else if (k == "--u")
      u = list(v);
    else if (k == "--rel-tol")
      rel = std::stod(v);
    else if (k == "--abs-tol")
      abs_tol = std::stod(v);
    else if (k == "--max-evals")
      max_evals = std::stod(v);
    else if (k == "--precision")
      precision = v;
    else if (k == "--json")
      json_path = v;
    else {
      bool known = false;
      for (char const* o : parity_only) known |= k == o;
      parity::require(known, "unknown option " + k);
      ignored.push_back(k);
    }
  }
  parity::require(precision == "double", "hcubature computes in double precision only");
  parity::require(!json_path.empty(), "--json FILE is required");
  auto const family = cub::parse_family(integrand_name);
  parity::require(family.has_value(), "unknown integrand '" + integrand_name + "'");
  parity::require(n >= 1 && n <= cub::max_dim, "dimension out of range");
  parity::require(max_evals >= 1 && max_evals <= 1.8e19, "--max-evals out of range");
  Problem p;
  p.family = *family;
  p.n = n;
  p.a = expand(a, n, cub::default_a(p.family));
  p.u = expand(u, n, 0.5);
  lower = expand(lower, n, 0.0);
  upper = expand(upper, n, 1.0);
  cub::validate(lower, upper, cub::Tolerances{abs_tol, rel}, cub::Options{});
  cub::validate_genz(p.family, p.a, p.u, lower, upper);

  double value = 0, error = 0;
  auto const t0 = std::chrono::steady_clock::now();
  int const rc = hcubature(1, integrand, &p, unsigned(n), lower.data(), upper.data(), std::size_t(max_evals), abs_tol,
                           rel, ERROR_INDIVIDUAL, &value, &error);
  double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (rc != 0) throw std::runtime_error("hcubature failed (out of memory?)");
  double const tolerance = std::max(abs_tol, rel * std::fabs(value));
  bool const converged = error <= tolerance;
  double const exact = cub::genz_exact(p.family, p.a, p.u, lower, upper);
  double const true_error = std::fabs(value - exact);
  std::string const status = converged ? "converged" : "not_converged";
  std::string ignored_json = "[";
  for (std::size_t i = 0; i < ignored.size(); ++i) ignored_json += (i ? ", \"" : "\"") + ignored[i] + "\"";
  ignored_json += "]";
  std::ostringstream r;
  r << R"({"model": "cubature", "status": ")" << status << R"(", "backend": )" << backend_json()
    << R"(, "parity": {"peer": "hcubature", "commit": null})"
    << R"(, "timing": {"total_seconds": )" << number(seconds) << R"(, "phases": {"hcubature": {"seconds": )"
    << number(seconds) << "}}}"
    << R"(, "iterations": null, "parameters": {"integrand": ")" << integrand_name << R"(", "dim": )" << n
    << R"(, "lower": )" << list_json(lower) << R"(, "upper": )" << list_json(upper) << R"(, "a": )" << list_json(p.a)
    << R"(, "u": )" << list_json(p.u) << R"(, "rel_tol": )" << number(rel) << R"(, "abs_tol": )" << number(abs_tol)
    << R"(, "max_evals": )" << number(max_evals) << R"(, "ignored_options": )" << ignored_json
    << R"(, "rule": "hcubature: Genz-Malik degree 7 with embedded degree 5, global heap"})"
    << R"(, "results": {"integrand": ")" << integrand_name << R"(", "dim": )" << n << R"(, "integral": )"
    << number(value) << R"(, "error_estimate": )" << number(error) << R"(, "exact": )" << number(exact)
    << R"(, "true_error": )" << number(true_error) << R"(, "relative_true_error": )"
    << number(exact != 0 ? true_error / std::fabs(exact) : true_error) << R"(, "tolerance": )" << number(tolerance)
    << R"(, "evaluations": )" << p.evaluations << R"(, "status": ")" << (converged ? "converged" : "budget_exhausted")
    << "\"}}";
  write(json_path, r.str());
  return converged ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (parity::InvalidInput const& e) {
    std::cerr << "hcubature-peer: " << e.what() << "\n";
    return 2;
  } catch (std::invalid_argument const& e) {  // std::stod / std::stoi
    std::cerr << "hcubature-peer: bad number (" << e.what() << ")\n";
    return 2;
  } catch (std::exception const& e) {
    std::cerr << "hcubature-peer: " << e.what() << "\n";
    return 1;
  }
}
