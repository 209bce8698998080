"""The comparison runner: its arithmetic on synthetic results, one real run of the probe suite
on the executable under test, posing as two backends (1 and 2 threads), peers (--peer): a
stand-in peer program here, the real hcubature peer when PARITY_HCUBATURE_PEER names it, the
aiyagari peers' command line and reports, and rank scaling (--ranks) under a stand-in launcher."""
import csv
import json
import math
import os
import stat
import subprocess
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

    def test_combined_runs_merge_a_case(self):
        # A targeted run (--only) measured cuda; the rest of the suite skipped it on the command
        # line: the combined entry holds both backends and no stale skip reason.
        into = [{"suite": "s", "case": "c", "precision": "double", "backends": {"serial": summary(4.0)},
                 "failures": {}, "skipped": {"cuda": "skipped on the command line"}}]
        more = [{"suite": "s", "case": "c", "precision": "double", "backends": {"cuda": summary(1.0)},
                 "failures": {}, "skipped": {"serial": "too slow"}},
                {"suite": "s", "case": "d", "precision": "double", "backends": {"cuda": summary(2.0)},
                 "failures": {}, "skipped": {}}]
        runner.merge_results(into, more)
        self.assertEqual(len(into), 2)
        self.assertEqual(set(into[0]["backends"]), {"serial", "cuda"})
        self.assertEqual(into[0]["skipped"], {})
        self.assertEqual(into[1]["case"], "d")

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

    def test_strong_scaling_rows(self):
        entry = {"case": "c", "precision": "double", "scaling": {"mpi": [
            {"ranks": 1, "median_s": 8.0, "communication_median_s": 0.0, "compared": {"results.x": [2.0, -4.0]}},
            {"ranks": 2, "median_s": 4.0, "communication_median_s": 0.1, "compared": {"results.x": [2.0, -4.0]}},
            {"ranks": 4, "median_s": 4.0, "communication_median_s": 2.0, "compared": {"results.x": [2.0, -3.0]}}]}}
        rows = runner.scaling_rows(entry, "mpi")
        self.assertEqual([r["speedup"] for r in rows], [1.0, 2.0, 2.0])
        self.assertEqual([r["efficiency"] for r in rows], [1.0, 1.0, 0.5])
        self.assertEqual([r["max_rel_diff"] for r in rows], [0.0, 0.0, 0.25])  # |(-3) - (-4)| / 4
        table = runner.scaling_table([entry])
        self.assertIn("| c | double | mpi | 4 | 4 | 2.00x | 50 % | 2 | 2.50e-01 |", table)
        self.assertIn("| c | double | mpi | 2 | 4 | 2.00x | 100 % | 0.1 | 0.00e+00 |", table)
        no_outputs = {"case": "c", "precision": "double", "scaling": {"mpi": [
            {"ranks": 1, "median_s": 8.0, "communication_median_s": 0.0, "compared": {"results.x": None}}]}}
        self.assertIn("| 0 | — |", runner.scaling_table([no_outputs]))
        self.assertEqual(runner.scaling_table([{"case": "c", "precision": "double"}]), "")
        self.assertEqual(runner.parse_ranks("1,2,4"), [1, 2, 4])
        for bad in ("", "0,2", "2,2", "two"):
            with self.assertRaises(Exception):
                runner.parse_ranks(bad)

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


FAKE_PEER = """#!/usr/bin/env python3
import json, sys
args = sys.argv[1:]
path = args[args.index("--json") + 1]
backend = {"backend": "fake", "device_name": "nothing", "execution_space": "none"}
if args[0] == "info":
    doc = {"backend": backend, "parity": {"peer": "fake"}}
else:
    assert args[0] == "probe" and args[args.index("--precision") + 1] == "double", args
    doc = {"status": "converged", "backend": backend, "iterations": None,
           "timing": {"total_seconds": 1e-3, "phases": {"all": {"seconds": 1e-3}}}, "results": {"answer": 42}}
json.dump(doc, open(path, "w"))
"""


# Stands in for mpirun: `-np N EXE ARGS...` runs EXE once and rewrites its report as N ranks would
# (ranks.count N, the time divided by N, the last rank's phases 1.5 times as long, 1 ms of
# communication per rank beyond the first), or leaves the rank count alone with --one-rank (an
# executable built without MPI).
FAKE_MPIRUN = """#!/usr/bin/env python3
import json, subprocess, sys
args = sys.argv[1:]
one_rank = args[0] == "--one-rank"
if one_rank:
    args = args[1:]
assert args[0] == "-np", args
n, cmd = int(args[1]), args[2:]
rc = subprocess.run(cmd).returncode
path = cmd[cmd.index("--json") + 1]
doc = json.load(open(path))
if not one_rank:
    doc["ranks"]["count"] = n
    doc["ranks"]["communication_seconds"] = [1e-3 * (n > 1)] * n
    doc["timing"]["total_seconds"] /= n
    doc["ranks"]["phase_seconds"] = {k: [v[0] / n * (1.5 if n > 1 and i == n - 1 else 1.0) for i in range(n)]
                                     for k, v in doc["ranks"]["phase_seconds"].items()}
json.dump(doc, open(path, "w"))
sys.exit(rc)
"""


class Ranks(unittest.TestCase):
    def launcher(self, d):
        path = Path(d, "fake-mpirun")
        path.write_text(FAKE_MPIRUN)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)

    def test_scaling_table(self):
        with tempfile.TemporaryDirectory() as d:
            suite = json.loads((ROOT / "perf/suites/probe.json").read_text())
            suite.update(name="scale", cases=suite["cases"][:1], precisions=["double"])
            Path(d, "scale.json").write_text(json.dumps(suite))
            out = Path(d, "out")
            rc = runner.main(["--suite", str(Path(d, "scale.json")), "--exe", f"one={EXE},threads=1",
                              "--ranks", "1,2,4", "--mpirun", self.launcher(d), "--out", str(out), "--probe", "none",
                              "--repetitions", "1", "--warmup", "0"])
            self.assertEqual(rc, 0)
            doc = json.loads(Path(out, "results.json").read_text())
            self.assertEqual(doc["rank_counts"], [1, 2, 4])
            entry = doc["results"][0]
            runs = entry["scaling"]["one"]
            self.assertEqual([r["ranks"] for r in runs], [1, 2, 4])
            self.assertEqual([r["communication_median_s"] for r in runs], [0.0, 1e-3, 1e-3])
            self.assertEqual([len(r["rank_communication_seconds"]) for r in runs], [1, 2, 4])
            self.assertEqual([sorted(r["compared"]) for r in runs], [sorted(suite["compare"])] * 3)
            self.assertTrue(runs[0]["rank_phase_seconds"])  # the phases of every rank
            for r in runs[1:]:  # the time of several ranks: the slowest rank's phases, not rank 0's
                slowest = max(sum(v[i] for v in r["rank_phase_seconds"].values()) for i in range(r["ranks"]))
                self.assertAlmostEqual(r["median_s"], slowest)
                self.assertGreater(r["median_s"], sum(v[0] for v in r["rank_phase_seconds"].values()))
            self.assertEqual(entry["backends"]["one"]["ranks"], 1)  # the comparison tables: the first count
            self.assertEqual(entry["backends"]["one"]["median_s"], runs[0]["median_s"])
            table = Path(out, "table.md").read_text()
            self.assertIn("## Strong scaling over MPI ranks", table)
            for r in runner.scaling_rows(entry, "one"):
                self.assertAlmostEqual(r["speedup"], runs[0]["median_s"] / r["median_s"])
                self.assertIn(f"| {entry['case']} | double | one | {r['ranks']} | {r['median_s']:.4g} |", table)

    def test_wrong_rank_count_fails_the_run(self):
        with tempfile.TemporaryDirectory() as d:
            suite = json.loads((ROOT / "perf/suites/probe.json").read_text())
            suite.update(name="scale", cases=suite["cases"][:1], precisions=["double"])
            Path(d, "scale.json").write_text(json.dumps(suite))
            rc = runner.main(["--suite", str(Path(d, "scale.json")), "--exe", f"one={EXE},threads=1",
                              "--ranks", "2", "--mpirun", f"{self.launcher(d)} --one-rank", "--out", d,
                              "--probe", "none", "--repetitions", "1", "--warmup", "0"])
            self.assertEqual(rc, 1)
            doc = json.loads(Path(d, "results.json").read_text())
            self.assertIn("ran on 1 rank(s), not 2", doc["results"][0]["failures"]["one"])

    def test_bad_options_exit_2(self):
        for bad in (["--ranks", "0,1"], ["--mpirun", "mpiexec"], ["--ranks", "2", "--mpirun", ""]):
            with self.subTest(args=bad), tempfile.TemporaryDirectory() as d:
                with self.assertRaises(SystemExit) as e:
                    runner.main(["--suite", str(ROOT / "perf/suites/probe.json"), "--exe", f"one={EXE}",
                                 "--out", d, *bad])
                self.assertEqual(e.exception.code, 2)


class Peers(unittest.TestCase):
    def fake_peer(self, d):
        path = Path(d, "fake-peer")
        path.write_text(FAKE_PEER)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)

    def test_peer_runs_beside_the_backends(self):
        with tempfile.TemporaryDirectory() as d:
            suite = json.loads((ROOT / "perf/suites/probe.json").read_text())
            suite["cases"] = suite["cases"][:1]
            suite.update(name="withpeer", precisions=["double", "float"], peers={"fake": ["double"]},
                         columns=["results.answer"])
            Path(d, "withpeer.json").write_text(json.dumps(suite))
            suite.update(name="nopeer", peers={})
            Path(d, "nopeer.json").write_text(json.dumps(suite))
            out = Path(d, "out")
            rc = runner.main(["--suite", str(Path(d, "withpeer.json")), "--suite", str(Path(d, "nopeer.json")),
                              "--exe", f"one={EXE},threads=1", "--peer", f"fake={self.fake_peer(d)}",
                              "--out", str(out), "--probe", "none", "--repetitions", "1", "--warmup", "0"])
            self.assertEqual(rc, 0)
            doc = json.loads(Path(out, "results.json").read_text())
            self.assertTrue(doc["backends"]["fake"]["peer"])
            self.assertNotIn("bounds", doc["backends"]["fake"])
            ran = {(e["suite"], e["precision"]): set(e["backends"]) for e in doc["results"]}
            # Only in the suite that names the peer, only in the precisions it lists.
            self.assertEqual(ran[("withpeer", "double")], {"one", "fake"})
            self.assertEqual(ran[("withpeer", "float")], {"one"})
            self.assertEqual(ran[("nopeer", "double")], {"one"})
            entry = next(e for e in doc["results"] if e["suite"] == "withpeer" and e["precision"] == "double")
            self.assertTrue(entry["backends"]["fake"]["peer"])
            self.assertNotIn("fake", entry["differences"])
            with open(Path(out, "results.csv")) as f:
                rows = [r for r in csv.DictReader(f) if r["backend"] == "fake"]
            self.assertEqual(len(rows), 1)
            self.assertEqual(rows[0]["results.answer"], "42")
            self.assertAlmostEqual(float(rows[0]["median_s"]), 1e-3)
            self.assertAlmostEqual(float(rows[0]["ratio_to_reference"]), 1e-3 / entry["backends"]["one"]["median_s"])
            table = Path(out, "table.md").read_text()
            self.assertIn("fake [s]", table)
            self.assertIn("fake/one", table)
            self.assertIn("| fake (peer) |", table)

    def test_peer_name_must_differ_from_backends(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(SystemExit):
                runner.main(["--suite", str(ROOT / "perf/suites/probe.json"), "--exe", f"one={EXE}",
                             "--peer", f"one={self.fake_peer(d)}", "--out", d])

    @unittest.skipUnless(os.environ.get("PARITY_HCUBATURE_PEER"), "set PARITY_HCUBATURE_PEER to the hcubature-peer binary")
    def test_hcubature_peer(self):
        with tempfile.TemporaryDirectory() as d:
            suite = {"name": "paper", "model": "cubature", "peers": {"hcubature": ["double"]},
                     "columns": ["results.evaluations", "results.relative_true_error"],
                     "cases": [{"name": "f5-4d", "args": ["--integrand", "f5", "--dim", "4", "--rel-tol", "1e-6"]},
                               {"name": "f4-3d", "args": ["--integrand", "f4", "--dim", "3", "--rel-tol", "1e-6"]}]}
            Path(d, "paper.json").write_text(json.dumps(suite))
            rc = runner.main(["--suite", str(Path(d, "paper.json")), "--exe", f"one={EXE}",
                              "--peer", f"hcubature={os.environ['PARITY_HCUBATURE_PEER']}", "--out", d,
                              "--probe", "none", "--repetitions", "1", "--warmup", "0"])
            self.assertEqual(rc, 0)
            doc = json.loads(Path(d, "results.json").read_text())
            for entry in doc["results"]:
                for name in ("one", "hcubature"):
                    res = entry["backends"][name]["results"]
                    self.assertEqual(res["status"], "converged")
                    self.assertLess(res["relative_true_error"], 1e-6)
                    self.assertGreater(res["evaluations"], 0)


class AiyagariPeers(unittest.TestCase):
    """perf/peers/aiyagari_*.py take Parity's command line: without their packages (python -S: no
    site packages) and in float they write a skipped report and exit 0, which the runner takes;
    unknown or out-of-range options exit 2. The aiyagari suite names them, double only."""
    IMPLS = ("ssj", "quantecon", "jax")

    def peer(self, impl, *args, site=True):
        cmd = [sys.executable, *([] if site else ["-S"]), str(ROOT / f"perf/peers/aiyagari_{impl}.py"), *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)

    def test_command_line(self):
        with tempfile.TemporaryDirectory() as d:
            out = Path(d, "report.json")
            for impl in self.IMPLS:
                with self.subTest(impl=impl):
                    r = self.peer(impl, "aiyagari", "--asset-points", "50", "--precision", "double", "--json", str(out),
                                  "--quiet", site=False)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    doc = json.loads(out.read_text())
                    self.assertEqual(doc["status"], "skipped")
                    self.assertIn("not importable", doc["reason"])
                    self.assertTrue(math.isnan(doc["timing"]["total_seconds"]))  # no time was measured
                    self.assertEqual(doc["timing"]["phases"], {})
                    r = self.peer(impl, "aiyagari", "--asset-points", "50", "--precision", "float", "--json", str(out),
                                  "-q")
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertEqual(json.loads(out.read_text())["status"], "skipped")
                    r = self.peer(impl, "info", "--json", str(out))
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertEqual(json.loads(out.read_text())["backend"]["backend"], impl)
                    for bad in (["--no-such-option", "1"], ["--asset-points", "5"], ["--beta", "1"],
                                ["--asset-p", "50"]):
                        r = self.peer(impl, "aiyagari", *bad, "--json", str(out), "-q")
                        self.assertEqual(r.returncode, 2, (bad, r.stderr))
            r = subprocess.run([sys.executable, str(ROOT / "perf/peers/aiyagari_peer.py"), "aiyagari", "-q"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2)
            self.assertIn("--impl", r.stderr)

    def test_suite_names_the_peers(self):
        suite = runner.load_suite(str(ROOT / "perf/suites/aiyagari.json"))
        self.assertEqual(suite["peers"], {impl: ["double"] for impl in self.IMPLS})
        known = {"serial", "openmp", "cuda", *self.IMPLS}
        for case in suite["cases"]:
            self.assertLessEqual(set(case["skip"]), known, case["name"])

    def test_runner_takes_a_skipped_report(self):
        with tempfile.TemporaryDirectory() as d:
            wrapper = Path(d, "ssj-peer")  # the peer without its packages
            wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{ROOT}/perf/peers/aiyagari_ssj.py" "$@"\n')
            wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
            Path(d, "ai.json").write_text(json.dumps({
                "name": "ai", "model": "aiyagari", "repetitions": 1, "warmup": 0, "peers": {"ssj": ["double"]},
                "columns": ["results.interest_rate"],
                "cases": [{"name": "small", "args": ["--asset-points", "50", "--asset-max", "60"]}]}))
            out = Path(d, "out")
            rc = runner.main(["--suite", str(Path(d, "ai.json")), "--exe", f"one={EXE},threads=1",
                              "--peer", f"ssj={wrapper}", "--out", str(out), "--probe", "none"])
            self.assertEqual(rc, 0)
            doc = json.loads(Path(out, "results.json").read_text())
            self.assertTrue(doc["backends"]["ssj"]["peer"])
            entry = doc["results"][0]
            self.assertEqual(entry["backends"]["ssj"]["status"], "skipped")
            self.assertEqual(entry["backends"]["one"]["status"], "converged")
            self.assertIn("| ssj (peer) |", Path(out, "table.md").read_text())


class PeerSummary(unittest.TestCase):
    """perf/peer_summary.py on a recorded comparison: the tallies from the per-case statuses, and a
    clear refusal of what it cannot read."""
    RESULTS = ROOT / "perf/results/two-gpus-h200x2/cubature-pagani/results.json"

    def summarize(self, *args):
        return subprocess.run([sys.executable, str(ROOT / "perf/peer_summary.py"), *args], capture_output=True,
                              text=True, timeout=60)

    def test_tallies_follow_the_statuses(self):
        r = self.summarize(str(self.RESULTS), "--peer", "pagani")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(self.RESULTS.read_text())
        both = sum(1 for e in doc["results"]
                   if e["backends"]["cuda"]["status"] == "converged" and e["backends"]["pagani"]["status"] == "converged")
        self.assertIn(f"- both converged: {both};", r.stdout)
        self.assertIn(f"- cases: {len(doc['results'])};", r.stdout)

    def test_bad_input_is_refused(self):
        r = self.summarize("/nonexistent/results.json", "--peer", "pagani")
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read", r.stderr)
        r = self.summarize(str(self.RESULTS), "--peer", "hcubature")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--peer hcubature", r.stderr)


if __name__ == "__main__":
    unittest.main()
