#pragma once
// One number syntax for every option: counts accept 1000000, 1e6 or 1E+6 but not 1.5, lists are
// comma-separated items of that syntax, and every message names the option the user typed.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace parity::cli {

// Parses a whole number in [lo, hi] written as an integer or in exponent form (1e6); throws
// InvalidInput naming `option` otherwise.
std::int64_t parse_count(std::string const& text, std::string const& option, std::int64_t lo, std::int64_t hi);

// A CLI11 transform that rewrites a count in that syntax to plain digits for an option of
// integer type T, with clean messages; lo: the least value allowed.
CLI::Validator count_syntax(std::int64_t lo, std::int64_t hi);
template <class T>
CLI::Validator count(std::int64_t lo = 0) {
  return count_syntax(lo, std::int64_t(std::min<std::uintmax_t>(std::numeric_limits<T>::max(),
                                                                std::numeric_limits<std::int64_t>::max())));
}
// The same with the option's own upper limit (at most T's).
template <class T>
CLI::Validator count(std::int64_t lo, std::int64_t hi) {
  return count_syntax(
      lo, std::min<std::int64_t>(hi, std::int64_t(std::min<std::uintmax_t>(std::numeric_limits<T>::max(),
                                                                           std::numeric_limits<std::int64_t>::max()))));
}

// A CLI11 check that a floating-point option is a finite number (no nan, no inf).
CLI::Validator finite_number();

// The values a real option allows: lo..hi, each end open or closed; an infinite end is no bound.
struct RealRange {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;
};
inline RealRange at_least(double lo) { return {lo, std::numeric_limits<double>::infinity(), false, false}; }
inline RealRange above(double lo) { return {lo, std::numeric_limits<double>::infinity(), true, false}; }

// A CLI11 check that a floating-point option is a finite number in the range, e.g.
// "--rel-tol: -1 is out of range: must be in [0, 1)".
CLI::Validator real_in(RealRange range);

// A comma-separated list of finite numbers in the range, as "--lower 0,0.5" takes them: an empty
// item ("1,,2", "1,2,") or a bad one throws InvalidInput naming `option` and the item.
std::vector<double> parse_reals(std::string const& text, std::string const& option, RealRange range = {});

// Lists "a,b,c": every item present (no empty item, no leading or trailing comma) and a finite
// number; count > 0: exactly that many items. `form` names the items in messages ("LO,HI").

// Why `text` is not such a list, without quoting any of it (so the text may come from a file of any
// content): "item 2 is not a number", "3 items"; empty when it is one, and then `values` holds it.
std::string number_list_error(std::string const& text, std::size_t count, std::vector<double>& values);

// The list given to `option`; throws InvalidInput naming the option, the form and what is wrong.
std::vector<double> parse_numbers(std::string const& text, std::string const& option, std::size_t count,
                                  std::string const& form);

// The same for whole numbers in the count syntax: one item per CountItem, each in its [lo, hi]; a
// message names the item ("NK: 10 is out of range: must be in [20, 100000]").
struct CountItem {
  std::string name;
  std::int64_t lo, hi;
};
std::vector<std::int64_t> parse_counts(std::string const& text, std::string const& option,
                                       std::vector<CountItem> const& items);

}  // namespace parity::cli
