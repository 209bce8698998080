"""Finite Markov chains in numpy, as Parity builds them: Tauchen's discretisation of an AR(1) and
the stationary distribution of a transition matrix. Shared by the Aiyagari peers and the numpy
references of the aiyagari and rbc command-line tests."""
import math


def tauchen(n, rho, sigma_eps, m):
    """Tauchen (1986) as Parity builds it: n even values over +- m unconditional s.d., each row the
    normal probabilities of the bins between midpoints, the end bins open."""
    import numpy as np
    sd = sigma_eps / math.sqrt(1 - rho * rho)
    y = np.linspace(-m * sd, m * sd, n)
    h = (y[1] - y[0]) / 2
    cdf = np.vectorize(lambda x: 0.5 * math.erfc(-x / math.sqrt(2)))
    P = np.empty((n, n))
    for i in range(n):
        upper = cdf((y + h - rho * y[i]) / sigma_eps)
        lower = cdf((y - h - rho * y[i]) / sigma_eps)
        upper[-1], lower[0] = 1.0, 0.0
        P[i] = upper - lower
    return y, P


def stationary(P):
    """x with x P = x, sum x = 1 (P a transition matrix), by a linear solve rather than iteration."""
    import numpy as np
    n = P.shape[0]
    A = P.T - np.eye(n)
    A[-1] = 1.0
    b = np.zeros(n)
    b[-1] = 1.0
    return np.linalg.solve(A, b)
