"""krusell-smith on the command line: clear errors (exit 2) on bad input, one small good run
whose JSON report and .npy arrays are checked, and restarts from its output folder (--restart):
good ones converge at once, bad ones fail cleanly without touching the output folder."""
import json
import os
import shutil
import sys
from pathlib import Path
import tempfile
import unittest

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cli"))
from parity_cli import CliTestCase, run  # noqa: E402  (takes the executable from argv[1])
# --panel-start fixed: every simulation from the same start, so a restart from the coefficients
# and policy resumes the saved solve exactly (the default carry would restart its burn-in).
SMALL = ["--agents", "2000", "--periods", "300", "--discard", "50", "--grid", "40,4",
         "--init-coeffs", "0.13,0.964,0.12,0.966", "--tol", "1e-5", "--panel-start", "fixed", "--quiet"]


def parity(*args, timeout=300):
    return run("krusell-smith", *args, timeout=timeout)


class KrusellSmithCli(CliTestCase):
    def test_help(self):
        r = parity("--help")
        self.assertEqual(r.returncode, 0)
        for option in ("--agents", "--grid", "--interp", "--init-coeffs", "--restart", "--restart-panel",
                       "--damping", "--mu", "--policy-method"):
            self.assertIn(option, r.stdout)

    def test_bad_input(self):
        self.assert_bad_input(parity("--agents", "-5"), "--agents")
        self.assert_bad_input(parity("--grid", "100"), "--grid")
        self.assert_bad_input(parity("--grid", "-3,4"), "--grid")
        self.assert_bad_input(parity("--grid", "ten,4"), "--grid")
        self.assert_bad_input(parity("--interp", "spline"), "--interp")
        self.assert_bad_input(parity("--panel-launch", "stream"), "--panel-launch")
        self.assert_bad_input(parity("--policy-method", "newton"), "--policy-method")
        self.assert_bad_input(parity("--panel-start", "random"), "--panel-start")
        self.assert_bad_input(parity("--burn-in", "-1"), "--burn-in")
        self.assert_bad_input(parity("--panel-teams", "-1"), "--panel-teams")
        self.assert_bad_input(parity("--policy-damping", "0"), "--policy-damping")

    def test_policy_stopped_by_its_cap_is_not_converged(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity(*SMALL, "--policy-max-iter", "3", "--max-iter", "2", "--json", path)
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            with open(path) as f:
                doc = json.load(f)
        self.assertEqual(doc["status"], "not_converged")
        self.assertTrue(doc["results"]["policy_stopped_by_cap"]["last"])

    def test_paper_preset_sets_the_published_settings_and_yields_to_options(self):
        small = [a for a in SMALL if a not in ("--periods", "300", "--tol", "1e-5")]
        # A capped policy solve keeps the run short; the report still holds the parameters.
        r = parity(*small, "--preset", "paper", "--max-iter", "1", "--policy-max-iter", "5", "--json", "-")
        self.assertIn(r.returncode, (0, 3), r.stderr)
        parameters = json.loads(r.stdout)["parameters"]
        self.assertEqual(parameters["preset"], "paper")
        self.assertEqual(parameters["policy_method"], "time-iteration")
        self.assertEqual(parameters["coefficient_change"], "damped")
        self.assertEqual(parameters["tol"], 1e-7)
        self.assertEqual(parameters["periods"], 1000)
        self.assertEqual(parameters["max_iter"], 1)  # given explicitly: the option wins
        r = parity(*SMALL, "--json", "-")
        self.assertEqual(json.loads(r.stdout)["parameters"]["preset"], "none")
        self.assert_bad_input(parity(*SMALL, "--preset", "papers"), "--preset")

    def test_meaningless_or_ignored_input(self):
        self.assert_bad_input(parity("--z-good", "0.98"), "--z-good must exceed --z-bad")
        # The message states the rule that refuses: NK from 20 (3 and 10 alike)
        for grid, nk in (("3,4", 3), ("10,4", 10), ("200000,4", 200000)):
            self.assert_bad_input(parity("--grid", grid), f"(NK: {nk} is out of range: must be in [20, 100000])")
        self.assert_bad_input(parity("--grid", "40,20000"), "(NKbar: 20000 is out of range: must be in [2, 10000])")
        self.assert_bad_input(parity("--policy-damping", "0.5"), "--policy-damping applies")
        self.assert_bad_input(parity("--panel-teams", "4", "--panel-locate", "power"), "--panel-teams")
        self.assert_bad_input(parity("--agents", "1.5"), "--agents")
        r = parity("--agents", "68719476736", timeout=30)
        self.assert_bad_input(r, "--agents 68719476736")
        self.assertRegex(r.stderr, r"needs about [0-9.]+ TiB")
        self.assert_bad_input(parity("--beta", "1.2"), "--beta")
        self.assert_bad_input(parity("--discard", "2000"), "--discard")
        self.assert_bad_input(parity("--init-coeffs", "1,2,3"), "--init-coeffs")
        self.assert_bad_input(parity("--init-coeffs", "/nonexistent/coeffs.txt"), "--init-coeffs")
        self.assert_bad_input(parity("--Kbar-range", "50,30"), "--Kbar-range")
        self.assert_bad_input(parity("--u-bad", "0.9", "--ratio-gb", "0.1"), "probability")

    def test_lists_refuse_empty_items(self):
        quick = ["--agents", "100", "--periods", "20", "--discard", "5", "--max-iter", "1", "--quiet"]
        self.assert_bad_input(parity(*quick, "--grid", "40,4,"),
                              "--grid expects 2 comma-separated whole numbers NK,NKbar, got '40,4,' (nothing after "
                              "the last comma)")
        self.assert_bad_input(parity(*quick, "--Kbar-range", "30,,50"), "--Kbar-range expects 2 comma-separated "
                                                                        "numbers MIN,MAX, got '30,,50' (item 2 is empty)")
        self.assert_bad_input(parity(*quick, "--Kbar-range", "30,inf"), "(item 2 is not a finite number)")
        self.assert_bad_input(parity(*quick, "--init-coeffs", "0,1,0,1,"), "--init-coeffs expects 4")

    def test_options_that_do_not_apply_are_refused(self):
        quick = ["--agents", "100", "--periods", "20", "--discard", "5", "--max-iter", "1", "--quiet"]
        self.assert_bad_input(parity(*quick, "--panel-start", "fixed", "--burn-in", "5"),
                              "--burn-in applies to --panel-start carry only")
        self.assert_bad_input(parity(*quick, "--checkpoint-every", "5"),
                              "--checkpoint-every applies with --checkpoint FILE only")
        self.assert_bad_input(parity(*quick, "--restart", "saved", "--restart-panel", "--initial-capital", "30"),
                              "--initial-capital does not apply with --restart-panel")
        # ... and accepted where they apply; what the run does not use is null in the report.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity(*SMALL, "--max-iter", "1", "--checkpoint", os.path.join(d, "ks.ckpt"), "--checkpoint-every", "0",
                       "--json", path)
            self.assertIn(r.returncode, (0, 3), r.stdout + r.stderr)
            parameters = load(path)["parameters"]
            self.assertIsNone(parameters["burn_in"])  # SMALL: --panel-start fixed
            self.assertIsNone(parameters["policy_damping"])  # the endogenous grid
            self.assertEqual(parameters["initial_capital"], 40)
            r = parity(*replaced(SMALL, "--panel-start", "carry"), "--burn-in", "20", "--max-iter", "1",
                       "--json", path)
            self.assertIn(r.returncode, (0, 3), r.stdout + r.stderr)
            self.assertEqual(load(path)["parameters"]["burn_in"], 20)

    def test_messages_name_the_option_as_typed(self):
        for args, message in ((["--delta", "2"], "--delta must lie in [0, 1], got 2"),
                              (["--l-bar", "0"], "--l-bar must be positive"),
                              (["--k-power", "20"], "--k-power must lie in [1, 10]"),
                              (["--k-min", "1"], "--k-min must be 0"),
                              (["--Kbar-range", "30,2000"], "--Kbar-range: the upper end must not exceed --k-max 1000"),
                              (["--duration-u-bad", "0.5"], "--duration-u-bad must be >= 1 period"),
                              (["--initial-capital", "2000"], "--initial-capital must lie inside the k grid"),
                              (["--periods", "20", "--discard", "15"],
                               "--discard must be >= 0 and leave at least 8 of the 20 periods (--periods)"),
                              (["--u-bad", "0.9", "--ratio-gb", "0.1"], "--u-good, --u-bad, --duration-u-good")):
            with self.subTest(args=args):
                self.assert_bad_input(parity(*args), message)

    def test_memory_refusal_names_what_dominates(self):
        # The largest grid (128 GB) with a smaller panel (5e8 agents, 79 GB): more than a GPU of up
        # to 192 GB holds, or a host without one, however much memory the host has.
        r = parity("--grid", "100000,10000", "--agents", "500000000", timeout=30)
        self.assert_bad_input(r, "krusell-smith --grid 100000,10000 (NK x NKbar = 1e+09 policy nodes) needs about")
        self.assertNotIn("--agents", r.stderr)

    def test_binary_init_coeffs_file_is_described_not_echoed(self):
        with tempfile.TemporaryDirectory() as d:
            npy = os.path.join(d, "policy.npy")
            np.save(npy, np.arange(4.0))
            r = parity("--init-coeffs", npy)
            self.assert_bad_input(r, f"--init-coeffs: '{npy}' is not a coefficient file (item 1 is not a number")
            self.assertIn("expects a text file whose first line is 4 comma-separated numbers", r.stderr)
            self.assertNotIn("NUMPY", r.stderr)
            self.assertNotIn("descr", r.stderr)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)  # one line
            self.assert_bad_input(parity("--init-coeffs", d), f"--init-coeffs: '{d}' is a folder")

    def test_checkpoint_and_resume(self):
        """--max-iter 1 with --checkpoint stops (exit 3, the stage named), --resume finishes the solve
        to the law an uninterrupted run finds; other parameters or a missing file: exit 2."""
        with tempfile.TemporaryDirectory() as d:
            ck = os.path.join(d, "ks.ckpt")
            whole, part, rest = (os.path.join(d, n + ".json") for n in ("whole", "part", "rest"))
            r = parity(*SMALL, "--json", whole)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            r = parity(*SMALL, "--max-iter", "1", "--checkpoint", ck, "--json", part)
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            doc = load(part)
            self.assertEqual(doc["status"], "not_converged")
            self.assertEqual(doc["results"]["stopped"]["stage"], "law of motion")
            self.assertIn("--max-iter 1", doc["results"]["stopped"]["reason"])
            self.assertEqual(doc["results"]["checkpoint"]["written"], 1)
            self.assertEqual(sorted(os.listdir(d)), ["ks.ckpt", "part.json", "whole.json"])
            r = parity(*SMALL, "--resume", ck, "--json", rest)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            a, b = load(whole)["results"], load(rest)["results"]
            self.assertEqual(a["coefficients"], b["coefficients"])
            self.assertEqual(a["outer_iterations"], b["outer_iterations"])
            self.assertEqual(b["checkpoint"]["resumed_after_iteration"], 1)
            self.assertIsNone(b["stopped"])
            self.assert_bad_input(parity(*SMALL, "--resume", ck, "--beta", "0.98"), "beta=0.98")
            self.assert_bad_input(parity(*SMALL, "--resume", os.path.join(d, "none.ckpt")), "does not exist")
            self.assert_bad_input(parity(*SMALL, "--checkpoint", os.path.join(ck, "x.ckpt")), "--checkpoint")
            # The report never replaces the checkpoint a later --resume needs, nor a file of --output.
            for args in (["--checkpoint", ck, "--json", ck],
                         ["--output", d, "--checkpoint", os.path.join(d, "coeffs.txt")],
                         ["--output", d, "--json", os.path.join(d, "policy.npy")]):
                r = parity(*SMALL, *args)
                self.assert_bad_input(r, args[0])
                self.assertIn(args[2], r.stderr)
            self.assert_bad_input(parity(*SMALL, "--checkpoint", ""), "--checkpoint: the file name is empty")
            self.assertEqual(sorted(os.listdir(d)), ["ks.ckpt", "part.json", "rest.json", "whole.json"])
            self.assertEqual(read_checkpoint_magic(ck), b"PARITYCK")
            self.assert_bad_input(parity(*SMALL, "--checkpoint-every", "-1"), "--checkpoint-every")

    def test_time_limit_stops_between_outer_iterations(self):
        """A limit already passed stops the solve after its first outer iteration (status
        time_limit, exit 3) with the checkpoint, whatever --checkpoint-every says; --resume finishes
        it to the law an uninterrupted run finds."""
        with tempfile.TemporaryDirectory() as d:
            ck = os.path.join(d, "ks.ckpt")
            whole, part, rest = (os.path.join(d, n + ".json") for n in ("whole", "part", "rest"))
            r = parity(*SMALL, "--json", whole)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            r = parity(*SMALL, "--time-limit", "1e-9", "--checkpoint", ck, "--checkpoint-every", "1e6", "--json", part)
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            self.assertIn("status time_limit", r.stderr)
            doc = load(part)
            self.assertEqual(doc["status"], "time_limit")
            self.assertEqual(doc["iterations"], 1)
            self.assertEqual(doc["results"]["stopped"]["stage"], "law of motion")
            self.assertIn("--time-limit", doc["results"]["stopped"]["reason"])
            self.assertEqual(doc["results"]["checkpoint"]["written"], 1)
            r = parity(*SMALL, "--resume", ck, "--json", rest)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            a, b = load(whole)["results"], load(rest)["results"]
            self.assertEqual(a["coefficients"], b["coefficients"])
            self.assertEqual(a["outer_iterations"], b["outer_iterations"])
            self.assert_bad_input(parity(*SMALL, "--time-limit", "-5"), "--time-limit")

    def test_capped_first_policy_is_not_converged(self):
        with tempfile.TemporaryDirectory() as d:
            report = os.path.join(d, "ks.json")
            r = parity(*SMALL, "--policy-max-iter", "3", "--json", report)
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            doc = load(report)
            self.assertEqual(doc["status"], "not_converged")
            self.assertEqual(doc["results"]["stopped"]["stage"], "policy")
            self.assertIn("--policy-max-iter 3", doc["results"]["stopped"]["reason"])

    def test_small_run_report_arrays_and_restart(self):
        with tempfile.TemporaryDirectory() as d:
            report = os.path.join(d, "ks.json")
            out = os.path.join(d, "out")
            r = parity(*SMALL, "--json", report, "--output", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(report) as f:
                doc = json.load(f)
            self.assertEqual(doc["model"], "krusell-smith")
            self.assertEqual(doc["status"], "converged")
            res = doc["results"]
            c = res["coefficients"]
            for state in ("good", "bad"):
                self.assertGreater(c[state]["b1"], 0.9)
                self.assertLess(c[state]["b1"], 1.0)
                self.assertGreater(res["r_squared"][state], 0.999)
            self.assertLess(res["den_haan_accuracy"]["max_error_pct"], 2.0)
            self.assertEqual(res["shocks"]["unemployment_max_deviation_agents"], 0)
            self.assertIn("exact unemployment", doc["parameters"]["employment_shocks"])
            # --panel-locate auto (default) resolves to scratch in double on a GPU, power elsewhere.
            self.assertEqual(doc["parameters"]["panel_locate"], "auto")
            gpu = doc["backend"]["backend"] in ("cuda", "hip", "sycl")
            double = doc["precision"] == "double"
            self.assertEqual(res["panel_locate"], "scratch" if gpu and double else "power")
            for phase in ("shocks", "policy", "panel", "regression", "accuracy"):
                phase = "parity::krusell_smith::" + phase
                self.assertIn(phase, doc["timing"]["phases"])
            P = np.array(res["transition_matrix"])
            np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-14)
            g = np.load(os.path.join(out, "policy.npy"))
            self.assertEqual(g.shape, (40, 4, 2, 2))
            self.assertGreaterEqual(g.min(), 0.0)
            K = np.load(os.path.join(out, "K_path.npy"))
            self.assertEqual(K.shape, (301,))
            k = np.load(os.path.join(out, "k_final.npy"))
            self.assertAlmostEqual(k.mean() / K[-1], 1.0, places=10)
            self.assertEqual(np.load(os.path.join(out, "z_path.npy")).shape, (300,))
            # Restart from the saved coefficients: converges at once, to the same law.
            restart = [a for a in SMALL if a not in ("--init-coeffs", "0.13,0.964,0.12,0.966")]
            r2 = parity(*restart, "--init-coeffs", os.path.join(out, "coeffs.txt"), "--json", report)
            self.assertEqual(r2.returncode, 0, r2.stdout + r2.stderr)
            with open(report) as f:
                doc2 = json.load(f)
            self.assertLessEqual(doc2["iterations"], 3)
            self.assertAlmostEqual(doc2["results"]["coefficients"]["good"]["b1"], c["good"]["b1"], places=4)
            self.assertEqual(doc2["parameters"]["start"]["coefficients"], os.path.join(out, "coeffs.txt"))
            self.assertEqual(doc2["parameters"]["start"]["policy"], "initial guess k' = 0.9 k")
            # The report names the employment draw that ran.
            r3 = parity(*SMALL, "--employment-draw", "independent", "--max-iter", "1", "--json", report)
            self.assertIn(r3.returncode, (0, 3), r3.stdout + r3.stderr)
            with open(report) as f:
                doc3 = json.load(f)
            self.assertEqual(doc3["parameters"]["employment_draw"], "independent")
            self.assertIn("on its own", doc3["parameters"]["employment_shocks"])


def replaced(args, *pairs):
    """args with OPTION VALUE pairs replaced (or appended): options may be given only once."""
    args = list(args)
    for option, value in zip(pairs[::2], pairs[1::2]):
        if option in args:
            args[args.index(option) + 1] = value
        else:
            args += [option, value]
    return args


def read_checkpoint_magic(path):
    with open(path, "rb") as f:
        return f.read(8)


def load(path):
    with open(path) as f:
        return json.load(f)


class KrusellSmithRestart(CliTestCase):
    """One converged small run (setUpClass); restarts read its output folder."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.d = cls.tmp.name
        cls.saved = os.path.join(cls.d, "saved")
        r = parity(*SMALL, "--json", os.path.join(cls.d, "cold.json"), "--output", cls.saved)
        assert r.returncode == 0, r.stdout + r.stderr
        cls.cold = load(os.path.join(cls.d, "cold.json"))
        # The same law from the saved coefficients alone: the policy starts from the initial guess.
        base = [a for a in SMALL if a not in ("--init-coeffs", "0.13,0.964,0.12,0.966")]
        cls.base = base
        r = parity(*base, "--init-coeffs", os.path.join(cls.saved, "coeffs.txt"),
                   "--json", os.path.join(cls.d, "coeffs_only.json"))
        assert r.returncode == 0, r.stdout + r.stderr
        cls.coeffs_only = load(os.path.join(cls.d, "coeffs_only.json"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def copy_saved(self, name):
        """A fresh copy of the saved folder to break."""
        dst = os.path.join(self.d, name)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(self.saved, dst)
        return dst

    def test_restart_converges_at_once_with_few_policy_iterations(self):
        report = os.path.join(self.d, "restart.json")
        r = parity(*self.base, "--restart", self.saved, "--json", report)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        doc = load(report)
        self.assertEqual(doc["status"], "converged")
        self.assertLessEqual(doc["iterations"], 2)
        res, cold = doc["results"], self.cold["results"]
        for state in ("good", "bad"):
            for b in ("b0", "b1"):
                self.assertAlmostEqual(res["coefficients"][state][b], cold["coefficients"][state][b], delta=1e-5)
        self.assertEqual(doc["parameters"]["start"], {
            "coefficients": os.path.join(self.saved, "coeffs.txt"),
            "policy": os.path.join(self.saved, "policy.npy"),
            "panel": "every agent at initial_capital"})
        # Both solve the policy of the same law to the same tolerance in their first iteration.
        warm_its = res["policy_iterations_first"]
        cold_its = self.coeffs_only["results"]["policy_iterations_first"]
        self.assertGreaterEqual(warm_its, 1)
        self.assertLessEqual(10 * warm_its, cold_its, (warm_its, cold_its))
        self.assertLess(res["policy_iterations_total"], cold["policy_iterations_total"])

    def test_restart_into_its_own_folder_float_and_float32_files(self):
        # --output may be the folder it restarts from: everything is read before anything is written.
        own = self.copy_saved("own")
        before = np.load(os.path.join(own, "policy.npy"))
        r = parity(*self.base, "--restart", own, "--output", own)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        np.testing.assert_allclose(np.load(os.path.join(own, "policy.npy")), before, rtol=0, atol=1e-6)
        # A float run converts the (always float64) policy; a float32 policy.npy (numpy.save) is read too.
        report = os.path.join(self.d, "float.json")
        r = parity(*replaced(self.base, "--tol", "1e-4"), "--restart", self.saved, "--precision", "float",
                   "--json", report)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("rounded to float", load(report)["parameters"]["start"]["policy"])
        self.assertLessEqual(load(report)["iterations"], 2)
        f32 = self.copy_saved("f32")
        np.save(os.path.join(f32, "policy.npy"), before.astype(np.float32))
        r = parity(*replaced(self.base, "--tol", "1e-4"), "--restart", f32, "--json", report)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertLessEqual(load(report)["iterations"], 2)

    def test_restart_panel_starts_from_the_saved_cross_section(self):
        report = os.path.join(self.d, "panel.json")
        out = os.path.join(self.d, "panel_out")
        r = parity(*self.base, "--restart", self.saved, "--restart-panel", "--max-iter", "1",
                   "--json", report, "--output", out)
        self.assertIn(r.returncode, (0, 3), r.stdout + r.stderr)  # one iteration: may not converge
        k = np.load(os.path.join(self.saved, "k_final.npy"))
        K = np.load(os.path.join(out, "K_path.npy"))
        self.assertAlmostEqual(K[0] / k.mean(), 1.0, places=12)
        self.assertIn("k_final.npy", load(report)["parameters"]["start"]["panel"])

    def assert_refused(self, message, *args, folder=None):
        """Bad restart input: exit 2, the message, no report and no output folder written."""
        out = os.path.join(self.d, "never_written")
        report = os.path.join(self.d, "never.json")
        options = [a for a in args if a.startswith("--") and a not in ("--restart-panel",)]
        flags = [a for a in args if a == "--restart-panel"]
        pairs = [x for a in options for x in (a, args[args.index(a) + 1])]
        r = parity(*replaced(self.base, *pairs), *flags, "--restart", folder or self.saved, "--output", out,
                   "--json", report)
        self.assert_bad_input(r, message)
        self.assertFalse(os.path.exists(out), "the output folder was created")
        self.assertFalse(os.path.exists(report), "a report was written")

    def test_bad_restarts_fail_cleanly(self):
        saved = self.saved
        self.assert_refused("is not a folder", folder=os.path.join(self.d, "nonexistent"))
        self.assert_refused("k_grid.npy' has shape (40,), this run needs (50,)", "--grid", "50,4")
        self.assert_refused("K_grid.npy' has shape (4,), this run needs (5,)", "--grid", "40,5")
        self.assert_refused("k_grid.npy' is another grid", "--k-max", "900")
        self.assert_refused("K_grid.npy' is another grid", "--Kbar-range", "31,50")
        self.assert_refused("leave out --init-coeffs", "--init-coeffs", "0,1,0,1")
        self.assert_refused("k_final.npy' has shape (2000,), this run needs (3000,)", "--restart-panel",
                            "--agents", "3000")
        r = parity(*self.base, "--restart-panel")
        self.assert_bad_input(r, "--restart-panel needs --restart")

        broken = self.copy_saved("missing")
        os.remove(os.path.join(broken, "policy.npy"))
        self.assert_refused("policy.npy' does not exist", folder=broken)
        os.remove(os.path.join(broken, "coeffs.txt"))
        self.assert_refused("coeffs.txt", folder=broken)

        g = np.load(os.path.join(saved, "policy.npy"))
        broken = self.copy_saved("shape")
        np.save(os.path.join(broken, "policy.npy"), g[:, :3])
        self.assert_refused("policy.npy' has shape (40, 3, 2, 2), this run needs (40, 4, 2, 2)", folder=broken)
        g_nan = g.copy()
        g_nan[3, 1, 0, 1] = np.nan
        np.save(os.path.join(broken, "policy.npy"), g_nan)
        self.assert_refused("policy.npy' holds a value that is not finite", folder=broken)
        np.save(os.path.join(broken, "policy.npy"), g.astype(np.int64))
        self.assert_refused("dtype '<i8'", folder=broken)
        np.save(os.path.join(broken, "policy.npy"), g)
        with open(os.path.join(broken, "policy.npy"), "r+b") as f:
            f.truncate(200)
        self.assert_refused("data bytes", folder=broken)
        np.save(os.path.join(broken, "policy.npy"), g)
        np.save(os.path.join(broken, "k_grid.npy"), np.load(os.path.join(saved, "k_grid.npy")) * 1.01)
        self.assert_refused("k_grid.npy' is another grid", folder=broken)

        broken = self.copy_saved("coeffs")
        with open(os.path.join(broken, "coeffs.txt"), "w") as f:
            f.write("0.1,nan,0.1,0.9\n")
        self.assert_refused("coeffs.txt' is not a coefficient file (item 2 is not a finite number", folder=broken)

        broken = self.copy_saved("panel")
        e = np.load(os.path.join(saved, "employed_final.npy"))
        e[5] = 2
        np.save(os.path.join(broken, "employed_final.npy"), e)
        self.assert_refused("expected 0 or 1", "--restart-panel", folder=broken)
        np.save(os.path.join(broken, "employed_final.npy"), e.astype(np.float64))
        self.assert_refused("expected int32", "--restart-panel", folder=broken)
        # The cross-section is only read with --restart-panel: without it the same folder is fine.
        r = parity(*self.base, "--restart", broken, "--max-iter", "1")
        self.assertIn(r.returncode, (0, 3), r.stdout + r.stderr)

    def test_failed_restart_leaves_its_output_folder_alone(self):
        own = self.copy_saved("untouched")
        stamp = {n: (os.stat(os.path.join(own, n)).st_mtime_ns, Path(own, n).read_bytes()) for n in os.listdir(own)}
        r = parity(*replaced(self.base, "--grid", "40,5"), "--restart", own, "--output", own)
        self.assert_bad_input(r, "K_grid.npy")
        self.assertEqual(sorted(os.listdir(own)), sorted(stamp))
        for n, (mtime, data) in stamp.items():
            self.assertEqual(os.stat(os.path.join(own, n)).st_mtime_ns, mtime, n)
            self.assertEqual(Path(own, n).read_bytes(), data, n)


if __name__ == "__main__":
    unittest.main()
