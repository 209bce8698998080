#!/usr/bin/env python3
"""Case-by-case comparison of a Parity backend with a peer from one runner results.json.

    python3 perf/peer_summary.py OUT/results.json --backend cuda --peer pagani [--markdown FILE]

For every case both ran: fenced time (best of the repetitions), status, evaluations and true
relative error of each side, and the time ratio Parity / peer. Then the tallies a comparison is
judged by: converged where the peer converged (with the true error within the tolerance), the
median time ratio, the largest ratio where both converged, and the true errors where both stopped
at the evaluation cap.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys


def side(entry: dict, name: str) -> dict | None:
    b = entry.get("backends", {}).get(name)
    if not b or "median_s" not in b:
        return None
    r = b.get("results", {})
    return {"s": b.get("min_s", b["median_s"]), "status": b.get("status") or r.get("status"),
            "evals": r.get("evaluations"), "err": r.get("relative_true_error")}


def rel_tol(entry: dict) -> float | None:
    a = entry.get("args") or []
    return float(a[a.index("--rel-tol") + 1]) if "--rel-tol" in a else None


def short(status: str | None) -> str:
    return {"converged": "conv", "budget_exhausted": "cap", "not_converged": "stalled"}.get(status or "", status or "—")


def fmt(x, spec=".2e") -> str:
    return "—" if x is None else format(x, spec)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--peer", required=True)
    ap.add_argument("--markdown", help="also write the table and tallies to this file")
    args = ap.parse_args(argv)
    try:
        with open(args.results) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        ap.error(f"cannot read {args.results}: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        ap.error(f"{args.results} is not a perf/runner.py results.json")
    names = {n for e in doc["results"] for n in e.get("backends", {})}
    for opt, name in (("--backend", args.backend), ("--peer", args.peer)):
        if name not in names:
            ap.error(f"{opt} {name}: not in {args.results} (it has: {', '.join(sorted(names)) or 'none'})")
    lines = [f"| case | {args.peer} s | {args.peer} evals | {args.peer} true err | {args.peer} status "
             f"| Parity s | Parity evals | Parity true err | Parity status | Parity/{args.peer} |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    ratios, both_conv, misses, cap_pairs, dishonest = [], [], [], [], []
    for e in doc["results"]:
        p, q = side(e, args.backend), side(e, args.peer)
        if not p or not q:
            continue
        tol = rel_tol(e)
        ratio = p["s"] / q["s"] if q["s"] else None
        if ratio is not None:
            ratios.append(ratio)
        ok = lambda s: s["status"] == "converged" and s["err"] is not None and tol is not None and s["err"] <= tol
        if p["status"] == "converged" and p["err"] is not None and tol is not None and p["err"] > tol:
            dishonest.append(e["case"])
        if q["status"] == "converged" and not ok(p):
            misses.append(e["case"])
        if p["status"] == "converged" and q["status"] == "converged" and ratio is not None:
            both_conv.append((ratio, e["case"]))
        if p["status"] != "converged" and q["status"] != "converged" and p["err"] is not None and q["err"] is not None:
            cap_pairs.append((e["case"], p["err"], q["err"]))
        lines.append(f"| {e['case']} | {fmt(q['s'], '.4g')} | {fmt(q['evals'], '.2g')} | {fmt(q['err'])} | "
                     f"{short(q['status'])} | {fmt(p['s'], '.4g')} | {fmt(p['evals'], '.2g')} | {fmt(p['err'])} | "
                     f"{short(p['status'])} | {fmt(ratio, '.2f')} |")
    tallies = [
        "",
        f"- cases: {len(ratios)}; median time ratio Parity/{args.peer}: "
        f"{statistics.median(ratios):.2f}" if ratios else "- no case ran on both sides",
        f"- Parity faster in {sum(r < 1 for r in ratios)} of {len(ratios)}",
        f"- {args.peer} converged and Parity did not (or not within the tolerance): "
        f"{len(misses)}{(' — ' + ', '.join(misses)) if misses else ''}",
        f"- both converged: {len(both_conv)}; largest ratio "
        + (f"{max(both_conv)[0]:.2f} ({max(both_conv)[1]}); over 1.5: "
           f"{', '.join(c for r, c in both_conv if r > 1.5) or 'none'}" if both_conv else "—"),
        f"- neither converged: {len(cap_pairs)}; Parity's true error no worse in "
        f"{sum(a <= b for _, a, b in cap_pairs)}"
        + (f" (worse: {', '.join(f'{c} {a:.1e} vs {b:.1e}' for c, a, b in cap_pairs if a > b)})"
           if any(a > b for _, a, b in cap_pairs) else ""),
        f"- Parity converged with a true error above the tolerance: {', '.join(dishonest) or 'none'}",
    ]
    text = "\n".join(lines + tallies) + "\n"
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
