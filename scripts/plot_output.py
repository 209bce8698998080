#!/usr/bin/env python3
"""Plots of Parity output folders, each by the plot its manifest names (run it as scripts/plot):

  scripts/plot OUTPUT_DIR... [-o FILE.EXT]

Without -o each figure goes into its output folder as MODEL.png. -o names the file to write; its
suffix names the format: png, pdf, svg, jpg and whatever else this matplotlib writes (an unknown
suffix, or none, is refused). When the folders hold several outputs (a folder of per-model
subfolders from `run --all --output D`, or several folders), -o FILE.EXT writes one file per
output, the model added to the stem: FILE-dual_control.EXT, FILE-kuramoto.EXT, ... (and the
folder's name before the model where one model has several outputs).

Every output that can be drawn is drawn. The others are named as skipped, with the reason: a
model that no script plots (network_kuramoto), or files that do not match their manifest. Exit
status 2, with a message, when a folder is missing, a manifest or its files are broken, -o is
refused, or nothing could be drawn; 0 otherwise.
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402


def plotter(model):
    if model == "dual_control":
        import plot_dual_control

        return plot_dual_control.plot
    if model == "krusell_smith":
        import plot_krusell_smith

        return plot_krusell_smith.plot
    if model == "aiyagari":
        import plot_aiyagari

        return plot_aiyagari.plot
    if model in ("josephson", "kuramoto"):
        import plot_sde

        return plot_sde.PLOTS[model]
    import plot_cubature

    return plot_cubature.plot


def main():
    ap = argparse.ArgumentParser(prog="scripts/plot", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", metavar="OUTPUT_DIR", help="the --output folder of a run")
    ap.add_argument("-o", "--out", metavar="FILE.EXT",
                    help="the figure to write, its format from the suffix (png, pdf, svg, jpg, ...); with several "
                         "outputs one file each, FILE-MODEL.EXT")
    args = ap.parse_args()
    pc.require_packages(__file__)
    pc.check_figure_file(args.out)
    outputs, skipped, failed = [], [], 0
    for folder in args.folders:
        try:
            found, problems = pc.scan_outputs(folder)
        except pc.PlotError as e:
            pc.error(str(e))
            skipped.append((folder, "see the error above"))
            failed += 1
            continue
        outputs += found
        for name, message in problems:
            pc.error(message)
            skipped.append((name, "see the error above"))
            failed += 1
    plotted = [o for o in outputs if o.model not in pc.NOT_PLOTTED]
    for o in outputs:
        if o.model in pc.NOT_PLOTTED:
            skipped.append((o.name, pc.NOT_PLOTTED[o.model]))
    models = collections.Counter(o.model for o in plotted)
    several = len(plotted) > 1
    drawn = 0
    for out in plotted:
        # One -o for several outputs: the model, and the folder where one model has several, in each name.
        tag = None
        if several:
            tag = out.model if models[out.model] == 1 else f"{os.path.basename(os.path.normpath(out.path))}-{out.model}"
        try:
            target, shown = pc.figure_target(args.out, out, out.model, tag)
            note = plotter(out.model)(out, target)
            print(f"{shown}: {note}")
            drawn += 1
        except pc.PlotError as e:
            pc.error(str(e))
            skipped.append((out.name, "see the error above"))
            failed += 1
    if skipped:
        print(f"{pc.program()}: drew {drawn} of {drawn + len(skipped)} outputs; skipped "
              + "; ".join(f"{name} ({why})" for name, why in skipped), file=sys.stderr)
    if drawn == 0 and not failed:
        pc.error("nothing to draw: " + "; ".join(f"{name}: {why}" for name, why in skipped))
    if failed or drawn == 0:
        sys.exit(pc.EXIT_BAD_INPUT)


if __name__ == "__main__":
    pc.run_main(main)
