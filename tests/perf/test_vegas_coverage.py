#!/usr/bin/env python3
"""perf/vegas_coverage.py: its Wilson interval against a textbook value, its summaries against the
runs it records (each run's true error recomputed from its estimate and exact value), a short real
study on the given executable, and its exits on bad arguments and failing runs.

    python3 tests/perf/test_vegas_coverage.py build/openmp/backends/parity-openmp
"""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "perf/vegas_coverage.py"
sys.path.insert(0, str(ROOT / "perf"))
import vegas_coverage  # noqa: E402

EXE = None
CASE = "g3=--integrand gaussian --dim 3 --method vegas --rel-tol 1e-3"


class Coverage(unittest.TestCase):
    def test_wilson_interval(self):
        # 7 of 20 at 95 %: (0.1812, 0.5671), the score interval of Wilson (1927).
        lo, hi = vegas_coverage.wilson(7, 20)
        self.assertAlmostEqual(lo, 0.1812, places=3)
        self.assertAlmostEqual(hi, 0.5671, places=3)
        self.assertAlmostEqual(vegas_coverage.wilson(0, 10)[0], 0.0, places=12)
        self.assertAlmostEqual(vegas_coverage.wilson(10, 10)[1], 1.0, places=12)

    def test_summary_counts_the_runs(self):
        runs = [{"status": "converged", "estimate": 1 + d, "error": 0.1, "exact": 1.0, "true_error": abs(d),
                 "evaluations": 10, "seconds": 0.1} for d in (0.05, -0.15, 0.25, 0.35)]
        s = vegas_coverage.summarise(runs)
        self.assertEqual(s["coverage_1sigma"], 0.25)
        self.assertEqual(s["coverage_2sigma"], 0.5)
        self.assertEqual(s["coverage_3sigma"], 0.75)
        self.assertAlmostEqual(s["nominal_2sigma"], 0.9545, places=4)

    def test_study_on_the_executable(self):
        with tempfile.TemporaryDirectory() as out:
            p = subprocess.run([sys.executable, str(SCRIPT), EXE, "--out", out, "--seeds", "6", "--case", CASE],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads((Path(out) / "results.json").read_text())
            case = doc["cases"]["g3"]
            self.assertEqual([r["seed"] for r in case["runs"]], list(range(1, 7)))
            self.assertEqual(len({r["estimate"] for r in case["runs"]}), 6, "seeds must give different samples")
            for r in case["runs"]:
                self.assertAlmostEqual(r["true_error"], abs(r["estimate"] - r["exact"]), delta=1e-15 * abs(r["exact"]))
                self.assertGreater(r["error"], 0)
            hits = sum(r["true_error"] <= 2 * r["error"] for r in case["runs"])
            self.assertEqual(case["summary"]["coverage_2sigma"], hits / 6)
            self.assertIn("g3", (Path(out) / "table.md").read_text())
            self.assertIn("backend", doc["info"])

    def test_bad_arguments_and_failing_runs(self):
        with tempfile.TemporaryDirectory() as out:
            for bad in (["--seeds", "1"], ["--case", "nameonly"], ["--case", "x="]):
                p = subprocess.run([sys.executable, str(SCRIPT), EXE, "--out", out, *bad], capture_output=True, text=True)
                self.assertEqual(p.returncode, 2, (bad, p.stderr))
            p = subprocess.run([sys.executable, str(SCRIPT), EXE, "--out", out, "--seeds", "2",
                                "--case", "x=--integrand no_such_family --method vegas"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertFalse((Path(out) / "results.json").exists())


if __name__ == "__main__":
    EXE = sys.argv.pop(1)
    unittest.main()
