#!/usr/bin/env python3
"""Plots of Parity output folders, each by the plot its manifest names (run it as scripts/plot):

  scripts/plot OUTPUT_DIR... [-o FILE.png | -o FOLDER]

A folder of per-model subfolders (`run --model a --model b --output D`) gives one PNG per model.
Without -o each PNG goes into its output folder as MODEL.png; -o FILE.png takes one output, -o
FOLDER any number. Exit status 2, with a message, for a missing folder or files that do not match
their manifest; the other outputs are still plotted.
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
    ap.add_argument("-o", "--out", help="the PNG to write (one output), or a folder for the PNGs")
    args = ap.parse_args()
    pc.require_packages(__file__)
    outputs, failed = [], 0
    for folder in args.folders:
        try:
            outputs += pc.find_outputs(folder)
        except pc.PlotError as e:
            pc.error(str(e))
            failed += 1
    if args.out is not None and args.out.endswith(".png") and len(outputs) > 1:
        raise pc.PlotError(f"-o {args.out} names one PNG but there are {len(outputs)} outputs "
                           f"({', '.join(o.name for o in outputs)}): give -o a folder")
    models = collections.Counter(o.model for o in outputs)
    for out in outputs:
        # One folder for several outputs of one model: name each PNG after its folder too.
        default = out.model + ".png"
        if args.out is not None and models[out.model] > 1:
            default = f"{os.path.basename(os.path.normpath(out.path))}-{out.model}.png"
        try:
            png, shown = pc.png_target(args.out, out, default)
            note = plotter(out.model)(out, png)
            print(f"{shown}: {note}")
        except pc.PlotError as e:
            pc.error(str(e))
            failed += 1
    if failed:
        sys.exit(pc.EXIT_BAD_INPUT)


if __name__ == "__main__":
    pc.run_main(main)
