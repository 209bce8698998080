"""perf/reproduce: one command per paper that runs what the paper ran on every backend given and
writes <out>/<paper>.md, each published cell beside Parity's values (docs/reproducing.md)."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from . import PAPERS, common, module

HERE = Path(__file__).resolve().parent


def load_paper(paper: str) -> dict:
    return json.loads((HERE / "papers" / f"{paper}.json").read_text())


def write_page(paper: str, doc: dict, extras: dict, out: Path, quick: bool) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    text = module(paper).page(load_paper(paper), doc, extras, out, quick)
    path = out / f"{paper}.md"
    path.write_text(text)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="perf/reproduce", description=__doc__)
    ap.add_argument("paper", choices=sorted(PAPERS))
    ap.add_argument("--exe", action="append", default=[], type=common.runner.parse_exe,
                    help="serial=PATH[,threads=1], openmp=PATH (run at 1, 2, 4 and all cores), cuda=PATH (repeatable)")
    ap.add_argument("--out", required=True, help="folder of the page, its figures and the runs")
    ap.add_argument("--quick", action="store_true", help="shrunk cases: a test of the machinery in a minute or two")
    ap.add_argument("--budget", type=float,
                    help="seconds for the whole command, its runs taken cheapest first and the rest skipped, a run "
                         "still going at the end killed (default 450); each skip is named on the page; --quick: no "
                         "limit")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run before it counts as failed")
    ap.add_argument("--peer", action="append", default=[], type=common.runner.parse_exe,
                    help="NAME=PATH: a program outside Parity the paper's suite names (cubature: hcubature=PATH, "
                         "perf/peers/hcubature_peer.cpp)")
    ap.add_argument("--cores", type=int, help="the machine's cores, for openmp's all-cores count (default: all)")
    ap.add_argument("--from-results", metavar="DIR",
                    help="only rewrite the page from an earlier run's <DIR>/<paper>-runs (results.json, extras.json)")
    ap.add_argument("--resume", metavar="DIR",
                    help="keep the measurements of an earlier run's <DIR>/<paper>-runs and run only the cells it "
                         "lacks (its failed and skipped runs, cheapest first within --budget); the runs outside "
                         "the suites (figures, K-bar series, memory runs) are kept from its extras.json, or run again "
                         "where it has none (Krusell-Smith's K-bar cells and dual control's memory runs: those it lacks)")
    ap.add_argument("--extras-budget", type=float, metavar="S",
                    help="seconds of --budget kept for the runs outside the suites (figures, K-bar series, memory "
                         "runs), which the suites leave them (default: each paper's estimate of its own)")
    args = ap.parse_args(argv)
    if args.resume and args.from_results:
        ap.error("--resume and --from-results exclude each other")
    out = Path(args.out)
    runs = out / f"{args.paper}-runs"
    if args.from_results:
        src = Path(args.from_results) / f"{args.paper}-runs"
        doc = json.loads((src / "results.json").read_text())
        extras = json.loads((src / "extras.json").read_text())
        print(f"wrote {write_page(args.paper, doc, extras, out, extras.get('quick', False))}")
        return 0
    if not args.exe:
        ap.error("--exe is required (or --from-results)")
    try:
        exes, dropped = common.expand_backends(args.exe, args.cores or os.cpu_count())
    except ValueError as e:
        ap.error(str(e))
    mod = module(args.paper)
    earlier = earlier_extras = None
    if args.resume:
        src = Path(args.resume) / f"{args.paper}-runs"
        try:
            earlier = json.loads((src / "results.json").read_text())
            if (src / "extras.json").exists():  # a curated results folder may keep results.json alone
                earlier_extras = json.loads((src / "extras.json").read_text())
        except (OSError, ValueError) as e:
            ap.error(f"--resume {args.resume}: no earlier {args.paper} run there ({e})")
        if earlier_extras is not None and earlier_extras.get("quick", False) != args.quick:
            ap.error(f"--resume {args.resume}: that run was {'' if earlier_extras.get('quick') else 'not '}--quick")
    budget = args.budget if args.budget is not None else (float("inf") if args.quick else 450.0)
    reserve = args.extras_budget
    if reserve is not None and not 0 <= reserve <= budget:
        ap.error(f"--extras-budget {reserve:g}: must be between 0 and the --budget ({budget:g})")
    resumes_extras = getattr(mod, "RESUMES_EXTRAS", False)
    names = [e["name"] for e in exes]
    peers = [p for p in args.peer if p["name"] in getattr(mod, "PEERS", ())]
    if len(peers) != len(args.peer):
        ap.error(f"--peer: {args.paper} runs {', '.join(getattr(mod, 'PEERS', ())) or 'no peer'}")
    # The runs outside the suites (figures, K-bar) are reserved first; the suites get the rest.
    end = time.monotonic() + budget - common.FINISH_S  # the tables, plots and page after the last run
    # the runner's `info` run per executable, then the runs outside the suites
    extras_s = sum(common.run_seconds(n, 0.0, 0.0) for n in names)
    if reserve is not None:
        extras_s += reserve
    elif earlier_extras is None or resumes_extras:
        extras_s += mod.extras_seconds(names, args.quick, budget, earlier=earlier_extras)
    with common.resumed(common.recorded_runs(earlier) if earlier else set()):
        suites = mod.plan(names + [p["name"] for p in peers], args.quick, max(0.0, budget - common.FINISH_S - extras_s))
    doc = common.run_suites(suites, exes, runs, None, None, args.timeout, end - extras_s, peers)
    if earlier is not None:
        doc = common.merge_resumed(doc, earlier)
    if earlier_extras is None or resumes_extras:
        extras = mod.run_extras(exes, args.quick, runs, budget, args.timeout, end, doc=doc, reserve=reserve,
                                earlier=earlier_extras)
        extras.update({"dropped": dropped, "quick": args.quick, "budget_s": None if budget == float("inf") else budget})
    else:
        extras = dict(earlier_extras, resumed_budget_s=budget)
    if earlier is not None:
        (runs / "results.json").write_text(json.dumps(doc, indent=2))
        common.runner.report(doc, list(doc["backends"]), doc.get("reference") or earlier.get("reference"), runs)
    (runs / "extras.json").write_text(json.dumps(extras, indent=1))
    print(f"wrote {write_page(args.paper, doc, extras, out, args.quick)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
