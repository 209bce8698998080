#!/usr/bin/env python3
"""How often VEGAS+'s error estimate bounds its true error: one cubature case run over many seeds,
each run's |estimate - exact| held against its reported error (one standard deviation).

    python3 perf/vegas_coverage.py EXE --out DIR [--seeds 100] [--case 'NAME=ARGS' ...]

EXE is parity-<backend>. Without --case the cases are a 20-D Gaussian and a 30-D product peak at
a relative tolerance of 1e-4 (the Genz families' default a and u, double). Each seed is one
`EXE cubature ARGS --seed S` run; a case's runs are independent samples of the estimator, so the
fraction with |true error| <= k sigma estimates the coverage at k sigma (a normal estimator gives
68.3 % at 1 sigma, 95.4 % at 2 sigma), given here with a 95 % Wilson interval. Writes
DIR/results.json (every run and the summaries) and DIR/table.md. Exits 3 if a run fails or a
case has no exact value, 2 on bad arguments.
"""
import argparse
import json
import math
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_CASES = {
    "gaussian-20d": ["--integrand", "gaussian", "--dim", "20", "--method", "vegas", "--rel-tol", "1e-4"],
    "product_peak-30d": ["--integrand", "product_peak", "--dim", "30", "--method", "vegas", "--rel-tol", "1e-4"],
}
# Coverage of a normal estimator at k standard deviations: erf(k / sqrt 2).
NOMINAL = {1: math.erf(1 / math.sqrt(2)), 2: math.erf(2 / math.sqrt(2)), 3: math.erf(3 / math.sqrt(2))}


def wilson(hits, n, z=1.959964):
    """95 % Wilson score interval of a binomial proportion."""
    if n == 0:
        return (math.nan, math.nan)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def run_one(exe, args, seed, scratch):
    out = Path(scratch) / f"seed-{seed}.json"
    cmd = [exe, "cubature", *args, "--seed", str(seed), "--precision", "double", "--json", str(out), "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 3) or not out.exists():  # 3: ran, short of its tolerance
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()[-400:]}")
    doc = json.loads(out.read_text())
    r = doc["results"]
    if not math.isfinite(r.get("exact", math.nan)):
        raise RuntimeError(f"{' '.join(cmd)}: no exact value to measure the true error against")
    return {
        "seed": seed,
        "status": doc["status"],
        "estimate": r["estimate"],
        "error": r["error"],
        "exact": r["exact"],
        "true_error": abs(r["estimate"] - r["exact"]),
        "evaluations": r["evaluations"],
        "iterations": r["iterations"],
        "chi2_per_dof": r.get("chi2_per_dof"),
        "seconds": doc["timing"]["total_seconds"],
    }


def summarise(runs):
    n = len(runs)
    summary = {"runs": n, "converged": sum(r["status"] == "converged" for r in runs)}
    for k in NOMINAL:
        hits = sum(r["true_error"] <= k * r["error"] for r in runs)
        lo, hi = wilson(hits, n)
        summary[f"coverage_{k}sigma"] = hits / n
        summary[f"coverage_{k}sigma_interval"] = [lo, hi]
        summary[f"nominal_{k}sigma"] = NOMINAL[k]
    summary["median_relative_true_error"] = statistics.median(r["true_error"] / abs(r["exact"]) for r in runs)
    summary["median_relative_error"] = statistics.median(r["error"] / abs(r["exact"]) for r in runs)
    summary["median_evaluations"] = statistics.median(r["evaluations"] for r in runs)
    summary["median_seconds"] = statistics.median(r["seconds"] for r in runs)
    return summary


def table(doc):
    lines = [
        "| case | runs | converged | within 1 sigma (68.3 %) | within 2 sigma (95.4 %) | within 3 sigma (99.7 %) "
        "| median rel. true error | median rel. error | median evaluations | median s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, case in doc["cases"].items():
        s = case["summary"]
        cells = [name, str(s["runs"]), str(s["converged"])]
        for k in NOMINAL:
            lo, hi = s[f"coverage_{k}sigma_interval"]
            cells.append(f"{100 * s[f'coverage_{k}sigma']:.0f} % ({100 * lo:.0f}-{100 * hi:.0f})")
        cells += [f"{s['median_relative_true_error']:.2e}", f"{s['median_relative_error']:.2e}",
                  f"{s['median_evaluations']:.3g}", f"{s['median_seconds']:.3g}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("exe", help="parity-<backend>")
    ap.add_argument("--out", required=True, help="folder for results.json and table.md")
    ap.add_argument("--seeds", type=int, default=100, help="runs per case, seeds 1..N (default 100)")
    ap.add_argument("--case", action="append", metavar="NAME=ARGS",
                    help="a case: its name, '=', then cubature arguments in one string, e.g. "
                         "'g5=--integrand gaussian --dim 5 --method vegas --rel-tol 1e-3' "
                         "(repeatable; default: the 20-D and 30-D cases)")
    args = ap.parse_args(argv)
    if args.seeds < 2:
        ap.error("--seeds must be at least 2")
    if not Path(args.exe).is_file():
        ap.error(f"executable {args.exe} not found")
    cases = DEFAULT_CASES
    if args.case:
        if any("=" not in c for c in args.case):
            ap.error("each --case is NAME=ARGS")
        cases = {c.split("=", 1)[0]: shlex.split(c.split("=", 1)[1]) for c in args.case}
    if any(not name or not a for name, a in cases.items()):
        ap.error("each --case needs a name and cubature arguments")
    doc = {"executable": str(args.exe), "seeds": args.seeds, "cases": {}, "info": {}}
    with tempfile.TemporaryDirectory() as scratch:  # the backend: device, versions, commit
        info = Path(scratch) / "info.json"
        if subprocess.run([args.exe, "info", "--json", str(info)], capture_output=True).returncode == 0:
            doc["info"] = json.loads(info.read_text())
    try:
        with tempfile.TemporaryDirectory() as scratch:
            for name, case_args in cases.items():
                runs = [run_one(args.exe, case_args, s, scratch) for s in range(1, args.seeds + 1)]
                doc["cases"][name] = {"args": case_args, "summary": summarise(runs), "runs": runs}
                s = doc["cases"][name]["summary"]
                print(f"{name}: {s['runs']} runs, within 1/2/3 sigma {s['coverage_1sigma']:.2f}/"
                      f"{s['coverage_2sigma']:.2f}/{s['coverage_3sigma']:.2f}", flush=True)
    except RuntimeError as e:
        print(f"vegas_coverage: {e}", file=sys.stderr)
        return 3
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(doc, indent=1) + "\n")
    (out / "table.md").write_text(table(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
