#!/usr/bin/env python3
"""Aiyagari peer in JAX: our port of the Aiyagari chapter of "Quantitative Economics with JAX"
(QuantEcon) to this calibration, float64 (jax_enable_x64), on Parity's asset grid and Tauchen
chain. As there, next assets are restricted to the grid's nodes:

  household     Howard policy iteration. The right-hand side of the Bellman equation is one array
                B[i, j, k] = u(w l_j + (1 + r) a_i - a_k) + beta sum_j' v[k, j'] P[j, j'] (-inf where
                consumption is not positive), the greedy policy its argmax over k; a policy's value
                solves (I - beta P_sigma) v = u_sigma by jax.scipy.sparse.linalg.bicgstab on the
                matrix-free operator (relative tolerance --policy-tol), starting from the policy
                "save nothing"; stops when the sup change of the value is below --policy-tol (when
                the policy repeats). All in one jax.lax.while_loop, jitted with r and w traced.
  distribution  the controlled chain iterated from zero assets (labour at its stationary
                distribution) until the sup change of the masses is below --distribution-tol, at
                most 100,000 steps (jax.lax.while_loop; a scatter-add over the policy, then the
                labour chain), as aiyagari_quantecon.py does. The chapter solves the dense
                (n_k n_z)^2 system instead, which at 10,000 points needs 39 GB (and is singular
                when the chain has several recurrent classes); iterating needs memory linear in
                the cells.

B holds n_k^2 n_z doubles (5.6 GB at 10,000 points): sizes whose arrays would pass the device's
memory (at most MEMORY_BUDGET_BYTES) are skipped with the memory they would need. Timed after one
untimed evaluation that compiles both functions; each phase ends with block_until_ready. See
aiyagari_peer.py for the command line and the market; the discrete choice makes r differ from the
endogenous grid method's by the grid's discretisation (it should equal aiyagari_quantecon.py's).

    perf/peers/aiyagari_jax.py aiyagari --asset-points 1000 --precision double --json r.json -q
"""
import sys
import time

from aiyagari_peer import Skip

MEMORY_BUDGET_BYTES = 70e9
MAX_DISTRIBUTION_STEPS = 100_000  # Parity's cap on distribution steps


def backend():
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp  # noqa: F401
    except ImportError as e:
        raise Skip(f"JAX not importable ({e}): {sys.executable} -m pip install jax")
    from importlib.metadata import version
    import numpy
    dev = jax.devices()[0]
    return {"execution_space": f"JAX {dev.platform} (XLA), float64",
            "device_name": getattr(dev, "device_kind", str(dev)), "device": str(dev), "concurrency": None,
            "kernel_compiler": f"XLA (jaxlib {version('jaxlib')})",
            "versions": {"jax": jax.__version__, "jaxlib": version("jaxlib"), "numpy": numpy.__version__,
                         "python": sys.version.split()[0]}}


class Peer:
    method = ("JAX port of QuantEcon's Aiyagari chapter: Howard policy iteration over next assets on the grid "
              "(argmax of B[a, z, a'], policy values by bicgstab), stationary distribution by iterating the controlled "
              "chain from zero assets to the distribution tol; float64; r by Parity's bracket search and "
              "scipy.optimize.brentq")

    def __init__(self, model):
        import jax
        import jax.numpy as jnp
        from jax.scipy.sparse.linalg import bicgstab
        nk, nz = len(model.grid), len(model.labour)
        need = 4 * nk * nk * nz * 8  # B and its temporaries (consumption, utility)
        dev = jax.devices()[0]
        limit = MEMORY_BUDGET_BYTES
        stats = dev.memory_stats() if hasattr(dev, "memory_stats") else None
        if stats and stats.get("bytes_limit"):
            limit = min(limit, 0.9 * stats["bytes_limit"])
        if need > limit:
            raise Skip(f"B[a, z, a'] at {nk} asset points needs about {need / 1e9:.0f} GB ({nk}^2 x {nz} doubles, with "
                       f"its temporaries); {limit / 1e9:.0f} GB available on {dev.platform}")
        p = model.p
        self.model, self.phases, self.last_mass = model, {"household": 0.0, "distribution": 0.0}, None
        a_grid, l_grid, P = (jnp.asarray(x, dtype=jnp.float64) for x in (model.grid, model.labour, model.transition))
        beta, crra = p.beta, p.crra
        policy_tol, dist_tol = p.policy_tol, p.distribution_tol

        def u(c):
            return jnp.log(c) if crra == 1 else c ** (1 - crra) / (1 - crra)

        def bellman_rhs(v, r, w):  # [i, j, k]
            c = w * l_grid[None, :, None] + (1 + r) * a_grid[:, None, None] - a_grid[None, None, :]
            ev = v @ P.T  # ev[k, j] = sum_j' v[k, j'] P[j, j']
            return jnp.where(c > 0, u(c) + beta * ev.T[None, :, :], -jnp.inf)

        def greedy(v, r, w):
            return jnp.argmax(bellman_rhs(v, r, w), axis=2)

        def policy_value(sigma, r, w):
            reward = u((1 + r) * a_grid[:, None] + w * l_grid[None, :] - a_grid[sigma])

            def operator(v):  # (I - beta P_sigma) v without forming P_sigma
                return v - beta * jnp.sum(v[sigma] * P[None, :, :], axis=2)

            return bicgstab(operator, reward, tol=policy_tol, atol=0.0, maxiter=100 * nk * nz)[0]

        def household(r, w):
            sigma = jnp.zeros((nk, nz), dtype=jnp.int32)
            v = policy_value(sigma, r, w)

            def cond(s):
                return (s[3] > policy_tol) & (s[2] < 10_000)

            def body(s):
                sigma, v, i, _ = s
                sigma = greedy(v, r, w).astype(jnp.int32)
                v_new = policy_value(sigma, r, w)
                return sigma, v_new, i + 1, jnp.max(jnp.abs(v_new - v))

            sigma, v, i, err = jax.lax.while_loop(cond, body, (sigma, v, 0, jnp.inf))
            return sigma, i, err

        labour_index = jnp.broadcast_to(jnp.arange(nz)[None, :], (nk, nz))

        def distribution(sigma):
            mass = jnp.zeros((nk, nz)).at[0].set(jnp.asarray(model.labour_mass))

            def step(mass):  # mass moves to the policy's node, then the labour chain moves
                return jnp.zeros((nk, nz)).at[sigma, labour_index].add(mass) @ P

            def cond(s):
                return (s[2] >= dist_tol) & (s[1] < MAX_DISTRIBUTION_STEPS)

            def body(s):
                mass, k, _ = s
                new = step(mass)
                return new, k + 1, jnp.max(jnp.abs(new - mass))

            mass, k, change = jax.lax.while_loop(cond, body, (mass, 0, jnp.inf))
            return mass, jnp.sum(mass * a_grid[:, None]), k, change

        self.household, self.distribution = jax.jit(household), jax.jit(distribution)

    def supply(self, r, w):
        import numpy as np
        p = self.model.p
        t = time.perf_counter()
        sigma, iters, err = self.household(r, w)
        sigma.block_until_ready()
        t1 = time.perf_counter()
        mass, capital, steps, change = self.distribution(sigma)
        capital = float(capital)
        self.phases["household"] += t1 - t
        self.phases["distribution"] += time.perf_counter() - t1
        self.last_mass = np.asarray(mass).T  # [labour state, asset node]
        iters, err, steps, change = int(iters), float(err), int(steps), float(change)
        return capital, {"policy_iterations": iters, "distribution_iterations": steps,
                         "converged": err <= p.policy_tol and change < p.distribution_tol}


if __name__ == "__main__":
    import aiyagari_peer
    sys.exit(aiyagari_peer.main("jax"))
