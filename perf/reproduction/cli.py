"""perf/reproduce: one command per paper that runs what the paper ran on every backend given and
writes <out>/<paper>.md, each published cell beside Parity's values (docs/reproducing.md)."""
from __future__ import annotations

import argparse
import json
import os
import sys
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
    ap.add_argument("--budget", type=float, help="seconds a run may be estimated to take before a backend skips "
                                                  "it, with the reason on the page (default 600; --quick: no limit)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run before it counts as failed")
    ap.add_argument("--cores", type=int, help="the machine's cores, for openmp's all-cores count (default: all)")
    ap.add_argument("--from-results", metavar="DIR",
                    help="only rewrite the page from an earlier run's <DIR>/<paper>-runs (results.json, extras.json)")
    args = ap.parse_args(argv)
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
    budget = args.budget if args.budget is not None else (float("inf") if args.quick else 600.0)
    mod = module(args.paper)
    names = [e["name"] for e in exes]
    doc = common.run_suites(mod.plan(names, args.quick, budget), exes, runs, None, None, args.timeout)
    extras = mod.run_extras(exes, args.quick, runs, budget, args.timeout)
    extras.update({"dropped": dropped, "quick": args.quick, "budget_s": None if budget == float("inf") else budget})
    (runs / "extras.json").write_text(json.dumps(extras, indent=1))
    print(f"wrote {write_page(args.paper, doc, extras, out, args.quick)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
