#pragma once
// What the SDE commands report alike: the non-finite check, and for the all-to-all and the network
// Kuramoto commands the order parameter's time series in the results and the arrays of an output
// folder. Host code (the commands), no Kokkos.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include "parity/cli/command.hpp"
#include "parity/report/output_files.hpp"
#include "parity/report/run_report.hpp"
#include "parity/sde/result.hpp"

namespace parity::sde {

inline bool all_finite(std::vector<double> const& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// Marks a report whose results are not finite: the run is a failure (exit 3), not a number.
inline void mark_non_finite(report::RunReport& r, std::string const& what) {
  r.status = cli::status::non_finite;
  r.results["non_finite"] = what;
}

// t, r, r_final and the mean of r over the second half of the samples into the results, the final
// histogram too; returns the sample times.
inline std::vector<double> report_order_parameter(report::RunReport& r, KuramotoResult const& k, double dt) {
  auto& out = r.results;
  std::vector<double> t(k.samples);
  for (int s = 0; s < k.samples; ++s) t[s] = double(k.sample_steps[s]) * dt;
  out["t"] = t;
  out["r"] = k.r;
  out["r_final"] = k.r.back();
  double sum = 0;
  int cnt = 0;
  for (int s = k.samples / 2; s < k.samples; ++s) sum += k.r[s], ++cnt;
  out["r_mean_second_half"] = cnt ? sum / cnt : k.r.back();
  out["histogram_bins"] = k.bins;
  out["histogram_final"] = std::vector<std::int32_t>(k.histogram.end() - k.bins, k.histogram.end());
  return t;
}

// Status ok, or non_finite (exit 3) where r(t) or its phase is NaN or infinite.
inline void set_order_parameter_status(report::RunReport& r, KuramotoResult const& k) {
  r.status = cli::status::ok;
  if (!all_finite(k.r) || !all_finite(k.psi))
    mark_non_finite(r, "the order parameter r(t) or its phase is NaN or infinite: the integration diverged");
}

// t, r, psi, the histogram bin centres and every sample's histogram.
inline void write_order_parameter(report::OutputFolder& o, KuramotoResult const& k, std::vector<double> const& t) {
  o.npy("t", t, {t.size()});
  o.npy("r", k.r, {k.r.size()});
  o.npy("psi", k.psi, {k.psi.size()});
  std::vector<double> centers(k.bins);
  for (int b = 0; b < k.bins; ++b) centers[b] = (b + 0.5) * 2 * std::numbers::pi / k.bins;
  o.npy("x_bins", centers, {centers.size()});
  o.npy("histogram", std::span<const std::int32_t>(k.histogram), {std::size_t(k.samples), std::size_t(k.bins)});
}

}  // namespace parity::sde
