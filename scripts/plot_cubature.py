#!/usr/bin/env python3
"""Plots of a cubature run (the phase-1 history that `cubature --output DIR` writes), one figure:

  scripts/plot DIR                                DIR/cubature.png
  python3 scripts/plot_cubature.py DIR [-o FILE.EXT]

For each case (several with `--sweep` or `run`: arrays prefixed CASE_), the error estimate and
the number of unfinished regions after each phase-1 iteration, against the evaluations so far.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402

FIELDS = ("phase1_error", "phase1_evaluations", "phase1_unfinished")


def plot(out, png):
    import matplotlib.pyplot as plt
    import numpy as np

    pc.expect_model(out, "cubature")
    cases = sorted(n[: -len("phase1_error")] for n in out.arrays if n.endswith("phase1_error"))
    if not cases:
        raise pc.PlotError(f"{out.name}: the cubature output has no phase1_error array")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    many = len(cases) > 8  # a sweep: lines without a legend entry each
    for i, c in enumerate(cases):
        err, ev, bad = (out.load(c + f) for f in FIELDS)
        pc.expect_shape(out, c + "phase1_evaluations", ev, err.shape)
        pc.expect_shape(out, c + "phase1_unfinished", bad, err.shape)
        label = None if many and 0 < i < len(cases) - 1 else c.rstrip("_")
        if not c:
            name, dim = out.parameter("integrand"), out.parameter("dim")
            label = f"{name} {dim}-D" if name and dim else "this run"
        a1.loglog(ev, np.where(err > 0, err, np.nan), "o-", ms=3, lw=1, label=label)
        a2.semilogx(ev, bad, "o-", ms=3, lw=1, label=label)
    a1.set(xlabel="evaluations", ylabel="error estimate", title="phase 1: error estimate")
    a2.set(xlabel="evaluations", ylabel="regions", title="phase 1: unfinished regions")
    for a in (a1, a2):
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return f"{len(cases)} case(s)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="the --output folder of a cubature run")
    ap.add_argument("-o", "--out", metavar="FILE.EXT",
                    help="the figure to write, its format from the suffix: png, pdf, svg, jpg, ... "
                         "(default: FOLDER/cubature.png)")
    args = ap.parse_args()
    pc.require_packages(__file__)
    pc.check_figure_file(args.out)
    outs = pc.find_outputs(args.folder, "cubature")
    if len(outs) != 1:
        raise pc.PlotError(f"{args.folder} holds {len(outs)} outputs: use scripts/plot {args.folder}")
    png, shown = pc.figure_target(args.out, outs[0], "cubature")
    print(f"{shown}: {plot(outs[0], png)}")


if __name__ == "__main__":
    pc.run_main(main)
