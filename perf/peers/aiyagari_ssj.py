#!/usr/bin/env python3
"""Aiyagari peer on sequence-jacobian (PyPI `sequence-jacobian`): the package's own household
block `sequence_jacobian.hetblocks.hh_sim.hh` (the endogenous grid method with linear
interpolation, the borrowing limit imposed on the interpolated policy; its distribution by Young's
lotteries) solved by the block's `steady_state` at each r, on Parity's asset grid and Tauchen chain
(handed in as `a_grid` and `Pi`, income y = w l), with backward_tol = --policy-tol (sup change of
the saving policy, which equals the sup change of consumption that Parity tests) and forward_tol =
--distribution-tol (sup change of the masses). Each r starts from the package's own initial guess
and a uniform distribution over assets (Parity starts from the previous r's policy and masses).
Capital supply: the stationary masses at the start of the period times the grid. One thread
(numba kernels, numpy). See aiyagari_peer.py for the command line and the market.

    perf/peers/aiyagari_ssj.py aiyagari --asset-points 1000 --precision double --json r.json --quiet
"""
import sys
import time

from aiyagari_peer import Skip, cpu_name


def backend():
    try:
        from importlib.metadata import version
        import numba
        import numpy
        from sequence_jacobian.hetblocks.hh_sim import hh  # noqa: F401
    except ImportError as e:
        raise Skip(f"sequence-jacobian not importable ({e}): {sys.executable} -m pip install sequence-jacobian")
    return {"execution_space": "host CPU, one thread: sequence-jacobian's household block (numba, numpy)",
            "device_name": cpu_name(), "concurrency": 1, "kernel_compiler": f"numba {numba.__version__}",
            "versions": {"sequence-jacobian": version("sequence-jacobian"), "numba": numba.__version__,
                         "numpy": numpy.__version__, "python": sys.version.split()[0]}}


class Peer:
    method = ("sequence-jacobian hetblocks.hh_sim.hh steady_state: endogenous grid method (linear interpolation, "
              "backward_tol = policy tol on the saving policy, checked every 10 sweeps) and Young's lotteries "
              "(forward_tol = distribution tol, checked every 10 steps), cold start at each r; "
              "r by Parity's bracket search and scipy.optimize.brentq")

    def __init__(self, model):
        from sequence_jacobian.hetblocks.hh_sim import hh
        self.hh, self.model = hh, model
        self.phases = {"household_and_distribution": 0.0}
        self.last_mass = None

    def supply(self, r, w):
        m, p = self.model, self.model.p
        calibration = {"a_grid": m.grid, "y": w * m.labour, "r": r, "beta": p.beta, "eis": 1 / p.crra,
                       "Pi": m.transition}
        t = time.perf_counter()
        ss = self.hh.steady_state(calibration, backward_tol=p.policy_tol, backward_maxit=200_000,
                                  forward_tol=p.distribution_tol, forward_maxit=2_000_000)
        self.phases["household_and_distribution"] += time.perf_counter() - t
        mass = ss.internals["hh"]["Dbeg"]  # [labour state, asset node], before the labour shock
        self.last_mass = mass
        return float(mass.sum(axis=0) @ m.grid), {"mean_saving": float(ss["A"])}


if __name__ == "__main__":
    import aiyagari_peer
    sys.exit(aiyagari_peer.main("ssj"))
