#pragma once
// What a finished solve reports beyond V and u (solver.hpp): values at a few reference states and
// the simulated loss of a policy.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "parity/dual_control/detail/objective.hpp"
#include "parity/dual_control/detail/problem.hpp"
#include "parity/dual_control/params.hpp"
#include "parity/dual_control/result.hpp"
#include "parity/random/philox.hpp"
#include "parity/run/progress.hpp"

namespace parity::dual_control::detail {

// V, u (and the policy's own value) at a few states, on the device.
template <class ExecutionSpace, class Real, class MemorySpace>
void reference_values(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem, Policy which,
                      Grid3<Real, MemorySpace> const& v, Grid3<Real, MemorySpace> const& v_myopic,
                      BrentSettings const& bs, std::vector<State> const& states, std::vector<ReferenceValue>& out) {
  int const n = int(states.size());
  out.clear();
  if (n == 0) return;
  Kokkos::View<Real* [5], MemorySpace> d("parity::dual_control::reference_values", n);
  auto h = Kokkos::create_mirror_view(d);
  for (int r = 0; r < n; ++r) {
    h(r, 0) = Real(states[r].x);
    h(r, 1) = Real(states[r].mu);
    h(r, 2) = Real(states[r].Sigma);
  }
  Kokkos::deep_copy(d, h);
  Grid3<Real const, MemorySpace> const vc = v, vm = v_myopic;
  Kokkos::parallel_for(
      "parity::dual_control::reference_values", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n), KOKKOS_LAMBDA(int r) {
        Real const x = d(r, 0), mu = d(r, 1), S = d(r, 2);
        auto const& pr = problem;
        Real u = 0;
        if (which == Policy::myopic) u = pr.myopic(x, mu, S);
        if (which == Policy::optimal) u = minimize_objective(pr, vc, x, mu, S, pr.myopic(x, mu, S), bs).x;
        d(r, 3) = u;
        d(r, 4) = pr.interpolate(vc, x, mu, S);
        d(r, 2) = pr.interpolate(vm, x, mu, S);  // reuse column 2 for V_myopic (the state is kept on the host)
      });
  Kokkos::deep_copy(h, d);
  auto const inert = [&] {
    InertClosedForm f;
    f.a = double(problem.inert_a);
    f.b = double(problem.inert_b);
    f.c = double(problem.inert_c);
    return f;
  }();
  for (int r = 0; r < n; ++r) {
    ReferenceValue rv;
    rv.state = states[r];
    rv.u = double(h(r, 3));
    rv.V = double(h(r, 4));
    rv.V_myopic = double(h(r, 2));
    rv.V_inert = inert(states[r].x);
    out.push_back(rv);
  }
}

// Simulates the controlled system under one policy from the initial belief: path p draws the true
// beta from N(mu0, Sigma0) and then one shock per period from Philox stream p, so every policy
// (and every backend) sees the same beta and shocks (common random numbers). Returns the mean
// realised discounted loss sum_t delta^t [(x_t - xbar)^2 + omega (u_t - ubar)^2] and its standard
// error, the mean belief variance at the horizon and the mean |mu_T - beta|.
// The paths run in chunks of at least four times the backend's concurrency (at most 100 chunks), so
// long simulations report progress; the chunks' sums are added in order, the same on every backend.
// Nothing (std::nullopt) when out_of_time() says the time limit passed before the last chunk.
// out_of_time is a std::function: nvcc refuses a host lambda's type as a template argument of a
// function that holds device lambdas.
template <class ExecutionSpace, class Real, class MemorySpace>
std::optional<SimulationSummary> simulate(ExecutionSpace const& space, Problem<Real, MemorySpace> const& problem,
                                          Policy which, Grid3<Real, MemorySpace> const& v, BrentSettings const& bs,
                                          Params const& params, run::Progress& progress, Kokkos::Timer const& timer,
                                          std::function<bool()> const& out_of_time) {
  Grid3<Real const, MemorySpace> const vc = v;
  Real const x0 = Real(params.initial_state.x), mu0 = Real(params.initial_state.mu),
             S0 = Real(params.initial_state.Sigma);
  Real const sigma = Kokkos::sqrt(problem.sig2);
  std::uint64_t const seed = params.seed;
  int const horizon = params.horizon;
  double sum = 0, sumsq = 0, sum_S = 0, sum_err = 0;
  long const paths = params.simulate_paths;
  long const chunk = std::max(4L * long(space.concurrency()), (paths + 99) / 100);
  std::string const stage = "simulation (" + to_string(which) + " policy)";
  for (long begin = 0; begin < paths; begin += chunk) {
    long const end = std::min(paths, begin + chunk);
    double c_sum = 0, c_sumsq = 0, c_S = 0, c_err = 0;
    Kokkos::parallel_reduce(
        "parity::dual_control::simulate",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, begin, end),
        KOKKOS_LAMBDA(long path, double& s, double& s2, double& sS, double& se) {
          random::PhiloxStream<Real> rng(seed, std::uint64_t(path));
          Real const beta = mu0 + Kokkos::sqrt(S0) * rng.normal();
          Real x = x0, mu = mu0, S = S0, discount = 1;
          double loss = 0;
          for (int t = 0; t < horizon; ++t) {
            Real u = 0;
            if (which == Policy::myopic) u = problem.myopic(x, mu, S);
            if (which == Policy::optimal) u = minimize_objective(problem, vc, x, mu, S, problem.myopic(x, mu, S), bs).x;
            Real const eps = sigma * rng.normal();
            Real const xn = problem.alpha + beta * u + problem.gamma * x + eps;
            Real const dx = xn - problem.xbar, du = u - problem.ubar;
            loss += double(discount * (dx * dx + problem.omega * du * du));
            discount *= problem.delta;
            Real const s2n = u * u * S + problem.sig2;
            mu += S * u * (xn - problem.alpha - problem.gamma * x - mu * u) / s2n;
            S = S * problem.sig2 / s2n;
            x = xn;
          }
          s += loss;
          s2 += loss * loss;
          sS += double(S);
          se += double(Kokkos::fabs(mu - beta));
        },
        Kokkos::Sum<double>(c_sum), Kokkos::Sum<double>(c_sumsq), Kokkos::Sum<double>(c_S), Kokkos::Sum<double>(c_err));
    sum += c_sum, sumsq += c_sumsq, sum_S += c_S, sum_err += c_err;
    run::ProgressLine line{stage, end, -1.0, timer.seconds(),
                           std::to_string(end) + "/" + std::to_string(paths) + " paths"};
    line.total = paths;
    progress.update(line);
    if (end < paths && out_of_time()) return std::nullopt;
  }
  double const n = double(params.simulate_paths);
  SimulationSummary out;
  out.policy = to_string(which);
  out.mean_loss = sum / n;
  double const var = n > 1 ? std::max(sumsq / n - out.mean_loss * out.mean_loss, 0.0) * n / (n - 1) : 0.0;
  out.std_error = std::sqrt(var / n);
  out.mean_final_Sigma = sum_S / n;
  out.mean_abs_final_mu_error = sum_err / n;
  return out;
}

}  // namespace parity::dual_control::detail
