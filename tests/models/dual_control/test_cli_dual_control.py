"""dual-control on the command line: bad input gives exit status 2 and a clear message; a small
run writes the JSON report and .npy arrays that numpy reads; max-iter gives exit 3."""
import json
import os
import sys
from pathlib import Path
import tempfile
import unittest

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cli"))
from parity_cli import CliTestCase, run, run_briefly  # noqa: E402  (takes the executable from argv[1])


def parity(*args, timeout=120):
    return run("--threads", "2", "dual-control", *args, timeout=timeout)


class DualControlCli(CliTestCase):
    def assert_rejected(self, args, message):
        # --max-iter 1: were the input accepted, a quick exit 3 rather than a long run
        self.assert_bad_input(parity(*args, "--max-iter", "1"), message)

    def test_help_lists_parameters(self):
        r = parity("--help")
        self.assertEqual(r.returncode, 0)
        for option in ("--policy", "--grid", "--gamma", "--delta", "--omega", "--sigma-eps", "--quad-nodes",
                       "--tol", "--max-iter", "--simulate-paths", "--algorithm", "--evaluation-sweeps"):
            self.assertIn(option, r.stdout)

    def test_bad_input(self):
        self.assert_rejected(["--grid", "1,4,4"], "at least 2 nodes")
        self.assert_rejected(["--grid", "-5,4,4"], "at least 2 nodes")
        self.assert_rejected(["--grid", "8,8"], "--grid expects 3")
        self.assert_rejected(["--grid", "a,b,c"], "--grid expects 3")
        self.assert_rejected(["--grid", "8.5,8,8"], "whole numbers")
        self.assert_rejected(["--delta", "1.5"], "--delta")
        self.assert_rejected(["--gamma", "2"], "delta * gamma^2 < 1")
        self.assert_rejected(["--sigma-eps", "0"], "--sigma-eps")
        self.assert_rejected(["--policy", "greedy"], "--policy")
        self.assert_rejected(["--quad-nodes", "0"], "--quad-nodes")
        self.assert_rejected(["--sigma-range", "-1,2"], "--sigma-range")
        self.assert_rejected(["--x-range", "3,1"], "--x-range")
        self.assert_rejected(["--omega", "0"], "omega")
        self.assert_rejected(["--tol", "-1"], "--tol")
        self.assert_rejected(["--algorithm", "fast"], "--algorithm")

    def test_meaningless_or_ignored_input(self):
        self.assert_rejected(["--tol", "10"], "--tol")
        self.assert_rejected(["--tol", "1"], "--tol")
        self.assert_rejected(["--tol-myopic", "2"], "--tol-myopic")
        self.assert_rejected(["--policy", "myopic", "--evaluation-sweeps", "5"], "--evaluation-sweeps")
        self.assert_rejected(["--policy", "inert", "--evaluation-sweeps", "5"], "--evaluation-sweeps")

    def test_cap_spent_by_myopic_start_is_reported(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("--policy", "optimal", "--grid", "8,8,4", "--max-iter", "1", "--json", path, "--quiet")
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            self.assertIn("myopic warm start", r.stdout)
            with open(path) as f:
                doc = json.load(f)
        self.assertEqual(doc["status"], "not_converged")
        self.assertEqual(doc["results"]["stopped"]["stage"], "myopic warm start")
        self.assertIn("--max-iter 1", doc["results"]["stopped"]["reason"])

    def test_grid_that_cannot_fit_is_refused(self):
        r = parity("--grid", "1000,1000,1000", timeout=30)
        self.assert_bad_input(r, "--grid 1000,1000,1000")
        self.assertRegex(r.stderr, r"needs about [0-9.]+ GiB")
        # counts in exponent form are counts
        self.assert_bad_input(parity("--grid", "1e3,1e3,1e3", timeout=30), "GiB")

    def test_long_simulation_warns(self):
        err = run_briefly("dual-control", "--policy", "inert", "--grid", "4,4,4", "--simulate-paths", "1e12",
                          "--quiet", seconds=8)
        self.assertIn("warning: dual-control: --simulate-paths 1000000000000", err)

    def test_manifest_lists_only_this_runs_arrays(self):
        with tempfile.TemporaryDirectory() as d:
            stale = os.path.join(d, "V_myopic.npy")
            np.save(stale, np.zeros(3))
            r = parity("--policy", "inert", "--grid", "9,3,3", "--output", d, "--quiet")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(os.path.join(d, "manifest.json")) as f:
                manifest = json.load(f)
            self.assertEqual(manifest["model"], "dual_control")
            self.assertEqual(manifest["command"], "dual-control")
            self.assertIsNone(manifest["report"])
            self.assertEqual(set(manifest["arrays"]), {"x", "mu", "Sigma", "V", "u"})
            self.assertTrue(os.path.exists(stale))  # never deleted: it may be the user's

    def test_inert_run_report_and_arrays(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("--policy", "inert", "--grid", "41,3,3", "--json", path, "--output", d, "--quiet")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                doc = json.load(f)
            self.assertEqual(doc["schema"], "parity.run/1")
            self.assertEqual(doc["model"], "dual-control")
            self.assertEqual(doc["status"], "converged")
            self.assertEqual(doc["parameters"]["grid"], [41, 3, 3])
            res = doc["results"]
            self.assertLessEqual(res["residual"], 1e-6)
            self.assertEqual(res["iterations"], doc["iterations"])
            for ref in res["reference_states"]:
                self.assertAlmostEqual(ref["u"], 0.0)
                self.assertLess(abs(ref["V"] / ref["V_inert_closed_form"] - 1), 0.05)
            V = np.load(os.path.join(d, "V.npy"))
            x = np.load(os.path.join(d, "x.npy"))
            self.assertEqual(V.shape, (41, 3, 3))
            self.assertEqual(x.shape, (41,))
            self.assertTrue(np.all(np.diff(x) > 0))
            cf = res["inert_closed_form"]
            exact = cf["a"] + cf["b"] * x + cf["c"] * x * x
            centre = np.abs(x) <= 2
            self.assertLess(np.max(np.abs(V[centre, 1, 1] - exact[centre]) / exact[centre]), 0.05)
            # work of the timed sweeps: per point and sweep 8 x NGH gathered values and one write (double)
            work = res["work"]
            self.assertEqual(work["phase"], "parity::dual_control::policy_evaluation")
            self.assertIn(work["phase"], doc["timing"]["phases"])
            self.assertEqual(work["bytes"], res["iterations"] * 41 * 3 * 3 * (8 * 32 + 1) * 8)

    def test_optimal_small_run(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("--policy", "optimal", "--grid", "9,9,5", "--quad-nodes", "8", "--evaluation-sweeps", "5",
                       "--simulate-paths", "50", "--horizon", "20", "--json", path, "--output", d, "--quiet")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                doc = json.load(f)
            self.assertEqual(doc["status"], "converged")
            self.assertIn("simulation", doc["results"])
            self.assertEqual(set(doc["results"]["simulation"]), {"inert", "myopic", "optimal"})
            V = np.load(os.path.join(d, "V.npy"))
            Vm = np.load(os.path.join(d, "V_myopic.npy"))
            u = np.load(os.path.join(d, "u.npy"))
            self.assertEqual(V.shape, (9, 9, 5))
            self.assertEqual(u.shape, (9, 9, 5))
            self.assertLessEqual(np.max(V[2:-2, 2:-2, :-1] - Vm[2:-2, 2:-2, :-1]), 1e-4 * Vm.max())
            res = doc["results"]
            self.assertEqual(res["algorithm"], "accelerated")
            # 5 evaluation sweeps after each Bellman sweep but the last (none once the residual stalls)
            self.assertLessEqual(res["evaluation_sweeps_total"], 5 * (res["iterations"] - 1))
            self.assertGreaterEqual(res["evaluation_sweeps_total"], 5)
            # the search evaluates the objective at least at the myopic u, the scan and one Brent step
            evals = res["objective_evaluations"]
            self.assertGreaterEqual(evals["per_bellman_update"], 1 + 16 + 1)
            self.assertAlmostEqual(evals["bellman"], evals["per_bellman_update"] * 9 * 9 * 5 * res["iterations"],
                                   delta=0.5)
            work = res["work"]
            self.assertEqual(work["phase"], "parity::dual_control::value_iteration")
            gather = 8 * 8 * 8  # 8 values x 8 nodes x 8 bytes per objective evaluation
            points = 9 * 9 * 5
            expected = (evals["bellman"] * gather + points * res["iterations"] * 2 * 8
                        + res["evaluation_sweeps_total"] * points * (gather + 8))
            self.assertEqual(work["bytes"], expected)

    def test_checkpoint_lands_on_no_other_output(self):
        with tempfile.TemporaryDirectory() as d:
            ck, out = os.path.join(d, "dc.ckpt"), os.path.join(d, "out")
            for args in (["--checkpoint", ck, "--json", ck],
                         ["--checkpoint", ck, "--json", os.path.join(d, "x", "..", "dc.ckpt")],
                         ["--output", out, "--checkpoint", os.path.join(out, "manifest.json")],
                         ["--output", out, "--checkpoint", os.path.join(out, "V.npy")],
                         ["--output", ck, "--checkpoint", ck]):
                r = parity(*args, "--max-iter", "1")
                self.assert_bad_input(r, "--checkpoint")
                self.assertIn(args[0] if args[0] != "--checkpoint" else args[2], r.stderr)
            self.assert_rejected(["--checkpoint", "-"], "--checkpoint '-'")
            self.assertEqual(os.listdir(d), [])

    def test_checkpoint_into_missing_folders(self):
        with tempfile.TemporaryDirectory() as d:
            ck = os.path.join(d, "new", "deeper", "dc.ckpt")
            r = parity("--policy", "inert", "--grid", "9,3,3", "--checkpoint", ck, "--checkpoint-every", "0", "--quiet")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(Path(ck).read_bytes()[:8], b"PARITYCK")
            self.assertEqual(os.listdir(os.path.dirname(ck)), ["dc.ckpt"])

    def test_not_converged_exit_3(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("--policy", "myopic", "--grid", "8,8,4", "--max-iter", "2", "--json", path, "--quiet")
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            with open(path) as f:
                self.assertEqual(json.load(f)["status"], "not_converged")


if __name__ == "__main__":
    unittest.main()
