"""aiyagari on the command line: the equilibrium interest rate against an independent solution of
the same discretised model (numpy: the same Tauchen chain and asset grid, the household's Euler
equation iterated with np.interp, and the stationary distribution solved as the null space of the
dense transition matrix rather than iterated), the report and arrays, and bad input."""
import json
import math
import os
import sys
from pathlib import Path
import tempfile
import unittest

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cli"))
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "perf" / "peers"))
from markov_chain import stationary, tauchen  # noqa: E402
from parity_cli import CliTestCase, run  # noqa: E402  (takes the executable from argv[1])


def parity(*args, timeout=300):
    return run("--threads", "2", "aiyagari", *args, timeout=timeout)


def reference_rate(crra=3.0, beta=0.96, rho=0.6, sigma=0.2, states=7, width=3.0, alpha=0.36, delta=0.08,
                   points=100, amax=60.0):
    y, P = tauchen(states, rho, sigma * math.sqrt(1 - rho * rho), width)
    labour = np.exp(y)
    labour /= stationary(P) @ labour
    a = amax * (np.arange(points) / (points - 1)) ** 2

    def excess(r):
        R = 1 + r
        K = (alpha / (r + delta)) ** (1 / (1 - alpha))
        w = (1 - alpha) * K ** alpha
        cash = R * a[None, :] + w * labour[:, None]
        c = cash - a[0]
        for _ in range(20000):
            c_today = (beta * R * (P @ c ** -crra)) ** (-1 / crra)
            a_endo = (c_today + a[None, :] - w * labour[:, None]) / R
            saving = np.empty_like(c)
            for z in range(states):
                saving[z] = np.interp(a, a_endo[z], a)
                top = a > a_endo[z, -1]  # np.interp holds the end value; extrapolate the last segment
                slope = (a[-1] - a[-2]) / (a_endo[z, -1] - a_endo[z, -2])
                saving[z, top] = a[-1] + slope * (a[top] - a_endo[z, -1])
                saving[z, a <= a_endo[z, 0]] = a[0]
            c_new = cash - saving
            done = np.max(np.abs(c_new - c)) < 1e-11
            c = c_new
            if done:
                break
        # Young's lotteries as a dense transition over (z, i), then its stationary distribution.
        s = np.clip(saving, a[0], a[-1])
        j = np.clip(np.searchsorted(a, s, side="right") - 1, 0, points - 2)
        omega = (a[j + 1] - s) / (a[j + 1] - a[j])
        M = np.zeros((states * points, states * points))
        for z in range(states):
            for i in range(points):
                row = z * points + i
                for zn in range(states):
                    M[row, zn * points + j[z, i]] += P[z, zn] * omega[z, i]
                    M[row, zn * points + j[z, i] + 1] += P[z, zn] * (1 - omega[z, i])
        mu = stationary(M).reshape(states, points)
        return (mu * a[None, :]).sum() - K

    lo, hi = 0.03, 1 / beta - 1 - 1e-4
    f_lo = excess(lo)
    assert f_lo < 0 < excess(hi)
    while hi - lo > 1e-9:
        mid = 0.5 * (lo + hi)
        if excess(mid) < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


class AiyagariCli(CliTestCase):
    def test_rate_matches_an_independent_solution(self):
        with tempfile.TemporaryDirectory() as d:
            report = os.path.join(d, "r.json")
            out = os.path.join(d, "arrays")
            r = parity("--asset-points", "100", "--asset-max", "60", "--tol", "1e-9", "-q", "--json", report,
                       "--output", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(report) as fh:
                doc = json.load(fh)
            self.assertEqual(doc["status"], "converged")
            res = doc["results"]
            self.assertLess(abs(res["interest_rate"] - reference_rate()), 1e-6)
            self.assertAlmostEqual(res["saving_rate"], 0.08 * res["capital"] ** (1 - 0.36), places=12)
            mass = np.load(os.path.join(out, "mass.npy"))
            self.assertEqual(mass.shape, (7, 100))
            self.assertAlmostEqual(mass.sum(), 1.0, places=9)
            assets = np.load(os.path.join(out, "assets.npy"))
            self.assertAlmostEqual(float((mass * assets[None, :]).sum()), res["capital"], places=9)
            with open(os.path.join(out, "manifest.json")) as fh:
                self.assertEqual(sorted(json.load(fh)["arrays"]),
                                 ["assets", "consumption", "labour", "labour_transition", "mass", "saving"])

    def test_bad_input(self):
        self.assert_bad_input(parity("--beta", "1"), "--beta")
        self.assert_bad_input(parity("--crra", "0"), "--crra")
        self.assert_bad_input(parity("--rho", "1"), "--rho")
        self.assert_bad_input(parity("--borrowing-limit", "1"), "--borrowing-limit")
        self.assert_bad_input(parity("--asset-points", "5"), "--asset-points")
        self.assert_bad_input(parity("--discretisation", "rouwenhorst", "--tauchen-width", "2"), "--tauchen-width")
        self.assert_bad_input(parity("--discretisation", "grid"), "--discretisation")
        self.assert_bad_input(parity("--asset-points", "50", "--asset-max", "0.5"), "--asset-max")


if __name__ == "__main__":
    unittest.main()
