#!/usr/bin/env python3
"""Plots of the SDE-ensemble outputs (the arrays that `josephson --output DIR` and
`kuramoto --output DIR` write), one figure:

  scripts/plot DIR                              DIR/josephson.png or DIR/kuramoto.png
  python3 scripts/plot_sde.py DIR [-o FILE.EXT]
  python3 scripts/plot_sde.py josephson|kuramoto DIR [OUT.png]     (the older form)

josephson: <<v>> against the swept parameter with its statistical error (a map for a 2-D sweep;
without a sweep, the ensemble mean of v over time with the asymptotic <<v>> and its error band),
and the histogram of x mod 1 at the end, labelled with the sweep values. With density.npy
(--density-range) or trajectories.npy (--trajectories), a second row as in Januszewski & Kostur's
Figure 2, for the middle sweep point: the density of the unwrapped x over time as an image (t
across, x up) under the kept trajectories x(t), and the density at the end.
kuramoto: r(t) with the N -> infinity stationary value where the model has one (identical
oscillators: r = I1(K r / D) / I0(K r / D), from the report's K and D), and the phase density
P(x, t) at a few times, with the stationary density exp((K r / D) cos(x - psi)) at the end.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as pc  # noqa: E402


def sweep_axes(out, shape):
    """The sweep axes (name, values) in the order of the arrays' dimensions: the report's order
    where there is one, else matched by length."""
    names = [n[len("sweep_"):] for n in out.arrays if n.startswith("sweep_")]
    values = {n: out.load("sweep_" + n) for n in names}
    order = [s.get("name") for s in (out.parameter("sweeps") or []) if isinstance(s, dict)]
    if sorted(order) != sorted(names):
        order = []
        for length in shape:
            match = [n for n in names if values[n].size == length and n not in order]
            if not match:
                break
            order.append(match[0])
        if len(names) > 1 and len({values[n].size for n in names}) == 1:
            pc.warn(f"{out.name}: no report gives the order of the sweep axes; assumed {', '.join(order)}")
    axes = [(n, values[n]) for n in order]
    if tuple(v.size for _, v in axes) != tuple(shape):
        found = ", ".join(f"{n} ({v.size})" for n, v in axes) or "none"
        raise pc.PlotError(f"{out.name}: mean_velocity has shape {tuple(shape)} but the sweep axes are {found} "
                           "(files from different runs?)")
    return axes


def josephson(out, png):
    import matplotlib.pyplot as plt
    import numpy as np

    pc.expect_model(out, "josephson")
    v = out.load("mean_velocity")
    err = out.load("mean_velocity_error")
    pc.expect_shape(out, "mean_velocity_error", err, v.shape)
    hist = out.load("histogram")
    xb = out.load("x_bins")
    swept = any(n.startswith("sweep_") for n in out.arrays)
    shape = v.shape if swept else ()
    axes = sweep_axes(out, shape) if swept else []
    pc.expect_shape(out, "histogram", hist, tuple(shape) + (xb.size,))
    over_time = out.has("density") or out.has("trajectories")
    if over_time:
        fig, ((a1, a2), (a3, a4)) = plt.subplots(2, 2, figsize=(11, 8.4))
        josephson_over_time(out, axes, a3, a4)
    else:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    if not axes:
        # One parameter point: the mean position drifts with slope <<v>> (x is unwrapped; v itself
        # is sampled at one phase of the drive, which says little about its time average).
        v0, e0 = float(v.reshape(-1)[0]), float(err.reshape(-1)[0])
        slope = f"slope <<v>> = {v0:.4g} " + (f"+- {e0:.2g}" if np.isfinite(e0) else "(error undefined)")
        if out.has("t") and out.has("mean_x"):
            t, mx = out.load("t"), out.load("mean_x").reshape(-1)
            pc.expect_shape(out, "mean_x", mx, t.shape)
            a1.plot(t, mx, "o-", ms=2, lw=1, label="ensemble mean <x>(t)")
            if out.has("variance_x"):
                sd = np.sqrt(np.maximum(out.load("variance_x").reshape(-1), 0))
                pc.expect_shape(out, "variance_x", sd, t.shape)
                a1.fill_between(t, mx - sd, mx + sd, alpha=0.15, label="+- one standard deviation of x")
            line = mx[-1] + v0 * (t - t[-1])
            a1.plot(t, line, color="C3", ls="--", lw=1.5, label=slope)
            if np.isfinite(e0):
                a1.fill_between(t, line - e0 * (t[-1] - t), line + e0 * (t[-1] - t), color="C3", alpha=0.2)
            a1.set(xlabel="t", ylabel="x", title="drift of the ensemble (one parameter point)")
        else:
            a1.bar([0], [v0], yerr=[e0 if np.isfinite(e0) else 0], capsize=6, color="C0", label=slope)
            a1.axhline(0, color="gray", lw=0.5)
            a1.set_xticks([])
            a1.set(ylabel="<<v>>", title="asymptotic mean velocity (one parameter point)")
        a1.legend(fontsize=8)
        a2.step(xb, hist / max(hist.sum(), 1) * xb.size, where="mid")
    elif len(axes) == 1:
        (name, values), = axes
        a1.errorbar(values, v, yerr=np.where(np.isfinite(err), err, 0), fmt="o-", ms=3, capsize=2)
        a1.set_xlabel(name)
        a1.axhline(0, color="gray", lw=0.5)
        a1.set_ylabel("<<v>>")
        a1.set_title("asymptotic mean velocity")
        for i in sorted({0, values.size // 2, values.size - 1}):
            a2.step(xb, hist[i] / max(hist[i].sum(), 1) * xb.size, where="mid", label=f"{name} = {values[i]:.4g}")
        a2.legend(fontsize=8)
    else:
        (n0, v0), (n1, v1) = axes
        lim = np.nanmax(np.abs(v)) or 1
        im = a1.pcolormesh(v1, v0, v, shading="auto", cmap="RdBu_r", vmin=-lim, vmax=lim)
        fig.colorbar(im, ax=a1, label="<<v>>")
        a1.set(xlabel=n1, ylabel=n0, title="asymptotic mean velocity")
        picks = sorted({(0, 0), (v0.size // 2, v1.size // 2), (v0.size - 1, v1.size - 1)})
        for i, j in picks:
            h = hist[i, j]
            a2.step(xb, h / max(h.sum(), 1) * xb.size, where="mid", label=f"{n0} = {v0[i]:.4g}, {n1} = {v1[j]:.4g}")
        a2.legend(fontsize=8)
    a2.set_xlabel("x mod 1")
    a2.set_ylabel("density")
    a2.set_title("position histogram at the end")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return f"<<v>> in [{np.nanmin(v):.4g}, {np.nanmax(v):.4g}] over {v.size} parameter point(s)"


def josephson_over_time(out, axes, a3, a4):
    """Januszewski & Kostur's Figure 2 for the middle sweep point: on a3 the density of the
    unwrapped x over time (an image, t across, x up) under the kept trajectories (black), on a4
    the density at the last sample."""
    import numpy as np
    from matplotlib.colors import LogNorm

    t = out.load("t")
    points = int(np.prod([v.size for _, v in axes])) if axes else 1
    p = points // 2
    index = np.unravel_index(p, tuple(v.size for _, v in axes)) if axes else ()
    label = ", ".join(f"{n} = {v[i]:.4g}" for (n, v), i in zip(axes, index))
    suffix = f" ({label})" if label else ""
    a4.axis("off")
    if out.has("density"):
        d, edges = out.load("density"), out.load("density_edges")
        pc.expect_shape(out, "density", d, (t.size, points, edges.size - 1))
        counts = d[:, p, :].astype(float)
        n = counts.sum(axis=1, keepdims=True)
        if out.has("density_outside"):
            o = out.load("density_outside")
            pc.expect_shape(out, "density_outside", o, (t.size, points, 2))
            n = n + o[:, p, :].sum(axis=1, keepdims=True)
            lost = int(o[:, p, :].sum(axis=1).max())
            if lost > 0:
                a3.text(0.02, 0.96, f"up to {lost} paths outside the range", transform=a3.transAxes, fontsize=8,
                        va="top")
        dens = counts / np.maximum(n, 1) / np.diff(edges)  # per unit of x, over all paths
        dt = t[1] - t[0] if t.size > 1 else t[0]
        # A log scale: the ensemble starts in one period and spreads over many.
        shown = np.ma.masked_less_equal(dens.T, 0)
        im = a3.imshow(shown, origin="lower", aspect="auto", cmap="viridis", interpolation="nearest",
                       norm=LogNorm() if shown.count() else None,
                       extent=(t[0] - dt / 2, t[-1] + dt / 2, edges[0], edges[-1]))
        a3.figure.colorbar(im, ax=a3, label="P(x, t)")
        used = np.nonzero(counts.sum(axis=0))[0]
        if used.size:  # the populated part of the range, with a margin
            lo, hi = edges[used[0]], edges[used[-1] + 1]
            a3.set_ylim(max(edges[0], lo - 0.05 * (hi - lo)), min(edges[-1], hi + 0.05 * (hi - lo)))
        a4.axis("on")
        a4.stairs(dens[-1], edges, fill=True, alpha=0.6)
        if used.size:
            a4.set_xlim(*a3.get_ylim())
        a4.set(xlabel="x (unwrapped)", ylabel="P(x, t)", title=f"density at t = {t[-1]:.4g}")
    if out.has("trajectories"):
        tr = out.load("trajectories")
        if tr.ndim != 3 or tr.shape[:2] != (t.size, points):
            raise pc.PlotError(f"{out.name}: trajectories has shape {tr.shape}, expected ({t.size}, {points}, N) "
                               "(files from different runs?)")
        a3.plot(t, tr[:, p, :], color="k", lw=0.7)
    a3.set(xlabel="t", ylabel="x (unwrapped)", title="position over time" + suffix)


def bessel_i(n, z):
    """I_n(z) = (1/pi) int_0^pi exp(z cos t) cos(n t) dt, scaled by exp(-z): the trapezoidal rule
    on a periodic integrand converges geometrically (exact to rounding with these nodes for z <= 1e3)."""
    import numpy as np

    t = np.linspace(0, np.pi, 4097)
    f = np.exp(z * (np.cos(t) - 1)) * np.cos(n * t)
    return (f.sum() - 0.5 * (f[0] + f[-1])) * (t[1] - t[0]) / np.pi


def kuramoto_r_infinity(K, D):
    """The stationary order parameter of identical noisy oscillators for N -> infinity in the
    units of models/parity/sde/kuramoto.hpp (gamma x' = omega + (K/N) sum sin(x_j - x_i) + sqrt(2 gamma D) xi):
    P(x) ~ exp((K r / D) cos(x - psi)) gives r = I1(K r / D) / I0(K r / D); r = 0 for K <= 2 D."""
    if D <= 0:
        return 1.0
    a = K / D
    if a <= 2:
        return 0.0
    lo, hi = 1e-12, 1.0  # g(r) = I1(a r)/I0(a r) - r is > 0 just above 0 (slope a/2 - 1 > 0) and < 0 at 1
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if bessel_i(1, a * mid) / bessel_i(0, a * mid) > mid:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def kuramoto_theory(out):
    """(r_infinity, K / D) where the model has the N -> infinity value (identical oscillators and
    a report with K and D), else None."""
    K, D, spread = out.parameter("K"), out.parameter("D"), out.parameter("omega_spread")
    if not all(isinstance(q, (int, float)) for q in (K, D, spread)) or spread != 0:
        return None
    return kuramoto_r_infinity(K, D), K / D


def kuramoto(out, png):
    import matplotlib.pyplot as plt
    import numpy as np

    pc.expect_model(out, "kuramoto")
    t, r = out.load("t"), out.load("r")
    pc.expect_shape(out, "r", r, t.shape)
    hist = out.load("histogram")
    xb = out.load("x_bins")
    pc.expect_shape(out, "histogram", hist, (t.size, xb.size))
    theory = kuramoto_theory(out)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    a1.plot(t, r, label="r(t), this run")
    N = out.parameter("oscillators")
    if theory is not None:
        r_inf, _ = theory
        a1.axhline(r_inf, color="k", ls="--", lw=1, label=f"N -> infinity: r = {r_inf:.4f}")
        if isinstance(N, int) and N > 0:
            a1.axhspan(max(r_inf - 1 / np.sqrt(N), 0), min(r_inf + 1 / np.sqrt(N), 1), color="k", alpha=0.08,
                       label=f"+- 1/sqrt(N), N = {N}")
    elif out.report() is None:
        pc.warn(f"{out.name}: no report with K and D: the N -> infinity order parameter is not drawn")
    a1.set(xlabel="t", ylabel="r(t)", ylim=(0, 1), title="order parameter")
    a1.legend(fontsize=8)
    for i in sorted({0, len(t) // 10, len(t) // 3, len(t) - 1}):
        a2.step(xb, hist[i] / max(hist[i].sum(), 1) * xb.size / (2 * np.pi), where="mid", label=f"t = {t[i]:.3g}")
    if theory is not None and theory[0] > 0 and out.has("psi"):
        psi = out.load("psi")
        pc.expect_shape(out, "psi", psi, t.shape)
        r_inf, kd = theory
        x = np.linspace(0, 2 * np.pi, 400)
        p = np.exp(kd * r_inf * (np.cos(x - psi[-1]) - 1))
        a2.plot(x, p / (p.mean() * 2 * np.pi), "k--", lw=1, label="stationary, N -> infinity")
    a2.set(xlabel="x mod 2 pi", ylabel="P(x, t)", title="phase density")
    a2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    note = f"r(end) = {r[-1]:.4f}"
    return note + (f", N -> infinity {theory[0]:.4f}" if theory is not None else "")


PLOTS = {"josephson": josephson, "kuramoto": kuramoto}


def main():
    argv = sys.argv[1:]
    model = None
    if argv and argv[0] in PLOTS:  # the older form: plot_sde.py MODEL DIR [OUT.png]
        model = argv.pop(0)
        if len(argv) == 2 and not argv[1].startswith("-"):
            argv = [argv[0], "-o", argv[1]]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="the --output folder of a josephson or kuramoto run")
    ap.add_argument("-o", "--out", metavar="FILE.EXT",
                    help="the figure to write, its format from the suffix: png, pdf, svg, jpg, ... "
                         "(default: FOLDER/MODEL.png)")
    args = ap.parse_args(argv)
    pc.require_packages(__file__)
    pc.check_figure_file(args.out)
    outs = pc.find_outputs(args.folder, model)
    if len(outs) != 1:
        raise pc.PlotError(f"{args.folder} holds {len(outs)} outputs: use scripts/plot {args.folder}")
    out = outs[0]
    if model is not None:
        pc.expect_model(out, model)
    if out.model not in PLOTS:
        raise pc.PlotError(f"{out.name} holds {out.model} output, not josephson or kuramoto: "
                           f"use scripts/plot {out.name}")
    png, shown = pc.figure_target(args.out, out, out.model)
    note = PLOTS[out.model](out, png)
    print(f"{shown}: {note}")


if __name__ == "__main__":
    pc.run_main(main)
