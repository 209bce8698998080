"""Januszewski & Kostur (2010), Table 1, the run times and rates of Figures 2, 4 and 5 and of
Sections 6-8, and Figures 2, 4 and 5 redrawn, with `josephson` (PROG1: SRK2 per path) and
`kuramoto` (PROG3: mean field; PROG2: all pairs; Euler as the paper's).

The paper's speed-up is one CPU core against a GPU it saturates. Each program runs on the
accelerator over a ladder of sizes (the saturation curve of Fig. 5) and on every host backend once,
at the ladder's largest size for as few steps as a sample needs: a step's cost does not depend on
the run's length, so the one-core rate (steps per second) stands for the whole run, and the Fig. 2
CPU time is that rate scaled to Fig. 2's 1.05e11 steps."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from . import common

PAPER = "januszewski-kostur"
ROOT = Path(__file__).resolve().parents[2]
FIG2_SCRIPT = ROOT / "perf" / "figures" / "josephson_fig2.sh"
PLOT_SDE = ROOT / "scripts" / "plot_sde.py"
PRECISIONS = ("float", "double")
STEPS_PER_PERIOD = 100
# Per program: the accelerator's ladder of sizes and its steps (Josephson: 200 periods, as
# perf/suites/sde.json), the hosts' size and steps (full run, --quick).
PROGRAMS = {
    "josephson": {"label": "PROG1 (Josephson, SRK2)", "size_option": "--paths", "precisions": PRECISIONS,
                  "ladder": ((2**10, 2**13, 2**16, 2**19, 2**21), 20000), "host": (2**21, 100),
                  "quick_ladder": ((2**8, 2**10, 2**12), 200), "quick_host": (2**12, 100)},
    "kuramoto-mean-field": {"label": "PROG3 (Kuramoto mean field, Euler)", "size_option": "-N", "precisions": ("float",),
                            "ladder": ((2**12, 2**15, 2**18, 2**21, 2**24), 2000), "host": (2**24, 10),
                            "quick_ladder": ((2**10, 2**12, 2**14), 20), "quick_host": (2**14, 10)},
    "kuramoto-all-pairs": {"label": "PROG2 (Kuramoto all pairs, Euler)", "size_option": "-N", "precisions": ("float",),
                           "ladder": ((2**10, 2**12, 2**14, 2**16), 20), "host": (2**16, 1),
                           "quick_ladder": ((2**8, 2**10), 4), "quick_host": (2**10, 1)},
}
FIG2_PATHS, FIG2_PERIODS = 2**19, 2000
# The <<v>>(a) sweep the script draws beside Fig. 2: 100 values of a x 2^13 paths (its default).
SWEEP_PATHS = 2**13
QUICK_FIG2_PATHS, QUICK_FIG2_PERIODS = 64, 50
FIG4_N, FIG4_STEPS = 2**24, 2000
QUICK_FIG4_N, QUICK_FIG4_STEPS = 2**12, 200
# Estimates: one core's steps per second (the development host: Josephson SRK2 1.6e7 paths x steps,
# Kuramoto mean field 8e6 oscillator steps, all pairs 5e8 pair terms) and an H200's (docs/models/sde.md:
# Josephson 2.2e11 float and 1e11 double, mean field 2^24 in 211 us a step, all pairs taken at 1e12 pairs).
CORE_RATE = {"josephson": 1.6e7, "kuramoto-mean-field": 8e6, "kuramoto-all-pairs": 5e8}
DEVICE_RATE = {"josephson": 1e11, "kuramoto-mean-field": 8e10, "kuramoto-all-pairs": 1e12}
PLOT_S = 5.0
BASIS = ("one core's steps per second over the threads (parallel efficiency 0.7), an H200's rates for the device, "
         "plus each run's start-up; the runs taken cheapest first while they fit the whole-run budget")


def _work(program: str, size: int, steps: int) -> float:
    """Units of CORE_RATE in a run: paths x steps, oscillator steps, or pair terms."""
    return size * size * steps if program == "kuramoto-all-pairs" else size * steps


def _args(program: str, size: int, steps: int, precision: str) -> list[str]:
    if program == "josephson":
        periods = max(1, steps // STEPS_PER_PERIOD)
        return ["--paths", str(size), "--periods", str(periods), "--transient", str(periods // 10),
                "--precision", precision]
    coupling = "mean-field" if program == "kuramoto-mean-field" else "all-pairs"
    return ["-N", str(size), "--steps", str(steps), "--sample-every", str(min(steps, 10)), "--stepper", "euler",
            "--coupling", coupling, "--precision", precision]


def case_name(program: str, size: int, precision: str, kind: str) -> str:
    """kind: ladder (the accelerator's saturation curve), host (the host backends' short run), fig4."""
    return f"{program}-{size}-{precision}-{kind}"


def sizes(program: str, quick: bool):
    p = PROGRAMS[program]
    ladder, steps = p["quick_ladder"] if quick else p["ladder"]
    host = p["quick_host"] if quick else p["host"]
    return ladder, steps, host


def fig2_size(quick: bool) -> tuple[int, int]:
    return (QUICK_FIG2_PATHS, QUICK_FIG2_PERIODS) if quick else (FIG2_PATHS, FIG2_PERIODS)


def plan(backends: list[str], quick: bool, budget: float) -> list[dict]:
    """One suite, one run per case: each program's ladder on the accelerator, its host case on the
    host backends and the Fig. 4 run on the accelerator, cheapest first within the budget."""
    acc = common.accelerator(backends)
    hosts = [b for b in backends if common.threads_of(b)]
    cases, runs = [], []
    for program, p in PROGRAMS.items():
        command = "josephson" if program == "josephson" else "kuramoto"
        ladder, steps, (host_size, host_steps) = sizes(program, quick)
        for precision in p["precisions"]:
            for size in ladder:
                name = case_name(program, size, precision, "ladder")
                skip = {b: f"the saturation ladder runs on {acc} only; the hosts run "
                           f"{case_name(program, host_size, precision, 'host')}" for b in backends if b != acc}
                cases.append({"name": name, "command": command, "args": _args(program, size, steps, precision),
                              "size": size, "skip": skip})
                if acc:
                    runs.append((name, acc, _seconds(program, acc, _work(program, size, steps), precision)))
            name = case_name(program, host_size, precision, "host")
            skip = {b: f"the ladder measures {acc} at this size with more steps" for b in backends
                    if b not in hosts}
            cases.append({"name": name, "command": command, "args": _args(program, host_size, host_steps, precision),
                          "size": host_size, "skip": skip})
            runs += [(name, b, _seconds(program, b, _work(program, host_size, host_steps), precision)) for b in hosts]
    cost = common.apply_budget(cases, runs, budget, quick)
    return [{"name": "januszewski-kostur", "model": "josephson", "repetitions": 1, "warmup": 0,
             "compare": [], "columns": ["results.steps_per_second", "results.flops_per_step"],
             "cases": common.order_by_cost(cases, cost)}]


def _seconds(program: str, backend: str, work: float, precision: str) -> float:
    slower = 2.0 if precision == "double" else 1.0
    return common.run_seconds(backend, work / CORE_RATE[program] * slower,
                              work / DEVICE_RATE[program] * slower)


def extras_seconds(backends: list[str], quick: bool, budget: float = float("inf"), earlier=None) -> float:
    """The Fig. 2 script (per precision: Fig. 2's run and the <<v>>(a) sweep of 100 x 2^13 paths,
    each plotted) and the Fig. 4 run, on the accelerator."""
    acc = common.accelerator(backends)
    if acc is None:
        return 0.0
    paths, periods = fig2_size(quick)
    steps = periods * STEPS_PER_PERIOD
    sweep_paths = 100 * (paths if quick else SWEEP_PATHS)
    total = 0.0
    for precision in PRECISIONS:
        total += _seconds("josephson", acc, (paths + sweep_paths) * steps, precision) + common.START_S["device"] + 2 * PLOT_S
    n, k = (QUICK_FIG4_N, QUICK_FIG4_STEPS) if quick else (FIG4_N, FIG4_STEPS)
    return total + _seconds("kuramoto-mean-field", acc, n * k, "float") + PLOT_S


def run_extras(exes: list[dict], quick: bool, out: Path, budget: float, timeout: float, until=None,
               doc: dict | None = None, reserve: float | None = None, earlier: dict | None = None) -> dict:
    """On the accelerator: perf/figures/josephson_fig2.sh at Fig. 2's size (its reports time the
    Fig. 2 cells) and the Fig. 4 run with --output, each drawn."""
    names = [e["name"] for e in exes]
    acc = common.accelerator(names)
    extras = {"accelerator": acc, "fig2": {}, "fig4": None}
    if acc is None:
        return extras
    exe = next(e for e in exes if e["name"] == acc)
    paths, periods = fig2_size(quick)
    for precision in PRECISIONS:
        folder = out / "fig2"
        left = common.seconds_left(until, timeout)
        if left < 1.0:
            extras["fig2"][precision] = {"error": "not run: the --budget had ended"}
            continue
        cmd = ["bash", str(FIG2_SCRIPT), exe["path"], str(folder), str(paths), str(periods), precision]
        env = dict(os.environ, **common.runner.HOST_ENV, PLOT_SDE=str(PLOT_SDE),
                   SWEEP_PATHS=str(paths if quick else SWEEP_PATHS))
        if exe.get("threads"):
            env["OMP_NUM_THREADS"] = str(exe["threads"])
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=left, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            extras["fig2"][precision] = {"error": f"killed after {common.fmt_seconds(left)} (the --budget or --timeout)"}
            continue
        report = folder / precision / "report.json"
        if proc.returncode != 0 or not report.exists():
            extras["fig2"][precision] = {"error": f"exited {proc.returncode}: {proc.stderr.strip()[-300:]}"}
            continue
        doc = json.loads(report.read_text())
        entry = {"seconds": doc["timing"]["total_seconds"], "steps_total": doc["results"].get("steps_total"),
                 "device_peak_bytes": doc.get("memory", {}).get("device_peak_bytes"),
                 "density_bytes": _size(folder / precision / "density.npy"), "pngs": {}}
        for tag, sub in (("figure", precision), ("sweep", f"{precision}-sweep")):
            png = folder / sub / "josephson.png"
            if png.exists():
                entry["pngs"][tag] = str(png)
        extras["fig2"][precision] = entry
    n, k = (QUICK_FIG4_N, QUICK_FIG4_STEPS) if quick else (FIG4_N, FIG4_STEPS)
    run = common.run_model(exe, ["kuramoto", "-N", str(n), "--steps", str(k), "--stepper", "euler", "--precision",
                                 "float"], out / "fig4", common.seconds_left(until, timeout))
    fig4 = {k2: v for k2, v in run.items() if k2 != "report"}
    if "report" in run:
        fig4["seconds"] = run["report"]["timing"]["total_seconds"]
        png = out / "fig4" / "kuramoto.png"
        try:
            subprocess.run(["python3", str(PLOT_SDE), "kuramoto", run["arrays"], str(png)], capture_output=True,
                           timeout=max(1.0, common.seconds_left(until, 120)), check=True)
            fig4["png"] = str(png)
        except (subprocess.SubprocessError, OSError) as e:
            fig4["plot_error"] = str(e)[-200:]
    extras["fig4"] = fig4
    return extras


def _size(path: Path):
    return path.stat().st_size if path.exists() else None


# ---------------------------------------------------------------------------------------------
# The page

def paper_flops(program: str, size: int) -> int:
    """The paper's FLOPs per step (Table 1, Fig. 5's caption): 79 per path step of PROG1, 66 per
    oscillator step of PROG3, 44 + 6N of PROG2."""
    return {"josephson": 79, "kuramoto-mean-field": 66, "kuramoto-all-pairs": 44 + 6 * size}[program]


def _rate(doc, program, size, precision, kind, backend, key="steps_per_second"):
    """A run's steps per second, its own flops_per_step, or (key 'gflops') steps per second times
    the paper's FLOPs per step: (value, None) or (None, reason)."""
    s, why = common.measured(doc, case_name(program, size, precision, kind), backend)
    if s is None:
        return None, why
    results = s.get("results", {})
    v = results.get("steps_per_second" if key == "gflops" else key)
    if v is None:
        return None, f"the report has no {key}"
    return (v * paper_flops(program, size) / 1e9 if key == "gflops" else v), None


def saturated(doc, program, precision, acc, quick, key="steps_per_second"):
    """(value, size, None): the accelerator's largest rate over the ladder, or (None, None, reason)."""
    ladder, _, _ = sizes(program, quick)
    best, at, reasons = None, None, []
    for size in ladder:
        v, why = _rate(doc, program, size, precision, "ladder", acc, key)
        if v is None:
            reasons.append(why)
        elif best is None or v > best:
            best, at = v, size
    return (best, at, None) if best is not None else (None, None, "; ".join(dict.fromkeys(reasons)))


def host_rate(doc, program, precision, backend, quick):
    _, _, (size, _) = sizes(program, quick)
    return _rate(doc, program, size, precision, "host", backend)


def speedup(doc, program, precision, cpu, acc, quick):
    if cpu is None or acc is None:
        return (f"{cpu or 'one core'}/{acc or 'accelerator'}", None,
                "needs a one-core backend (serial or openmp-1) and an accelerator")
    g, at, why_g = saturated(doc, program, precision, acc, quick)
    c, why_c = host_rate(doc, program, precision, cpu, quick)
    _, _, (size, _) = sizes(program, quick)
    label = f"{acc} at its best ({at:,}) over {cpu} at {size:,}, per step" if at else f"{acc}/{cpu}"
    if g is None or c is None:
        return label, None, why_g or why_c
    return label, g / c, None


def _fig2_cpu_seconds(doc, precision, backend, quick):
    """One backend's Fig. 2 time: its host run's seconds per step times Fig. 2's steps."""
    rate, why = host_rate(doc, "josephson", precision, backend, quick)
    paths, periods = fig2_size(quick)
    if rate is None:
        return None, why
    return paths * periods * STEPS_PER_PERIOD / rate, None


def _values(cell, doc, extras, cpu, acc, hosts, quick):
    q, precision = cell["quantity"], cell.get("precision", "float")
    program = cell.get("program")
    if cell["table"] == "1":
        if q != "flops_per_step":
            return [("Parity", None, "the paper's count of its own CUDA kernel; Parity's kernel is another program, "
                                     "counted under one stated convention in the TOTAL row")]
        out = []
        for precision in PRECISIONS:
            ladder, _, _ = sizes("josephson", quick)
            who = acc or cpu
            v, why = _rate(doc, "josephson", ladder[-1], precision, "ladder", who, "flops_per_step") if who else (
                None, "no backend")
            out.append((f"Parity's own count ({precision}, report flops_per_step)", v, why))
        return out
    if q == "fig2_time":
        f2 = extras.get("fig2", {}).get(precision)
        if acc is None or f2 is None:
            return [(acc or "—", None, "no Fig. 2 run (no accelerator)")]
        if "error" in f2:
            return [(acc, None, f2["error"])]
        return [(f"{acc}, {f2['steps_total']:.3g} steps (fenced phases)", f2["seconds"], None)]
    if q == "fig2_cpu_time":
        out = []
        for b in hosts:
            for p in PRECISIONS:
                v, why = _fig2_cpu_seconds(doc, p, b, quick)
                out.append((f"{b} {p} (scaled per step)", v, why))
        return out or [("—", None, "no host backend in this run")]
    if q == "fig2_speedup":
        f2 = extras.get("fig2", {}).get("float")
        c, why = _fig2_cpu_seconds(doc, "float", cpu, quick) if cpu else (None, "no one-core backend in this run")
        if f2 is None or "error" in f2:
            return [(f"{cpu}/{acc}", None, (f2 or {}).get("error", "no Fig. 2 run (no accelerator)"))]
        if c is None:
            return [(f"{cpu}/{acc}", None, why)]
        return [(f"{cpu} (scaled per step) / {acc}", c / f2["seconds"], None)]
    if q == "fig2_file":
        f2 = extras.get("fig2", {}).get("float") or {}
        size = f2.get("density_bytes")
        extra = f" (this run's density.npy: {size / 2**20:.3g} MiB)" if size else ""
        return [("Parity", None, "Parity writes no per-path positions: the density over time is histogrammed on the "
                                 "device at every sample" + extra)]
    if q == "fig4_time":
        f4 = extras.get("fig4")
        if acc is None or f4 is None:
            return [(acc or "—", None, "no Fig. 4 run (no accelerator)")]
        if "error" in f4:
            return [(acc, None, f4["error"])]
        n, k = (QUICK_FIG4_N, QUICK_FIG4_STEPS) if quick else (FIG4_N, FIG4_STEPS)
        return [(f"{acc}, N = {n:,}, {k:,} Euler steps (fenced phases)", f4["seconds"], None)]
    if q == "gflops":
        v, at, why = saturated(doc, program, precision, acc, quick, "gflops") if acc else (
            None, None, "no accelerator in this run")
        return [(f"{acc} at {at:,}" if at else (acc or "—"), v, why)]
    if q == "speedup":
        out = [speedup(doc, program, precision, cpu, acc, quick)]
        if program == "kuramoto-mean-field":
            label, v, why = speedup(doc, "kuramoto-all-pairs", precision, cpu, acc, quick)
            out.append(("PROG2 all pairs: " + label, v, why))
        return out
    if q in ("steps_per_second", "gflops_at_paper_size"):
        size = FIG2_PATHS if not quick else sizes("josephson", True)[0][-1]
        key = "steps_per_second" if q == "steps_per_second" else "gflops"
        v, why = _rate(doc, "josephson", size, precision, "ladder", acc, key) if acc else (
            None, "no accelerator in this run")
        return [(f"{acc} at {size:,} paths", v, why)]
    raise KeyError(q)


def page(paper: dict, doc: dict, extras: dict, out: Path, quick: bool) -> str:
    backends = list(doc.get("backends", {}))
    cpu = common.cpu_reference(backends)
    acc = common.page_accelerator(backends, extras)
    hosts = [b for b in ("serial", "openmp-1", "openmp-2", "openmp-4") if b in backends]
    hosts += [b for b in backends if b.startswith("openmp-") and b not in hosts]
    budget = extras.get("budget_s")
    paths, periods = fig2_size(quick)
    lines = [f"# Reproducing {paper['paper']}", "",
             f"Models `josephson` (Eq. 1, the paper's Fig. 2 parameters) and `kuramoto` (Eq. 2, K = 4, D = 1, "
             f"omega_i = 0). The paper's machine: {paper['hardware']}. This run's backends:", common.backend_facts(doc), ""]
    if quick:
        lines += ["**--quick**: small ladders, host runs and figures (Fig. 2 at "
                  f"{paths} paths x {periods} periods): a test of the machinery; the numbers are not comparable with "
                  "the paper's.", ""]
    if acc and not common.is_device(acc):
        lines += [f"No device backend in this run: {acc} stands in for the paper's GPU.", ""]
    ladder_text = "; ".join(
        f"{p['label']}: {', '.join(f'{n:,}' for n in sizes(k, quick)[0])} at {sizes(k, quick)[1]} steps, hosts at "
        f"{sizes(k, quick)[2][0]:,} for {sizes(k, quick)[2][1]} step(s)" for k, p in PROGRAMS.items())
    lines += ["How the speed-up is measured: the paper's is one CPU core against the GPU where it saturates. Each "
              f"program runs on {acc} over a ladder of sizes and on every host backend once, at the ladder's largest "
              "size for as few steps as one sample needs; a step costs the same in a short run as in a long one, so "
              "the speed-up is the accelerator's best steps per second over one core's, and the CPU time of Fig. 2 "
              f"is one core's seconds per step times Fig. 2's steps ({ladder_text}).", "",
              "Deviations: Parity's kernels are its own (Philox counter-based normals by Box-Muller, not the paper's "
              "xor-shift; the Kuramoto sums exact in fixed point; all pairs by team-scratch tiles); the float runs "
              "use no fast-math flags; GFLOPS are steps per second times the paper's own counts (79, 66, 44 + 6N), "
              "Parity's count of its kernel is in Table 1's TOTAL row. Kuramoto runs Euler as the paper's PROG2 "
              "(PROG3's scheme is not stated). Times are the fenced phases of one run. "
              + (f"Whole-run budget {common.fmt_seconds(budget)} (--budget): " if budget else "No budget: ")
              + "estimated times: " + BASIS + ". See docs/reproducing.md.", ""]
    for table, meta in paper["tables"].items():
        head = f"Table {table}" if table[0].isdigit() else table
        lines += [f"## {head}: {meta['title']}", "", meta["note"], "", common.TABLE_HEAD]
        for cell in (c for c in paper["cells"] if c["table"] == table):
            lines.append(common.cell_line(cell, _values(cell, doc, extras, cpu, acc, hosts, quick)))
        lines.append("")
    lines += ["## Every backend's rates", "",
              "Steps per second (Josephson: paths x steps; Kuramoto: oscillator steps) and GFLOPS in the paper's "
              "count; the accelerator's at the top of its ladder.", "",
              "| program | precision | backend | size | steps/s | GFLOPS (paper's count) |", "|---|---|---|---|---|---|"]
    for program, p in PROGRAMS.items():
        for precision in p["precisions"]:
            for b in hosts + ([acc] if acc and acc not in hosts else []):
                kind = "host" if b in hosts else "ladder"
                size = sizes(program, quick)[2][0] if kind == "host" else sizes(program, quick)[0][-1]
                v, why = _rate(doc, program, size, precision, kind, b)
                g, _ = _rate(doc, program, size, precision, kind, b, "gflops")
                shown = common.fmt(v) if v is not None else f"not available ({why})"
                lines.append(f"| {p['label']} | {precision} | {b} | {size:,} | {shown} | {common.fmt(g)} |")
    lines += ["", "## Not reproduced", ""]
    lines += [f"- {k}: {v}." for k, v in paper["not_reproduced"].items()]
    lines += ["", "## Figures", ""]
    lines += _figures(paper, doc, extras, out, quick, acc, hosts)
    return "\n".join(lines) + "\n"


def _placed(source: str, out: Path, name: str) -> str | None:
    """A figure drawn under the runs folder, copied beside the page; None where it is missing."""
    if not Path(source).exists():
        return None
    target = out / name
    if Path(source).resolve() != target.resolve():
        shutil.copyfile(source, target)
    return name


def _figures(paper, doc, extras, out, quick, acc, hosts):
    lines = []
    paths, periods = fig2_size(quick)
    for precision in PRECISIONS:
        f2 = extras.get("fig2", {}).get(precision)
        if not f2 or "error" in f2:
            why = (f2 or {}).get("error", "no accelerator run")
            lines.append(f"- Figure 2 ({precision}): not drawn: {why}.")
        elif not f2["pngs"].get("figure") or not _placed(f2["pngs"]["figure"], out, f"{PAPER}-figure2-{precision}.png"):
            lines.append(f"- Figure 2 ({precision}): not drawn (matplotlib missing?); the arrays are in "
                         f"{PAPER}-runs/fig2/{precision}.")
        else:
            png = f"{PAPER}-figure2-{precision}.png"
            sweep = f2["pngs"].get("sweep") and _placed(f2["pngs"]["sweep"], out, f"{PAPER}-figure2-{precision}-sweep.png")
            lines.append(f"- Figure 2 ({paper['figures']['2']}; {precision}, {paths:,} paths x {periods:,} periods, "
                         f"perf/figures/josephson_fig2.sh on {acc}): [{png}]({png})"
                         + (f"; beside it <<v>>(a), 100 values of a in [0, 8]: [{sweep}]({sweep})" if sweep else "") + ".")
    f4 = extras.get("fig4")
    png4 = f4 and f4.get("png") and _placed(f4["png"], out, f"{PAPER}-figure4.png")
    if png4:
        lines.append(f"- Figure 4 ({paper['figures']['4']}): [{png4}]({png4}), r(t) and P(x, t) of the "
                     f"run timed in the Fig. 4 row.")
    else:
        lines.append(f"- Figure 4: not drawn: {(f4 or {}).get('error') or (f4 or {}).get('plot_error') or 'no run'}.")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return lines + ["- Figure 5: not drawn (matplotlib is missing)."]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = 0
    for program, p in PROGRAMS.items():
        ladder, _, (host_size, _) = sizes(program, quick)
        pts = [(n, v) for n in ladder for v, _ in [_rate(doc, program, n, "float", "ladder", acc, "gflops")]
               if v is not None] if acc else []
        if pts:
            ax.plot(*zip(*pts), marker="o", label=f"{p['label']}, {acc}")
            drawn += 1
        for b in hosts:
            v, _ = _rate(doc, program, host_size, "float", "host", b, "gflops")
            if v is not None:
                ax.scatter([host_size], [v], marker="x")
                ax.annotate(b, (host_size, v), fontsize=7)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("number of particles N (paths, oscillators)")
    ax.set_ylabel("GFLOPS (the paper's count), float")
    ax.grid(True, alpha=0.3)
    if drawn:
        ax.legend(fontsize=7)
        fig.savefig(out / f"{PAPER}-figure5.png", dpi=110, bbox_inches="tight")
        lines.append(f"- Figure 5 ({paper['figures']['5']}): [{PAPER}-figure5.png]({PAPER}-figure5.png): {acc}'s "
                     "ladders as lines, the host backends' runs as crosses.")
    else:
        lines.append("- Figure 5: not drawn: no ladder run in this run.")
    plt.close(fig)
    return lines
