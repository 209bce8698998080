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

// A CLI11 check that a floating-point option is a finite number (no nan, no inf).
CLI::Validator finite_number();

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
