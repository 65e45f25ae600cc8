"""The reference mode: every partial by nested forward-mode ``jax.jvp`` along unit directions.

This is what DeepXDE-style code does, written once. It is the yardstick the Taylor engine is validated and
benchmarked against, and a fallback that is always correct.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import jax
import jax.numpy as jnp

from .operators import LinearOperator, MultiIndex, Request


def _lower(alpha: MultiIndex) -> tuple[MultiIndex, int]:
    """Split ``∂^alpha = ∂_i ∂^beta`` on the last coordinate with a non-zero order."""
    i = max(j for j, a in enumerate(alpha) if a)
    return tuple(a - (j == i) for j, a in enumerate(alpha)), i


def partial_fn(f: Callable, alpha: MultiIndex) -> Callable:
    """``x -> ∂^alpha f(x)`` for a pointwise ``f`` (rows of ``x[..., d]`` independent)."""

    @cache
    def build(a: MultiIndex) -> Callable:
        if not any(a):
            return f
        beta, i = _lower(a)
        inner = build(beta)

        def g(x):
            e = jnp.zeros_like(x).at[..., i].set(1)
            return jax.jvp(inner, (x,), (e,))[1]

        return g

    return build(tuple(alpha))


def jacfwd_tensor(f: Callable, order: int, jit: bool = True) -> Callable:
    """``x (N, d) -> D^order f`` (shape ``f(x).shape + (d,) * order``) by ``order`` nested ``jax.jacfwd`` at
    each point: the textbook reference the engine's partials are checked against."""
    def at_point(x0):
        h = f
        for _ in range(order):
            h = jax.jacfwd(h)
        return h(x0)

    return jax.jit(jax.vmap(at_point)) if jit else jax.vmap(at_point)


def tensor_entry(t, alpha: MultiIndex):
    """``∂^alpha`` from a derivative tensor whose last ``|alpha|`` axes are coordinates."""
    idx = tuple(i for i, a in enumerate(alpha) for _ in range(a))
    return t[(Ellipsis,) + idx]


def derivatives(f: Callable, requests: tuple[Request, ...], **_) -> Callable:
    """All requested partials and operators of ``f`` at ``x``, each by its own chain of nested jvps."""

    def evaluate(x):
        out: dict[Request, Any] = {}
        for r in requests:
            if isinstance(r, LinearOperator):
                out[r] = sum(c * partial_fn(f, a)(x) for a, c in r.terms)
            else:
                out[r] = partial_fn(f, r)(x)
        return out

    return evaluate
