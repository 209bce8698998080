#pragma once
// Parameters of one `cubature` run: a built-in integrand, its box, tolerances and the
// algorithm's options (see integrate.hpp for what each option does).
#include <cstdint>
#include <string>
#include <vector>

#include "parity/cubature/genz.hpp"
#include "parity/cubature/options.hpp"
#include "parity/cubature/vegas_options.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/parameter_name.hpp"
#include "parity/run/solve_options.hpp"

namespace parity::cubature {

// deterministic: the two-phase adaptive rules (integrate.hpp); vegas: VEGAS+ Monte Carlo (vegas.hpp).
enum class Method { deterministic, vegas };
inline char const* to_string(Method m) { return m == Method::vegas ? "vegas" : "deterministic"; }

// How --method vegas integrates a sweep's integrals: shared (one integrate_vegas_family over all
// of them, one sampling and one launch per iteration) or separate (one integrate_vegas call each,
// one after another: the same integrals the way a caller without the family would run them).
enum class Sampling { shared, separate };
inline char const* to_string(Sampling s) { return s == Sampling::separate ? "separate" : "shared"; }

// run_vegas_family's options: the caller's reporting (run::SolveOptions; one rank) and the sampling.
struct VegasFamilyOptions : run::SolveOptions {
  Sampling sampling = Sampling::shared;  // default shared: one integrate_vegas_family
};

struct Params {
  std::string integrand = "gaussian";  // a Genz family (genz.hpp) or f1..f5 (paper.hpp)
  int dim = 4;
  std::vector<double> lower{0.0};  // one value (every dimension) or one per dimension
  std::vector<double> upper{1.0};
  std::vector<double> a;  // Genz difficulty; empty: the family's default (default_a); f1..f5: unused
  std::vector<double> u{0.5};  // Genz location; f1..f5: unused
  Tolerances tolerances{};  // absolute 0, relative 1e-6
  Options options{};  // the deterministic method's
  Method method = Method::deterministic;
  VegasOptions vegas{};  // --method vegas's
};

// A value list expanded to n entries (one value is repeated).
inline std::vector<double> expand(std::vector<double> const& v, int n, double fallback) {
  if (v.empty()) return std::vector<double>(n, fallback);
  if (v.size() == 1) return std::vector<double>(n, v[0]);
  return v;
}

struct Problem {
  Family family;
  std::vector<double> lower, upper, a, u;
};

// Checks everything a user can get wrong and returns the expanded problem; messages name the
// fields of Params (`dim`, `lower`) through `name` (the command passes the options: --dim, or
// --sweep for the a_i it sweeps).
inline Problem validate(Params const& p, ParameterName name = field_name) {
  auto const family = parse_family(p.integrand);
  std::string names;
  for (Family f : all_families) names += std::string(names.empty() ? "" : ", ") + to_string(f);
  for (Family f : paper_families) names += std::string(", ") + to_string(f);
  require(family.has_value(), name("integrand") + " " + p.integrand + ": unknown integrand (known: " + names + ")");
  std::string const dim = name("dim") + " " + std::to_string(p.dim);
  int const most = p.method == Method::vegas ? max_vegas_dim : max_dim;
  require(p.dim >= 1 && p.dim <= most,
          dim + ": the dimension must be in [1, " + std::to_string(most) + "]" +
              (p.method == Method::vegas ? "" : " (" + name("method") + " vegas: up to 32)"));
  auto check_len = [&](std::vector<double> const& v, std::string const& what) {
    require(v.size() <= 1 || int(v.size()) == p.dim, what + " needs one value or " + std::to_string(p.dim) +
                                                         " values (" + dim + "; got " + std::to_string(v.size()) + ")");
  };
  std::string const bounds = name("lower") + ", " + name("upper");
  check_len(p.lower, name("lower"));
  check_len(p.upper, name("upper"));
  check_len(p.a, name("a"));
  check_len(p.u, name("u"));
  require(!p.lower.empty() && !p.upper.empty(), name("lower") + " and " + name("upper") + " need at least one value");
  Problem q{*family, expand(p.lower, p.dim, 0.0), expand(p.upper, p.dim, 1.0), expand(p.a, p.dim, default_a(*family)),
            expand(p.u, p.dim, 0.5)};
  for (int i = 0; i < p.dim; ++i)
    require(q.lower[i] < q.upper[i], bounds +
                                         ": the lower bound must be below the upper bound in every "
                                         "dimension (dimension " +
                                         std::to_string(i + 1) + ": " + std::to_string(q.lower[i]) +
                                         " >= " + std::to_string(q.upper[i]) + ")");
  if (is_paper(*family))
    for (int i = 0; i < p.dim; ++i)
      require(q.lower[i] == 0.0 && q.upper[i] == 1.0,
              bounds + ": " + p.integrand + " is defined on the unit cube [0,1]^n only (leave them out)");
  try {
    validate_genz(q.family, q.a, q.u, q.lower, q.upper);
  } catch (InvalidInput const& e) {  // only the a_i can be wrong here: u_i are finite and free
    throw InvalidInput(name("a") + ": " + e.what());
  }
  if (p.method == Method::vegas)
    validate_vegas(q.lower, q.upper, p.tolerances, p.vegas);
  else
    validate(q.lower, q.upper, p.tolerances, p.options);
  return q;
}

}  // namespace parity::cubature
