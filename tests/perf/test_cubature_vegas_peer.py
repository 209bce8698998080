#!/usr/bin/env python3
"""perf/peers/cubature_vegas.py: its integrands against its closed forms (a midpoint rule), its
closed forms against Parity's report (`exact`), the Q function against Q(1, x) = e^-x and
Q(2, x) = (1 + x) e^-x, Parity's stopping rule over plain Monte Carlo iterations, its command line
(a skipped report without the package, in float, for f1..f5; bad options exit 2), a whole run on a
plain Monte Carlo stand-in for the package, and the suite that names it.

    python3 tests/perf/test_cubature_vegas_peer.py build/openmp/backends/parity-openmp
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "perf/peers"))
sys.path.insert(0, str(ROOT / "perf"))
import cubature_vegas as peer  # noqa: E402
import runner  # noqa: E402

EXE = None
# One case per family: a box off the unit cube where the family allows, uneven a and u.
CASES = {
    "oscillatory": (["-0.2", "0.1", "0"], ["1.1", "0.9", "0.7"], "1.5,2.5,3", "0.3,0.5,0.5"),
    "product_peak": (["-0.2", "0.1", "0"], ["1.1", "0.9", "0.7"], "3,4,5", "0.2,0.6,0.4"),
    "corner_peak": (["0", "0", "0"], ["1", "0.8", "1.2"], "1,2,0.5", None),
    "gaussian": (["-0.2", "0.1", "0"], ["1.1", "0.9", "0.7"], "2,3,2.5", "0.4,0.6,0.3"),
    "c0": (["-0.2", "0.1", "0"], ["1.1", "0.9", "0.7"], "1,2,1.5", "0.4,0.6,0.3"),
    "discontinuous": (["0", "0", "0"], ["1", "1", "1"], "1,0.5,1.5", "0.3,0.6,0.5"),
}


def parsed(family):
    lower, upper, a, u = CASES[family]
    args = ["cubature", "--integrand", family, "--dim", "3", "--lower", ",".join(lower), "--upper", ",".join(upper),
            "--a", a] + (["--u", u] if u else [])
    ap = peer.parser()
    ns = ap.parse_args(args)
    return ns, peer.problem(ap, ns)


class Formulas(unittest.TestCase):
    def test_integrands_against_their_closed_forms(self):
        import numpy as np
        m = 100  # midpoint rule on m^3 points: error O(h^2); the discontinuity falls on cell edges
        for family in CASES:
            with self.subTest(family=family):
                _, (lower, upper, a, u) = parsed(family)
                axes = [lo + (np.arange(m) + 0.5) * (hi - lo) / m for lo, hi in zip(lower, upper)]
                x = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
                volume = math.prod(hi - lo for lo, hi in zip(lower, upper))
                midpoint = float(np.mean(peer.genz(family, a, u, x))) * volume
                exact = peer.exact(family, a, u, lower, upper)
                self.assertLess(abs(midpoint - exact), 2e-3 * abs(exact), (midpoint, exact))

    def test_closed_forms_match_parity(self):
        if not EXE:
            self.skipTest("needs the Parity executable")
        with tempfile.TemporaryDirectory() as d:
            for family in CASES:
                with self.subTest(family=family):
                    ns, (lower, upper, a, u) = parsed(family)
                    out = Path(d, f"{family}.json")
                    cmd = [EXE, "cubature", "--method", "vegas", "--integrand", family, "--dim", "3",
                           "--lower", ",".join(CASES[family][0]), "--upper", ",".join(CASES[family][1]),
                           "--a", CASES[family][2], *(["--u", CASES[family][3]] if CASES[family][3] else []),
                           "--evals-per-iteration", "1000", "--adaptation-iterations", "1", "--max-evals", "3000",
                           "--rel-tol", "0.5", "--json", str(out), "--quiet"]
                    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
                    self.assertIn(r.returncode, (0, 3), r.stderr)
                    res = json.loads(out.read_text())["results"]
                    self.assertEqual(res["method"], "vegas")
                    self.assertAlmostEqual(peer.exact(family, a, u, lower, upper) / res["exact"], 1.0, delta=1e-12)
        # Many dimensions: the corner peak by inclusion-exclusion, the Gaussian as a product.
        for family, n in (("corner_peak", 8), ("gaussian", 32)):
            with self.subTest(family=family, n=n), tempfile.TemporaryDirectory() as d:
                out = Path(d, "r.json")
                subprocess.run([EXE, "cubature", "--method", "vegas", "--integrand", family, "--dim", str(n),
                                "--evals-per-iteration", "1000", "--adaptation-iterations", "0", "--max-evals", "2000",
                                "--rel-tol", "0.5", "--json", str(out), "--quiet"], capture_output=True)
                res = json.loads(out.read_text())["results"]
                mine = peer.exact(family, [peer.DEFAULT_A[family]] * n, [0.5] * n, [0.0] * n, [1.0] * n)
                self.assertAlmostEqual(mine / res["exact"], 1.0, delta=1e-11)


class Statistics(unittest.TestCase):
    def test_q_against_closed_forms(self):
        for x in (0.1, 0.9, 1.5, 2.5, 7.0, 30.0):  # both branches (x < a + 1 and above)
            self.assertAlmostEqual(peer.upper_regularized_gamma(1.0, x), math.exp(-x), delta=1e-13)
            self.assertAlmostEqual(peer.upper_regularized_gamma(2.0, x), (1 + x) * math.exp(-x), delta=1e-13)

    def test_weighted_average(self):
        w = peer.weighted_average([1.0, 2.0], [1.0, 2.0])  # weights 1 and 1/4
        self.assertAlmostEqual(w["mean"], (1 + 2 / 4) / 1.25)
        self.assertAlmostEqual(w["error"], 1 / math.sqrt(1.25))
        self.assertAlmostEqual(w["chi2"], (1 - 1.2) ** 2 + (2 - 1.2) ** 2 / 4)
        self.assertAlmostEqual(w["q"], math.erfc(math.sqrt(w["chi2"] / 2)))  # Q(1/2, x/2) = erfc(sqrt(x/2))

    def plain_mc(self, n, seed):
        """Plain Monte Carlo of the 2-D Gaussian as `iteration`; records its calls."""
        import numpy as np
        rng = np.random.default_rng(seed)
        calls = []

        def iteration(nitn, adaptation):
            calls.append((nitn, adaptation))
            f = peer.genz("gaussian", [2.0, 2.0], [0.5, 0.5], rng.random((n * nitn, 2)))
            return (None, None, n * nitn) if adaptation else (float(f.mean()), float(f.std() / math.sqrt(n)), n)
        return iteration, calls

    def test_budget_stops_before_passing_it(self):
        iteration, calls = self.plain_mc(1000, 1)
        out = peer.iterate_until_done(iteration, 1000, 3, 10_500, 0.0, 1e-12)
        self.assertEqual(out["status"], "budget_exhausted")
        self.assertEqual(out["evaluations"], 10_000)  # an eleventh thousand would pass 10 500
        self.assertEqual((out["iterations"], len(out["estimates"])), (10, 7))  # the 3 adaptation ones discarded
        self.assertEqual(calls[0], (3, True))
        exact = peer.exact("gaussian", [2.0, 2.0], [0.5, 0.5], [0.0, 0.0], [1.0, 1.0])
        self.assertLess(abs(out["combined"]["mean"] - exact), 5 * out["combined"]["error"])

    def test_converges_on_the_tolerance_with_two_kept(self):
        iteration, _ = self.plain_mc(1000, 2)
        out = peer.iterate_until_done(iteration, 1000, 1, 10 ** 6, 0.0, 0.5)
        self.assertIn(out["status"], ("converged", "not_converged"))
        self.assertEqual(len(out["estimates"]), 2)  # met at once, but two estimates are needed
        out = peer.iterate_until_done(iteration, 1000, 0, 10 ** 6, 0.0, 0.004)
        self.assertLessEqual(out["combined"]["error"], 0.004 * abs(out["combined"]["mean"]))
        self.assertGreater(len(out["estimates"]), 2)


STAND_IN = '''
"""Plain Monte Carlo with vegas's call shape, so the peer's wiring runs without the package."""
import numpy as np
__version__ = "stand-in"

def lbatchintegrand(f):
    return f

class AdaptiveMap:
    def __init__(self, box, ninc):
        self.box, self.ninc = box, [ninc] * len(box)

class _Result:
    def __init__(self, mean, sdev):
        self.mean, self.sdev = mean, sdev

class Integrator:
    def __init__(self, map, alpha, beta):
        self.lo, self.hi = np.array([b[0] for b in map.box]), np.array([b[1] for b in map.box])
        self.map = map

    def __call__(self, f, nitn, neval):
        volume = np.prod(self.hi - self.lo)
        for _ in range(nitn):
            x = self.lo + (self.hi - self.lo) * np.random.random((neval, len(self.lo)))
            y = f(x) * volume
        return _Result(y.mean(), y.std() / np.sqrt(neval))
'''


class CommandLine(unittest.TestCase):
    def run_peer(self, *args, path=None):
        env = dict(os.environ)
        env["PYTHONPATH"] = path or ""
        return subprocess.run([sys.executable, str(ROOT / "perf/peers/cubature_vegas.py"), *args], capture_output=True,
                              text=True, env=env)

    def missing(self, d):
        Path(d, "missing").mkdir()
        Path(d, "missing", "vegas.py").write_text("raise ImportError('no vegas here')\n")
        return str(Path(d, "missing"))

    def test_skipped_reports(self):
        with tempfile.TemporaryDirectory() as d:
            out = Path(d, "r.json")
            for args, path in ((["--precision", "double"], self.missing(d)),
                               (["--precision", "float"], None), (["--integrand", "f1"], None)):
                with self.subTest(args=args):
                    stand_in = Path(d, "standin")
                    stand_in.mkdir(exist_ok=True)
                    Path(stand_in, "vegas.py").write_text(STAND_IN)
                    Path(stand_in, "gvar.py").write_text("__version__ = 'stand-in'\n")
                    r = self.run_peer("cubature", "--dim", "3", *args, "--json", str(out), "-q",
                                      path=path or str(stand_in))
                    self.assertEqual(r.returncode, 0, r.stderr)
                    doc = json.loads(out.read_text())
                    self.assertEqual(doc["status"], "skipped")
                    self.assertTrue(math.isnan(doc["timing"]["total_seconds"]))
                    self.assertEqual(doc["results"], {})
            r = self.run_peer("info", "--json", str(out), path=str(Path(d, "missing")))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(out.read_text())["status"], "skipped")

    def test_bad_options_exit_2(self):
        for bad in (["--dim", "33"], ["--dim", "3", "--a", "1,2"], ["--integrand", "gaussian", "--a", "-1"],
                    ["--rel-tol", "1"], ["--rel-tol", "0", "--abs-tol", "0"], ["--evals-per-iteration", "8"],
                    ["--max-evals", "1000", "--evals-per-iteration", "1000"], ["--lower", "1", "--upper", "0"],
                    ["--integrand", "corner_peak", "--lower", "-2"], ["--unknown", "1"]):
            with self.subTest(bad=bad):
                self.assertEqual(self.run_peer("cubature", *bad, "-q").returncode, 2)

    def test_a_whole_run_on_a_stand_in(self):
        with tempfile.TemporaryDirectory() as d:
            Path(d, "vegas.py").write_text(STAND_IN)
            Path(d, "gvar.py").write_text("__version__ = 'stand-in'\n")
            out = Path(d, "r.json")
            r = self.run_peer("cubature", "--integrand", "product_peak", "--dim", "4", "--evals-per-iteration", "2e3",
                              "--adaptation-iterations", "2", "--max-evals", "2.1e4", "--rel-tol", "1e-9",
                              "--json", str(out), "-q", path=d)
            self.assertEqual(r.returncode, 3, r.stderr)  # stopped by the budget, as Parity exits
            doc = json.loads(out.read_text())
            res = doc["results"]
            self.assertEqual((doc["status"], res["status"]), ("budget_exhausted", "budget_exhausted"))
            self.assertEqual((res["evaluations"], res["iterations"], res["kept_iterations"]), (20_000, 10, 8))
            self.assertEqual(res["increments_per_axis"], 200)  # evals per iteration / 10, through the map
            self.assertLess(res["true_error"], 5 * res["error"])
            self.assertEqual(res["exact"], peer.exact("product_peak", [5.0] * 4, [0.5] * 4, [0.0] * 4, [1.0] * 4))
            self.assertGreater(doc["timing"]["total_seconds"], 0)
            self.assertEqual(set(doc["timing"]["phases"]), {"adaptation", "accumulation"})
            r = self.run_peer("cubature", "--integrand", "gaussian", "--dim", "2", "--evals-per-iteration", "1e4",
                              "--rel-tol", "0.05", "--json", str(out), "-q", path=d)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(out.read_text())["status"], "converged")
            for key in ("estimate", "error", "chi2_per_dof", "q", "evaluations", "iterations", "status"):
                self.assertIn(key, res)


class Suite(unittest.TestCase):
    def test_suite_names_the_peer_and_its_cases_parse(self):
        suite = runner.load_suite(str(ROOT / "perf/suites/cubature_vegas.json"))
        self.assertEqual(suite["peers"], {"vegas": ["double"]})
        self.assertGreaterEqual(len(suite["cases"]), 6)
        for case in suite["cases"]:
            with self.subTest(case=case["name"]):
                ap = peer.parser()
                ns = ap.parse_args(["cubature", *case["args"]])
                peer.problem(ap, ns)
                self.assertEqual(ns.method, "vegas")
                for fixed in ("--evals-per-iteration", "--max-evals"):
                    self.assertIn(fixed, case["args"])  # both sides spend the same evaluations


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        EXE = sys.argv.pop(1)
    unittest.main()
