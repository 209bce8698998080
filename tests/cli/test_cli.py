"""The parity executable's command line: help, info, the JSON report, and clear errors with a
non-zero exit on bad input (never a crash or a hang)."""
import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path
import tempfile
import threading
import unittest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from parity_cli import ENV, EXE, CliTestCase, run  # noqa: E402  (takes the executable from argv[1])


def parity(*args, timeout=120, env=None):
    return run(*args, timeout=timeout, env=env)


def parity_in(folder, *args, timeout=120, stdout=subprocess.PIPE):
    """Runs the executable in `folder`, so that relative names land there."""
    return subprocess.run([os.path.abspath(EXE), *args], cwd=folder, stdout=stdout, stderr=subprocess.PIPE, text=True,
                          timeout=timeout, env=ENV, stdin=subprocess.DEVNULL)


COMMANDS = ("info", "run", "dual-control", "krusell-smith", "aiyagari", "rbc", "josephson", "kuramoto", "cubature", "probe")
# Seconds on one thread: 64 oscillators, one step.
QUICK = ["--threads", "1", "kuramoto", "-N", "64", "--steps", "1", "--sample-every", "1", "-q"]
# Minutes of work: a check made after the solve instead of before it runs into the test's timeout.
LONG = ["josephson", "--paths", "1048576", "--periods", "100000"]


class Cli(CliTestCase):
    def test_help(self):
        r = parity("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("info", r.stdout)
        self.assertIn("run", r.stdout)

    def test_info(self):
        r = parity("info")
        self.assertEqual(r.returncode, 0, r.stderr)
        for key in ("backend", "Kokkos version", "concurrency", "device", "precision"):
            self.assertIn(key, r.stdout)

    def test_info_threads(self):
        r = parity("--threads", "2", "info")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_info_json_schema(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "info.json")
            r = parity("info", "--json", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                doc = json.load(f)
        self.assertEqual(doc["schema"], "parity.run/1")
        for key in ("parity", "backend", "precision", "parameters", "timing", "results", "status"):
            self.assertIn(key, doc)
        self.assertIn(doc["backend"]["backend"], ("serial", "openmp", "cuda"))
        self.assertGreater(doc["backend"]["concurrency"], 0)
        self.assertRegex(doc["backend"]["kokkos_version"], r"^\d+\.\d+\.\d+$")

    def test_report_records_peak_memory(self):
        # Inert value iteration holds a few arrays on the (x, mu, Sigma) grid: between 2 and 8 per
        # grid point of the precision's size, half as many bytes in float as in double.
        n = 32
        peaks = {}
        for precision, size in (("double", 8), ("float", 4)):
            r = parity("dual-control", "-q", "--policy", "inert", "--grid", f"{n},{n},{n}", "--precision", precision,
                       "--json", "-")
            self.assertEqual(r.returncode, 0, r.stderr)
            doc = json.loads(r.stdout)
            memory = doc["memory"]
            peak = memory["device_peak_bytes"]
            self.assertGreaterEqual(peak, 2 * size * n**3, memory)
            self.assertLessEqual(peak, 8 * size * n**3, memory)
            self.assertEqual(max(memory["kokkos_peak_bytes"].values()), peak)
            self.assertGreater(memory["host_peak_resident_bytes"], 0)
            if doc["backend"]["backend"] != "cuda":  # host backends: the arrays are resident host memory
                self.assertGreaterEqual(memory["host_peak_resident_bytes"], peak)
            peaks[precision] = peak
        self.assertAlmostEqual(peaks["float"] / peaks["double"], 0.5, delta=0.05)

    def test_no_command(self):
        r = parity()
        self.assertEqual(r.returncode, 2)

    def test_unknown_command(self):
        self.assert_bad_input(parity("frobnicate"), "unknown command 'frobnicate'")

    def test_mistyped_command_suggests_the_nearest(self):
        r = parity("dual-contrl", "--grid", "8,8,8")
        self.assert_bad_input(r, "unknown command 'dual-contrl'")
        self.assertIn("did you mean 'dual-control'", r.stderr)
        r = parity("--threads", "2", "kuramato")
        self.assert_bad_input(r, "did you mean 'kuramoto'")

    def test_version(self):
        r = parity("--version")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"^parity \d+\.\d+\.\d+ \(commit [0-9a-f]+")
        self.assertRegex(r.stdout, r"(serial|openmp|cuda) backend")

    def test_threads_beyond_the_backend_limit(self):
        # Past Kokkos' OpenMP limit of 512 the backend hangs or crashes: refused before it starts.
        info = json.loads(Path(self.info_json()).read_text())
        r = parity("--threads", "513", "info", timeout=30)
        if info["backend"]["backend"] == "openmp":
            self.assert_bad_input(r, "at most 512 threads")
            self.assert_bad_input(parity("--threads", "1000", "info", timeout=30), "--threads 1000")
            self.assert_bad_input(parity("josephson", "--threads", "520", "--paths", "4", timeout=30), "--threads")
            self.assert_bad_input(parity("info", env={"OMP_NUM_THREADS": "1000"}, timeout=30), "OMP_NUM_THREADS=1000")
            self.assert_bad_input(parity("info", env={"OMP_NUM_THREADS": "lots"}, timeout=30), "OMP_NUM_THREADS")
        self.assertNotEqual(r.returncode, 1)

    def info_json(self):
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(d))
        path = os.path.join(d, "info.json")
        self.assertEqual(parity("info", "--json", path).returncode, 0)
        return path

    def test_threads_messages_are_plain(self):
        r = parity("--threads", "abc", "info")
        self.assert_bad_input(r, "--threads: 'abc' is not a whole number")
        self.assertNotIn("2.22507e-308", r.stderr)
        self.assert_bad_input(parity("--threads", "0", "info"), "--threads")
        self.assert_bad_input(parity("--device-id", "x", "info"), "--device-id")

    def test_help_of_every_command(self):
        for command in COMMANDS:
            r = parity(command, "--help")
            self.assertEqual(r.returncode, 0, command)
            for text in ("--threads", "--device-id", "Exit status", "non_finite", "budget_exhausted"):
                self.assertIn(text, r.stdout, f"{command} --help lacks {text}")
            # no parser internals
            self.assertNotIn("ENUM:", r.stdout, command)
            self.assertNotIn("[[", r.stdout, command)
        r = parity("run", "--help")
        for model in ("dual-control", "krusell-smith", "josephson", "kuramoto", "cubature"):
            self.assertIn(model, r.stdout)
        self.assertIn("float", r.stdout)
        # Defaults are shown, however the CLI11 version spells them ("[double]" or "=double").
        self.assertRegex(parity("josephson", "--help").stdout, r"--precision[^\n]*(\[double\]|=double)")

    def test_json_probe_leaves_other_files_alone(self):
        # The writability check must not touch <name>.tmp (or anything but the named file).
        with tempfile.TemporaryDirectory() as d:
            tmp = os.path.join(d, "x.json.tmp")
            Path(tmp).write_text("the user's")
            r = parity("info", "--json", os.path.join(d, "x.json"))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(Path(tmp).read_text(), "the user's")
            self.assertEqual(sorted(os.listdir(d)), ["x.json", "x.json.tmp"])

    def test_json_and_output_checked_before_any_work(self):
        with tempfile.TemporaryDirectory() as d:
            a_file = os.path.join(d, "file")
            Path(a_file).write_text("")
            # Each would run for minutes were the check made after the solve.
            long_run = ["josephson", "--paths", "1048576", "--periods", "100000"]
            r = parity(*long_run, "--json", d, timeout=30)
            self.assert_bad_input(r, "is a directory")
            self.assert_bad_input(parity(*long_run, "--output", a_file, timeout=30), "is a file")
            self.assert_bad_input(parity(*long_run, "--output", "/proc/x", timeout=30), "/proc")
            self.assert_bad_input(parity(*long_run, "--json", "/proc/x.json", timeout=30), "/proc")
            self.assert_bad_input(parity(*long_run, "--json", os.path.join(a_file, "no", "x.json"), timeout=30),
                                  "is a file, not a folder")
            self.assert_bad_input(parity("run", "--all", "--json", d, timeout=30), "is a directory")
            self.assertEqual(sorted(os.listdir(d)), ["file"])

    def test_refused_run_leaves_no_folder(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "new", "arrays")
            # tens of TiB: too much for any device
            r = parity("dual-control", "--grid", "10000,10000,10000", "--output", out, timeout=30)
            self.assert_bad_input(r, "TiB")
            self.assertIn("--grid 10000,10000,10000", r.stderr)
            self.assertEqual(os.listdir(d), [])

    def test_run_writes_one_folder_per_model_with_a_manifest(self):
        with tempfile.TemporaryDirectory() as d:
            report = os.path.join(d, "runs.json")
            r = parity("run", "--model", "josephson", "--model", "kuramoto", "--output", d, "--json", report, "-q",
                       timeout=600)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            for model in ("josephson", "kuramoto"):
                folder = Path(d) / model
                manifest = json.loads((folder / "manifest.json").read_text())
                self.assertEqual(set(manifest), {"schema", "command", "model", "arrays", "report"})
                self.assertEqual(manifest["schema"], "parity.output/1")
                self.assertEqual(manifest["command"], "run")
                self.assertEqual(manifest["model"], model)
                self.assertEqual(manifest["report"], "../runs.json")
                self.assertIn("histogram", manifest["arrays"])
                for name, file in manifest["arrays"].items():
                    self.assertEqual(file, name + ".npy")
                    self.assertTrue((folder / file).is_file(), file)
                self.assertEqual(sorted(p.name for p in folder.iterdir()),
                                 sorted(list(manifest["arrays"].values()) + ["manifest.json"]))
            self.assertIn("mean_velocity", json.loads((Path(d) / "josephson" / "manifest.json").read_text())["arrays"])
            self.assertIn("r", json.loads((Path(d) / "kuramoto" / "manifest.json").read_text())["arrays"])
            self.assertFalse((Path(d) / "histogram.npy").exists())

    def test_run_all_excludes_model(self):
        self.assert_bad_input(parity("run", "--all", "--model", "cubature"), "--all")

    def test_run_in_float_succeeds(self):
        r = parity("run", "--model", "cubature", "--precision", "float", timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("[converged]", r.stdout)

    def test_counts_take_one_syntax(self):
        # 1e6 is a count everywhere; 1.5 and out-of-range values are refused with the option's name.
        r = parity("krusell-smith", "--agents", "1e6", "--z-good", "0.5")
        self.assert_bad_input(r, "--z-good")
        self.assert_bad_input(parity("krusell-smith", "--agents", "1.5"), "--agents: '1.5' is not a whole number")
        r = parity("josephson", "--paths", "1e10")
        self.assert_bad_input(r, "--paths: 1e10 is out of range: must be in [1, 2^31 - 1]")
        self.assertNotIn("Could not convert", r.stderr)
        # A short alias is named as typed, beside its long name.
        self.assert_bad_input(parity("kuramoto", "-N", "2.5"), "-N (--oscillators): '2.5' is not a whole number")
        self.assert_bad_input(parity("kuramoto", "--oscillators", "2.5"), "--oscillators: '2.5' is not a whole number")
        self.assert_bad_input(parity("cubature", "--max-evals", "2.5"), "--max-evals: '2.5' is not a whole number")

    def test_unknown_option(self):
        self.assert_bad_input(parity("info", "--bogus"), "--bogus")

    def test_bad_threads(self):
        self.assert_bad_input(parity("--threads", "-3", "info"), "--threads")
        self.assert_bad_input(parity("--threads", "many", "info"), "--threads")

    def test_unwritable_json(self):
        self.assert_bad_input(parity("info", "--json", "/proc/nonexistent/dir/x.json"), "cannot be created")

    def test_empty_values_are_refused(self):
        self.assert_bad_input(parity("--threads", "", *LONG, timeout=30), "--threads: the value is empty")
        self.assert_bad_input(parity(*LONG, "--threads", "", timeout=30), "--threads: the value is empty")
        self.assert_bad_input(parity(*LONG, "--device-id", "", timeout=30), "--device-id: the value is empty")
        self.assert_bad_input(parity(*LONG, "--json", "", timeout=30), "--json: the file name is empty")
        self.assert_bad_input(parity(*LONG, "--output", "", timeout=30), "--output: the folder name is empty")
        self.assert_bad_input(parity("info", "--json", ""), "--json: the file name is empty")
        self.assert_bad_input(parity("run", "--all", "--output", "", timeout=30), "--output: the folder name is empty")

    def test_json_to_standard_output(self):
        with tempfile.TemporaryDirectory() as d:
            r = parity_in(d, *QUICK, "--json", "-")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(r.stdout)["model"], "kuramoto")  # the report alone
            self.assertIn("kuramoto: ", r.stderr)  # the summary moved to standard error
            r = parity_in(d, "info", "--json", "-")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(r.stdout)["model"], "info")
            self.assertIn("Kokkos version", r.stderr)
            self.assertEqual(os.listdir(d), [])
            # A file called '-' is still one name away.
            r = parity_in(d, *QUICK, "--json", "./-")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(Path(d, "-").read_text())["model"], "kuramoto")
        self.assertRegex(parity("kuramoto", "--help").stdout, r"standard\s+output")

    def test_json_through_a_symbolic_link_writes_its_target(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "store"))
            Path(d, "store", "r.json").write_text("old")
            os.symlink("store/r.json", os.path.join(d, "link.json"))
            r = parity_in(d, *QUICK, "--json", "link.json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(os.path.islink(os.path.join(d, "link.json")))
            self.assertEqual(json.loads(Path(d, "store", "r.json").read_text())["model"], "kuramoto")
            self.assertEqual(sorted(os.listdir(d)), ["link.json", "store"])
            self.assertEqual(os.listdir(os.path.join(d, "store")), ["r.json"])

    def test_json_through_descriptors_devices_and_pipes(self):
        with tempfile.TemporaryDirectory() as d:
            # /dev/stdout into a file: the summary, then the report; /dev/stdout stays a link.
            with open(os.path.join(d, "out.txt"), "w") as out:
                r = parity_in(d, *QUICK, "--json", "/dev/stdout", stdout=out)
            self.assertEqual(r.returncode, 0, r.stderr)
            text = Path(d, "out.txt").read_text()
            self.assertTrue(text.startswith("kuramoto: "), text[:200])
            self.assertEqual(json.loads(text[text.index("{"):])["model"], "kuramoto")
            self.assertTrue(os.path.islink("/dev/stdout"))
            # /dev/null: written through; it stays the device.
            r = parity_in(d, *QUICK, "--json", "/dev/null")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(stat.S_ISCHR(os.stat("/dev/null").st_mode))
            # A named pipe: written through while this test reads it.
            fifo = os.path.join(d, "pipe")
            os.mkfifo(fifo)
            received = []
            reader = threading.Thread(target=lambda: received.append(Path(fifo).read_text()))
            reader.start()
            try:
                r = parity_in(d, *QUICK, "--json", fifo)
            finally:
                try:  # a reader still waiting for a writer gets an empty file instead of a hang
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass
                reader.join(30)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(received[0])["model"], "kuramoto")
            self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))
            self.assertEqual(sorted(os.listdir(d)), ["out.txt", "pipe"])
            # A socket is refused before any work.
            with socket.socket(socket.AF_UNIX) as s:
                s.bind(os.path.join(d, "sock"))
                r = parity(*LONG, "--json", os.path.join(d, "sock"), timeout=30)
                self.assert_bad_input(r, "--json")
                self.assertIn("socket", r.stderr)

    def test_outputs_that_land_on_one_another_are_refused_before_any_work(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            os.symlink("out", os.path.join(d, "alias"))  # to the folder the run would create
            for report in (out, os.path.join(out, "manifest.json"), os.path.join(out, "phase1_error.npy"),
                           os.path.join(d, "new", "..", "out", "manifest.json"),
                           os.path.join(d, "alias", "manifest.json")):
                r = parity(*LONG, "--output", out, "--json", report, timeout=30)
                self.assert_bad_input(r, "--json")
                self.assertIn("--output", r.stderr)
            r = parity(*LONG, "--output", os.path.join(d, "f", "arrays"), "--json", os.path.join(d, "f"), timeout=30)
            self.assert_bad_input(r, "--json")
            self.assertIn("--output", r.stderr)
            for report in (os.path.join(out, "kuramoto", "manifest.json"), os.path.join(out, "cubature"),
                           os.path.join(out, "josephson", "mean_velocity.npy")):
                r = parity("run", "--all", "--output", out, "--json", report, timeout=30)
                self.assert_bad_input(r, "--json")
                self.assertIn("--output", r.stderr)
            self.assertEqual(os.listdir(d), ["alias"])

    def test_missing_folders_are_created_for_every_output(self):
        with tempfile.TemporaryDirectory() as d:
            report, arrays = os.path.join(d, "a", "b", "r.json"), os.path.join(d, "c", "d")
            r = parity(*QUICK, "--json", report, "--output", arrays)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(Path(report).read_text())["model"], "kuramoto")
            self.assertTrue(os.path.isfile(os.path.join(arrays, "manifest.json")))
            r = parity("info", "--json", os.path.join(d, "e", "f", "info.json"))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(os.path.isfile(os.path.join(d, "e", "f", "info.json")))

    def test_run_needs_selection(self):
        self.assert_bad_input(parity("run"), "--all")
        self.assert_bad_input(parity("run", "--model", "nope"), "unknown model")
        self.assert_bad_input(parity("run", "--all", "--size", "huge"), "--size")
        self.assert_bad_input(parity("run", "--all", "--precision", "half"), "--precision")


if __name__ == "__main__":
    unittest.main()
