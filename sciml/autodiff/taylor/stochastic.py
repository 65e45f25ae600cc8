"""``mode="stochastic"``: unbiased randomized estimates of ``Δ`` and ``Δ²`` (STDE, Shi et al., NeurIPS 2024).

For a random direction ``v`` with ``E[v vᵀ] = I`` (Rademacher or standard Gaussian entries)

    E[D²f[v, v]] = E[vᵀ H v] = tr H = Δf,

and for ``v ~ N(0, I)`` the fourth moments ``E[v_i v_j v_k v_l] = δ_ij δ_kl + δ_ik δ_jl + δ_il δ_jk`` give

    E[D⁴f[v, v, v, v]] = 3 Σ_{i,j} ∂_i² ∂_j² f = 3 Δ²f.

With ``S`` samples ``v_s`` the estimates are ``(1/S) Σ_s D²f[v_s]`` and ``(1/(3S)) Σ_s D⁴f[v_s]``. Only the sum of the
top coefficients is needed, so the ``S`` directions are collapsed into one channel (collapsed Taylor mode):
the cost grows with ``S`` only through the lower orders. Directions are drawn independently for every point
(``per_point=True``, the default) or shared by the batch. Rademacher directions (lower variance,
``Var = 2 Σ_{i≠j} H_ij²``) are the default for ``Δ``; ``Δ²`` needs Gaussian ones (Rademacher fourth moments are
not isotropic). Multi-index requests are computed exactly by the Taylor engine in the same propagation;
other operators are refused.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import jax

from ..operators import LinearOperator, biharmonic_op, laplacian_op
from .engine import DEFAULT_CHUNK, run_plan
from .plan import Plan, _proportional, make_plan


def _classify(request, dim: int):
    """``("laplacian" | "biharmonic", c)`` for ``c Δ`` / ``c Δ²``, ``None`` for a multi-index."""
    if not isinstance(request, LinearOperator):
        return None
    terms = dict(request.terms)
    for name, op in (("laplacian", laplacian_op(dim)), ("biharmonic", biharmonic_op(dim))):
        c = _proportional(terms, dict(op.terms))
        if c is not None:
            return name, c
    raise ValueError(f"mode='stochastic' estimates only the Laplacian and the biharmonic operator (up to a "
                     f"factor), not {request!r} {request.terms}; use mode='taylor' for it")


@lru_cache(maxsize=64)
def stochastic_plan(exact: tuple, estimated: tuple, dim: int, samples: int) -> Plan:
    """The exact plan for ``exact`` extended by ``samples`` run-time directions for ``estimated``
    (tuples ``(request, kind, c)``)."""
    base = make_plan(exact, dim, share=False)
    Ks = 4 if any(kind == "biharmonic" for _, kind, _ in estimated) else 2
    K = max(base.K, Ks)
    n0 = len(base.directions)
    rand = list(range(n0, n0 + samples))
    top_index = sum(1 for k, _ in base.channels if k == Ks)
    channels = base.channels + ((Ks, tuple((i, 1.0) for i in rand)),)
    readout = list(base.readout)
    for request, kind, c in estimated:
        terms: tuple
        if kind == "biharmonic":
            terms = ((4, "t", top_index, c * math.factorial(4) / (3 * samples)),)
        elif Ks == 2:
            terms = ((2, "t", top_index, c * 2.0 / samples),)
        else:  # Δ from the order-2 coefficients of the Gaussian directions carried to order 4
            terms = tuple((2, "d", i, c * 2.0 / samples) for i in rand)
        readout.append((request, terms))
    return Plan(dim=dim, K=K, directions=base.directions + (None,) * samples,
                depth=base.depth + (Ks,) * samples, channels=channels, readout=tuple(readout))


def derivatives(f: Callable, requests: tuple, *, key=None, samples: int = 16, distribution: str | None = None,
                per_point: bool = True, layout: str = "split", chunk: int | str | None = DEFAULT_CHUNK,
                **options) -> Callable:
    """``x -> {request: value}`` with ``Δ``/``Δ²`` requests estimated from ``samples`` random directions.

    ``key`` (a ``jax.random`` key, required) seeds the directions; ``distribution`` is ``"rademacher"``
    (default for ``Δ`` alone) or ``"gaussian"`` (default, and required, when ``Δ²`` is requested).
    """
    unknown = set(options)
    if unknown:
        raise TypeError(f"unknown option(s) for the stochastic mode: {sorted(unknown)}")
    if samples < 1:
        raise ValueError("samples must be a positive integer")
    requests = tuple(requests)

    def evaluate(x):
        d = x.shape[-1]
        kinds = {r: _classify(r, d) for r in requests}
        exact = tuple(r for r, k in kinds.items() if k is None)
        estimated = tuple((r, *k) for r, k in kinds.items() if k is not None)
        if not estimated:
            return run_plan(make_plan(exact, d, share=layout == "split"), f, x, stacked=layout == "stacked",
                            chunk=chunk)
        if key is None:
            raise ValueError("mode='stochastic' needs a PRNG key: derivatives(..., key=jax.random.PRNGKey(0))")
        need4 = any(kind == "biharmonic" for _, kind, _ in estimated)
        dist = distribution or ("gaussian" if need4 else "rademacher")
        if dist not in ("gaussian", "rademacher"):
            raise ValueError(f"distribution must be 'gaussian' or 'rademacher', not {dist!r}")
        if need4 and dist != "gaussian":
            raise ValueError("the biharmonic estimator E[D⁴f[v]] = 3Δ²f needs Gaussian directions")
        plan = stochastic_plan(exact, estimated, d, int(samples))
        shape = (samples,) + (tuple(x.shape) if per_point else (d,))
        draw = jax.random.normal if dist == "gaussian" else jax.random.rademacher
        v = draw(key, shape, x.dtype)
        dirs = list(plan.directions[: len(plan.directions) - samples]) + [v[s] for s in range(samples)]
        return run_plan(plan, f, x, stacked=layout == "stacked", directions=dirs, chunk=chunk)

    return evaluate
