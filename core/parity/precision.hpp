#pragma once
// Floating-point precision chosen at run time; both are instantiated for every model.
#include <optional>
#include <string_view>

namespace parity {

enum class Precision { f32, f64 };

constexpr std::string_view to_string(Precision p) { return p == Precision::f32 ? "float" : "double"; }

constexpr std::optional<Precision> parse_precision(std::string_view s) {
  if (s == "float" || s == "f32" || s == "single") return Precision::f32;
  if (s == "double" || s == "f64") return Precision::f64;
  return std::nullopt;
}

// Calls f(Real{}) with Real = float or double according to p.
template <class F>
decltype(auto) with_precision(Precision p, F&& f) {
  if (p == Precision::f32) return f(float{});
  return f(double{});
}

}  // namespace parity
