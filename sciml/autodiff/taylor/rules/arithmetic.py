"""Arithmetic: sums, products and quotients of series (Griewank & Walther, *Evaluating Derivatives*, ch. 13).

- linear: ``(a ± b)_k = a_k ± b_k``, ``(-x)_k = -x_k``;
- bilinear maps ``y = B(a, b)`` (``mul``, ``dot_general``, ``conv_general_dilated``): Leibniz,
  ``y_k = Σ_{j=0}^k B(a_j, b_{k-j})``, with ``B`` applied to the coefficients' channels;
- ``square``: the Leibniz sum by symmetry, half the products;
- division ``y = a / b``: ``y_k = (a_k - Σ_{j=1}^k b_j y_{k-j}) / b_0``; by a constant, ``y_k = a_k / b_0``.
"""
from __future__ import annotations

import numpy as np

from .. import coef as C
from ..coef import tadd, tsub, tsum
from ..series import div_series, mul_series, square_coef
from .table import rule_for


@rule_for("add", "add_any")
def _add(ctx, a, b):
    return [ctx.bind(a[0], b[0])] + [tadd(a[k], b[k]) for k in range(1, ctx.K + 1)]


@rule_for("sub")
def _sub(ctx, a, b):
    return [ctx.bind(a[0], b[0])] + [tsub(a[k], b[k]) for k in range(1, ctx.K + 1)]


@rule_for("neg")
def _neg(ctx, x):
    return [ctx.bind(x[0])] + [C.neg(x[k]) for k in range(1, ctx.K + 1)]


@rule_for("mul")
def _mul(ctx, a, b):
    return mul_series(a, b, ctx.K, ctx.bind(a[0], b[0]))


@rule_for("square")
def _square(ctx, x):
    return [ctx.bind(x[0])] + [square_coef(x, k) for k in range(1, ctx.K + 1)]


@rule_for("div")
def _div(ctx, a, b):
    y0 = ctx.bind(a[0], b[0])
    if all(c is None for c in b[1:]):
        inv = 1.0 / b[0]
        return [y0] + [C.times(a[k], inv) for k in range(1, ctx.K + 1)]
    return div_series(a, b, ctx.K, y0)


def _dot_safe(ctx, side: int, full_shape):
    """Row-constant parts may enter ``dot_general`` when their size-1 axes are free (not contracted/batched)."""
    if ctx.eqn.primitive.name != "dot_general":
        return False
    (contract, batch) = ctx.params["dimension_numbers"]
    used = set(contract[side]) | set(batch[side])

    def safe(shape):
        return not any(shape[i] == 1 and full_shape[i] != 1 for i in used)

    return safe


@rule_for("dot_general", "conv_general_dilated")
def _bilinear(ctx, a, b):
    """``y = B(a, b)`` bilinear (``dot_general``, convolutions): Leibniz with ``B`` in place of ``*``."""
    K = ctx.K
    a0, b0 = a[0], b[0]
    ys = [ctx.bind(a0, b0)]
    safe_a, safe_b = _dot_safe(ctx, 0, np.shape(a0)), _dot_safe(ctx, 1, np.shape(b0))
    for k in range(1, K + 1):
        terms = []
        if a[k] is not None:
            terms.append(C.linear(a[k], lambda p: ctx.apply(p, b0), safe_a))
        if b[k] is not None:
            terms.append(C.linear(b[k], lambda p: ctx.apply(a0, p), safe_b))
        for j in range(1, k):
            terms.append(C.product(a[j], b[k - j], lambda p, q: ctx.apply(p, q)))
        ys.append(tsum(terms))
    return ys
