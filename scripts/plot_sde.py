#!/usr/bin/env python3
"""Plots of the SDE-ensemble outputs (the .npy files that `josephson --output DIR` and
`kuramoto --output DIR` write).

  plot_sde.py josephson DIR [OUT.png]   <<v>> against the swept parameter (with its statistical
                                         error; a map for a 2-D sweep) and the histogram of x mod 1
  plot_sde.py kuramoto DIR [OUT.png]    r(t) and the phase density P(x, t) at a few times
"""
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def josephson(d, out):
    v = np.load(os.path.join(d, "mean_velocity.npy"))
    err = np.load(os.path.join(d, "mean_velocity_error.npy"))
    hist = np.load(os.path.join(d, "histogram.npy"))
    xb = np.load(os.path.join(d, "x_bins.npy"))
    axes = sorted(glob.glob(os.path.join(d, "sweep_*.npy")))
    names = [os.path.basename(a)[6:-4] for a in axes]
    values = [np.load(a) for a in axes]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    if len(values) == 0:
        a1.errorbar([0], v, yerr=err, fmt="o")
        a1.set_xticks([])
    elif len(values) == 1:
        a1.errorbar(values[0], v, yerr=err, fmt="o-", ms=3, capsize=2)
        a1.set_xlabel(names[0])
    else:
        im = a1.pcolormesh(values[1], values[0], v, shading="auto", cmap="RdBu_r")
        fig.colorbar(im, ax=a1, label="<<v>>")
        a1.set_xlabel(names[1])
        a1.set_ylabel(names[0])
    if len(values) < 2:
        a1.axhline(0, color="gray", lw=0.5)
        a1.set_ylabel("<<v>>")
    a1.set_title("asymptotic mean velocity")
    h = hist.reshape(-1, hist.shape[-1])
    idx = [0] if h.shape[0] == 1 else sorted({0, h.shape[0] // 2, h.shape[0] - 1})
    for i in idx:
        a2.step(xb, h[i] / h[i].sum() * len(xb), where="mid", label=f"sweep point {i}")
    a2.set_xlabel("x mod 1")
    a2.set_ylabel("density")
    a2.set_title("coarse-grained position histogram (end)")
    a2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def kuramoto(d, out):
    t = np.load(os.path.join(d, "t.npy"))
    r = np.load(os.path.join(d, "r.npy"))
    hist = np.load(os.path.join(d, "histogram.npy"))
    xb = np.load(os.path.join(d, "x_bins.npy"))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    a1.plot(t, r)
    a1.set_xlabel("t")
    a1.set_ylabel("r(t)")
    a1.set_ylim(0, 1)
    a1.set_title("order parameter")
    for i in sorted({0, len(t) // 10, len(t) // 3, len(t) - 1}):
        a2.step(xb, hist[i] / hist[i].sum() * len(xb) / (2 * np.pi), where="mid", label=f"t = {t[i]:.2f}")
    a2.set_xlabel("x mod 2 pi")
    a2.set_ylabel("P(x, t)")
    a2.legend(fontsize=8)
    a2.set_title("phase density")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("josephson", "kuramoto"):
        sys.exit(__doc__)
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(sys.argv[2], sys.argv[1] + ".png")
    {"josephson": josephson, "kuramoto": kuramoto}[sys.argv[1]](sys.argv[2], out)
    print(out)
