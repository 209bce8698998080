// A built-in solver run from its parameter struct: the dual-control model's inert policy (u = 0)
// solved by value iteration on a grid with parity::dual_control::solve, for this program's own
// execution space, and its value function checked against the closed form V0(x) = a + b x + c x^2.
//
// On a uniform x grid of spacing h in a box wide enough that truncation does not matter, linear
// interpolation of the convex V0 overstates it by at most c h^2 / 4 per period, so the grid value
// at a node lies in [V0, V0 + delta / (1 - delta) c h^2 / 4].
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>

#include "parity/dual_control/solver.hpp"

namespace dc = parity::dual_control;

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;

  dc::Params p;  // the defaults of models/parity/dual_control/params.hpp, then:
  p.policy = dc::Policy::inert;
  p.alpha = 0.3, p.xbar = 0.5, p.gamma = 0.7, p.omega = 0.2, p.sigma_eps = 0.8;
  double const h = 0.125, half_width = 16;
  p.x_concentration = 0;  // uniform spacing in x
  p.x_lo = p.xbar - half_width;
  p.x_hi = p.xbar + half_width;
  p.nx = int(2 * half_width / h) + 1;  // xbar is the middle node
  p.nmu = p.nsigma = 2;  // the inert value does not depend on the belief
  p.reference_states = {{p.xbar, 0.0, 1.0}, {p.xbar + 2, 1.0, 0.5}};

  dc::Result const r = dc::solve<Space, double>(Space(), p);  // silent, one rank

  int const centre = p.nx / 2;
  double const v_grid = r.V[std::size_t(centre) * r.mu.size() * r.Sigma.size()];
  double const v_exact = dc::inert_closed_form(p)(p.xbar);
  double const bound = p.delta / (1 - p.delta) * r.inert.c * h * h / 4;
  std::printf("inert policy: %ld iterations, residual %.2e, converged %s\n", r.iterations, r.residual,
              r.converged ? "yes" : "no");
  std::printf("V(xbar) grid %.8f, closed form %.8f, difference %.3e (bound %.3e)\n", v_grid, v_exact, v_grid - v_exact,
              bound);
  for (auto const& ref : r.references)
    std::printf("  at (x %.2f, mu %.2f, Sigma %.2f): V %.6f, inert closed form %.6f\n", ref.state.x, ref.state.mu,
                ref.state.Sigma, ref.V, ref.V_inert);

  bool const ok = r.converged && v_grid - v_exact >= 0 && v_grid - v_exact <= bound;
  if (!ok) std::fprintf(stderr, "FAILED: the grid value is not within [V0, V0 + bound]\n");
  return ok ? 0 : 1;
}
