"""The executable across MPI ranks: `mpirun -np N parity-<backend> ...` against the same run
without mpirun. SDE ensembles split their paths over the ranks, Kuramoto its oscillators (mean
field) or rows (all pairs, network), dual control its grid, cubature its rule applications and
phase-2 regions; each must
give bit-identical results (JSON results and .npy arrays) for any N, with N not dividing the work
evenly; Krusell-Smith splits its agents and agrees within the tolerance its documentation states;
the report names the rank count and every rank's phase times; commands that run on one rank only
refuse several ranks with exit status 2.

Usage: test_ranks.py EXE MPIEXEC NUMPROC_FLAG RANKS [PREFLAGS...]"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

EXE, MPIEXEC, NUMPROC_FLAG, RANKS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
PREFLAGS = sys.argv[5:]
del sys.argv[1:]

ENV = dict(os.environ, OMP_PROC_BIND="false")


def shared_memory_btl() -> str:
    """Open MPI's shared-memory transport: `sm` from version 5 on, `vader` before (the GPU machines)."""
    try:
        out = subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "sm"
    m = re.search(r"Open MPI\)?\s+(\d+)\.", out)
    return "vader" if m and int(m.group(1)) < 5 else "sm"


# Open MPI: allowed as root (CI runs as root); shared memory only, which starts in under a second
# instead of probing network modules; more ranks than cores (3 ranks on a 2-core runner).
for key, value in {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                   "OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "self," + shared_memory_btl(),
                   "PRTE_MCA_rmaps_default_mapping_policy": "slot:oversubscribe",
                   "OMPI_MCA_rmaps_base_oversubscribe": "1"}.items():
    ENV.setdefault(key, value)

# Timing-derived results differ from run to run; everything else must be identical.
TIMED = {"integrate_seconds", "steps_per_second", "gflops", "gflops_paper_count", "grid_point_updates_per_second",
         "estimate"}

# Small cases whose work does not split evenly: 2500 paths are 3 chunks of the moment sums (the
# last one partial), so 2 sweep points are 6 chunks and 1 point 3; 2 and 3 ranks cut through a
# sweep point. The second case writes the histogram into the JSON report (one sweep point).
# Dual control: 15 x 11 x 9 = 1485 grid points (odd: no even split), the optimal policy (policy
# evaluation, then Bellman and evaluation sweeps) and a simulation that reads the whole V.
# Each case: the command line and a phase every rank must time.
CASES = {
    "sweep": ["josephson", "--paths", "2500", "--periods", "4", "--transient", "1", "--steps-per-period", "50",
              "--sample-every", "25", "--sweep", "f:0:0.2:2", "--bins", "8"],
    "histogram": ["josephson", "--paths", "2100", "--periods", "3", "--transient", "1", "--steps-per-period", "40",
                  "--sample-every", "30", "--bins", "16", "--stepper", "euler", "--precision", "float"],
    # Kuramoto mean field: 3000 oscillators in double are 1500 noise units, 6 chunks of the sums;
    # 5000 in float five-point 1250 units, 5 chunks; 100 oscillators one chunk (ranks without
    # oscillators). On a GPU a chunk is 4096 units: 50000 float oscillators are 12500 units, 4 chunks
    # (the last partial). All pairs: 700 rows are 11 tiles of 64, with and without column shares.
    "kuramoto": ["kuramoto", "-N", "3000", "--steps", "60", "--sample-every", "20", "--bins", "16"],
    "kuramoto-euler": ["kuramoto", "-N", "3000", "--steps", "60", "--sample-every", "20", "--bins", "16",
                       "--precision", "float", "--stepper", "euler", "--omega-spread", "0.5"],
    "kuramoto-five-point": ["kuramoto", "-N", "5000", "--steps", "40", "--sample-every", "10", "--bins", "8",
                            "--precision", "float", "--noise-law", "five-point"],
    "kuramoto-tiny": ["kuramoto", "-N", "100", "--steps", "10", "--sample-every", "5", "--bins", "4"],
    "kuramoto-chunks": ["kuramoto", "-N", "50000", "--steps", "20", "--sample-every", "10", "--bins", "8",
                        "--precision", "float"],
    "all-pairs": ["kuramoto", "-N", "700", "--steps", "20", "--sample-every", "5", "--bins", "8",
                  "--coupling", "all-pairs", "--tile", "64"],
    "all-pairs-shares": ["kuramoto", "-N", "700", "--steps", "20", "--sample-every", "5", "--bins", "8",
                         "--coupling", "all-pairs", "--tile", "64", "--stepper", "euler", "--precision", "float",
                         "--omega-spread", "0.3", "--column-splits", "3"],
    "dual-control": ["dual-control", "--grid", "15,11,9", "--policy", "optimal", "--simulate-paths", "200",
                     "--horizon", "20"],
    "dual-control-float": ["dual-control", "--grid", "9,7,5", "--policy", "myopic", "--precision", "float"],
    # A time limit already passed: every rank stops after the same, first, sweep.
    "dual-control-time-limit": ["dual-control", "--grid", "9,7,5", "--policy", "myopic", "--time-limit", "1e-9"],
    # Cubature: every rank holds the region list, the rule's applications and phase 2's regions
    # are split (3 ranks: uneven). Phase 1 only (degree 9); paper mode whose phase 2 runs out of its
    # budget (rounds of heaps resumed across ranks), also with CUBA's average; phase 2 in batches of
    # heaps (degree 9) and degree 7, both storage-limited; float in paper mode (converged in phase
    # 1); chunks parked on the host; a sweep (integrals one after another).
    "cubature": ["cubature", "--integrand", "f1", "--dim", "4", "--rel-tol", "1e-5"],
    "cubature-rounds": ["cubature", "--integrand", "f3", "--dim", "3", "--mode", "paper", "--rel-tol", "3e-8",
                        "--max-evals", "1e6"],
    "cubature-average": ["cubature", "--integrand", "f3", "--dim", "3", "--mode", "paper", "--rel-tol", "3e-8",
                         "--max-evals", "1e6", "--cuhre-average"],
    "cubature-batches": ["cubature", "--integrand", "f2", "--dim", "3", "--rel-tol", "1e-7", "--max-memory-mb", "0.2"],
    "cubature-degree7": ["cubature", "--integrand", "gaussian", "--dim", "4", "--rel-tol", "1e-6", "--rule", "degree7",
                         "--max-memory-mb", "0.1"],
    "cubature-float": ["cubature", "--integrand", "f3", "--dim", "3", "--mode", "paper", "--rel-tol", "1e-4",
                       "--precision", "float", "--max-evals", "2e6"],
    "cubature-parked": ["cubature", "--integrand", "f3", "--dim", "4", "--rel-tol", "1e-8", "--max-memory-mb", "0.5",
                        "--max-host-memory-mb", "4", "--max-evals", "1e7"],
    # A sweep across ranks runs one integral per value (the family runs on one rank).
    "cubature-sweep": ["cubature", "--integrand", "gaussian", "--dim", "3", "--rel-tol", "1e-6", "--sweep", "a:3:6:3",
                       "--max-evals", "1e6", "--sweep-sampling", "separate"],
    # VEGAS+: each rank samples its share of the stratification cells (3 ranks: uneven).
    "cubature-vegas": ["cubature", "--integrand", "gaussian", "--dim", "4", "--method", "vegas", "--rel-tol", "1e-3",
                       "--evals-per-iteration", "2e4"],
}
PHASE = {"sweep": "parity::josephson::integrate", "histogram": "parity::josephson::integrate",
         **{case: "parity::kuramoto::integrate" for case in ("kuramoto", "kuramoto-euler", "kuramoto-five-point",
                                                             "kuramoto-tiny", "kuramoto-chunks", "all-pairs",
                                                             "all-pairs-shares")},
         "dual-control": "parity::dual_control::value_iteration",
         "dual-control-float": "parity::dual_control::policy_evaluation",
         "dual-control-time-limit": "parity::dual_control::policy_evaluation",
         **{case: "parity::cubature::phase1" for case in ("cubature", "cubature-parked", "cubature-float")},
         **{case: "parity::cubature::phase2" for case in ("cubature-rounds", "cubature-average", "cubature-batches",
                                                          "cubature-degree7")},
         "cubature-sweep": "parity::cubature::batch", "cubature-vegas": "parity::cubature::vegas"}
# Cases stopped by their budget, heaps or time limit (exit status 3), and an array each case writes.
EXIT = {"cubature-rounds": 3, "cubature-average": 3, "cubature-degree7": 3, "cubature-parked": 3,
        "dual-control-time-limit": 3}
ARRAY = {**{case: "phase1_error.npy" for case in CASES if case.startswith("cubature")},
         "cubature-sweep": "sweep0_gaussian3d_phase1_error.npy", "cubature-vegas": "vegas_estimate.npy"}

# Network Kuramoto (built with Kokkos Kernels only): rows split in contiguous ranges that 2 and 3
# ranks cut unevenly (500 rows: 250/250, 166/167/167). Sparse products (Erdos-Renyi, scale-free
# with a Lorentzian five-point run in float), the dense gemm with replicas, and a Matrix Market
# file with weights and given frequencies (written by the test: "{mtx}", "{omega}").
NETWORK_CASES = {
    "network": ["network-kuramoto", "-N", "500", "--network", "erdos-renyi", "--mean-degree", "7", "--steps", "30",
                "--sample-every", "10", "--bins", "8"],
    "network-scale-free": ["network-kuramoto", "-N", "500", "--network", "scale-free", "--k-min", "3", "--steps", "20",
                           "--sample-every", "5", "--bins", "8", "--precision", "float", "--noise-law", "five-point",
                           "--omega-law", "lorentzian", "--omega-width", "0.2", "--stepper", "euler"],
    "network-dense-replicas": ["network-kuramoto", "-N", "301", "--network", "complete", "--normalization", "n",
                               "--storage", "dense", "--replicas", "3", "--steps", "20", "--sample-every", "10",
                               "--bins", "8", "--omega-law", "gaussian", "--omega-width", "0.3"],
    "network-file": ["network-kuramoto", "--network", "file", "--network-file", "{mtx}", "--omega-law", "file",
                     "--omega-file", "{omega}", "--normalization", "degree", "--steps", "20", "--sample-every", "10",
                     "--bins", "8", "--replicas", "2", "--precision", "float"],
}


def run(args, ranks=None, timeout=120, env=None):
    cmd = [EXE, "--threads", "1", *args]
    if ranks is not None:
        cmd = [MPIEXEC, NUMPROC_FLAG, str(ranks), *PREFLAGS, *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=dict(ENV, **(env or {})),
                          stdin=subprocess.DEVNULL)


class Ranks(unittest.TestCase):
    def solve(self, case, folder, ranks):
        folder.mkdir()
        json_path = folder / "report.json"
        r = run([*CASES[case], "-q", "--json", str(json_path), "--output", str(folder / "arrays")], ranks)
        self.assertEqual(r.returncode, EXIT.get(case, 0), r.stdout + r.stderr)
        return r, json.loads(json_path.read_text())

    def test_bit_identical(self):
        for case in CASES:
            with self.subTest(case=case), tempfile.TemporaryDirectory() as d:
                d = Path(d)
                _, one = self.solve(case, d / "plain", None)
                out, many = self.solve(case, d / "ranks", RANKS)
                self.assertEqual(many["ranks"]["count"], RANKS)
                if EXIT.get(case, 0):  # a run that stops short says why once, not once per rank
                    self.assertEqual(out.stderr.count("(status "), 1, out.stderr)
                self.assertEqual(one["ranks"]["count"], 1)
                for key, value in one["results"].items():
                    if key == "arrays":  # the folder differs
                        self.assertEqual(many["results"][key]["files"], value["files"])
                    elif key not in TIMED:
                        self.assertEqual(many["results"][key], value, key)
                self.assertEqual(many["iterations"], one["iterations"])
                if case in ("sweep", "histogram"):
                    self.assertGreater(len(one["results"]["final_mean_v"]), 0)
                if case == "histogram":
                    self.assertEqual(sum(many["results"]["histogram"]), 2100)
                plain_arrays = sorted(p.name for p in (d / "plain" / "arrays").iterdir())
                self.assertIn(ARRAY.get(case, "V.npy" if case.startswith("dual-control") else "histogram.npy"),
                              plain_arrays)
                if CASES[case][0] == "kuramoto":  # every oscillator counted once
                    oscillators = int(CASES[case][CASES[case].index("-N") + 1])
                    self.assertEqual(sum(many["results"]["histogram_final"]), oscillators)
                self.assertEqual(sorted(p.name for p in (d / "ranks" / "arrays").iterdir()), plain_arrays)
                for name in plain_arrays:
                    self.assertEqual((d / "ranks" / "arrays" / name).read_bytes(),
                                     (d / "plain" / "arrays" / name).read_bytes(), name)
                # Every rank's phases; only rank 0 prints.
                phases = many["ranks"]["phase_seconds"]
                self.assertIn(PHASE[case], phases)
                for seconds in phases.values():
                    self.assertEqual(len(seconds), RANKS)
                    self.assertTrue(all(s >= 0 for s in seconds))
                comm = many["ranks"]["communication_seconds"]
                self.assertEqual(len(comm), RANKS)
                self.assertTrue(all(c >= 0 for c in comm))
                if RANKS == 1:
                    self.assertEqual(comm, [0.0])
                self.assertEqual(out.stdout.count(CASES[case][0] + ":"), 1, out.stdout)

    def test_dual_control_exchanges_agree(self):
        """V travels between the ranks through host memory (PARITY_EXCHANGE=host) or, in CUDA builds
        with NCCL, device to device (the default there): both give one rank's bits, and the report
        names the exchange used."""
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            args = [*CASES["dual-control"], "-q"]
            plain = run([*args, "--output", str(d / "plain")])
            self.assertEqual(plain.returncode, 0, plain.stdout + plain.stderr)
            for exchange in ("host", "device"):
                r = run([*args, "--json", str(d / f"{exchange}.json"), "--output", str(d / exchange)], RANKS,
                        env={"PARITY_EXCHANGE": exchange})
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                used = json.loads((d / f"{exchange}.json").read_text())["ranks"]["device_exchange"]
                self.assertIn(used, ("host", exchange))
                if exchange == "host" or RANKS == 1:
                    self.assertEqual(used, "host")
                for name in ("V.npy", "u.npy"):
                    self.assertEqual((d / exchange / name).read_bytes(), (d / "plain" / name).read_bytes(),
                                     f"{exchange} {name}")
            bad = run(args, RANKS, env={"PARITY_EXCHANGE": "gpu"})
            self.assertEqual(bad.returncode, 2, bad.stderr)
            self.assertEqual(bad.stderr.count("PARITY_EXCHANGE=gpu: must be host or device"), 1, bad.stderr)

    def test_network_bit_identical(self):
        probe = run(["network-kuramoto", "-N", "16", "--steps", "1", "-q"])
        if probe.returncode == 1 and "Kokkos Kernels" in probe.stderr:
            self.skipTest("this executable has no Kokkos Kernels (no network-kuramoto)")
        self.assertEqual(probe.returncode, 0, probe.stdout + probe.stderr)
        for case, template in NETWORK_CASES.items():
            with self.subTest(case=case), tempfile.TemporaryDirectory() as d:
                d = Path(d)
                n = 97  # a weighted directed ring with chords, and one frequency per node
                lines = [f"{i + 1} {(i + 1) % n + 1} {1 + i % 3}" for i in range(n)]
                lines += [f"{i + 1} {(i + 11) % n + 1} 0.5" for i in range(0, n, 4)]
                mtx, omega = d / "net.mtx", d / "omega.txt"
                mtx.write_text(f"%%MatrixMarket matrix coordinate real general\n{n} {n} {len(lines)}\n"
                               + "\n".join(lines) + "\n")
                omega.write_text(" ".join(str(0.01 * (i % 7)) for i in range(n)))
                args = [a.format(mtx=mtx, omega=omega) for a in template]
                docs = {}
                for label, ranks in (("plain", None), ("ranks", RANKS)):
                    (d / label).mkdir()
                    r = run([*args, "-q", "--json", str(d / label / "report.json"), "--output",
                             str(d / label / "arrays")], ranks)
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    docs[label] = json.loads((d / label / "report.json").read_text())
                one, many = docs["plain"], docs["ranks"]
                self.assertEqual(many["ranks"]["count"], RANKS)
                for key, value in one["results"].items():
                    if key == "arrays":
                        self.assertEqual(many["results"][key]["files"], value["files"])
                    elif key not in TIMED | {"achieved_bandwidth_GBps", "achieved_gflops", "seconds_per_step"}:
                        self.assertEqual(many["results"][key], value, key)
                self.assertEqual(sum(many["results"]["histogram_final"]), one["results"]["oscillators"])
                names = sorted(p.name for p in (d / "plain" / "arrays").iterdir() if p.suffix == ".npy")
                self.assertIn("local_r.npy", names)
                for name in names:
                    self.assertEqual((d / "ranks" / "arrays" / name).read_bytes(),
                                     (d / "plain" / "arrays" / name).read_bytes(), name)
                phases = many["ranks"]["phase_seconds"]["parity::network_kuramoto::integrate"]
                self.assertEqual(len(phases), RANKS)

    def test_dual_control_checkpoint(self):
        # Stopped after 3 sweeps on RANKS ranks (rank 0 writes the checkpoint), resumed on RANKS
        # ranks: the same V and u as one uninterrupted run without mpirun.
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            args = ["dual-control", "--grid", "15,11,9", "--policy", "optimal", "-q"]
            r = run([*args, "--output", str(d / "plain")])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            r = run([*args, "--max-iter", "3", "--checkpoint", str(d / "state.bin"), "--checkpoint-every", "0"],
                    RANKS)
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)  # not converged: stopped by --max-iter
            r = run([*args, "--resume", str(d / "state.bin"), "--output", str(d / "resumed")], RANKS)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            for name in ("V.npy", "u.npy", "V_myopic.npy"):
                self.assertEqual((d / "resumed" / name).read_bytes(), (d / "plain" / name).read_bytes(), name)

    def test_krusell_smith_within_tolerance(self):
        # The agents split over the ranks (3001: no even split); each period's capital sum is
        # rounded per rank, so K and what follows from it agree with one rank within the tolerance
        # of docs/models/krusell_smith.md, and the shocks (integer counts) exactly. The restart
        # pairs a saved cross-section with every agent's period-0 employment (gathered).
        import numpy as np
        # Converged in 4 or 5 outer iterations (a run stopped by --max-iter exits with 3, and mpirun may
        # end rank 0 before it writes its report once another rank has exited with non-zero status).
        small = ["--agents", "3001", "--periods", "300", "--discard", "50", "--grid", "40,4", "--tol", "5e-3",
                 "--max-iter", "10", "--policy-tol", "1e-7"]
        cases = {"default": small,
                 "independent-bucket-float": [*small, "--employment-draw", "independent", "--panel-locate", "bucket",
                                              "--panel-start", "fixed", "--interp", "bilinear", "--precision",
                                              "float"]}
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            for name, args in [*cases.items(), ("restart-panel", [*small, "--restart", str(d / "default-plain"),
                                                                  "--restart-panel"])]:
                with self.subTest(case=name):
                    folders, reports = {}, {}
                    for label, ranks in (("plain", None), ("ranks", RANKS)):
                        folders[label] = d / f"{name}-{label}"
                        json_path = d / f"{name}-{label}.json"
                        r = run(["krusell-smith", *args, "-q", "--json", str(json_path), "--output",
                                 str(folders[label])], ranks)
                        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                        reports[label] = json.loads(json_path.read_text())
                        if ranks:
                            self.assertEqual(r.stdout.count("krusell-smith:"), 1, r.stdout)
                    one, many = reports["plain"], reports["ranks"]
                    self.assertEqual(many["ranks"]["count"], RANKS)
                    self.assertEqual(len(many["ranks"]["phase_seconds"]["parity::krusell_smith::panel"]), RANKS)
                    self.assertEqual(many["iterations"], one["iterations"])
                    self.assertEqual(many["status"], one["status"])
                    # Double: 1e-10 relative for K and the law of motion, 1e-9 for each agent's capital,
                    # 1e-8 (or 1e-12 absolute) for numbers that come from differences; float: 1e-5.
                    double = "float" not in name
                    tight, cross, loose, floor = (1e-10, 1e-9, 1e-8, 1e-12) if double else (1e-5,) * 3 + (1e-7,)
                    self.compare_within(one["results"], many["results"], loose, floor, "results")
                    self.assertEqual(many["results"]["shocks"], one["results"]["shocks"])
                    for array in ("K_path", "K_alm", "coeff_history", "policy"):
                        a, b = (np.load(folders[k] / f"{array}.npy") for k in ("plain", "ranks"))
                        np.testing.assert_allclose(b, a, rtol=tight, atol=0, err_msg=array)
                    K = one["results"]["K_final_panel"]
                    a, b = (np.load(folders[k] / "k_final.npy") for k in ("plain", "ranks"))
                    np.testing.assert_allclose(b, a, rtol=cross, atol=1e-3 * cross * K, err_msg="k_final")
                    for array in ("employed_final", "z_path", "transition", "k_grid", "K_grid"):
                        self.assertEqual((folders["ranks"] / f"{array}.npy").read_bytes(),
                                         (folders["plain"] / f"{array}.npy").read_bytes(), array)

    def test_krusell_smith_refuses_checkpoints_on_several_ranks(self):
        if RANKS == 1:
            return
        with tempfile.TemporaryDirectory() as d:
            for option in ("--checkpoint", "--resume"):
                r = run(["krusell-smith", "-q", "--agents", "100", option, str(Path(d) / "state.bin")], RANKS)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn(f"{option} runs on one rank only", r.stderr)
                self.assertEqual(r.stderr.count("error:"), 1, r.stderr)  # rank 0 only

    def test_krusell_smith_refuses_graph_launch_on_several_ranks(self):
        # Across ranks the panel's kernels are launched one by one: a graph asked for would be ignored.
        if RANKS == 1:
            return
        r = run(["krusell-smith", "-q", "--agents", "100", "--panel-launch", "graph"], RANKS)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--panel-launch graph applies on one rank only", r.stderr)
        self.assertEqual(r.stderr.count("error:"), 1, r.stderr)  # rank 0 only

    def compare_within(self, one, many, rtol, atol, path):
        """Numbers within rtol (relative) or atol (absolute); everything else equal."""
        if isinstance(one, dict):
            self.assertEqual(sorted(many), sorted(one), path)
            for key in one:
                if key not in ("agent_periods_per_second", "achieved_bandwidth_GBps", "arrays"):  # timed; folder
                    self.compare_within(one[key], many[key], rtol, atol, f"{path}/{key}")
        elif isinstance(one, list):
            self.assertEqual(len(many), len(one), path)
            for i, (a, b) in enumerate(zip(one, many)):
                self.compare_within(a, b, rtol, atol, f"{path}[{i}]")
        elif isinstance(one, float):
            self.assertLessEqual(abs(many - one), max(rtol * abs(one), atol), path)
        else:
            self.assertEqual(many, one, path)

    def test_run_all_on_several_ranks(self):
        # Every distributed model runs its default case on all ranks; probe is named as skipped, and
        # so is network-kuramoto where the build lacks Kokkos Kernels (no folder for it).
        if RANKS == 1:
            return
        with tempfile.TemporaryDirectory() as d:
            report, out = Path(d) / "run.json", Path(d) / "out"
            r = run(["run", "--all", "-q", "--json", str(report), "--output", str(out)], RANKS, timeout=300)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("skipped: runs on one rank only", r.stdout)
            doc = json.loads(report.read_text())
            runs = doc["runs"]
            models = {x["model"] for x in runs}
            self.assertTrue({"cubature", "dual-control", "krusell-smith", "josephson", "kuramoto"} <= models, models)
            self.assertNotIn("probe", models)
            skipped = {x["model"]: x["reason"] for x in doc["skipped"]}
            self.assertIn("runs on one rank only", skipped["probe"])
            if "network-kuramoto" in skipped:
                self.assertIn("needs Kokkos Kernels", skipped["network-kuramoto"])
                self.assertRegex(r.stdout, r"network-kuramoto +skipped: not built")
                self.assertNotIn("network-kuramoto", models)
                self.assertFalse((out / "network-kuramoto").exists())
            else:
                self.assertIn("network-kuramoto", models)
            for x in runs:
                self.assertEqual(x["ranks"]["count"], RANKS, x["model"])
                self.assertIn(x["status"], ("ok", "converged"), x["model"])

    def test_one_rank_commands_refuse_several(self):
        if RANKS == 1:
            r = run(["krusell-smith", "--help"], 1)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            return
        for args, name in ((["probe", "-q"], "probe"), (["run", "--model", "probe", "-q"], "runs on one rank only")):
            with self.subTest(command=args[0]):
                r = run(args, RANKS)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn(name, r.stderr)
                self.assertIn(f"started on {RANKS} ranks", r.stderr)
                self.assertEqual(r.stderr.count("error:"), 1, r.stderr)  # rank 0 only


if __name__ == "__main__":
    unittest.main(verbosity=2)
