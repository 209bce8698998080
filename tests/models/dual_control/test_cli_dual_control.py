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
        self.assert_rejected(["--grid", "1,4,4"], "(NX: 1 is out of range: must be in [2, ")
        self.assert_rejected(["--grid", "-5,4,4"], "(NX: -5 is out of range: must be in [2, ")
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

    def test_lists_refuse_empty_items(self):
        self.assert_rejected(["--grid", "16,16,16,"], "--grid expects 3 comma-separated whole numbers NX,NMU,NSIGMA, "
                                                      "got '16,16,16,' (nothing after the last comma)")
        self.assert_rejected(["--grid", "16,,16"], "(item 2 is empty)")
        self.assert_rejected(["--x-range", "-1,1,"], "--x-range expects 2 comma-separated numbers LO,HI")
        self.assert_rejected(["--mu-range", ",1"], "(nothing before the first comma)")
        self.assert_rejected(["--sigma-range", "0,inf"], "(item 2 is not a finite number)")
        self.assert_rejected(["--reference-state", "1,1,"], "--reference-state expects 3 comma-separated numbers")
        self.assert_rejected(["--simulate-paths", "2", "--initial-state", "1,1"], "--initial-state expects 3")

    def test_evaluation_sweeps_refuse_negatives(self):
        # Not given is the algorithm's default; -1 is no longer a way to say so.
        self.assert_rejected(["--evaluation-sweeps", "-1"], "--evaluation-sweeps")
        self.assert_rejected(["--evaluation-sweeps", "1001"], "--evaluation-sweeps")

    def test_reference_state_outside_the_grid_is_refused(self):
        # V is held constant outside the box: at x = 100 it would report the edge's value.
        self.assert_rejected(["--policy", "inert", "--reference-state", "100,1,0.5"],
                             "--reference-state 100,1,0.5 lies outside the grid: x in [-10, 10], mu in [-4, 4], "
                             "Sigma in [0, 4]")
        self.assert_rejected(["--reference-state", "0,1,0.5", "--reference-state", "0,1,5"],
                             "--reference-state 0,1,5 lies outside the grid")
        self.assert_rejected(["--reference-state", "1,1,-1"], "--reference-state needs finite x, mu and Sigma >= 0")

    def test_default_reference_states_outside_a_smaller_grid_are_left_out(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("--policy", "inert", "--grid", "5,3,3", "--x-range", "1.5,5", "--xbar", "2", "--json", path,
                       "--quiet")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                refs = json.load(f)["results"]["reference_states"]
        self.assertEqual([(x["x"], x["mu"], x["Sigma"]) for x in refs], [(2, 1, 0.5)])

    def test_options_that_do_not_apply_are_refused(self):
        for policy in ("inert", "myopic"):
            for option, value in (("--algorithm", "paper"), ("--tol-myopic", "1e-3"), ("--scan-points", "8"),
                                  ("--brent-starts", "2"), ("--brent-max-iter", "30"), ("--brent-tol", "1e-5"),
                                  ("--evaluation-sweeps", "3")):
                with self.subTest(policy=policy, option=option):
                    self.assert_rejected(["--policy", policy, option, value],
                                         f"{option} applies to --policy optimal only")
        self.assert_rejected(["--algorithm", "paper", "--evaluation-sweeps", "5"],
                             "--evaluation-sweeps applies to --algorithm accelerated only")
        for args in (["--horizon", "5"], ["--seed", "7"], ["--initial-state", "1,1,1"],
                     ["--simulate-paths", "0", "--horizon", "5"]):
            with self.subTest(args=args):
                self.assert_rejected(args, f"{args[-2]} applies with --simulate-paths N > 0 only")
        self.assert_rejected(["--checkpoint-every", "5"], "--checkpoint-every applies with --checkpoint FILE only")
        self.assert_rejected(["--resume", "state.bin", "--checkpoint-every", "5"], "--checkpoint-every applies")

    def test_options_that_apply_are_accepted(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("--policy", "inert", "--grid", "5,3,3", "--simulate-paths", "3", "--horizon", "4", "--seed", "9",
                       "--initial-state", "1,1,1", "--checkpoint", os.path.join(d, "state.bin"),
                       "--checkpoint-every", "0", "--json", path, "--quiet")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                parameters = json.load(f)["parameters"]
        self.assertEqual((parameters["horizon"], parameters["seed"]), (4, 9))
        # What an inert run does not use is null, not a default it never applied.
        for key in ("algorithm", "evaluation_sweeps", "tol_myopic", "scan_points", "brent_starts", "brent_max_iter",
                    "brent_tol"):
            self.assertIsNone(parameters[key], key)
        r = parity("--algorithm", "paper", "--grid", "5,3,3", "--quad-nodes", "4", "--scan-points", "5",
                   "--brent-starts", "2", "--tol-myopic", "1e-5", "--max-iter", "1", "--quiet")
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)  # accepted; stopped by --max-iter 1

    def test_messages_name_the_option_as_typed(self):
        with tempfile.TemporaryDirectory() as d:
            checkpoint = os.path.join(d, "state.bin")
            for args, message in ((["--x-concentration", "-1"], "--x-concentration must be >= 0"),
                                  (["--mu-concentration", "-1"], "--mu-concentration must be >= 0"),
                                  (["--sigma-eps", "-1"], "--sigma-eps must be > 0, got -1"),
                                  (["--omega", "-1"], "--omega (weight on the control) must be >= 0"),
                                  (["--xbar", "20"], "--xbar 20 must lie inside --x-range -10,10"),
                                  (["--mu-range", "1,2"], "--mu-range must contain 0"),
                                  (["--x-range", "3,1"], "--x-range needs finite lower < upper, got 3,1"),
                                  (["--quad-nodes", "300"], "--quad-nodes must lie in [1, 200], got 300"),
                                  (["--tol-myopic", "2"], "--tol-myopic (a relative tolerance) must lie in (0, 1)"),
                                  (["--scan-points", "2"], "--scan-points must lie in [3, 64]"),
                                  (["--brent-starts", "40"], "--brent-starts must lie in [1, 16] (at most "
                                                             "--scan-points)"),
                                  (["--brent-max-iter", "2"], "--brent-max-iter must lie in [3, 1000]"),
                                  (["--brent-tol", "0"], "--brent-tol must lie in (0, 1)"),
                                  (["--simulate-paths", "-1"], "--simulate-paths must be >= 0"),
                                  (["--simulate-paths", "2", "--horizon", "0"], "--horizon must lie in [1, 100000]"),
                                  (["--simulate-paths", "2", "--initial-state", "1,1,-1"],
                                   "--initial-state needs finite x, mu and Sigma >= 0"),
                                  (["--checkpoint", checkpoint, "--checkpoint-every", "-1"],
                                   "--checkpoint-every must be a number of seconds >= 0"),
                                  (["--grid", "2000000,2000,2"], "--grid 2000000,2000,2 (8e+09 points")):
                with self.subTest(args=args):
                    self.assert_rejected(args, message)
            self.assert_bad_input(parity("--max-iter", "0"), "--max-iter must be >= 1")

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
        # 10^12 points need tens of TiB: too much for any device or host.
        r = parity("--grid", "10000,10000,10000", timeout=30)
        self.assert_bad_input(r, "--grid 10000,10000,10000")
        self.assertRegex(r.stderr, r"needs about [0-9.]+ TiB")
        # counts in exponent form are counts
        self.assert_bad_input(parity("--grid", "1e4,1e4,1e4", timeout=30), "TiB")

    def test_estimate_is_said_and_reported(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("--policy", "optimal", "--grid", "7,7,5", "--quad-nodes", "8", "--json", path)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertRegex(r.stderr, r"dual-control: estimated time [0-9.]+ (s|min|h|days) \(")
            self.assertNotIn("warning", r.stderr)  # seconds, not worth a warning
            with open(path) as f:
                estimate = json.load(f)["results"]["estimate"]
        self.assertGreater(estimate["seconds"], 0)
        self.assertGreater(estimate["bellman_sweeps"], 0)
        self.assertGreater(estimate["evaluation_sweeps"], estimate["bellman_sweeps"])
        self.assertGreater(estimate["seconds_per_bellman_sweep"], 0)
        self.assertAlmostEqual(estimate["seconds"],
                               estimate["evaluation_sweeps"] * estimate["seconds_per_evaluation_sweep"]
                               + estimate["bellman_sweeps"] * estimate["seconds_per_bellman_sweep"], delta=1e-9)
        # --quiet drops the estimate line, not the report
        r = parity("--policy", "inert", "--grid", "9,3,3", "--quiet")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("estimated", r.stderr)

    def test_long_solve_warns(self):
        # Sweeps of 2 * 10^6 points, each a search over u with 200 quadrature nodes, and tens of
        # thousands of them (delta near 1, the paper's algorithm): hours on any device. The warning
        # comes before the solve starts, even with --quiet.
        err = run_briefly("--threads", "2", "dual-control", "--grid", "128,128,128", "--quad-nodes", "200",
                          "--delta", "0.999", "--tol", "1e-8", "--algorithm", "paper", "--max-iter", "1e6", "--quiet",
                          seconds=20)
        self.assertRegex(err, r"warning: dual-control: this solve may take [0-9.]+ (h|days) \(estimated\)")
        self.assertIn("--time-limit", err)

    def test_time_limit_ends_the_run_with_its_status(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("--policy", "myopic", "--grid", "8,8,4", "--time-limit", "1e-9", "--json", path,
                       "--output", d, "--quiet")
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            self.assertIn("stopped by --time-limit", r.stdout)
            self.assertIn("status time_limit", r.stderr)
            with open(path) as f:
                doc = json.load(f)
            self.assertEqual(doc["status"], "time_limit")
            self.assertEqual(doc["iterations"], 1)  # the limit is checked between sweeps
            self.assertEqual(doc["parameters"]["time_limit"], 1e-9)
            stopped = doc["results"]["stopped"]
            self.assertEqual(stopped["stage"], "policy evaluation")
            self.assertIn("--time-limit", stopped["reason"])
            self.assertEqual(np.load(os.path.join(d, "V.npy")).shape, (8, 8, 4))  # where it stopped
        self.assert_rejected(["--time-limit", "-1"], "--time-limit")
        self.assert_rejected(["--time-limit", "inf"], "--time-limit")

    def test_time_limit_with_checkpoint_resumes_to_the_same_result(self):
        # Every run stops after one sweep and the next resumes it, through the myopic start and the
        # value iteration, until the solve converges: the same V, u and history as one run.
        args = ["--grid", "7,7,5", "--quad-nodes", "8", "--tol-myopic", "0.5", "--quiet"]
        with tempfile.TemporaryDirectory() as d:
            whole, ck = os.path.join(d, "whole"), os.path.join(d, "dc.ckpt")
            r = parity(*args, "--output", whole, "--json", os.path.join(d, "whole.json"))
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            stages = []
            resume = []
            for _ in range(100):
                out = os.path.join(d, "part")
                r = parity(*args, *resume, "--checkpoint", ck, "--checkpoint-every", "1e6", "--time-limit", "1e-9",
                           "--output", out, "--json", os.path.join(d, "part.json"))
                with open(os.path.join(d, "part.json")) as f:
                    doc = json.load(f)
                if r.returncode == 0:
                    break
                self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
                self.assertEqual(doc["status"], "time_limit")
                self.assertIn("--resume " + ck, doc["results"]["stopped"]["reason"])
                stages.append(doc["results"]["stopped"]["stage"])
                resume = ["--resume", ck]
            self.assertEqual(doc["status"], "converged")
            self.assertIn("myopic warm start", stages)
            self.assertIn("value iteration", stages)
            with open(os.path.join(d, "whole.json")) as f:
                expected = json.load(f)
            for key in ("iterations", "myopic_iterations", "evaluation_sweeps_total", "residual", "history"):
                self.assertEqual(doc["results"][key], expected["results"][key], key)
            for name in ("V", "u", "V_myopic"):
                np.testing.assert_array_equal(np.load(os.path.join(out, name + ".npy")),
                                              np.load(os.path.join(whole, name + ".npy")), name)

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
            self.assertIsNone(doc["parameters"]["horizon"])  # nothing simulated
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

    def test_float_tolerance_floor_is_said_and_reported(self):
        # delta 0.95: float resolves no finer than 32 eps delta / (1 - delta) = 7.2e-5.
        floor = 32 * 2.0**-23 * 0.95 / 0.05
        r = parity("--policy", "inert", "--grid", "9,3,3", "--precision", "float", "--json", "-", "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        res = json.loads(r.stdout)["results"]
        self.assertAlmostEqual(res["tolerance_effective"], floor, delta=1e-3 * floor)
        self.assertIn("below what float can resolve", r.stderr)
        self.assertIn("--precision double", r.stderr)
        r = parity("--policy", "inert", "--grid", "9,3,3", "--json", "-", "--quiet")
        self.assertEqual(json.loads(r.stdout)["results"]["tolerance_effective"], 1e-6)
        self.assertNotIn("below what float can resolve", r.stderr)

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
            self.assert_rejected(["--checkpoint", ""], "--checkpoint: the file name is empty")
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
