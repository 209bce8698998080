"""Morozov & Mathur (2012), Tables 1 and 2 and Figures 1 and 2, with `dual-control` (the optimal
policy by `--algorithm paper`: plain value iteration, as the paper's Table 2 times)."""
from __future__ import annotations

from pathlib import Path

from . import common

PAPER = "dual-control"
GRIDS = (8, 16, 32, 64, 128, 256)
QUICK_GRIDS = (8,)
POLICIES = ("inert", "myopic", "optimal")
PRECISIONS = ("float", "double")
# One core's seconds per grid point for a whole solve in double (the development host and the
# H200 host's serial runs: inert 64^3 6.5 s, myopic 32^3 6.8 s, optimal paper 8^3 2.1 s); float
# takes up to 1.5x the sweeps.
POINT_S = {"inert": 2.5e-5, "myopic": 2.1e-4, "optimal": 4.0e-3}
# The device: seconds per grid point and a floor (the sweeps' launches), from an H100's runs of
# perf/suites/dual_control.json (perf/results/dual-control-table2-h100: optimal paper 64^3 2.4 s,
# 128^3 32 s; inert 256^3 0.7 s; myopic 256^3 2.6 s).
DEVICE_POINT_S = {"inert": 4.2e-8, "myopic": 1.6e-7, "optimal": 1.5e-5}
DEVICE_FLOOR_S = {"inert": 0.005, "myopic": 0.02, "optimal": 0.2}
FLOAT_FACTOR = 1.5
# Cases every backend runs within a minute get 3 repetitions after a warm-up (the paper averaged
# four runs); the longer ones run once.
REPEATED_UNDER_S = 60.0
BASIS = ("one core's seconds per grid point over the threads (parallel efficiency 0.7); the device's seconds per "
         "grid point with a floor (an H100's runs); plus each run's start-up; the runs taken cheapest first while "
         "they fit the whole-run budget")


def case_name(policy: str, n: int, precision: str) -> str:
    return f"{policy}-{n}-{precision}"


def case_args(policy: str, n: int, precision: str) -> list[str]:
    """The model's arguments of a case (the optimal policy by the paper's plain value iteration)."""
    return (["--policy", policy] + (["--algorithm", "paper"] if policy == "optimal" else [])
            + ["--grid", f"{n},{n},{n}", "--precision", precision])


def solve_seconds(policy: str, n: int, precision: str, backend: str) -> float:
    """One solve's estimated wall seconds on a backend (start-up included)."""
    factor = FLOAT_FACTOR if precision == "float" else 1.0
    one_core = n ** 3 * POINT_S[policy] * factor
    device = max(DEVICE_FLOOR_S[policy], n ** 3 * DEVICE_POINT_S[policy]) * factor
    return common.run_seconds(backend, one_core, device)


def plan(backends: list[str], quick: bool, budget: float) -> list[dict]:
    """Two suites, each case's runs ordered cheapest first: cases every backend runs within a
    minute get 3 repetitions after a warm-up, the longer ones run once. The runs that do not fit
    the whole-run budget (cheapest first) are skipped with their estimates."""
    cases, runs = [], []
    for n in (QUICK_GRIDS if quick else GRIDS):
        for policy in POLICIES:
            for precision in PRECISIONS:
                args = case_args(policy, n, precision)
                once = {b: solve_seconds(policy, n, precision, b) for b in backends}
                repeated = quick or max(once.values(), default=0.0) <= REPEATED_UNDER_S
                count = 1 if quick else (4 if repeated else 1)
                name = case_name(policy, n, precision)
                runs += [(name, b, once[b] * count) for b in backends]
                cases.append({"name": name, "args": args, "size": n ** 3, "skip": {}, "repeated": repeated})
    cost = common.apply_budget(cases, runs, budget, quick)
    short = [c for c in cases if c.pop("repeated")]
    long = [c for c in cases if c not in short]
    suites = [{"name": "dual-control-paper", "model": "dual-control", "repetitions": 1 if quick else 3,
               "warmup": 0 if quick else 1, "compare": ["iterations"], "cases": common.order_by_cost(short, cost)}]
    if long:
        suites.append({"name": "dual-control-paper-long", "model": "dual-control", "repetitions": 1, "warmup": 0,
                       "compare": ["iterations"], "cases": common.order_by_cost(long, cost)})
    return suites


# Table 1's memory of a host run no budget measured comes from the same run stopped after its first
# sweep (--time-limit): every grid is allocated before the first sweep (the same Kokkos peak;
# test_reproduce.py), and at 48^3 to 80^3 on the development host the peak resident set of such a
# run is within 1 % of the whole solve's. The runs take seconds (one core stops after 0.1-0.2 s at
# 64^3; 256^3 has 64 times the points); this much of the budget is kept for them.
MEMORY_RESERVE_S = 90.0
MEMORY_RUN_LIMIT = "0.001"  # --time-limit: stop after the first sweep


# --resume keeps the earlier run's memory runs and makes those it lacks.
RESUMES_EXTRAS = True


def extras_seconds(backends: list[str], quick: bool, budget: float = float("inf"), earlier=None) -> float:
    hosts = any(common.threads_of(b) for b in backends)
    return 0.0 if quick or not hosts else min(MEMORY_RESERVE_S, 0.2 * budget)


def run_extras(exes: list[dict], quick: bool, out: Path, budget: float, timeout: float, until=None,
               doc: dict | None = None, reserve: float | None = None, earlier: dict | None = None) -> dict:
    """The accelerator, and the memory runs: each Table 1 cell (double) of a host backend whose
    solve no run measured, run to the end of its first sweep, smallest grid first, within the
    deadline; those an `earlier` run made are kept."""
    extras = {"accelerator": common.accelerator([e["name"] for e in exes]), "memory": {}}
    for name, runs in ((earlier or {}).get("memory") or {}).items():
        for b, entry in runs.items():
            if "error" not in entry:
                extras["memory"].setdefault(name, {})[b] = entry
    if quick or doc is None:
        return extras
    for n in GRIDS:
        for policy in POLICIES:
            name = case_name(policy, n, "double")
            for exe in exes:
                if not common.threads_of(exe["name"]) or common.measured(doc, name, exe["name"])[0] is not None:
                    continue
                if exe["name"] in extras["memory"].get(name, {}):
                    continue
                args = ["dual-control", *case_args(policy, n, "double"), "--time-limit", MEMORY_RUN_LIMIT]
                run = common.run_model(exe, args, out / "memory-runs" / f"{name}-{exe['name']}",
                                       common.seconds_left(until, timeout), arrays=False)
                if "error" in run:
                    entry = {"error": run["error"]}
                else:
                    report = run["report"]
                    entry = {"host_peak_resident_bytes": (report.get("memory") or {}).get("host_peak_resident_bytes"),
                             "status": report.get("status"), "seconds": report.get("timing", {}).get("total_seconds")}
                extras["memory"].setdefault(name, {})[exe["name"]] = entry
    return extras


def _time(doc, policy, n, precision, backend):
    s, why = common.measured(doc, case_name(policy, n, precision), backend)
    if s is None:
        return None, why
    return s["median_s"], None


def _work(summary: dict, policy: str, n: int):
    """A solve's work in the unit its time scales with: the objective evaluations of the optimal
    policy's Bellman sweeps (their count per point grows with the grid), else the point updates
    (sweeps x points)."""
    results = summary.get("results", {})
    if policy == "optimal":
        return (results.get("objective_evaluations") or {}).get("bellman")
    sweeps = results.get("iterations", summary.get("iterations"))
    return sweeps * n ** 3 if sweeps else None


def _scaled_time(doc, policy, n, precision, backend):
    """A host backend's solve time where no run measured it, from its own largest run of the
    policy in the precision, scaled by the work of another backend's run of the case (the sweeps
    and evaluations do not depend on the backend): (value, None, how) or (None, reason, None)."""
    if not common.threads_of(backend):
        return None, "a device's time is not scaled", None
    src, measured = next(((m, s) for m in sorted(GRIDS, reverse=True) if m < n
                          and (s := common.measured(doc, case_name(policy, m, precision), backend)[0]) is not None),
                         (None, None))
    if src is None:
        return None, f"no smaller {backend} run of the policy in {precision} to scale from", None
    entry = next((e for e in doc.get("results", []) if e["case"] == case_name(policy, n, precision)), {})
    other = next(((b, s) for b, s in sorted(entry.get("backends", {}).items(), key=lambda kv: kv[0] != "cuda")
                  if _work(s, policy, n)), None)
    if other is None or not _work(measured, policy, src):
        return None, "no backend ran the case, so its work is unknown", None
    unit = "objective evaluation" if policy == "optimal" else "point update"
    value = measured["median_s"] / _work(measured, policy, src) * _work(other[1], policy, n)
    return value, None, f"scaled per {unit} from its {src}^3 run, by {other[0]}'s work"


def _host_time(doc, policy, n, precision, backend, quick):
    """(value, reason, how): the measured time, else (not with --quick) the scaled one."""
    v, why = _time(doc, policy, n, precision, backend)
    if v is not None or quick:
        return v, why, None
    scaled, scaled_why, how = _scaled_time(doc, policy, n, precision, backend)
    if scaled is None:
        return None, f"{why}; not scaled: {scaled_why}", None
    return scaled, None, how


def _parity_values(cell, doc, extras, quick, cpu, acc, all_cores):
    n, policy, precision = cell["grid"], cell["policy"], cell["precision"]
    if quick and n not in QUICK_GRIDS:
        return [("all", None, "not run with --quick")]
    backends = doc.get("backends", {})
    q = cell["quantity"]
    if cell["table"] == "1":
        who = (["serial", "openmp-1"] if cell["threads"] == 1 else [f"openmp-{cell['threads']}"])
        who += all_cores if cell["threads"] == 4 else []
        out = []
        for b in who:
            label = f"{b} (all cores)" if b in all_cores else b
            if b not in backends:
                dropped = extras.get("dropped", {}).get(b)
                out.append((label, None, f"no {b} in this run" + (f" ({dropped})" if dropped else "")))
                continue
            if q == "time":
                v, why, how = _host_time(doc, policy, n, precision, b, quick)
                out.append((common.labelled(label, how), v, why))
            else:
                s, why = common.measured(doc, case_name(policy, n, precision), b)
                m = (s or {}).get("memory") or {}
                if s is not None and m.get("host_peak_resident_bytes") is None:
                    why = "the report has no memory record"
                if s is None:  # the memory run stopped after the first sweep, where there was one
                    run = extras.get("memory", {}).get(case_name(policy, n, precision), {}).get(b)
                    if run and run.get("host_peak_resident_bytes"):
                        m = run
                        label = common.labelled(label, "a run stopped after its first sweep")
                    elif run:
                        why += f"; its memory run: {run.get('error') or 'no memory record'}"
                out.append((label, m["host_peak_resident_bytes"] / 2**20 if m.get("host_peak_resident_bytes") else None,
                            why))
        return out
    if q in ("cpu1_time", "cpu4_time", "gpu_time"):
        who = {"cpu1_time": [b for b in ("serial", "openmp-1") if b in backends] or ["serial"],
               "cpu4_time": ["openmp-4"] + all_cores, "gpu_time": [acc] if acc else []}[q]
        out = []
        for b in who:
            if b not in backends:
                dropped = extras.get("dropped", {}).get(b)
                out.append((b, None, f"no {b} in this run" + (f" ({dropped})" if dropped else "")))
                continue
            v, why, how = _host_time(doc, policy, n, precision, b, quick)
            label = f"{b} (all cores)" if b in all_cores else b
            out.append((common.labelled(label, how), v, why))
        return out or [("—", None, "no accelerator in this run")]
    num = cpu if q == "cpu1_over_gpu" else "openmp-4"
    if num is None or num not in backends:
        return [(f"{num or 'serial'}/{acc}", None, f"no {num or 'one-core backend'} in this run")]
    if acc is None:
        return [("ratio", None, "no accelerator in this run")]
    c, why_c, how = _host_time(doc, policy, n, precision, num, quick)
    g, why_g = _time(doc, policy, n, precision, acc)
    if c is None or g is None:
        return [(f"{num}/{acc}", None, why_c or why_g)]
    return [(f"{num}/{acc}" + (f" ({num}'s time {how})" if how else ""), c / g, None)]


def page(paper: dict, doc: dict, extras: dict, out: Path, quick: bool) -> str:
    backends = list(doc.get("backends", {}))
    cpu = common.cpu_reference(backends)
    acc = common.page_accelerator(backends, extras)
    all_cores = [b for b in backends if b.startswith("openmp-") and common.threads_of(b) not in (1, 2, 4)]
    lines = [f"# Reproducing {paper['paper']}", "",
             f"Model `{paper['model']}`, defaults (32 Gauss-Hermite nodes, tolerances 1e-6 / 1e-4), the optimal "
             f"policy with `--algorithm paper`. The paper's machine: {paper['hardware']}. This run's backends:",
             common.backend_facts(doc), ""]
    if quick:
        lines += ["**--quick**: only the 8x8x8 grid, one repetition: a test of the machinery.", ""]
    if acc and not common.is_device(acc):
        lines += [f"No device backend in this run: {acc} stands in for the paper's GPU in Table 2.", ""]
    lines += ["Deviations: times are the fenced solve phases (median over repetitions), not the process; "
              "Parity's problem is its reading of the paper's (box, clustering and parameters in "
              "docs/models/dual_control.md), its search over u adds kink candidates to Brent's method, and the "
              "memory is the process's peak resident set (MiB) where the paper's 'M' is not defined. "
              "A host backend's time that no run of the budget measured is scaled from its own run of the "
              "policy on the largest smaller grid, per point update (inert, myopic) or objective evaluation "
              "(optimal), by the work another backend's run of the case did (the same sweeps and nearly the "
              "same evaluations on every backend), and labelled so; larger grids leave the caches, so these "
              "are lower bounds more than estimates. A host memory cell no run measured comes from the case stopped "
              "after its first sweep (every grid is allocated by then), labelled so. Estimated times: " + BASIS +
              ". See docs/reproducing.md.", ""]
    for table in ("1", "2"):
        meta = paper["tables"][table]
        lines += [f"## Table {table}: {meta['title']}", "", meta["note"], "", common.TABLE_HEAD]
        for cell in (c for c in paper["cells"] if c["table"] == table):
            unit = "MiB" if cell["quantity"] == "memory" else None
            lines.append(common.cell_line({**cell, "unit": unit or cell["unit"]},
                                          _parity_values(cell, doc, extras, quick, cpu, acc, all_cores),
                                          paper_unit=cell["unit"]))
        lines.append("")
    lines += ["## Not reproduced", ""]
    lines += [f"- Table {k}: {v}." for k, v in paper["not_reproduced"].items()]
    lines += ["", "## Figures", ""]
    lines += _figures(paper, doc, out, quick, cpu, acc, all_cores)
    return "\n".join(lines) + "\n"


def _figures(paper, doc, out, quick, cpu, acc, all_cores):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ["- Figures 1, 2: not drawn (matplotlib is missing)."]
    grids = QUICK_GRIDS if quick else GRIDS
    lines = []
    who = [b for b in ("serial", "openmp-1", "openmp-2", "openmp-4", *all_cores, acc) if b and b in doc.get("backends", {})]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    drawn = 0
    for ax, policy in zip(axes, POLICIES):
        for b in dict.fromkeys(who):
            pts = [(n ** 3, n ** 3 / t) for n in grids for t, _ in [_time(doc, policy, n, "double", b)] if t]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=b)
                drawn += 1
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("grid points")
        ax.set_ylabel("grid points / second")
        ax.set_title(policy)
        ax.grid(True, alpha=0.3)
        if ax.lines:
            ax.legend(fontsize=8)
    if drawn:
        fig.savefig(out / f"{PAPER}-figure1.png", dpi=110, bbox_inches="tight")
        lines.append(f"- Figure 1 ({paper['figures']['1']}): [{PAPER}-figure1.png]({PAPER}-figure1.png); speed = grid "
                     "points / solve time (our reading of 'gridpoints per second').")
    else:
        lines.append("- Figure 1: not drawn: no double-precision time in this run.")
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    drawn = 0
    for policy in POLICIES:
        pts = []
        for n in grids:
            c, _ = _time(doc, policy, n, "double", cpu) if cpu else (None, None)
            g, _ = _time(doc, policy, n, "double", acc) if acc else (None, None)
            if c and g:
                pts.append((n ** 3, c / g))
        if pts:
            ax.plot(*zip(*pts), marker="o", label=policy)
            drawn += 1
    ax.set_xscale("log", base=2)
    ax.set_xlabel("grid points")
    ax.set_ylabel(f"T({cpu}) / T({acc})")
    ax.grid(True, alpha=0.3)
    if drawn:
        ax.legend()
        fig.savefig(out / f"{PAPER}-figure2.png", dpi=110, bbox_inches="tight")
        lines.append(f"- Figure 2 ({paper['figures']['2']}): [{PAPER}-figure2.png]({PAPER}-figure2.png), {cpu} against {acc}.")
    else:
        lines.append(f"- Figure 2: not drawn: no double-precision pair of {cpu} and {acc} times in this run.")
    plt.close(fig)
    lines.append(f"- Figures 3-6: {paper['figures']['3-6']}.")
    lines.append("- The paper draws no policy or value function; `scripts/plot DIR` draws Parity's from `--output DIR`.")
    return lines
