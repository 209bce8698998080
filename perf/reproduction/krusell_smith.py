"""Hatcher & Scheffel (2014), Tables 2, 3 and B.1, Figures 1 and B.1-B.3, with `krusell-smith
--preset paper` (their stopping rule, T = 1000, time iteration).

The paper's three GPU approaches differ in the panel's interpolation only; Parity's nearest:
software double Catmull-Rom = `--precision double`, software single Catmull-Rom = `--precision
float`, hardware texture interpolation = `--precision float --interp bilinear` (the texture unit's
bilinear filter in single precision; Parity computes it in float arithmetic, not in the texture
unit's 9-bit fixed-point weights)."""
from __future__ import annotations

import re
from pathlib import Path

from . import common

PAPER = "krusell-smith"
AGENTS = (10_000, 500_000, 10_000_000)
GRIDS = ((100, 4), (250, 50), (500, 50))
APPROACHES = {"software-double": ["--precision", "double"],
              "software-single": ["--precision", "float"],
              "hardware-single": ["--precision", "float", "--interp", "bilinear"]}
PARITY_APPROACH = {"software-double": "--precision double (Catmull-Rom)",
                   "software-single": "--precision float (Catmull-Rom)",
                   "hardware-single": "--precision float --interp bilinear (nearest to the texture unit)"}
# --quick: two of the paper's cases shrunk (the others are not run); short panels, 3 outer iterations.
QUICK_CASES = {(10_000, (100, 4)): (400, (20, 4)), (500_000, (500, 50)): (800, (24, 5))}
QUICK_ARGS = ["--periods", "200", "--discard", "50", "--burn-in", "400", "--max-iter", "3"]
PERIODS = 1000
KBAR_ITERATIONS = 5
# Outer iterations a whole solve is estimated to take: the paper's 22-32 in double; the float
# approaches run to --preset paper's cap of 50 (they do not meet 1e-7: perf/results/reproduce-h200).
ITERATIONS = {"software-double": 30, "software-single": 50, "hardware-single": 50}
# One core's seconds on the H200's 16-core host (perf/results/reproduce-h200/krusell-smith-runs:
# serial and openmp-1, and openmp-2 to 16 times the threads at HOST_EFFICIENCY): the panel per
# agent-period and outer iteration, the exact employment draw per agent-period (once per run), the
# time-iteration policy per node in the first outer iteration; later ones start from the last
# policy and take POLICY_WARM of that.
PANEL_S, SHOCKS_S, POLICY_S, POLICY_WARM = 2.0e-8, 8.0e-8, 6.0e-3, 0.15
# The H200's, from the same runs: the same three (the policy per node and outer iteration), each
# with a floor (its launches).
DEVICE_PANEL_S, DEVICE_SHOCKS_S, DEVICE_POLICY_S = 1.0e-11, 3.0e-11, 1.5e-6
DEVICE_PANEL_FLOOR, DEVICE_SHOCKS_FLOOR, DEVICE_POLICY_FLOOR = 0.015, 0.1, 0.02
# The K-bar runs (Table 3) and the figures' solve run before the suite; the K-bar cases are taken
# cheapest first while they fit this share of the budget.
KBAR_SHARE = 0.25
# The estimates come from the H200 host's own runs, so runs are admitted up to a smaller multiple
# of the budget than common.ADMIT: the deadline stops what the estimates miss.
ADMIT = 1.25
FIGURES_CASE = (10_000, (500, 50))
BASIS = ("one core's cost per agent-period and policy node on the H200's host over the threads (parallel efficiency "
         "0.7), the device's from its runs; plus each run's start-up; the runs taken cheapest first while they fit "
         "the whole-run budget")


def case_size(agents: int, grid: tuple, quick: bool):
    """The run's agents and grid for a paper case (None where --quick leaves it out)."""
    if not quick:
        return agents, grid
    return QUICK_CASES.get((agents, tuple(grid)))


def case_name(approach: str, agents: int, grid: tuple, mode: str) -> str:
    return f"{approach}-n{agents}-{grid[0]}x{grid[1]}-{mode}"


def run_seconds(agents: int, grid: tuple, iterations: int, backend: str) -> float:
    """One run's estimated wall seconds on a backend (start-up included): the draw once, then per
    outer iteration the panel of T = 1000 periods and the policy step."""
    agent_periods, nodes = agents * PERIODS, grid[0] * grid[1]
    one_core = (agent_periods * SHOCKS_S + iterations * agent_periods * PANEL_S
                + nodes * POLICY_S * (1 + (iterations - 1) * POLICY_WARM))
    device = max(DEVICE_SHOCKS_FLOOR, agent_periods * DEVICE_SHOCKS_S) + iterations * (
        max(DEVICE_PANEL_FLOOR, agent_periods * DEVICE_PANEL_S) + max(DEVICE_POLICY_FLOOR, nodes * DEVICE_POLICY_S))
    return common.run_seconds(backend, one_core, device)


def plan(backends: list[str], quick: bool, budget: float) -> list[dict]:
    """The suite: per paper case and approach one outer iteration ('iter1': the per-iteration
    cells) and a whole solve ('solve'), the float approaches on the accelerator only (the paper ran
    them on the GPU). The runs are taken cheapest first while they fit the whole-run budget, so a
    backend's one outer iteration is kept before its whole solve of the same case; the runner
    takes the cases cheapest first. --quick solves everything whole (3 outer iterations)."""
    acc = common.accelerator(backends)
    cases, runs = [], []
    for agents in AGENTS:
        for grid in GRIDS:
            size = case_size(agents, grid, quick)
            if size is None:
                continue
            a, g = size
            extra = QUICK_ARGS if quick else []
            for approach, args in APPROACHES.items():
                base = ["--preset", "paper", "--agents", str(a), "--grid", f"{g[0]},{g[1]}", *args, *extra]
                only_acc = {} if approach == "software-double" else {
                    b: f"Table 3 approach: run on {acc} only, as the paper ran it on the GPU only" for b in backends if b != acc}
                modes = (("solve", [], ITERATIONS[approach]),) if quick else (
                    ("iter1", ["--max-iter", "1"], 1), ("solve", [], ITERATIONS[approach]))
                for mode, more, iterations in modes:
                    name = case_name(approach, agents, grid, mode)
                    runs += [(name, b, run_seconds(a, g, iterations, b)) for b in backends if b not in only_acc]
                    cases.append({"name": name, "args": base + more, "size": a, "skip": dict(only_acc)})
    cost = common.apply_budget(cases, runs, budget, quick, ADMIT)
    return [{"name": "krusell-smith-paper", "model": "krusell-smith", "repetitions": 1,
             "warmup": 0, "compare": ["iterations", "results.coefficients"], "cases": common.order_by_cost(cases, cost)}]


def _cpu_series(backends: list[str]):
    """The K-bar error's CPU series: the host backend with the most threads (serial and OpenMP
    give the same K path up to the order of the period's sum)."""
    hosts = [b for b in backends if common.threads_of(b)]
    return max(hosts, key=common.threads_of) if hosts else None


def _kbar_complete(entry: dict) -> bool:
    """Whether an earlier run's K-bar entry has every approach's value (or its reason for none
    that no other run would change)."""
    return "cpu" in entry and all("value" in entry.get(a, {}) or "own run" in entry.get(a, {}).get("reason", "")
                                  for a in APPROACHES)


def _figures_cost(backends: list[str], quick: bool) -> float:
    acc = common.accelerator(backends)
    if acc is None or quick:
        return 0.0
    a, g = FIGURES_CASE
    return run_seconds(a, g, ITERATIONS["software-double"], acc)


def _kept_figures_run(earlier: dict | None):
    """An earlier run's figures solve, where it finished and its arrays are still there."""
    run = (earlier or {}).get("figures_run")
    if run and "error" not in run and Path(run.get("arrays", "")).is_dir():
        return run
    return None


def kbar_plan(backends: list[str], quick: bool, budget: float, reserve: float | None = None,
              done=frozenset()) -> dict:
    """{(agents, grid): estimated seconds} of the K-bar cases run (the CPU series in double and
    each approach on the accelerator, KBAR_ITERATIONS outer iterations each), cheapest first while
    they fit KBAR_SHARE of the budget, or the --extras-budget `reserve` less the figures' solve;
    all of them with --quick. Cases in `done` (an earlier run's) are not run again."""
    cpu, acc = _cpu_series(backends), common.accelerator(backends)
    if cpu is None or acc is None:
        return {}
    costs = {}
    for agents in AGENTS:
        for grid in GRIDS:
            size = case_size(agents, grid, quick)
            if size is not None and (agents, grid) not in done:
                a, g = size
                costs[(agents, grid)] = (run_seconds(a, g, KBAR_ITERATIONS, cpu)
                                         + len(APPROACHES) * run_seconds(a, g, KBAR_ITERATIONS, acc))
    limit = KBAR_SHARE * budget if reserve is None else reserve - _figures_cost(backends, quick)
    kept, used = {}, 0.0
    for key, seconds in sorted(costs.items(), key=lambda kv: kv[1]):
        if quick or used + seconds <= limit:
            kept[key] = seconds
            used += seconds
    return kept


def _kbar_done(earlier: dict | None) -> dict:
    """{(agents, grid): entry} of an earlier run's complete K-bar cells."""
    done = {}
    for key, entry in ((earlier or {}).get("kbar") or {}).items():
        agents, grid = key.split("/")
        if _kbar_complete(entry):
            done[(int(agents), tuple(int(x) for x in grid.split("x")))] = entry
    return done


# --resume keeps the earlier run's complete K-bar cells and figures' solve and makes the rest.
RESUMES_EXTRAS = True


def extras_seconds(backends: list[str], quick: bool, budget: float = float("inf"), earlier=None) -> float:
    """The K-bar runs kbar_plan keeps and the figures' solve on the accelerator."""
    figures = 0.0 if _kept_figures_run(earlier) else _figures_cost(backends, quick)
    return sum(kbar_plan(backends, quick, budget, done=set(_kbar_done(earlier))).values()) + figures


def run_extras(exes: list[dict], quick: bool, out: Path, budget: float, timeout: float, until=None,
               doc: dict | None = None, reserve: float | None = None, earlier: dict | None = None) -> dict:
    """The K-bar error runs (--max-iter 5 --output on the CPU series in double and on the
    accelerator in each approach, the same seed and start) of the cases kbar_plan keeps, and one
    converged solve with --output for Figures B.1-B.3; none past `until` (time.monotonic()). An
    `earlier` run's complete K-bar cells and figures' solve are kept."""
    names = [e["name"] for e in exes]
    by_name = {e["name"]: e for e in exes}
    acc = common.accelerator(names)
    cpu = _cpu_series(names)
    done = _kbar_done(earlier)
    kept = kbar_plan(names, quick, budget, reserve, done=set(done))
    extras = {"kbar": {}, "kbar_cpu": cpu or (earlier or {}).get("kbar_cpu"), "accelerator": acc,
              "figures_run": _kept_figures_run(earlier)}
    fig_size = QUICK_CASES[(10_000, (100, 4))] if quick else FIGURES_CASE
    if acc is not None and extras["figures_run"] is None:
        a, g = fig_size
        args = ["krusell-smith", "--preset", "paper", "--agents", str(a), "--grid", f"{g[0]},{g[1]}"]
        run = common.run_model(by_name[acc], args + (QUICK_ARGS if quick else []), out / "figures-run",
                               common.seconds_left(until, timeout))
        extras["figures_run"] = {k: v for k, v in run.items() if k != "report"}
    share = f"{KBAR_SHARE:.0%} of the budget (--budget)" if reserve is None else "the --extras-budget"
    for agents in AGENTS:
        for grid in GRIDS:
            key = f"{agents}/{grid[0]}x{grid[1]}"
            size = case_size(agents, grid, quick)
            if (agents, grid) in done:
                extras["kbar"][key] = done[(agents, grid)]
                continue
            if size is None:
                extras["kbar"][key] = {"reason": "not run with --quick"}
                continue
            if cpu is None or acc is None:
                extras["kbar"][key] = {"reason": "needs a host backend and an accelerator"}
                continue
            a, g = size
            if (agents, grid) not in kept:
                est = run_seconds(a, g, KBAR_ITERATIONS, cpu)
                extras["kbar"][key] = {"reason": f"the CPU series on {cpu} estimated {common.fmt_seconds(est)}; the "
                                                 f"K-bar runs kept within {share} are the cheaper cases"}
                continue
            base = ["krusell-smith", "--preset", "paper", "--agents", str(a), "--grid", f"{g[0]},{g[1]}",
                    "--max-iter", str(KBAR_ITERATIONS)]
            if quick:
                base += QUICK_ARGS[:-2]  # all but --max-iter
            folder = out / "kbar" / key.replace("/", "-")
            ref = common.run_model(by_name[cpu], base + ["--precision", "double"], folder / f"cpu-{cpu}",
                                   common.seconds_left(until, timeout))
            entry = {"cpu": {k: v for k, v in ref.items() if k != "report"}}
            for approach, args in APPROACHES.items():
                if acc == cpu and approach == "software-double":
                    entry[approach] = {"reason": f"the CPU series' own run ({acc} stands in for the GPU)"}
                    continue
                if "error" in ref:
                    entry[approach] = {"reason": f"CPU series failed: {ref['error']}"}
                    continue
                run = common.run_model(by_name[acc], base + args, folder / f"{approach}-{acc}",
                                       common.seconds_left(until, timeout))
                if "error" in run:
                    entry[approach] = {"reason": f"{acc} run failed: {run['error']}"}
                else:
                    entry[approach] = {"value": kbar_error(Path(ref["arrays"]) / "K_path.npy",
                                                           Path(run["arrays"]) / "K_path.npy")}
            extras["kbar"][key] = entry
    return extras


def kbar_error(cpu_path: Path, other_path: Path) -> float:
    """Hatcher & Scheffel's K-bar error: max_t |K_t,other - K_t,CPU| / K_t,CPU x 100."""
    import numpy as np
    k_cpu, k_other = np.load(cpu_path), np.load(other_path)
    if k_cpu.shape != k_other.shape:
        raise ValueError(f"K paths differ in length: {k_cpu.shape} and {k_other.shape}")
    return float(np.max(np.abs(k_other - k_cpu) / k_cpu) * 100.0)


# ---------------------------------------------------------------------------------------------
# The page

def _phase(summary: dict, phase: str):
    return summary.get("phases_median_s", {}).get(f"parity::krusell_smith::{phase}")


def _per_iteration(summary: dict, phase: str):
    seconds = _phase(summary, phase)
    n = summary.get("results", {}).get("outer_iterations")
    return seconds / n if seconds is not None and n else None


def _run(doc: dict, approach: str, agents: int, grid: tuple, backend: str, prefer: str = "solve"):
    """(summary, mode, None) of a backend's run of a paper case, the solve before one outer
    iteration; or (None, None, reason)."""
    reasons = []
    for mode in (("solve", "iter1") if prefer == "solve" else ("solve",)):
        s, why = common.measured(doc, case_name(approach, agents, grid, mode), backend)
        if s is not None:
            return s, mode, None
        reasons.append(why.removeprefix(f"{backend} skipped: "))
    return None, None, f"{backend} skipped: " + "; ".join(dict.fromkeys(reasons))


def _largest_run(doc: dict, backend: str, grid: tuple | None = None, solves_first: bool = False):
    """(agents, grid, summary) of the backend's software-double run with the most agents (on
    `grid` only, when given; a solve before one outer iteration of the same case, or with
    `solves_first` before any one outer iteration), or None."""
    for modes in ((("solve",), ("solve", "iter1")) if solves_first else (("solve", "iter1"),)):
        for agents in reversed(AGENTS):
            for g in ([grid] if grid else GRIDS):
                s, mode, _ = _run(doc, "software-double", agents, g, backend)
                if s is not None and mode in modes and _phase(s, "panel") is not None:
                    return agents, g, s
    return None


def _scaled(doc, quantity, agents, grid, backend):
    """A host backend's per-case quantity where no run of this set measured it, from the
    backend's own runs: (value, None, how) or (None, reason, None). The panel and the draw cost
    the same per agent-period, the policy step the same per outer iteration at any agent count,
    and the outer iterations are another backend's double solve of the case (double runs follow
    one K path: the K-bar error)."""
    if quantity == "policy_time":
        # A whole solve's mean first: its later outer iterations start from the last policy.
        src = _largest_run(doc, backend, grid, solves_first=True)
        if src is not None:
            return (_per_iteration(src[2], "policy"), None,
                    f"the {src[0]:,}-agent run's: the policy step does not depend on the agents")
        # Else per node from the backend's largest grid: the step's cost is nodes x Euler iterations.
        src = next((r for g in reversed(GRIDS) if (r := _largest_run(doc, backend, g, True)) is not None), None)
        if src is None:
            return None, f"no {backend} run to take the policy step from", None
        nodes = grid[0] * grid[1] / (src[1][0] * src[1][1])
        return (_per_iteration(src[2], "policy") * nodes, None,
                f"scaled per node from the {src[1][0]}({src[1][1]}) grid's run")
    src = _largest_run(doc, backend)
    if src is None:
        return None, f"no {backend} run to scale from", None
    ratio = agents / src[0]
    panel = _per_iteration(src[2], "panel") * ratio
    if quantity == "panel_time":
        return panel, None, f"scaled per agent-period from the {src[0]:,}-agent {src[1][0]}({src[1][1]}) run"
    solver = next((b for b in sorted(doc.get("backends", {}), key=lambda b: (common.threads_of(b) or 0, b))
                   if b != backend and _run(doc, "software-double", agents, grid, b, "solve")[1] == "solve"), None)
    if solver is None:
        return None, "no backend solved the case whole, so its outer iterations are unknown", None
    solved, _, _ = _run(doc, "software-double", agents, grid, solver, "solve")
    iterations = solved.get("results", {}).get("outer_iterations")
    if quantity == "iterations":
        return f"{iterations}", None, f"{solver}'s double solve of the case: double runs follow one K path"
    # total_time: the draw + iterations x (panel + policy), as the paper's Total Time adds them.
    policy, why, _ = _scaled(doc, "policy_time", agents, grid, backend)
    if policy is None:
        return None, why, None
    draw = (_phase(src[2], "shocks") or 0.0) * ratio
    return (draw + iterations * (panel + policy), None,
            f"scaled: the draw + {iterations} outer iterations ({solver}'s solve) x (panel + policy), each scaled")


def _value(doc, quantity, approach, agents, grid, backend, scale=False):
    """Parity's value of a per-case quantity on a backend: (value, None, how) where `how` says
    how a value not measured was scaled (None when measured), or (None, reason, None). With
    `scale`, a host backend's times that no run measured are scaled from its own runs."""
    s, mode, why = _run(doc, approach, agents, grid, backend)
    if s is None or (mode != "solve" and quantity in ("iterations", "total_time")):
        if mode is not None:
            _, why = common.measured(doc, case_name(approach, agents, grid, "solve"), backend)
            why = f"one outer iteration timed, no whole solve ({why})"
        if scale and common.threads_of(backend):
            v, scaled_why, how = _scaled(doc, quantity, agents, grid, backend)
            if v is not None:
                return v, None, how
            why = f"{why}; not scaled: {scaled_why}"
        return None, why, None
    if quantity == "panel_time":
        return _per_iteration(s, "panel"), None, None
    if quantity == "policy_time":
        return _per_iteration(s, "policy"), None, None
    if quantity == "iterations":
        n = s["results"].get("outer_iterations")
        return (f"{n}" if s.get("status") == "converged" else f"{n} ({s.get('status')})"), None, None
    if quantity == "total_time":
        return s["median_s"], None, None
    raise KeyError(quantity)


def _memory(doc, approach, agents, grid, backend):
    s, _, why = _run(doc, approach, agents, grid, backend)
    if s is None:
        return None, why
    m = s.get("memory") or {}
    if m.get("device_peak_bytes") is None:
        return None, "the report has no memory record (an executable older than the memory report)"
    return (f"Kokkos peak {m['device_peak_bytes'] / 2**30:.4g} GiB, host resident peak "
            f"{m['host_peak_resident_bytes'] / 2**30:.4g} GiB"), None


def _speedup(doc, quantity, approach, agents, grid, cpu, acc, scale=False):
    """The paper's ratio, one core's time over the accelerator's: (value, None, how) with how set
    where the one-core time is scaled, or (None, reason, None)."""
    if cpu is None or acc is None:
        return None, "needs a one-core backend (serial or openmp-1) and an accelerator", None
    time = "panel_time" if quantity == "panel_speedup" else "total_time"
    c, why_c, how = _value(doc, time, "software-double", agents, grid, cpu, scale)
    g, why_g, _ = _value(doc, time, approach, agents, grid, acc)
    if c is None:
        return None, why_c if why_c.startswith(cpu) else f"{cpu}: {why_c}", None
    if g is None:
        return None, why_g if why_g.startswith(acc) else f"{acc}: {why_g}", None
    return c / g, None, (f"{cpu}'s time {how}" if how else None)


def page(paper: dict, doc: dict, extras: dict, out: Path, quick: bool) -> str:
    backends = list(doc.get("backends", {}))
    cpu = common.cpu_reference(backends)
    acc = common.page_accelerator(backends, extras)
    by_thread = {1: [b for b in ("serial", "openmp-1") if b in backends], 2: ["openmp-2"], 4: ["openmp-4"]}
    all_cores = [b for b in backends if b.startswith("openmp-") and common.threads_of(b) not in (1, 2, 4)]
    lines = [f"# Reproducing {paper['paper']}", "",
             f"Model `{paper['model']}` with `--preset paper`. The paper's machine: {paper['hardware']}. "
             "This run's backends:", common.backend_facts(doc), ""]
    if quick:
        lines += ["**--quick**: the cases are shrunk (agents, grid, 200 periods, 3 outer iterations) to test the "
                  "machinery; the numbers are not comparable with the paper's.", ""]
    if acc and not common.is_device(acc):
        lines += [f"No device backend in this run: {acc} stands in for the paper's GPU in Table 3.", ""]
    lines += ["Deviations: the policy step runs on the same backend as the panel (the paper: on one CPU core, "
              "FITPACK splines), so Polf. Time and Total Time are Parity's on each backend; Parity's total also "
              "holds the employment draw (once per solve) and the accuracy checks; Panel Time and Polf. Time are "
              "the fenced phase seconds over the outer iterations. The start is Parity's carried cross-section, "
              "not Den Haan's file. Where a whole solve does not fit the budget, one outer iteration is timed "
              "(per-iteration cells only; its policy step starts from scratch, so it costs several times the mean "
              "of a whole solve's, whose later steps start from the last policy). A host backend's time that no run of the budget measured is scaled from "
              "its own runs and labelled so: the panel and the employment draw per agent-period from its run with "
              "the most agents, the policy step from its run on the same grid (its cost does not depend on the "
              "agents) or per node from its largest grid, the outer iterations from another backend's double "
              "solve of the case. Estimated times: "
              + BASIS + ". See docs/reproducing.md.", ""]
    cells = paper["cells"]
    for table in ("2", "3", "B.1"):
        meta = paper["tables"][table]
        lines += [f"## Table {table}: {meta['title']}", "", meta["note"], ""]
        if table == "3":
            lines += ["Parity's approaches: " + "; ".join(f"{k} = `{v}`" for k, v in PARITY_APPROACH.items())
                      + f". K-bar error: {KBAR_ITERATIONS} outer iterations on {extras.get('kbar_cpu')} (double) and "
                        f"on {acc} (each approach), the same seed and start, max |K_t - K_t,CPU| / K_t,CPU x 100 over "
                        "the K_path.npy series.", ""]
        lines.append(common.TABLE_HEAD)
        for cell in (c for c in cells if c["table"] == table):
            lines.append(common.cell_line(cell, _parity_values(cell, doc, extras, quick, by_thread, all_cores, cpu, acc)))
        lines.append("")
    lines += ["## Not reproduced", ""]
    lines += [f"- Table {k}: {v}." for k, v in paper["not_reproduced"].items()]
    lines += ["", "## Figures", ""]
    lines += _figures(paper, doc, extras, out, quick, cpu, acc)
    return "\n".join(lines) + "\n"


def _paper_case(cell):
    return tuple(cell["grid"]) if "grid" in cell else None


def _parity_values(cell, doc, extras, quick, by_thread, all_cores, cpu, acc):
    q = cell["quantity"]
    if cell["table"] == "B.1":
        return [_calibration(cell, doc)]
    agents = cell["agents"]
    if q == "memory":
        # The paper's Mem depends on the agents only: the first grid this run solved.
        grid = next((g for g in GRIDS if case_size(agents, g, quick) is not None), None)
        if grid is None:
            return [("all", None, "not run with --quick")]
        if cell["table"] == "3":
            who = [acc] if acc else []
        else:  # one core's run, else the host backend with the fewest threads that ran the case
            hosts = sorted((b for b in doc.get("backends", {}) if common.threads_of(b)), key=common.threads_of)
            ran = [b for b in hosts if _run(doc, "software-double", agents, grid, b)[0] is not None]
            who = [cpu] if cpu in ran or not ran else ran[:1]
        out = []
        for b in who:
            v, why = _memory(doc, "software-double", agents, grid, b)
            out.append((f"{b} ({grid[0]}x{grid[1]})", v, why))
        return out or [("—", None, "no backend for this table in the run")]
    grid = tuple(cell["grid"])
    if case_size(agents, grid, quick) is None:
        return [("all", None, "not run with --quick")]
    if cell["table"] == "2":
        backends = list(by_thread[cell["threads"]]) + (all_cores if cell["threads"] == 4 else [])
        out = []
        for b in backends:
            label = f"{b} (all cores)" if b in all_cores else b
            if b not in doc.get("backends", {}):
                out.append((label, None, f"no {b} in this run" + (
                    f" ({extras.get('dropped', {}).get(b)})" if extras.get("dropped", {}).get(b) else "")))
                continue
            v, why, how = _value(doc, q, "software-double", agents, grid, b, scale=not quick)
            out.append((common.labelled(label, how), v, why))
        return out
    approach = cell["approach"]
    if q in ("panel_speedup", "total_speedup"):
        v, why, how = _speedup(doc, q, approach, agents, grid, cpu, acc, scale=not quick)
        label = f"{cpu}/{acc}" if cpu and acc else "ratio"
        return [(common.labelled(label, how), v, why)]
    if q == "kbar_error":
        entry = extras.get("kbar", {}).get(f"{agents}/{grid[0]}x{grid[1]}", {"reason": "K-bar runs not made"})
        if "reason" in entry:
            return [(acc or "—", None, entry["reason"])]
        r = entry.get(approach, {})
        return [(f"{acc} vs {extras.get('kbar_cpu')}", r.get("value"), r.get("reason"))]
    if acc is None:
        return [("—", None, "no accelerator in this run")]
    v, why, _ = _value(doc, q, approach, agents, grid, acc)
    return [(acc, v, why)]


def _calibration(cell, doc):
    """Table B.1 from the first report of the run: parameters and the chain Parity derives from
    the targets (durations, unemployment rates, Krusell-Smith ratios)."""
    summary = next((s for e in doc.get("results", []) for s in e.get("backends", {}).values()), None)
    if summary is None:
        return ("report", None, "no run in this results set")
    p, r = summary.get("parameters", {}), summary.get("results", {})
    q = cell["quantity"]
    if q == "transition":
        order = _parity_state_order(r.get("transition_state_order", ""))
        m = r.get("transition_matrix")
        if order is None or m is None:
            return ("report", None, "the report has no transition matrix")
        return ("parameters", m[order[cell["from"]]][order[cell["to"]]], None)
    if q == "delta_a":
        return ("parameters (z_good - 1)", p["z_good"] - 1.0 if "z_good" in p else None, "no z_good in the report")
    return ("parameters", p.get(q), f"no {q} in the report")


def _parity_state_order(text: str):
    """Paper state index (bad-u, bad-e, good-u, good-e) -> Parity's row, from the report's
    'transition_state_order' ('(z, eps): (good, unemployed), (good, employed), ...')."""
    pairs = re.findall(r"\((good|bad), (unemployed|employed)\)", text)
    want = [("bad", "unemployed"), ("bad", "employed"), ("good", "unemployed"), ("good", "employed")]
    try:
        return [pairs.index(w) for w in want]
    except ValueError:
        return None


def _figures(paper, doc, extras, out, quick, cpu, acc):
    lines = []
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [f"- Figure {k}: not drawn (matplotlib is missing)." for k in paper["figures"]]
    # Figure 1: G = T_CPU / T_GPU (double) against the agents, panel stage and whole algorithm.
    fig, axes = plt.subplots(2, 1, figsize=(6, 7), sharex=True)
    drawn = 0
    for ax, quantity, title in ((axes[0], "panel_speedup", "panel simulation"), (axes[1], "total_speedup", "whole algorithm")):
        for grid in GRIDS:
            pts = []
            for agents in AGENTS:
                size = case_size(agents, grid, quick)
                if size is None:
                    continue
                v, _, how = _speedup(doc, quantity, "software-double", agents, grid, cpu, acc, scale=not quick)
                if v is not None:
                    pts.append((size[0], v, how is not None))
            if pts:
                line, = ax.plot([x for x, _, _ in pts], [v for _, v, _ in pts], marker="o", label=f"{grid[0]}({grid[1]})")
                scaled = [(x, v) for x, v, sc in pts if sc]
                if scaled:  # hollow: the one-core time is scaled, not measured
                    ax.plot(*zip(*scaled), linestyle="none", marker="o", markerfacecolor="white",
                            markeredgecolor=line.get_color())
                drawn += 1
        ax.set_xscale("log")
        ax.set_ylabel(f"G = T({cpu}) / T({acc})")
        ax.set_title(f"Speed-up, double precision: {title}")
        ax.grid(True, alpha=0.3)
        if ax.lines:
            ax.legend()
    axes[1].set_xlabel("agents")
    if drawn:
        fig.savefig(out / f"{PAPER}-figure1.png", dpi=110, bbox_inches="tight")
        lines.append(f"- Figure 1 ({paper['figures']['1']}): [{PAPER}-figure1.png]({PAPER}-figure1.png), "
                     f"from this run's Table 3 software-double speed-ups ({cpu} against {acc}; hollow points: "
                     f"{cpu}'s time scaled, as in the tables).")
    else:
        lines.append(f"- Figure 1: not drawn: no speed-up could be computed ({cpu} against {acc}).")
    plt.close(fig)
    run = extras.get("figures_run")
    if not run or "error" in run:
        why = run["error"] if run else "no accelerator run with --output (or the case is left out with --quick)"
        lines += [f"- Figure {k}: not drawn: {why}." for k in ("B.1", "B.2", "B.3")]
        return lines
    lines += _policy_figures(Path(run["arrays"]), out, paper, plt)
    return lines


def _policy_figures(arrays: Path, out: Path, paper: dict, plt) -> list[str]:
    """Figures B.1-B.3 from policy.npy (nk, nK, z, eps): the savings k' - k. B.2/B.3 at K = 39,
    linear in K between the two nearest K nodes (39 is not a node of the paper's 50-node grid
    either)."""
    import numpy as np
    pol, k, K = np.load(arrays / "policy.npy"), np.load(arrays / "k_grid.npy"), np.load(arrays / "K_grid.npy")
    names = {(0, 0): "good, unemployed", (0, 1): "good, employed", (1, 0): "bad, unemployed", (1, 1): "bad, employed"}
    fig = plt.figure(figsize=(10, 8))
    mask = k <= 100
    for i, ((z, e), name) in enumerate(names.items()):
        ax = fig.add_subplot(2, 2, i + 1, projection="3d")
        kk, KK = np.meshgrid(k[mask], K, indexing="ij")
        ax.plot_surface(kk, KK, pol[mask, :, z, e] - kk, cmap="viridis")
        ax.set_xlabel("k")
        ax.set_ylabel("K")
        ax.set_zlabel("k' - k")
        ax.set_title(name)
    fig.savefig(out / f"{PAPER}-figureB1.png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    j = int(np.clip(np.searchsorted(K, 39.0) - 1, 0, len(K) - 2))
    w = (39.0 - K[j]) / (K[j + 1] - K[j])
    at39 = (1 - w) * pol[:, j] + w * pol[:, j + 1]
    written = [f"- Figure B.1 ({paper['figures']['B.1']}; k up to 100): [{PAPER}-figureB1.png]({PAPER}-figureB1.png), "
               f"Parity's policy after the run's last outer iteration on its {len(k)} x {len(K)} grid (the paper: 500 x 50)."]
    for tag, lo, hi in (("B2", 10.0, 50.0), ("B3", 100.0, 800.0)):
        fig, ax = plt.subplots(figsize=(6, 4))
        sel = (k >= lo) & (k <= hi)
        for (z, e), name in names.items():
            ax.plot(k[sel], at39[sel, z, e] - k[sel], label=name)
        ax.set_xlabel("k")
        ax.set_ylabel("k' - k at K = 39")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.savefig(out / f"{PAPER}-figure{tag}.png", dpi=110, bbox_inches="tight")
        plt.close(fig)
        key = tag[0] + "." + tag[1]
        written.append(f"- Figure {key} ({paper['figures'][key]}): [{PAPER}-figure{tag}.png]({PAPER}-figure{tag}.png), "
                       f"linear in K between the nodes {K[j]:.4g} and {K[j + 1]:.4g}.")
    return written


def check_transition_sums(paper: dict) -> list[float]:
    """Row sums of the transcribed Table B.1 chain (each 1 when transcribed right)."""
    rows = {}
    for c in paper["cells"]:
        if c["quantity"] == "transition":
            rows[c["from"]] = rows.get(c["from"], 0.0) + c["value"]
    return [rows[i] for i in sorted(rows)]


def paper_total_consistency(paper: dict) -> list[float]:
    """Table 2's Total Time over Iterations x (Panel Time + Polf. Time), per cell (near 1 where the
    reading of per-iteration times holds)."""
    by = {}
    for c in paper["cells"]:
        if c["table"] == "2" and "threads" in c and not c.get("inconsistent"):
            by.setdefault((c["agents"], tuple(c["grid"]), c["threads"]), {})[c["quantity"]] = c["value"]
    return [v["total_time"] / (v["iterations"] * (v["panel_time"] + v["policy_time"])) for v in by.values()
            if "total_time" in v]

