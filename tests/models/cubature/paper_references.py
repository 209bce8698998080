#!/usr/bin/env python3
"""Reference values of the integrals of f1..f5 over the unit cube [0,1]^n (definitions in
models/cubature/paper.hpp), computed without any cubature, to 40+ significant digits (mpmath).
The tables in models/cubature/paper.hpp come from this script:  python3 paper_references.py

  f1 = 1 / (0.1 + cos^2(sum x_i^2)) = 2 / (a + cos(2 s)),  a = 1.2,  s = sum x_i^2.
       Fourier series  1/(a + cos t) = (1 + 2 sum_k (-r)^k cos(k t)) / sqrt(a^2 - 1),
       r = a - sqrt(a^2 - 1); the x_i are independent, so E[cos(2 k s)] = Re(F(2k)^n) with
       F(m) = int_0^1 exp(i m x^2) dx (Fresnel integrals).
  f2 = cos(prod cos(4^i x_i)):  cos(P) = sum_m (-1)^m P^(2m) / (2m)!, and
       E[P^(2m)] = prod_i E[cos^(2m)(4^i x_i)] (power reduction, closed form).
  f3 = sin(prod i asin(x_i^i)):  sin(P) = sum_m (-1)^m P^(2m+1) / (2m+1)!, with
       E[P^j] = prod_i i^j E[asin(x^i)^j] and E[asin(x^i)^j] = (1/i) int_0^(pi/2) y^j sin(y)^(1/i-1) cos y dy
       (1-D quadrature at high precision). Feasible for small n only (the series needs about
       n! (pi/2)^n terms): python3 paper_references.py NMAX_F3 [f1 f2 f3 f4].
  f4 = sin(prod asin(x_i)):  the same series with E[asin(x)^j] = int_0^(pi/2) y^j cos y dy
       = (pi/2)^j - j (j-1) E[asin(x)^(j-2)] (exact recursion, run at high precision).
  f5 = (1/2) sum cos(10 x_i) / beta, beta = sin(10)/10:  exactly n/2.
Each series is summed until its terms are below 1e-40 of the result; the working precision is
raised until two precisions agree.
"""
import sys

import mpmath as mp


def f1(n):
    a = mp.mpf("1.2")
    q = mp.sqrt(a * a - 1)
    r = a - q
    total = mp.mpf(1)
    k = 1
    while True:
        m = 2 * k
        z = mp.sqrt(2 * m / mp.pi)
        scale = mp.sqrt(mp.pi / (2 * m))
        F = scale * mp.mpc(mp.fresnelc(z), mp.fresnels(z))
        term = 2 * (-r) ** k * mp.re(F ** n)
        total += term
        if abs(r) ** k < mp.mpf(10) ** (-mp.mp.dps + 5):
            break
        k += 1
    return 2 * total / q


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


def f3(n):
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


def stable(fn, n, dps):
    """fn(n) at two working precisions; returns the value when they agree to 1e-30."""
    values = []
    for d in (dps, dps + 40):
        mp.mp.dps = d
        values.append(fn(n))
    if abs(values[0] - values[1]) > mp.mpf(10) ** (-30) * abs(values[1]):
        raise RuntimeError(f"{fn.__name__}({n}) unstable: {values}")
    return values[1]


def main():
    mp.mp.dps = 30
    only = sys.argv[2:] or ["f1", "f2", "f3", "f4"]
    if "f1" in only:
        print("f1", [mp.nstr(stable(f1, n, 50), 20) for n in range(1, 17)])
    if "f2" in only:
        print("f2", [mp.nstr(stable(f2, n, 50), 20) for n in range(1, 17)])
    if "f4" in only:
        print("f4", [mp.nstr(stable(f4, n, 120 + 25 * n * n), 20) for n in range(1, 11)])
    nmax3 = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    # the largest term of the f3 series is about exp(n! (pi/2)^n): digits to spare beyond that
    digits = lambda n: 40 + int(1.2 * mp.factorial(n) * (mp.pi / 2) ** n / mp.log(10))
    if "f3" in only:
        print("f3", [mp.nstr(stable(f3, n, digits(n)), 20) for n in range(1, nmax3 + 1)])
    print("f5", [n / 2 for n in range(1, 17)])


if __name__ == "__main__":
    main()
