"""The josephson and kuramoto commands: clear errors (exit status 2) on bad input, and a small
good run of each whose JSON report carries the results a benchmark needs."""
import json
import os
import re
import sys
from pathlib import Path
import tempfile
import unittest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cli"))
from parity_cli import CliTestCase, run, run_briefly  # noqa: E402  (takes the executable from argv[1])


def run_memory_bytes():
    """The memory a run is checked against: the device's, or on a host backend the host's."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "info.json")
        r = run("info", "--json", path)
        assert r.returncode == 0, r.stderr
        with open(path) as fh:
            device = json.load(fh)["backend"].get("device_memory_bytes", 0)
    if device > 0:
        return device
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return 0


def parity(*args, timeout=120):
    return run(*args, timeout=timeout)


class SdeCli(CliTestCase):
    def test_bad_josephson_input(self):
        self.assert_bad_input(parity("josephson", "--paths", "-5"), "--paths")
        self.assert_bad_input(parity("josephson", "--gamma", "0"), "--gamma")
        self.assert_bad_input(parity("josephson", "--noise", "-1"), "--noise")
        self.assert_bad_input(parity("josephson", "--periods", "10", "--transient", "10"), "--transient")
        self.assert_bad_input(parity("josephson", "--sweep", "a:0:1"), "NAME:LO:HI:N")
        self.assert_bad_input(parity("josephson", "--sweep", "a:0:x:3"), "numbers")
        self.assert_bad_input(parity("josephson", "--sweep", "omega:1:2:3"), "cannot be swept")
        self.assert_bad_input(parity("josephson", "--sweep", "a:0:1:3", "--sweep", "a:0:1:3"), "differ")
        self.assert_bad_input(parity("josephson", "--stepper", "rk4"), "--stepper")
        self.assert_bad_input(parity("josephson", "--noise-law", "uniform"), "--noise-law")

    def test_bad_kuramoto_input(self):
        self.assert_bad_input(parity("kuramoto", "-N", "1"), "--oscillators")
        self.assert_bad_input(parity("kuramoto", "--dt", "0"), "--dt")
        self.assert_bad_input(parity("kuramoto", "--coupling", "ring"), "--coupling")
        self.assert_bad_input(parity("kuramoto", "--coupling", "all-pairs", "-N", "4000000"), "2^20")
        self.assert_bad_input(parity("kuramoto", "--column-splits", "17"), "--column-splits")
        self.assert_bad_input(parity("kuramoto", "--noise-law", "two-point"), "--noise-law")

    def test_messages_name_options_that_exist(self):
        for args, option in ((("josephson", "--noise", "-1"), "--noise"), (("josephson", "-f", "nan"), "--force"),
                             (("josephson", "-a", "inf"), "--amplitude"), (("kuramoto", "-K", "nan"), "--coupling-strength"),
                             (("kuramoto", "-D", "-1"), "--noise")):
            r = parity(*args)
            self.assert_bad_input(r, option)
            for phantom in ("--D ", "--f ", "--K ", "--a "):
                self.assertNotIn(phantom, r.stderr + r.stdout)
        r = parity("network-kuramoto", "-D", "-1")
        self.assert_bad_input(r, "--noise (-D)")
        self.assertNotIn("--D ", r.stderr)

    def test_ignored_options_refused(self):
        self.assert_bad_input(parity("josephson", "--sweep", "a:0:1:3", "--amplitude", "2"), "--amplitude")
        self.assert_bad_input(parity("josephson", "--sweep", "D:0:1:3", "-D", "0.1"), "--noise")
        self.assert_bad_input(parity("kuramoto", "--tile", "64"), "--tile")
        self.assert_bad_input(parity("kuramoto", "--column-splits", "2"), "--column-splits")
        # Without noise the noise law draws numbers that are multiplied by zero (small runs: each
        # would finish, ignoring the option, were it accepted).
        small = {"josephson": ("--paths", "64", "--periods", "10", "--transient", "1"),
                 "kuramoto": ("-N", "256", "--steps", "10")}
        for command, args in small.items():
            self.assert_bad_input(parity(command, *args, "-D", "0", "--noise-law", "five-point", "-q"),
                                  "--noise-law applies only with noise")
        r = parity("josephson", *small["josephson"], "--sweep", "D:0:0.1:2", "--noise-law", "five-point", "-q")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)  # a sweep of D brings noise

    def test_counts_name_their_range(self):
        # Past an option's type the message gives its range, never a conversion failure; -N as typed.
        for command, option in (("josephson", "--paths"), ("josephson", "--steps-per-period"), ("josephson", "--periods"),
                                ("josephson", "--transient"), ("josephson", "--sample-every"), ("josephson", "--bins"),
                                ("kuramoto", "--oscillators"), ("kuramoto", "--sample-every"), ("kuramoto", "--bins"),
                                ("kuramoto", "--tile"), ("kuramoto", "--column-splits"),
                                ("network-kuramoto", "--oscillators"), ("network-kuramoto", "--lattice-width"),
                                ("network-kuramoto", "--k-min"), ("network-kuramoto", "--k-max"),
                                ("network-kuramoto", "--sample-every"), ("network-kuramoto", "--bins"),
                                ("network-kuramoto", "--replicas")):
            r = parity(command, option, "1e12")
            self.assert_bad_input(r, option + ": 1e12 is out of range: must be in [")
            self.assertNotIn("Could not convert", r.stderr)
        r = parity("josephson", "--paths", "1e12")
        self.assert_bad_input(r, "--paths: 1e12 is out of range: must be in [1, 2^31 - 1]")
        r = parity("kuramoto", "-N", "1e10")
        self.assert_bad_input(r, "-N (--oscillators): 1e10 is out of range: must be in [2, 2^30]")

    def test_sweep_refuses_empty_fields(self):
        self.assert_bad_input(parity("josephson", "--paths", "64", "--periods", "10", "--transient", "1", "--sweep",
                                     "a:0:1:3:", "-q"), "NAME:LO:HI:N")

    def test_meaningless_step_refused(self):
        self.assert_bad_input(parity("kuramoto", "--dt", "1e6"), "--dt")
        self.assert_bad_input(parity("kuramoto", "--dt", "1"), "--dt")

    def test_resources_estimated_before_allocating(self):
        # The largest runs need about 72 GiB (josephson) and 64 GiB (kuramoto): refused where that
        # is more than 90 % of the memory they would run in, and runs of many minutes elsewhere.
        memory = run_memory_bytes()
        if 72.2 * 2**30 <= 0.9 * memory:
            self.skipTest(f"the largest josephson run fits in this machine's {memory / 2**30:.0f} GiB")
        r = parity("josephson", "--paths", "2147483647", timeout=60)
        self.assert_bad_input(r, "--paths 2147483647")
        self.assertRegex(r.stderr, r"needs about [0-9.]+ GiB")
        if 64.1 * 2**30 <= 0.9 * memory:
            self.skipTest(f"the largest kuramoto run fits in this machine's {memory / 2**30:.0f} GiB")
        self.assert_bad_input(parity("kuramoto", "-N", "1073741824", timeout=60), "GiB")

    def test_all_pairs_warns_of_quadratic_work(self):
        err = run_briefly("kuramoto", "-N", "1048576", "--coupling", "all-pairs", "--steps", "100", seconds=8)
        self.assertIn("warning: kuramoto --coupling all-pairs", err)
        self.assertIn("pair interactions", err)

    def test_non_finite_result_exits_3(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("josephson", "--gamma", "1e300", "--paths", "64", "--periods", "10", "--transient", "1",
                       "--json", path, "-q")
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            self.assertIn("not finite", r.stderr)
            with open(path) as f:
                doc = json.load(f)
        self.assertEqual(doc["status"], "non_finite")
        self.assertIn("non_finite", doc["results"])

    def test_one_path_has_no_error_bar(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("josephson", "--paths", "1", "--periods", "10", "--transient", "1", "--json", path, "-q")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("+- n/a", r.stdout)
            with open(path) as f:
                doc = json.load(f)
        self.assertEqual(doc["status"], "ok")
        self.assertIsNone(doc["results"]["mean_velocity_error"][0])
        self.assertIsNotNone(doc["results"]["mean_velocity"][0])

    def test_progress_shows_percent_of_known_total(self):
        r = parity("kuramoto", "-N", "256", "--steps", "400", "--dt", "0.03")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stderr, r"iter +\d+/400 +\d+\.\d%")
        self.assertIn("400/400 100.0%", r.stderr)

    def test_all_pairs_progress_within_a_sample(self):
        # One sample of 60 all-pairs steps lasts seconds: progress must not wait for its end.
        r = parity("kuramoto", "-N", "4096", "--coupling", "all-pairs", "--steps", "60", "--sample-every", "60",
                   "--threads", "2", timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        done = [int(k) for k in re.findall(r"iter +(\d+)/60", r.stderr)]
        self.assertTrue(any(0 < k < 60 for k in done), r.stderr[-2000:])

    def test_josephson_sweep_report(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("josephson", "--paths", "64", "--periods", "20", "--transient", "5", "--sweep", "f:0:10:3",
                       "--precision", "float", "--json", path, "--output", d, "-q")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                doc = json.load(f)
            self.assertTrue(os.path.exists(os.path.join(d, "mean_velocity.npy")))
            self.assertTrue(os.path.exists(os.path.join(d, "histogram.npy")))
        res = doc["results"]
        self.assertEqual(doc["model"], "josephson")
        self.assertEqual(res["sweep_points"], 3)
        self.assertEqual(res["steps"], 2000)
        self.assertEqual(len(res["mean_velocity"]), 3)
        # f = 10 > 2 pi runs: mean velocity of order f / gamma; f = 0 does not drift much.
        self.assertGreater(res["mean_velocity"][2], 5)
        for key in ("flops_per_step", "flops_per_step_paper", "bytes_per_step", "steps_per_second", "gflops"):
            self.assertIn(key, res)
        self.assertEqual(res["flops_per_step_paper"], 79)
        self.assertIn("parity::josephson::integrate", doc["timing"]["phases"])

    def test_josephson_covariance_and_terminal_states(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("josephson", "--paths", "2048", "--periods", "20", "--transient", "5", "--sweep", "f:0:1:2",
                       "--terminal-states", "5", "--json", path, "--output", d, "-q")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                doc = json.load(f)
            with open(os.path.join(d, "terminal_states.npy"), "rb") as f:
                header = f.read(128).decode("latin1")
            self.assertIn("'shape': (2, 5, 2)", header)
            for name in ("covariance_xv.npy", "mean_error_x.npy", "mean_error_v.npy"):
                self.assertTrue(os.path.exists(os.path.join(d, name)), name)
        res = doc["results"]
        self.assertEqual(doc["parameters"]["terminal_states"], 5)
        for q in range(2):
            vx, vv = res["final_variance_x"][q], res["final_variance_v"][q]
            # Standard errors sqrt(variance / (paths - 1)); the covariance within Cauchy-Schwarz.
            self.assertAlmostEqual(res["final_mean_x_error"][q], (vx / 2047) ** 0.5, delta=1e-9 * (1 + vx))
            self.assertAlmostEqual(res["final_mean_v_error"][q], (vv / 2047) ** 0.5, delta=1e-9 * (1 + vv))
            self.assertLessEqual(abs(res["final_covariance_xv"][q]), (vx * vv) ** 0.5 * (1 + 1e-9))
        r = parity("josephson", "--paths", "64", "--periods", "10", "--transient", "1", "--no-covariance", "--json",
                   path, "-q")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(path) as f:
            res = json.load(f)["results"]
        self.assertNotIn("final_covariance_xv", res)
        self.assertIn("final_variance_v", res)
        r = parity("josephson", "--paths", "64", "--periods", "10", "--transient", "1", "--terminal-states", "5", "-q")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--output", r.stderr)
        with tempfile.TemporaryDirectory() as d:
            r = parity("josephson", "--paths", "64", "--periods", "10", "--transient", "1", "--terminal-states", "65",
                       "--output", d, "-q")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--terminal-states must be in [0, --paths]", r.stderr)

    def test_josephson_density_and_trajectories(self):
        def shape(d, name):
            with open(os.path.join(d, name + ".npy"), "rb") as f:
                return re.search(r"'shape': \(([^)]*)\)", f.read(128).decode("latin1")).group(1)
        with tempfile.TemporaryDirectory() as d:
            # 20 periods x 100 steps, sampled every 100: 20 samples; 2 sweep points; -3..5: 8 bins.
            r = parity("josephson", "--paths", "256", "--periods", "20", "--transient", "2", "--sweep", "f:0:1:2",
                       "--density-range=-3,5", "--trajectories", "4", "--output", d, "-q")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(shape(d, "density"), "20, 2, 8")
            self.assertEqual(shape(d, "density_outside"), "20, 2, 2")
            self.assertEqual(shape(d, "density_edges"), "9,")
            self.assertEqual(shape(d, "trajectories"), "20, 2, 4")
            self.assertEqual(shape(d, "t"), "20,")
            r = parity("josephson", "--paths", "64", "--periods", "10", "--transient", "1", "--density-range=0,1",
                       "--density-bins", "16", "--output", d, "-q")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(shape(d, "density"), "10, 1, 16")
            self.assertEqual(shape(d, "density_edges"), "17,")
            # Off by default: a run without the options writes neither.
            with tempfile.TemporaryDirectory() as e:
                r = parity("josephson", "--paths", "64", "--periods", "10", "--transient", "1", "--output", e, "-q")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertFalse(os.path.exists(os.path.join(e, "density.npy")))
                self.assertFalse(os.path.exists(os.path.join(e, "trajectories.npy")))
            small = ("--paths", "64", "--periods", "10", "--transient", "1", "--output", d)
            for bad, message in (("--density-range=3,1", "XMIN < XMAX"), ("--density-range=2", "XMIN,XMAX"),
                                 ("--density-range=a,b", "XMIN,XMAX"), ("--density-range=0,nan", "XMIN < XMAX"),
                                 ("--density-range=0,2.5", "whole number of periods")):
                self.assert_bad_input(parity("josephson", *small, bad), message)
            self.assert_bad_input(parity("josephson", *small, "--density-bins", "4"), "--density-range")
            self.assert_bad_input(parity("josephson", *small, "--density-range=0,4", "--density-bins", "0"),
                                  "--density-bins")
            self.assert_bad_input(parity("josephson", *small, "--trajectories", "65"), "--trajectories")
        self.assert_bad_input(parity("josephson", "--paths", "64", "--periods", "10", "--transient", "1",
                                     "--density-range=0,4"), "--output")

    def test_kuramoto_report(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = parity("kuramoto", "-N", "1024", "--steps", "400", "--dt", "0.03", "--json", path, "-q")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                doc = json.load(f)
        res = doc["results"]
        self.assertAlmostEqual(res["r_theory"], 0.8315, places=3)
        self.assertLess(abs(res["r_mean_second_half"] - res["r_theory"]), 0.06)
        self.assertEqual(sum(res["histogram_final"]), 1024)
        self.assertIn("flops_per_step", res)
        # Januszewski & Kostur's count for the mean field (PROG3): 66 per oscillator and step.
        self.assertEqual(res["flops_per_step_paper"], 66)
        self.assertAlmostEqual(res["gflops_paper_count"], res["steps_per_second"] * 66e-9, delta=1e-12)

    def test_five_point_noise_law(self):
        # The weak noise is chosen by name, reported, and counted (no Box-Muller in the FLOP count).
        res = {}
        for law in ("gaussian", "five-point"):
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "r.json")
                r = parity("josephson", "--paths", "256", "--periods", "20", "--transient", "5", "--noise-law", law,
                           "--json", path, "-q")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                with open(path) as f:
                    doc = json.load(f)
            self.assertEqual(doc["parameters"]["noise_law"], law)
            res[law] = doc["results"]
        self.assertEqual(res["gaussian"]["flops_per_step"] - res["five-point"]["flops_per_step"], 3.5)
        self.assertNotEqual(res["gaussian"]["mean_velocity"], res["five-point"]["mean_velocity"])

    def test_steppers_by_name(self):
        # The Josephson noise is additive: Milstein's correction vanishes (Euler-Maruyama's steps),
        # weak2 is a different order-2 scheme whose <<v>> agrees with SRK2's within the error bars.
        res = {}
        for stepper in ("srk2", "euler", "milstein", "weak2"):
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "r.json")
                r = parity("josephson", "--paths", "512", "--periods", "20", "--transient", "5", "--stepper", stepper,
                           "--json", path, "-q")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                with open(path) as f:
                    doc = json.load(f)
            self.assertEqual(doc["parameters"]["stepper"], stepper)
            res[stepper] = doc["results"]
        # Same arithmetic up to the compiler's contractions (a GPU fuses multiply-adds differently
        # in the two kernels): far inside the two schemes' statistical difference (~1e-3).
        self.assertAlmostEqual(res["milstein"]["mean_velocity"][0], res["euler"]["mean_velocity"][0],
                               delta=1e-7 * abs(res["euler"]["mean_velocity"][0]))
        v2, e2 = res["weak2"]["mean_velocity"][0], res["weak2"]["mean_velocity_error"][0]
        v1, e1 = res["srk2"]["mean_velocity"][0], res["srk2"]["mean_velocity_error"][0]
        self.assertLess(abs(v2 - v1), 5 * (e1 * e1 + e2 * e2) ** 0.5)
        self.assertEqual(len({res[s]["flops_per_step"] for s in res}), 4)
        self.assert_bad_input(parity("kuramoto", "--stepper", "weak2"), "--stepper")

    def test_kuramoto_all_pairs_column_splits(self):
        # Two column shares per row tile against one: the same trajectories up to the order of the
        # additions (double), and the report says how many shares ran.
        docs = []
        for splits in ("1", "2"):
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "r.json")
                r = parity("kuramoto", "-N", "512", "--coupling", "all-pairs", "--tile", "64", "--column-splits", splits,
                           "--steps", "40", "--sample-every", "20", "--json", path, "-q")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                with open(path) as f:
                    docs.append(json.load(f)["results"])
        self.assertEqual(docs[0]["column_splits"], 1)
        self.assertEqual(docs[1]["column_splits"], 2)
        self.assertEqual(docs[0]["flops_per_step_paper"], 44 + 6 * 512)  # PROG2: 44 + 6N
        self.assertAlmostEqual(docs[0]["r_final"], docs[1]["r_final"], places=10)


# Set by CMake: whether this build has Kokkos Kernels (the network model needs it).
HAVE_KOKKOS_KERNELS = os.environ.get("PARITY_HAVE_KOKKOS_KERNELS", "OFF").upper() in ("ON", "1", "TRUE")


class NetworkKuramotoCli(CliTestCase):
    def test_bad_network_input(self):
        net = "network-kuramoto"
        self.assert_bad_input(parity(net, "--network", "ring"), "--network")
        self.assert_bad_input(parity(net, "--normalization", "sum"), "--normalization")
        self.assert_bad_input(parity(net, "--omega-law", "uniform"), "--omega-law")
        self.assert_bad_input(parity(net, "--omega-law", "file"), "--omega-file")
        self.assert_bad_input(parity(net, "--network", "file"), "--network-file")
        self.assert_bad_input(parity(net, "--dt", "-1"), "--dt")
        self.assert_bad_input(parity(net, "--replicas", "0"), "--replicas")
        self.assert_bad_input(parity(net, "--storage", "csr"), "--storage")
        self.assert_bad_input(parity(net, "--storage", "dense", "-N", "65536"), "--storage")
        if not HAVE_KOKKOS_KERNELS:
            return
        self.assert_bad_input(parity(net, "--network", "lattice", "-N", "1000"), "--lattice-width")
        self.assert_bad_input(parity(net, "--network", "watts-strogatz", "--mean-degree", "5"), "--mean-degree")
        self.assert_bad_input(parity(net, "--network", "random-regular", "-N", "11", "--mean-degree", "3"), "even")
        with tempfile.TemporaryDirectory() as d:
            missing = os.path.join(d, "missing.mtx")
            self.assert_bad_input(parity(net, "--network", "file", "--network-file", missing), "--network-file")
            bad = os.path.join(d, "bad.mtx")
            with open(bad, "w") as f:
                f.write("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n")
            self.assert_bad_input(parity(net, "--network", "file", "--network-file", bad), "--network-file")
            freq = os.path.join(d, "omega.txt")
            with open(freq, "w") as f:
                f.write("0.1 0.2 x\n")
            self.assert_bad_input(parity(net, "-N", "100", "--omega-law", "file", "--omega-file", freq), "--omega-file")

    def test_options_the_network_ignores_are_refused(self):
        net = ("network-kuramoto", "-N", "64", "--steps", "10", "-q")
        for args, message in ((("--network", "lattice", "--rewire", "0.2"), "--rewire applies to --network watts-strogatz"),
                              (("--network", "complete", "--mean-degree", "4"), "--mean-degree applies to --network"),
                              (("--network", "complete", "--network-seed", "3"), "--network-seed applies to --network"),
                              (("--network", "erdos-renyi", "--lattice-width", "8"), "--lattice-width applies to"),
                              (("--network", "lattice", "--k-min", "2"), "--k-min applies to --network scale-free"),
                              (("--network", "lattice", "--k-max", "9"), "--k-max applies to --network scale-free"),
                              (("--network", "lattice", "--degree-exponent", "2.5"), "--degree-exponent applies"),
                              (("--omega-width", "0.2"), "--omega-width applies to --omega-law gaussian or lorentzian"),
                              (("-D", "0", "--noise-law", "five-point"), "--noise-law applies only with noise")):
            self.assert_bad_input(parity(*net, *args), message)
        with tempfile.TemporaryDirectory() as d:
            mtx = os.path.join(d, "pair.mtx")
            Path(mtx).write_text("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n")
            freq = os.path.join(d, "omega.txt")
            Path(freq).write_text("0.1 0.2")
            self.assert_bad_input(parity("network-kuramoto", "--network", "file", "--network-file", mtx, "-N", "2"),
                                  "--oscillators (-N) applies to generated networks only")
            self.assert_bad_input(parity("network-kuramoto", "--network", "file", "--network-file", mtx, "--omega-law",
                                         "file", "--omega-file", freq, "--omega-mean", "1"),
                                  "--omega-mean applies to --omega-law identical, gaussian or lorentzian")

    @unittest.skipIf(HAVE_KOKKOS_KERNELS, "this build has Kokkos Kernels")
    def test_without_kokkos_kernels(self):
        # A good run, alone or through `run --model`, is a limitation of the build: exit 1 and what
        # is missing, no folder, no report. (`run --all` skips it: tests/run/test_ranks.py.)
        with tempfile.TemporaryDirectory() as d:
            for args in (["network-kuramoto", "-N", "64", "--steps", "10"], ["run", "--model", "network-kuramoto"]):
                with self.subTest(command=args[0]):
                    r = parity(*args, "--output", os.path.join(d, "out"), "--json", os.path.join(d, "r.json"))
                    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                    self.assertIn("network-kuramoto", r.stderr)
                    self.assertIn("needs Kokkos Kernels", r.stderr)
                    self.assertEqual(r.stderr.count("error:"), 1, r.stderr)
                    self.assertEqual(os.listdir(d), [])
        # Bad options are still bad input, named first.
        self.assert_bad_input(parity("network-kuramoto", "--steps", "-1"), "--steps")

    @unittest.skipUnless(HAVE_KOKKOS_KERNELS, "this build has no Kokkos Kernels")
    def test_network_report_and_files(self):
        with tempfile.TemporaryDirectory() as d:
            mtx = os.path.join(d, "ring.mtx")
            n = 64
            with open(mtx, "w") as f:  # a ring, lower triangle of a symmetric pattern
                f.write("%%MatrixMarket matrix coordinate pattern symmetric\n")
                f.write("%d %d %d\n" % (n, n, n))
                for i in range(n):
                    f.write("%d %d\n" % (max(i, (i + 1) % n) + 1, min(i, (i + 1) % n) + 1))
            freq = os.path.join(d, "omega.txt")
            with open(freq, "w") as f:
                f.write(" ".join("0.5" for _ in range(n)))
            path = os.path.join(d, "r.json")
            r = parity("network-kuramoto", "--network", "file", "--network-file", mtx, "--omega-law", "file",
                       "--omega-file", freq, "-K", "2", "-D", "0.1", "--steps", "200", "--sample-every", "50",
                       "--json", path, "--output", d, "-q")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                doc = json.load(f)
            for name in ("t.npy", "r.npy", "psi.npy", "histogram.npy", "local_r.npy"):
                self.assertTrue(os.path.exists(os.path.join(d, name)), name)
        res = doc["results"]
        self.assertEqual(res["nonzeros"], 2 * n)
        self.assertEqual(res["mean_degree"], 2)
        self.assertEqual(sum(res["histogram_final"]), n)
        self.assertEqual(len(res["r"]), 4)
        self.assertIsNone(res["K_onset_annealed"])  # frequencies from a file: no identical-oscillator onset
        self.assertIn("parity::network_kuramoto::integrate", doc["timing"]["phases"])

    @unittest.skipUnless(HAVE_KOKKOS_KERNELS, "this build has no Kokkos Kernels")
    def test_generated_networks_run(self):
        for args in (("--network", "erdos-renyi", "--mean-degree", "6"),
                     ("--network", "watts-strogatz", "--mean-degree", "4", "--rewire", "0.2"),
                     ("--network", "lattice"),
                     ("--network", "random-regular", "--mean-degree", "5", "--normalization", "degree"),
                     ("--network", "scale-free", "--k-min", "3", "--omega-law", "lorentzian", "--omega-width", "0.1"),
                     ("--network", "complete", "--normalization", "n", "--omega-law", "gaussian", "--omega-width", "0.2",
                      "--stepper", "euler", "--noise-law", "five-point")):
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "r.json")
                r = parity("network-kuramoto", "-N", "256", "--steps", "50", "--sample-every", "25", *args,
                           "--precision", "float", "--json", path, "-q")
                self.assertEqual(r.returncode, 0, " ".join(args) + r.stdout + r.stderr)
                with open(path) as f:
                    res = json.load(f)["results"]
            self.assertGreaterEqual(res["r_final"], 0)
            self.assertLessEqual(res["r_final"], 1)
            self.assertGreater(res["nonzeros"], 0)

    @unittest.skipUnless(HAVE_KOKKOS_KERNELS, "this build has no Kokkos Kernels")
    def test_replicas_and_storage(self):
        # auto stores the complete graph dense and a lattice sparse; R replicas report R order
        # parameters and an R x N local order parameter.
        n = 64
        for network, storage in (("complete", "dense"), ("lattice", "sparse")):
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "r.json")
                r = parity("network-kuramoto", "--network", network, "-N", str(n), "--replicas", "3", "--steps", "40",
                           "--sample-every", "20", "--json", path, "--output", d, "-q")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                with open(path) as f:
                    res = json.load(f)["results"]
                with open(os.path.join(d, "local_r.npy"), "rb") as f:
                    header = f.read(128).decode("latin1")
            self.assertEqual(res["storage"], storage)
            self.assertEqual(res["replicas"], 3)
            self.assertEqual(len(res["replica_r_final"]), 3)
            self.assertEqual(res["replica_r_final"][0], res["r_final"])
            self.assertNotEqual(res["replica_r_final"][0], res["replica_r_final"][1])
            self.assertIn("(3, %d)" % n, header)
            self.assertGreater(res["achieved_bandwidth_GBps"], 0)


if __name__ == "__main__":
    unittest.main()
