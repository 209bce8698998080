#!/usr/bin/env python3
"""Peer for `parity-<backend> josephson`: the same Josephson-junction ensemble in JAX.

    x'' + gamma x' = -2 pi cos(2 pi x) + a cos(omega t) + f + sqrt(2 gamma D) xi(t)

Paper Fig. 2 parameters by default (a 4.2, gamma 0.9, omega 4.9, D 0.001, f 0.1), 100 fixed steps
per drive period, x(0) uniform in [0, 1), v(0) uniform in [-2, 2). Two implementations, both our
code against the public APIs:

  --impl diffrax  diffrax.diffeqsolve with diffrax.Heun (for additive noise: the same predictor-
                  corrector as Parity's SRK2), ConstantStepSize, UnsafeBrownianPath (one Gaussian
                  increment per step; needs adjoint=ForwardMode), vmapped over paths. <<v>> per path = (x(T) - x(T0)) / (T - T0),
                  from SaveAt(ts=[T0, T]).
  --impl jax      a hand-written Heun step in jax.lax.fori_loop over steps, all paths as one array,
                  noise jax.random.normal(fold_in(key, step)); <<v>> per path = mean of v over the
                  steps after the transient (Parity's definition). --noise-law five-point: the
                  weak noise of Parity's --noise-law five-point instead (the same law: sign bit,
                  |xi| = a if bit 1, b if bits 2 and 3, else 0; from jax.random.bits, one byte a
                  variate), so the weak-noise rates compare like for like.

Random numbers are JAX's, not Parity's Philox streams: agreement with Parity is statistical only.
Timed: the execution of the ahead-of-time compiled function (jax.jit(...).lower(...).compile()),
from the call to block_until_ready(), initial conditions included, compilation excluded; one
untimed execution first. Writes a small JSON. Without JAX (or diffrax, for --impl diffrax) it
writes {"status": "skipped", ...} and exits 0.

    python3 perf/peers/josephson_jax.py --impl jax --precision float32 --json out.json
"""
import argparse
import json
import math
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--impl", choices=["diffrax", "jax"], default="diffrax")
    ap.add_argument("--precision", choices=["float32", "float64"], default="float32")
    ap.add_argument("--paths", type=int, default=1 << 19)
    ap.add_argument("--periods", type=int, default=200)
    ap.add_argument("--transient", type=int, default=20)
    ap.add_argument("--steps-per-period", type=int, default=100)
    ap.add_argument("--gamma", type=float, default=0.9)
    ap.add_argument("-a", "--amplitude", type=float, default=4.2)
    ap.add_argument("--omega", type=float, default=4.9)
    ap.add_argument("-D", "--noise", type=float, default=0.001)
    ap.add_argument("-f", "--force", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--noise-law", choices=["gaussian", "five-point"], default="gaussian",
                    help="--impl jax only: Gaussian increments or Parity's five-point weak noise")
    ap.add_argument("--repetitions", type=int, default=1, help="timed executions (the minimum is reported)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.impl != "jax" and args.noise_law != "gaussian":
        ap.error("--noise-law five-point needs --impl jax (diffrax draws its own Brownian increments)")

    out = {"peer": "jax", "impl": args.impl, "precision": args.precision, "parameters": vars(args).copy()}

    def finish(code=0):
        text = json.dumps(out, indent=1)
        if args.json:
            with open(args.json, "w") as fh:
                fh.write(text + "\n")
        print(text)
        sys.exit(code)

    try:
        import jax
        if args.precision == "float64":
            jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        import jax.random as jr
    except ImportError as e:
        out.update(status="skipped", reason=f"JAX not importable: {e}")
        finish()
    dfx = None
    if args.impl == "diffrax":
        try:
            import diffrax as dfx
        except ImportError as e:
            out.update(status="skipped", reason=f"diffrax not importable: {e}")
            finish()

    dtype = jnp.float32 if args.precision == "float32" else jnp.float64
    gamma, a, omega, D, f = args.gamma, args.amplitude, args.omega, args.noise, args.force
    spp, periods, transient, paths = args.steps_per_period, args.periods, args.transient, args.paths
    dt = 2 * math.pi / omega / spp
    steps, steps0 = periods * spp, transient * spp
    two_pi = 2 * math.pi
    sigma = math.sqrt(2 * gamma * D)

    def initial(key):
        kx, kv = jr.split(key)
        x0 = jr.uniform(kx, (paths,), dtype)
        v0 = jr.uniform(kv, (paths,), dtype, -2.0, 2.0)
        return x0, v0

    if args.impl == "jax":
        def ensemble(key):
            kinit, knoise = jr.split(key)
            x, v = initial(kinit)
            ddt = jnp.asarray(dt, dtype)
            sq = jnp.asarray(sigma * math.sqrt(dt), dtype)

            def accel(x, v, n):  # drift of v at step n (t = n dt)
                phase = jnp.asarray(two_pi / spp, dtype) * (n % spp).astype(dtype)
                return -gamma * v - two_pi * jnp.cos(two_pi * x) + a * jnp.cos(phase) + f

            five_a = jnp.asarray(0.92285888555358869822 * sigma * math.sqrt(dt), dtype)
            five_b = jnp.asarray(2.14320458879201569996 * sigma * math.sqrt(dt), dtype)

            def increment(n):
                k = jr.fold_in(knoise, n)
                if args.noise_law == "gaussian":
                    return sq * jr.normal(k, (paths,), dtype)
                bits = jr.bits(k, (paths,), jnp.uint8)
                mag = jnp.where((bits & 2) != 0, five_a, jnp.where((bits & 12) == 12, five_b, jnp.zeros((), dtype)))
                return jnp.where((bits & 1) != 0, -mag, mag)

            def body(n, carry):
                x, v, vsum = carry
                dw = increment(n)
                f0 = accel(x, v, n)
                xp, vp = x + v * ddt, v + f0 * ddt + dw
                f1 = accel(xp, vp, n + 1)
                x = x + (v + vp) * (ddt / 2)
                v = v + (f0 + f1) * (ddt / 2) + dw
                vsum = vsum + jnp.where(n >= steps0, v, jnp.zeros_like(v))
                return x, v, vsum

            x, v, vsum = jax.lax.fori_loop(0, steps, body, (x, v, jnp.zeros_like(v)))
            return vsum / (steps - steps0)
    else:
        def ensemble(key):
            kinit, knoise = jr.split(key)
            x0, v0 = initial(kinit)
            keys = jr.split(knoise, paths)
            t0_avg, t1 = steps0 * dt, steps * dt

            def drift(t, y, _):
                x, v = y[0], y[1]
                return jnp.stack([v, -gamma * v - two_pi * jnp.cos(two_pi * x) + a * jnp.cos(omega * t) + f])

            def diffusion(t, y, _):
                return jnp.array([0.0, sigma], dtype)

            def one(y0, k):
                bm = dfx.UnsafeBrownianPath(shape=(), key=k)
                terms = dfx.MultiTerm(dfx.ODETerm(drift), dfx.ControlTerm(diffusion, bm))
                sol = dfx.diffeqsolve(terms, dfx.Heun(), 0.0, t1, dt, y0,
                                      saveat=dfx.SaveAt(ts=jnp.array([t0_avg, t1], dtype)),
                                      stepsize_controller=dfx.ConstantStepSize(), max_steps=steps + 16,
                                      adjoint=dfx.ForwardMode())  # UnsafeBrownianPath needs it (no backprop)
                return (sol.ys[1, 0] - sol.ys[0, 0]) / (t1 - t0_avg)

            return jax.vmap(one)(jnp.stack([x0, v0], axis=1), keys)

    key = jr.PRNGKey(args.seed)
    t = time.perf_counter()
    compiled = jax.jit(ensemble).lower(key).compile()
    compile_s = time.perf_counter() - t
    compiled(key).block_until_ready()  # untimed first execution
    times = []
    for _ in range(max(1, args.repetitions)):
        t = time.perf_counter()
        vbar = compiled(key).block_until_ready()
        times.append(time.perf_counter() - t)
    import numpy as np
    vb = np.asarray(vbar, dtype=np.float64)
    seconds = min(times)
    steps_total = float(paths) * steps
    out.update(
        status="ok",
        versions={"jax": jax.__version__, "diffrax": getattr(dfx, "__version__", None) if dfx else None},
        device=str(jax.devices()[0]),
        device_kind=getattr(jax.devices()[0], "device_kind", None),
        timing={"what": "execution of the AOT-compiled ensemble function (initial conditions + all steps + "
                        "per-path <<v>>), call to block_until_ready, compilation excluded, after one untimed "
                        "execution; minimum over repetitions",
                "seconds": seconds, "all_seconds": times, "compile_seconds": compile_s},
        steps_total=steps_total,
        steps_per_second=steps_total / seconds,
        mean_velocity=float(vb.mean()),
        mean_velocity_error=float(vb.std(ddof=1) / math.sqrt(paths)) if paths > 1 else 0.0,
        finite_paths=int(np.isfinite(vb).sum()),
        mean_velocity_note="<<v>> per path: " + ("mean of v over steps after the transient" if args.impl == "jax"
                                                  else "(x(T) - x(T0)) / (T - T0)") + "; error = std / sqrt(paths)",
    )
    finish()


if __name__ == "__main__":
    main()
