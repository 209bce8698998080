#pragma once
// The rule and error estimate an integration applies, from its Options and dimension; shared by
// integrate() and integrate_family(), which apply the same rule to every region.
#include <cstdint>

#include "parity/cubature/options.hpp"
#include "parity/cubature/rule.hpp"
#include "parity/cubature/rule9.hpp"

namespace parity::cubature::detail {

template <class Real>
struct RuleSetup {
  NullRules<Real> nulls;
  ErrorEstimate estimate = ErrorEstimate::difference;
  Rule rule = Rule::degree7;
  std::int64_t points = 0;  // evaluations per application
};

template <class Real>
RuleSetup<Real> rule_setup(Options const& opt, int n) {
  bool const paper = opt.mode == Mode::paper;
  bool const nine = uses_degree9(opt, n);
  RuleSetup<Real> s;
  s.points = nine ? rule9_points(n) : rule_points(n);
  // automatic: two_level with the degree-9 rule (CUHRE's estimate: null rules, and the pieces of
  // every split checked against their parent; in improved mode the floored null_rules estimate
  // missed smooth Genz cases), null_rules with degree 7, |I7 - I5| in paper mode's one dimension.
  // The degree-9 rule has no |I7 - I5|: difference means null_rules there.
  s.estimate = opt.error_estimate != ErrorEstimate::automatic ? opt.error_estimate
                                                              : (nine    ? ErrorEstimate::two_level
                                                                 : paper ? ErrorEstimate::difference
                                                                         : ErrorEstimate::null_rules);
  if (nine && s.estimate == ErrorEstimate::difference) s.estimate = ErrorEstimate::null_rules;
  s.nulls = s.estimate == ErrorEstimate::null_rules || s.estimate == ErrorEstimate::two_level ? make_null_rules<Real>(n)
                                                                                              : NullRules<Real>();
  s.nulls.sharp = s.estimate == ErrorEstimate::two_level;
  if (nine) {  // the degree-9 rule always estimates from its null rules (rule9.hpp)
    s.nulls.enabled = true;
    s.nulls.nine = make_degree9<Real>(n);
  }
  s.rule = nine ? Rule::degree9 : Rule::degree7;
  return s;
}

}  // namespace parity::cubature::detail
