#!/usr/bin/env python3
"""Plots of an aiyagari run, one figure:

  scripts/plot OUTPUT_DIR                               OUTPUT_DIR/aiyagari.png
  python3 scripts/plot_aiyagari.py OUTPUT_DIR [-o FILE.EXT]

Reads the arrays written by `parity-<backend> aiyagari --output OUTPUT_DIR`: saving a' - a against
assets a for the lowest, middle and highest labour state (where the borrowing limit binds, a' = a_min),
the stationary wealth distribution (the mass per asset node summed over labour states, as a density
on the nonuniform grid) with its Lorenz curve, and the equilibrium r and K from the report."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402


def plot(out, png):
    import matplotlib.pyplot as plt
    import numpy as np

    pc.expect_model(out, "aiyagari")
    a = out.load("assets")
    labour = out.load("labour")
    mass = out.load("mass")
    saving = out.load("saving")
    pc.expect_shape(out, "mass", mass, (labour.size, a.size))
    pc.expect_shape(out, "saving", saving, (labour.size, a.size))

    wealth = mass.sum(axis=0)
    # Keep the part of the grid that holds the households (99.99 % of the mass), plus a margin.
    cum = np.cumsum(wealth)
    top = int(min(a.size - 1, np.searchsorted(cum, 1 - 1e-4) + 1))
    show = slice(0, top + 1)

    fig, ax = plt.subplots(1, 3, figsize=(16, 4.5))
    for z in sorted({0, labour.size // 2, labour.size - 1}):
        ax[0].plot(a[show], (saving[z] - a)[show], label=f"labour {labour[z]:.3g}")
    ax[0].axhline(0, color="gray", lw=0.5)
    ax[0].set(xlabel="assets a", ylabel="a' - a", title="Saving by labour state")
    ax[0].legend(fontsize=8)

    # Mass per node over the width each node stands for: a density on the nonuniform grid.
    width = np.gradient(a)
    ax[1].plot(a[show], (wealth / width)[show])
    ax[1].set(xlabel="assets a", ylabel="density", title="Stationary wealth distribution")
    if wealth[0] > 0:
        ax[1].plot([], [], " ", label=f"{wealth[0]:.1%} at the borrowing limit")
        ax[1].legend(fontsize=8)

    held = wealth * a
    lorenz = np.concatenate(([0.0], np.cumsum(held) / held.sum())) if held.sum() > 0 else np.zeros(a.size + 1)
    people = np.concatenate(([0.0], cum))
    ax[2].plot(people, lorenz, label="Lorenz curve")
    ax[2].plot([0, 1], [0, 1], color="gray", lw=0.5, ls="--", label="equality")
    title = "Wealth"
    report = out.report()
    if report is not None:
        res = report.get("results", {})
        if res.get("interest_rate") is not None:
            title = f"r = {100 * res['interest_rate']:.3f} %, K = {res['capital']:.3f}, Gini {res['gini']:.3f}"
    ax[2].set(xlabel="share of households (poorest first)", ylabel="share of wealth", title=title)
    ax[2].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return f"mean assets {float((wealth * a).sum()):.4g}, {wealth[0]:.1%} at the borrowing limit"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="the --output folder of an aiyagari run")
    ap.add_argument("-o", "--out", metavar="FILE.EXT",
                    help="the figure to write, its format from the suffix: png, pdf, svg, jpg, ... "
                         "(default: FOLDER/aiyagari.png)")
    args = ap.parse_args()
    pc.require_packages(__file__)
    pc.check_figure_file(args.out)
    outs = pc.find_outputs(args.folder, "aiyagari")
    if len(outs) != 1:
        raise pc.PlotError(f"{args.folder} holds {len(outs)} outputs: use scripts/plot {args.folder}")
    png, shown = pc.figure_target(args.out, outs[0], "aiyagari")
    note = plot(outs[0], png)
    print(f"{shown}: {note}")


if __name__ == "__main__":
    pc.run_main(main)
