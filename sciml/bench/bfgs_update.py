"""Seconds per update of the dense self-scaled BFGS: the estimate kept as columns against the matrix rewritten.

``solvers/pinn/optim.py`` keeps the inverse Hessian as ``scale B + U W'`` and rewrites ``B`` only every
``rank / 3`` updates (:func:`~sciml.solvers.pinn.optim.scale_by_ssbfgs`); the baseline here, :func:`rewritten`,
is the same rule with the whole matrix rewritten at every update (the implementation before 2026-11-28). Both
run ``length`` updates inside one jitted ``lax.scan`` on the same synthetic gradients, interleaved round by
round in one process, so machine load affects both alike; the ratio column is the baseline's time over
sciml's. Sizes default to the cavity's network (8202 parameters) and the DFG 2D-2 one's (12 935).
Run: ``sciml bench bfgs-update`` or ``python -m sciml.bench.bfgs_update``.
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax


class _Dense(NamedTuple):
    steps: jax.Array
    params: jax.Array
    gradient: jax.Array
    direction: jax.Array
    loss: jax.Array
    hinv: jax.Array


def rewritten(eps: float = 1e-10, max_scaling: float = 100.0) -> optax.GradientTransformationExtraArgs:
    """The baseline: the self-scaled BFGS rule of ``scale_by_ssbfgs`` on a dense ``H`` rewritten every update
    (flat parameters only)."""

    def init(w):
        zero = jnp.zeros_like(w)
        return _Dense(jnp.zeros((), jnp.int32), zero, zero, zero, jnp.asarray(jnp.inf, w.dtype),
                      jnp.eye(w.size, dtype=w.dtype))

    def update(g, state, w, *, value, **extra):
        s, y = w - state.params, g - state.gradient
        ys = jnp.vdot(y, s)
        first = (state.steps == 1) | (value >= state.loss)
        h = jnp.where(first, jnp.eye(w.size, dtype=w.dtype) * ys / jnp.maximum(jnp.vdot(y, y), eps), state.hinv)
        hy = h @ y
        yhy = jnp.vdot(y, hy)
        alpha = jnp.vdot(s, state.direction) / jnp.maximum(jnp.vdot(state.direction, state.direction), eps)
        tau = jnp.where(first, 1.0, jnp.clip(ys / jnp.maximum(-alpha * jnp.vdot(s, state.gradient), eps),
                                             1.0 / max_scaling, 1.0))
        v = jnp.sqrt(jnp.maximum(yhy, 0.0)) * (s / ys - hy / yhy)
        updated = (h - jnp.outer(hy, hy) / yhy + jnp.outer(v, v)) / tau + jnp.outer(s, s) / ys
        ok = (state.steps > 0) & (ys > eps * jnp.linalg.norm(s) * jnp.linalg.norm(y)) & (yhy > 0)
        hinv = jnp.where(ok, updated, state.hinv)
        pg = jnp.where(state.steps > 0, hinv @ g, g * jnp.minimum(1.0, 1.0 / jnp.linalg.norm(g)))
        return pg, _Dense(state.steps + 1, w, g, -pg, value, hinv)

    return optax.GradientTransformationExtraArgs(init, update)


def _runner(tx, n: int, length: int):
    """A function that runs ``length`` updates (in place: the state is donated) and returns seconds per update."""
    w = jnp.linspace(-1.0, 1.0, n)
    state = jax.tree.map(lambda a: jnp.array(a, copy=True), tx.init(w))

    def updates(state, w):
        def body(carry, i):
            state, w = carry
            g = w + 0.1 * jnp.sin(w * (i + 1.0))  # a falling loss: no restarts
            step, state = tx.update(g, state, w, value=1.0 / (i + 1.0 + state.steps))
            return (state, w - 0.1 * step), None

        return jax.lax.scan(body, (state, w), jnp.arange(float(length)))[0]

    run = jax.jit(updates, donate_argnums=0)
    carry = run(state, w)
    jax.block_until_ready(carry)

    def timed() -> float:
        nonlocal carry
        t0 = time.perf_counter()
        carry = run(*carry)
        jax.block_until_ready(carry)
        return (time.perf_counter() - t0) / length

    return timed


def measure(n: int, length: int, repeats: int, rank: int) -> dict:
    from sciml.solvers.pinn import optim

    runs = {"rewritten": _runner(rewritten(), n, length),
            "columns": _runner(optim.scale_by_ssbfgs(rank=rank), n, length)}
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(repeats):
        for name, timed in runs.items():
            times[name].append(timed())
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"params": n, **{f"{k}_s": v for k, v in med.items()}, "ratio": med["rewritten"] / med["columns"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="sciml bench bfgs-update", description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="8202,12935", help="comma-separated parameter counts")
    p.add_argument("--rank", type=int, default=30, help="columns kept before a fold (sciml's default 30)")
    p.add_argument("--dtype", default="float64", choices=["float32", "float64"])
    p.add_argument("--length", type=int, default=30, help="updates per timed scan")
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args(argv)
    where = f"({jax.devices()[0].platform}, {a.dtype})"
    print(f"{'params':>8} {'rewritten s':>12} {'columns s':>10} {'speed-up':>9}   {where}")
    with jax.enable_x64(a.dtype == "float64"):
        for n in (int(s) for s in a.sizes.split(",")):
            r = measure(n, a.length, a.repeats, a.rank)
            print(f"{n:>8} {r['rewritten_s']:>12.4f} {r['columns_s']:>10.4f} {r['ratio']:>8.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
