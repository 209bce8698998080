"""Shared by the plot scripts: finding the Python packages, reading an output folder through its
manifest, and turning every problem with the files into one clear message (exit status 2).

An output folder written by `--output DIR` holds DIR/manifest.json:
    {"schema": "parity.output/1", "command": ..., "model": ..., "arrays": {"V": "V.npy", ...},
     "report": "<report file, relative to DIR, or null>"}
Only the arrays it lists are read, so files left in the folder by an earlier run are never mixed
in. Folders from before the manifest are read by file name, with a warning.

Only the standard library is imported at module level: `require_packages` must be able to say
what is missing (or hand the work to scripts/plot) before numpy is touched.
"""
import json
import os
import sys
import warnings

SCHEMA = "parity.output/1"
MODELS = ("dual_control", "krusell_smith", "aiyagari", "josephson", "kuramoto", "cubature")
# Parity's models that no script plots: scripts/plot names their folders as skipped and goes on.
NOT_PLOTTED = {
    "network_kuramoto": "no plot is drawn for network_kuramoto output (read its .npy arrays with numpy.load)",
}
EXIT_BAD_INPUT = 2

# The array that marks each model's folder when there is no manifest (older runs).
_SIGNATURES = (("dual_control", "V.npy"), ("krusell_smith", "policy.npy"), ("josephson", "mean_velocity.npy"),
               ("kuramoto", "r.npy"))

SCRIPTS = os.path.dirname(os.path.abspath(__file__))


class PlotError(Exception):
    """A problem with the user's files or arguments: reported in one line, exit status 2."""


def program():
    name = os.path.basename(sys.argv[0])
    return "scripts/plot" if name == "plot_output.py" else name


def warn(message):
    print(f"{program()}: warning: {message}", file=sys.stderr)


def error(message):
    print(f"{program()}: error: {message}", file=sys.stderr)


def fail(message):
    error(message)
    sys.exit(EXIT_BAD_INPUT)


def require_packages(script):
    """Imports numpy and matplotlib (Agg). Where they are missing, runs `script` again through
    scripts/plot, which finds an interpreter that has them (the build environment); inside that
    one (PARITY_PLOT_INNER set) a missing package is an error."""
    try:
        import matplotlib
        import numpy  # noqa: F401
    except ImportError as e:
        launcher = os.path.join(SCRIPTS, "plot")
        if not os.environ.get("PARITY_PLOT_INNER") and os.access(launcher, os.X_OK):
            sys.stdout.flush()
            os.execv("/bin/bash", ["bash", launcher, "--script", os.path.basename(script), *sys.argv[1:]])
        fail(f"{e.name} is not installed for {sys.executable}: install python3-numpy and python3-matplotlib, "
             f"or run the plots with scripts/plot (it uses the build environment)")
    matplotlib.use("Agg")
    # Non-finite values are reported once per array by Output.load; numpy's own warnings about
    # them (all-NaN slices, invalid comparisons) would only repeat that with a source line.
    warnings.filterwarnings("ignore", category=RuntimeWarning)


class Output:
    """One output folder: its model, the arrays it owns and, where recorded, its report."""

    def __init__(self, name, path, model, arrays, report_file, manifest):
        self.name = name  # as the user typed it (plus a subfolder), for messages
        self.path = path
        self.model = model
        self.arrays = arrays  # name -> file name, relative to the folder
        self.report_file = report_file
        self.has_manifest = manifest
        self._report = None

    def has(self, name):
        return name in self.arrays

    def load(self, name):
        import numpy as np

        if name not in self.arrays:
            listed = ", ".join(sorted(self.arrays)) or "none"
            raise PlotError(f"{self.name}: the {self.model} output has no array '{name}' (arrays: {listed})")
        f = os.path.join(self.path, self.arrays[name])
        try:
            with open(f, "rb") as fh:
                if fh.read(6) != b"\x93NUMPY":
                    raise PlotError(f"{self.name}: {self.arrays[name]} is not a readable .npy file (no NumPy header)")
            a = np.load(f, allow_pickle=False)
        except FileNotFoundError:
            raise PlotError(f"{self.name}: {self.arrays[name]} is listed in manifest.json but missing") from None
        except (ValueError, OSError, EOFError) as e:
            raise PlotError(f"{self.name}: {self.arrays[name]} is not a readable .npy file ({e})") from None
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            bad = a.size - int(np.isfinite(a).sum())
            warn(f"{self.name}: {self.arrays[name]} holds {bad} non-finite value(s) of {a.size} (see the run's "
                 "status); they are left out of the plot")
        return a

    def report(self):
        """The run report (a dict) or None; a `run` report with several models gives this one's."""
        if self._report is None and self.report_file:
            # The report's name relative to the folder; else as typed with --json, from where the
            # user runs the plots.
            f = self.report_file
            f = f if os.path.isabs(f) else os.path.join(self.path, f)
            if not os.path.isfile(f):
                f = self.report_file
            try:
                with open(f) as fh:
                    doc = json.load(fh)
            except (OSError, ValueError) as e:
                warn(f"{self.name}: cannot read the report {self.report_file} ({e}); plotting without it")
                self.report_file = None
                return None

            def mine(d):  # reports spell models as commands (dual-control), manifests as identifiers
                return isinstance(d, dict) and str(d.get("model", "")).replace("-", "_") == self.model

            if isinstance(doc, dict) and isinstance(doc.get("runs"), list):
                doc = next((r for r in doc["runs"] if mine(r)), None)
            if not mine(doc):
                warn(f"{self.name}: the report {self.report_file} is not of this {self.model} run; plotting without it")
                self.report_file = None
                return None
            self._report = doc
        return self._report

    def parameter(self, key, default=None):
        r = self.report()
        p = r.get("parameters") if r else None
        return p.get(key, default) if isinstance(p, dict) else default


def read_manifest(name, path):
    f = os.path.join(path, "manifest.json")
    try:
        with open(f) as fh:
            m = json.load(fh)
    except ValueError as e:
        raise PlotError(f"{name}/manifest.json is not valid JSON ({e})") from None
    except OSError as e:
        raise PlotError(f"cannot read {name}/manifest.json ({e.strerror})") from None
    if not isinstance(m, dict) or m.get("schema") != SCHEMA:
        found = m.get("schema") if isinstance(m, dict) else type(m).__name__
        raise PlotError(f"{name}/manifest.json has schema {found!r}; this script reads {SCHEMA!r}")
    model = m.get("model")
    if model not in MODELS and model not in NOT_PLOTTED:
        raise PlotError(f"{name}/manifest.json names model {model!r}; known models: {', '.join(MODELS)}")
    arrays = m.get("arrays")
    if not isinstance(arrays, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in arrays.items()):
        raise PlotError(f"{name}/manifest.json: 'arrays' must map array names to .npy file names")
    for k, v in arrays.items():
        if os.path.isabs(v) or ".." in v.split("/"):
            raise PlotError(f"{name}/manifest.json: array '{k}' points outside the folder ({v})")
    missing = [v for v in arrays.values() if not os.path.isfile(os.path.join(path, v))]
    if missing:
        raise PlotError(f"{name}: manifest.json lists files that are not there: {', '.join(sorted(missing))} "
                        "(was the folder changed after the run?)")
    report = m.get("report")
    if report is not None and not isinstance(report, str):
        raise PlotError(f"{name}/manifest.json: 'report' must be a file name or null")
    return Output(name, path, model, arrays, report, True)


def guess_output(name, path, model=None):
    """An output folder without a manifest: the model from its arrays (else the caller's), every
    .npy file in it taken as an array."""
    files = sorted(f for f in os.listdir(path) if f.endswith(".npy") and os.path.isfile(os.path.join(path, f)))
    found = next((m for m, marker in _SIGNATURES if marker in files), None)
    if found is None and any(f.endswith("phase1_integral.npy") for f in files):
        found = "cubature"
    model = found or model  # the arrays win over the caller's guess, which is then reported as wrong
    if model is None:
        raise PlotError(f"{name} holds no manifest.json and no Parity arrays: is it the --output folder of a run?")
    warn(f"{name} has no manifest.json (written before Parity recorded one): reading its {model} arrays by "
         "file name; files left there by an earlier run may be mixed in")
    report = "report.json" if os.path.isfile(os.path.join(path, "report.json")) else None
    return Output(name, path, model, {f[:-4]: f for f in files}, report, False)


def scan_outputs(name, model=None):
    """The outputs in a folder and the problems found, each subfolder on its own: the folder
    itself if it has a manifest (or, without one, arrays), otherwise each subfolder with a manifest
    (`run --all --output D`). Returns (outputs, [(subfolder, message)]); raises PlotError when the
    folder itself is missing or unreadable."""
    path = name
    if not os.path.exists(path):
        raise PlotError(f"{name}: no such folder")
    if not os.path.isdir(path):
        raise PlotError(f"{name} is not a folder (give the --output folder of a run)")
    if os.path.isfile(os.path.join(path, "manifest.json")):
        return [read_manifest(name, path)], []
    subs = sorted(d for d in os.listdir(path) if os.path.isfile(os.path.join(path, d, "manifest.json")))
    if not subs:
        return [guess_output(name, path, model)], []
    outputs, problems = [], []
    for d in subs:
        try:
            outputs.append(read_manifest(os.path.join(name, d), os.path.join(path, d)))
        except PlotError as e:
            problems.append((os.path.join(name, d), str(e)))
    return outputs, problems


def find_outputs(name, model=None):
    """The outputs in a folder, as scan_outputs finds them; the first problem is an error."""
    outputs, problems = scan_outputs(name, model)
    if problems:
        raise PlotError(problems[0][1])
    return outputs


def expect_model(out, model):
    if out.model != model:
        raise PlotError(f"{out.name} holds {out.model} output, not {model}: use scripts/plot {out.name}")


def expect_shape(out, name, array, shape):
    if tuple(array.shape) != tuple(shape):
        raise PlotError(f"{out.name}: {out.arrays.get(name, name)} has shape {tuple(array.shape)}, expected "
                        f"{tuple(shape)} from the other arrays (files from different runs?)")


def image_formats():
    """The file suffixes matplotlib writes (png, pdf, svg, jpg, ...), without the dot."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    return sorted(FigureCanvasAgg.get_supported_filetypes())


def check_figure_file(arg):
    """Refuses an -o that does not name a file matplotlib can write (before anything is plotted):
    a folder, a name without a suffix, an unknown suffix, a folder that does not exist."""
    if arg is None:
        return
    formats = image_formats()
    known = ", ".join(formats)
    if os.path.isdir(arg):
        raise PlotError(f"-o {arg} is a folder: -o names the file to write, e.g. {os.path.join(arg, 'plot.png')}")
    suffix = os.path.splitext(arg)[1][1:]
    if not suffix:
        raise PlotError(f"-o {arg}: the file needs a suffix that names its format ({known})")
    if suffix.lower() not in formats:
        raise PlotError(f"-o {arg}: unknown image format '.{suffix}' (matplotlib writes {known})")
    parent = os.path.dirname(arg)
    if parent and not os.path.isdir(parent):
        raise PlotError(f"-o {arg}: the folder {parent} does not exist")


def figure_target(arg, out, name, tag=None):
    """Where to write a figure: without -o, NAME.png in the output folder; with -o FILE.EXT, that
    file, or FILE-TAG.EXT when one -o serves several outputs (tag: the model, or the folder and the
    model). Returns the path to write and the path to show."""
    if arg is None:
        return os.path.join(out.path, name + ".png"), os.path.join(out.name, name + ".png")
    if tag is None:
        return arg, arg
    stem, ext = os.path.splitext(arg)
    path = f"{stem}-{tag}{ext}"
    return path, path


def run_main(main):
    """Runs a script's main: a PlotError becomes one line on stderr and exit status 2."""
    try:
        main()
    except PlotError as e:
        fail(str(e))
