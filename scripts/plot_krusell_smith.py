#!/usr/bin/env python3
"""Plots of a krusell-smith run:  plot_krusell_smith.py OUTPUT_DIR [PNG]

Reads the .npy arrays written by `parity-<backend> krusell-smith --output OUTPUT_DIR` and writes one
PNG with three panels: k' - k against k for both employment states at K ~ 39 (good and bad times),
the wealth distribution of the final cross-section, and the simulated K path with the law of
motion iterated on its own along the same shocks (Den Haan's test)."""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def policy_at_K(K_grid, values, K):
    """The policy at K by linear interpolation between the two nearest K nodes (plotting only)."""
    j = int(np.clip(np.searchsorted(K_grid, K) - 1, 0, len(K_grid) - 2))
    t = (K - K_grid[j]) / (K_grid[j + 1] - K_grid[j])
    return (1 - t) * values[:, j] + t * values[:, j + 1]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    png = sys.argv[2] if len(sys.argv) > 2 else os.path.join(d, "krusell_smith.png")
    g = np.load(os.path.join(d, "policy.npy"))  # (nk, nK, z, eps)
    k = np.load(os.path.join(d, "k_grid.npy"))
    Kg = np.load(os.path.join(d, "K_grid.npy"))
    K = np.load(os.path.join(d, "K_path.npy"))
    K_alm = np.load(os.path.join(d, "K_alm.npy"))
    z = np.load(os.path.join(d, "z_path.npy"))
    k_final = np.load(os.path.join(d, "k_final.npy"))
    employed = np.load(os.path.join(d, "employed_final.npy"))

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

    bins = np.linspace(0, np.percentile(k_final, 99.5), 80)
    ax[1].hist(k_final[employed == 1], bins=bins, alpha=0.6, label="employed", density=True)
    ax[1].hist(k_final[employed == 0], bins=bins, alpha=0.6, label="unemployed", density=True)
    ax[1].set(xlabel="k", ylabel="density", title=f"Wealth distribution (last period, {len(k_final)} agents)")
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
    fig.savefig(png, dpi=120)
    print(png)


if __name__ == "__main__":
    main()
