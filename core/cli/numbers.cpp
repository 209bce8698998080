#include "parity/cli/numbers.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "parity/run/errors.hpp"

namespace parity::cli {
namespace {

std::string trimmed(std::string const& text) {
  auto const b = text.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return text.substr(b, text.find_last_not_of(" \t") - b + 1);
}

std::string range_text(std::int64_t lo, std::int64_t hi) {
  if (hi == std::numeric_limits<std::int64_t>::max()) return fmt::format("in [{}, 2^63 - 1]", lo);
  return fmt::format("in [{}, {}]", lo, hi);
}

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

}  // namespace

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

}  // namespace parity::cli
