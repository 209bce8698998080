#!/usr/bin/env python3
"""Plots of a dual-control run (the arrays that `dual-control --output DIR` writes), one figure:

    parity-<backend> dual-control --policy optimal --grid 32,32,16 --output out/dc
    scripts/plot out/dc                                   # out/dc/dual_control.png
    python3 scripts/plot_dual_control.py out/dc [-o FILE.EXT] [--mu 0 0.5 1 2] [--sigma 0.5 2]

optimal: the policy u*(x) (solid) beside the cautionary myopic rule (dashed) for a few beliefs
(mu, Sigma), and the value of experimentation V_myopic - V_optimal over (x, mu) at a few Sigma.
myopic: the rule u(x) and its cost-to-go V over (x, mu). inert (u = 0): V(x), which depends on x
alone, against the closed form of the report, and their difference. Arrays are indexed
[x, mu, Sigma] (C order), with axes x, mu, Sigma.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402


def nearest(axis, value):
    import numpy as np

    return int(np.argmin(np.abs(axis - value)))


def policy_of(out, u, has_myopic):
    """Which policy the folder holds: the report says so; otherwise the arrays tell (the optimal
    solve also writes the myopic solution it starts from, and the inert policy is u = 0)."""
    p = out.parameter("policy")
    if p in ("inert", "myopic", "optimal"):
        return p
    if has_myopic:
        return "optimal"
    return "inert" if not u.any() else "myopic"


def inert_closed_form(out, x):
    """V0(x) = a + b x + c x^2 of the inert policy from the report's parameters (None without a
    report): the cost-to-go of u = 0 solved by hand, independent of the grid solution."""
    names = ("alpha", "gamma", "delta", "sigma_eps", "xbar", "ubar", "omega")
    p = [out.parameter(n) for n in names]
    if not all(isinstance(v, (int, float)) for v in p):
        return None
    alpha, gamma, delta, sigma, xbar, ubar, omega = p
    c = gamma**2 / (1 - delta * gamma**2)
    b = 2 * gamma * (alpha - xbar + delta * c * alpha) / (1 - delta * gamma)
    a = ((alpha - xbar)**2 + omega * ubar**2 + sigma**2 + delta * (b * alpha + c * (alpha**2 + sigma**2))) / (1 - delta)
    return a + b * x + c * x * x


def plot(out, png, mus=(0.0, 0.5, 1.0, 2.0), sigmas=(0.5, 2.0)):
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm
    import numpy as np

    pc.expect_model(out, "dual_control")
    x, mu, S = out.load("x"), out.load("mu"), out.load("Sigma")
    shape = (x.size, mu.size, S.size)
    V, u = out.load("V"), out.load("u")
    pc.expect_shape(out, "V", V, shape)
    pc.expect_shape(out, "u", u, shape)
    has_myopic = out.has("V_myopic") and out.has("u_myopic")
    if has_myopic and not out.has_manifest:
        # Without a manifest, a V_myopic older than V is a leftover of an earlier optimal run.
        t = lambda n: os.path.getmtime(os.path.join(out.path, out.arrays[n]))  # noqa: E731
        if t("V_myopic") < t("V") - 1:
            pc.warn(f"{out.name}: V_myopic.npy is older than V.npy (left by an earlier run): not used")
            has_myopic = False
    policy = policy_of(out, u, has_myopic)
    if policy == "optimal" and not has_myopic:
        raise pc.PlotError(f"{out.name}: an optimal-policy output without V_myopic and u_myopic")
    if has_myopic and policy == "optimal":
        Vm, um = out.load("V_myopic"), out.load("u_myopic")
        pc.expect_shape(out, "V_myopic", Vm, shape)
        pc.expect_shape(out, "u_myopic", um, shape)
    ks = sorted({nearest(S, s) for s in sigmas})
    js = sorted({nearest(mu, m) for m in mus})
    if policy == "inert":
        nrow, ncol = 1, 2 if inert_closed_form(out, x) is not None else 1
    else:
        nrow, ncol = 2, len(ks)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.5 * ncol, 4.2 * nrow), squeeze=False)
    grid = f"{x.size} x {mu.size} x {S.size} grid"

    if policy == "inert":
        closed = inert_closed_form(out, x)
        a1 = axes[0][0]
        j0 = nearest(mu, 0.0)
        for k in ks:
            a1.plot(x, V[:, j0, k], label=f"grid, mu = {mu[j0]:.2f}, Sigma = {S[k]:.2f}")
        if closed is not None:
            a1.plot(x, closed, "k--", lw=1, label="closed form a + b x + c x^2")
            a2 = axes[0][1]
            dev = V - closed[:, None, None]
            a2.plot(x, dev.max(axis=(1, 2)), label="max over (mu, Sigma)")
            a2.plot(x, dev.min(axis=(1, 2)), "--", label="min over (mu, Sigma)")
            a2.axhline(0, color="gray", lw=0.5)
            a2.set(xlabel="x", ylabel="V - closed form", title="grid error (box edges, interpolation)")
            a2.legend(fontsize=8)
            a2.grid(alpha=0.3)
        else:
            pc.warn(f"{out.name}: no report with the model's parameters: the closed form is not drawn")
        a1.set(xlabel="x (last observation)", ylabel="V", title="cost-to-go of u = 0")
        a1.legend(fontsize=8)
        a1.grid(alpha=0.3)
    else:
        for ax, k in zip(axes[0], ks):
            for j in js:
                if policy == "optimal":
                    line, = ax.plot(x, u[:, j, k], label=f"optimal, mu = {mu[j]:.2f}")
                    ax.plot(x, um[:, j, k], "--", color=line.get_color(), label=f"myopic, mu = {mu[j]:.2f}")
                else:
                    ax.plot(x, u[:, j, k], label=f"mu = {mu[j]:.2f}")
            ax.set_title(f"{policy} policy u(x), Sigma = {S[k]:.2f}")
            ax.set_xlabel("x (last observation)")
            ax.set_ylabel("u")
            ax.grid(alpha=0.3)
        axes[0][-1].legend(fontsize=7, ncol=2 if policy == "optimal" else 1)
        for ax, k in zip(axes[1], ks):
            if policy == "optimal":
                g = (Vm - V)[:, :, k].T
                # Log colours: at mu = 0 the myopic rule never learns (u = ubar forever) and the gain
                # is orders of magnitude above its value elsewhere.
                positive = g[g > 0]
                norm = None
                if positive.size:
                    norm = LogNorm(vmin=max(positive.min(), 1e-4 * positive.max()), vmax=positive.max())
                im = ax.pcolormesh(x, mu, np.maximum(g, norm.vmin if norm else 0), shading="auto", cmap="viridis",
                                   norm=norm)
                fig.colorbar(im, ax=ax, label="V_myopic - V_optimal")
                ax.set_title(f"value of experimentation, Sigma = {S[k]:.2f}")
            else:
                im = ax.pcolormesh(x, mu, V[:, :, k].T, shading="auto", cmap="viridis")
                fig.colorbar(im, ax=ax, label="V")
                ax.set_title(f"myopic cost-to-go V(x, mu), Sigma = {S[k]:.2f}")
            ax.set_xlabel("x")
            ax.set_ylabel("mu")
    fig.suptitle(f"dual control, {policy} policy, {grid}", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    if policy == "optimal":
        gain = Vm - V
        return f"max value of experimentation {gain.max():.4g}, min {gain.min():.3g}"
    return f"{policy} policy, V in [{V.min():.4g}, {V.max():.4g}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="the --output folder of a dual-control run")
    ap.add_argument("-o", "--out", metavar="FILE.EXT",
                    help="the figure to write, its format from the suffix: png, pdf, svg, jpg, ... "
                         "(default: FOLDER/dual_control.png)")
    ap.add_argument("--mu", type=float, nargs="+", default=[0.0, 0.5, 1.0, 2.0], help="beliefs mu to plot")
    ap.add_argument("--sigma", type=float, nargs="+", default=[0.5, 2.0], help="belief variances Sigma to plot")
    args = ap.parse_args()
    pc.require_packages(__file__)
    pc.check_figure_file(args.out)
    outs = pc.find_outputs(args.folder, "dual_control")
    if len(outs) != 1:
        raise pc.PlotError(f"{args.folder} holds {len(outs)} outputs: use scripts/plot {args.folder}")
    png, shown = pc.figure_target(args.out, outs[0], "dual_control")
    note = plot(outs[0], png, args.mu, args.sigma)
    print(f"{shown}: {note}")


if __name__ == "__main__":
    pc.run_main(main)
