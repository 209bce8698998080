"""The comparison runner: its arithmetic on synthetic results, and one real run of the probe suite
on the executable under test, posing as two backends (1 and 2 threads)."""
import csv
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path

EXE = sys.argv.pop(1)
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "perf"))
import runner  # noqa: E402


def summary(median, results=None):
    return {"median_s": median, "min_s": median, "max_s": median, "wall_median_s": median, "iterations": 3,
            "status": "ok", "results": results or {}, "roofline": {}}


class Arithmetic(unittest.TestCase):
    def test_ratios_and_differences(self):
        entry = {"suite": "s", "case": "c", "size": 100, "precision": "double",
                 "backends": {"serial": summary(8.0, {"throughput": {"value": 100, "unit": "points"}}),
                              "cuda": summary(0.5, {"throughput": {"value": 100, "unit": "points"}})},
                 "differences": runner.differences({"serial": {"results.v": [1.0, 2.0]},
                                                    "cuda": {"results.v": [1.0, 2.002]}}, "cuda")}
        rows = {r["backend"]: r for r in runner.build_rows([entry], "cuda")}
        nested = runner.differences({"a": {"results.c": {"good": {"b0": 1.0, "b1": 0.5}, "status": "x"}},
                                     "b": {"results.c": {"good": {"b0": 1.0, "b1": 0.25}, "status": "y"}}}, "b")
        self.assertAlmostEqual(nested["a"]["max_abs"], 0.25)
        self.assertAlmostEqual(rows["serial"]["ratio_to_reference"], 16.0)
        self.assertAlmostEqual(rows["cuda"]["ratio_to_reference"], 1.0)
        self.assertAlmostEqual(rows["serial"]["throughput"], 12.5)
        self.assertAlmostEqual(rows["serial"]["max_abs_diff"], 0.002)
        self.assertAlmostEqual(rows["serial"]["max_rel_diff"], 0.002 / 2.002)  # norm-wise: max|a-b| / max|b|
        near_zero = runner.differences({"a": {"x": [1e-30, 1.0]}, "b": {"x": [0.0, 1.0]}}, "b")
        self.assertLess(near_zero["a"]["max_rel"], 1e-29)
        table = runner.markdown_table(list(rows.values()), ["serial", "cuda"], "cuda")
        self.assertIn("16x", table)

    def test_series(self):
        self.assertEqual(runner.series_of("inert-16-float"), "inert")
        self.assertEqual(runner.series_of("optimal-256-double"), "optimal")
        self.assertEqual(runner.series_of("josephson-2^14-float"), "josephson")

    def test_roofline_fraction(self):
        bounds = {"copy_GBps": 4.0, "fp32_GFLOPs": 10.0, "fp64_GFLOPs": 5.0}
        s = summary(2.0, {"work": {"bytes": 4e9, "flops": 1e10}})
        f = runner.roofline_fraction(s, bounds, "double")
        self.assertAlmostEqual(f["GBps"], 2.0)
        self.assertAlmostEqual(f["bandwidth_fraction"], 0.5)
        self.assertAlmostEqual(f["flops_fraction"], 1.0)
        # Work stated for one phase is divided by that phase's time, not the total.
        s = summary(2.0, {"work": {"bytes": 4e9, "phase": "panel"}})
        s["phases_median_s"] = {"panel": 0.5, "policy": 1.5}
        self.assertAlmostEqual(runner.roofline_fraction(s, bounds, "float")["GBps"], 8.0)
        self.assertEqual(runner.roofline_fraction(summary(1.0), bounds, "float"), {})

    def test_bad_exe_spec(self):
        with self.assertRaises(Exception):
            runner.parse_exe("nameonly")
        with self.assertRaises(Exception):
            runner.parse_exe(f"x={EXE},threads=0")


class EndToEnd(unittest.TestCase):
    def test_probe_suite_two_backends(self):
        with tempfile.TemporaryDirectory() as d:
            rc = runner.main(["--suite", str(ROOT / "perf/suites/probe.json"), "--exe", f"one={EXE},threads=1",
                              "--exe", f"two={EXE},threads=2", "--out", d, "--probe", "tiny", "--repetitions", "2"])
            self.assertEqual(rc, 0)
            doc = json.loads(Path(d, "results.json").read_text())
            self.assertEqual(doc["schema"], "parity.comparison/1")
            self.assertEqual(doc["reference"], "two")
            self.assertEqual(set(doc["backends"]), {"one", "two"})
            self.assertIn("copy_GBps", doc["backends"]["one"]["bounds"])
            with open(Path(d, "results.csv")) as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), 2)
            for r in rows:
                self.assertGreater(float(r["median_s"]), 0)
            one = next(r for r in rows if r["backend"] == "one")
            two = next(r for r in rows if r["backend"] == "two")
            self.assertAlmostEqual(float(one["ratio_to_reference"]), float(one["median_s"]) / float(two["median_s"]))
            self.assertIn("| probe | tiny | double |", Path(d, "table.md").read_text())
            for png in ("throughput-probe.png", "speedup-probe.png"):
                self.assertEqual(Path(d, png).read_bytes()[:4], b"\x89PNG")
            # The table and plots can be rebuilt from results.json alone.
            again = Path(d, "again")
            self.assertEqual(runner.main(["--from-results", str(Path(d, "results.json")), "--out", str(again)]), 0)
            self.assertEqual(Path(again, "table.md").read_text(), Path(d, "table.md").read_text())

    def test_failing_run_is_reported(self):
        with tempfile.TemporaryDirectory() as d:
            suite = Path(d, "bad.json")
            suite.write_text(json.dumps({"name": "bad", "model": "probe", "cases": [
                {"name": "bad", "args": ["--size", "enormous"]}]}))
            rc = runner.main(["--suite", str(suite), "--exe", f"one={EXE}", "--out", d, "--probe", "none"])
            self.assertEqual(rc, 1)
            doc = json.loads(Path(d, "results.json").read_text())
            self.assertEqual(doc["failures"], ["bad/bad/double/one"])
            self.assertIn("one", doc["results"][0]["failures"])

    def test_skipped_backend_says_why(self):
        with tempfile.TemporaryDirectory() as d:
            suite = Path(d, "skip.json")
            suite.write_text(json.dumps({"name": "skip", "model": "probe", "repetitions": 1, "warmup": 0, "cases": [
                {"name": "tiny", "args": ["--size", "tiny"], "skip": {"one": "would take an hour"}}]}))
            rc = runner.main(["--suite", str(suite), "--exe", f"one={EXE},threads=1", "--exe", f"two={EXE},threads=1",
                              "--out", d, "--probe", "none"])
            self.assertEqual(rc, 0)
            doc = json.loads(Path(d, "results.json").read_text())
            self.assertEqual(set(doc["results"][0]["backends"]), {"two"})
            self.assertEqual(doc["results"][0]["skipped"], {"one": "would take an hour"})
            self.assertIn("one: would take an hour", Path(d, "table.md").read_text())
        with self.assertRaises(ValueError):
            bad = Path(tempfile.mkdtemp(), "bad.json")
            bad.write_text(json.dumps({"model": "probe", "cases": [{"name": "x", "args": [], "skip": "serial"}]}))
            runner.load_suite(str(bad))


if __name__ == "__main__":
    unittest.main()
