"""Reductions: sums are linear (``y_k = Σ x_k``); an extremum follows the positions that attain it.

``reduce_max``/``reduce_min``: the mean of the coefficients over the positions where ``x_0`` attains the
extremum (one position in general; ties share, as in JAX's derivative).
"""
from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from .. import coef as C
from .structural import linear_rule
from .table import register_rule, rule_for

register_rule("reduce_sum", linear_rule((0,)))
register_rule("cumsum", linear_rule((0,)))


@rule_for("reduce_max", "reduce_min")
def _reduce_extremum(ctx, x):
    """``reduce_max``/``reduce_min``: the mean of the coefficients at the positions attaining the extremum."""
    axes = tuple(ctx.params["axes"])
    x0 = x[0]
    y0 = ctx.bind(x0)
    keep = [i for i in range(x0.ndim) if i not in axes]
    y_b = lax.broadcast_in_dim(y0, x0.shape, tuple(keep))
    mask = (x0 == y_b).astype(x0.dtype)
    count = jnp.sum(mask, axis=axes)
    inv = 1.0 / count

    def fn(p):
        return jnp.sum(p * mask, axis=axes) * inv

    return [y0] + [C.linear(c, fn) for c in x[1:]]
