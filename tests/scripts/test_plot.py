"""The plot scripts on small outputs of the executable: every model's plot through scripts/plot and
through its own script, the manifest as the only source of arrays (stray files ignored), a run
folder of per-model subfolders, folders from before the manifest, and clear errors (exit status
2, a message, no traceback) for missing folders and files that do not match their manifest. The
N -> infinity Kuramoto order parameter and the inert cost-to-go the plots draw are checked
against the values the executable computes by its own method."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from parity_cli import ENV, run  # noqa: E402  (takes the executable from argv[1])

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))
import plot_common  # noqa: E402

PLOT_ENV = dict(ENV, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# (folder, model, command-line arguments): small enough for seconds on one thread.
RUNS = [
    ("dc_optimal", "dual_control", ["dual-control", "--policy", "optimal", "--grid", "10,10,6"]),
    ("dc_myopic", "dual_control", ["dual-control", "--policy", "myopic", "--grid", "10,10,6"]),
    # Off the defaults, so that every term of the inert closed form is exercised.
    ("dc_inert", "dual_control", ["dual-control", "--policy", "inert", "--grid", "10,10,6", "--alpha", "0.3",
                                  "--gamma", "0.7", "--delta", "0.9", "--xbar", "0.5", "--ubar", "0.2",
                                  "--omega", "0.2", "--sigma-eps", "0.8"]),
    ("jo_point", "josephson", ["josephson", "--paths", "128", "--periods", "20", "--transient", "5"]),
    ("jo_sweep", "josephson", ["josephson", "--paths", "64", "--periods", "20", "--transient", "5",
                               "--sweep", "a:0:8:5"]),
    ("jo_map", "josephson", ["josephson", "--paths", "32", "--periods", "10", "--transient", "2",
                             "--sweep", "f:0:1:3", "--sweep", "a:0:8:4"]),
    ("ku", "kuramoto", ["kuramoto", "-N", "1024", "--steps", "200", "--dt", "0.05", "--sample-every", "10"]),
    ("ks", "krusell_smith", ["krusell-smith", "--agents", "500", "--periods", "200", "--discard", "50",
                             "--burn-in", "200", "--tol", "1e-3"]),
    ("cu", "cubature", ["cubature", "--integrand", "gaussian", "--dim", "2", "--rel-tol", "1e-6"]),
    ("ai", "aiyagari", ["aiyagari", "--income-states", "3", "--asset-points", "40", "--asset-max", "60",
                        "--tol", "1e-5", "--policy-tol", "1e-7", "--distribution-tol", "1e-9"]),
]


def write_manifest(folder, model, command, report="report.json"):
    """The manifest a run writes, made here where the executable does not write one yet."""
    arrays = {f[:-4]: f for f in sorted(os.listdir(folder)) if f.endswith(".npy")}
    with open(os.path.join(folder, "manifest.json"), "w") as fh:
        json.dump({"schema": plot_common.SCHEMA, "command": command, "model": model, "arrays": arrays,
                   "report": report}, fh)


def plot(*args, script="plot"):
    cmd = ["bash", str(SCRIPTS / "plot")] if script == "plot" else [sys.executable, str(SCRIPTS / script)]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=300, env=PLOT_ENV,
                          stdin=subprocess.DEVNULL)


class Plots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.root = cls.tmp.name
        cls.dirs = {}
        for name, model, args in RUNS:
            d = os.path.join(cls.root, name)
            os.mkdir(d)
            r = run("--threads", "1", *args, "--output", d, "--json", os.path.join(d, "report.json"), "-q",
                    timeout=300)
            assert r.returncode == 0, f"{args}: {r.stdout}{r.stderr}"
            if not os.path.exists(os.path.join(d, "manifest.json")):
                write_manifest(d, model, args[0])
            cls.dirs[name] = d

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assert_png(self, path):
        self.assertTrue(os.path.isfile(path), path)
        with open(path, "rb") as fh:
            head = fh.read(24)
        self.assertEqual(head[:8], PNG_SIGNATURE, path)
        width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
        self.assertGreater(width, 300)
        self.assertGreater(height, 200)

    def assert_plotted(self, result, png):
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        self.assert_png(png)

    def assert_refused(self, result, message):
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn(message, result.stderr)
        self.assertNotIn("Traceback", result.stdout + result.stderr)

    def test_every_output_through_scripts_plot(self):
        for name, model, _ in RUNS:
            with self.subTest(name=name):
                png = os.path.join(self.root, f"all-{name}.png")
                r = plot(self.dirs[name], "-o", png)
                self.assert_plotted(r, png)
                self.assertNotIn("no manifest.json", r.stderr)

    def test_default_png_goes_into_the_folder(self):
        r = plot(self.dirs["ku"])
        self.assert_plotted(r, os.path.join(self.dirs["ku"], "kuramoto.png"))

    def test_each_script_on_its_own(self):
        cases = [("plot_dual_control.py", "dc_optimal"), ("plot_dual_control.py", "dc_inert"),
                 ("plot_sde.py", "jo_point"), ("plot_sde.py", "ku"), ("plot_krusell_smith.py", "ks"),
                 ("plot_cubature.py", "cu")]
        for script, name in cases:
            with self.subTest(script=script, name=name):
                png = os.path.join(self.root, f"own-{name}.png")
                self.assert_plotted(plot(self.dirs[name], "-o", png, script=script), png)
        # The older forms: plot_sde.py MODEL DIR [OUT.png], plot_krusell_smith.py DIR [PNG].
        png = os.path.join(self.root, "older-sde.png")
        self.assert_plotted(plot("josephson", self.dirs["jo_sweep"], png, script="plot_sde.py"), png)
        png = os.path.join(self.root, "older-ks.png")
        self.assert_plotted(plot(self.dirs["ks"], png, script="plot_krusell_smith.py"), png)
        self.assert_refused(plot("kuramoto", self.dirs["jo_sweep"], script="plot_sde.py"), "holds josephson output")
        self.assert_refused(plot(self.dirs["ks"], script="plot_dual_control.py"), "not dual_control")

    def test_only_the_manifest_arrays_are_read(self):
        # A myopic run into a folder that an optimal run on another grid used before: its
        # V_myopic and u_myopic stay behind, with shapes that fit nothing.
        d = os.path.join(self.root, "reused")
        shutil.copytree(self.dirs["dc_optimal"], d)
        os.remove(os.path.join(d, "manifest.json"))
        r = run("--threads", "1", "dual-control", "--policy", "myopic", "--grid", "8,8,4", "--output", d,
                "--json", os.path.join(d, "report.json"), "-q")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        if not os.path.exists(os.path.join(d, "manifest.json")):
            write_manifest(d, "dual_control", "dual-control")
            with open(os.path.join(d, "manifest.json")) as fh:
                m = json.load(fh)
            for stale in ("V_myopic", "u_myopic"):
                del m["arrays"][stale]
            with open(os.path.join(d, "manifest.json"), "w") as fh:
                json.dump(m, fh)
        png = os.path.join(self.root, "reused.png")
        r = plot(d, "-o", png)
        self.assert_plotted(r, png)
        self.assertIn("myopic policy", r.stdout)

    def test_run_folder_with_a_subfolder_per_model(self):
        d = os.path.join(self.root, "run")
        os.mkdir(d)
        for name in ("jo_point", "ku"):
            shutil.copytree(self.dirs[name], os.path.join(d, name))
        # -o names a file; with several outputs one file each, the model added to its stem
        r = plot(d, "-o", os.path.join(self.root, "run.png"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assert_png(os.path.join(self.root, "run-josephson.png"))
        self.assert_png(os.path.join(self.root, "run-kuramoto.png"))
        self.assertFalse(os.path.exists(os.path.join(self.root, "run.png")))
        r = plot(d)  # without -o: each PNG into its subfolder
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assert_png(os.path.join(d, "ku", "kuramoto.png"))

    def test_run_folder_draws_every_model_it_can(self):
        # A folder of `run --all`: a model no script plots (network_kuramoto, as a build with Kokkos
        # Kernels writes it) and a broken subfolder are named as skipped, with the reason; the others
        # are drawn.
        d = os.path.join(self.root, "run-all")
        os.mkdir(d)
        for name in ("dc_inert", "ku"):
            shutil.copytree(self.dirs[name], os.path.join(d, name))
        network = os.path.join(d, "network-kuramoto")
        shutil.copytree(self.dirs["ku"], network)
        with open(os.path.join(network, "manifest.json")) as fh:
            m = json.load(fh)
        m["model"] = "network_kuramoto"
        with open(os.path.join(network, "manifest.json"), "w") as fh:
            json.dump(m, fh)
        r = plot(d, "-o", os.path.join(self.root, "all.png"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assert_png(os.path.join(self.root, "all-dual_control.png"))
        self.assert_png(os.path.join(self.root, "all-kuramoto.png"))
        self.assertFalse(os.path.exists(os.path.join(self.root, "all-network_kuramoto.png")))
        self.assertIn("drew 2 of 3 outputs", r.stderr)
        self.assertIn("skipped " + network + " (no plot is drawn for network_kuramoto output", r.stderr)
        with open(os.path.join(d, "ku", "manifest.json"), "w") as fh:
            fh.write("{")
        r = plot(d)
        self.assert_refused(r, "not valid JSON")
        self.assert_png(os.path.join(d, "dc_inert", "dual_control.png"))
        self.assertIn("drew 1 of 3 outputs", r.stderr)
        self.assertIn(os.path.join(d, "ku") + " (see the error above)", r.stderr)
        # Nothing that can be drawn: exit status 2, and why.
        self.assert_refused(plot(network), "nothing to draw")

    def test_output_file_format_from_its_suffix(self):
        for suffix, signature in ((".jpg", b"\xff\xd8\xff"), (".pdf", b"%PDF"), (".svg", b"<?xml"),
                                  (".PNG", PNG_SIGNATURE)):
            with self.subTest(suffix=suffix):
                path = os.path.join(self.root, "format" + suffix)
                r = plot(self.dirs["ku"], "-o", path)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertTrue(os.path.isfile(path), path)  # a file, not a folder of that name
                with open(path, "rb") as fh:
                    self.assertEqual(fh.read(len(signature)), signature)
        # An unknown suffix, none, or a folder: refused before anything is drawn, on every script.
        for args, message in (([os.path.join(self.root, "plot.xyz")], "unknown image format '.xyz'"),
                              ([os.path.join(self.root, "plot")], "needs a suffix"),
                              ([self.root], "is a folder")):
            with self.subTest(out=args[0]):
                self.assert_refused(plot(self.dirs["ku"], "-o", *args), message)
                self.assert_refused(plot(self.dirs["ku"], "-o", *args, script="plot_sde.py"), message)
        self.assertFalse(os.path.exists(os.path.join(self.root, "plot.xyz")))
        self.assertFalse(os.path.exists(os.path.join(self.root, "plot")))

    def test_folder_without_a_manifest(self):
        d = os.path.join(self.root, "older")
        shutil.copytree(self.dirs["jo_sweep"], d)
        os.remove(os.path.join(d, "manifest.json"))
        png = os.path.join(self.root, "older.png")
        r = plot(d, "-o", png)
        self.assert_plotted(r, png)
        self.assertIn("no manifest.json", r.stderr)

    def test_missing_and_mismatched_files(self):
        self.assert_refused(plot(os.path.join(self.root, "nowhere")), "no such folder")
        self.assert_refused(plot(os.path.join(self.root, "nowhere"), script="plot_sde.py"), "no such folder")
        self.assert_refused(plot(os.path.join(self.dirs["ku"], "report.json")), "is not a folder")
        empty = os.path.join(self.root, "empty")
        os.mkdir(empty)
        self.assert_refused(plot(empty), "no manifest.json and no Parity arrays")

        def broken(name, edit):
            d = os.path.join(self.root, name)
            shutil.copytree(self.dirs["jo_sweep"], d)
            with open(os.path.join(d, "manifest.json")) as fh:
                m = json.load(fh)
            edit(d, m)
            with open(os.path.join(d, "manifest.json"), "w") as fh:
                json.dump(m, fh)
            return d

        d = broken("schema", lambda d, m: m.update(schema="parity.output/9"))
        self.assert_refused(plot(d), "schema")
        # The other defects in one call (each folder reported on its own line, exit status 2).
        folders, messages = [], []
        for name, edit, message in [
                ("model", lambda d, m: m.update(model="heat"), "names model 'heat'"),
                ("gone", lambda d, m: os.remove(os.path.join(d, "histogram.npy")), "not there: histogram.npy"),
                # Arrays of another run listed as this one's: the shapes disagree.
                ("mixed", lambda d, m: shutil.copy(os.path.join(self.dirs["jo_map"], "mean_velocity.npy"), d),
                 "has shape (5,), expected (3, 4)"),
                ("wrong-model", lambda d, m: m.update(model="kuramoto"), "no array 'r'"),
                ("outside", lambda d, m: m["arrays"].update(t="../ku/t.npy"), "points outside the folder")]:
            folders.append(broken(name, edit))
            messages.append(message)
        d = broken("not-json", lambda d, m: None)
        with open(os.path.join(d, "manifest.json"), "w") as fh:
            fh.write("{")
        folders.append(d)
        messages.append("not valid JSON")
        d = broken("not-npy", lambda d, m: None)
        with open(os.path.join(d, "x_bins.npy"), "w") as fh:
            fh.write("not an array")
        folders.append(d)
        messages.append("x_bins.npy is not a readable .npy file")
        r = plot(*folders, "-o", os.path.join(self.root, "broken.png"))
        for message in messages:
            self.assert_refused(r, message)
        self.assertEqual(r.stderr.count("error:"), len(folders), r.stderr)
        # One bad folder among good ones: the good ones are still plotted, the status is 2.
        out = os.path.join(self.root, "partly.png")
        r = plot(self.dirs["ku"], d, "-o", out)
        self.assert_refused(r, "x_bins.npy")
        self.assert_png(os.path.join(self.root, "partly-kuramoto.png"))
        self.assert_refused(plot(self.dirs["ku"], "-o", os.path.join(self.root, "no", "such", "x.png")),
                            "does not exist")

    def test_python_without_the_packages(self):
        # python3 -S does not see the system's site packages: the script hands itself over to
        # scripts/plot, which finds a python3 that has them.
        png = os.path.join(self.root, "handed-over.png")
        r = subprocess.run([sys.executable, "-S", str(SCRIPTS / "plot_sde.py"), self.dirs["ku"], "-o", png],
                           capture_output=True, text=True, timeout=300, env=PLOT_ENV, stdin=subprocess.DEVNULL)
        self.assert_plotted(r, png)
        # Where scripts/plot already chose the interpreter, a missing package is an error.
        r = subprocess.run([sys.executable, "-S", str(SCRIPTS / "plot_sde.py"), self.dirs["ku"]], capture_output=True,
                           text=True, timeout=300, env=dict(PLOT_ENV, PARITY_PLOT_INNER="1"), stdin=subprocess.DEVNULL)
        self.assert_refused(r, "is not installed")

    def test_kuramoto_r_infinity_agrees_with_the_executable(self):
        # The plot solves r = I1(K r / D) / I0(K r / D) by bisection on a quadrature of the Bessel
        # functions; the executable by fixed-point iteration on std::cyl_bessel_i.
        import plot_sde

        with open(os.path.join(self.dirs["ku"], "report.json")) as fh:
            doc = json.load(fh)
        K, D = doc["parameters"]["K"], doc["parameters"]["D"]
        self.assertAlmostEqual(plot_sde.kuramoto_r_infinity(K, D), doc["results"]["r_theory"], delta=1e-9)
        for k, d in ((4.0, 1.0), (2.5, 1.0), (30.0, 2.0)):
            r = run("--threads", "1", "kuramoto", "-N", "64", "--steps", "1", "--sample-every", "1", "-K", str(k),
                    "-D", str(d), "-q", "--json", os.path.join(self.root, "ku-theory.json"))
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(os.path.join(self.root, "ku-theory.json")) as fh:
                expected = json.load(fh)["results"]["r_theory"]
            self.assertAlmostEqual(plot_sde.kuramoto_r_infinity(k, d), expected, delta=1e-9)
        self.assertEqual(plot_sde.kuramoto_r_infinity(2.0, 1.0), 0.0)  # the threshold K = 2 D

    def test_inert_closed_form_agrees_with_the_executable(self):
        import numpy as np
        import plot_dual_control

        out, = plot_common.find_outputs(self.dirs["dc_inert"])
        out.report_file = "report.json"  # the --json of the run, whatever the manifest recorded
        x = out.load("x")
        cf = out.report()["results"]["inert_closed_form"]
        np.testing.assert_allclose(plot_dual_control.inert_closed_form(out, x),
                                   cf["a"] + cf["b"] * x + cf["c"] * x * x, rtol=1e-12)


if __name__ == "__main__":
    unittest.main()
