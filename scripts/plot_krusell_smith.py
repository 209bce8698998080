#!/usr/bin/env python3
"""Plots of a krusell-smith run, one figure:

  scripts/plot OUTPUT_DIR                                  OUTPUT_DIR/krusell_smith.png
  python3 scripts/plot_krusell_smith.py OUTPUT_DIR [-o FILE.EXT]  (or OUTPUT_DIR FILE.EXT)

Reads the arrays written by `parity-<backend> krusell-smith --output OUTPUT_DIR`: k' - k against k
for both employment states at K ~ 39 (good and bad times), the wealth distribution of the final
cross-section on a log axis (it spans several decades), and the simulated K path with the law of
motion iterated on its own along the same shocks (Den Haan's test)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402


def policy_at_K(K_grid, values, K):
    """The policy at K by linear interpolation between the two nearest K nodes (plotting only)."""
    import numpy as np

    j = int(np.clip(np.searchsorted(K_grid, K) - 1, 0, len(K_grid) - 2))
    t = (K - K_grid[j]) / (K_grid[j + 1] - K_grid[j])
    return (1 - t) * values[:, j] + t * values[:, j + 1]


def plot(out, png):
    import matplotlib.pyplot as plt
    import numpy as np

    pc.expect_model(out, "krusell_smith")
    g = out.load("policy")  # (nk, nK, z, eps)
    k = out.load("k_grid")
    Kg = out.load("K_grid")
    K = out.load("K_path")
    K_alm = out.load("K_alm")
    z = out.load("z_path")
    k_final = out.load("k_final")
    employed = out.load("employed_final")
    pc.expect_shape(out, "policy", g, (k.size, Kg.size, 2, 2))
    pc.expect_shape(out, "K_alm", K_alm, K.shape)
    pc.expect_shape(out, "z_path", z, (K.size - 1,))  # K_0 .. K_T, z_0 .. z_{T-1}
    pc.expect_shape(out, "employed_final", employed, k_final.shape)

    fig, ax = plt.subplots(1, 3, figsize=(16, 4.5))
    K_show = float(np.clip(39.0, Kg[0], Kg[-1]))
    show = k <= 100
    names = {(0, 1): "good, employed", (0, 0): "good, unemployed", (1, 1): "bad, employed",
             (1, 0): "bad, unemployed"}
    for (zi, e), label in names.items():
        kp = policy_at_K(Kg, g[:, :, zi, e], K_show)
        ax[0].plot(k[show], (kp - k)[show], label=label, ls="-" if zi == 0 else "--")
    ax[0].axhline(0, color="gray", lw=0.5)
    ax[0].set(xlabel="k", ylabel="k' - k", title=f"Savings at K = {K_show:g}")
    ax[0].legend(fontsize=8)

    # Log-spaced bins on a log axis: wealth spans several decades (a few agents near the borrowing
    # limit, a long right tail); the share of agents per bin keeps the areas comparable.
    positive = k_final[k_final > 0]
    at_zero = k_final.size - positive.size
    if positive.size:
        bins = np.geomspace(positive.min(), positive.max() * (1 + 1e-9), 60)
        for e, label in ((1, "employed"), (0, "unemployed")):
            sel = k_final[(employed == e) & (k_final > 0)]
            ax[1].hist(sel, bins=bins, weights=np.full(sel.size, 1 / k_final.size), alpha=0.6, label=label)
        ax[1].set_xscale("log")
    if at_zero:
        ax[1].plot([], [], " ", label=f"{at_zero / k_final.size:.1%} at k = 0 (not on the log axis)")
    ax[1].set(xlabel="k (log scale)", ylabel="share of agents per bin",
              title=f"Wealth distribution (last period, {k_final.size} agents)")
    ax[1].legend(fontsize=8)

    t = np.arange(len(K))
    ax[2].plot(t, K, label="panel mean K", lw=1)
    ax[2].plot(t, K_alm, label="law of motion (dynamic)", lw=1, ls="--")
    bad = np.where(z == 1)[0]
    if len(bad):
        ax[2].scatter(bad, np.full(len(bad), min(K.min(), K_alm.min()) - 0.1), s=1, color="gray",
                      label="bad times")
    ax[2].set(xlabel="period", ylabel="K", title="Aggregate capital")
    ax[2].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return f"K path mean {K.mean():.4g}, wealth median {np.median(k_final):.4g}"


def main():
    argv = sys.argv[1:]
    if len(argv) == 2 and not argv[1].startswith("-"):  # the older form: OUTPUT_DIR PNG
        argv = [argv[0], "-o", argv[1]]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="the --output folder of a krusell-smith run")
    ap.add_argument("-o", "--out", metavar="FILE.EXT",
                    help="the figure to write, its format from the suffix: png, pdf, svg, jpg, ... "
                         "(default: FOLDER/krusell_smith.png)")
    args = ap.parse_args(argv)
    pc.require_packages(__file__)
    pc.check_figure_file(args.out)
    outs = pc.find_outputs(args.folder, "krusell_smith")
    if len(outs) != 1:
        raise pc.PlotError(f"{args.folder} holds {len(outs)} outputs: use scripts/plot {args.folder}")
    png, shown = pc.figure_target(args.out, outs[0], "krusell_smith")
    note = plot(outs[0], png)
    print(f"{shown}: {note}")


if __name__ == "__main__":
    pc.run_main(main)
