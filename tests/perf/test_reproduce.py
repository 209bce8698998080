"""perf/reproduce: the transcribed papers against their own arithmetic, the pages on a fabricated
results set (every published cell with its value and a Parity value or a named reason, ratios
computed the paper's way, the K-bar error from K paths), the whole-run budget and its deadline,
and one real --quick run per paper on the executable under test."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

import numpy as np

EXE = sys.argv.pop(1)
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "perf"))
from reproduction import common, cubature, dual_control, januszewski_kostur, krusell_smith  # noqa: E402
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
            args = case["args"]
            precision = args[args.index("--precision") + 1] if "--precision" in args else "double"
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
        if line.startswith("## "):
            m = re.match(r"## (?:Table )?(.+?): ", line)
            table = m.group(1) if m else None
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
        for name in ("krusell-smith", "dual-control", "januszewski-kostur", "cubature"):
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

    def test_januszewski_kostur_transcription_holds_the_papers_arithmetic(self):
        paper = load_paper("januszewski-kostur")
        by = {(c["table"], c["row"], c["column"]): c["value"] for c in paper["cells"]}
        ops = {c["op"] for c in paper["cells"] if "op" in c}
        self.assertEqual(len(ops), 7)
        for op in ops:  # count x FLOPs = total FLOPs, row by row
            self.assertEqual(by[("1", op, "count")] * by[("1", op, "FLOPs")], by[("1", op, "total FLOPs")], op)
        self.assertEqual(sum(by[("1", op, "total FLOPs")] for op in ops), by[("1", "TOTAL", "total FLOPs")])
        self.assertEqual(januszewski_kostur.paper_flops("josephson", 2**19), by[("1", "TOTAL", "total FLOPs")])
        # Section 8: steps/s x 79 is the GFLOPS printed beside it, to its rounding.
        rate = by[("Sec. 8", "PROG1 on a Tesla C1060", "time steps per second")]
        self.assertAlmostEqual(rate * 79 / 1e9 / by[("Sec. 8", "PROG1 on a Tesla C1060", "GFLOPS (79 FLOPs per step)")],
                               1.0, delta=0.01)
        # Fig. 2: 675 x the float GPU time is 'over three hours'.
        gpu = by[("Fig. 2", "single precision", "GPU time")]
        self.assertGreater(by[("Fig. 2", "single precision", "speed-up (CPU / GPU)")] * gpu,
                           by[("Fig. 2", "CPU version", "time")])
        # The page's Fig. 2 size is the caption's 1.05e11 steps.
        self.assertEqual(januszewski_kostur.FIG2_PATHS * januszewski_kostur.FIG2_PERIODS * 100, 2**19 * 2 * 10**5)

    def test_cubature_transcription_holds_the_papers_arithmetic(self):
        paper = load_paper("cubature")
        self.assertEqual(len(paper["cells"]), 5 * 4 - 1 + 5 * 5)
        by = {(c["integrand"], c["quantity"]): c["value"] for c in paper["cells"]}
        for f in ("f1", "f2", "f3", "f4", "f5"):
            # the speed-up column is Table III's CPU time over its GPU time
            self.assertAlmostEqual(by[(f, "cpu_time")] / by[(f, "gpu_time")], by[(f, "speedup")], places=2)
            # Table II's phases add up to Table III's GPU time (the two tables' rows are one run)
            phases = (by[(f, "phase1_time")] + by.get((f, "phase2_time"), 0.0)) / 1e3
            self.assertAlmostEqual(phases / by[(f, "gpu_time")], 1.0, delta=0.05, msg=f)
        # f5's one SECOND PHASE value is the run without FIRST PHASE: with it, phase 1 alone is the GPU time.
        self.assertNotIn(("f5", "phase2_time"), by)
        self.assertGreater(by[("f5", "phase2_time_without")] / 1e3, by[("f5", "gpu_time")])
        # the cases are those of perf/suites/cubature-paper.json's paper cases
        for f, n, tol in cubature.CASES:
            args = cubature._suite_args(f, n, tol, "paper")
            self.assertEqual(args[args.index("--dim") + 1], str(n))
            self.assertEqual(args[args.index("--mode") + 1], "paper")
            self.assertEqual(float(args[args.index("--rel-tol") + 1]), float(tol))



class Pages(unittest.TestCase):
    def test_krusell_smith_page_on_fabricated_results(self):
        paper = load_paper("krusell-smith")
        suites = krusell_smith.plan(BACKENDS, quick=False, budget=450.0)

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
            # The budget leaves 10^7 agents on one core out; its times are scaled from the same
            # backend's runs: the panel per agent-period (1e-6 s per agent per iteration one core),
            # the policy step from its run on the grid (0.5 s), the outer iterations from cuda's
            # solve (30), no draw phase in these reports: 30 x (10 + 0.5) = 315 s.
            _, parity = cells[("2", "10,000,000 agents: Total Time", "1 thread, 100(4)")]
            self.assertIn("serial (scaled: the draw + 30 outer iterations (cuda's solve) x (panel + policy), "
                          "each scaled): 315 s", parity)
            _, parity = cells[("2", "10,000,000 agents: Panel Time", "2 threads, 100(4)")]
            self.assertIn("openmp-2 (scaled per agent-period from the ", parity)
            self.assertIn("): 5 s", parity)
            _, parity = cells[("2", "10,000,000 agents: Polf. Time", "1 thread, 100(4)")]
            self.assertRegex(parity, r"serial \(the [0-9,]+-agent run's: the policy step does not depend on the agents\): 0.5 s")
            _, parity = cells[("2", "10,000,000 agents: Iterations", "1 thread, 100(4)")]
            self.assertIn("serial (cuda's double solve of the case: double runs follow one K path): 30", parity)
            # The paper's ratio from a scaled one-core time says so.
            _, parity = cells[("3", "10,000,000 agents: Panel Speedup", "Software Double Precision, 100(4)")]
            self.assertIn("serial/cuda (serial's time scaled per agent-period from the ", parity)
            self.assertIn("): 200x", parity)
            _, parity = cells[("2", "10,000 agents: Iterations", "4 threads, 100(4)")]
            self.assertIn("openmp-16 (all cores): 30", parity)
            _, parity = cells[("B.1", "(s, ε) = (1+Δa, 1)", "(s', ε') = (1+Δa, 1)")]
            self.assertIn("0.8507", parity)
            self.assertTrue((d / "krusell-smith-figure1.png").read_bytes().startswith(b"\x89PNG"))
            self.assertIn("Figure B.1: not drawn", text)

    def test_dual_control_page_on_fabricated_results(self):
        paper = load_paper("dual-control")
        suites = dual_control.plan(BACKENDS, quick=False, budget=3600.0)  # the whole run's seconds

        def summary(case, b):
            n3 = case["size"]
            # 10 sweeps and 50 objective evaluations a point: 1e-4 s a point update and 2e-5 s an
            # evaluation on one core
            return {"median_s": n3 * 1e-3 / SPEED[b], "status": "converged", "phases_median_s": {},
                    "results": {"iterations": 10, "objective_evaluations": {"bellman": n3 * 50}},
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
            # The budget leaves one core's optimal 256^3 out; its time is scaled per objective
            # evaluation from its largest run, by cuda's evaluations: 256^3 x 50 x 2e-5 s.
            _, parity = cells[("1", "256x256x256 (16,777,216 points), 1 thread", "Optimal: CPU Time")]
            self.assertRegex(parity, r"serial \(scaled per objective evaluation from its (8|16|32|64|128)\^3 run, by "
                                     r"cuda's work\): 1.678e\+04 s")
            _, parity = cells[("2", "Inert Uninformative, 256x256x256", "Double precision: CPU1/GPU")]
            self.assertRegex(parity, r"serial/cuda \(serial's time scaled per point update from its [0-9]+\^3 run, "
                                     r"by cuda's work\): 200x")
            # Memory is not scaled: the skipped run is named.
            _, parity = cells[("1", "256x256x256 (16,777,216 points), 1 thread", "Optimal: Memory Usage")]
            self.assertIn("not available (serial skipped: estimated", parity)
            for png in ("dual-control-figure1.png", "dual-control-figure2.png"):
                self.assertTrue((d / png).read_bytes().startswith(b"\x89PNG"))

    def test_januszewski_kostur_page_on_fabricated_results(self):
        paper = load_paper("januszewski-kostur")
        suites = januszewski_kostur.plan(BACKENDS, quick=False, budget=450.0)

        def summary(case, b):
            # hosts: 1e7 steps/s a core; the device: 200x one core once 2^16 paths keep it busy
            size = case["size"]
            rate = 1e7 * (SPEED[b] if b != "cuda" else 200.0 * min(1.0, size / 2**16))
            return {"median_s": 1.0, "status": "ok", "phases_median_s": {},
                    "results": {"steps_per_second": rate, "flops_per_step": 34.5}}
        doc = fabricated(suites, summary)
        extras = {"accelerator": "cuda", "fig2": {"float": {"seconds": 0.5, "steps_total": 1.05e11, "pngs": {},
                                                            "density_bytes": 2**20},
                                                  "double": {"error": "not run: the --budget had ended"}},
                  "fig4": {"seconds": 0.4}, "budget_s": 450.0}
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            text = write_page("januszewski-kostur", doc, extras, d, quick=False).read_text()
            cells = assert_every_cell(self, paper, text)
            # the paper's way: the device's best steps/s over one core's
            _, parity = cells[("Fig. 5", "PROG1 (Eq. 1, Josephson)", "speed-up at saturation")]
            self.assertIn("over serial at 2,097,152, per step: 200x", parity)
            # GFLOPS: steps/s x the paper's 79
            _, parity = cells[("Fig. 5", "PROG1 (Eq. 1, Josephson)", "saturated GPU performance")]
            self.assertIn(f": {common.fmt(2e9 * 79 / 1e9)} GFLOPS", parity)
            _, parity = cells[("Fig. 5", "PROG3 (Eq. 3, Kuramoto mean field)", "saturated GPU performance")]
            self.assertIn(f": {common.fmt(2e9 * 66 / 1e9)} GFLOPS", parity)
            # Fig. 2's CPU time: one core's seconds per step x 1.05e11 steps, and over the GPU's
            _, parity = cells[("Fig. 2", "CPU version", "time")]
            self.assertIn(f"serial float (scaled per step): {common.fmt(2**19 * 2e5 / 1e7)} s", parity)
            _, parity = cells[("Fig. 2", "single precision", "speed-up (CPU / GPU)")]
            self.assertIn(f": {common.fmt(2**19 * 2e5 / 1e7 / 0.5)}x", parity)
            _, parity = cells[("Fig. 2", "double precision", "GPU time")]
            self.assertIn("not available (not run: the --budget had ended)", parity)
            _, parity = cells[("Fig. 4", "Kuramoto, N = 2^24, K = 4, T = 1, omega_i = 0", "GPU time, single precision")]
            self.assertIn("cuda, N = 16,777,216, 2,000 Euler steps (fenced phases): 0.4 s", parity)
            _, parity = cells[("1", "TOTAL", "total FLOPs")]
            self.assertIn("34.5 FLOP", parity)
            self.assertTrue((d / "januszewski-kostur-figure5.png").read_bytes().startswith(b"\x89PNG"))

    def test_cubature_page_on_fabricated_results(self):
        paper = load_paper("cubature")
        suites = cubature.plan(BACKENDS, quick=False, budget=450.0)
        full_evals = 1e9

        def summary(case, b):
            evals = cubature.CAP_EVALS[False] if case["name"].endswith("-capped") else full_evals
            evals = evals / 4 if case["name"].endswith("-cuhre-average") else evals
            rate = 1e7 * SPEED[b]
            return {"median_s": evals / rate, "status": "converged",
                    "phases_median_s": {"parity::cubature::phase1": 0.1, "parity::cubature::phase2": 0.9},
                    "results": {"evaluations": evals, "phase1_iterations": 3, "phase2_regions": 100,
                                "relative_true_error": 1e-8}}
        doc = fabricated(suites, summary)
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            text = write_page("cubature", doc, {"accelerator": "cuda", "budget_s": 450.0}, d, quick=False).read_text()
            cells = assert_every_cell(self, paper, text)
            row = "f1(x), n = 7, τrel = 1e-5"
            # the budget leaves the one-core full run of f1 out: its capped run is scaled per evaluation
            self.assertIn("estimated", suites[0]["cases"][[c["name"] for c in suites[0]["cases"]].index(
                "f1-7d-1e-5-full")]["skip"]["serial"])
            _, parity = cells[("III", row, "Speed-up (CPU / GPU time)")]
            self.assertIn("serial/cuda (scaled from 5e+07 to 1e+09 evaluations): 200x", parity)
            _, parity = cells[("III", row, "Execution Time (s): CPU")]
            self.assertIn("serial (scaled from 5e+07 to 1e+09 evaluations): 100 s", parity)
            _, parity = cells[("II", row, "FIRST PHASE: Execution Time (ms)")]
            self.assertIn("cuda: 100 ms", parity)
            _, parity = cells[("II", row, "SECOND PHASE time (ms): Without FIRST PHASE")]
            self.assertIn("cuda, 100 regions: 900 ms", parity)
            # the GPU cells give the run on CUBA's averaged estimate beside the published algorithm's
            _, parity = cells[("III", row, "Function Evaluations: GPU")]
            self.assertEqual(parity, "cuda: 1.000e+09 evaluations<br>cuda (--cuhre-average): 2.500e+08 evaluations")
            _, parity = cells[("III", row, "Execution Time (s): GPU")]
            self.assertIn("<br>cuda (--cuhre-average, converged, true error 1e-08): 0.125 s", parity)
            self.assertTrue((d / "cubature-figure2.png").read_bytes().startswith(b"\x89PNG"))

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


FAKE_MODEL = """#!/usr/bin/env python3
import json, sys, time
args = sys.argv[1:]
report = args[args.index("--json") + 1]
if args[0] == "info":
    doc = {"backend": {"backend": "serial", "device_name": "fake"}, "parity": {}}
else:
    time.sleep(float(args[args.index("--sleep") + 1]))
    doc = {"status": "ok", "timing": {"total_seconds": 0.1, "phases": {}}, "results": {}}
json.dump(doc, open(report, "w"))
"""


class Budget(unittest.TestCase):
    def test_runs_are_taken_cheapest_first_while_they_fit(self):
        runs = [("c", "serial", 10.0), ("a", "serial", 1.0), ("b", "cuda", 2.0), ("d", "cuda", 1.5)]
        skipped = common.fit_budget(runs, 5.0, admit=1.0)
        self.assertEqual(set(skipped), {("c", "serial")})
        self.assertIn("estimated 10 s", skipped[("c", "serial")])
        # admitted up to twice the budget by default: the deadline bounds what runs
        self.assertEqual(set(common.fit_budget(runs, 5.0)), {("c", "serial")})
        self.assertEqual(common.fit_budget(runs, 7.5), {})
        self.assertEqual(common.order_by_cost([{"name": "x"}, {"name": "y"}], {"x": 3.0, "y": 1.0}),
                         [{"name": "y"}, {"name": "x"}])

    def test_dual_control_fits_a_300_second_budget(self):
        backends = ["serial", "openmp-1", "openmp-2", "openmp-4", "openmp-16", "cuda"]
        # less the runner's info runs and what follows the last run, as perf/reproduce plans it
        budget = 300.0 - common.FINISH_S - sum(common.run_seconds(b, 0.0, 0.0) for b in backends)
        suites = dual_control.plan(backends, quick=False, budget=budget)
        planned, skipped = 0.0, 0
        for suite in suites:
            count = suite["warmup"] + suite["repetitions"]
            for case in suite["cases"]:
                policy, n, precision = case["name"].split("-")
                for b in backends:
                    if b in case["skip"]:
                        self.assertIn("budget", case["skip"][b])
                        skipped += 1
                    else:
                        planned += count * dual_control.solve_seconds(policy, int(n), precision, b)
        self.assertLessEqual(planned, common.ADMIT * budget)
        self.assertGreater(skipped, 0)
        # the paper's largest optimal solve does not fit on one core, and is named
        case = next(c for s in suites for c in s["cases"] if c["name"] == "optimal-256-double")
        self.assertIn("estimated", case["skip"]["serial"])

    def test_krusell_smith_fits_its_budget_and_keeps_one_iteration_first(self):
        backends = ["serial", "openmp-1", "openmp-2", "openmp-4", "openmp-16", "cuda"]
        budget = 400.0
        suites = krusell_smith.plan(backends, quick=False, budget=budget)
        planned, kept = 0.0, set()
        for case in suites[0]["cases"]:
            args = case["args"]
            agents = int(args[args.index("--agents") + 1])
            grid = tuple(int(x) for x in args[args.index("--grid") + 1].split(","))
            iterations = 1 if case["name"].endswith("iter1") else krusell_smith.ITERATIONS[case["name"].split("-n")[0]]
            for b in backends:
                if b not in case["skip"]:
                    planned += krusell_smith.run_seconds(agents, grid, iterations, b)
                    kept.add((case["name"], b))
        self.assertLessEqual(planned, krusell_smith.ADMIT * budget)
        # every whole solve kept has its one outer iteration kept too (cheaper, taken first)
        for name, b in kept:
            if name.endswith("-solve"):
                self.assertIn((name.removesuffix("-solve") + "-iter1", b), kept)
        # the headline case, 10^7 agents on 100(4), is solved whole on the device; not on one core
        self.assertIn(("software-double-n10000000-100x4-solve", "cuda"), kept)
        self.assertNotIn(("software-double-n10000000-100x4-iter1", "serial"), kept)
        # the K-bar runs and the figures' solve are reserved within their share
        kbar = krusell_smith.kbar_plan(backends, False, budget)
        self.assertLessEqual(sum(kbar.values()), krusell_smith.KBAR_SHARE * budget)
        self.assertIn((10_000, (100, 4)), kbar)
        self.assertGreater(krusell_smith.extras_seconds(backends, False, budget), sum(kbar.values()))

    def test_krusell_smith_kbar_cells_within_an_extras_budget_and_resumed(self):
        backends = ["serial", "openmp-1", "openmp-2", "openmp-4", "openmp-16", "cuda"]
        every = krusell_smith.kbar_plan(backends, False, 1e9)
        self.assertEqual(len(every), len(krusell_smith.AGENTS) * len(krusell_smith.GRIDS))
        headline = (10_000_000, (100, 4))
        # the 10^7-agent cells never fit a quarter of a 560 s budget; an --extras-budget holds them
        self.assertNotIn(headline, krusell_smith.kbar_plan(backends, False, 560.0))
        figures = krusell_smith._figures_cost(backends, False)
        reserve = figures + every[headline] + 1.0
        kept = krusell_smith.kbar_plan(backends, False, 560.0, reserve=reserve, done=set(every) - {headline})
        self.assertEqual(kept, {headline: every[headline]})
        self.assertEqual(krusell_smith.kbar_plan(backends, False, 560.0, reserve=reserve - 2.0,
                                                 done=set(every) - {headline}), {})
        # an earlier run's complete cells are kept, an incomplete one is run again
        value = {"value": 0.1}
        complete = {"cpu": {}, **{a: value for a in krusell_smith.APPROACHES}}
        earlier = {"kbar": {"10000/100x4": complete, "500000/100x4": dict(complete, **{"software-single": {
            "reason": "cuda run failed: killed"}}), "10000000/100x4": {"reason": "estimated 3 min"}}}
        self.assertEqual(set(krusell_smith._kbar_done(earlier)), {(10_000, (100, 4))})
        self.assertLess(krusell_smith.extras_seconds(backends, False, 1e9, earlier=earlier),
                        krusell_smith.extras_seconds(backends, False, 1e9))

    def test_an_extras_budget_outside_the_budget_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            for reserve in ("20", "-1"):
                proc = subprocess.run([sys.executable, str(ROOT / "perf" / "reproduce"), "dual-control",
                                       "--exe", f"openmp={EXE}", "--cores", "2", "--out", d, "--budget", "10",
                                       "--extras-budget", reserve], capture_output=True, text=True, timeout=60)
                self.assertEqual(proc.returncode, 2, proc.stderr[-2000:])
                self.assertIn("--extras-budget", proc.stderr)
                self.assertEqual(list(Path(d).iterdir()), [])

    def test_a_resumed_plan_spends_the_budget_on_what_is_not_recorded(self):
        backends = ["serial", "openmp-1", "openmp-2", "openmp-4", "openmp-16", "cuda"]
        every = {(c["name"], b) for s in dual_control.plan(backends, quick=False, budget=1e9) for c in s["cases"]
                 for b in backends}
        missing = ("optimal-256-double", "cuda")
        with common.resumed(every - {missing}):
            suites = dual_control.plan(backends, quick=False, budget=150.0)
        for s in suites:
            for case in s["cases"]:
                for b in backends:
                    if (case["name"], b) == missing:  # minutes on the device, alone in the budget
                        self.assertNotIn(b, case["skip"])
                    else:
                        self.assertEqual(case["skip"][b], common.RECORDED_REASON, (case["name"], b))
        self.assertEqual(common.RECORDED, set())  # only while resumed

    def test_a_resumed_run_keeps_the_earlier_measurements(self):
        earlier = {"date": "d1", "commit": "c1", "reference": "serial", "timed": "t",
                   "backends": {"serial": {"device_name": "cpu", "parity": {"commit": "aaa"}},
                                "cuda": {"device_name": "gpu", "parity": {"commit": "aaa"}}},
                   "results": [{"suite": "s", "case": "x", "precision": "double",
                                "backends": {"serial": {"median_s": 1.0}}, "failures": {"cuda": "killed"},
                                "skipped": {}},
                               {"suite": "s", "case": "y", "precision": "double",
                                "backends": {"serial": {"median_s": 2.0}}, "failures": {}, "skipped": {}},
                               {"suite": "s", "case": "z", "precision": "double", "backends": {},
                                "failures": {"cuda": "killed"}, "skipped": {"serial": "estimated 2 h"}}]}
        doc = {"date": "d2", "commit": "c2", "reference": "serial", "timed": "t",
               "backends": {"cuda": {"device_name": "gpu", "parity": {"commit": "bbb"}}},
               "results": [{"suite": "s", "case": "x", "precision": "double", "backends": {"cuda": {"median_s": 0.1}},
                            "failures": {}, "skipped": {"serial": common.RECORDED_REASON}},
                           {"suite": "s", "case": "z", "precision": "double", "backends": {}, "failures": {},
                            "skipped": {"cuda": "estimated 6 min, does not fit"}}]}
        merged = common.merge_resumed(doc, json.loads(json.dumps(earlier)))
        self.assertEqual(common.measured(merged, "x", "serial")[0], {"median_s": 1.0})
        self.assertEqual(common.measured(merged, "x", "cuda")[0], {"median_s": 0.1})  # the new run's, not the failure
        self.assertEqual(common.measured(merged, "y", "serial")[0], {"median_s": 2.0})  # a case not planned again
        # the reasons of the earlier run stay where this run had no executable, this run's elsewhere
        self.assertIn("estimated 2 h", common.measured(merged, "z", "serial")[1])
        self.assertIn("estimated 6 min", common.measured(merged, "z", "cuda")[1])
        facts = common.backend_facts(merged)
        self.assertIn("cuda: gpu", facts.splitlines()[0])
        self.assertIn("Parity bbb", facts.splitlines()[0])
        self.assertNotIn("serial", facts.splitlines()[0])
        self.assertIn("from a run of d1", facts)
        self.assertIn("serial: cpu", facts)
        self.assertIn("Parity aaa", facts)

    def test_a_run_past_the_deadline_is_killed_and_named(self):
        with tempfile.TemporaryDirectory() as d:
            exe = Path(d, "fake-model")
            exe.write_text(FAKE_MODEL)
            exe.chmod(0o755)
            suite = {"name": "deadline", "model": "fake", "repetitions": 1, "warmup": 0,
                     "cases": [{"name": "slow", "args": ["--sleep", "30"], "size": 1},
                               {"name": "after", "args": ["--sleep", "0"], "size": 1}]}
            start = time.monotonic()
            doc = common.run_suites([suite], [{"name": "serial", "path": str(exe), "threads": None}], Path(d, "out"),
                                    None, None, 600.0, until=start + 3.0)
            self.assertLess(time.monotonic() - start, 10.0)
            s, why = common.measured(doc, "slow", "serial")
            self.assertIsNone(s)
            self.assertIn("killed when the --budget ended", why)
            _, why = common.measured(doc, "after", "serial")
            self.assertIn("not run: the --budget had ended", why)


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
            # resumed: only the run taken out of the earlier record runs again; the page is whole
            entry = next(e for e in results["results"] if e["case"] == "optimal-8-double")
            del entry["backends"]["openmp-2"]
            Path(d, "dual-control-runs", "results.json").write_text(json.dumps(results))
            Path(d, "dual-control-runs", "extras.json").unlink()  # a curated folder keeps results.json alone
            again = Path(d, "again")
            proc = subprocess.run([sys.executable, str(ROOT / "perf" / "reproduce"), "dual-control",
                                   "--exe", f"openmp={EXE}", "--cores", "2", "--out", str(again), "--quick",
                                   "--resume", d], capture_output=True, text=True, timeout=600)
            self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
            resumed = json.loads(Path(again, "dual-control-runs", "results.json").read_text())
            for e in resumed["results"]:
                old = next(x for x in results["results"] if x["case"] == e["case"])
                for b, summary in e["backends"].items():
                    if (e["case"], b) != ("optimal-8-double", "openmp-2"):
                        self.assertEqual(summary, old["backends"][b], (e["case"], b))  # kept, not run again
            entry = next(e for e in resumed["results"] if e["case"] == "optimal-8-double")
            self.assertGreater(entry["backends"]["openmp-2"]["median_s"], 0.0)
            skipped = [b for e in resumed["results"] for b, why in e["skipped"].items() if why == common.RECORDED_REASON]
            self.assertEqual(skipped, [])  # every recorded run is back in the merged record
            text = Path(again, "dual-control.md").read_text()
            cells = assert_every_cell(self, load_paper("dual-control"), text)
            _, parity = cells[("1", "8x8x8 (512 points), 1 thread", "Optimal: CPU Time")]
            self.assertRegex(parity, r"serial: [0-9.]+ s")  # kept from the earlier run
            self.assertIn("from a run of", text)
            self.assertTrue(Path(again, "dual-control-runs", "table.md").exists())

    def test_januszewski_kostur_quick(self):
        with tempfile.TemporaryDirectory() as d:
            proc = subprocess.run([sys.executable, str(ROOT / "perf" / "reproduce"), "januszewski-kostur",
                                   "--exe", f"serial={EXE},threads=1", "--exe", f"openmp={EXE}", "--cores", "2",
                                   "--out", d, "--quick"], capture_output=True, text=True, timeout=600)
            self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
            text = Path(d, "januszewski-kostur.md").read_text()
            cells = assert_every_cell(self, load_paper("januszewski-kostur"), text)
            _, parity = cells[("Fig. 5", "PROG1 (Eq. 1, Josephson)", "speed-up at saturation")]
            self.assertRegex(parity, r"openmp-2 at its best \([0-9,]+\) over serial at 4,096, per step: [0-9.]+x")
            _, parity = cells[("Fig. 2", "single precision", "GPU time")]
            self.assertRegex(parity, r"openmp-2, 3.2e\+05 steps \(fenced phases\): [0-9.e-]+ s")
            _, parity = cells[("1", "TOTAL", "total FLOPs")]
            self.assertRegex(parity, r"\(float, report flops_per_step\): [0-9.]+ FLOP")
            for png in ("figure2-float", "figure2-double", "figure4", "figure5"):
                self.assertTrue(Path(d, f"januszewski-kostur-{png}.png").read_bytes().startswith(b"\x89PNG"), png)

    def test_cubature_quick(self):
        with tempfile.TemporaryDirectory() as d:
            proc = subprocess.run([sys.executable, str(ROOT / "perf" / "reproduce"), "cubature",
                                   "--exe", f"serial={EXE},threads=1", "--exe", f"openmp={EXE}", "--cores", "2",
                                   "--out", d, "--quick"], capture_output=True, text=True, timeout=600)
            self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
            text = Path(d, "cubature.md").read_text()
            cells = assert_every_cell(self, load_paper("cubature"), text)
            row = "f4(x), n = 6, τrel = 1e-5"
            _, parity = cells[("III", row, "Execution Time (s): CPU")]
            self.assertRegex(parity, r"serial: [0-9.e-]+ s")
            _, parity = cells[("III", row, "Speed-up (CPU / GPU time)")]
            self.assertRegex(parity, r"serial/openmp-2: [0-9.e-]+x")
            _, parity = cells[("II", row, "FIRST PHASE: Number of Iterations")]
            self.assertEqual(parity, "openmp-2: 2")  # f4 3-D at Lmax 256 splits once before phase 2
            # CUBA's averaged stop: no more evaluations than the published algorithm's
            _, parity = cells[("III", row, "Function Evaluations: GPU")]
            full, average = (float(re.search(r": ([0-9.e+]+) evaluations", item).group(1))
                             for item in parity.split("<br>"))
            self.assertIn("openmp-2 (--cuhre-average)", parity)
            self.assertLessEqual(average, full)
            results = json.loads(Path(d, "cubature-runs", "results.json").read_text())
            # the evaluation count does not depend on the backend (what the scaled times rely on)
            for entry in results["results"]:
                counts = {s["results"]["evaluations"] for s in entry["backends"].values()}
                self.assertEqual(len(counts), 1, entry["case"])

    def test_dual_control_memory_of_an_unmeasured_host_run(self):
        # Every case measured but one core's inert 8^3: only that one gets a memory run, stopped
        # after its first sweep, and the page shows its peak beside the measured cells'.
        exes = [{"name": "openmp-1", "path": EXE, "threads": 1}]
        suites = dual_control.plan(["openmp-1"], quick=False, budget=1e9)
        doc = {"backends": {"openmp-1": {"threads": 1}}, "results": []}
        for suite in suites:
            for case in suite["cases"]:
                measured = {} if case["name"] == "inert-8-double" else {
                    "openmp-1": {"median_s": 1.0, "memory": {"host_peak_resident_bytes": 2**20 * 20}}}
                doc["results"].append({"suite": suite["name"], "case": case["name"], "precision": "double",
                                       "backends": measured, "failures": {}, "skipped": {} if measured else
                                       {"openmp-1": "estimated 9 min, does not fit"}})
        with tempfile.TemporaryDirectory() as d:
            extras = dual_control.run_extras(exes, False, Path(d), 100.0, 60.0, time.monotonic() + 60.0, doc=doc)
            self.assertEqual(list(extras["memory"]), ["inert-8-double"])
            run = extras["memory"]["inert-8-double"]["openmp-1"]
            self.assertEqual(run["status"], "time_limit")
            self.assertGreater(run["host_peak_resident_bytes"], 2**20)
            text = write_page("dual-control", doc, extras, Path(d), quick=False).read_text()
            _, parity = page_cells(text)[("1", "8x8x8 (512 points), 1 thread", "Cautionary Myopic: Memory Usage")]
            self.assertIn("<br>openmp-1: 20 MiB", parity)
            _, parity = page_cells(text)[("1", "8x8x8 (512 points), 1 thread", "Inert Uninformative: Memory Usage")]
            mib = run["host_peak_resident_bytes"] / 2**20
            self.assertIn(f"openmp-1 (a run stopped after its first sweep): {common.fmt(mib)} MiB", parity)
            # resumed from these extras: the memory run is kept, not made again
            again = dual_control.run_extras(exes, False, Path(d, "again"), 100.0, 60.0, time.monotonic() + 60.0,
                                            doc=doc, earlier=extras)
            self.assertEqual(again["memory"], extras["memory"])
            self.assertFalse(Path(d, "again", "memory-runs").exists())

    def test_dual_control_allocates_everything_before_its_first_sweep(self):
        # What the memory runs rely on: a solve stopped after its first sweep has allocated all a
        # whole solve does (the same Kokkos peak) and reaches the same resident set.
        peaks = {}
        with tempfile.TemporaryDirectory() as d:
            for limit in ("0", dual_control.MEMORY_RUN_LIMIT):
                run = common.run_model({"name": "openmp-1", "path": EXE, "threads": 1},
                                       ["dual-control", *dual_control.case_args("optimal", 8, "double"),
                                        "--time-limit", limit],
                                       Path(d, limit), 300.0, arrays=False)
                self.assertNotIn("error", run)
                peaks[limit] = run["report"]["memory"]
        whole, first = peaks["0"], peaks[dual_control.MEMORY_RUN_LIMIT]
        self.assertEqual(whole["kokkos_peak_bytes"], first["kokkos_peak_bytes"])
        self.assertLess(abs(whole["host_peak_resident_bytes"] / first["host_peak_resident_bytes"] - 1), 0.05)

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
