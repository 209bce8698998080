"""The `cubature` command: a good small run and its JSON report, history arrays, and clear errors
(exit 2) on bad input; a run stopped by its budget exits 3 with the reason in the report."""
import json
import os
import sys
from pathlib import Path
import tempfile
import unittest

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cli"))
from parity_cli import CliTestCase, run  # noqa: E402  (takes the executable from argv[1])


def parity(*args, timeout=120):
    return run(*args, timeout=timeout)


class CubatureCli(CliTestCase):
    def test_help_lists_options(self):
        r = parity("cubature", "--help")
        self.assertEqual(r.returncode, 0)
        for option in ("--integrand", "--dim", "--rel-tol", "--abs-tol", "--max-evals", "--heap-capacity",
                       "--max-host-memory-mb"):
            self.assertIn(option, r.stdout)

    def test_plain_messages_and_help(self):
        r = parity("cubature", "--max-evals", "1e30")
        self.assert_bad_input(r, "--max-evals: 1e30 is out of range")
        self.assertNotIn("positive whole number", r.stderr)
        self.assert_bad_input(parity("cubature", "--rel-tol", "inf"), "--rel-tol: 'inf' is not a finite number")
        self.assert_bad_input(parity("cubature", "--rel-tol", "10"), "--rel-tol: 10 is out of range: must be in [0, 1)")
        self.assert_bad_input(parity("cubature", "--mode", "fast"), "--mode")
        help_text = parity("cubature", "--help").stdout
        self.assertNotIn("ENUM", help_text)
        self.assertNotIn("[[", help_text)
        self.assertNotIn("->", help_text)

    def test_ignored_parameters_refused(self):
        self.assert_bad_input(parity("cubature", "--integrand", "f1", "--a", "2"), "--a")
        self.assert_bad_input(parity("cubature", "--integrand", "f2", "--u", "0.3"), "--u")
        self.assert_bad_input(parity("cubature", "--sweep", "a:1:2:3", "--a", "2"), "leave out --a")
        self.assert_bad_input(parity("probe", "--output", "x"), "--output")
        # corner_peak has no location: --u and a sweep of it would change nothing.
        self.assert_bad_input(parity("cubature", "--integrand", "corner_peak", "--u", "0.3"), "--u: corner_peak")
        self.assert_bad_input(parity("cubature", "--integrand", "corner_peak", "--sweep", "u:0.2:0.8:2"),
                              "corner_peak has no location")

    def test_options_the_mode_ignores_are_refused(self):
        # Each says when it applies; each would run (and ignore the option) were it accepted.
        cases = ((("--mode", "paper", "--rule", "degree9"), "--rule applies to --mode improved only"),
                 (("--mode", "paper", "--rule", "degree7"), "--rule applies to --mode improved only"),
                 (("--mode", "paper", "--max-host-memory-mb", "1"), "--max-host-memory-mb applies to --mode improved only"),
                 (("--max-regions", "4096"), "--max-regions applies to --mode paper only"),
                 (("--mode", "paper", "--initial-regions", "64"), "--initial-regions applies to --mode improved only"),
                 (("--max-split", "4"), "--max-split applies to --mode paper only"),
                 (("--cuhre-average",), "--cuhre-average applies to --mode paper only"),
                 (("--concurrency", "8"), "--concurrency applies to --sweep only"),
                 (("--error-estimate", "difference"), "--error-estimate difference needs --rule degree7"),
                 (("--dim", "1", "--rule", "degree9"), "--rule degree9 needs --dim 2"))
        for args, message in cases:
            self.assert_bad_input(parity("cubature", *args, "--quiet"), message)
        # What they apply to still runs.
        for args in (("--mode", "paper", "--max-split", "4", "--max-regions", "256"),
                     ("--mode", "paper", "--cuhre-average", "--max-regions", "256"),
                     ("--rule", "degree7", "--error-estimate", "difference"), ("--dim", "1", "--rule", "degree7"),
                     ("--max-host-memory-mb", "1"), ("--sweep", "u:0.4:0.6:2", "--concurrency", "2")):
            r = parity("cubature", *args, "--quiet")
            self.assertEqual(r.returncode, 0, " ".join(args) + r.stdout + r.stderr)

    def test_team_size_beyond_the_backend_limit(self):
        # Host backends run teams of at most their thread count (Serial: one): refused before the
        # launch with the limit, not Kokkos' own error.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "info.json")
            self.assertEqual(parity("info", "--json", path).returncode, 0)
            backend = json.loads(Path(path).read_text())["backend"]["backend"]
        if backend == "cuda":
            self.skipTest("GPU teams are limited by each kernel's registers")
        largest = 2 if backend == "openmp" else 1
        r = parity("cubature", "--team-size", str(largest + 1), "--threads", "2", "--quiet")
        self.assert_bad_input(r, "--team-size %d" % (largest + 1))
        self.assertIn("at most %d threads" % largest, r.stderr)
        r = parity("cubature", "--team-size", str(largest), "--threads", "2", "--quiet")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_messages_name_the_option(self):
        for args, message in ((("--dim", "0"), "--dim: 0 is out of range: must be in [1, 32]"),
                              (("--dim", "17"), "--dim 17: the deterministic method integrates up to 16"),
                              (("--rel-tol", "-1"), "--rel-tol: -1 is out of range: must be in [0, 1)"),
                              (("--abs-tol", "-1"), "--abs-tol: -1 is out of range: must be >= 0"),
                              (("--initial-regions", "0"), "--initial-regions: 0 is out of range"),
                              (("--mode", "paper", "--max-split", "1"), "--max-split: 1 is out of range"),
                              (("--max-memory-mb", "0"), "--max-memory-mb: 0 is out of range: must be > 0"),
                              (("--max-host-memory-mb", "-1"), "--max-host-memory-mb: -1 is out of range"),
                              (("--max-phase1-iterations", "0"), "--max-phase1-iterations: 0 is out of range"),
                              (("--heap-capacity", "1"), "--heap-capacity 1"),
                              (("--max-evals", "10"), "--max-evals 10"),
                              (("--rel-tol", "0"), "--rel-tol and --abs-tol are both 0"),
                              (("--lower", "1", "--upper", "0"), "--lower, --upper"),
                              (("--integrand", "f9"), "--integrand f9"),
                              (("--integrand", "corner_peak", "--a", "-1"), "--a: corner_peak")):
            self.assert_bad_input(parity("cubature", *args), message)
        # Whole-number options take their real range, never a conversion failure.
        for option in ("--dim", "--initial-regions", "--max-regions", "--max-split",
                       "--max-phase1-iterations", "--heap-capacity", "--team-size", "--concurrency", "--max-evals"):
            r = parity("cubature", option, "1e30")
            self.assert_bad_input(r, option + ": 1e30 is out of range")
            self.assertNotIn("Could not convert", r.stderr)

    def test_lists_refuse_empty_items(self):
        for args, message in ((("--lower", "0,0,0,0,"), "--lower 0,0,0,0,: item 5 is empty"),
                              (("--upper", "1,,1,1"), "--upper 1,,1,1: item 2 is empty"),
                              (("--a", "5,5,5,5,"), "--a 5,5,5,5,: item 5 is empty"),
                              (("--u", ",0.5"), "--u ,0.5: item 1 is empty"),
                              (("--u", "0.5,x"), "--u 0.5,x: item 2"),
                              (("--sweep", "u:0.2:0.8:2:"), "NAME:LO:HI:N")):
            self.assert_bad_input(parity("cubature", *args, "--quiet"), message)

    def test_float_default_tolerance(self):
        # Not given, --rel-tol is 1e-3 in float (float's rounding holds the estimates near 1e-4 of
        # the integral: 1e-6 ends budget_exhausted) and 1e-6 in double.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            for precision, rel_tol in (("float", 1e-3), ("double", 1e-6)):
                r = parity("cubature", "--precision", precision, "--max-evals", "1e7", "--json", path, "--quiet")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertNotIn("warning", r.stderr)
                doc = json.loads(Path(path).read_text())
                self.assertEqual(doc["parameters"]["rel_tol"], rel_tol)
                self.assertEqual(doc["results"]["status"], "converged")
        # Asked for more than float can give: warned up front, not refused.
        r = parity("cubature", "--precision", "float", "--rel-tol", "1e-6", "--max-evals", "1e6", "--quiet")
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("warning: cubature --precision float --rel-tol 1e-06", r.stderr)
        self.assertLess(r.stderr.index("warning"), r.stderr.index("budget_exhausted"))
        r = parity("cubature", "--precision", "float", "--rel-tol", "1e-3", "--quiet")
        self.assertNotIn("warning", r.stderr)

    def test_help_names_the_default_rule(self):
        text = " ".join(parity("cubature", "--help").stdout.split())  # however the lines are wrapped
        self.assertIn("degree-9 rule (default)", text)
        self.assertNotIn("(Genz-Malik rule, two-phase", text)
        self.assertIn("automatic (two_level with the degree-9 rule, null_rules with degree 7 in improved mode", text)
        self.assertIn("default 1e-6 in double precision, 1e-3 in float", text)

    def test_good_run_report(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            out = os.path.join(d, "arrays")
            r = parity("cubature", "--integrand", "gaussian", "--dim", "3", "--rel-tol", "1e-6", "--a", "4",
                       "--u", "0.3,0.5,0.6", "--json", path, "--output", out, "--quiet")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                doc = json.load(f)
            errors = np.load(os.path.join(out, "phase1_error.npy"))
        self.assertEqual(doc["schema"], "parity.run/1")
        self.assertEqual(doc["model"], "cubature")
        self.assertEqual(doc["status"], "converged")
        res = doc["results"]
        self.assertEqual(res["status"], "converged")
        self.assertEqual(doc["parameters"]["u"], [0.3, 0.5, 0.6])
        self.assertLess(res["true_error"], 1e-6 * abs(res["exact"]))
        self.assertLessEqual(res["error_estimate"], 1e-6 * abs(res["integral"]))
        self.assertGreater(res["evaluations"], 0)
        self.assertGreater(res["regions"], 0)
        self.assertIn("parity::cubature::phase1", doc["timing"]["phases"])
        self.assertEqual(len(errors), doc["iterations"])
        # Roofline work: per evaluation the Gaussian's 4n + 2 operations, n for the point's
        # coordinates and 2 for the rule's sums (n = 3: 19), counted here by hand.
        self.assertEqual(res["work"]["flops"], 19 * res["evaluations"])

    def test_budget_exhausted_exits_3(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("cubature", "--integrand", "oscillatory", "--dim", "5", "--rel-tol", "1e-12",
                       "--max-evals", "2e5", "--json", path, "--quiet")
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            self.assertIn("budget_exhausted", r.stderr)
            with open(path) as f:
                doc = json.load(f)
        self.assertEqual(doc["status"], "budget_exhausted")
        self.assertEqual(doc["results"]["status"], "budget_exhausted")
        self.assertLessEqual(doc["results"]["evaluations"], 200000)

    def vegas(self, *args, threads="2"):
        """Runs --method vegas with a JSON report; returns (exit code, report)."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("cubature", "--method", "vegas", "--threads", threads, "--json", path, "--quiet", *args)
            doc = json.loads(Path(path).read_text()) if os.path.exists(path) else None
        return r, doc

    def test_vegas_report(self):
        # Gaussian 20-D (beyond the deterministic method's 16): converged to --rel-tol, the
        # estimate within 5 standard deviations of the closed form, and every field of the report.
        r, doc = self.vegas("--integrand", "gaussian", "--dim", "20", "--a", "2", "--evals-per-iteration", "2e4",
                            "--rel-tol", "2e-3", "--seed", "5")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = doc["results"]
        self.assertEqual(doc["status"], "converged")
        self.assertEqual(res["method"], "vegas")
        self.assertEqual(doc["parameters"]["method"], "vegas")
        self.assertEqual(doc["parameters"]["seed"], 5)
        self.assertEqual(res["status"], "converged")
        self.assertLessEqual(abs(res["estimate"] - res["exact"]), 5 * res["error"])
        self.assertLessEqual(res["error"], 2e-3 * abs(res["estimate"]))
        self.assertEqual(res["iterations"], len(res["iteration_estimates"]))
        self.assertEqual(res["restarts"], 0)  # converged with agreeing iterations: never restarted
        self.assertEqual(res["kept_iterations"], res["iterations"] - 5)  # the default 5 adaptation iterations
        self.assertLessEqual(res["evaluations"], 20000 * res["iterations"])
        self.assertGreaterEqual(res["chi2_per_dof"], 0)
        self.assertTrue(0 <= res["q"] <= 1)
        self.assertIn("parity::cubature::vegas", doc["timing"]["phases"])

    def test_vegas_same_bits_for_any_thread_count(self):
        args = ("--integrand", "product_peak", "--dim", "6", "--evals-per-iteration", "2e4", "--max-evals", "2e5",
                "--rel-tol", "1e-9")
        r1, one = self.vegas(*args, threads="1")
        r2, two = self.vegas(*args, threads="2")
        self.assertEqual(r1.returncode, 3, r1.stdout + r1.stderr)  # the budget stops it
        self.assertEqual(one["results"]["stopped_by"], "budget_exhausted")
        self.assertEqual(one["status"], "budget_exhausted")
        self.assertIn("budget_exhausted", r1.stderr)
        for key in ("estimate", "error", "chi2_per_dof", "iteration_estimates", "evaluations"):
            self.assertEqual(one["results"][key], two["results"][key], key)
        _, other = self.vegas(*args, "--seed", "2")
        self.assertNotEqual(one["results"]["estimate"], other["results"]["estimate"])

    def test_vegas_restarts_when_kept_iterations_disagree(self):
        # A narrow 5-D Gaussian: the map takes more than the 5 adaptation iterations to find the
        # peak, so the first kept estimates meet the tolerance but disagree (chi^2 Q < 0.05). With
        # --restarts 0 the run says so and stops; by default they are dropped and the average starts
        # again, converging with agreeing iterations and an estimate near the closed form.
        args = ("--integrand", "gaussian", "--dim", "5", "--a", "40", "--u", "0.5", "--evals-per-iteration", "5e4",
                "--rel-tol", "3e-3")
        r0, none = self.vegas(*args, "--restarts", "0")
        self.assertEqual(r0.returncode, 3, r0.stdout + r0.stderr)
        self.assertEqual(none["status"], "not_converged")
        self.assertLess(none["results"]["q"], 0.05)
        self.assertEqual(none["results"]["restarts"], 0)
        r, doc = self.vegas(*args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = doc["results"]
        self.assertEqual(doc["parameters"]["restarts"], 3)
        self.assertEqual(doc["status"], "converged")
        self.assertGreaterEqual(res["restarts"], 1)
        self.assertGreaterEqual(res["q"], 0.05)
        self.assertLessEqual(res["error"], 3e-3 * abs(res["estimate"]))
        self.assertLessEqual(abs(res["estimate"] - res["exact"]), 4 * res["error"])
        # The dropped iterations count as adaptation: fewer kept than after the 5 alone, and the run
        # went on past the iterations of the run without restarts.
        self.assertLess(res["kept_iterations"], res["iterations"] - 5)
        self.assertGreater(res["iterations"], none["results"]["iterations"])

    def test_vegas_bad_input(self):
        for args, message in ((("--mode", "paper"), "--mode applies to --method deterministic only"),
                              (("--team-size", "1"), "--team-size applies to --method deterministic only"),
                              (("--concurrency", "2"), "--concurrency applies to --method deterministic only"),
                              (("--sweep-sampling", "separate"), "--sweep-sampling applies to --sweep only"),
                              (("--dim", "33"), "--dim: 33 is out of range: must be in [1, 32]"),
                              (("--evals-per-iteration", "8"), "--evals-per-iteration: 8 is out of range"),
                              (("--adaptation-iterations", "-1"), "--adaptation-iterations"),
                              (("--restarts", "101"), "--restarts: 101 is out of range"),
                              (("--max-evals", "1e5"), "--max-evals 100000: below (--adaptation-iterations + 1)"),
                              (("--rel-tol", "0"), "--rel-tol and --abs-tol are both 0"),
                              (("--integrand", "f1", "--a", "2"), "--a: f1")):
            self.assert_bad_input(self.vegas(*args)[0], message)
        self.assert_bad_input(parity("cubature", "--method", "monte-carlo"), "--method")
        for option in ("--seed", "--evals-per-iteration", "--adaptation-iterations", "--restarts"):
            value = "1e5" if option == "--evals-per-iteration" else "3"
            self.assert_bad_input(parity("cubature", option, value, "--quiet"),
                                  option + " applies to --method vegas only")

    def test_vegas_sweep_report(self):
        # --method vegas --sweep a: a Gaussian 6-D family of 6 widths in one sampling. Every value has
        # its own result, each within 4 of its own errors of the closed form, the summary fields
        # agree with the cases, and the same integrals as separate calls agree with the family.
        args = ("--integrand", "gaussian", "--dim", "6", "--sweep", "a:2:4:6", "--evals-per-iteration", "1e4",
                "--rel-tol", "2e-3", "--max-evals", "4e6")
        r, doc = self.vegas(*args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res, par = doc["results"], doc["parameters"]
        self.assertEqual(doc["status"], "converged")
        self.assertEqual(par["sweep"], {"name": "a", "lo": 2.0, "hi": 4.0, "n": 6})
        self.assertEqual(par["sweep_sampling"], "shared")
        self.assertEqual(res["sweep_sampling"], "shared")
        self.assertEqual(res["integrals"], 6)
        self.assertEqual(res["converged"], 6)
        self.assertEqual(len(res["cases"]), 6)
        self.assertEqual(len(par["cases"]), 6)
        self.assertIn("parity::cubature::vegas_sweep", doc["timing"]["phases"])
        worst = 0
        for k, (c, p) in enumerate(zip(res["cases"], par["cases"])):
            a = 2 + 0.4 * k
            self.assertEqual(len(p["a"]), 6)
            for x in p["a"]:
                self.assertAlmostEqual(x, a, delta=1e-14)
            self.assertEqual(c["method"], "vegas")
            self.assertEqual(c["status"], "converged")
            self.assertLessEqual(c["true_error"], 4 * c["error"], k)
            self.assertLessEqual(c["error"], 2e-3 * abs(c["estimate"]))
            self.assertEqual(c["evaluations"], res["sample_points"])  # one sampling for all
            self.assertEqual(c["iterations"], res["iterations"])
            worst = max(worst, c["true_error"])
        # Wider Gaussians (smaller a) have larger integrals.
        estimates = [c["estimate"] for c in res["cases"]]
        self.assertEqual(estimates, sorted(estimates, reverse=True))
        self.assertEqual(res["worst_true_error"], worst)
        self.assertEqual(res["evaluations"], 6 * res["sample_points"])
        _, separate = self.vegas(*args, "--sweep-sampling", "separate")
        sep = separate["results"]
        self.assertEqual(sep["sweep_sampling"], "separate")
        self.assertEqual(sep["converged"], 6)
        self.assertEqual(sep["sample_points"], sum(c["evaluations"] for c in sep["cases"]))
        for c, d in zip(res["cases"], sep["cases"]):
            self.assertLessEqual(abs(c["estimate"] - d["estimate"]), 4 * (c["error"] ** 2 + d["error"] ** 2) ** 0.5)
        # The same bits for any thread count.
        _, one = self.vegas(*args, threads="1")
        self.assertEqual([c["estimate"] for c in one["results"]["cases"]], estimates)

    def test_vegas_sweep_budget_and_bad_specs(self):
        # A budget too small for 1e-4: every case says so in its own status, the run exits 3 with one line.
        r, doc = self.vegas("--integrand", "gaussian", "--dim", "6", "--sweep", "u:0.3:0.7:3", "--evals-per-iteration",
                            "2e3", "--max-evals", "4e4", "--rel-tol", "1e-4")
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertEqual(doc["status"], "budget_exhausted")
        self.assertEqual([c["status"] for c in doc["results"]["cases"]], ["budget_exhausted"] * 3)
        self.assertIn("3 of 3 integrals", r.stderr)
        for args, message in ((("--sweep", "x:0:1:3"), "NAME must be a or u"),
                              (("--sweep", "a:1:2"), "NAME:LO:HI:N"),
                              (("--sweep", "a:1:2:0"), "--sweep"),
                              (("--sweep", "a:1:2:3", "--a", "2"), "leave out --a"),
                              (("--integrand", "f2", "--sweep", "a:1:2:2"), "no parameters"),
                              (("--integrand", "corner_peak", "--sweep", "u:0.2:0.8:2"), "corner_peak has no location"),
                              (("--sweep", "a:-1:1:2"), "--sweep a:-1:1:2"),
                              (("--sweep", "a:1:2:3", "--sweep-sampling", "both"), "--sweep-sampling"),
                              (("--sweep", "a:1:2:3", "--concurrency", "2"), "--concurrency")):
            self.assert_bad_input(self.vegas(*args)[0], message)
        for args, message in ((("--mode", "paper"), "does not run with --mode paper"),
                              (("--concurrency", "2"), "does not run with --concurrency"),
                              (("--max-host-memory-mb", "8"), "does not run with --max-host-memory-mb")):
            self.assert_bad_input(parity("cubature", "--sweep", "a:1:2:3", "--sweep-sampling", "shared", *args,
                                         "--quiet"), message)

    def report(self, *args):
        """Runs cubature with a JSON report; returns (exit code, report)."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("cubature", "--threads", "2", "--json", path, "--quiet", *args)
            doc = json.loads(Path(path).read_text()) if os.path.exists(path) else None
        return r, doc

    def test_auto_method_follows_the_rule(self):
        # Each clause of the rule (docs/models/cubature.md): the method auto picks, its reason, and
        # the very results of that method asked for by name.
        vegas_budget = ("--evals-per-iteration", "2e4", "--max-evals", "4e5")
        for args, method, reason in (
                (("--integrand", "gaussian", "--dim", "20", "--a", "2", *vegas_budget), "vegas", "above"),
                (("--integrand", "product_peak", "--dim", "12", "--rel-tol", "1e-6", *vegas_budget), "vegas",
                 "12 or more"),
                (("--integrand", "c0", "--dim", "8", "--rel-tol", "1e-3", *vegas_budget), "vegas", "1e-4 or looser"),
                (("--integrand", "product_peak", "--dim", "4", "--rel-tol", "1e-3"), "deterministic", "below 8"),
                (("--integrand", "oscillatory", "--dim", "12", "--rel-tol", "1e-3", "--max-evals", "3e6"),
                 "deterministic", "oscillating"),
                (("--integrand", "gaussian", "--dim", "8", "--rel-tol", "1e-6", "--max-evals", "1e6"),
                 "deterministic", "below 12) at a relative tolerance below 1e-4")):
            r_auto, auto = self.report("--method", "auto", *args)
            r_named, named = self.report("--method", method, *args)
            self.assertIn(r_auto.returncode, (0, 3), r_auto.stderr)
            self.assertEqual(r_auto.returncode, r_named.returncode, args)
            self.assertEqual(auto["parameters"]["method_requested"], "auto")
            self.assertEqual(auto["results"]["method"], method, args)
            self.assertIn(reason, auto["results"]["method_reason"])
            self.assertNotIn("method_reason", named["results"])
            del auto["results"]["method_reason"]
            self.assertEqual(auto["results"], named["results"], args)
        # Without --rel-tol a chosen vegas takes its own default, as --method vegas does.
        _, auto = self.report("--method", "auto", "--integrand", "gaussian", "--dim", "17", *vegas_budget)
        self.assertEqual(auto["results"]["method"], "vegas")
        self.assertEqual(auto["parameters"]["rel_tol"], 1e-3)

    def test_paper_integrands(self):
        # f5 integrates to n/2 exactly; f3 has a reference for n <= 4 only (the report says null).
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("cubature", "--integrand", "f5", "--dim", "3", "--rel-tol", "1e-8", "--json", path, "--quiet")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            res = json.loads(Path(path).read_text())["results"]
            self.assertEqual(res["exact"], 1.5)
            self.assertLess(res["true_error"], 1e-8 * 1.5)
            r = parity("cubature", "--integrand", "f3", "--dim", "6", "--rel-tol", "1e-1", "--max-evals", "2e5",
                       "--json", path, "--quiet")
            self.assertIn(r.returncode, (0, 3), r.stdout + r.stderr)
            self.assertIn("(exact value unknown)", r.stdout)
            self.assertNotIn("nan", r.stdout)
            text = Path(path).read_text()
            self.assertNotIn("NaN", text)
            res = json.loads(text)["results"]
            self.assertIsNone(res["exact"])
            self.assertIsNone(res["true_error"])
            self.assertIsNone(res["relative_true_error"])
        self.assert_bad_input(parity("cubature", "--integrand", "f1", "--upper", "2"), "unit cube")

    def test_host_parking(self):
        # A region list that outgrows --max-memory-mb is refined in pieces, the others parked in
        # host memory: converged, nothing left unrefined, and the report says how much was parked.
        # (Degree 7: the degree-9 rule converges here before the list outgrows 0.05 MB.)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("cubature", "--integrand", "gaussian", "--dim", "3", "--a", "5", "--u", "0.5",
                       "--rule", "degree7",
                       "--rel-tol", "1e-8", "--max-memory-mb", "0.05", "--max-host-memory-mb", "8",
                       "--json", path, "--quiet")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                doc = json.load(f)
        res = doc["results"]
        self.assertEqual(res["status"], "converged")
        self.assertGreater(res["parked_chunks"], 0)
        self.assertGreater(res["peak_host_mb"], 0)
        self.assertLessEqual(res["peak_host_mb"], 8)
        self.assertEqual(res["unrefined_regions"], 0)
        self.assertEqual(res["phase2_regions"], 0)
        self.assertLess(res["true_error"], 1e-8 * abs(res["exact"]))
        self.assertEqual(doc["parameters"]["max_host_memory_mb"], 8)

    def test_sweep_batch(self):
        # --sweep u: one integral per value, run as one batch; symmetric locations give the same
        # integral, each within its tolerance of the closed form.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("cubature", "--integrand", "product_peak", "--dim", "3", "--a", "6", "--rel-tol", "1e-7",
                       "--sweep", "u:0.2:0.8:5", "--concurrency", "2", "--json", path, "--quiet")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                doc = json.load(f)
        cases = doc["results"]["cases"]
        self.assertEqual(len(cases), 5)
        for c, u in zip(doc["parameters"]["cases"], (0.2, 0.35, 0.5, 0.65, 0.8)):
            self.assertEqual(len(c["u"]), 3)
            for x in c["u"]:
                self.assertAlmostEqual(x, u, delta=1e-15)
        self.assertEqual(doc["parameters"]["sweep"], {"name": "u", "lo": 0.2, "hi": 0.8, "n": 5})
        self.assertEqual(doc["parameters"]["concurrency"], 2)
        self.assertEqual(doc["parameters"]["sweep_sampling"], "separate")  # --concurrency: one integral per value
        self.assertIn("parity::cubature::batch", doc["timing"]["phases"])
        for c in cases:
            self.assertEqual(c["status"], "converged")
            self.assertLess(c["true_error"], 1e-7 * abs(c["exact"]))
        self.assertAlmostEqual(cases[0]["integral"], cases[4]["integral"], delta=1e-6 * cases[0]["integral"])
        self.assertAlmostEqual(cases[1]["integral"], cases[3]["integral"], delta=1e-6 * cases[1]["integral"])
        self.assert_bad_input(parity("cubature", "--sweep", "x:0:1:3"), "NAME must be a or u")
        self.assert_bad_input(parity("cubature", "--sweep", "u:0:1"), "NAME:LO:HI:N")
        self.assert_bad_input(parity("cubature", "--integrand", "f1", "--sweep", "a:1:2:2"), "no parameters")
        self.assert_bad_input(parity("cubature", "--sweep", "u:0.2:0.8:2", "--concurrency", "-1"), "--concurrency")
        self.assert_bad_input(parity("cubature", "--integrand", "corner_peak", "--sweep", "a:-1:1:2"),
                              "--sweep a:-1:1:2: corner_peak")
        self.assert_bad_input(parity("cubature", "--integrand", "corner_peak", "--sweep", "a:-1:1:2"), "corner_peak")

    def test_sweep_family(self):
        # By default a deterministic sweep runs as one family (one region list for every value);
        # each value's result is then the separate integral's, bit for bit, as this case stays in
        # phase 1 within its budget and memory.
        docs = {}
        for sampling in ("shared", "separate"):
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "r.json")
                args = ("--integrand", "gaussian", "--dim", "4", "--rel-tol", "1e-8", "--sweep", "a:1:6:7")
                if sampling == "separate":
                    args += ("--sweep-sampling", "separate")
                r = parity("cubature", *args, "--json", path, "--quiet")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                with open(path) as f:
                    docs[sampling] = json.load(f)
        shared, separate = docs["shared"], docs["separate"]
        self.assertEqual(shared["parameters"]["sweep_sampling"], "shared")
        self.assertIn("parity::cubature::family", shared["timing"]["phases"])
        self.assertIn("parity::cubature::batch", separate["timing"]["phases"])
        for x, y in zip(shared["results"]["cases"], separate["results"]["cases"], strict=True):
            self.assertEqual(x["status"], "converged")
            self.assertLess(x["true_error"], 1e-8 * abs(x["exact"]))
            for key in ("integral", "error_estimate", "evaluations", "regions"):
                self.assertEqual(x[key], y[key], key)
        self.assert_bad_input(parity("cubature", "--sweep-sampling", "shared", "--quiet"),
                              "--sweep-sampling applies to --sweep only")

    def test_sweep_on_one_partition(self):
        # --sweep-sampling partition: the values on one partition, each within its tolerance of its
        # closed form, with fewer evaluations than one partition per value.
        docs = {}
        for sampling in ("partition", "shared"):
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "r.json")
                r = parity("cubature", "--integrand", "gaussian", "--dim", "3", "--rel-tol", "1e-9", "--sweep",
                           "a:2:5:6", "--sweep-sampling", sampling, "--json", path, "--quiet")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                with open(path) as f:
                    docs[sampling] = json.load(f)
        one = docs["partition"]
        self.assertEqual(one["parameters"]["sweep_sampling"], "partition")
        self.assertIn("parity::cubature::vector", one["timing"]["phases"])
        cases = one["results"]["cases"]
        self.assertEqual(len(cases), 6)
        for x in cases:
            self.assertEqual(x["status"], "converged")
            self.assertLess(x["true_error"], 1e-9 * abs(x["exact"]))
            self.assertEqual(x["evaluations"], cases[0]["evaluations"])
        self.assertEqual(one["results"]["evaluations"], cases[0]["evaluations"])
        separate = sum(x["evaluations"] for x in docs["shared"]["results"]["cases"])
        self.assertLess(cases[0]["evaluations"], separate)
        sweep = ("--integrand", "gaussian", "--dim", "3", "--sweep-sampling", "partition", "--quiet")
        self.assert_bad_input(parity("cubature", *sweep, "--sweep", "a:1:2:17"), "at most 16 values")
        self.assert_bad_input(parity("cubature", "--integrand", "gaussian", "--dim", "1", "--sweep", "a:1:2:3",
                                     "--sweep-sampling", "partition", "--quiet"), "two or more dimensions")
        self.assert_bad_input(parity("cubature", *sweep, "--sweep", "a:1:2:3", "--mode", "paper"), "--mode paper")
        self.assert_bad_input(parity("cubature", *sweep, "--sweep", "a:1:2:3", "--method", "vegas"),
                              "deterministic method")

    def test_bad_inputs(self):
        self.assert_bad_input(parity("cubature", "--dim", "0"), "--dim")
        self.assert_bad_input(parity("cubature", "--dim", "17"), "--dim")
        self.assert_bad_input(parity("cubature", "--lower", "1", "--upper", "0"), "lower bound")
        self.assert_bad_input(parity("cubature", "--integrand", "f9"), "unknown integrand")
        self.assert_bad_input(parity("cubature", "--rel-tol", "-1"), "--rel-tol")
        self.assert_bad_input(parity("cubature", "--rel-tol", "0", "--abs-tol", "0"), "--abs-tol")
        self.assert_bad_input(parity("cubature", "--max-evals", "10"), "one application of the rule")
        self.assert_bad_input(parity("cubature", "--max-evals", "-5"), "--max-evals")
        self.assert_bad_input(parity("cubature", "--dim", "3", "--a", "1,2"), "--a")
        self.assert_bad_input(parity("cubature", "--integrand", "corner_peak", "--a", "-1"), "corner_peak")
        self.assert_bad_input(parity("cubature", "--heap-capacity", "1"), "--heap-capacity")
        self.assert_bad_input(parity("cubature", "--max-host-memory-mb", "-1"), "--max-host-memory-mb")
        self.assert_bad_input(parity("cubature", "--dim", "many"), "--dim")
        self.assert_bad_input(parity("cubature", "--mode", "fast"), "--mode")
        self.assert_bad_input(parity("cubature", "--error-estimate", "guess"), "--error-estimate")

    def test_modes(self):
        # Both modes and both rules on the same problem: the report names the mode, rule and
        # estimate used, and each meets the tolerance with a true error within it. The paper mode
        # uses CUHRE's degree-9 rule and estimate; the improved mode's degree 9 needs far fewer
        # evaluations than its degree 7.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            evaluations = {}
            for mode, rule in (("paper", "degree7"), ("improved", "degree7"), ("improved", "degree9")):
                rule_option = ("--rule", rule) if mode == "improved" else ()  # the paper mode has its own
                r = parity("cubature", "--integrand", "f5", "--dim", "4", "--rel-tol", "1e-8", "--mode", mode,
                           *rule_option, "--json", path, "--quiet")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                doc = json.loads(Path(path).read_text())
                self.assertEqual(doc["parameters"]["mode"], mode)
                res = doc["results"]
                self.assertEqual(res["mode"], mode)
                used = "degree9" if mode == "paper" else rule  # paper mode: CUHRE's degree 9
                self.assertEqual(res["rule"], used)
                self.assertEqual(res["rule_points"], 153 if used == "degree9" else 57)
                expected = {"paper": "two_level", "degree7": "null_rules", "degree9": "two_level"}
                self.assertEqual(res["error_estimate_method"], expected["paper" if mode == "paper" else rule])
                self.assertLess(res["true_error"], 1e-8 * 2.0)
                self.assertLessEqual(res["true_error"], res["error_estimate"])
                evaluations[mode, rule] = res["evaluations"]
        self.assertLess(evaluations["improved", "degree9"], evaluations["improved", "degree7"] / 10)

    def test_paper_mode_reports_phase_two(self):
        # A small Lmax hands the split pieces to phase 2: the report and the summary say how many
        # regions went there and how many evaluations phase 2 made; converged within the tolerance.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("cubature", "--integrand", "f4", "--dim", "3", "--rel-tol", "1e-7", "--mode", "paper",
                       "--max-regions", "64", "--json", path)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            doc = json.loads(Path(path).read_text())
        res = doc["results"]
        self.assertEqual(doc["parameters"]["max_regions"], 64)
        self.assertEqual(res["status"], "converged")
        self.assertGreaterEqual(res["phase2_regions"], 64)
        self.assertGreater(res["phase2_evaluations"], res["phase2_regions"] * res["rule_points"])
        self.assertLess(res["phase2_evaluations"], res["evaluations"])
        self.assertLess(res["true_error"], 1e-7 * res["exact"])
        self.assertIn("%d regions handed to phase 2, %d of %d evaluations in phase 2"
                      % (res["phase2_regions"], res["phase2_evaluations"], res["evaluations"]), r.stdout + r.stderr)
        self.assertFalse(doc["parameters"]["cuhre_average"])
        self.assertEqual(res["last_error_estimate"], res["error_estimate"])

    def test_full_heaps_grow(self):
        # f1 3-D at 1e-7 with Lmax 64: in 0.3 MB some phase-2 heaps fill and continue in larger
        # ones (the report's phase2_regrown, the summary line); the run ends as in 64 MB, where none
        # fills: the same integral and evaluations, converged.
        with tempfile.TemporaryDirectory() as d:
            runs = {}
            for mb in ("0.3", "64"):
                path = os.path.join(d, f"{mb}.json")
                r = parity("cubature", "--integrand", "f1", "--dim", "3", "--rel-tol", "1e-7", "--mode", "paper",
                           "--max-regions", "64", "--max-memory-mb", mb, "--json", path)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                runs[mb] = (json.loads(Path(path).read_text())["results"], r.stdout + r.stderr)
        (tight, text), (ample, _) = runs["0.3"], runs["64"]
        self.assertGreater(tight["phase2_regrown"], 0)
        self.assertIn(f"in phase 2, {tight['phase2_regrown']} full heaps grown", text)
        self.assertEqual(ample["phase2_regrown"], 0)
        for res in (tight, ample):
            self.assertEqual(res["status"], "converged")
            self.assertEqual(res["phase2_storage_limited"], 0)
        self.assertEqual(tight["integral"], ample["integral"])
        self.assertEqual(tight["evaluations"], ample["evaluations"])
        self.assertLess(tight["true_error"], 1e-7 * tight["exact"])

    def test_paper_mode_with_cuhre_average(self):
        # --cuhre-average: phase 2 stops on CUBA Cuhre's weighted average, with no more evaluations
        # than without it; the report gives the average's error and the last estimates' error.
        with tempfile.TemporaryDirectory() as d:
            docs = []
            for extra in ((), ("--cuhre-average",)):
                path = os.path.join(d, "r.json")
                r = parity("cubature", "--integrand", "f4", "--dim", "3", "--rel-tol", "1e-7", "--mode", "paper",
                           "--max-regions", "64", "--json", path, "--quiet", *extra)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                docs.append(json.loads(Path(path).read_text()))
        last, avg = (doc["results"] for doc in docs)
        self.assertTrue(docs[1]["parameters"]["cuhre_average"])
        self.assertEqual(avg["status"], "converged")
        self.assertLessEqual(avg["evaluations"], last["evaluations"])
        self.assertGreaterEqual(avg["last_error_estimate"], avg["error_estimate"])
        self.assertLess(avg["true_error"], 1e-7 * avg["exact"])

    def test_f1_and_its_pagani_variant(self):
        # f1 as Table I prints it, (0.1 + cos^2)^-2, and f1-pagani with the exponent -1: their
        # references (paper_references.py) and converged integrals.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            for name, exact in (("f1", 20.031721870017501697), ("f1-pagani", 3.4964841384769821391)):
                r = parity("cubature", "--integrand", name, "--dim", "3", "--rel-tol", "1e-8", "--json", path,
                           "--quiet")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                res = json.loads(Path(path).read_text())["results"]
                self.assertEqual(res["exact"], exact)
                self.assertLess(res["true_error"], 1e-8 * exact)

    def test_rule_option(self):
        default = parity("cubature", "--help")
        self.assertIn("--rule", default.stdout)
        self.assert_bad_input(parity("cubature", "--rule", "degree8"), "--rule")

if __name__ == "__main__":
    unittest.main()
