"""Piecewise functions: the series follows the branch the primal takes.

- ``max``/``min``/``clamp``/``select_n``: the coefficients of the operand JAX's derivative selects (``max``/``min``
  at a tie: the mean of both; ``clamp`` at a tie, or below ``hi < lo``: none);
- ``abs``: ``±x_k``, ``+`` where ``x_0 ≥ 0`` (JAX's derivative at ``0``; a complex ``abs`` falls back to nested
  ``jax.jvp``); ``rem`` (``fmod``): ``a_k - trunc(a_0 / b_0) b_k``;
- piecewise constant (``sign``, ``floor``, ``ceil``, ``round``, ``nextafter``) and ``stop_gradient``: zero
  derivatives. Primitives with integer or boolean results (comparisons, ``argmax``, bit operations, random
  bits, …) need no rule: the interpreter evaluates them on primals only.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import coef as C
from ..coef import tsub
from .table import const, register_rule, rule_for


def _max_min(is_max: bool):
    def rule(ctx, a, b):
        a0, b0 = a[0], b[0]
        y0 = ctx.bind(a0, b0)
        first = (a0 > b0) if is_max else (a0 < b0)
        second = (a0 < b0) if is_max else (a0 > b0)
        shapes = [np.shape(a0), np.shape(b0)]
        dts = [jnp.result_type(a0), jnp.result_type(b0)]

        def fn(p, q):
            return jnp.where(first, p, jnp.where(second, q, (p + q) * 0.5))

        return [y0] + [C.linear_n(fn, [a[k], b[k]], shapes, dts, elementwise=True) for k in range(1, ctx.K + 1)]

    return rule


register_rule("max", _max_min(True))
register_rule("min", _max_min(False))


@rule_for("abs")
def _abs(ctx, x):
    """``y_k = ±x_k``: ``+`` where ``x_0 ≥ 0`` (``x_0 = 0`` included, as in JAX's derivative), ``-`` elsewhere."""
    if jnp.iscomplexobj(x[0]):
        raise NotImplementedError("abs of a complex number")
    s = jnp.where(x[0] >= 0, 1.0, -1.0).astype(jnp.result_type(x[0]))
    return [ctx.bind(x[0])] + [C.times(c, s) for c in x[1:]]


@rule_for("select_n")
def _select_n(ctx, pred, *cases):
    p0 = pred[0]
    y0 = ctx.bind(p0, *[c[0] for c in cases])
    shapes = [np.shape(c[0]) for c in cases]
    dts = [jnp.result_type(c[0]) for c in cases]
    out_shape = np.shape(y0)
    if np.shape(p0) != out_shape:
        p0 = jnp.broadcast_to(p0, out_shape)

    def fn(*parts):
        # a stacked block: broadcast the predicate over the block axis
        pp = jnp.broadcast_to(p0, parts[0].shape) if parts[0].ndim > len(out_shape) else p0
        return lax.select_n(pp, *parts)

    return [y0] + [C.linear_n(fn, [c[k] for c in cases], shapes, dts, elementwise=True)
                   for k in range(1, ctx.K + 1)]


@rule_for("clamp")
def _clamp(ctx, lo, x, hi):
    """The coefficients of the operand JAX's derivative selects: ``lo`` where ``x < lo < hi``, ``x`` where
    ``lo < x < hi``, ``hi`` where ``hi < x``, none (zero) elsewhere: at ties (``x = lo``, ``x = hi``) and where
    ``x ≤ hi < lo`` (the value is then ``hi``; JAX's derivative is zero there, and nested ``jax.jacfwd`` with it)."""
    l0, x0, h0 = lo[0], x[0], hi[0]
    y0 = ctx.bind(l0, x0, h0)
    take_lo = (l0 > x0) & (l0 < h0)
    take_x = (x0 > l0) & (x0 < h0)
    take_hi = h0 < x0
    shapes = [np.shape(l0), np.shape(x0), np.shape(h0)]
    dts = [jnp.result_type(v[0]) for v in (lo, x, hi)]

    def fn(l, v, h):
        return jnp.where(take_lo, l, jnp.where(take_x, v, jnp.where(take_hi, h, jnp.zeros_like(v))))

    return [y0] + [C.linear_n(fn, [lo[k], x[k], hi[k]], shapes, dts, elementwise=True)
                   for k in range(1, ctx.K + 1)]


@rule_for("rem")
def _rem(ctx, a, b):
    y0 = ctx.bind(a[0], b[0])
    q = a[0] / b[0]
    q = jnp.sign(q) * jnp.floor(jnp.abs(q))
    return [y0] + [tsub(a[k], C.times(b[k], q) if b[k] is not None else None) for k in range(1, ctx.K + 1)]


@rule_for("sign", "floor", "ceil", "round", "nextafter", "stop_gradient")
def _zero_derivative(ctx, *series):
    return const(ctx.bind(*[s[0] for s in series]), ctx.K)
