#!/usr/bin/env python3
"""Peer of perf/runner.py for Parity's SDE ensembles: the same problems in diffrax on the GPU.

    sde_diffrax.py gbm --paths 1048576 --steps 64 --stepper euler --precision float --json r.json -q
    sde_diffrax.py ou --paths 1048576 --steps 16 --stepper srk2 --precision double --json r.json -q
    sde_diffrax.py josephson --paths 1048576 --periods 200 --transient 20 --precision float --json r.json -q
    sde_diffrax.py info --json info.json
    sde_diffrax.py compare OUT/results.json [--backend cuda] [--peer diffrax]

It takes the command lines of `parity-linear-sde-<backend> gbm | ou` (perf/linear_sde) and of
`parity-<backend> josephson`, and writes the fields of Parity's report the runner reads
(perf/peers/peer_report.py). The systems, all Ito:
  gbm        dX = mu X dt + sigma X dW; E[X_T] = x0 e^{mu T}, Var = E[X_T]^2 (e^{sigma^2 T} - 1)
  ou         dX = theta (mean - X) dt + sigma dW; E[X_T] = mean + (x0 - mean) e^{-theta T},
             Var = sigma^2 (1 - e^{-2 theta T}) / (2 theta)
  josephson  x'' + gamma x' = -2 pi cos(2 pi x) + a cos(omega t) + f + sqrt(2 gamma D) xi, x(0)
             uniform in [0, 1), v(0) in [-2, 2); <<v>> per path (x(T) - x(T0)) / (T - T0), T0 the
             end of the transient (Parity averages v over those steps: the same limit).
gbm and ou report the ensemble's mean and variance of X_T with standard errors (the variance's by
the delta method) and their bias against the closed forms; josephson reports <<v>> with its
standard error (no closed form: `compare` holds it against Parity's run of the same case).

Schemes, by --stepper, the diffrax solver of the same order (diffrax's solver docs):
  euler     diffrax.Euler (Euler-Maruyama; weak order 1), every system
  milstein  diffrax.ItoMilstein (strong order 1; with additive noise it is Euler-Maruyama, as
            Parity's milstein is)
  srk2      diffrax.Heun, additive noise only (ou, josephson): Parity's SRK2 step is Heun's
            predictor-corrector, weak order 2 for additive noise (for which Ito and Stratonovich
            agree); on gbm (multiplicative Ito noise) diffrax has no Runge-Kutta scheme of that
            weak order, so the case is skipped
  weak2     diffrax.ShARK, additive noise only: diffrax's recommended solver for additive noise
            (strong order 1.5, deterministic order 2); Parity's weak2 is SRK2 with additive noise.
            gbm is skipped as for srk2
--noise-law five-point is skipped (diffrax draws Gaussian increments).

How it is solved: one path is diffrax.diffeqsolve over the fixed grid t_k = k dt
(StepTo(ts), the grid computed in double and rounded once, so float32 runs do not accumulate t),
noise from UnsafeBrownianPath (one Gaussian increment per step, plus the space-time Levy area
that ShARK needs; adjoint ForwardMode, no backpropagation). VirtualBrownianTree is diffrax's
default Brownian motion for adaptive steps and gradients: each query descends a binary tree
(about log2(T / tol) splits of a key), needless on a fixed grid with no gradients, where diffrax's
docs name UnsafeBrownianPath the quick choice. SaveAt keeps only X_T (josephson: x at T0 and T).
The paths are jax.jit(jax.vmap(...)) over keys jax.random.split(fold_in(key(seed), chunk), n).
Random numbers are JAX's, not Parity's Philox streams: the two agree statistically only.

Timed (timing.total_seconds): the execution of the ahead-of-time compiled function
(jax.jit(...).lower(...).compile(), compilation excluded) from the call to block_until_ready()
on its outputs: keys, initial states, every step, and the ensemble mean and variance on the
device, for every chunk; one untimed execution first. The reported statistics are then
recomputed from the per-path values in float64 on the host (untimed). Chunking: all paths in one
call unless the device runs out of memory, then halves of it, down to 1024 paths a chunk
(results.chunks says how many ran); SDE_DIFFRAX_CHUNK_PATHS sets the chunk from the start.

Precision: float = float32, double = float64 (jax_enable_x64). Without JAX or diffrax, and for
cases it cannot run, a skipped report with exit 0. Wheels: the GPU machine has JAX with CUDA,
diffrax and equinox installed, nothing to carry there; elsewhere python3 -m pip install jax diffrax.
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_report import Skip, backend_facts, cpu_name, finish, mark_skipped  # noqa: E402

COMMANDS = ["gbm", "ou", "josephson"]
ADDITIVE = {"ou", "josephson"}  # systems whose noise does not depend on the state
MIN_CHUNK = 1024


def count(text):
    """A whole number in Parity's syntax (1000000, 1e6 or 1E+6)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value != int(value) or value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive whole number")
    return int(value)


def parser():
    ap = argparse.ArgumentParser(prog=os.path.basename(sys.argv[0]), allow_abbrev=False,
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=COMMANDS + ["info"])
    ap.add_argument("--paths", type=count, default=1 << 20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stepper", choices=["euler", "srk2", "milstein", "weak2"], default=None,
                    help="default: euler for gbm and ou, srk2 for josephson (as Parity)")
    ap.add_argument("--noise-law", choices=["gaussian", "five-point"], default="gaussian")
    # gbm and ou (perf/linear_sde)
    ap.add_argument("--mu", type=float, default=1.0)
    ap.add_argument("--theta", type=float, default=1.0)
    ap.add_argument("--mean", type=float, default=0.0)
    ap.add_argument("--sigma", type=float, default=None, help="default: 0.5 for gbm, 1 for ou (as Parity)")
    ap.add_argument("--x0", type=float, default=1.0)
    ap.add_argument("--horizon", type=float, default=1.0)
    ap.add_argument("--steps", type=count, default=64)
    # josephson (models/parity/sde/josephson.hpp; paper Fig. 2 defaults)
    ap.add_argument("--gamma", type=float, default=0.9)
    ap.add_argument("-a", "--amplitude", type=float, default=4.2)
    ap.add_argument("--omega", type=float, default=4.9)
    ap.add_argument("-D", "--noise", type=float, default=0.001)
    ap.add_argument("-f", "--force", type=float, default=0.1)
    ap.add_argument("--steps-per-period", type=count, default=100)
    ap.add_argument("--periods", type=count, default=2000)
    ap.add_argument("--transient", type=int, default=200)
    # Parity options with nothing to do here: sampling and the covariance concern Parity's
    # on-device moments (the peer keeps only what its statistic needs).
    ap.add_argument("--sample-every", type=count, default=None, help="accepted; the peer saves only T0 and T")
    ap.add_argument("--no-covariance", action="store_true", help="accepted; the peer reduces no covariance")
    ap.add_argument("--precision", choices=["float", "double"], default="double")
    ap.add_argument("--json", default=None, help="report file ('-': standard output)")
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("--threads", type=int, default=None, help="accepted for the runner's sake; not used")
    return ap


def settle(ap, a):
    """Parity's per-command defaults and range checks (bad options exit 2)."""
    if a.stepper is None:
        a.stepper = "srk2" if a.command == "josephson" else "euler"
    if a.sigma is None:
        a.sigma = 1.0 if a.command == "ou" else 0.5
    if a.command in ("gbm", "ou") and not (a.horizon > 0 and math.isfinite(a.horizon)):
        ap.error("--horizon must be a positive number")
    if a.command == "ou" and not a.theta > 0:
        ap.error("--theta must be positive")
    if a.command in ("gbm", "ou") and a.paths < 2:
        ap.error("--paths: at least 2, for the standard errors")
    if a.command == "josephson" and not 0 <= a.transient < a.periods:
        ap.error("--transient must be below --periods")


def exact_moments(a):
    """E[X_T] and Var[X_T] of the exact solution (gbm, ou)."""
    T = a.horizon
    if a.command == "ou":
        return (a.mean + (a.x0 - a.mean) * math.exp(-a.theta * T),
                a.sigma ** 2 / (2 * a.theta) * -math.expm1(-2 * a.theta * T))
    m = a.x0 * math.exp(a.mu * T)
    return m, m * m * math.expm1(a.sigma ** 2 * T)


def solver_name(a):
    """The diffrax solver of the same order as Parity's --stepper (see the top of this file)."""
    if a.noise_law != "gaussian":
        raise Skip("--noise-law five-point: diffrax draws Gaussian increments")
    if a.stepper in ("srk2", "weak2") and a.command not in ADDITIVE:
        raise Skip(f"--stepper {a.stepper} on {a.command} (multiplicative Ito noise): diffrax has no scheme of "
                   "that weak order for it (Heun and ShARK assume Stratonovich or additive noise)")
    return {"euler": "Euler", "milstein": "ItoMilstein", "srk2": "Heun", "weak2": "ShARK"}[a.stepper]


def backend():
    try:
        import jax
        import diffrax
        import equinox
    except ImportError as e:
        raise Skip(f"JAX or diffrax not importable ({e}): {sys.executable} -m pip install jax diffrax")
    device = jax.devices()[0]
    return {"execution_space": f"JAX/XLA on {device.platform}",
            "device_name": getattr(device, "device_kind", None) or cpu_name(),
            "concurrency": None, "kernel_compiler": "XLA",
            "versions": {"jax": jax.__version__, "jaxlib": getattr(__import__("jaxlib"), "__version__", None),
                         "diffrax": diffrax.__version__, "equinox": equinox.__version__,
                         "python": sys.version.split()[0]}}


def build(a, dtype):
    """One path as a function of its key, returning its statistic (X_T, or <<v>> for josephson),
    and the number of steps a path takes."""
    import diffrax as dfx
    import jax.numpy as jnp
    import jax.random as jr
    import numpy as np

    if a.command == "josephson":
        dt = 2 * math.pi / a.omega / a.steps_per_period
        steps, steps0 = a.periods * a.steps_per_period, a.transient * a.steps_per_period
    else:
        dt, steps, steps0 = a.horizon / a.steps, a.steps, None
    grid = jnp.asarray(np.arange(steps + 1, dtype=np.float64) * dt, dtype)  # t_k = k dt, rounded once
    solver = getattr(dfx, solver_name(a))()
    levy = dfx.SpaceTimeLevyArea if isinstance(solver, dfx.ShARK) else dfx.BrownianIncrement
    controller = dfx.StepTo(ts=grid)
    real = lambda v: jnp.asarray(v, dtype)  # noqa: E731

    if a.command == "gbm":
        mu, sigma = real(a.mu), real(a.sigma)
        drift = lambda t, y, _: mu * y  # noqa: E731
        diffusion = lambda t, y, _: sigma * y  # noqa: E731
        shape = ()
    elif a.command == "ou":
        theta, mean, sigma = real(a.theta), real(a.mean), real(a.sigma)
        drift = lambda t, y, _: theta * (mean - y)  # noqa: E731
        diffusion = lambda t, y, _: sigma  # noqa: E731
        shape = ()
    else:
        gamma, amp, omega, force = real(a.gamma), real(a.amplitude), real(a.omega), real(a.force)
        two_pi = real(2 * math.pi)
        noise = jnp.asarray([0.0, math.sqrt(2 * a.gamma * a.noise)], dtype)

        def drift(t, y, _):
            x, v = y[0], y[1]
            return jnp.stack([v, -gamma * v - two_pi * jnp.cos(two_pi * x) + amp * jnp.cos(omega * t) + force])

        diffusion = lambda t, y, _: noise  # noqa: E731
        shape = ()

    def one(key):
        kinit, kbrown = jr.split(key)
        if a.command == "josephson":
            kx, kv = jr.split(kinit)
            y0 = jnp.stack([jr.uniform(kx, (), dtype), jr.uniform(kv, (), dtype, -2.0, 2.0)])
            saveat = dfx.SaveAt(ts=grid[jnp.asarray([steps0, steps])])
        else:
            y0 = real(a.x0)
            saveat = dfx.SaveAt(t1=True)
        bm = dfx.UnsafeBrownianPath(shape=shape, key=kbrown, levy_area=levy)
        terms = dfx.MultiTerm(dfx.ODETerm(drift), dfx.ControlTerm(diffusion, bm))
        sol = dfx.diffeqsolve(terms, solver, grid[0], grid[-1], None, y0, saveat=saveat,
                              stepsize_controller=controller, max_steps=steps, adjoint=dfx.ForwardMode())
        if a.command == "josephson":
            return (sol.ys[1, 0] - sol.ys[0, 0]) / (grid[-1] - grid[steps0])
        return sol.ys[-1]

    return one, steps


def is_out_of_memory(e):
    text = str(e)
    return "RESOURCE_EXHAUSTED" in text or "Out of memory" in text or "out of memory" in text


def run_model(a):
    import jax
    if a.precision == "double":
        jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.random as jr
    import numpy as np

    dtype = jnp.float32 if a.precision == "float" else jnp.float64
    one, steps = build(a, dtype)
    chunk = min(a.paths, count(os.environ.get("SDE_DIFFRAX_CHUNK_PATHS", str(a.paths))))
    if a.paths % chunk:
        raise Skip(f"SDE_DIFFRAX_CHUNK_PATHS={chunk} does not divide --paths {a.paths}")

    while True:
        def solve_chunk(index, n=chunk):
            keys = jr.split(jr.fold_in(jr.PRNGKey(a.seed), index), n)
            values = jax.vmap(one)(keys)
            return values, jnp.mean(values), jnp.var(values)  # the device reduction Parity also does

        try:
            t = time.perf_counter()
            compiled = jax.jit(solve_chunk).lower(jnp.uint32(0)).compile()
            compile_s = time.perf_counter() - t
            jax.block_until_ready(compiled(jnp.uint32(0)))  # untimed first execution
            chunks = a.paths // chunk
            t = time.perf_counter()
            outs = [compiled(jnp.uint32(c)) for c in range(chunks)]
            jax.block_until_ready(outs)
            seconds = time.perf_counter() - t
            break
        except Exception as e:  # noqa: BLE001 (XLA's error types differ between versions)
            if not is_out_of_memory(e) or chunk // 2 < MIN_CHUNK or a.paths % (chunk // 2):
                raise
            chunk //= 2

    values = np.concatenate([np.asarray(o[0], dtype=np.float64) for o in outs])
    n = values.size
    finite = bool(np.all(np.isfinite(values)))
    mean = float(values.mean())
    dev = values - mean
    variance = float(np.mean(dev ** 2))
    steps_total = float(a.paths) * steps
    results = {"dt": (2 * math.pi / a.omega / a.steps_per_period) if a.command == "josephson" else a.horizon / a.steps,
               "steps": steps, "paths": a.paths, "chunks": a.paths // chunk, "chunk_paths": chunk,
               "solver": f"diffrax.{solver_name(a)}", "brownian_motion": "diffrax.UnsafeBrownianPath",
               "compile_seconds": compile_s, "steps_total": steps_total,
               "throughput": {"value": steps_total, "unit": "path steps"},
               "steps_per_second": steps_total / seconds if seconds > 0 else None}
    if a.command == "josephson":
        results.update(mean_velocity=[mean], mean_velocity_error=[float(dev.std(ddof=1) / math.sqrt(n))],
                       mean_velocity_note="<<v>> per path (x(T) - x(T0)) / (T - T0), averaged over paths; error = "
                                          "standard deviation of the per-path values / sqrt(paths)")
    else:
        exact_mean, exact_variance = exact_moments(a)
        results.update(
            mean=mean, mean_error=float(dev.std(ddof=1) / math.sqrt(n)), exact_mean=exact_mean,
            mean_bias=mean - exact_mean, variance=variance,
            # Delta method: the sample variance's spread is that of (X - mean)^2 over sqrt(paths).
            variance_error=float(np.std(dev ** 2, ddof=1) / math.sqrt(n)), exact_variance=exact_variance,
            variance_bias=variance - exact_variance,
            error_note="errors: one standard error over the paths (the variance's by the delta method); bias: "
                       "estimate - closed form, the scheme's weak error plus sampling error")
    return {"status": "ok" if finite else "non_finite", "iterations": steps, "results": results,
            "timing": {"total_seconds": seconds, "phases": {"solve": {"seconds": seconds}},
                       "note": "the AOT-compiled jit(vmap(diffeqsolve)) over all chunks (keys, initial states, "
                               "every step, device mean and variance), call to block_until_ready; compilation "
                               "and one untimed first execution excluded"}}


def compare(argv):
    """Peer against backend, case by case, from a runner results.json: times, their ratio, and each
    side's error: gbm and ou the bias against the closed form in its standard errors, josephson
    the difference of <<v>> in combined standard errors."""
    ap = argparse.ArgumentParser(prog="sde_diffrax.py compare", description=compare.__doc__)
    ap.add_argument("results")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--peer", default="diffrax")
    a = ap.parse_args(argv)
    with open(a.results) as f:
        doc = json.load(f)
    lines = ["| case | precision | Parity [s] | peer [s] | peer / Parity | Parity error | peer error |",
             "|---|---|---|---|---|---|---|"]
    for entry in doc.get("results", []):
        ours, theirs = entry["backends"].get(a.backend), entry["backends"].get(a.peer)
        if not ours or not theirs or theirs.get("status") == "skipped":
            continue
        r, q = ours["results"], theirs["results"]
        if "mean_velocity" in r:
            v, e, w, s = r["mean_velocity"][0], r["mean_velocity_error"][0], q["mean_velocity"][0], \
                q["mean_velocity_error"][0]
            errors = [f"<<v>> {v:.6g} +- {e:.2g}", f"<<v>> {w:.6g} +- {s:.2g} ({(w - v) / math.hypot(e, s):+.2f} "
                                                  "combined standard errors from Parity)"]
        else:
            errors = [f"mean bias {x['mean_bias']:+.3g} +- {x['mean_error']:.2g}, variance bias "
                      f"{x['variance_bias']:+.3g} +- {x['variance_error']:.2g}" for x in (r, q)]
        lines.append(f"| {entry['case']} | {entry['precision']} | {ours['median_s']:.4g} | {theirs['median_s']:.4g} "
                     f"| {theirs['median_s'] / ours['median_s']:.3g} | {errors[0]} | {errors[1]} |")
    print("\n".join(lines))
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["compare"]:
        return compare(argv[1:])
    ap = parser()
    a = ap.parse_args(argv)
    settle(ap, a)
    params = {k: v for k, v in vars(a).items() if k not in ("command", "json", "quiet", "threads")}
    doc = {"model": a.command, "peer": "diffrax", "precision": a.precision, "parameters": params}
    info = backend_facts("diffrax")
    info["precision"] = a.precision
    code = 0
    try:
        info.update(backend())  # raises Skip without JAX or diffrax
        if a.command != "info":
            solver_name(a)  # raises Skip for a case without a matching solver, before JAX starts work
            doc.update(run_model(a))
            code = 0 if doc["status"] == "ok" else 3
    except Skip as e:
        mark_skipped(doc, e)

    def summary(doc):
        r = doc["results"]
        if a.command == "josephson":
            head = f"<<v>> = {r['mean_velocity'][0]:.6g} +- {r['mean_velocity_error'][0]:.2g}"
        else:
            head = (f"E[X_T] = {r['mean']:.6g} +- {r['mean_error']:.2g} (exact {r['exact_mean']:.6g}), "
                    f"Var = {r['variance']:.6g} +- {r['variance_error']:.2g} (exact {r['exact_variance']:.6g})")
        return f"{head}, {r['solver']}, {r['steps_per_second']:.3g} path steps/s ({doc['timing']['total_seconds']:.3f} s)"

    finish(doc, info, "diffrax", a.command, a.json, a.quiet, summary)
    return code


if __name__ == "__main__":
    sys.exit(main())
