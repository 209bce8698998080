#!/usr/bin/env python3
"""Aiyagari peer on QuantEcon (PyPI `quantecon`): the household of QuantEcon's Aiyagari lecture,
a quantecon.markov.DiscreteDP whose states are (asset node, labour state) and whose actions are the
next asset node, reward u((1 + r) a + w l - a') where consumption is positive, solved by the
package's policy iteration (exact policy evaluation by a sparse linear solve, until the policy
repeats). Next assets are restricted to the grid's nodes, so r differs from the endogenous grid
method's by the grid's discretisation (it converges to it as the grid is refined).

Capital supply: the mean assets of the stationary distribution of the controlled chain
`result.mc`, reached from zero assets (labour at its stationary distribution) by iterating the
chain's sparse transition matrix until the sup change of the masses is below --distribution-tol
(at most 100,000 steps, Parity's cap). The lecture takes `result.mc.stationary_distributions[0]`
(GTH elimination, O((n_k n_z)^3): minutes a rate at 1,000 points); `--stationary gth` does that
instead, on the recurrent class reached from zero assets. On a coarse grid the chain can have
absorbing rich nodes (nodes so far apart at the top of the grid that a rich household stays put
for every labour state): mass from zero assets then drains into them ever more slowly, the
iteration stops at its cap and the status is not_converged (200 points on the default grid); at
1,000 points the chain has one recurrent class.

The lecture's product formulation holds a dense Q of (n_k n_z) x n_k x (n_k n_z) doubles (392 GB at
1,000 points); here DiscreteDP's state-action formulation holds the same problem with a sparse Q
of the feasible pairs (n_z entries a row). Sizes whose arrays would pass MEMORY_BUDGET_BYTES of
host memory are skipped (status "skipped", with the memory they would need). One thread. See
aiyagari_peer.py for the command line and the market.

    perf/peers/aiyagari_quantecon.py aiyagari --asset-points 1000 --precision double --json r.json -q
"""
import sys
import time

from aiyagari_peer import Skip, cpu_name

MEMORY_BUDGET_BYTES = 32e9
MAX_DISTRIBUTION_STEPS = 100_000  # Parity's cap on distribution steps


def backend():
    try:
        import numba
        import numpy
        import quantecon
        import scipy
        from quantecon.markov import DiscreteDP  # noqa: F401
    except ImportError as e:
        raise Skip(f"quantecon not importable ({e}): {sys.executable} -m pip install quantecon")
    return {"execution_space": "host CPU, one thread: quantecon.markov.DiscreteDP (numba, scipy.sparse)",
            "device_name": cpu_name(), "concurrency": 1, "kernel_compiler": f"numba {numba.__version__}",
            "versions": {"quantecon": quantecon.__version__, "scipy": scipy.__version__, "numpy": numpy.__version__,
                         "python": sys.version.split()[0]}}


def add_options(ap):
    ap.add_argument("--stationary", choices=["iterate", "gth"], default="iterate",
                    help="the stationary distribution: iterate the chain from zero assets, or GTH (the lecture's)")


def utility(c, crra):
    import numpy as np
    return np.log(c) if crra == 1 else c ** (1 - crra) / (1 - crra)


class Peer:
    METHOD = ("quantecon.markov.DiscreteDP (state-action pairs, sparse Q) policy iteration over next assets on the "
              "grid; stationary distribution of the controlled chain {}; r by Parity's bracket search and "
              "scipy.optimize.brentq")

    def __init__(self, model):
        nk, nz = len(model.grid), len(model.labour)
        pairs = nk * nk * nz  # every (a, l, a'): a bound on the feasible pairs
        self.gth = model.p.stationary == "gth"
        need = pairs * (nz * 16 + 40)  # Q (values, column indices), R, the pairs' indices
        need += self.gth * (nk * nz) ** 2 * 8  # the dense chain GTH eliminates
        if need > MEMORY_BUDGET_BYTES:
            raise Skip(f"DiscreteDP at {nk} asset points needs about {need / 1e9:.0f} GB of host memory (a sparse Q "
                       f"of up to {pairs:.3g} state-action pairs, {nz} entries each"
                       f"{', and the dense chain GTH eliminates' if self.gth else ''}); the lecture's dense Q would "
                       f"need {(nk * nz) ** 2 * nk * 8 / 1e9:.3g} GB; budget {MEMORY_BUDGET_BYTES / 1e9:.0f} GB")
        self.method = self.METHOD.format(
            "by quantecon's GTH on the recurrent class reached from zero assets (mc.stationary_distributions)"
            if self.gth else "reached from zero assets by iterating its sparse transition matrix to the distribution "
            "tol")
        self.model = model
        self.phases = {"household": 0.0, "distribution": 0.0}
        self.last_mass = None

    def supply(self, r, w):
        import numpy as np
        from quantecon.markov import DiscreteDP
        from scipy import sparse
        m, p = self.model, self.model.p
        grid, nz = m.grid, len(m.labour)
        nk = len(grid)
        t = time.perf_counter()
        # State s = i n_z + j (asset node i, labour state j); action k: next asset node.
        a_s, j_s = np.repeat(grid, nz), np.tile(np.arange(nz), nk)
        cash = (1 + r) * a_s + w * m.labour[j_s]
        feasible = np.searchsorted(grid, cash, side="left")  # nodes k with a_k < cash: positive consumption
        pairs = int(feasible.sum())
        s_idx = np.repeat(np.arange(nk * nz), feasible)
        a_idx = np.arange(pairs) - np.repeat(np.cumsum(feasible) - feasible, feasible)
        R = utility(cash[s_idx] - grid[a_idx], p.crra)
        cols = (a_idx[:, None] * nz + np.arange(nz)[None, :]).ravel()
        Q = sparse.csr_matrix((m.transition[j_s[s_idx]].ravel(), cols, np.arange(0, pairs * nz + 1, nz)),
                              shape=(pairs, nk * nz))
        ddp = DiscreteDP(R, Q, p.beta, s_idx, a_idx)
        res = ddp.solve(method="policy_iteration", max_iter=10_000)
        t1 = time.perf_counter()
        self.phases["household"] += t1 - t
        facts = {"policy_iterations": int(res.num_iter), "converged": bool(res.num_iter < res.max_iter),
                 "state_action_pairs": pairs}
        start = np.zeros(nk * nz)
        start[:nz] = m.labour_mass  # zero assets
        if self.gth:
            mass = self.gth_from(res.mc, facts)
        else:
            mass = self.iterate(res.mc.P, start, facts)
        self.phases["distribution"] += time.perf_counter() - t1
        mass = mass.reshape(nk, nz).T  # [labour state, asset node]
        self.last_mass = mass
        return float(mass.sum(axis=0) @ grid), facts

    def iterate(self, P, mass, facts):
        import numpy as np
        forward = P.T.tocsr()
        p = self.model.p
        for step in range(1, MAX_DISTRIBUTION_STEPS + 1):
            new = forward @ mass
            change = np.max(np.abs(new - mass))
            mass = new
            if change < p.distribution_tol:
                break
        facts.update(distribution_iterations=step, converged=bool(facts["converged"] and change < p.distribution_tol))
        return mass

    def gth_from(self, mc, facts):
        from scipy.sparse import csgraph
        reached = set(csgraph.breadth_first_order(mc.P, 0, directed=True, return_predecessors=False).tolist())
        classes = mc.recurrent_classes_indices
        dists = mc.stationary_distributions
        mine = [k for k, c in enumerate(classes) if reached.intersection(c.tolist())]
        facts.update(recurrent_classes=len(classes), recurrent_classes_reached=len(mine))
        if len(mine) != 1:  # the mixture would depend on absorption probabilities
            facts["converged"] = False
        return dists[mine[0]]


if __name__ == "__main__":
    import aiyagari_peer
    sys.exit(aiyagari_peer.main("quantecon"))
