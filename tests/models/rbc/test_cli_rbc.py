"""rbc on the command line: V and the policy against an independent numpy value iteration of the
same discretised model (a numpy Tauchen chain, every choice tried, vectorised), the Euler errors
recomputed from the arrays, the report, and bad input."""
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
from markov_chain import tauchen  # noqa: E402
from parity_cli import CliTestCase, run  # noqa: E402  (takes the executable from argv[1])


def parity(*args, timeout=300):
    return run("--threads", "2", "rbc", *args, timeout=timeout)


def reference(points, crra=2.0, beta=0.984, alpha=0.35, delta=0.01, rho=0.95, sigma=0.005, states=4, span=0.05,
              tol=1e-9):
    y, P = tauchen(states, rho, sigma, 3.0)
    Z = np.exp(y)
    kss = ((1 / beta - 1 + delta) / alpha) ** (1 / (alpha - 1))
    css = kss ** alpha - delta * kss
    k = np.linspace((1 - span) * kss, (1 + span) * kss, points)
    c = Z[:, None, None] * k[None, :, None] ** alpha + (1 - delta) * k[None, :, None] - k[None, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where(c > 0, c ** (1 - crra) / (1 - crra), -np.inf)
    V = np.full((states, points), css ** (1 - crra) / (1 - crra) / (1 - beta))
    for _ in range(100000):
        Q = u + beta * (P @ V)[:, None, :]
        TV = Q.max(axis=2)
        done = np.max(np.abs(TV - V)) < tol
        V = TV
        if done:
            break
    return k, Z, P, V, Q.argmax(axis=2)


class RbcCli(CliTestCase):
    def test_matches_an_independent_value_iteration(self):
        with tempfile.TemporaryDirectory() as d:
            report = os.path.join(d, "r.json")
            out = os.path.join(d, "arrays")
            r = parity("--capital-points", "80", "--tol", "1e-9", "-q", "--json", report, "--output", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(report) as fh:
                doc = json.load(fh)
            self.assertEqual(doc["status"], "converged")
            k, Z, P, V, policy = reference(80)
            self.assertTrue(np.allclose(np.load(os.path.join(out, "capital.npy")), k, rtol=1e-14, atol=0))
            self.assertTrue(np.allclose(np.load(os.path.join(out, "productivity_transition.npy")), P, atol=1e-14))
            value = np.load(os.path.join(out, "value.npy"))
            self.assertLess(np.max(np.abs(value - V)), 1e-7)
            kn = np.load(os.path.join(out, "capital_next.npy"))
            self.assertTrue(np.array_equal(kn, k[policy]))
            # The Euler errors from the arrays, over interior choices.
            c = np.load(os.path.join(out, "consumption.npy"))
            errors = []
            for z in range(4):
                for i in range(80):
                    j = policy[z, i]
                    if j == 0 or j == 79:
                        continue
                    rhs = sum(P[z, zn] * c[zn, j] ** -2.0 * (0.35 * Z[zn] * k[j] ** -0.65 + 0.99) for zn in range(4))
                    errors.append(abs(1 - (0.984 * rhs) ** -0.5 / c[z, i]))
            res = doc["results"]
            self.assertAlmostEqual(res["euler_error_max_log10"], math.log10(max(errors)), places=9)
            self.assertAlmostEqual(res["euler_error_mean_log10"], math.log10(np.mean(errors)), places=9)
            self.assertEqual(len(res["residual_history"]), doc["iterations"])

    def test_bad_input(self):
        self.assert_bad_input(parity("--beta", "1"), "--beta")
        self.assert_bad_input(parity("--capital-points", "1"), "--capital-points")
        self.assert_bad_input(parity("--capital-span", "2"), "--capital-span")
        self.assert_bad_input(parity("--search", "golden"), "--search")
        self.assert_bad_input(parity("--howard-steps", "-1"), "--howard-steps")


if __name__ == "__main__":
    unittest.main()
