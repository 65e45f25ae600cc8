"""One PINN training step in high dimension: the stochastic Taylor mode against SDGD and the exact Laplacian.

The step is ``jax.value_and_grad`` (w.r.t. the parameters) of the mean squared Poisson residual
``Δ̂u(x) - g(x)`` of a tanh MLP ``d → 3×128 → 1`` at ``N`` points of the unit ball, ``g`` the two-body source
(:mod:`sciml.equations.semilinear`). ``Δ̂u`` is, per method, in the same process and for the same network:

- ``stde-sparse``: the stochastic mode (STDE, Shi et al. 2024) with ``S`` sparse jets ``√d e_i``, ``i`` drawn
  per point: ``Δ̂u = (d/S) Σ_s ∂²u/∂x_{i_s}²`` from one collapsed order-2 Taylor propagation; the jets are
  carried as (index, value) into the first layer, where each is a row of ``W`` (:mod:`sciml.autodiff.taylor.sparse`):
  that layer costs the primal's ``O(N d w)`` whatever ``S``;
- ``stde-dense``: the same with ``S`` Rademacher directions (``Δ̂u = (1/S) Σ_s vᵀ∇²u v``);
- ``sdgd``: the randomisation of SDGD (Hu et al. 2023) with nested first-order AD, as its PyTorch code does:
  for the same sampled coordinates as ``stde-sparse`` (same key, so the same estimate), ``∂_i²u`` as the
  ``i``-th entry of the gradient of ``∂u/∂x_i`` (reverse over reverse);
- ``hvp``: the same coordinates by a Hessian-vector product (forward over reverse, ``jax.jvp`` of ``jax.grad``);
- ``exact``: the exact Laplacian through the engine (``mode="taylor"``: ``d`` unit directions, collapsed; the
  stacked layout, one array for the ``d`` directions: the split one's ``d`` arrays compile slowly for large ``d``).

Methods are compiled, warmed up and timed in interleaved rounds (:func:`sciml.bench.autodiff.time_all`); the
table gives the median seconds per step, the ratio to ``stde-sparse``, XLA's memory for one step (arguments,
outputs and temporaries of the compiled step, :func:`step_memory`) and the gradient's difference to
``stde-sparse``'s (``sdgd`` and ``hvp`` estimate the same thing: rounding only). A method whose estimated
memory exceeds ``--max-gb`` is skipped (the exact operator carries ``d`` tangents per activation: ``O(N d²)``
work and ``O(N d w)`` memory). Run ``sciml bench highdim [--dims 100,1000,10000] [--plot FILE.png]``; ``--plot``
draws time and memory per step against ``d`` for every method (:func:`plot`).
"""
from __future__ import annotations

import argparse
from collections.abc import Callable

import jax
import jax.numpy as jnp

from sciml import autodiff as ad
from sciml.autodiff.taylor.stochastic import sparse_indices
from sciml.nn import mlp

from .autodiff import time_all

WIDTHS = (128, 128, 128)
METHODS = ("stde-sparse", "stde-dense", "sdgd", "hvp", "exact")


def _source(x):
    """The two-body source ``g = Δu*`` (coefficients from seed 0)."""
    from sciml.equations import semilinear

    return semilinear.exact(x, semilinear.coefficients("two_body", x.shape[-1], 0), "two_body")[1]


def _coordinates(key, samples: int, n: int, d: int):
    """The sparse jets' coordinates, ``(S, N)``: those the stochastic mode draws from ``key``."""
    return sparse_indices(key, (samples, n, d))


def _nested(second: Callable) -> Callable:
    """``(u, x, key, S) -> Δ̂u``: SDGD's estimate with ``second(grad u, y, i) = ∂_i² u(y)`` by nested AD."""

    def lap(u, x, key, samples):
        n, d = x.shape
        idx = _coordinates(key, samples, n, d)
        g = jax.grad(lambda y: u(y)[0])
        per = jax.vmap(jax.vmap(lambda y, i: second(g, y, i), in_axes=(0, 0)), in_axes=(None, 0))(x, idx)
        return d * jnp.mean(per, axis=0)

    return lap


def _rev_rev(g, y, i):
    return jax.grad(lambda z: g(z)[i])(y)[i]


def _fwd_rev(g, y, i):
    return jax.jvp(g, (y,), (jax.nn.one_hot(i, y.shape[-1], dtype=y.dtype),))[1][i]


def _stde(distribution: str) -> Callable:
    return lambda u, x, key, samples: ad.laplacian(u, mode="stochastic", key=key, samples=samples,
                                                   distribution=distribution)(x)[..., 0]


# name -> (u, x, key, S) -> Δ̂u at x, (N,)
LAPLACIANS: dict[str, Callable] = {
    "stde-sparse": _stde("sparse"),
    "stde-dense": _stde("rademacher"),
    "sdgd": _nested(_rev_rev),
    "hvp": _nested(_fwd_rev),
    "exact": lambda u, x, key, samples: ad.laplacian(u, mode="taylor", layout="stacked")(x)[..., 0],
}


def estimated_bytes(method: str, n: int, d: int, samples: int, itemsize: int) -> float:
    """A rough upper estimate of one step's memory, to skip what cannot fit: the tangents the method carries
    per activation (``d`` for ``exact``, ``S`` otherwise) through the layers and back, and the points'."""
    tangents = d if method == "exact" else samples
    inputs = 1 if method == "stde-sparse" else tangents  # sparse jets reach the first layer as rows of W
    return itemsize * (4 * n * (tangents * sum(WIDTHS) + inputs * d) + d * sum(WIDTHS))


def step_memory(compiled) -> float:
    """Bytes XLA allocates for one call of a compiled step (arguments, outputs, temporaries), NaN if unknown."""
    m = compiled.memory_analysis()
    if m is None:
        return float("nan")
    return float(m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes
                 - m.alias_size_in_bytes)


def table(d: int, n: int, samples: int, dtype: str, rounds: int, methods=METHODS, max_gb: float = 8.0,
          seed: int = 0) -> dict:
    """Time one training step of each method at dimension ``d`` (module notes)."""
    dt = jnp.float32 if dtype == "float32" else jnp.float64
    params = mlp.init(jax.random.PRNGKey(seed), [d, *WIDTHS, 1], dt)
    g = jax.random.normal(jax.random.PRNGKey(seed + 1), (n, d), dt)
    r = jax.random.uniform(jax.random.PRNGKey(seed + 2), (n, 1), dt) ** (1.0 / d)
    x = r * g / jnp.linalg.norm(g, axis=-1, keepdims=True)  # uniform in the unit ball
    source = _source(x)
    key = jax.random.PRNGKey(seed + 3)
    itemsize = jnp.dtype(dt).itemsize
    run = [m for m in methods if estimated_bytes(m, n, d, samples, itemsize) <= max_gb * 2**30]

    def step(method):
        def loss(p, x, key):
            u = lambda y: mlp.apply(p, y, "tanh")
            return jnp.mean((LAPLACIANS[method](u, x, key, samples) - source) ** 2)

        return jax.value_and_grad(loss)

    compiled: dict = {}
    med, comp, outs = time_all({m: step(m) for m in run}, (params, x, key), rounds, keep=compiled)
    base = run[0]
    g0 = jax.tree.leaves(outs[base][1])
    rows = []
    for m in methods:
        if m not in run:
            rows.append({"method": m, "skipped": f"estimated over {max_gb:g} GB"})
            continue
        gm = jax.tree.leaves(outs[m][1])
        diff = max(float(jnp.max(jnp.abs(a - b))) for a, b in zip(gm, g0))
        scale = max(float(jnp.max(jnp.abs(b))) for b in g0)
        rows.append({"method": m, "s": med[m], "ratio": med[m] / med[base], "compile_s": comp[m],
                     "memory_mb": step_memory(compiled[m]) / 2**20, "grad_diff": diff / scale,
                     "loss": float(outs[m][0])})
    return {"d": d, "n": n, "samples": samples, "dtype": dtype, "base": base, "rows": rows}


def print_table(t: dict, flush: bool = False) -> None:
    print(f"\nd = {t['d']}: one Adam-free training step (value_and_grad), N = {t['n']} points, S = {t['samples']} "
          f"directions, MLP {list(WIDTHS)} tanh, {t['dtype']}")
    print(f"  {'method':<12} {'ms/step':>10} {'x ' + t['base']:>14} {'XLA MB':>9} {'compile s':>10} "
          f"{'grad diff':>10}")
    for r in t["rows"]:
        if "skipped" in r:
            print(f"  {r['method']:<12} skipped: {r['skipped']}")
            continue
        print(f"  {r['method']:<12} {r['s'] * 1e3:>10.2f} {r['ratio']:>14.2f} {r['memory_mb']:>9.1f} "
              f"{r['compile_s']:>10.2f} {r['grad_diff']:>10.1e}", flush=flush)


def plot(tables: list[dict]):
    """Time and memory of one step against ``d`` (log-log), a line per method; skipped methods leave gaps."""
    from sciml import plots

    fig, axes = plots.figure(1, 2, size=(10, 4), grid=True)
    ax_t, ax_m = axes[0]
    for m in dict.fromkeys(r["method"] for t in tables for r in t["rows"]):
        got = [(t["d"], r) for t in tables for r in t["rows"] if r["method"] == m and "skipped" not in r]
        if not got:
            continue
        ds = [d for d, _ in got]
        ax_t.loglog(ds, [r["s"] * 1e3 for _, r in got], "o-", label=m)
        ax_m.loglog(ds, [r["memory_mb"] for _, r in got], "o-", label=m)
    first = tables[0]
    ax_t.set(xlabel="dimension d", ylabel="ms per training step", title=f"N = {first['n']} points, "
             f"S = {first['samples']} directions, {first['dtype']}")
    ax_m.set(xlabel="dimension d", ylabel="XLA memory per step [MB]", title="arguments + outputs + temporaries")
    for ax in (ax_t, ax_m):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    return fig


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="sciml bench highdim", description=__doc__.splitlines()[0])
    p.add_argument("--dims", default="100,1000,10000")
    p.add_argument("--points", type=int, default=100, help="collocation points N")
    p.add_argument("--samples", type=int, default=16, help="sampled directions S per point")
    p.add_argument("--methods", default=",".join(METHODS), help=f"from {list(METHODS)}; the first is the baseline")
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--rounds", type=int, default=7, help="timed steps per method (interleaved)")
    p.add_argument("--max-gb", type=float, default=8.0, help="skip a method estimated to need more memory")
    p.add_argument("--plot", default=None, help="write time and memory against d to this PNG")
    args = p.parse_args(argv)
    methods = tuple(args.methods.split(","))
    unknown = [m for m in methods if m not in LAPLACIANS]
    if unknown:
        p.error(f"unknown methods {unknown}; choose from {list(METHODS)}")
    print(f"device: {jax.devices()[0].device_kind}")
    tables = []
    with jax.enable_x64(args.dtype == "float64"):
        for d in (int(s) for s in args.dims.split(",")):
            tables.append(table(d, args.points, args.samples, args.dtype, args.rounds, methods, args.max_gb))
            print_table(tables[-1], flush=True)
            if args.plot:  # after every dimension: a long run leaves its figure so far
                from sciml import plots

                plots.save(plot(tables), args.plot)
    if args.plot:
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
