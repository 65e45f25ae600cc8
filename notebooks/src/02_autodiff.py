# %% [markdown]
# # 02 · The autodiff engine: partials of any order, Δ and Δ², checked against JAX
#
# PINN residuals need many space derivatives up to 4th order. Nesting `jax.jvp` or `jax.grad` recomputes the
# lower orders again and again; sciml's engine pushes a truncated Taylor polynomial through the function once
# (Taylor mode over the jaxpr), gets mixed partials by interpolating directional derivatives, and carries
# linear operators such as Δ and Δ² as one collapsed channel. This notebook shows the API, checks it against
# nested JAX, times it, and estimates Δ in 50 dimensions with the stochastic mode.

# %%
import os
import time

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt

from sciml import autodiff as ad
from sciml.nn import mlp

jax.config.update("jax_enable_x64", True)
SMALL = os.environ.get("SCIML_NOTEBOOK_SMALL") == "1"  # CI sets this: tiny sizes
N = 256 if SMALL else 8192

# %% [markdown]
# A small tanh network `u: R² → R` on a batch of points. Every operator takes a *pointwise* function
# (rows of `x[..., d]` independent) and returns a function of `x`.

# %%
params = mlp.init(jax.random.PRNGKey(0), [2, 64, 64, 64, 64, 1], jnp.float64)
u = lambda x: mlp.apply(params, x)[..., 0]
x = jax.random.uniform(jax.random.PRNGKey(1), (N, 2), jnp.float64, -1, 1)

# %% [markdown]
# **Partials of any order in one planned call.** Each request is a multi-index α (∂^α = ∂x^α₁ ∂y^α₂).

# %%
requests = [(1, 0), (0, 2), (2, 1), (4, 0), (2, 2), (3, 3)]
values = jax.jit(ad.derivatives(u, requests))(x)


def nested_partial(f, alpha):
    """The reference: nested jax.jacfwd, one point at a time."""
    g = lambda p: f(p[None])[0]
    for i, k in enumerate(alpha):
        for _ in range(k):
            g = (lambda h, i: lambda p: jax.jacfwd(h)(p)[i])(g, i)
    return jax.vmap(g)


for alpha in requests:
    ref = jax.jit(nested_partial(u, alpha))(x[:64])  # compiled: op by op, order 6 takes seconds
    err = jnp.max(jnp.abs(values[alpha][:64] - ref)) / jnp.max(jnp.abs(ref))
    print(f"∂^{alpha}: max relative difference to nested jacfwd {err:.1e}")

# %% [markdown]
# **Collapsed operators.** `laplacian` and `biharmonic` give Δu and Δ²u; `mode="nested"` computes the same
# thing with nested `jax.jvp` (the yardstick).

# %%
for name, op in [("Δu", ad.laplacian), ("Δ²u", ad.biharmonic)]:
    fast, ref = jax.jit(op(u))(x), jax.jit(op(u, mode="nested"))(x)
    print(f"{name}: max relative difference engine vs nested {jnp.max(jnp.abs(fast - ref)) / jnp.max(jnp.abs(ref)):.1e}")

# %% [markdown]
# **Timing against nested JAX** (float32, same process, so machine load hits both alike).

# %%
params32 = jax.tree_util.tree_map(lambda a: a.astype(jnp.float32), params)
u32 = lambda x: mlp.apply(params32, x)[..., 0]
x32 = x.astype(jnp.float32)


def timeit(fn, repeats=5 if SMALL else 20):
    fn(x32).block_until_ready()
    t0 = time.perf_counter()
    for _ in range(repeats):
        fn(x32).block_until_ready()
    return (time.perf_counter() - t0) / repeats * 1e3


forward = timeit(jax.jit(u32))
rows = []
for name, op in [("Δ", ad.laplacian), ("Δ²", ad.biharmonic)]:
    t_engine, t_nested = timeit(jax.jit(op(u32))), timeit(jax.jit(op(u32, mode="nested")))
    rows.append((name, t_engine, t_nested))
    print(f"{name}: engine {t_engine:.2f} ms ({t_engine / forward:.1f}× a forward pass), "
          f"nested {t_nested:.2f} ms, speed-up {t_nested / t_engine:.2f}×")

fig, ax = plt.subplots(figsize=(5, 3))
ax.bar([f"{r[0]} engine" for r in rows] + [f"{r[0]} nested" for r in rows],
       [r[1] for r in rows] + [r[2] for r in rows], color=["C0", "C0", "C1", "C1"])
ax.set_ylabel(f"ms per call, N = {N}")
ax.set_title("Taylor engine vs nested jvp")
plt.show()

# %% [markdown]
# **High dimension: the stochastic mode.** For d = 50, the exact Laplacian needs 50 directions; the
# stochastic mode draws `samples` random directions v and averages vᵀ∇²u v, an unbiased estimate of Δu
# (STDE, Shi et al. 2024). The estimate's spread shrinks like 1/√samples.

# %%
d = 50
A = jax.random.normal(jax.random.PRNGKey(2), (d, d)) / d
f = lambda z: jnp.sin(z @ A).sum(-1) + 0.5 * jnp.sum(z**2, -1)
z = jax.random.normal(jax.random.PRNGKey(3), (4, d))
exact = ad.laplacian(f)(z)
for samples in (16, 256) if SMALL else (16, 64, 256, 1024):
    est = jnp.stack([ad.laplacian(f, mode="stochastic", key=jax.random.PRNGKey(s), samples=samples)(z)
                     for s in range(8)])
    print(f"samples {samples:5d}: mean error {jnp.mean(jnp.abs(est.mean(0) - exact)):.3f}, "
          f"spread {jnp.mean(est.std(0)):.3f}  (exact Δu ≈ {exact[0]:.2f})")

# %% [markdown]
# **Ten thousand dimensions.** Δ is requested as a `Polyharmonic` operator (its power and dimension), so no
# d × d object is made. Sparse jets `√d e_i` travel as (index, value) pairs until a dense operation needs them:
# in the first layer of a network each is a row of W, so S of them cost what the primal costs there. They (the
# coordinates SDGD samples) and dense Rademacher ones estimate Δu for u = Σ sin(x_i) + |x|⁴/4, whose Laplacian
# is -Σ sin(x_i) + (d + 2)|x|². `cases/poisson_hd.yaml` trains a PINN this way in d = 1000, and
# `sciml bench highdim` times a training step against SDGD's nested first-order AD and the exact Laplacian.

# %%
d = 10_000
u = lambda z: jnp.sum(jnp.sin(z), -1) + 0.25 * jnp.sum(z**2, -1) ** 2
z = jax.random.uniform(jax.random.PRNGKey(4), (3, d), minval=-1.0, maxval=1.0) / jnp.sqrt(d)
exact = -jnp.sum(jnp.sin(z), -1) + (d + 2) * jnp.sum(z**2, -1)
for dist in ("sparse", "rademacher"):
    est = ad.laplacian(u, mode="stochastic", key=jax.random.PRNGKey(5), samples=64, distribution=dist)(z)
    print(f"{dist:>10}: relative error {jnp.max(jnp.abs(est - exact) / jnp.abs(exact)):.1e}")

# %% [markdown]
# **A training step in 10 000 dimensions, against SDGD.** `sciml.bench.highdim.table` times `value_and_grad` of
# a Poisson residual loss of one tanh MLP in this process: the sparse stochastic Taylor mode against SDGD's
# randomisation with nested first-order AD on the *same* coordinates (so the same gradient, to rounding) and
# the dense Rademacher jets. Read the ratios: both sides ran on the same machine at the same time.

# %%
from sciml.bench import highdim

with jax.enable_x64(False):
    step = highdim.table(d=1000 if SMALL else 10_000, n=32 if SMALL else 100, samples=16, dtype="float32",
                         rounds=2 if SMALL else 5, methods=("stde-sparse", "sdgd", "stde-dense"))
highdim.print_table(step)
