#!/usr/bin/env python3
"""Peers for `parity-<backend> aiyagari`: the same Aiyagari (1994) stationary equilibrium solved by
other packages, for perf/runner.py (--peer NAME=PATH). Three implementations, each our code against
the package's public API, in its own file beside this one:

  aiyagari_ssj.py        sequence-jacobian: its Aiyagari household block (hetblocks.hh_sim.hh: the
                         endogenous grid method, Young's lotteries) on Parity's grid and chain.
  aiyagari_quantecon.py  QuantEcon (quantecon.markov.DiscreteDP): policy iteration over a discrete
                         choice of next assets on the grid, as in QuantEcon's Aiyagari lecture.
  aiyagari_jax.py        JAX: value-based Howard policy iteration over (a, z, a') on the grid, as in
                         "Quantitative Economics with JAX", float64.

The model (docs/models/aiyagari.md): CRRA utility, log labour an AR(1) with unconditional standard
deviation sigma, discretised by Tauchen (1986) over +- `--tauchen-width` deviations and normalised
to mean 1 under the chain's stationary distribution; Cobb-Douglas firm, r = alpha K^(alpha-1) -
delta, w = (1-alpha) K^alpha; borrowing limit 0; the asset grid a_i = a_max (i/(n-1))^curvature.
The discrete-choice peers (QuantEcon, JAX) restrict next assets to the grid's nodes, so their r
differs from the endogenous grid method's by the grid's discretisation; sequence-jacobian solves
the same discretised problem as Parity and agrees with it to about the tolerances.

Every peer closes the market in the same way as Parity: the bracket is searched from below the
complete-markets rate, r_k = 1/beta - 1 - (1/beta - 1 + delta) 2^-k, k = 1, 2, ..., until capital
supply exceeds demand, then scipy.optimize.brentq closes it to --tol. Each r is evaluated once
(the root finder's repeated calls are answered from a cache); `iterations` counts the evaluations.

Timed (timing.total_seconds): the whole equilibrium search, after one untimed evaluation of the
household and its distribution at the first rate of the bracket search (numba and XLA compilation,
package set-up); phases: household, distribution (where the package separates them) and market
(the rest: root finding, firm, host loop). The command line is Parity's:

    aiyagari_ssj.py aiyagari --asset-points 1000 --precision double --json report.json --quiet
    aiyagari_ssj.py info --json info.json
    aiyagari_peer.py --impl ssj aiyagari ...          (the same, the implementation named)

Only double precision: --precision float writes {"status": "skipped", ...} and exits 0, as does
a missing package or a size that would not fit in memory (timing.total_seconds is then NaN: no
time was measured). Unknown options exit 2; a run that does not converge exits 3.
"""
import argparse
import importlib
import math
import os
import sys
import time

IMPLS = ("ssj", "quantecon", "jax")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from markov_chain import stationary, tauchen  # noqa: E402
from peer_report import Skip, backend_facts, cpu_name, finish, mark_skipped  # noqa: E402,F401


def parser(with_impl, mod=None):
    ap = argparse.ArgumentParser(prog=os.path.basename(sys.argv[0]), allow_abbrev=False,
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["aiyagari", "info"])
    if with_impl:
        ap.add_argument("--impl", choices=IMPLS, required=True)
    ap.add_argument("--precision", choices=["float", "double"], default="double")
    ap.add_argument("--json", default=None, help="report file ('-': standard output)")
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("--threads", type=int, default=None, help="accepted for the runner's sake; not used")
    ap.add_argument("--crra", type=float, default=3.0)
    ap.add_argument("--beta", type=float, default=0.96)
    ap.add_argument("--rho", type=float, default=0.6)
    ap.add_argument("--sigma", type=float, default=0.2, help="unconditional s.d. of log labour")
    ap.add_argument("--income-states", type=int, default=7)
    ap.add_argument("--tauchen-width", type=float, default=3.0)
    ap.add_argument("--alpha", type=float, default=0.36)
    ap.add_argument("--delta", type=float, default=0.08)
    ap.add_argument("--asset-points", type=int, default=1000)
    ap.add_argument("--asset-max", type=float, default=150.0)
    ap.add_argument("--grid-curvature", type=float, default=2.0)
    ap.add_argument("--tol", type=float, default=1e-8, help="width of the final bracket of r")
    ap.add_argument("--policy-tol", type=float, default=1e-10)
    ap.add_argument("--distribution-tol", type=float, default=1e-12)
    ap.add_argument("--max-iter", type=int, default=60, help="evaluations of r at most")
    if mod is not None and hasattr(mod, "add_options"):
        mod.add_options(ap)
    return ap


def check(ap, a):
    bad = [("--crra", a.crra > 0), ("--beta", 0 < a.beta < 1), ("--rho", abs(a.rho) < 1), ("--sigma", a.sigma > 0),
           ("--income-states", a.income_states >= 2), ("--tauchen-width", a.tauchen_width > 0),
           ("--alpha", 0 < a.alpha < 1), ("--delta", 0 <= a.delta <= 1), ("--asset-points", a.asset_points >= 10),
           ("--asset-max", a.asset_max > 0), ("--grid-curvature", a.grid_curvature >= 1),
           ("--tol", a.tol > 0), ("--policy-tol", a.policy_tol > 0), ("--distribution-tol", a.distribution_tol > 0),
           ("--max-iter", a.max_iter >= 1)]
    for name, ok in bad:
        if not ok:
            ap.error(f"{name} is out of range")
    for name, v in vars(a).items():
        if isinstance(v, float) and not math.isfinite(v):
            ap.error(f"--{name.replace('_', '-')} is not finite")


class Model:
    """The discretised model, numpy arrays: `grid` (n_k), `labour` (n_z), `transition` (n_z x n_z,
    rows sum to 1), `labour_mass` (the chain's stationary distribution)."""

    def __init__(self, a):
        import numpy as np
        self.p = a
        self.crra, self.beta, self.alpha, self.delta = a.crra, a.beta, a.alpha, a.delta
        self.labour, self.transition = tauchen(a.income_states, a.rho, a.sigma * math.sqrt(1 - a.rho ** 2),
                                               a.tauchen_width)
        self.labour = np.exp(self.labour)
        self.labour_mass = stationary(self.transition)
        self.labour /= self.labour_mass @ self.labour
        n = a.asset_points
        self.grid = a.asset_max * (np.arange(n) / (n - 1)) ** a.grid_curvature

    def capital_demand(self, r):
        return (self.alpha / (r + self.delta)) ** (1 / (1 - self.alpha))

    def wage(self, r):
        return (1 - self.alpha) * self.capital_demand(r) ** self.alpha


def equilibrium(model, peer):
    """Parity's bracket search and Brent's method (scipy.optimize.brentq) on capital supply minus
    demand. `peer.supply(r, w)` returns (supply, facts: inner iterations, "converged") and leaves
    the masses [labour state, asset node] in `peer.last_mass`; it adds its time to `peer.phases`.
    Converged: the bracket closed to --tol and the inner solves at the root converged."""
    from scipy.optimize import brentq
    p = model.p
    cache, history = {}, []

    def excess(r):
        if r not in cache:
            supply, facts = peer.supply(r, model.wage(r))
            demand = model.capital_demand(r)
            cache[r] = (supply - demand, supply, facts, peer.last_mass)
            history.append({"interest_rate": r, "capital_supply": supply, "capital_demand": demand, **facts})
        return cache[r][0]

    top = 1 / p.beta - 1
    span = top + p.delta
    lo = hi = None
    for k in range(1, 25):
        r = top - span * 2.0 ** -k
        if excess(r) > 0:
            hi = r
            break
        lo = r
    if hi is None:
        raise Skip(f"no equilibrium r below 1/beta - 1 on this grid: raise --asset-max (now {p.asset_max})")
    if lo is None:
        lo = -p.delta + 0.01 * span
        if excess(lo) >= 0:
            raise Skip(f"capital supply exceeds demand even at r = {lo}")
    bracket_evaluations = len(history)
    root, info = brentq(excess, lo, hi, xtol=p.tol, maxiter=p.max_iter, full_output=True, disp=False)
    excess(root)  # cached unless the root is a point Brent's method did not evaluate
    _, supply, facts, mass = cache[root]
    converged = info.converged and facts.get("converged", True)
    return root, supply, mass, history, converged, bracket_evaluations


def run_model(a, impl, mod):
    import numpy as np
    model = Model(a)
    peer = mod.Peer(model)  # may raise Skip (too large for memory)
    first = 1 / a.beta - 1 - (1 / a.beta - 1 + a.delta) / 2
    t = time.perf_counter()
    peer.supply(first, model.wage(first))  # untimed: compilation and package set-up
    warmup = time.perf_counter() - t
    peer.phases = {k: 0.0 for k in peer.phases}
    t = time.perf_counter()
    r, capital, mass, history, converged, bracket_evaluations = equilibrium(model, peer)
    total = time.perf_counter() - t
    phases = dict(peer.phases)
    phases["market"] = max(0.0, total - sum(phases.values()))
    return {
        "status": "converged" if converged else "not_converged",
        "iterations": len(history),
        "timing": {"total_seconds": total, "phases": {k: {"seconds": v} for k, v in phases.items()},
                   "warmup_seconds": warmup,
                   "note": "the whole equilibrium search (bracket search and Brent's method, every household and "
                           "distribution solve) after one untimed evaluation at the first rate"},
        "results": {"interest_rate": r, "capital": capital, "capital_demand": model.capital_demand(r),
                    "wage": model.wage(r), "method": peer.method,
                    "mass_at_asset_max": float(np.sum(mass[:, -1])),
                    "labour": model.labour.tolist(), "labour_distribution": model.labour_mass.tolist(),
                    "bracket_search_evaluations": bracket_evaluations, "history": history},
    }


def main(impl=None, argv=None):
    argv = sys.argv[1:] if argv is None else argv
    with_impl = impl is None
    if with_impl:  # the implementation's own options join the parser
        pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
        pre.add_argument("--impl", choices=IMPLS)
        impl = pre.parse_known_args(argv)[0].impl
    sys.path.insert(0, HERE)
    mod = importlib.import_module(f"aiyagari_{impl}") if impl else None
    ap = parser(with_impl, mod)
    a = ap.parse_args(argv)
    check(ap, a)
    params = {k: v for k, v in vars(a).items() if k not in ("command", "json", "quiet", "impl")}
    doc = {"model": "aiyagari", "peer": f"aiyagari-{impl}", "precision": a.precision, "parameters": params}
    backend = backend_facts(impl)
    code = 0
    try:
        backend.update(mod.backend())  # raises Skip when the package is missing
        if a.command == "aiyagari":
            if a.precision != "double":
                raise Skip("double precision only (the packages' float paths are not the ones they document)")
            doc.update(run_model(a, impl, mod))
            code = 0 if doc["status"] == "converged" else 3
    except Skip as e:
        mark_skipped(doc, e)

    def summary(doc):
        res = doc["results"]
        return (f"r = {100 * res['interest_rate']:.6f}%, K = {res['capital']:.6f} "
                f"({doc['timing']['total_seconds']:.3f} s, {doc['iterations']} evaluations, status {doc['status']})")

    finish(doc, backend, f"aiyagari-{impl}", a.command, a.json, a.quiet, summary)
    return code


if __name__ == "__main__":
    # Through the module's own name, so that the implementations' Skip is the one caught here.
    sys.path.insert(0, HERE)
    import aiyagari_peer
    sys.exit(aiyagari_peer.main())
