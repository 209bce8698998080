#!/usr/bin/env python3
"""Runs benchmark suites on several Parity backends and writes a fair comparison.

    python3 perf/runner.py --suite perf/suites/<suite>.json [--suite ...]
        --exe serial=build/serial/backends/parity-serial,threads=1
        --exe openmp=build/openmp/backends/parity-openmp
        --exe cuda=build/cuda/backends/parity-cuda
        --out perf/results/<tag>
        [--peer hcubature=build/openmp/perf/peers/hcubature-peer]

For every suite case, precision and backend: `warmup` runs (excluded), then `repetitions` runs;
each run is `<exe> <model> <args> --precision P --json report.json --quiet`. The time reported is
the model's own fenced phases (`timing.total_seconds`: device work between fences, set-up outside
the phases excluded); process wall time (start-up included) is recorded beside it.

Peers (--peer NAME=PATH) are programs outside Parity that solve the same cases: a peer takes the
same command line as a Parity executable (`<model> <args> --precision P --json FILE --quiet`, and
`info --json FILE`) and writes the same report fields (timing.total_seconds, timing.phases, status,
results). A peer runs only in the suites that name it in "peers", in the precisions listed there;
it gets no roofline probe and no cross-backend differences (it is another method, not another
backend), and its time appears beside the backends' with its ratio to the reference.

Scaling over MPI ranks (--ranks 1,2,4): every backend runs each case under the launcher
(--mpirun, default `mpirun`) as `<launcher> -np N <exe> ...` at each rank count N; the first count's
runs fill the comparison tables as usual, and table.md gains a strong-scaling table per case and
backend: time (on several ranks the slowest rank's phases added up), speed-up and parallel
efficiency against the first count, and the communication
seconds (the slowest rank's time inside the collectives, from the report's `ranks` object). A run
whose report names another rank count than asked for (an executable built without MPI) fails.
Peers run without the launcher.

Writes results.json (everything, with host/device/Kokkos/commit facts, the environment and the
probe bounds), results.csv (one row per case, precision and backend), table.md (times per backend,
ratios to the reference backend, cross-backend differences of the compared outputs, roofline
fractions) and PNG plots (throughput and speedup against problem size).
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# OMP_*: pinned host threads. CUDA_MODULE_LOADING=EAGER: CUDA loads every kernel when the context is
# created (set-up, outside the timed phases) instead of at each kernel's first launch (CUDA's lazy
# default), which otherwise lands inside the timed phases of short runs (cubature f1 7-D: ~10 of
# 29 ms). Host backends ignore it.
HOST_ENV = {"OMP_PROC_BIND": "spread", "OMP_PLACES": "threads", "CUDA_MODULE_LOADING": "EAGER"}


class RunError(RuntimeError):
    pass


def parse_exe(spec: str) -> dict:
    """'name=path[,threads=N]' -> {'name', 'path', 'threads'}"""
    if "=" not in spec:
        raise argparse.ArgumentTypeError(f"--exe wants NAME=PATH[,threads=N], got '{spec}'")
    name, rest = spec.split("=", 1)
    parts = rest.split(",")
    exe = {"name": name, "path": parts[0], "threads": None}
    for p in parts[1:]:
        key, _, value = p.partition("=")
        if key != "threads" or not value.isdigit() or int(value) < 1:
            raise argparse.ArgumentTypeError(f"bad option '{p}' in --exe {spec}")
        exe["threads"] = int(value)
    if not (os.path.isfile(exe["path"]) and os.access(exe["path"], os.X_OK)):
        raise argparse.ArgumentTypeError(f"{exe['path']} is not an executable")
    return exe


def load_suite(path: str) -> dict:
    """A suite: {"name" (default: the file name), "model" (the command), "precisions", "repetitions",
    "warmup", "compare": [dotted keys of the report], "columns": [dotted keys under the report's
    results, e.g. results.evaluations: shown per backend and peer in results.csv and table.md],
    "peers": {peer name: [precisions]}, "cases": [{"name", "args", "size", "command" (overrides
    model), "skip": {backend or peer: reason} (or a list of them)}]}. A case whose args name
    --precision runs in that precision only. A skipped backend is recorded with its reason (e.g. a
    serial run that would take hours), so the table says why a cell is empty."""
    with open(path) as f:
        suite = json.load(f)
    suite.setdefault("name", Path(path).stem)
    for key in ("model", "cases"):
        if key not in suite:
            raise ValueError(f"suite {path}: missing '{key}'")
    suite.setdefault("precisions", ["double"])
    suite.setdefault("repetitions", 3)
    suite.setdefault("warmup", 1)
    suite.setdefault("compare", [])
    suite.setdefault("columns", [])
    suite.setdefault("peers", {})
    if not isinstance(suite["peers"], dict) or not all(isinstance(v, list) for v in suite["peers"].values()):
        raise ValueError(f"suite {path}: 'peers' maps a peer name to its precisions")
    for case in suite["cases"]:
        if "name" not in case or "args" not in case:
            raise ValueError(f"suite {path}: every case needs 'name' and 'args'")
        case.setdefault("size", None)
        skip = case.setdefault("skip", {})
        if isinstance(skip, list):
            case["skip"] = {b: "skipped by the suite" for b in skip}
        elif not isinstance(skip, dict):
            raise ValueError(f"suite {path}: case {case['name']}: 'skip' must map backends to reasons")
        case.setdefault("command", suite["model"])
    return suite


def case_precisions(suite: dict, case: dict) -> list[str]:
    args = case["args"]
    if "--precision" in args:
        return [args[args.index("--precision") + 1]]
    return suite["precisions"]


def case_command(case: dict, precision: str) -> list[str]:
    cmd = [case["command"], *case["args"]]
    if "--precision" not in case["args"]:
        cmd += ["--precision", precision]
    if "--quiet" not in cmd and "-q" not in cmd:
        cmd.append("--quiet")
    return cmd


def lookup(doc: dict, dotted: str):
    cur = doc
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def parse_ranks(text: str) -> list[int]:
    """'1,2,4' -> [1, 2, 4]: distinct positive rank counts, in the order given."""
    try:
        counts = [int(t) for t in text.split(",")]
    except ValueError:
        counts = []
    if not counts or any(n < 1 for n in counts) or len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"--ranks wants distinct positive rank counts such as 1,2,4, got '{text}'")
    return counts


def run_once(exe: dict, args: list[str], timeout: float, ranks: int | None = None,
             launcher: list[str] | None = None) -> tuple[dict, float]:
    """One run; with `ranks`, under `launcher -np ranks`, and the report must name that rank count."""
    env = dict(os.environ, **HOST_ENV)
    cmd = [exe["path"]]
    if exe["threads"]:
        cmd += ["--threads", str(exe["threads"])]
        env["OMP_NUM_THREADS"] = str(exe["threads"])
    with tempfile.TemporaryDirectory() as d:
        report = os.path.join(d, "report.json")
        if ranks is not None:
            cmd = [*(launcher or ["mpirun"]), "-np", str(ranks), *cmd]
        start = time.perf_counter()
        proc = subprocess.run(cmd + args + ["--json", report], capture_output=True, text=True, env=env,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        if proc.returncode not in (0, 3) or not os.path.exists(report):
            raise RunError(f"{' '.join(cmd + args)} exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
        with open(report) as f:
            doc = json.load(f)
        if ranks is not None and doc.get("ranks", {}).get("count", 1) != ranks:
            raise RunError(f"{' '.join(cmd + args)} ran on {doc.get('ranks', {}).get('count', 1)} rank(s), not {ranks} "
                           "(built without MPI, or a launcher that does not start MPI ranks?)")
        return doc, wall


def probe(exe: dict, size: str, timeout: float) -> dict:
    doc, _ = run_once(exe, ["probe", "--size", size, "--quiet"], timeout)
    return doc["results"]


def run_seconds(report: dict) -> float:
    """A run's time: on several ranks the slowest rank's phases added up (rank 0's total can be the
    shorter: it may wait less), on one rank timing.total_seconds (the same sum)."""
    ranks = report.get("ranks", {})
    count, per_rank = ranks.get("count", 1), ranks.get("phase_seconds") or {}
    if count > 1 and per_rank and all(len(v) == count for v in per_rank.values()):
        return max(sum(v[i] for v in per_rank.values()) for i in range(count))
    return report["timing"]["total_seconds"]


def summarize_runs(reports: list[dict], walls: list[float]) -> dict:
    totals = [run_seconds(r) for r in reports]
    phases = {}
    for name in reports[0]["timing"]["phases"]:
        phases[name] = statistics.median(r["timing"]["phases"][name]["seconds"] for r in reports)
    last = reports[-1]
    # The slowest rank's time inside the collectives (0 on one rank).
    comm = [max(r.get("ranks", {}).get("communication_seconds") or [0.0]) for r in reports]
    return {"median_s": statistics.median(totals), "min_s": min(totals), "max_s": max(totals),
            "ranks": last.get("ranks", {}).get("count", 1), "communication_median_s": statistics.median(comm),
            "rank_phase_seconds": last.get("ranks", {}).get("phase_seconds", {}),
            "rank_communication_seconds": last.get("ranks", {}).get("communication_seconds", []),
            "wall_median_s": statistics.median(walls), "phases_median_s": phases,
            "iterations": last.get("iterations"), "status": last.get("status"), "results": last.get("results", {}),
            "parameters": last.get("parameters", {}), "backend": last.get("backend", {}),
            "memory": last.get("memory", {}), "parity": last.get("parity", {})}


def roofline_fraction(summary: dict, bounds: dict | None, precision: str) -> dict:
    """Achieved fraction of the copy-bandwidth and FMA-rate bounds. The model states its work in
    results.work = {"bytes", "flops", "phase"}: the bytes moved and FLOPs done in that timed phase
    (all phases if none is named)."""
    if not bounds:
        return {}
    work = summary["results"].get("work") or {}
    phase = work.get("phase")
    t = summary.get("phases_median_s", {}).get(phase) if phase else summary["median_s"]
    out = {}
    if not t or t <= 0:
        return out
    if work.get("bytes"):
        out["GBps"] = work["bytes"] / t * 1e-9
        out["bandwidth_fraction"] = out["GBps"] / bounds["copy_GBps"]
    if work.get("flops"):
        peak = bounds["fp32_GFLOPs"] if precision == "float" else bounds["fp64_GFLOPs"]
        out["GFLOPs"] = work["flops"] / t * 1e-9
        out["flops_fraction"] = out["GFLOPs"] / peak
    return out


def differences(values: dict, reference: str) -> dict:
    """Max abs difference of the compared outputs against the reference backend, and the
    norm-wise relative difference: max |a - b| / max |b| over each output (so entries near zero
    do not blow up the ratio)."""
    out = {}
    ref = values.get(reference)
    if ref is None:
        return out
    for backend, vals in values.items():
        if backend == reference:
            continue
        worst_abs = worst_rel = 0.0
        for key, v in vals.items():
            pairs = [(a, b) for a, b in zip(_flat(v), _flat(ref.get(key))) if a is not None and b is not None]
            if not pairs:
                continue
            diff = max(abs(a - b) for a, b in pairs)
            scale = max(abs(b) for _, b in pairs)
            worst_abs = max(worst_abs, diff)
            worst_rel = max(worst_rel, diff / scale if scale > 0 else (0.0 if diff == 0 else float("inf")))
        out[backend] = {"max_abs": worst_abs, "max_rel": worst_rel}
    return out


def _flat(v):
    """Numbers of a JSON value in a fixed order (lists in order, objects by key)."""
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    elif isinstance(v, dict):
        for k in sorted(v):
            if k in ("status", "name", "integrand"):
                continue
            yield from _flat(v[k])
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        yield float(v)
    else:
        yield None


def build_rows(results: list[dict], reference: str) -> list[dict]:
    rows = []
    for entry in results:
        columns = entry.get("columns", [])
        ref = entry["backends"].get(reference)
        for backend, s in entry["backends"].items():
            row = {"suite": entry["suite"], "case": entry["case"], "size": entry["size"], "precision": entry["precision"],
                   "backend": backend, "median_s": s["median_s"], "min_s": s["min_s"], "max_s": s["max_s"],
                   "wall_median_s": s["wall_median_s"], "iterations": s["iterations"], "status": s["status"]}
            row["ratio_to_reference"] = (s["median_s"] / ref["median_s"]) if ref and ref["median_s"] > 0 else None
            tp = lookup(s["results"], "throughput")
            row["throughput"] = tp["value"] / s["median_s"] if isinstance(tp, dict) and s["median_s"] > 0 else None
            row["throughput_unit"] = tp["unit"] + "/s" if isinstance(tp, dict) else None
            row.update({k: v for k, v in s.get("roofline", {}).items()})
            d = entry["differences"].get(backend, {})
            row["max_abs_diff"] = d.get("max_abs")
            row["max_rel_diff"] = d.get("max_rel")
            row["peer"] = bool(s.get("peer"))
            memory = s.get("memory") or {}
            row["device_peak_bytes"] = memory.get("device_peak_bytes")
            row["host_peak_resident_bytes"] = memory.get("host_peak_resident_bytes")
            for key in columns:
                row[key] = lookup(s, key)
            rows.append(row)
    return rows


def markdown_table(rows: list[dict], backends: list[str], reference: str, results: list[dict] | None = None) -> str:
    others = [b for b in backends if b != reference]
    head = ["suite", "case", "precision"] + [f"{b} [s]" for b in backends] + [f"{b}/{reference}" for b in others]
    head += [f"max rel diff {b}" for b in others] + ["roofline", "peak memory (device / host) [MiB]"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    keyed = {}
    for r in rows:
        keyed.setdefault((r["suite"], r["case"], r["precision"]), {})[r["backend"]] = r
    for (suite, case, precision), per in keyed.items():
        cells = [suite, case, precision]
        cells += [f"{per[b]['median_s']:.4g}" if b in per else "—" for b in backends]
        for b in others:
            ratio = per[b]["ratio_to_reference"] if b in per else None
            cells.append(f"{ratio:.3g}x" if ratio else "—")
        for b in others:
            d = per[b]["max_rel_diff"] if b in per else None
            cells.append(f"{d:.2e}" if d is not None else "—")
        ref = per.get(reference, {})
        roof = []
        if ref.get("bandwidth_fraction") is not None:
            roof.append(f"{100 * ref['bandwidth_fraction']:.0f}% BW")
        if ref.get("flops_fraction") is not None:
            roof.append(f"{100 * ref['flops_fraction']:.0f}% FLOP")
        cells.append(", ".join(roof) or "—")
        memory = [f"{b} {per[b]['device_peak_bytes'] / 2**20:.4g} / {per[b]['host_peak_resident_bytes'] / 2**20:.4g}"
                  for b in backends if b in per and per[b].get("device_peak_bytes") is not None
                  and per[b].get("host_peak_resident_bytes") is not None]
        cells.append(", ".join(memory) or "—")
        lines.append("| " + " | ".join(cells) + " |")
    columns = []
    for r in rows:
        columns += [k for k in r if k.startswith("results.") and k not in columns]
    if columns:  # the suites' "columns", one line per backend and peer
        head = ["suite", "case", "precision", "backend", "time [s]", "status"] + columns
        lines += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in rows:
            cells = [r["suite"], r["case"], r["precision"], r["backend"] + (" (peer)" if r.get("peer") else ""),
                     f"{r['median_s']:.4g}", str(r["status"])]
            cells += [_cell(r.get(k)) for k in columns]
            lines.append("| " + " | ".join(cells) + " |")
    notes = sorted({f"{b}: {why}" for r in results for b, why in r.get("skipped", {}).items()} if results else set())
    if notes:
        lines += ["", "Not run (—): " + "; ".join(notes) + "."]
    return "\n".join(lines) + "\n"


def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.3g}"
    return "—" if v is None else str(v)


def write_csv(rows: list[dict], path: Path) -> None:
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def series_of(case: str) -> str:
    """The case family a line in the plots follows: the case name without sizes and precision
    (inert-16-float -> inert, n1e4_100x4_double -> n_x)."""
    name = re.sub(r"(float|double)", "", case)
    name = re.sub(r"\d+(\^\d+|e\d+)?", "", name)
    return re.sub(r"[-_]+", "-", name).strip("-") or case


def plot(rows: list[dict], backends: list[str], reference: str, out: Path) -> list[str]:
    """throughput-<suite>.png and speedup-<suite>.png against problem size (cases with a size),
    one line per backend, case family and precision."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    written = []
    for suite in sorted({r["suite"] for r in rows}):
        sized = [r for r in rows if r["suite"] == suite and r["size"]]
        if not sized:
            continue
        for kind in ("throughput", "speedup"):
            fig, ax = plt.subplots(figsize=(7, 4.5))
            lines = 0
            all_series = sorted({series_of(r["case"]) for r in sized})
            for precision in sorted({r["precision"] for r in sized}):
                for series in all_series:
                    for b in backends:
                        # colour: backend; line style: case family; marker: precision
                        style = {"color": f"C{backends.index(b)}",
                                 "linestyle": ["-", "--", ":", "-."][all_series.index(series) % 4],
                                 "marker": "o" if precision == "double" else "s"}
                        if kind == "speedup" and b == reference:
                            continue
                        pts = sorted(((r["size"], r) for r in sized if r["backend"] == b and r["precision"] == precision
                                      and series_of(r["case"]) == series), key=lambda t: t[0])
                        if kind == "throughput":
                            xy = [(s, r["throughput"] if r["throughput"] else s / r["median_s"]) for s, r in pts]
                        else:  # how many times faster the reference is than this backend
                            xy = [(s, r["ratio_to_reference"]) for s, r in pts if r["ratio_to_reference"]]
                        if xy:
                            ax.plot(*zip(*xy), label=f"{b} {series} ({precision})", **style)
                            lines += 1
            if not lines:
                plt.close(fig)
                continue
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("problem size (case's `size`)")
            unit = next((r["throughput_unit"] for r in sized if r["throughput_unit"]), "problem size / timed second")
            ax.set_ylabel(unit if kind == "throughput" else f"time(backend) / time({reference})")
            ax.set_title(f"{suite}: {kind}")
            ax.grid(True, which="both", alpha=0.3)
            # Beside the axes, not over the data (a suite of many cases has dozens of lines).
            ax.legend(fontsize=7, ncol=1 if lines <= 14 else 2, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                      borderaxespad=0)
            name = f"{kind}-{suite}.png"
            fig.savefig(out / name, dpi=120, bbox_inches="tight")
            plt.close(fig)
            written.append(name)
    return written


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        # A copied tree without its history (e.g. on a GPU machine) names its commit this way.
        return os.environ.get("PARITY_COMMIT", "unknown")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", action="append", default=[], help="suite file (repeatable)")
    ap.add_argument("--exe", action="append", type=parse_exe, default=[], help="NAME=PATH[,threads=N] (repeatable)")
    ap.add_argument("--peer", action="append", type=parse_exe, default=[],
                    help="NAME=PATH: a peer program run in the suites that name it in \"peers\" (repeatable)")
    ap.add_argument("--from-results", metavar="RESULTS_JSON", action="append", default=[],
                    help="only rebuild results.csv, table.md and the plots from earlier results.json files "
                         "(repeatable: the runs are combined)")
    ap.add_argument("--reference", help="backend the others are compared with (default: cuda if given, else the last --exe)")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--repetitions", type=int, help="override the suites' repetitions")
    ap.add_argument("--warmup", type=int, help="override the suites' warm-up runs")
    ap.add_argument("--probe", choices=["auto", "none", "tiny", "small", "full"], default="auto",
                    help="roofline probe size; auto: full on GPUs, small on hosts; none to skip")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run")
    ap.add_argument("--only", action="append", default=[], help="run only cases whose name contains this")
    ap.add_argument("--skip-backend", action="append", default=[], metavar="CASE:BACKEND",
                    help="do not run cases whose name contains CASE on BACKEND (repeatable)")
    ap.add_argument("--ranks", type=parse_ranks, metavar="N,N,...",
                    help="run every backend under the MPI launcher at these rank counts (e.g. 1,2,4) and table "
                         "the strong scaling")
    ap.add_argument("--mpirun", default="mpirun", metavar="CMD",
                    help="the MPI launcher with its options, e.g. 'mpirun --oversubscribe' (default: mpirun); "
                         "-np N follows it")
    args = ap.parse_args(argv)
    launcher = shlex.split(args.mpirun)
    if not launcher:
        ap.error("--mpirun wants a launcher command, got an empty one")
    if args.mpirun != "mpirun" and not args.ranks:
        ap.error("--mpirun applies with --ranks only")
    out = Path(args.out)
    if args.from_results:
        docs = [json.loads(Path(f).read_text()) for f in args.from_results]
        doc = docs[0]
        for other in docs[1:]:
            if other["reference"] != doc["reference"]:
                ap.error("combined runs must share the reference backend")
            for name, info in other["backends"].items():
                doc["backends"].setdefault(name, info)
            merge_results(doc["results"], other["results"])
            doc["failures"] = doc.get("failures", []) + other.get("failures", [])
        doc["combined_from"] = [f"{d.get('date')} ({len(d['results'])} entries)" for d in docs]
        out.mkdir(parents=True, exist_ok=True)
        if len(docs) > 1:
            with open(out / "results.json", "w") as f:
                json.dump(doc, f, indent=2)
        return report(doc, list(doc["backends"]), doc["reference"], out)
    if not args.suite or not args.exe:
        ap.error("--suite and --exe are required (or --from-results)")

    try:
        suites = [load_suite(s) for s in args.suite]
    except (OSError, ValueError) as e:
        ap.error(str(e))
    backends = [e["name"] for e in args.exe]
    peers = [e["name"] for e in args.peer]
    if len(set(backends + peers)) != len(backends + peers):
        ap.error("backend and peer names must be distinct")
    reference = args.reference or ("cuda" if "cuda" in backends else backends[-1])
    if reference not in backends:
        ap.error(f"--reference {reference} is not among the --exe names")
    out.mkdir(parents=True, exist_ok=True)

    doc = {"schema": "parity.comparison/1", "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
           "commit": git_commit(), "reference": reference, "environment": HOST_ENV,
           "timed": "median over repetitions of the model's fenced phases (timing.total_seconds); warm-up runs excluded; "
                    "wall_median_s includes process start-up and set-up (CUDA: "
                    "kernel modules loaded at start-up, CUDA_MODULE_LOADING=EAGER)",
           "backends": {}, "results": [], "rank_counts": args.ranks or []}
    bounds = {}
    failures = []
    try:
        for exe in args.exe:
            info, _ = run_once(exe, ["info"], args.timeout)
            doc["backends"][exe["name"]] = {"path": exe["path"], "threads": exe["threads"], **info["backend"],
                                            "parity": info["parity"]}
            size = args.probe
            if size == "auto":  # full-size probes only where they take well under a second
                size = "full" if info["backend"]["backend"] == "cuda" else "small"
            if size != "none":
                bounds[exe["name"]] = probe(exe, size, args.timeout)
                doc["backends"][exe["name"]]["bounds"] = {**bounds[exe["name"]], "probe_size": size}
        for exe in args.peer:
            info, _ = run_once(exe, ["info"], args.timeout)
            doc["backends"][exe["name"]] = {"path": exe["path"], "threads": exe["threads"], **info["backend"],
                                            "parity": info.get("parity", {}), "peer": True}
    except (RunError, subprocess.TimeoutExpired) as e:
        print(f"runner: {e}", file=sys.stderr)
        return 1
    for suite in suites:
        reps = args.repetitions if args.repetitions is not None else suite["repetitions"]
        warm = args.warmup if args.warmup is not None else suite["warmup"]
        for case in suite["cases"]:
            if args.only and not any(o in case["name"] for o in args.only):
                continue
            for precision in case_precisions(suite, case):
                entry = {"suite": suite["name"], "case": case["name"], "size": case["size"], "precision": precision,
                         "args": case["args"], "columns": suite["columns"], "backends": {}, "differences": {},
                         "failures": {}, "skipped": {}}
                compared = {}
                runners = args.exe + [p for p in args.peer if precision in suite["peers"].get(p["name"], [])]
                for exe in runners:
                    is_peer = exe in args.peer
                    if exe["name"] in case["skip"]:
                        entry["skipped"][exe["name"]] = case["skip"][exe["name"]]
                        continue
                    if any(c in case["name"] and b == exe["name"] for c, b in (x.split(":", 1) for x in args.skip_backend)):
                        entry["skipped"][exe["name"]] = "skipped on the command line (--skip-backend)"
                        continue
                    cmd = case_command(case, precision)
                    counts = args.ranks if args.ranks and not is_peer else [None]
                    try:
                        measured = []
                        for n in counts:
                            for _ in range(warm):
                                run_once(exe, cmd, args.timeout, n, launcher)
                            runs = [run_once(exe, cmd, args.timeout, n, launcher) for _ in range(max(reps, 1))]
                            measured.append((n, runs, summarize_runs([r for r, _ in runs], [w for _, w in runs])))
                    except (RunError, subprocess.TimeoutExpired) as e:
                        # Record and go on: one slow or failing case must not lose the others.
                        entry["failures"][exe["name"]] = str(e)[-300:]
                        failures.append(f"{suite['name']}/{case['name']}/{precision}/{exe['name']}")
                        print(f"runner: {e}", file=sys.stderr, flush=True)
                        continue
                    if args.ranks and not is_peer:
                        entry.setdefault("scaling", {})[exe["name"]] = [
                            {"ranks": n, "median_s": m["median_s"], "communication_median_s": m["communication_median_s"],
                             "phases_median_s": m["phases_median_s"], "status": m["status"],
                             # the last run's phases on every rank, and each rank's communication
                             "rank_phase_seconds": m["rank_phase_seconds"],
                             "rank_communication_seconds": m["rank_communication_seconds"],
                             # the suite's compared outputs at this count, held against the first
                             "compared": {k: lookup(rs[-1][0], k) for k in suite["compare"]}}
                            for n, rs, m in measured]
                        for n, _, m in measured[1:]:
                            print(f"{suite['name']:>18} {case['name']:<32} {precision:<6} {exe['name']:<8} "
                                  f"{m['median_s']:10.4f} s  ({m['status']}, {n} ranks)", flush=True)
                    _, runs, s = measured[0]
                    s["roofline"] = roofline_fraction(s, bounds.get(exe["name"]), precision)
                    if is_peer:
                        s["peer"] = True
                    else:
                        compared[exe["name"]] = {k: lookup(runs[-1][0], k) for k in suite["compare"]}
                    entry["backends"][exe["name"]] = s
                    print(f"{suite['name']:>18} {case['name']:<32} {precision:<6} {exe['name']:<8} "
                          f"{s['median_s']:10.4f} s  ({s['status']})", flush=True)
                entry["compared"] = compared
                entry["differences"] = differences(compared, reference)
                doc["results"].append(entry)
                with open(out / "results.json", "w") as f:  # keep what was measured so far
                    json.dump(doc, f, indent=2)

    doc["failures"] = failures
    with open(out / "results.json", "w") as f:
        json.dump(doc, f, indent=2)
    rc = report(doc, backends + peers, reference, out)
    if failures:
        print(f"runner: {len(failures)} case(s) failed: {', '.join(failures)}", file=sys.stderr)
    return 1 if failures else rc


def scaling_rows(entry: dict, backend: str) -> list[dict]:
    """Strong scaling of one case on one backend against its first rank count N0: speed-up
    T(N0) / T(N), efficiency speed-up x N0 / N."""
    runs = entry.get("scaling", {}).get(backend, [])
    if not runs:
        return []
    base = runs[0]
    rows = []
    for r in runs:
        speedup = base["median_s"] / r["median_s"] if r["median_s"] > 0 else float("nan")
        diff = differences({"first": base.get("compared", {}), "this": r.get("compared", {})}, "first")["this"]
        compared = any(v is not None for v in r.get("compared", {}).values())
        rows.append({"ranks": r["ranks"], "median_s": r["median_s"], "speedup": speedup,
                     "efficiency": speedup * base["ranks"] / r["ranks"],
                     "communication_s": r["communication_median_s"],
                     "max_rel_diff": diff["max_rel"] if compared else None})
    return rows


def scaling_table(results: list[dict]) -> str:
    """The strong-scaling table of every case run at several rank counts ('' if none)."""
    lines = []
    for entry in results:
        for backend in entry.get("scaling", {}):
            for r in scaling_rows(entry, backend):
                rel = "—" if r["max_rel_diff"] is None else f"{r['max_rel_diff']:.2e}"
                lines.append(f"| {entry['case']} | {entry['precision']} | {backend} | {r['ranks']} | "
                             f"{r['median_s']:.4g} | {r['speedup']:.2f}x | {100 * r['efficiency']:.0f} % | "
                             f"{r['communication_s']:.3g} | {rel} |")
    if not lines:
        return ""
    head = ("## Strong scaling over MPI ranks\n\nSame case at each rank count; speed-up and efficiency against the "
            "first rank count; communication: the slowest rank's seconds inside the collectives (median over "
            "repetitions); max rel diff: the suite's compared outputs against the first rank count's (norm-wise, "
            "— where the case has none).\n\n| case | precision | backend | ranks | time [s] | speed-up | efficiency | "
            "communication [s] | max rel diff |\n|---|---|---|---|---|---|---|---|---|\n")
    return head + "\n".join(lines) + "\n"


def merge_results(into: list[dict], more: list[dict]) -> None:
    """Adds the entries of another run: a case run in both gains the other's backends, and a
    backend skipped in one run but measured in the other counts as measured (so combining a
    targeted run with the rest of a suite does not show the targeted cases as skipped)."""
    index = {(e["suite"], e["case"], e["precision"]): e for e in into}
    for e in more:
        mine = index.get((e["suite"], e["case"], e["precision"]))
        if mine is None:
            into.append(e)
            index[(e["suite"], e["case"], e["precision"])] = e
            continue
        for key in ("backends", "failures", "compared", "scaling"):
            if key in e:
                mine.setdefault(key, {}).update(e[key])
        for name, why in e.get("skipped", {}).items():
            mine["skipped"].setdefault(name, why)
        ran = set(mine["backends"]) | set(mine.get("failures", {}))
        mine["skipped"] = {b: why for b, why in mine["skipped"].items() if b not in ran}


def report(doc: dict, backends: list[str], reference: str, out: Path) -> int:
    """results.csv, table.md and the plots from a comparison document."""
    for entry in doc["results"]:
        if "compared" in entry:  # recomputed, so a rebuilt report uses the current metric
            entry["differences"] = differences(entry["compared"], reference)
        for name, s in entry["backends"].items():
            s["roofline"] = roofline_fraction(s, doc["backends"].get(name, {}).get("bounds"), entry["precision"])
    rows = build_rows(doc["results"], reference)
    write_csv(rows, out / "results.csv")
    table = markdown_table(rows, backends, reference, doc["results"])
    commits = sorted({str(v.get("parity", {}).get("commit", "?")) for v in doc["backends"].values() if not v.get("peer")})
    header = (f"Runner commit {doc['commit']}; executables built from {', '.join(commits)}; {doc['date']}. "
              f"Reference backend: {reference}. "
              f"Times: {doc['timed']}. Environment: {HOST_ENV}.\n\n")
    devices = "".join(f"- {b}: {v.get('device_name')} ({v.get('execution_space')}, concurrency {v.get('concurrency')}, "
                      f"Kokkos {v.get('kokkos_version')} arch {v.get('kokkos_arch') or 'generic'}, {v.get('kernel_compiler')} "
                      f"{v.get('kernel_flags', '')})\n" for b, v in doc["backends"].items())
    scaling = scaling_table(doc["results"])
    if scaling:
        table += "\n" + scaling
    (out / "table.md").write_text(header + devices + "\n" + table)
    print(table)
    try:
        plots = plot(rows, backends, reference, out)
    except ImportError:
        plots = []
        print("runner: matplotlib is missing; no plots (rebuild them elsewhere with --from-results)", file=sys.stderr)
    print(f"wrote {out}/results.json, results.csv, table.md" + (", " + ", ".join(plots) if plots else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
