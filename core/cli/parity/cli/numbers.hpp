#pragma once
// One number syntax for every option: counts accept 1000000, 1e6 or 1E+6 but not 1.5, and every
// message names the option the user typed.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

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

}  // namespace parity::cli
