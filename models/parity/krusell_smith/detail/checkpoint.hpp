#pragma once
// Checkpoints of the Krusell-Smith outer loop. After an outer iteration the loop's whole state is
// the law of motion b, the policy g, the panel's start (carried cross-section), the last panel
// (K path and final cross-section) and the running totals of the result; the shocks are
// recomputed from the parameters. Restoring these continues the loop exactly where it stopped,
// so an interrupted and resumed solve returns what an uninterrupted one does, bit for bit.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "parity/krusell_smith/params.hpp"
#include "parity/krusell_smith/result.hpp"
#include "parity/run/checkpoint.hpp"
#include "parity/run/errors.hpp"

namespace parity::krusell_smith::detail {

// The shortest of %.15g .. %.17g that reads back as v: exact, and 0.99 stays "0.99" in messages.
inline std::string number(double v) {
  char buf[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// FNV-1a over raw bytes: a restart's data enters the fingerprint as a hash, not its values.
inline std::uint64_t hash_bytes(void const* data, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull) {
  auto const* b = static_cast<unsigned char const*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

// One "name=value" line per parameter that changes the solve's path. --max-iter is left out, so
// a solve stopped by its iteration cap may be resumed with a larger one.
inline std::string checkpoint_fingerprint(Params const& p, char const* precision) {
  std::string f = "model=krusell-smith\nformat=1\nprecision=" + std::string(precision) + "\n";
  auto add = [&](char const* name, std::string const& v) { f += std::string(name) + "=" + v + "\n"; };
  for (auto [name, v] : std::initializer_list<std::pair<char const*, double>>{{"beta", p.beta},
                                                                              {"gamma", p.gamma},
                                                                              {"alpha", p.alpha},
                                                                              {"delta", p.delta},
                                                                              {"l-bar", p.l_bar},
                                                                              {"mu", p.mu},
                                                                              {"z-good", p.z_good},
                                                                              {"z-bad", p.z_bad},
                                                                              {"u-good", p.u_good},
                                                                              {"u-bad", p.u_bad},
                                                                              {"duration-z", p.duration_z},
                                                                              {"duration-u-good", p.duration_u_good},
                                                                              {"duration-u-bad", p.duration_u_bad},
                                                                              {"ratio-gb", p.ratio_gb},
                                                                              {"ratio-bg", p.ratio_bg},
                                                                              {"k-min", p.k_min},
                                                                              {"k-max", p.k_max},
                                                                              {"k-power", p.k_power},
                                                                              {"Kbar-min", p.K_min},
                                                                              {"Kbar-max", p.K_max},
                                                                              {"policy-tol", p.policy_tol},
                                                                              {"policy-damping", p.policy_damping},
                                                                              {"initial-capital", p.initial_capital},
                                                                              {"damping", p.damping},
                                                                              {"tol", p.tol}})
    add(name, number(v));
  add("grid", std::to_string(p.nk) + "," + std::to_string(p.nK));
  add("policy-max-iter", std::to_string(p.policy_max_iter));
  add("policy-method", to_string(p.policy_method));
  add("agents", std::to_string(p.agents));
  add("periods", std::to_string(p.periods));
  add("discard", std::to_string(p.discard));
  add("seed", std::to_string(p.seed));
  add("interp", to_string(p.interp));
  add("panel-locate", to_string(p.panel_locate));
  add("panel-teams", std::to_string(p.panel_teams));
  add("employment-draw", to_string(p.employment_draw));
  add("panel-start", to_string(p.panel_start));
  add("coefficient-change", to_string(p.coefficient_change));
  add("burn-in", std::to_string(p.burn_in));
  add("init-coeffs", number(p.init_coeffs[0]) + "," + number(p.init_coeffs[1]) + "," + number(p.init_coeffs[2]) + "," +
                         number(p.init_coeffs[3]));
  auto const& st = p.start;
  std::uint64_t h = hash_bytes(st.policy.data(), st.policy.size() * sizeof(double));
  h = hash_bytes(st.capital.data(), st.capital.size() * sizeof(double), h);
  h = hash_bytes(st.employed.data(), st.employed.size() * sizeof(std::int32_t), h);
  h = hash_bytes(&st.z_prev, sizeof st.z_prev, h);
  add("restart-data", st.policy.empty() && st.capital.empty() ? "none" : std::to_string(h));
  return f;
}

// The outer loop's own state besides the policy and the panel.
struct LoopState {
  int iteration = 0;  // outer iterations done
  bool finished = false;  // converged or stopped: nothing left to iterate
  std::array<double, 4> b{};  // the law the next iteration's agents perceive
  double last_diff = 0;
  long simulated_periods = 0;
  std::vector<double> K_host;  // the last panel's K_0..K_T
  // What ended an unconverged loop: 0 nothing (yet), 1 a non-finite coefficient change, 2 the
  // first Euler-equation solve stopped at --policy-max-iter (stop_value: its last change).
  int stop_code = 0;
  double stop_value = 0;
};

template <class V>
std::vector<double> to_host_doubles(V const& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) out[i] = double(h.data()[i]);  // float -> double is exact
  return out;
}

template <class V>
void from_host_doubles(V const& v, std::vector<double> const& values) {
  auto h = Kokkos::create_mirror_view(v);
  using T = typename V::non_const_value_type;
  for (std::size_t i = 0; i < h.size(); ++i) h.data()[i] = T(values[i]);
  Kokkos::deep_copy(v, h);
}

// The checkpoint after an outer iteration. panel_start: the cross-section the next simulation
// starts from (empty View: every agent at initial_capital), with its sum.
template <class G, class K>
run::Checkpoint make_checkpoint(std::string const& fingerprint, LoopState const& st, Result const& res, G const& g,
                                K const& panel_start, double panel_start_sum, K const& k_final) {
  run::Checkpoint c;
  c.fingerprint = fingerprint;
  c.set_scalar("iteration", std::int64_t(st.iteration));
  c.set_scalar("finished", std::int64_t(st.finished));
  c.set_scalar("stop_code", std::int64_t(st.stop_code));
  c.set_scalar("stop_value", st.stop_value);
  c.set("coeffs", std::vector<double>(st.b.begin(), st.b.end()));
  c.set_scalar("last_diff", st.last_diff);
  c.set_scalar("simulated_periods", std::int64_t(st.simulated_periods));
  c.set("K_path", st.K_host);
  c.set("policy", to_host_doubles(g));
  c.set("panel_start", panel_start.extent(0) > 0 ? to_host_doubles(panel_start) : std::vector<double>{});
  c.set_scalar("panel_start_sum", panel_start_sum);
  c.set("capital_final", to_host_doubles(k_final));
  // The result's running fields.
  c.set("result_coeffs", std::vector<double>(res.coeffs.begin(), res.coeffs.end()));
  c.set("result_r_squared", std::vector<double>(res.r_squared.begin(), res.r_squared.end()));
  c.set("result_regression_se", std::vector<double>(res.regression_se.begin(), res.regression_se.end()));
  c.set_scalar("result_coeff_change", res.coeff_change);
  c.set_scalar("result_converged", std::int64_t(res.converged));
  c.set("result_policy_iterations", std::vector<std::int64_t>{res.policy_iterations_total, res.policy_iterations_last,
                                                              res.policy_iterations_first});
  c.set_scalar("result_panel_carries", std::int64_t(res.panel_carries));
  std::vector<double> history;
  for (auto const& h : res.coeff_history) history.insert(history.end(), h.begin(), h.end());
  c.set("result_coeff_history", history);
  return c;
}

// Restores what make_checkpoint saved into the loop state, the result, g and k_final; returns the
// panel's start (empty: every agent at initial_capital) and sets its sum. Throws InvalidInput
// naming the file when an entry is missing or has another size than these parameters give.
template <class G, class K>
std::vector<double> restore_checkpoint(run::Checkpoint const& c, Params const& p, LoopState& st, Result& res,
                                       G const& g, K const& k_final, double& panel_start_sum) {
  try {
    st.iteration = int(c.integer("iteration"));
    st.finished = c.integer("finished") != 0;
    st.stop_code = int(c.integer("stop_code"));
    st.stop_value = c.scalar("stop_value");
    auto const& b = c.doubles("coeffs", 4);
    std::copy(b.begin(), b.end(), st.b.begin());
    st.last_diff = c.scalar("last_diff");
    st.simulated_periods = long(c.integer("simulated_periods"));
    st.K_host = c.doubles("K_path", long(p.periods) + 1);
    from_host_doubles(g, c.doubles("policy", long(g.size())));
    from_host_doubles(k_final, c.doubles("capital_final", p.agents));
    std::vector<double> start = c.doubles("panel_start");
    require(start.empty() || long(start.size()) == p.agents,
            "checkpoint '" + c.source + "': its panel start has " + std::to_string(start.size()) + " agents");
    panel_start_sum = c.scalar("panel_start_sum");
    auto copy = [&](char const* name, auto& arr) {
      auto const& v = c.doubles(name, long(arr.size()));
      std::copy(v.begin(), v.end(), arr.begin());
    };
    copy("result_coeffs", res.coeffs);
    copy("result_r_squared", res.r_squared);
    copy("result_regression_se", res.regression_se);
    res.coeff_change = c.scalar("result_coeff_change");
    res.converged = c.integer("result_converged") != 0;
    auto const& its = c.integers("result_policy_iterations", 3);
    res.policy_iterations_total = long(its[0]), res.policy_iterations_last = int(its[1]),
    res.policy_iterations_first = int(its[2]);
    res.panel_carries = int(c.integer("result_panel_carries"));
    auto const& h = c.doubles("result_coeff_history");
    require(h.size() % 4 == 0, "checkpoint '" + c.source + "': its coefficient history is not a list of 4-tuples");
    res.coeff_history.clear();
    for (std::size_t q = 0; q < h.size(); q += 4) res.coeff_history.push_back({h[q], h[q + 1], h[q + 2], h[q + 3]});
    res.iterations = st.iteration;
    return start;
  } catch (run::CheckpointError const& e) {
    throw InvalidInput(std::string("--resume: ") + e.what());
  }
}

}  // namespace parity::krusell_smith::detail
