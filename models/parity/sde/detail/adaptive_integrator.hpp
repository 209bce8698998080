#pragma once
// The kernels behind integrate_adaptive (adaptive.hpp): one path per thread, each with its own
// dyadic step size, driven by its virtual Brownian trees (brownian_tree.hpp), and the fixed-order
// sums of the paths' terminal states.
//
// Controller (step doubling on a Brownian tree, after Lamba 2003 and diffrax's
// VirtualBrownianTree): a path at fine index n with step h = T / 2^j (m finest units, n a multiple
// of m) takes one step of h and two of h / 2 with the increments W(t + h) - W(t), W(t + h / 2) -
// W(t) and W(t + h) - W(t + h / 2) of the same tree. The local error is the largest component of
// |x_h - x_h/2| / (atol + rtol max(|x|, |x_h/2|)). Error <= 1: the two half steps are accepted,
// and when the error is below 1/4 (the step doubled would still pass for local errors growing
// like h^2) and t is a multiple of 2h, the next step doubles. Error > 1: the step is rejected and
// halved; a rejected step's increments are the tree's, so the retried halves see the same path.
// Steps stay between max_step and min_step; at the finest level a step is accepted whatever its
// error. Sizes are dyadic and aligned on their own grid, so every step ends on the tree's grid and
// the last one ends at T exactly. A path stops after max_steps attempts (accepted plus rejected)
// and is counted as capped. Euler-Maruyama suits additive noise only: with multiplicative noise
// its estimate is the Milstein term, and rejecting on it biases the increments kept (Gaines &
// Lyons 1997); Milstein's estimate is of higher order and converges.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "parity/random/philox.hpp"
#include "parity/sde/detail/brownian_tree.hpp"
#include "parity/sde/stepper.hpp"

namespace parity::sde::detail {

// The tree nodes use component numbers below this one for their counters; a path's initial
// state draws from this component's counter range, so it never shares a Philox block with them.
inline constexpr int initial_state_component = 0xFFFF;

// What a path needs to know of the run.
struct AdaptiveRun {
  std::uint64_t seed = 0;
  double horizon = 1, atol = 0, rtol = 0;
  int coarsest_level = 0, initial_level = 0, finest_level = 0;  // steps T / 2^level
  long max_steps = 0;
  bool adaptive = true;
  KOKKOS_INLINE_FUNCTION int depth() const { return finest_level + 1; }  // half steps of the finest
};

// Integrates path `path` to T (or to its step cap); returns the terminal state and the counts.
template <Stepper S, class System>
KOKKOS_INLINE_FUNCTION void integrate_path(System const& system, AdaptiveRun const& run, std::int64_t path,
                                           State<System>& x, long& accepted, long& rejected, bool& capped) {
  using Real = typename System::real_type;
  constexpr int dim = System::dim, nd = System::noise_dim;
  int const depth = run.depth();
  random::PhiloxStream<Real> rng(run.seed, std::uint64_t(path), std::uint64_t(initial_state_component) << 48);
  system.initial(rng, x);
  BrownianTree tree[nd];
  for (int k = 0; k < nd; ++k) tree[k] = BrownianTree(run.seed, std::uint64_t(path), k, run.horizon, depth);
  double w_now[nd];
  for (int k = 0; k < nd; ++k) w_now[k] = 0;
  std::int64_t const end = std::int64_t(1) << depth;
  std::int64_t n = 0;
  int level = run.initial_level;
  accepted = rejected = 0;
  capped = false;
  while (n < end) {
    if (accepted + rejected >= run.max_steps) {
      capped = true;
      return;
    }
    std::int64_t const m = std::int64_t(1) << (depth - level);
    Real const h = Real(run.horizon / double(std::int64_t(1) << level));
    Noise<System> dw_full;
    double w_end[nd];
    for (int k = 0; k < nd; ++k) {
      w_end[k] = tree[k].at(n + m);
      dw_full[k] = Real(w_end[k] - w_now[k]);
    }
    if (!run.adaptive) {
      step_once<S>(system, tick_at(system, n), h, x, dw_full);
      for (int k = 0; k < nd; ++k) w_now[k] = w_end[k];
      n += m;
      ++accepted;
      continue;
    }
    Noise<System> dw_first, dw_second;
    for (int k = 0; k < nd; ++k) {
      double const w_mid = tree[k].at(n + m / 2);
      dw_first[k] = Real(w_mid - w_now[k]);
      dw_second[k] = Real(w_end[k] - w_mid);
    }
    State<System> coarse = x, fine = x;
    step_once<S>(system, tick_at(system, n), h, coarse, dw_full);
    Real const half = Real(0.5) * h;
    step_once<S>(system, tick_at(system, n), half, fine, dw_first);
    step_once<S>(system, tick_at(system, n + m / 2), half, fine, dw_second);
    double error = 0;
    for (int k = 0; k < dim; ++k) {
      double const scale =
          run.atol + run.rtol * Kokkos::fmax(Kokkos::fabs(double(x[k])), Kokkos::fabs(double(fine[k])));
      double const e = Kokkos::fabs(double(coarse[k]) - double(fine[k])) / scale;
      error = e > error || e != e ? e : error;  // a NaN counts as too large
    }
    if (error <= 1 || level == run.finest_level) {
      x = fine;
      for (int k = 0; k < nd; ++k) w_now[k] = w_end[k];
      n += m;
      ++accepted;
      if (error < 0.25 && level > run.coarsest_level && n % (2 * m) == 0) --level;
    } else {
      ++rejected;
      ++level;
    }
  }
}

}  // namespace parity::sde::detail
