#!/usr/bin/env python3
"""Peer for `parity-<backend> cubature --method vegas`: the same Genz integrals by G. P. Lepage's
`vegas` package (PyPI `vegas`, VEGAS+: adaptive map and adaptive stratified sampling), for
perf/runner.py (--peer vegas=PATH). Our code against the package's public API.

The integrands are Genz's six families as Parity defines them (models/parity/cubature/genz.hpp), written
in numpy over a batch of points (vegas.lbatchintegrand), with Parity's defaults for a (per family)
and u (0.5) and its box ([0, 1]^n unless --lower / --upper). The iterations follow Parity's
(detail/vegas_integrator.hpp): `--adaptation-iterations` iterations of `--evals-per-iteration`
evaluations adapt the map and the stratification and are discarded; then one iteration at a time
(the map keeps adapting, Lepage's default), the kept estimates combined by their inverse-variance
weighted average, until the combined error (one standard deviation) is at most
max(--abs-tol, --rel-tol |I|) with at least two estimates kept (converged), or until the next
iteration would pass --max-evals (budget_exhausted). vegas's neval is a target: its iterations
spend about that many evaluations, so the peer counts the evaluations the integrand receives and
takes the last iteration's count as the next one's. The vegas options alpha 0.5, beta 0.75 and
min(1000, N / 10) increments per axis are Parity's defaults.

Timed (timing.total_seconds): adaptation and accumulation, after importing and building the
Integrator; phases: adaptation, accumulation. The command line is Parity's:

    cubature_vegas.py cubature --method vegas --integrand gaussian --dim 5 --evals-per-iteration 1e5
        --max-evals 2e6 --rel-tol 1e-9 --precision double --json report.json --quiet
    cubature_vegas.py info --json info.json

Only double precision and the Genz families: --precision float, the paper's f1..f5 or a missing
package write {"status": "skipped", ...} and exit 0 (timing.total_seconds NaN: nothing was
measured). Unknown or out-of-range options exit 2; a run that stops short of converged
(budget_exhausted, not_converged, non_finite) exits 3, as Parity's does.
"""
import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_report import Skip, backend_facts, cpu_name, finish, mark_skipped  # noqa: E402

FAMILIES = ("oscillatory", "product_peak", "corner_peak", "gaussian", "c0", "discontinuous")
PAPER = ("f1", "f2", "f3", "f4", "f5")
DEFAULT_A = {"oscillatory": 2.0, "product_peak": 5.0, "corner_peak": 1.0, "gaussian": 5.0, "c0": 2.0,
             "discontinuous": 1.0}
MAX_DIM = 32
MIN_Q = 0.05  # below this Q the kept iterations disagree (Parity's min_q)


def count(text):
    """Parity's counts accept 1e5 as well as 100000."""
    v = float(text)
    if not (math.isfinite(v) and v >= 1 and v == int(v)):
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive whole number")
    return int(v)


def reals(text):
    try:
        return [float(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of numbers")


def parser():
    ap = argparse.ArgumentParser(prog=os.path.basename(sys.argv[0]), allow_abbrev=False,
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["cubature", "info"])
    ap.add_argument("--method", choices=["vegas"], default="vegas")
    ap.add_argument("--integrand", default="gaussian", choices=FAMILIES + PAPER)
    ap.add_argument("--dim", type=int, default=4)
    ap.add_argument("--lower", type=reals, default=[0.0])
    ap.add_argument("--upper", type=reals, default=[1.0])
    ap.add_argument("--a", type=reals, default=None)
    ap.add_argument("--u", type=reals, default=None)
    ap.add_argument("--rel-tol", type=float, default=1e-3)
    ap.add_argument("--abs-tol", type=float, default=0.0)
    ap.add_argument("--max-evals", type=count, default=10 ** 9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--evals-per-iteration", type=count, default=100_000)
    ap.add_argument("--adaptation-iterations", type=int, default=5)
    ap.add_argument("--precision", choices=["float", "double"], default="double")
    ap.add_argument("--json", default=None, help="report file ('-': standard output)")
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("--threads", type=int, default=None, help="accepted for the runner's sake; not used")
    return ap


def expand(ap, values, n, default, name):
    if values is None:
        values = [default]
    if len(values) not in (1, n):
        ap.error(f"--{name} needs one value or {n} values (got {len(values)})")
    return [float(v) for v in (values * n if len(values) == 1 else values)]


def problem(ap, a):
    """Checks the options as Parity does and returns (lower, upper, a, u), each n values."""
    n = a.dim
    if not 1 <= n <= MAX_DIM:
        ap.error(f"--dim {n}: the dimension must be in [1, {MAX_DIM}]")
    lower, upper = expand(ap, a.lower, n, 0.0, "lower"), expand(ap, a.upper, n, 1.0, "upper")
    pa = expand(ap, a.a, n, DEFAULT_A.get(a.integrand, 0.0), "a")
    pu = expand(ap, a.u, n, 0.5, "u")
    checks = [("--lower, --upper", all(math.isfinite(lo) and math.isfinite(hi) and lo < hi
                                       for lo, hi in zip(lower, upper))),
              ("--a, --u", all(math.isfinite(v) for v in pa + pu)),
              ("--rel-tol", math.isfinite(a.rel_tol) and 0 <= a.rel_tol < 1),
              ("--abs-tol", math.isfinite(a.abs_tol) and a.abs_tol >= 0),
              ("--rel-tol and --abs-tol", a.rel_tol > 0 or a.abs_tol > 0),
              ("--evals-per-iteration", 16 <= a.evals_per_iteration <= 2 ** 31),
              ("--adaptation-iterations", 0 <= a.adaptation_iterations <= 1000),
              ("--max-evals", a.max_evals >= (a.adaptation_iterations + 1) * a.evals_per_iteration),
              ("--seed", a.seed >= 0)]
    if a.integrand in ("product_peak", "gaussian", "corner_peak"):
        checks.append(("--a", all(v > 0 for v in pa)))
    if a.integrand == "c0":
        checks.append(("--a", all(v >= 0 for v in pa)))
    if a.integrand == "corner_peak":
        checks.append(("--a", 1 + sum(min(ai * lo, ai * hi) for ai, lo, hi in zip(pa, lower, upper)) > 0))
    for name, ok in checks:
        if not ok:
            ap.error(f"{name} is out of range")
    return lower, upper, pa, pu


def genz(family, a, u, x):
    """The family at the points x (numpy, shape (batch, n)), as integrands.hpp evaluates it."""
    import numpy as np
    a, u = np.asarray(a), np.asarray(u)
    n = x.shape[1]
    if family == "oscillatory":
        return np.cos(2 * math.pi * u[0] + x @ a)
    if family == "product_peak":
        return np.prod(1 / (1 / (a * a) + (x - u) ** 2), axis=1)
    if family == "corner_peak":
        return (1 + x @ a) ** -(n + 1.0)
    if family == "gaussian":
        return np.exp(-np.sum((a * (x - u)) ** 2, axis=1))
    if family == "c0":
        return np.exp(-(np.abs(x - u) @ a))
    if family == "discontinuous":
        outside = x[:, 0] > u[0]
        if n > 1:
            outside |= x[:, 1] > u[1]
        return np.where(outside, 0.0, np.exp(x @ a))
    raise ValueError(family)


def exact(family, a, u, lower, upper):
    """The closed form of genz.hpp's genz_exact (in double; corner_peak: None beyond 20 dimensions,
    its inclusion-exclusion has 2^n terms)."""
    n = len(lower)
    if family == "oscillatory":
        z = complex(math.cos(2 * math.pi * u[0]), math.sin(2 * math.pi * u[0]))
        for ai, lo, hi in zip(a, lower, upper):
            if ai == 0:
                z *= hi - lo
            else:  # (exp(i a hi) - exp(i a lo)) / (i a) = exp(i a m) 2 sin(a w) / a
                m, w = (hi + lo) / 2, (hi - lo) / 2
                z *= 2 * math.sin(ai * w) / ai * complex(math.cos(ai * m), math.sin(ai * m))
        return z.real
    if family == "product_peak":
        return math.prod(ai * (math.atan(ai * (hi - ui)) - math.atan(ai * (lo - ui)))
                         for ai, ui, lo, hi in zip(a, u, lower, upper))
    if family == "corner_peak":
        if n > 20:
            return None
        import numpy as np
        masks = np.arange(2 ** n, dtype=np.int64)
        up = (masks[:, None] >> np.arange(n)) & 1
        s = 1 + np.where(up == 1, np.asarray(upper) * a, np.asarray(lower) * a).sum(axis=1)
        sign = np.where((n - up.sum(axis=1)) % 2 == 1, -1.0, 1.0)
        denom = (-1.0 if n % 2 else 1.0) * math.prod((i + 1) * ai for i, ai in enumerate(a))
        return float(np.sum(sign / s)) / denom
    if family == "gaussian":
        p = 1.0
        for ai, ui, lo, hi in zip(a, u, lower, upper):
            x1, x2 = ai * (lo - ui), ai * (hi - ui)
            diff = (math.erfc(x1) - math.erfc(x2) if x1 >= 0 else
                    math.erfc(-x2) - math.erfc(-x1) if x2 <= 0 else math.erf(x2) - math.erf(x1))
            p *= math.sqrt(math.pi) / (2 * ai) * diff
        return p
    if family == "c0":
        def antiderivative(ai, t):  # of exp(-a |t|)
            if ai == 0:
                return t
            v = -math.expm1(-ai * abs(t)) / ai
            return -v if t < 0 else v
        return math.prod(antiderivative(ai, hi - ui) - antiderivative(ai, lo - ui)
                         for ai, ui, lo, hi in zip(a, u, lower, upper))
    if family == "discontinuous":
        p = 1.0
        for i, (ai, ui, lo, hi) in enumerate(zip(a, u, lower, upper)):
            if i < 2:
                hi = min(hi, ui)
            if hi <= lo:
                return 0.0
            p *= hi - lo if ai == 0 else math.exp(ai * lo) * math.expm1(ai * (hi - lo)) / ai
        return p
    raise ValueError(family)


def upper_regularized_gamma(a, x):
    """Q(a, x) = Gamma(a, x) / Gamma(a): the series of P below x = a + 1, the continued fraction of
    Q (modified Lentz) above, as detail/vegas_statistics.hpp computes it."""
    if not x > 0:
        return 1.0
    log_prefactor = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1 / a
        for k in range(1, 10000):
            term *= x / (a + k)
            total += term
            if abs(term) < 1e-16 * abs(total):
                break
        return max(0.0, 1 - total * math.exp(log_prefactor))
    tiny = 1e-300
    b, c = x + 1 - a, 1 / tiny
    d = 1 / b
    h = d
    for k in range(1, 10000):
        an = -k * (k - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return math.exp(log_prefactor) * h


def weighted_average(estimates, errors):
    """Inverse-variance weighted mean, its standard deviation, chi^2, dof and Q (Parity's rule: a
    zero error is raised to the rounding of its estimate)."""
    w = [1 / max(e, abs(m) * 1e-15, sys.float_info.min) ** 2 for m, e in zip(estimates, errors)]
    mean = sum(wk * m for wk, m in zip(w, estimates)) / sum(w)
    chi2 = sum(wk * (m - mean) ** 2 for wk, m in zip(w, estimates))
    dof = len(estimates) - 1
    q = upper_regularized_gamma(0.5 * dof, 0.5 * chi2) if dof > 0 else 1.0
    return {"mean": mean, "error": 1 / math.sqrt(sum(w)), "chi2": chi2, "dof": dof, "q": q}


def iterate_until_done(iteration, per_iteration, adaptation, max_evals, abs_tol, rel_tol):
    """Parity's stopping rule over `iteration(k, adaptation)` -> (estimate, error, evaluations),
    one call per iteration after the adaptation ones (`iteration(k, True)` runs all `adaptation`
    of them in one call and returns (None, None, evaluations)). The next iteration is predicted
    to spend as many evaluations as the last (per_iteration before any)."""
    evaluations, iterations = 0, 0
    if adaptation > 0:
        _, _, spent = iteration(adaptation, True)
        evaluations += spent
        iterations += adaptation
        per_iteration = max(1, spent // adaptation)
    estimates, errors, combined, status = [], [], None, "budget_exhausted"
    while evaluations + per_iteration <= max_evals:
        estimate, error, spent = iteration(1, False)
        evaluations += spent
        iterations += 1
        per_iteration = spent
        if not (math.isfinite(estimate) and math.isfinite(error)):
            return {"status": "non_finite", "estimate": estimate, "error": error, "evaluations": evaluations,
                    "iterations": iterations, "estimates": estimates + [estimate], "errors": errors + [error],
                    "combined": None}
        estimates.append(estimate)
        errors.append(error)
        combined = weighted_average(estimates, errors)
        if len(estimates) >= 2 and combined["error"] <= max(abs_tol, rel_tol * abs(combined["mean"])):
            # As Parity: converged only when the kept estimates also agree (Q >= 0.05).
            status = "converged" if combined["q"] >= MIN_Q else "not_converged"
            break
    return {"status": status, "evaluations": evaluations, "iterations": iterations, "estimates": estimates,
            "errors": errors, "combined": combined}


def backend():
    try:
        import gvar
        import numpy
        import vegas
    except ImportError as e:
        raise Skip(f"vegas not importable ({e}): {sys.executable} -m pip install vegas gvar")
    return {"execution_space": "host CPU, one thread: vegas (Cython, numpy)", "device_name": cpu_name(),
            "concurrency": 1, "kernel_compiler": None,
            "versions": {"vegas": getattr(vegas, "__version__", None), "gvar": getattr(gvar, "__version__", None),
                         "numpy": numpy.__version__, "python": sys.version.split()[0]}}


def run_model(a, lower, upper, pa, pu):
    import numpy as np
    import vegas
    import gvar
    np.random.seed(a.seed % 2 ** 32)  # vegas draws from numpy's generator
    if hasattr(gvar, "ranseed"):
        gvar.ranseed(a.seed)
    spent = [0]

    @vegas.lbatchintegrand
    def f(x):
        spent[0] += x.shape[0]
        return genz(a.integrand, pa, pu, x)

    ninc = max(1, min(1000, a.evals_per_iteration // 10))
    integ = vegas.Integrator(vegas.AdaptiveMap(list(zip(lower, upper)), ninc=ninc), alpha=0.5, beta=0.75)
    phases = {"adaptation": 0.0, "accumulation": 0.0}

    def iteration(nitn, adaptation):
        spent[0] = 0
        t = time.perf_counter()
        r = integ(f, nitn=nitn, neval=a.evals_per_iteration)
        phases["adaptation" if adaptation else "accumulation"] += time.perf_counter() - t
        return (None, None, spent[0]) if adaptation else (float(r.mean), float(r.sdev), spent[0])

    t = time.perf_counter()
    out = iterate_until_done(iteration, a.evals_per_iteration, a.adaptation_iterations, a.max_evals, a.abs_tol,
                             a.rel_tol)
    total = time.perf_counter() - t
    return report(a, out, exact(a.integrand, pa, pu, lower, upper), total, phases, integ)


def report(a, out, exact_value, total, phases, integ=None):
    c = out["combined"]
    estimate = c["mean"] if c else out.get("estimate", float("nan"))
    error = c["error"] if c else out.get("error", float("nan"))
    results = {"integrand": a.integrand, "dim": a.dim, "method": "vegas", "estimate": estimate, "error": error,
               "error_meaning": "one standard deviation",
               "chi2_per_dof": c["chi2"] / c["dof"] if c and c["dof"] > 0 else 0.0,
               "dof": c["dof"] if c else 0, "q": c["q"] if c else 1.0,
               "chi2_consistent": (c["q"] if c else 1.0) >= MIN_Q,
               "tolerance": max(a.abs_tol, a.rel_tol * abs(estimate)) if math.isfinite(estimate) else None,
               "evaluations": out["evaluations"], "iterations": out["iterations"],
               "kept_iterations": len(out["estimates"]), "status": out["status"],
               "iteration_estimates": out["estimates"], "iteration_errors": out["errors"],
               "exact": exact_value,
               "true_error": abs(estimate - exact_value) if exact_value is not None else None,
               "relative_true_error": (abs(estimate - exact_value) / (abs(exact_value) or 1.0)
                                       if exact_value is not None else None),
               "package": "vegas.Integrator (VEGAS+: adaptive map and adaptive stratified sampling)"}
    if integ is not None:
        results["increments_per_axis"] = int(integ.map.ninc[0]) if hasattr(integ.map.ninc, "__len__") \
            else int(integ.map.ninc)
    return {"status": out["status"], "iterations": out["iterations"], "results": results,
            "timing": {"total_seconds": total, "phases": {k: {"seconds": v} for k, v in phases.items()},
                       "note": "adaptation and accumulation (every vegas call), after importing and building "
                               "the Integrator"}}


def main(argv=None):
    ap = parser()
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    lower, upper, pa, pu = problem(ap, a) if a.command == "cubature" else (None,) * 4
    params = {k: v for k, v in vars(a).items() if k not in ("command", "json", "quiet")}
    if lower is not None:
        params.update(lower=lower, upper=upper, a=pa, u=pu)
    doc = {"model": "cubature", "peer": "vegas", "precision": a.precision, "parameters": params}
    info = backend_facts("vegas")
    code = 0
    try:
        info.update(backend())  # raises Skip when the package is missing
        if a.command == "cubature":
            if a.precision != "double":
                raise Skip("double precision only (vegas integrates in double)")
            if a.integrand in PAPER:
                raise Skip(f"{a.integrand}: the peer implements the Genz families only")
            doc.update(run_model(a, lower, upper, pa, pu))
            code = 0 if doc["status"] == "converged" else 3  # as Parity: any other status exits 3
    except Skip as e:
        mark_skipped(doc, e)

    def summary(doc):
        r = doc["results"]
        return (f"{a.integrand} {a.dim}-D: I = {r['estimate']:.12g} +- {r['error']:.2g} ({r['status']}), "
                f"chi2/dof {r['chi2_per_dof']:.2f}, {r['iterations']} iterations, {r['evaluations']} evaluations "
                f"({doc['timing']['total_seconds']:.3f} s)")

    finish(doc, info, "vegas", a.command, a.json, a.quiet, summary)
    return code


if __name__ == "__main__":
    sys.exit(main())
