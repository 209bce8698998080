"""What every paper's reproduction shares: the backends a run compares, the runner call, single
runs outside the runner (outputs a suite does not keep), the budget check that names why a
backend skips a case, and the page's cell formatting."""
from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

PERF = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PERF))
import runner  # noqa: E402

# The paper's thread counts; the machine's own core count is added to them.
THREAD_COUNTS = (1, 2, 4)
DEVICE_BACKENDS = ("cuda", "hip", "sycl")
# Units a value shows without (a probability, a count).
UNSHOWN_UNITS = ("probability", "outer iterations")


def expand_backends(specs: list[dict], cores: int | None = None) -> tuple[list[dict], dict]:
    """The runner's executables for the paper's columns: serial on one thread, openmp at 1, 2, 4
    and all cores (openmp-N), a device backend as given. Returns them and the thread counts left
    out, with why (a count above the machine's cores measures oversubscription, not scaling)."""
    cores = cores or os.cpu_count() or 1
    out, dropped = [], {}
    for spec in specs:
        name = spec["name"]
        if name == "serial":
            out.append({**spec, "threads": 1})
        elif name == "openmp":
            counts = [n for n in THREAD_COUNTS if n <= cores]
            for n in THREAD_COUNTS:
                if n > cores:
                    dropped[f"openmp-{n}"] = f"this machine has {cores} cores"
            if spec.get("threads"):
                counts.append(spec["threads"])
            else:
                counts.append(cores)
            for n in sorted(set(counts)):
                out.append({"name": f"openmp-{n}", "path": spec["path"], "threads": n})
        else:
            out.append(dict(spec))
    names = [e["name"] for e in out]
    if len(set(names)) != len(names):
        raise ValueError(f"backend names repeat: {names}")
    return out, dropped


def threads_of(name: str) -> int | None:
    """Host threads a backend name stands for (serial: 1, openmp-N: N), None for a device."""
    if name == "serial":
        return 1
    if name.startswith("openmp-") and name[7:].isdigit():
        return int(name[7:])
    return None


def is_device(name: str) -> bool:
    return name in DEVICE_BACKENDS


def device_backend(backends: list[str]) -> str | None:
    return next((b for b in backends if is_device(b)), None)


def accelerator(backends: list[str]) -> str | None:
    """The backend that plays the paper's GPU: a device backend, else the host backend with the
    most threads (so a host-only run still exercises every table, labelled as a stand-in)."""
    hosts = [b for b in backends if threads_of(b)]
    return device_backend(backends) or (max(hosts, key=threads_of) if hosts else None)


def page_accelerator(backends: list[str], extras: dict) -> str | None:
    """The paper's GPU on a page: a device backend of the record (a resumed run's record may hold
    the device runs of the earlier one), else the one its extras ran on, else accelerator()."""
    return device_backend(backends) or extras.get("accelerator") or accelerator(backends)


def cpu_reference(backends: list[str]) -> str | None:
    """The paper's one CPU core: serial, else openmp on one thread."""
    for b in ("serial", "openmp-1"):
        if b in backends:
            return b
    return None


# A run's seconds beyond its timed phases (process start-up; on a device its context and kernel
# modules), counted against a whole-run budget. On an H200 host a tiny dual-control case's wall
# time is 0.40-0.46 s on CUDA and 0.01-0.03 s on the host (perf/results/reproduce-h200).
START_S = {"host": 0.1, "device": 0.6}
# The estimates come from other and older machines and ran 1.5-5x over the measured wall times on
# the H200 host; the deadline, not the estimate, bounds the run. So runs are admitted up to this
# multiple of the budget in estimated seconds, cheapest first, and whatever the deadline then
# stops is named on the page with its own reason.
ADMIT = 2.0
# Seconds a whole-run budget keeps for after the last run: the runner's tables and plots, the
# page and its figures.
FINISH_S = 10.0
# Host threads' parallel efficiency in the whole-run estimates (OpenMP at 16 threads ran the
# papers' cases about 10-12x faster than one core).
HOST_EFFICIENCY = 0.7


def run_seconds(backend: str, one_core_seconds: float, device_seconds: float) -> float:
    """One run's estimated wall seconds on a backend: one core's over the threads at
    HOST_EFFICIENCY, or the device's, plus the start-up."""
    t = threads_of(backend)
    if t:
        return one_core_seconds / (1.0 + HOST_EFFICIENCY * (t - 1)) + START_S["host"]
    return device_seconds + START_S["device"]


def fit_budget(runs: list[tuple[str, str, float]], budget: float, admit: float = ADMIT) -> dict:
    """The whole-run budget: runs (case, backend, estimated seconds of all its runs) are taken
    cheapest first while their sum fits `admit` times the budget (the deadline bounds the real
    time). Returns {(case, backend): reason} for the runs left out, each with its estimate."""
    skipped, used = {}, 0.0
    for case, backend, seconds in sorted(runs, key=lambda r: (r[2], r[0], r[1])):
        if used + seconds <= admit * budget:
            used += seconds
        else:
            skipped[(case, backend)] = (f"estimated {fmt_seconds(seconds)}, does not fit the {fmt_seconds(budget)} "
                                        f"budget (--budget) after the cheaper runs' estimated {fmt_seconds(used)}")
    return skipped


# (case, backend) runs an earlier run recorded (perf/reproduce --resume): left out of the budget
# and not run again; resumed() sets it.
RECORDED: set[tuple[str, str]] = set()
RECORDED_REASON = "recorded by the resumed run (--resume)"


@contextlib.contextmanager
def resumed(recorded: set[tuple[str, str]]):
    """While active, apply_budget skips the (case, backend) runs in `recorded`."""
    global RECORDED
    before, RECORDED = RECORDED, set(recorded)
    try:
        yield
    finally:
        RECORDED = before


def apply_budget(cases: list[dict], runs: list[tuple[str, str, float]], budget: float, quick: bool,
                 admit: float = ADMIT) -> dict:
    """fit_budget over `runs` (none with --quick), each case's `skip` given the reasons of its runs
    left out; runs an earlier run recorded (resumed) are left out at no cost. Returns {case name:
    estimated seconds of its runs kept}, the cost order_by_cost takes."""
    for case in cases:
        case["skip"].update({b: RECORDED_REASON for (name, b) in RECORDED if name == case["name"]})
    runs = [r for r in runs if (r[0], r[1]) not in RECORDED]
    skipped = {} if quick else fit_budget(runs, budget, admit)
    cost = {}
    for name, backend, seconds in runs:
        if (name, backend) not in skipped:
            cost[name] = cost.get(name, 0.0) + seconds
    for case in cases:
        case["skip"].update({b: why for (name, b), why in skipped.items() if name == case["name"]})
    return cost


def recorded_runs(doc: dict) -> set[tuple[str, str]]:
    """The (case, backend) runs a results document holds a measurement of."""
    return {(e["case"], b) for e in doc.get("results", []) for b in e.get("backends", {})}


def merge_resumed(doc: dict, earlier: dict) -> dict:
    """doc (a resumed run's results) with the earlier run's measurements added where doc has none:
    the runs it skipped as recorded, and cases it did not plan. The earlier run's backends are kept
    under "earlier" so the page names both runs' executables. Entries match by case name alone, not
    as runner.merge_results matches them (suite, case, precision): a case's suite depends on the
    backends a run plans for, so a resumed case can sit in another suite than before."""
    index = {e["case"]: e for e in doc.get("results", [])}
    for old in earlier.get("results", []):
        mine = index.get(old["case"])
        if mine is None:
            doc.setdefault("results", []).append(old)
            continue
        for b, summary in old.get("backends", {}).items():
            if b not in mine.get("backends", {}):
                mine.setdefault("backends", {})[b] = summary
                mine.get("skipped", {}).pop(b, None)
                mine.get("failures", {}).pop(b, None)
        # why the earlier run has no value, for a backend this run did not have
        for key in ("failures", "skipped"):
            for b, why in old.get(key, {}).items():
                if not any(b in mine.get(k, {}) for k in ("backends", "failures", "skipped")):
                    mine.setdefault(key, {})[b] = why
    for key in ("schema", "date", "commit", "reference", "environment", "timed"):  # no suite ran: the earlier's
        doc.setdefault(key, earlier.get(key))
    for name, info in earlier.get("backends", {}).items():  # a backend only the earlier run had
        doc.setdefault("backends", {}).setdefault(name, dict(info, from_earlier=True))
    doc["earlier"] = {"date": earlier.get("date"), "commit": earlier.get("commit"),
                      "backends": earlier.get("backends", {}), **({"earlier": earlier["earlier"]} if "earlier" in earlier else {})}
    return doc


def order_by_cost(cases: list[dict], cost: dict) -> list[dict]:
    """Cases in the order the runner should take them: cheapest first (cost: case name -> the
    estimated seconds of its runs that are not skipped)."""
    return sorted(cases, key=lambda c: (cost.get(c["name"], 0.0), c["name"]))


@contextlib.contextmanager
def deadline(at: float | None):
    """While active, every run of perf/runner.py is given at most the seconds left until `at`
    (time.monotonic()); one still running then is killed and recorded as failed, one not yet
    started fails with the reason. The budget's estimates order the runs; this makes it a bound."""
    if at is None or math.isinf(at):
        yield
        return
    original = runner.run_once

    def bounded(exe, args, timeout, *rest, **kwargs):
        left = at - time.monotonic()
        if left < 1.0:
            raise runner.RunError("not run: the --budget had ended")
        try:
            return original(exe, args, min(timeout, left), *rest, **kwargs)
        except subprocess.TimeoutExpired as e:
            if left < timeout:
                raise runner.RunError(f"killed when the --budget ended, {fmt_seconds(left)} into the run") from e
            raise

    runner.run_once = bounded
    try:
        yield
    finally:
        runner.run_once = original


def seconds_left(at: float | None, timeout: float) -> float:
    """A single run's timeout under a deadline (time.monotonic())."""
    if at is None or math.isinf(at):
        return timeout
    return max(0.0, min(timeout, at - time.monotonic()))


def fmt_seconds(s: float) -> str:
    if s >= 7200:
        return f"{s / 3600:.1f} h"
    if s >= 120:
        return f"{s / 60:.0f} min"
    return f"{s:.3g} s"


def run_suites(suites: list[dict], exes: list[dict], out: Path, repetitions: int | None, warmup: int | None,
               timeout: float, until: float | None = None, peers: list[dict] | None = None) -> dict:
    """Writes the suites, runs them through perf/runner.py and returns its results.json document
    (a failed case is recorded in it and does not stop the others); with `until`
    (time.monotonic()), no run goes past it (deadline)."""
    out.mkdir(parents=True, exist_ok=True)
    args = []
    for suite in suites:
        path = out / f"suite-{suite['name']}.json"
        path.write_text(json.dumps(suite, indent=1))
        args += ["--suite", str(path)]
    for e in exes:
        args += ["--exe", f"{e['name']}={e['path']}" + (f",threads={e['threads']}" if e.get("threads") else "")]
    for p in peers or []:
        args += ["--peer", f"{p['name']}={p['path']}"]
    args += ["--out", str(out), "--probe", "none", "--timeout", str(timeout)]
    if repetitions is not None:
        args += ["--repetitions", str(repetitions)]
    if warmup is not None:
        args += ["--warmup", str(warmup)]
    if suites:
        with deadline(until):
            runner.main(args)
    path = out / "results.json"
    return json.loads(path.read_text()) if path.exists() else {"backends": {}, "results": []}


def run_model(exe: dict, args: list[str], out_dir: Path, timeout: float, arrays: bool = True) -> dict:
    """One run with --output (arrays the runner does not keep; arrays=False: none) and its report;
    an 'error' entry instead when it fails or times out."""
    if timeout < 1.0:
        return {"error": "not run: the --budget had ended", "command": [exe["path"], *args]}
    out_dir.mkdir(parents=True, exist_ok=True)
    report = out_dir / "report.json"
    cmd = [exe["path"]] + (["--threads", str(exe["threads"])] if exe.get("threads") else [])
    cmd += args + (["--output", str(out_dir / "arrays")] if arrays else []) + ["--json", str(report), "--quiet"]
    env = dict(os.environ, **runner.HOST_ENV)
    if exe.get("threads"):
        env["OMP_NUM_THREADS"] = str(exe["threads"])
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {fmt_seconds(timeout)}", "command": cmd}
    if proc.returncode not in (0, 3) or not report.exists():
        return {"error": f"exited {proc.returncode}: {proc.stderr.strip()[-300:]}", "command": cmd}
    return {"report": json.loads(report.read_text()), "arrays": str(out_dir / "arrays") if arrays else None,
            "command": cmd}


def measured(doc: dict, case: str, backend: str):
    """(summary, None) for a backend's run of a case (the paper cases name their precision), or
    (None, reason) naming why there is none."""
    entry = next((e for e in doc.get("results", []) if e["case"] == case), None)
    if entry is None:
        return None, f"case {case} not in this run"
    if backend in entry.get("backends", {}):
        return entry["backends"][backend], None
    if backend in entry.get("failures", {}):
        why = entry["failures"][backend]
        if "--budget" in why:
            return None, f"{backend}: {why}"
        return None, f"{backend} failed: {why[-160:]}"
    if backend in entry.get("skipped", {}):
        return None, f"{backend} skipped: {entry['skipped'][backend]}"
    return None, f"no {backend} executable in this run"


def labelled(label: str, how: str | None) -> str:
    """A cell's backend label with how its value was reached (scaled, from another run), if not measured."""
    return f"{label} ({how})" if how else label


def fmt(v, unit: str = "") -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    a = abs(v)
    text = f"{v:.4g}" if a == 0 or 1e-3 <= a < 1e5 else f"{v:.3e}"
    if unit == "x":
        return text + "x"
    return f"{text} {unit}" if unit and unit not in UNSHOWN_UNITS else text


def fmt_paper(v, unit: str = "") -> str:
    """A published value as transcribed (all its digits), with its unit."""
    text = f"{v:,}"
    if unit == "x":
        return text + "x"
    return f"{text} {unit}" if unit and unit not in UNSHOWN_UNITS else text


def cell_line(cell: dict, parity: list[tuple[str, object, str | None]], paper_unit: str | None = None) -> str:
    """One page row: the paper's cell and Parity's values, each (label, value, reason): a value, or
    a reason where there is none."""
    shown = []
    for label, value, reason in parity:
        if value is None:
            shown.append(f"{label}: not available ({reason})")
        else:
            shown.append(f"{label}: {value if isinstance(value, str) else fmt(value, cell['unit'])}")
    note = cell.get("note", "")
    paper = fmt_paper(cell["value"], paper_unit or cell["unit"]) + (" †" if cell.get("relaxed") else "")
    return f"| {cell['row']} | {cell['column']} | {paper} | {'<br>'.join(shown) or 'not available (no backend)'} | {note} |"


TABLE_HEAD = "| row | column | paper | Parity (backend: value) | note |\n|---|---|---|---|---|"


def backend_facts(doc: dict) -> str:
    """The backends of this run, and of each earlier run a resumed run kept measurements of."""
    def lines(d: dict) -> list[str]:
        return [f"- {name}: {b.get('device_name')} ({b.get('execution_space')}, concurrency {b.get('concurrency')}, "
                f"threads {b.get('threads')}), {b.get('kernel_compiler')}, Parity {b.get('parity', {}).get('commit', '?')}"
                for name, b in d.get("backends", {}).items() if not b.get("from_earlier")]
    out = lines(doc) or ["- (no backend ran)"]
    earlier = doc.get("earlier")
    while earlier:
        out.append(f"- the cells this run did not measure come from a run of {earlier.get('date')}, whose backends were:")
        out += ["  " + line for line in lines(earlier)]
        earlier = earlier.get("earlier")
    return "\n".join(out)
