"""``mode="stochastic"``: unbiased randomized estimates of ``Δ`` and ``Δ²`` (STDE, Shi et al., NeurIPS 2024).

For a random direction ``v`` with ``E[v vᵀ] = I`` (Rademacher or standard Gaussian entries)

    E[D²f[v, v]] = E[vᵀ H v] = tr H = Δf,

and for ``v ~ N(0, I)`` the fourth moments ``E[v_i v_j v_k v_l] = δ_ij δ_kl + δ_ik δ_jl + δ_il δ_jk`` give

    E[D⁴f[v, v, v, v]] = 3 Σ_{i,j} ∂_i² ∂_j² f = 3 Δ²f.

With ``S`` samples ``v_s`` the estimates are ``(1/S) Σ_s D²f[v_s]`` and ``(1/(3S)) Σ_s D⁴f[v_s]``. Only the sum of the
top coefficients is needed, so the ``S`` directions are collapsed into one channel (collapsed Taylor mode):
the cost grows with ``S`` only through the lower orders. Directions are drawn independently for every point
(``per_point=True``, the default) or shared by the batch. The distributions (:data:`DISTRIBUTIONS`), all with
``E[v vᵀ] = I``:

- ``"rademacher"`` (dense, ``v_i = ±1``; the default for ``Δ``): ``Var D²f[v] = 2 Σ_{i≠j} H_ij²``, exact for a
  diagonal Hessian;
- ``"gaussian"`` (dense, ``v ~ N(0, I)``): ``Var = 2 ‖H‖_F²``; the only one for ``Δ²`` (Rademacher and sparse
  fourth moments are not isotropic);
- ``"sparse"`` (STDE's sparse random jets, the randomisation of SDGD, Hu et al. 2023): ``v = √d e_i`` with
  ``i`` uniform in ``{1, …, d}``, drawn with replacement, so ``D²f[v] = d ∂_i² f`` and
  ``Var = d Σ_i (∂_i² f)² - (Δf)²``, zero when the diagonal of ``H`` is constant.

In ``d`` dimensions the directions of a batch of ``N`` points are one ``(S, N, d)`` array, and the propagation
carries ``S`` order-1 coefficients of the primal's size per variable: memory and time grow linearly in ``d``
(through the first layer), with no ``d × d`` object, since ``Δ`` and ``Δ²`` arrive as
:class:`~sciml.autodiff.operators.Polyharmonic` requests whose terms are never listed here. Multi-index
requests are computed exactly by the Taylor engine in the same propagation; other operators are refused.

What the high-dimensional work added to this mode: the ``"sparse"`` jets, the :data:`DISTRIBUTIONS` table, and
reading ``Δ``/``Δ²`` off a :class:`~sciml.autodiff.operators.Polyharmonic` request (before, the request's
``d²`` (``Δ``) or ``d³/2`` (``Δ²``) term entries were listed and compared with the operator's, which bounded
``d`` to a few thousand); the estimators, the plan and the collapse are unchanged.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import jax
import jax.numpy as jnp

from ..operators import POWERS, LinearOperator, Polyharmonic, biharmonic_op, laplacian_op
from . import sparse
from .engine import DEFAULT_CHUNK, run_plan
from .plan import Plan, _proportional, make_plan


def _classify(request, dim: int):
    """``("laplacian" | "biharmonic", c)`` for ``c Δ`` / ``c Δ²``, ``None`` for a multi-index."""
    if not isinstance(request, LinearOperator):
        return None
    if isinstance(request, Polyharmonic):  # known by its power: its terms are not listed
        return POWERS[request.power][0], 1.0
    terms = dict(request.terms)
    for name, op in (("laplacian", laplacian_op(dim)), ("biharmonic", biharmonic_op(dim))):
        c = _proportional(terms, dict(op.terms))
        if c is not None:
            return name, c
    raise ValueError(f"mode='stochastic' estimates only the Laplacian and the biharmonic operator (up to a "
                     f"factor), not {request!r} {request.terms}; use mode='taylor' for it")


def sparse_indices(key, shape):
    """The coordinates ``i`` of the sparse jets for directions of ``shape`` (``(..., d)``): ``shape[:-1]``
    independent draws, uniform in ``{0, …, d-1}``."""
    return jax.random.randint(key, shape[:-1], 0, shape[-1])


def _sparse(key, shape, dtype):
    """``√d e_i`` with ``i`` from :func:`sparse_indices` (``d = shape[-1]``)."""
    d = shape[-1]
    i = sparse_indices(key, shape)
    return jax.nn.one_hot(i, d, dtype=dtype) * jnp.sqrt(jnp.asarray(d, dtype))


# name -> (draw(key, shape, dtype) -> directions with E[v vᵀ] = I, whether E[v⊗v⊗v⊗v] is Gaussian's (Δ²))
DISTRIBUTIONS = {
    "rademacher": (jax.random.rademacher, False),
    "gaussian": (jax.random.normal, True),
    "sparse": (_sparse, False),
}


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
    (default for ``Δ`` alone), ``"sparse"`` or ``"gaussian"`` (default, and required, when ``Δ²`` is
    requested); see :data:`DISTRIBUTIONS`.
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
        if dist not in DISTRIBUTIONS:
            raise ValueError(f"distribution must be one of {sorted(DISTRIBUTIONS)}, not {dist!r}")
        draw, isotropic4 = DISTRIBUTIONS[dist]
        if need4 and not isotropic4:
            raise ValueError("the biharmonic estimator E[D⁴f[v]] = 3Δ²f needs Gaussian directions")
        plan = stochastic_plan(exact, estimated, d, int(samples))
        shape = (samples,) + (tuple(x.shape) if per_point else (d,))
        if dist == "sparse" and per_point:  # as index and value: a row of W in the first layer (:mod:`.sparse`)
            i = sparse_indices(key, shape)  # those _sparse draws from the same key
            v = [sparse.Direction(i[s], math.sqrt(d)) for s in range(samples)]
        else:
            v = draw(key, shape, x.dtype)
        dirs = list(plan.directions[: len(plan.directions) - samples]) + [v[s] for s in range(samples)]
        return run_plan(plan, f, x, stacked=layout == "stacked", directions=dirs, chunk=chunk)

    return evaluate
