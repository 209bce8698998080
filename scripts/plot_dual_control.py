#!/usr/bin/env python3
"""Plots of a dual-control run (the .npy arrays that `--output DIR` writes).

    parity-<backend> dual-control --policy optimal --grid 32,32,16 --output out/dc
    python3 scripts/plot_dual_control.py out/dc            # PNGs into out/dc

policy_u_of_x.png: the optimal policy u*(x) (solid) and the cautionary myopic rule (dashed) for a
few beliefs (mu, Sigma); value_of_experimentation.png: V_myopic - V_optimal over (x, mu) at a few
Sigma. Arrays are indexed [x, mu, Sigma] (C order), with axes in x.npy, mu.npy, Sigma.npy.
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402
import numpy as np  # noqa: E402


def nearest(axis, value):
    return int(np.argmin(np.abs(axis - value)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="the --output folder of an optimal-policy run")
    ap.add_argument("--out", help="where to write the PNGs (default: the folder)")
    ap.add_argument("--mu", type=float, nargs="+", default=[0.0, 0.5, 1.0, 2.0], help="beliefs mu to plot")
    ap.add_argument("--sigma", type=float, nargs="+", default=[0.5, 2.0], help="belief variances Sigma to plot")
    args = ap.parse_args()
    out = args.out or args.folder
    os.makedirs(out, exist_ok=True)
    load = lambda name: np.load(os.path.join(args.folder, name + ".npy"))  # noqa: E731
    x, mu, S = load("x"), load("mu"), load("Sigma")
    V, u = load("V"), load("u")
    has_myopic = os.path.exists(os.path.join(args.folder, "V_myopic.npy"))
    if not has_myopic:
        raise SystemExit("no V_myopic.npy: run with --policy optimal")
    Vm, um = load("V_myopic"), load("u_myopic")

    fig, axes = plt.subplots(1, len(args.sigma), figsize=(5.5 * len(args.sigma), 4.2), squeeze=False, sharey=True)
    for ax, s_want in zip(axes[0], args.sigma):
        k = nearest(S, s_want)
        for m_want in args.mu:
            j = nearest(mu, m_want)
            line, = ax.plot(x, u[:, j, k], label=f"optimal, mu = {mu[j]:.2f}")
            ax.plot(x, um[:, j, k], "--", color=line.get_color(), label=f"myopic, mu = {mu[j]:.2f}")
        ax.set_title(f"policy u(x), Sigma = {S[k]:.2f}")
        ax.set_xlabel("x (last observation)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("u")
    axes[0][-1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "policy_u_of_x.png"), dpi=120)

    gain = Vm - V
    fig, axes = plt.subplots(1, len(args.sigma), figsize=(5.5 * len(args.sigma), 4.2), squeeze=False)
    for ax, s_want in zip(axes[0], args.sigma):
        k = nearest(S, s_want)
        g = gain[:, :, k].T
        # Log colours: at mu = 0 the myopic rule never learns (u = ubar forever) and the gain is
        # orders of magnitude above its value elsewhere.
        positive = g[g > 0]
        norm = LogNorm(vmin=max(positive.min(), 1e-4 * positive.max()), vmax=positive.max()) if positive.size else None
        im = ax.pcolormesh(x, mu, np.maximum(g, norm.vmin if norm else 0), shading="auto", cmap="viridis", norm=norm)
        fig.colorbar(im, ax=ax, label="V_myopic - V_optimal")
        ax.set_title(f"value of experimentation, Sigma = {S[k]:.2f}")
        ax.set_xlabel("x")
        ax.set_ylabel("mu")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "value_of_experimentation.png"), dpi=120)
    print(f"wrote {out}/policy_u_of_x.png and {out}/value_of_experimentation.png; "
          f"max value of experimentation {gain.max():.4g}, min {gain.min():.3g}")


if __name__ == "__main__":
    main()
