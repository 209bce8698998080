"""perf/reproduce: the transcribed papers against their own arithmetic, the pages on a fabricated
results set (every published cell with its value and a Parity value or a named reason, ratios
computed the paper's way, the K-bar error from K paths), and one real --quick run on the
executable under test."""
import json
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

EXE = sys.argv.pop(1)
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "perf"))
from reproduction import common, dual_control, krusell_smith  # noqa: E402
from reproduction.cli import load_paper, write_page  # noqa: E402

BACKENDS = ["serial", "openmp-1", "openmp-2", "openmp-4", "openmp-16", "cuda"]
SPEED = {"serial": 1.0, "openmp-1": 1.0, "openmp-2": 2.0, "openmp-4": 4.0, "openmp-16": 16.0, "cuda": 200.0}
# Parity's order of the chain's states, as the report states it.
ORDER = "(z, eps): (good, unemployed), (good, employed), (bad, unemployed), (bad, employed)"
CHAIN = [[0.2916666666666667, 0.5833333333333333, 0.09375, 0.03125],
         [0.024305555555555552, 0.8506944444444444, 0.009114583333333334, 0.11588541666666667],
         [0.03125, 0.09375, 0.525, 0.35],
         [0.0020833333333333333, 0.12291666666666666, 0.038888888888888896, 0.836111111111111]]


def fabricated(suites, summary_of):
    """A runner results document: every case of the suites, each backend not skipped measured
    by summary_of(case, backend), the skipped ones with the plan's reasons."""
    doc = {"backends": {b: {"device_name": "fabricated", "threads": common.threads_of(b)} for b in BACKENDS},
           "results": []}
    for suite in suites:
        for case in suite["cases"]:
            precision = case["args"][case["args"].index("--precision") + 1]
            entry = {"suite": suite["name"], "case": case["name"], "precision": precision, "backends": {},
                     "failures": {}, "skipped": dict(case["skip"])}
            for b in BACKENDS:
                if b not in case["skip"]:
                    entry["backends"][b] = summary_of(case, b)
            doc["results"].append(entry)
    return doc


def page_cells(text):
    """{(table, row, column): (paper, parity)} from a page's tables."""
    cells, table = {}, None
    for line in text.splitlines():
        m = re.match(r"## Table (\S+):", line)
        if m:
            table = m.group(1)
        elif line.startswith("| ") and table and not line.startswith("| row |"):
            parts = [p.strip() for p in line.strip("|").split(" | ")]
            cells[(table, parts[0], parts[1])] = (parts[2], parts[3])
    return cells


def assert_every_cell(test, paper, text):
    cells = page_cells(text)
    for cell in paper["cells"]:
        key = (cell["table"], cell["row"], cell["column"])
        test.assertIn(key, cells, f"cell missing from the page: {key}")
        shown, parity = cells[key]
        test.assertEqual(shown.split(" ")[0].rstrip("x"), f"{cell['value']:,}", key)
        for item in parity.split("<br>"):
            # A number, or a reason in words.
            test.assertRegex(item, r"^\S.*: (-?[0-9][0-9.,e+-]*|Kokkos peak .*|not available \(.{8,}\))", (key, item))
    return cells


class PaperData(unittest.TestCase):
    def test_every_cell_says_where_it_is_and_what_it_measures(self):
        for name in ("krusell-smith", "dual-control"):
            paper = load_paper(name)
            keys = set()
            for c in paper["cells"]:
                for field in ("table", "row", "column", "value", "unit", "measures"):
                    self.assertIn(field, c, (name, c))
                self.assertIn(c["table"], paper["tables"])
                keys.add((c["table"], c["row"], c["column"]))
            self.assertEqual(len(keys), len(paper["cells"]), f"{name}: two cells share a table, row and column")

    def test_krusell_smith_transcription_holds_the_papers_arithmetic(self):
        paper = load_paper("krusell-smith")
        self.assertEqual(len(paper["cells"]), 2 * 3 + 3 * 3 * 3 * 4 + 3 * 3 * 3 * 6 + 6 + 16)
        for s in krusell_smith.check_transition_sums(paper):
            self.assertAlmostEqual(s, 1.0, places=5)
        # Total Time = Iterations x (Panel Time + Polf. Time), to the printed rounding (but for the
        # one cell whose note says it is a digit off).
        self.assertEqual(sum(1 for c in paper["cells"] if c.get("inconsistent")), 1)
        self.assertEqual(len(krusell_smith.paper_total_consistency(paper)), 26)
        for r in krusell_smith.paper_total_consistency(paper):
            self.assertAlmostEqual(r, 1.0, delta=0.003)
        # Panel Speedup = Table 2's one-thread Panel Time / Table 3's Panel Time.
        cpu = {(c["agents"], tuple(c["grid"])): c["value"] for c in paper["cells"]
               if c["table"] == "2" and c["quantity"] == "panel_time" and c["threads"] == 1}
        gpu = {(c["agents"], tuple(c["grid"]), c["approach"]): c["value"] for c in paper["cells"]
               if c["table"] == "3" and c["quantity"] == "panel_time"}
        for c in (c for c in paper["cells"] if c["quantity"] == "panel_speedup"):
            t = gpu[(c["agents"], tuple(c["grid"]), c["approach"])]
            # the GPU time is printed to 0.01 s: a half-unit either way bounds the ratio
            lo, hi = cpu[(c["agents"], tuple(c["grid"]))] / (t + 0.005), cpu[(c["agents"], tuple(c["grid"]))] / (t - 0.005)
            self.assertTrue(lo * 0.999 <= c["value"] <= hi * 1.001, (c, lo, hi))
        # Parity's chain (derived from the targets) is the paper's Table B.1.
        doc = {"results": [{"backends": {"x": {"parameters": {}, "results": {"transition_state_order": ORDER,
                                                                              "transition_matrix": CHAIN}}}}]}
        for c in (c for c in paper["cells"] if c["quantity"] == "transition"):
            _, v, _ = krusell_smith._calibration(c, doc)
            self.assertAlmostEqual(v, c["value"], places=6)

    def test_dual_control_transcription_holds_the_papers_arithmetic(self):
        paper = load_paper("dual-control")
        self.assertEqual(len(paper["cells"]), 6 * 3 * 3 * 2 + 3 * 6 * 2 * 5)
        t2 = {(c["policy"], c["grid"], c["precision"], c["quantity"]): c["value"] for c in paper["cells"] if c["table"] == "2"}
        t1 = {(c["policy"], c["grid"], c["threads"]): c["value"] for c in paper["cells"]
              if c["table"] == "1" and c["quantity"] == "time"}
        flagged = {(c["policy"], c["grid"], c["precision"], c["quantity"]) for c in paper["cells"]
                   if c["table"] == "2" and c.get("inconsistent")}
        self.assertEqual(len(flagged), 2)  # the two cells whose note says how the paper disagrees with itself
        for (policy, n, precision, q), v in t2.items():
            if (policy, n, precision, q) in flagged or (policy, n, precision, "cpu1_time") in flagged:
                continue
            if q in ("cpu1_over_gpu", "cpu4_over_gpu"):
                num = t2[(policy, n, precision, "cpu1_time" if q == "cpu1_over_gpu" else "cpu4_time")]
                self.assertAlmostEqual(num / t2[(policy, n, precision, "gpu_time")] / v, 1.0, delta=0.03, msg=(policy, n, q))
            if precision == "double" and q in ("cpu1_time", "cpu4_time"):
                threads = 1 if q == "cpu1_time" else 4
                if (policy, n, threads) not in (("optimal", 256, 1), ("inert", 8, 1)):  # noted in the data
                    self.assertAlmostEqual(t1[(policy, n, threads)], v, places=2, msg=(policy, n, q))


class Pages(unittest.TestCase):
    def test_krusell_smith_page_on_fabricated_results(self):
        paper = load_paper("krusell-smith")
        suites = krusell_smith.plan(BACKENDS, quick=False, budget=600.0)

        def summary(case, b):
            iters = 1 if case["name"].endswith("iter1") else 30
            agents = int(case["args"][case["args"].index("--agents") + 1])
            panel = agents * 1e-6 / SPEED[b]
            return {"median_s": iters * (panel + 0.5) + 1.0, "status": "converged" if iters > 1 else "not_converged",
                    "phases_median_s": {"parity::krusell_smith::panel": iters * panel,
                                        "parity::krusell_smith::policy": iters * 0.5},
                    "results": {"outer_iterations": iters, "transition_state_order": ORDER, "transition_matrix": CHAIN},
                    "parameters": {"beta": 0.99, "gamma": 1.0, "alpha": 0.36, "delta": 0.025, "mu": 0.15, "z_good": 1.01},
                    "memory": {"device_peak_bytes": agents * 125, "host_peak_resident_bytes": 2**24}}
        doc = fabricated(suites, summary)
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            # K paths: the CPU series and one approach 1 % above it at one period.
            (d / "cpu").mkdir()
            (d / "gpu").mkdir()
            np.save(d / "cpu" / "K_path.npy", np.array([40.0, 41.0, 42.0]))
            np.save(d / "gpu" / "K_path.npy", np.array([40.0, 41.41, 42.0]))
            kbar = krusell_smith.kbar_error(d / "cpu" / "K_path.npy", d / "gpu" / "K_path.npy")
            self.assertAlmostEqual(kbar, 1.0)
            extras = {"accelerator": "cuda", "kbar_cpu": "openmp-16", "figures_run": None,
                      "kbar": {"10000/100x4": {"software-double": {"value": kbar},
                                               "software-single": {"value": 0.25},
                                               "hardware-single": {"reason": "cuda run failed: fabricated"}}}}
            text = write_page("krusell-smith", doc, extras, d, quick=False).read_text()
            cells = assert_every_cell(self, paper, text)
            # The paper's way: one core's panel time per iteration over the GPU's.
            _, parity = cells[("3", "10,000 agents: Panel Speedup", "Software Double Precision, 100(4)")]
            self.assertIn("serial/cuda: 200x", parity)
            _, parity = cells[("3", "10,000 agents: K-bar Error", "Software Double Precision, 100(4)")]
            self.assertIn(": 1 %", parity)
            _, parity = cells[("3", "10,000 agents: K-bar Error", "Hardware Single Precision, 100(4)")]
            self.assertIn("not available (cuda run failed: fabricated)", parity)
            # The budget leaves 10^7 agents on one core out, with the estimate as the reason.
            _, parity = cells[("2", "10,000,000 agents: Total Time", "1 thread, 100(4)")]
            self.assertIn("estimated", parity)
            _, parity = cells[("2", "10,000 agents: Iterations", "1 thread, 100(4)")]
            self.assertIn("serial: 30", parity)
            _, parity = cells[("B.1", "(s, ε) = (1+Δa, 1)", "(s', ε') = (1+Δa, 1)")]
            self.assertIn("0.8507", parity)
            self.assertTrue((d / "krusell-smith-figure1.png").read_bytes().startswith(b"\x89PNG"))
            self.assertIn("Figure B.1: not drawn", text)

    def test_dual_control_page_on_fabricated_results(self):
        paper = load_paper("dual-control")
        suites = dual_control.plan(BACKENDS, quick=False, budget=600.0)

        def summary(case, b):
            n3 = case["size"]
            return {"median_s": n3 * 1e-3 / SPEED[b], "status": "converged", "results": {}, "phases_median_s": {},
                    "memory": {"device_peak_bytes": n3 * 16, "host_peak_resident_bytes": 2**20 * 20}}
        doc = fabricated(suites, summary)
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            text = write_page("dual-control", doc, {"accelerator": "cuda"}, d, quick=False).read_text()
            cells = assert_every_cell(self, paper, text)
            _, parity = cells[("2", "Optimal, 16x16x16", "Double precision: CPU1/GPU")]
            self.assertIn("serial/cuda: 200x", parity)
            _, parity = cells[("2", "Optimal, 16x16x16", "Double precision: CPU4/GPU")]
            self.assertIn("openmp-4/cuda: 50x", parity)
            _, parity = cells[("1", "16x16x16 (4,096 points), 1 thread", "Optimal: Memory Usage")]
            self.assertIn("serial: 20 MiB", parity)
            _, parity = cells[("1", "256x256x256 (16,777,216 points), 1 thread", "Optimal: CPU Time")]
            self.assertIn("not available (serial skipped: estimated", parity)
            for png in ("dual-control-figure1.png", "dual-control-figure2.png"):
                self.assertTrue((d / png).read_bytes().startswith(b"\x89PNG"))

    def test_backends_expand_to_the_papers_thread_counts(self):
        specs = [{"name": "serial", "path": EXE, "threads": None}, {"name": "openmp", "path": EXE, "threads": None},
                 {"name": "cuda", "path": EXE, "threads": None}]
        exes, dropped = common.expand_backends(specs, cores=2)
        self.assertEqual([e["name"] for e in exes], ["serial", "openmp-1", "openmp-2", "cuda"])
        self.assertEqual(dropped, {"openmp-4": "this machine has 2 cores"})
        exes, _ = common.expand_backends(specs, cores=16)
        self.assertEqual([(e["name"], e["threads"]) for e in exes if e["name"].startswith("openmp")],
                         [("openmp-1", 1), ("openmp-2", 2), ("openmp-4", 4), ("openmp-16", 16)])
        self.assertEqual(common.accelerator(["serial", "openmp-2"]), "openmp-2")
        self.assertEqual(common.accelerator(["serial", "openmp-2", "cuda"]), "cuda")


class QuickRun(unittest.TestCase):
    def test_dual_control_quick(self):
        with tempfile.TemporaryDirectory() as d:
            proc = subprocess.run([sys.executable, str(ROOT / "perf" / "reproduce"), "dual-control",
                                   "--exe", f"serial={EXE},threads=1", "--exe", f"openmp={EXE}", "--cores", "2",
                                   "--out", d, "--quick"], capture_output=True, text=True, timeout=600)
            self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
            text = Path(d, "dual-control.md").read_text()
            cells = assert_every_cell(self, load_paper("dual-control"), text)
            _, parity = cells[("1", "8x8x8 (512 points), 1 thread", "Optimal: CPU Time")]
            self.assertRegex(parity, r"serial: [0-9.]+ s")
            _, parity = cells[("2", "Optimal, 8x8x8", "Double precision: CPU1/GPU")]
            self.assertRegex(parity, r"serial/openmp-2: [0-9.]+x")
            _, parity = cells[("1", "64x64x64 (262,144 points), 1 thread", "Optimal: CPU Time")]
            self.assertIn("not run with --quick", parity)
            results = json.loads(Path(d, "dual-control-runs", "results.json").read_text())
            self.assertEqual(set(results["backends"]), {"serial", "openmp-1", "openmp-2"})

    def test_krusell_smith_quick(self):
        with tempfile.TemporaryDirectory() as d:
            proc = subprocess.run([sys.executable, str(ROOT / "perf" / "reproduce"), "krusell-smith",
                                   "--exe", f"openmp={EXE}", "--cores", "2", "--out", d, "--quick"],
                                  capture_output=True, text=True, timeout=900)
            self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
            text = Path(d, "krusell-smith.md").read_text()
            cells = assert_every_cell(self, load_paper("krusell-smith"), text)
            _, parity = cells[("2", "10,000 agents: Panel Time", "1 thread, 100(4)")]
            self.assertRegex(parity, r"openmp-1: [0-9.e-]+ s")
            _, parity = cells[("3", "10,000 agents: K-bar Error", "Software Single Precision, 100(4)")]
            self.assertRegex(parity, r"openmp-2 vs openmp-2: [0-9.e-]+ %")
            for png in ("krusell-smith-figureB1.png", "krusell-smith-figureB2.png", "krusell-smith-figureB3.png"):
                self.assertTrue(Path(d, png).read_bytes().startswith(b"\x89PNG"))


if __name__ == "__main__":
    unittest.main()
