#!/usr/bin/env python3
"""perf/peers/sde_diffrax.py and the gbm and ou commands of parity-linear-sde-<backend>: the
closed forms of E[X_T] and Var[X_T] against their moment equations integrated by RK4; each side's
ensemble on a small case against the exact moments of the scheme it runs (Euler-Maruyama and
Heun's predictor-corrector on linear SDEs have closed-form means and variances after n steps, so a
wrong step, dt or statistic fails at a few standard errors); the peer's Josephson <<v>> against
Parity's; its command line (skipped reports, bad options exit 2); a whole runner call with the
peer; and the suite that names it. The peer's runs need JAX and diffrax (not in CI): without them
those tests are skipped with a message, and the peer must write skipped reports.

    python3 tests/perf/test_sde_diffrax_peer.py build/openmp/perf/linear_sde/parity-linear-sde-openmp
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
import runner  # noqa: E402
import sde_diffrax as peer  # noqa: E402

PEER = ROOT / "perf/peers/sde_diffrax.py"
SUITE = ROOT / "perf/suites/sde_peers.json"
EXE = None
try:
    import diffrax  # noqa: F401
    import jax  # noqa: F401
    HAVE_JAX = True
except ImportError:
    HAVE_JAX = False
NO_JAX = "JAX and diffrax not importable here (python3 -m pip install jax diffrax to run the peer's checks)"
Z = 4.5  # standard errors a statistic may stray (several are checked per run)


def args_of(command, *extra):
    ap = peer.parser()
    a = ap.parse_args([command, *extra])
    peer.settle(ap, a)
    return a


def rk4(f, y, t, n):
    h = t / n
    for _ in range(n):
        k1 = f(y)
        k2 = f([a + h / 2 * b for a, b in zip(y, k1)])
        k3 = f([a + h / 2 * b for a, b in zip(y, k2)])
        k4 = f([a + h * b for a, b in zip(y, k3)])
        y = [a + h / 6 * (b + 2 * c + 2 * d + e) for a, b, c, d, e in zip(y, k1, k2, k3, k4)]
    return y


def scheme_moments(command, stepper, a):
    """E[X_n] and Var[X_n] of the scheme after n = steps steps (ou with mean 0, gbm with Euler):
    each step is X' = r X + c xi sqrt(h) (ou) or X' = X (1 + mu h + sigma sqrt(h) xi) (gbm)."""
    h, n = a.horizon / a.steps, a.steps
    if command == "gbm":
        assert stepper in ("euler", "milstein")  # Milstein's extra term has mean sigma^2 (dW^2 - h) / 2 = 0
        m = a.x0 * (1 + a.mu * h) ** n
        if stepper == "euler":
            second = a.x0 ** 2 * ((1 + a.mu * h) ** 2 + a.sigma ** 2 * h) ** n
            return m, second - m * m
        return m, None
    th = a.theta * h
    r, c = (1 - th, 1.0) if stepper == "euler" else (1 - th + th * th / 2, 1 - th / 2)  # Heun on additive noise
    var = 0.0
    for _ in range(n):
        var = r * r * var + a.sigma ** 2 * h * c * c
    return a.x0 * r ** n, var


def run_json(cmd, env=None):
    with tempfile.TemporaryDirectory() as d:
        out = Path(d, "r.json")
        proc = subprocess.run([*cmd, "--json", str(out), "--quiet"], capture_output=True, text=True, env=env,
                              timeout=900)
        if proc.returncode != 0:
            raise AssertionError(f"{' '.join(map(str, cmd))} exited {proc.returncode}: {proc.stderr[-800:]}")
        return json.loads(out.read_text())


class ClosedForms(unittest.TestCase):
    def test_exact_moments_match_the_moment_equations(self):
        # gbm: m' = mu m, s' = (2 mu + sigma^2) s with s = E[X^2]; ou: m' = theta (mean - m),
        # v' = -2 theta v + sigma^2.
        for command, extra in (("gbm", ["--mu", "0.7", "--sigma", "0.4", "--x0", "1.5", "--horizon", "2"]),
                               ("ou", ["--theta", "1.3", "--mean", "0.4", "--sigma", "0.8", "--x0", "2",
                                       "--horizon", "1.5"])):
            a = args_of(command, *extra)
            if command == "gbm":
                m, s = rk4(lambda y: [a.mu * y[0], (2 * a.mu + a.sigma ** 2) * y[1]], [a.x0, a.x0 ** 2], a.horizon,
                           2000)
                want = (m, s - m * m)
            else:
                want = tuple(rk4(lambda y: [a.theta * (a.mean - y[0]), -2 * a.theta * y[1] + a.sigma ** 2],
                                 [a.x0, 0.0], a.horizon, 2000))
            got = peer.exact_moments(a)
            for g, w in zip(got, want):
                self.assertAlmostEqual(g, w, delta=1e-10 * abs(w), msg=command)


class ParitySide(unittest.TestCase):
    """The gbm and ou commands against the scheme's exact moments and the closed forms."""

    def setUp(self):
        if EXE is None:
            self.skipTest("needs parity-linear-sde-<backend>")

    def test_schemes_match_their_exact_moments(self):
        for command, stepper in (("gbm", "euler"), ("gbm", "milstein"), ("ou", "euler"), ("ou", "srk2")):
            for precision in ("float", "double"):
                with self.subTest(command=command, stepper=stepper, precision=precision):
                    extra = ["--paths", "65536", "--steps", "8", "--stepper", stepper, "--seed", "3"]
                    doc = run_json([EXE, command, *extra, "--precision", precision])
                    r, a = doc["results"], args_of(command, *extra)
                    self.assertEqual(doc["status"], "ok")
                    m, v = scheme_moments(command, stepper, a)
                    self.assertLess(abs(r["mean"] - m), Z * r["mean_error"], r)
                    if v is not None:
                        self.assertLess(abs(r["variance"] - v), Z * r["variance_error"], r)
                    exact = peer.exact_moments(a)
                    self.assertAlmostEqual(r["exact_mean"], exact[0], places=12)
                    self.assertAlmostEqual(r["exact_variance"], exact[1], places=12)
                    self.assertAlmostEqual(r["mean_bias"], r["mean"] - exact[0], places=12)
                    self.assertEqual(r["steps_total"], 65536 * 8)

    def test_weak2_reaches_the_closed_form_on_gbm(self):
        # Weak order 2 on multiplicative noise: at 32 steps its bias is far below Euler's (about
        # mu^2 h e^{mu T} / 2 = 0.04 in E[X_T]) and within the sampling error.
        doc = run_json([EXE, "gbm", "--paths", "262144", "--steps", "32", "--stepper", "weak2", "--precision",
                        "double"])
        r = doc["results"]
        self.assertLess(abs(r["mean_bias"]), Z * r["mean_error"] + 2e-3, r)
        self.assertLess(abs(r["variance_bias"]), Z * r["variance_error"] + 2e-2, r)

    def test_bad_options_exit_2(self):
        for extra in (["--theta", "0"], ["--horizon", "-1"], ["--stepper", "rk4"], ["--paths", "1"]):
            proc = subprocess.run([EXE, "ou", *extra], capture_output=True, text=True, timeout=60)
            self.assertEqual(proc.returncode, 2, (extra, proc.stderr))


class PeerCommandLine(unittest.TestCase):
    def test_cases_without_a_matching_solver_are_skipped(self):
        for extra in (["gbm", "--stepper", "srk2"], ["gbm", "--stepper", "weak2"],
                      ["ou", "--noise-law", "five-point"], ["josephson", "--noise-law", "five-point"]):
            doc = run_json([sys.executable, str(PEER), *extra, "--paths", "1024", "--precision", "float"])
            self.assertEqual(doc["status"], "skipped", extra)
            self.assertTrue(math.isnan(doc["timing"]["total_seconds"]))
            self.assertEqual(doc["results"], {})

    def test_info_and_bad_options(self):
        doc = run_json([sys.executable, str(PEER), "info"])
        self.assertEqual(doc["backend"]["backend"], "diffrax")
        self.assertEqual(doc["parity"]["peer"], "diffrax")
        if not HAVE_JAX:
            self.assertEqual(doc["status"], "skipped")
        for extra in (["gbm", "--paths", "1.5"], ["ou", "--theta", "-1"], ["josephson", "--transient", "300",
                                                                          "--periods", "200"],
                      ["gbm", "--stepper", "rk4"], ["heston"]):
            proc = subprocess.run([sys.executable, str(PEER), *extra], capture_output=True, text=True, timeout=60)
            self.assertEqual(proc.returncode, 2, (extra, proc.stderr))

    def test_without_jax_every_run_is_a_skipped_report(self):
        if HAVE_JAX:
            self.skipTest("JAX is importable here")
        doc = run_json([sys.executable, str(PEER), "ou", "--paths", "1024", "--precision", "double"])
        self.assertEqual(doc["status"], "skipped")
        self.assertIn("not importable", doc["reason"])


@unittest.skipUnless(HAVE_JAX, NO_JAX)
class PeerRuns(unittest.TestCase):
    def test_solvers_match_the_schemes_exact_moments(self):
        for command, stepper in (("gbm", "euler"), ("gbm", "milstein"), ("ou", "euler"), ("ou", "srk2")):
            for precision in ("float", "double"):
                with self.subTest(command=command, stepper=stepper, precision=precision):
                    extra = ["--paths", "16384", "--steps", "8", "--stepper", stepper, "--seed", "5"]
                    doc = run_json([sys.executable, str(PEER), command, *extra, "--precision", precision])
                    r, a = doc["results"], args_of(command, *extra)
                    self.assertEqual(doc["status"], "ok")
                    m, v = scheme_moments(command, stepper, a)
                    self.assertLess(abs(r["mean"] - m), Z * r["mean_error"], r)
                    if v is not None:
                        self.assertLess(abs(r["variance"] - v), Z * r["variance_error"], r)
                    self.assertGreater(doc["timing"]["total_seconds"], 0)
                    self.assertAlmostEqual(r["steps_per_second"], 16384 * 8 / doc["timing"]["total_seconds"])

    def test_shark_meets_the_closed_form_on_ou(self):
        # Strong order 1.5 and deterministic order 2: at 16 steps its bias is below the sampling
        # error at 2^16 paths (Euler's is 0.012 in E[X_T], about 5 standard errors).
        doc = run_json([sys.executable, str(PEER), "ou", "--paths", "65536", "--steps", "16", "--stepper", "weak2",
                        "--precision", "double"])
        r = doc["results"]
        self.assertEqual(r["solver"], "diffrax.ShARK")
        self.assertLess(abs(r["mean_bias"]), Z * r["mean_error"], r)
        self.assertLess(abs(r["variance_bias"]), Z * r["variance_error"], r)

    def test_chunks_give_the_same_statistics_as_one_call(self):
        extra = [sys.executable, str(PEER), "ou", "--paths", "4096", "--steps", "4", "--precision", "double"]
        whole = run_json(extra)["results"]
        chunked = run_json(extra, env=dict(os.environ, SDE_DIFFRAX_CHUNK_PATHS="1024"))["results"]
        self.assertEqual((whole["chunks"], chunked["chunks"]), (1, 4))
        # Other keys, other paths: the two estimates agree statistically.
        self.assertLess(abs(whole["mean"] - chunked["mean"]), Z * math.hypot(whole["mean_error"], chunked["mean_error"]))

    def test_josephson_agrees_with_parity(self):
        if EXE is None:
            self.skipTest("needs parity-linear-sde-<backend>")
        for stepper in ("srk2", "euler"):
            with self.subTest(stepper=stepper):
                extra = ["josephson", "--paths", "2048", "--periods", "30", "--transient", "5", "--stepper", stepper,
                         "--precision", "double"]
                ours = run_json([EXE, *extra])["results"]
                theirs = run_json([sys.executable, str(PEER), *extra])["results"]
                diff = theirs["mean_velocity"][0] - ours["mean_velocity"][0]
                self.assertLess(abs(diff), Z * math.hypot(theirs["mean_velocity_error"][0],
                                                          ours["mean_velocity_error"][0]), (ours, theirs))

    def test_runner_runs_the_peer_beside_parity(self):
        if EXE is None:
            self.skipTest("needs parity-linear-sde-<backend>")
        suite = json.loads(SUITE.read_text())
        suite["cases"] = [dict(c, args=["--paths", "2048", "--steps", "8", "--stepper", "srk2"], skip={})
                          for c in suite["cases"] if c["name"] == "ou-srk2-16"]
        with tempfile.TemporaryDirectory() as d:
            path = Path(d, "suite.json")
            path.write_text(json.dumps(suite))
            rc = runner.main(["--suite", str(path), "--exe", f"openmp={EXE}", "--peer", f"diffrax={PEER}",
                              "--out", str(Path(d, "out")), "--probe", "none", "--repetitions", "1", "--warmup", "0"])
            self.assertEqual(rc, 0)
            doc = json.loads(Path(d, "out/results.json").read_text())
            self.assertEqual(len(doc["results"]), 2)  # float and double
            for entry in doc["results"]:
                self.assertEqual(entry["backends"]["diffrax"]["status"], "ok")
                self.assertEqual(entry["backends"]["diffrax"]["results"]["solver"], "diffrax.Heun")
            table = Path(d, "out/table.md").read_text()
            self.assertIn("diffrax/openmp", table)
            proc = subprocess.run([sys.executable, str(PEER), "compare", str(Path(d, "out/results.json")),
                                   "--backend", "openmp"], capture_output=True, text=True, timeout=60)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertEqual(proc.stdout.count("| ou-srk2-16 |"), 2)


class Suite(unittest.TestCase):
    def test_suite_names_the_peer_and_parses_on_both_sides(self):
        suite = runner.load_suite(str(SUITE))
        self.assertTrue(os.access(PEER, os.X_OK), "the runner starts the peer as a program")
        self.assertEqual(suite["peers"], {"diffrax": ["float", "double"]})
        commands = {c["command"] for c in suite["cases"]}
        self.assertEqual(commands, {"gbm", "ou", "josephson"})
        for case in suite["cases"]:
            with self.subTest(case=case["name"]):
                a = args_of(case["command"], *case["args"])
                self.assertEqual(a.paths, 1 << 20)
                try:
                    peer.solver_name(a)
                    self.assertNotIn("diffrax", case["skip"])
                except peer.Skip:
                    self.assertIn("diffrax", case["skip"])  # named in the suite, so the table says why
        if EXE is not None:  # every case's options are Parity's too: each case at 64 paths
            for case in suite["cases"]:
                args = list(case["args"])
                args[args.index("--paths") + 1] = "64"
                doc = run_json([EXE, case["command"], *args, "--precision", "float"])
                self.assertEqual(doc["status"], "ok", case["name"])

if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        EXE = sys.argv.pop(1)
    unittest.main()
