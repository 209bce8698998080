#!/usr/bin/env python3
"""Reference values of the integrals of f1..f5 over the unit cube [0,1]^n (definitions in
models/parity/cubature/paper.hpp), computed without any cubature, to 40+ significant digits (mpmath).
The tables in models/parity/cubature/paper.hpp come from this script:  python3 paper_references.py
[NMAX_F3 (default 5)] [f1 f2 f3 f3_quad f4] (default: all but f3_quad).

  f1 = 1 / (0.1 + cos^2(sum x_i^2))^2 = 4 / (a + cos(2 s))^2,  a = 1.2,  s = sum x_i^2 (the
       paper's Table I).  Fourier series  1/(a + cos t) = (1 + 2 sum_k (-r)^k cos(k t)) / q,
       q = sqrt(a^2 - 1), r = a - q, and its derivative in a (dq/da = a/q, dr/da = -r/q):
       1/(a + cos t)^2 = (a + 2 sum_k (-r)^k (k q + a) cos(k t)) / q^3; the x_i are independent,
       so E[cos(2 k s)] = Re(F(2k)^n) with F(m) = int_0^1 exp(i m x^2) dx (Fresnel integrals).
       f1_check: the same values for n = 1, 2 by mp.quad of f1 itself (1-D and 2-D).
  f1-pagani = 1 / (0.1 + cos^2(sum x_i^2)) = 2 / (a + cos(2 s)): the first series alone.
  f2 = cos(prod cos(4^i x_i)):  cos(P) = sum_m (-1)^m P^(2m) / (2m)!, and
       E[P^(2m)] = prod_i E[cos^(2m)(4^i x_i)] (power reduction, closed form).
  f3 = sin(prod i asin(x_i^i)):  sin(P) = sum_m (-1)^m P^(2m+1) / (2m+1)!, with
       E[P^j] = prod_i i^j E[asin(x^i)^j] and E[asin(x^i)^j] = (1/i) int_0^(pi/2) y^j sin(y)^(1/i-1) cos y dy
       (u = x^i = sin y). The series needs odd j up to about e n! (pi/2)^n and its largest term
       is about exp(n! (pi/2)^n) (n = 5: j up to ~3200, terms up to ~1e466, so ~640 digits).
       f3_tanh_sinh (the tables): one tanh-sinh rule on [0, pi/2] per precision (step h =
       1.6 / dps; it integrates the endpoint singularity y^(1/i-1) at y = 0 and the peak of y^j
       at y = pi/2: checked for i = 1 at 640 digits against the exact recursion of f4's
       moments, relative error 1e-639 for j <= 1500, 1e-543 at j = 3001 where the series needs
       far less), the j-independent factor w sin(y)^(1/i-1) cos(y) / i stored per node, and
       y^j by repeated multiplication by y^2 in fixed point (integers); each value at two
       precisions and, at the higher one, also a finer step (stable_nodes). For n = 5 the
       values at 638 and 678 digits agree to 1e-171, the steps h and 0.75 h to 1e-211.
       f3_quad (the first method, one mp.quad per moment) agrees with it for n = 1..4 (n = 4 to
       40 digits; f3_quad takes 6 minutes there and is out of reach for n = 5).
       python3 paper_references.py 5 f3   gives the f3 table, n = 1..5, in about 2.5 minutes
       (one core, with gmpy2, which mpmath uses when installed: pip install gmpy2); n = 5 is
       nearly all of it (three runs of ~40-60 s: 638 and 678 digits, and the finer step),
       n <= 4 takes seconds; without gmpy2 about 4 times as long.
       python3 paper_references.py 4 f3_quad  runs the first method.
  f4 = sin(prod asin(x_i)):  the same series with E[asin(x)^j] = int_0^(pi/2) y^j cos y dy
       = (pi/2)^j - j (j-1) E[asin(x)^(j-2)] (exact recursion, run at high precision).
  f5 = (1/2) sum cos(10 x_i) / beta, beta = sin(10)/10:  exactly n/2.
Each series is summed until its terms are below 1e-40 of the result; the working precision is
raised until two precisions agree.
"""
import operator
import sys

import mpmath as mp
from mpmath.libmp import MPZ  # gmpy2's integers when gmpy2 is installed


def f1_series(n, squared):
    a = mp.mpf("1.2")
    q = mp.sqrt(a * a - 1)
    r = a - q
    total = a if squared else mp.mpf(1)
    k = 1
    while True:
        m = 2 * k
        z = mp.sqrt(2 * m / mp.pi)
        scale = mp.sqrt(mp.pi / (2 * m))
        F = scale * mp.mpc(mp.fresnelc(z), mp.fresnels(z))
        term = 2 * (-r) ** k * (k * q + a if squared else 1) * mp.re(F ** n)
        total += term
        if k * abs(r) ** k < mp.mpf(10) ** (-mp.mp.dps + 5):
            break
        k += 1
    return 4 * total / q**3 if squared else 2 * total / q


def f1(n):
    return f1_series(n, True)


def f1_pagani(n):
    return f1_series(n, False)


def f1_check(n):  # f1 by direct quadrature, n = 1 or 2
    g = lambda s: 1 / (mp.mpf("0.1") + mp.cos(s) ** 2) ** 2
    if n == 1:
        return mp.quad(lambda x: g(x * x), mp.linspace(0, 1, 9))
    return mp.quad(lambda x, y: g(x * x + y * y), mp.linspace(0, 1, 9), mp.linspace(0, 1, 9))


def f2(n):
    def moment(w, m):  # E[cos^(2m)(w x)], x ~ U(0,1)
        s = mp.binomial(2 * m, m)
        for k in range(1, m + 1):
            s += 2 * mp.binomial(2 * m, m - k) * mp.sin(2 * k * w) / (2 * k * w)
        return s / mp.mpf(4) ** m

    total = mp.mpf(0)
    m = 0
    while True:
        e = mp.mpf(1)
        for i in range(1, n + 1):
            e *= moment(mp.mpf(4) ** i, m)
        term = (-1) ** m * e / mp.factorial(2 * m)
        total += term
        if m > 2 and abs(term) < mp.mpf(10) ** (-mp.mp.dps + 5):
            break
        m += 1
    return total


def sine_series(moment_product, jmax):
    total = mp.mpf(0)
    for m in range(jmax):
        j = 2 * m + 1
        term = (-1) ** m * moment_product(j) / mp.factorial(j)
        total += term
        if m > 10 and abs(term) < mp.mpf(10) ** (-35) * max(abs(total), mp.mpf(1e-10)):
            return total
    raise RuntimeError("series did not converge")


def f4(n):
    mom = {0: mp.mpf(1), 1: mp.pi / 2 - 1}

    def m_j(j):
        if j not in mom:
            for jj in range(2, j + 1):
                if jj not in mom:
                    mom[jj] = (mp.pi / 2) ** jj - jj * (jj - 1) * mom[jj - 2]
        return mom[j]

    return sine_series(lambda j: m_j(j) ** n, 20000)


def f3_quad(n):
    cache = {}

    def e(i, j):  # E[asin(x^i)^j]
        if (i, j) not in cache:
            g = lambda y: y ** j * mp.sin(y) ** (mp.mpf(1) / i - 1) * mp.cos(y)
            # split at the singular end (y = 0 for i > 1) and where y^j peaks
            cache[(i, j)] = mp.quad(g, [0, mp.mpf("0.5"), 1, mp.pi / 2]) / i
        return cache[(i, j)]

    def prod(j):
        p = mp.mpf(1)
        for i in range(1, n + 1):
            p *= mp.mpf(i) ** j * e(i, j)
        return p

    return sine_series(prod, 20000)


def f3_moments(imax, jmax, h):
    """E[asin(x^i)^j] / (pi/2)^j for i = 1..imax and odd j = 1, 3, .., jmax at the working
    precision, as M[i - 1][(j - 1) // 2]: tanh-sinh with step h on [0, pi/2]."""
    F = mp.mp.prec + 64  # fixed-point bits
    half = mp.pi / 2
    eps = mp.mpf(2) ** (-F)
    h = mp.mpf(h)
    q = []  # y / (pi/2) at the nodes
    W = [[] for _ in range(imax)]  # weight * sin(y)^(1/i-1) cos(y) / i at the nodes
    for sign in (1, -1):
        k = 0 if sign == 1 else 1
        while True:
            s = sign * k * h
            u = mp.exp(-mp.pi * mp.sinh(s))
            y = half / (1 + u)
            c = half * u / (1 + u)  # pi/2 - y, without cancellation
            w = h * mp.pi * half * mp.cosh(s) * u / (1 + u) ** 2  # h dy/ds
            log_sin, cos = mp.log(mp.sin(y)), mp.sin(c)
            q.append(MPZ(int(mp.ldexp(y / half, F))))
            for i in range(1, imax + 1):
                W[i - 1].append(MPZ(int(mp.ldexp(w * mp.exp((mp.mpf(1) / i - 1) * log_sin) * cos / i, F))))
            # the moments are ~ (pi/2)^j / j^2 (i = 1, j at the right end; i = imax, j = 1 at the left)
            if k > 5 and (w * c * jmax**2 if sign == 1 else w * y ** (mp.mpf(1) / imax)) < eps:
                break
            k += 1
    q2 = [(x * x) >> F for x in q]
    p = list(q)  # (y / (pi/2))^j
    M = [[] for _ in range(imax)]
    for j in range(1, jmax + 1, 2):
        if j > 1:
            p = [(a * b) >> F for a, b in zip(p, q2)]
            if j % 64 == 1:  # drop the nodes where (y / (pi/2))^j has underflowed
                keep = [k for k, x in enumerate(p) if x]
                p, q2 = [p[k] for k in keep], [q2[k] for k in keep]
                W = [[Wi[k] for k in keep] for Wi in W]
        for i in range(imax):
            M[i].append(mp.mpf((sum(map(operator.mul, W[i], p)), -2 * F)))
    return M


def f3_tanh_sinh(n, step_scale=1):
    """f3(n) at the working precision, the moments by f3_moments with step 1.6 / dps * step_scale."""
    K = mp.factorial(n) * (mp.pi / 2) ** n
    jmax = 2 * int(1.5 * K) + 101  # beyond e K, where the series terms are negligible
    M = f3_moments(n, jmax, step_scale * mp.mpf("1.6") / mp.mp.dps)
    half = mp.pi / 2

    def prod(j):
        p = half ** (n * j)
        for i in range(1, n + 1):
            p *= mp.mpf(i) ** j * M[i - 1][(j - 1) // 2]
        return p

    return sine_series(prod, len(M[0]))


f3 = f3_quad  # the name of the first method


def stable(fn, n, dps):
    """fn(n) at two working precisions; returns the value when they agree to 1e-30."""
    values = []
    for d in (dps, dps + 40):
        mp.mp.dps = d
        values.append(fn(n))
    if abs(values[0] - values[1]) > mp.mpf(10) ** (-30) * abs(values[1]):
        raise RuntimeError(f"{fn.__name__}({n}) unstable: {values}")
    return values[1]


def stable_nodes(fn, n, dps):
    """stable(), and fn(n, step_scale=0.75) (a finer quadrature step) at the higher precision
    agreeing to 1e-30 too."""
    value = stable(fn, n, dps)
    finer = fn(n, step_scale=0.75)
    if abs(finer - value) > mp.mpf(10) ** (-30) * abs(value):
        raise RuntimeError(f"{fn.__name__}({n}) depends on the step: {value} {finer}")
    return value


def main():
    mp.mp.dps = 30
    only = sys.argv[2:] or ["f1", "f1-pagani", "f2", "f3", "f4"]
    if "f1" in only:
        print("f1", [mp.nstr(stable(f1, n, 50), 20) for n in range(1, 17)])
    if "f1_check" in only:
        mp.mp.dps = 25
        print("f1_check", [mp.nstr(f1_check(n), 20) for n in (1, 2)])
    if "f1-pagani" in only:
        print("f1-pagani", [mp.nstr(stable(f1_pagani, n, 50), 20) for n in range(1, 17)])
    if "f2" in only:
        print("f2", [mp.nstr(stable(f2, n, 50), 20) for n in range(1, 17)])
    if "f4" in only:
        print("f4", [mp.nstr(stable(f4, n, 120 + 25 * n * n), 20) for n in range(1, 11)])
    nmax3 = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    # the largest term of the f3 series is about exp(n! (pi/2)^n): digits to spare beyond that
    digits = lambda n: 40 + int(1.2 * mp.factorial(n) * (mp.pi / 2) ** n / mp.log(10))
    if "f3" in only:
        print("f3", [mp.nstr(stable_nodes(f3_tanh_sinh, n, digits(n)), 20) for n in range(1, nmax3 + 1)])
    if "f3_quad" in only:  # the first method, for comparison (n = 4 takes long)
        print("f3_quad", [mp.nstr(stable(f3_quad, n, digits(n)), 20) for n in range(1, nmax3 + 1)])
    print("f5", [n / 2 for n in range(1, 17)])


if __name__ == "__main__":
    main()
