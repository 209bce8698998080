"""Arumugam, Godunov, Ranjan, Terzic & Zubair (2013), Tables II and III, with `cubature --mode
paper` (the published two-phase algorithm: CUHRE's degree-9 rule, INIT-PARTITION into Lmax =
32768, per-region classification, SECOND PHASE sequential CUHRE on every handed-over region).

The paper's CPU column is CUBA's serial C CUHRE; Parity's sequential baseline is the same
two-phase algorithm on the Serial backend (one core), and hcubature (perf/peers) where given as a
peer. A one-core run of the paper's cases takes minutes to an hour, so every host backend also
runs each case with its evaluations capped (CAP_EVALS) and its seconds per evaluation, times the
full run's evaluations (the same on every backend: Parity's sums and decisions do not depend on
it), give the time labelled `scaled`; the full run is measured where the whole-run budget has room."""
from __future__ import annotations

import json
from pathlib import Path

from . import common

PAPER = "cubature"
SUITE = Path(__file__).resolve().parents[1] / "suites" / "cubature-paper.json"
CASES = (("f1", 7, "1e-5"), ("f2", 5, "1e-2"), ("f3", 5, "1e-2"), ("f4", 6, "1e-5"), ("f5", 8, "1e-7"))
# --quick: each case at a small dimension with Lmax 256, so that both phases run in a second.
QUICK = {"f1": (4, "1e-5"), "f2": (3, "1e-2"), "f3": (4, "1e-2"), "f4": (3, "1e-5"), "f5": (4, "1e-7")}
QUICK_ARGS = ["--max-evals", "2e7", "--max-memory-mb", "512", "--max-regions", "256"]
CAP_EVALS = {False: 5e7, True: 2e6}
PEERS = ("hcubature",)
# Estimates. One core's integrand evaluations per second in paper mode (the development host,
# docs/models/cubature.md: f2 5-D 6.2e8 in 63 s on 2 cores ...), and the evaluations of the full
# runs (one H200: perf/results/reproduce-h200) with the device's seconds.
EVALS_PER_CORE_S = {"f1": 4.8e6, "f2": 4.9e6, "f3": 2.6e6, "f4": 5.5e6, "f5": 2.8e6}
FULL_EVALS = {"f1": 9.24e9, "f2": 8.32e8, "f3": 1.0e10, "f4": 7.63e8, "f5": 2.75e8}
DEVICE_S = {"f1": 2.9, "f2": 0.3, "f3": 3.7, "f4": 0.5, "f5": 0.05}
# Without FIRST PHASE the device's phase 2 is load-imbalanced (the paper's Table II: 1.6-4x
# slower); Parity's runs one region per team, so fewer, larger regions keep fewer teams busy:
# taken as 20x (not measured), which schedules these runs after the cheaper ones.
NO_PHASE1_FACTOR = 20.0
# hcubature (the peer, one core) at the improved-mode cases' 1e8 evaluations: 27-95 s.
PEER_S = 100.0
BASIS = ("one core's integrand evaluations per second in paper mode over the threads (parallel efficiency 0.7), "
         "the full runs' evaluation counts and the device's seconds from an H200's run, plus each run's start-up; "
         "the runs taken cheapest first while they fit the whole-run budget")


def case_key(integrand: str, dim: int, tol: str) -> str:
    return f"{integrand}-{dim}d-{tol}"


def case_name(integrand: str, dim: int, tol: str, kind: str) -> str:
    """kind: full (the paper's case), capped (CAP_EVALS), no-phase1 (SECOND PHASE on INIT-PARTITION's
    list), cuhre-average (the full case stopping on CUBA Cuhre's averaged estimate), hcubature (the
    peer's run)."""
    return f"{case_key(integrand, dim, tol)}-{kind}"


def _suite_args(integrand: str, dim: int, tol: str, mode: str) -> list[str]:
    """The case's arguments from perf/suites/cubature-paper.json (paper: the -paper case)."""
    name = case_key(integrand, dim, tol) + ("-paper" if mode == "paper" else "")
    suite = json.loads(SUITE.read_text())
    return list(next(c for c in suite["cases"] if c["name"] == name)["args"])


def _replace(args: list[str], option: str, value: str) -> list[str]:
    out = list(args)
    if option in out:
        out[out.index(option) + 1] = value
    else:
        out += [option, value]
    return out


def paper_cases(quick: bool):
    """(integrand, dim, tol) run for each paper case: the paper's, or --quick's stand-in."""
    for f, n, tol in CASES:
        yield (f, *QUICK[f]) if quick else (f, n, tol)


def plan(backends: list[str], quick: bool, budget: float) -> list[dict]:
    """One suite (one run per case, double): per paper case the full run on every backend, the
    capped run on the host backends, the run without FIRST PHASE on the accelerator and the peer's
    run; the runs that do not fit the budget (cheapest first) are skipped with their estimates."""
    acc = common.accelerator([b for b in backends if b not in PEERS])
    parity = [b for b in backends if b not in PEERS]
    peers = [b for b in backends if b in PEERS]
    cases, runs = [], []
    for f, n, tol in paper_cases(quick):
        if quick:
            full = ["--integrand", f, "--dim", str(n), "--rel-tol", tol, "--mode", "paper", *QUICK_ARGS]
            improved = ["--integrand", f, "--dim", str(n), "--rel-tol", tol, "--max-evals", "2e7"]
        else:
            full = _suite_args(f, n, tol, "paper")
            improved = _suite_args(f, n, tol, "improved")
        one_core = FULL_EVALS[f] / EVALS_PER_CORE_S[f]
        capped_core = min(one_core, CAP_EVALS[quick] / EVALS_PER_CORE_S[f])
        hosts = [b for b in parity if common.threads_of(b)]
        for kind, args, who, skip_why in (
                ("full", full, parity, {}),
                ("capped", _replace(full, "--max-evals", f"{CAP_EVALS[quick]:.0e}"), hosts,
                 {acc: "the accelerator's full run is measured"} if acc and acc not in hosts else {}),
                ("no-phase1", full + ["--max-phase1-iterations", "1"], [acc] if acc else [], {}),
                ("cuhre-average", full + ["--cuhre-average"], [acc] if acc else [], {}),
                ("hcubature", improved, peers, {})):
            if not who:
                continue  # no peer or no accelerator given
            name = case_name(f, n, tol, kind)
            skip = dict(skip_why)
            for b in backends:
                if b not in who and b not in skip:
                    skip[b] = _not_run(kind, b, acc)
            for b in who:
                if kind == "hcubature":
                    seconds = PEER_S if not quick else 1.0
                else:
                    core = capped_core if kind == "capped" else one_core
                    device = DEVICE_S[f] * (NO_PHASE1_FACTOR if kind == "no-phase1" else 1.0)
                    seconds = common.run_seconds(b, core, device if not quick else 0.1)
                runs.append((name, b, seconds))
            cases.append({"name": name, "args": args, "size": n, "skip": skip})
    cost = common.apply_budget(cases, runs, budget, quick)
    return [{"name": "cubature-paper-reproduction", "model": "cubature", "repetitions": 1, "warmup": 0,
             "precisions": ["double"], "peers": {p: ["double"] for p in PEERS},
             "columns": ["results.evaluations", "results.status", "results.phase1_iterations",
                         "results.phase2_regions"],
             "compare": ["results.integral", "results.evaluations"], "cases": common.order_by_cost(cases, cost)}]


def _not_run(kind: str, backend: str, acc: str | None) -> str:
    if kind == "hcubature":
        return "the peer's run (hcubature, improved-mode arguments)"
    if kind == "no-phase1":
        return f"Table II's GPU-only comparison: run on {acc} only"
    if kind == "cuhre-average":
        return f"CUBA's stopping rule beside the GPU's cells: run on {acc} only"
    if kind == "capped":
        return "a host backend's run, scaled per evaluation"
    return "a peer runs its own case"


def extras_seconds(backends: list[str], quick: bool, budget: float = float("inf"), earlier=None) -> float:
    return 0.0


def run_extras(exes: list[dict], quick: bool, out: Path, budget: float, timeout: float, until=None,
               doc: dict | None = None, reserve: float | None = None, earlier: dict | None = None) -> dict:
    return {"accelerator": common.accelerator([e["name"] for e in exes])}


# ---------------------------------------------------------------------------------------------
# The page

def _summary(doc, f, n, tol, kind, backend):
    return common.measured(doc, case_name(f, n, tol, kind), backend)


def _phase_ms(s: dict, phase: str) -> float:
    return 1e3 * s.get("phases_median_s", {}).get(f"parity::cubature::{phase}", 0.0)


def _status(s: dict) -> str:
    r = s.get("results", {})
    return f"{s.get('status')}, true error {r.get('relative_true_error', float('nan')):.2g}"


def host_time(doc, f, n, tol, backend, acc):
    """(seconds, label suffix, None) of a host backend on a paper case: its full run, else its capped
    run's seconds per evaluation times the accelerator's full run's evaluations; or (None, '',
    reason)."""
    s, why = _summary(doc, f, n, tol, "full", backend)
    if s is not None:
        return s["median_s"], "", None
    c, why_c = _summary(doc, f, n, tol, "capped", backend)
    if c is None:
        return None, "", f"{why}; capped run: {why_c}"
    evals = c["results"].get("evaluations")
    g, why_g = _summary(doc, f, n, tol, "full", acc) if acc else (None, "no accelerator")
    if g is None:
        return None, "", f"{why}; no full-run evaluation count to scale to ({why_g})"
    total = g["results"]["evaluations"]
    return c["median_s"] / evals * total, f" (scaled from {evals:.3g} to {total:.3g} evaluations)", None


def _cell_values(cell, doc, cpu, acc, hosts, quick):
    f, n, tol = cell["integrand"], cell["dim"], cell["rel_tol"]
    if quick:
        n, tol = QUICK[f]
    q = cell["quantity"]
    if cell["table"] == "II":
        if acc is None:
            return [("—", None, "no accelerator in this run")]
        kind = "no-phase1" if q == "phase2_time_without" else "full"
        s, why = _summary(doc, f, n, tol, kind, acc)
        if s is None:
            return [(acc, None, why)]
        if q == "phase1_iterations":
            return [(acc, s["results"].get("phase1_iterations"), None)]
        if q == "phase1_time":
            return [(acc, _phase_ms(s, "phase1"), None)]
        label = acc + ("" if s["results"].get("phase2_regions") else " (no region handed to phase 2)")
        return [(f"{label}, {s['results'].get('phase2_regions', 0):,} regions", _phase_ms(s, "phase2"), None)]
    if q == "gpu_time" or q == "gpu_evaluations":
        if acc is None:
            return [("—", None, "no accelerator in this run")]
        out = []
        for kind, flag in (("full", None), ("cuhre-average", "--cuhre-average")):
            s, why = _summary(doc, f, n, tol, kind, acc)
            if s is None:
                out.append((common.labelled(acc, flag), None, why))
            elif q == "gpu_time":
                out.append((common.labelled(acc, ", ".join(filter(None, (flag, _status(s))))), s["median_s"], None))
            else:
                out.append((common.labelled(acc, flag), float(s["results"]["evaluations"]), None))
        return out
    if q == "cpu_time":
        out = []
        for b in hosts:
            v, suffix, why = host_time(doc, f, n, tol, b, acc)
            out.append((b + suffix, v, why))
        if "hcubature" in doc.get("backends", {}):
            p, why = _summary(doc, f, n, tol, "hcubature", "hcubature")
            label = "hcubature peer" + (f" ({_status(p)}, {p['results'].get('evaluations', 0):.3g} evaluations)"
                                        if p else "")
            out.append((label, p["median_s"] if p else None, why))
        return out or [("—", None, "no host backend in this run")]
    if q == "cpu_evaluations":
        if cpu is None:
            return [("—", None, "no one-core backend in this run")]
        s, why = _summary(doc, f, n, tol, "full", cpu)
        if s is not None:
            return [(cpu, float(s["results"]["evaluations"]), None)]
        g, why_g = _summary(doc, f, n, tol, "full", acc) if acc else (None, "no accelerator")
        if g is not None:
            return [(f"{acc} (the count does not depend on the backend)", float(g["results"]["evaluations"]), None)]
        return [(cpu, None, f"{why}; {why_g}")]
    if q == "speedup":
        if cpu is None or acc is None:
            return [("ratio", None, "needs a one-core backend (serial or openmp-1) and an accelerator")]
        c, suffix, why_c = host_time(doc, f, n, tol, cpu, acc)
        g, why_g = _summary(doc, f, n, tol, "full", acc)
        if c is None or g is None:
            return [(f"{cpu}/{acc}", None, why_c or why_g)]
        return [(f"{cpu}/{acc}{suffix}", c / g["median_s"], None)]
    raise KeyError(q)


def page(paper: dict, doc: dict, extras: dict, out: Path, quick: bool) -> str:
    backends = [b for b in doc.get("backends", {}) if b not in PEERS]
    cpu = common.cpu_reference(backends)
    acc = common.page_accelerator(backends, extras)
    hosts = [b for b in ("serial", "openmp-1", "openmp-2", "openmp-4") if b in backends]
    hosts += [b for b in backends if b.startswith("openmp-") and b not in hosts]
    lines = [f"# Reproducing {paper['paper']}", "",
             f"Model `{paper['model']}` with `--mode paper` (the published algorithm: docs/models/cubature.md, Paper "
             f"mode), double, the arguments of `perf/suites/cubature-paper.json`'s paper cases (1e10 evaluations, "
             f"16 GB). The paper's machine: {paper['hardware']}. This run's backends:", common.backend_facts(doc), ""]
    if quick:
        lines += ["**--quick**: each case at a small dimension with Lmax 256 (" + ", ".join(
            f"{f} {n}-D at {t}" for f, (n, t) in QUICK.items()) + "): a test of the machinery; the numbers are not "
            "comparable with the paper's.", ""]
    if acc and not common.is_device(acc):
        lines += [f"No device backend in this run: {acc} stands in for the paper's GPU.", ""]
    budget = extras.get("budget_s")
    lines += ["Deviations: the paper's CPU column is CUBA's serial C CUHRE; Parity's sequential baseline is the same "
              "two-phase algorithm on the Serial backend (one core), and the other host backends beside it "
              "(hcubature, a different h-adaptive method, where given with `--peer hcubature=PATH`). A host "
              "backend's time is its full run where the budget had room, else its run capped at "
              f"{CAP_EVALS[quick]:.0e} evaluations, its seconds per evaluation times the full run's evaluations "
              "(`scaled`: Parity's evaluation count does not depend on the backend). 'Without FIRST PHASE' is "
              "`--max-phase1-iterations 1`: INIT-PARTITION and one classification pass, the regions that already "
              "meet their tolerance leave and the rest go to SECOND PHASE unsplit. Parity's SECOND PHASE time is "
              "its `phase2` phase, which starts with the rule on every handed-over region. The GPU cells also "
              "give the run with `--cuhre-average`: phase 2 stops on CUBA Cuhre's default estimate, the "
              "1/error^2-weighted average of its running estimates, as the paper's CPU baseline did (no bound: "
              "see its true error). Times are the fenced phases of one run. "
              + (f"Whole-run budget {common.fmt_seconds(budget)} (--budget): " if budget else "No budget: ")
              + "estimated times: " + BASIS + ". See docs/reproducing.md.", ""]
    for table in ("II", "III"):
        meta = paper["tables"][table]
        lines += [f"## Table {table}: {meta['title']}", "", meta["note"], "", common.TABLE_HEAD]
        for cell in (c for c in paper["cells"] if c["table"] == table):
            lines.append(common.cell_line(cell, _cell_values(cell, doc, cpu, acc, hosts, quick)))
        lines.append("")
    lines += ["## Not reproduced", ""]
    lines += [f"- {k if k.startswith('Fig') else 'Table ' + k}: {v}." for k, v in paper["not_reproduced"].items()]
    lines += ["", "## Figures", ""]
    lines += _figure(paper, doc, out, cpu, acc, quick)
    return "\n".join(lines) + "\n"


def _figure(paper, doc, out, cpu, acc, quick):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ["- Figure 2: not drawn (matplotlib is missing)."]
    fig, ax = plt.subplots(figsize=(6, 4))
    drawn = 0
    for f, n, tol in paper_cases(quick):
        cell = {"integrand": f, "dim": n, "rel_tol": tol, "quantity": "speedup", "table": "III"}
        ((_, v, _),) = _cell_values(cell, doc, cpu, acc, [], False)
        paper_v = next(c["value"] for c in paper["cells"] if c["integrand"] == f and c["quantity"] == "speedup")
        ax.scatter([float(tol)], [paper_v], marker="x", color="gray")
        if v is not None:
            ax.scatter([float(tol)], [v], marker="o")
            ax.annotate(f"{f} {n}-D", (float(tol), v), fontsize=8)
            drawn += 1
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.invert_xaxis()
    ax.set_xlabel("relative tolerance")
    ax.set_ylabel(f"T({cpu}) / T({acc})")
    ax.set_title("Speed-up on the Table III cases (x: the paper's)")
    ax.grid(True, alpha=0.3)
    lines = []
    if drawn:
        fig.savefig(out / f"{PAPER}-figure2.png", dpi=110, bbox_inches="tight")
        lines.append(f"- Figure 2 ({paper['figures']['2']}): [{PAPER}-figure2.png]({PAPER}-figure2.png), this run's "
                     f"Table III speed-ups ({cpu} against {acc}) beside the paper's (grey crosses); the paper's "
                     "sweeps over tolerances and dimensions are not rerun.")
    else:
        lines.append(f"- Figure 2: not drawn: no speed-up could be computed ({cpu} against {acc}).")
    plt.close(fig)
    return lines
