#include "parity/cli/numbers.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "parity/run/errors.hpp"

namespace parity::cli {
namespace {

std::string trimmed(std::string const& text) {
  auto const b = text.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return text.substr(b, text.find_last_not_of(" \t") - b + 1);
}

// Large powers of two and their predecessors read as 2^k and 2^k - 1 (the limits of int and of
// most sizes), the rest as digits.
std::string bound_text(std::int64_t v) {
  for (int k = 16; k < 64; ++k) {
    std::uint64_t const p = std::uint64_t(1) << k;
    if (std::uint64_t(v) == p && v > 0) return fmt::format("2^{}", k);
    if (std::uint64_t(v) == p - 1 && v > 0) return fmt::format("2^{} - 1", k);
  }
  return std::to_string(v);
}

std::string range_text(std::int64_t lo, std::int64_t hi) {
  return fmt::format("in [{}, {}]", bound_text(lo), bound_text(hi));
}

std::string real_text(double v) { return fmt::format("{:g}", v); }

// The value, or a message (without the option's name) saying what is wrong.
std::string count_error(std::string const& text, std::int64_t lo, std::int64_t hi, std::int64_t& value) {
  std::string const t = trimmed(text);
  if (t.empty()) return "expects a whole number, got nothing";
  std::int64_t v = 0;
  auto const [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc() && end == t.data() + t.size()) {
    if (v < lo || v > hi) return fmt::format("{} is out of range: must be {}", t, range_text(lo, hi));
    value = v;
    return {};
  }
  char* stop = nullptr;
  double const d = std::strtod(t.c_str(), &stop);
  if (stop != t.c_str() + t.size() || std::isnan(d)) return fmt::format("'{}' is not a whole number", t);
  if (d != std::floor(d)) return fmt::format("'{}' is not a whole number", t);
  if (d < double(lo) || d > double(hi)) return fmt::format("{} is out of range: must be {}", t, range_text(lo, hi));
  value = std::int64_t(d);
  if (value < lo || value > hi) return fmt::format("{} is out of range: must be {}", t, range_text(lo, hi));
  return {};
}

// What a real in the bounds must satisfy, e.g. "in [0, 1)", "> 0" or ">= 0".
std::string real_range_text(RealRange const& r) {
  bool const low = std::isfinite(r.lo), high = std::isfinite(r.hi);
  if (low && high)
    return fmt::format("in {}{}, {}{}", r.lo_open ? "(" : "[", real_text(r.lo), real_text(r.hi), r.hi_open ? ")" : "]");
  if (low) return fmt::format("{} {}", r.lo_open ? ">" : ">=", real_text(r.lo));
  if (high) return fmt::format("{} {}", r.hi_open ? "<" : "<=", real_text(r.hi));
  return "finite";
}

// The value, or a message (without the option's name) saying what is wrong.
std::string real_error(std::string const& text, RealRange const& r, double& value) {
  std::string const t = trimmed(text);
  char* stop = nullptr;
  double const d = std::strtod(t.c_str(), &stop);
  if (t.empty() || stop != t.c_str() + t.size()) return fmt::format("'{}' is not a number", t);
  if (!std::isfinite(d)) return fmt::format("'{}' is not a finite number", t);
  bool const below = r.lo_open ? !(d > r.lo) : !(d >= r.lo);
  bool const above = r.hi_open ? !(d < r.hi) : !(d <= r.hi);
  if (below || above) return fmt::format("{} is out of range: must be {}", t, real_range_text(r));
  value = d;
  return {};
}

// The items of "a,b,c", empty ones included: "" is one empty item, "1," two.
std::vector<std::string> split(std::string const& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t const comma = text.find(',', start);
    out.push_back(trimmed(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// Why item k (from 0) of n is empty, in the words a user would look for.
std::string empty_item(std::size_t k, std::size_t n) {
  if (n == 1) return "nothing";
  if (k + 1 == n) return "nothing after the last comma";
  if (k == 0) return "nothing before the first comma";
  return fmt::format("item {} is empty", k + 1);
}

std::string count_text(std::size_t n, char const* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

std::string expectation(std::string const& option, std::size_t count, char const* kind, std::string const& form) {
  return fmt::format("{} expects {}comma-separated {}{}", option, count > 0 ? std::to_string(count) + " " : "", kind,
                     form.empty() ? "" : " " + form);
}

std::string got(std::string const& text, std::string const& reason) {
  if (trimmed(text).empty()) return "got nothing";
  return fmt::format("got '{}' ({})", text, reason);
}

}  // namespace

std::string number_list_error(std::string const& text, std::size_t count, std::vector<double>& values) {
  auto const items = split(text);
  std::vector<double> out;
  for (std::size_t k = 0; k < items.size(); ++k) {
    std::string const& t = items[k];
    if (t.empty()) return empty_item(k, items.size());
    char* stop = nullptr;
    double const v = std::strtod(t.c_str(), &stop);
    if (stop != t.c_str() + t.size()) return fmt::format("item {} is not a number", k + 1);
    if (!std::isfinite(v)) return fmt::format("item {} is not a finite number", k + 1);
    out.push_back(v);
  }
  if (count > 0 && out.size() != count) return count_text(out.size(), "number");
  values = std::move(out);
  return {};
}

std::vector<double> parse_numbers(std::string const& text, std::string const& option, std::size_t count,
                                  std::string const& form) {
  std::vector<double> values;
  std::string const err = number_list_error(text, count, values);
  if (!err.empty()) throw InvalidInput(expectation(option, count, "numbers", form) + ", " + got(text, err));
  return values;
}

std::vector<std::int64_t> parse_counts(std::string const& text, std::string const& option,
                                       std::vector<CountItem> const& items) {
  std::string form;
  for (auto const& item : items) form += (form.empty() ? "" : ",") + item.name;
  auto fail = [&](std::string const& reason) {
    throw InvalidInput(expectation(option, items.size(), "whole numbers", form) + ", " + got(text, reason));
  };
  auto const given = split(text);
  std::vector<std::int64_t> values;
  for (std::size_t k = 0; k < given.size(); ++k) {
    if (given[k].empty()) fail(empty_item(k, given.size()));
    if (k >= items.size()) break;  // too many: said below
    std::int64_t v = 0;
    std::string const err = count_error(given[k], items[k].lo, items[k].hi, v);
    if (!err.empty()) fail(fmt::format("{}: {}", items[k].name, err));
    values.push_back(v);
  }
  if (given.size() != items.size()) fail(count_text(given.size(), "number"));
  return values;
}

std::int64_t parse_count(std::string const& text, std::string const& option, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  std::string const err = count_error(text, lo, hi, v);
  if (!err.empty()) throw InvalidInput(option + ": " + err);
  return v;
}

CLI::Validator count_syntax(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) {
        std::int64_t v = 0;
        std::string err = count_error(text, lo, hi, v);
        if (err.empty()) text = std::to_string(v);
        return err;
      },
      "", "count");
}

CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::string const t = trimmed(text);
        char* stop = nullptr;
        double const d = std::strtod(t.c_str(), &stop);
        if (t.empty() || stop != t.c_str() + t.size()) return fmt::format("'{}' is not a number", t);
        if (!std::isfinite(d)) return fmt::format("'{}' is not a finite number", t);
        return {};
      },
      "", "finite");
}

CLI::Validator real_in(RealRange range) {
  return CLI::Validator(
      [range](std::string& text) {
        double v = 0;
        return real_error(text, range, v);
      },
      "", "real range");
}

std::vector<double> parse_reals(std::string const& text, std::string const& option, RealRange range) {
  auto const items = split(text);
  std::vector<double> values;
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (items[k].empty())
      throw InvalidInput(
          fmt::format("{} {}: item {} is empty (write the values separated by single commas)", option, text, k + 1));
    double v = 0;
    std::string const err = real_error(items[k], range, v);
    if (!err.empty()) throw InvalidInput(fmt::format("{} {}: item {}: {}", option, text, k + 1, err));
    values.push_back(v);
  }
  return values;
}

}  // namespace parity::cli
