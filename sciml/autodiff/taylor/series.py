"""Truncated Taylor-series arithmetic: the order-by-order recurrences the rules are built from.

A series is a list ``[x_0, x_1, …, x_K]`` of normalised coefficients, ``x(t) = Σ_k x_k t^k``: ``x_0`` a primal
array, ``x_k`` a :class:`~.coef.Coef` (or an array, for series of primal quantities) or ``None`` for a known
zero; the terms are combined with :func:`~.coef.tmul`, :func:`~.coef.tadd`, … The recurrences are those of
Griewank & Walther, *Evaluating Derivatives* (2nd ed., SIAM 2008, ch. 13); each is written once, here:

- products (Leibniz): ``(ab)_k = Σ_{j=0}^k a_j b_{k-j}`` (:func:`cauchy`, :func:`square_coef`, :func:`mul_series`);
- division ``y = a / b``: ``y_k = (a_k - Σ_{j=1}^k b_j y_{k-j}) / b_0``, the reciprocal with ``a = 1``;
- ODE rules: when ``y' = g · x'`` (``'`` = d/dt) then ``k y_k = Σ_{j=1}^k j x_j g_{k-j}`` (:func:`ode_series`),
  with ``g = y`` for ``exp`` and the series of ``g`` from the other recurrences otherwise (``1/(1 + x²)`` for
  ``atan``, ``1/√(1 - x²)`` for ``asin``, …);
- powers ``y = x^r`` (``r`` constant): ``y_k = 1/(k x_0) Σ_{j=0}^{k-1} (r (k-j) - j) x_{k-j} y_j``;
- logarithm, from ``x y' = x'``: ``y_k = (x_k - (1/k) Σ_{j=1}^{k-1} j y_j x_{k-j}) / x_0``;
- composition with a function of known derivatives (Faà di Bruno): with ``d_m = f^{(m)}(x_0) / m!`` and the
  increment ``δ(t) = x(t) - x_0``, ``y_k = Σ_{m=1}^k d_m [t^k] δ(t)^m`` (:func:`faa_di_bruno`).

The ``exp``/``log`` primitives themselves use Faà di Bruno (their ``d_m`` are primal quantities shared by every
direction, see :mod:`.rules.elementwise`); :func:`exp_series` and :func:`log_series` serve compositions whose
argument is itself a series (``exp2``, ``x^p`` with a variable exponent).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from . import coef as C
from .coef import tmul, tscale, tsub, tsum


def cauchy(xs: Sequence, ys: Sequence, k: int, lo: int = 0, hi: int | None = None):
    """``Σ_{j=lo}^{hi} x_j y_{k-j}``: the order-``k`` coefficient of a product of series (Leibniz rule)."""
    hi = k if hi is None else hi
    return tsum(tmul(xs[j], ys[k - j]) for j in range(lo, hi + 1))


def square_coef(ys: Sequence, k: int, lo: int = 0):
    """``Σ_{j=lo}^{k-lo} y_j y_{k-j}``, using the symmetry: half the products."""
    terms = []
    for j in range(lo, (k + 1) // 2):
        terms.append(tscale(tmul(ys[j], ys[k - j]), 2.0))
    if k % 2 == 0 and k // 2 >= lo:
        terms.append(tmul(ys[k // 2], ys[k // 2]))
    return tsum(terms)


def mul_series(a, b, K, y0=None):
    """``y = a b``: ``y_k = Σ_{j=0}^k a_j b_{k-j}``."""
    y0 = a[0] * b[0] if y0 is None else y0
    return [y0] + [cauchy(a, b, k) for k in range(1, K + 1)]


def div_series(a, b, K, y0, inv=None):
    """``y = a / b``: ``y_k = (a_k - Σ_{j=1}^k b_j y_{k-j}) / b_0`` (``inv``: ``1 / b_0`` when already at hand)."""
    inv = 1.0 / b[0] if inv is None else inv
    ys = [y0]
    for k in range(1, K + 1):
        ys.append(tmul(tsub(a[k], cauchy(b, ys, k, lo=1)), inv))
    return ys


def recip_series(xs, K):
    """``y = 1/x``: the quotient with ``a = 1``, ``y_k = -(Σ_{j=1}^k x_j y_{k-j}) / x_0``."""
    y0 = 1.0 / xs[0]
    return div_series([None] * (K + 1), xs, K, y0, inv=y0)


def ode_series(xs, y0, gs, K, g_next: Callable | None = None):
    """``y' = g x'``: ``y_k = (1/k) Σ_{j=1}^k j x_j g_{k-j}``.

    ``gs`` holds the series of ``g`` (to order ``K - 1``), or its first terms and ``g_next(ys, gs, k)`` gives
    ``g_k`` (``k < K``) from the coefficients of ``y`` found so far (``exp``: ``g = y``).
    """
    ys, gs = [y0], list(gs)
    jx = [None] + [tscale(xs[j], float(j)) for j in range(1, K + 1)]
    for k in range(1, K + 1):
        yk = tsum(tmul(jx[j], gs[k - j]) for j in range(1, k + 1))
        ys.append(tscale(yk, 1.0 / k))
        if g_next is not None and k < K:
            gs.append(g_next(ys, gs, k))
    return ys


def exp_series(xs, y0, K):
    """``y = exp x``: the ODE rule with ``g = y``."""
    return ode_series(xs, y0, [y0], K, lambda ys, gs, k: ys[k])


def pow_series(xs, r, y0, K):
    """``y = x^r`` (``r`` constant): ``y_k = 1/(k x_0) Σ_{j=0}^{k-1} (r (k-j) - j) x_{k-j} y_j``."""
    inv = 1.0 / xs[0]
    ys = [y0]
    scalar_r = isinstance(r, (int, float))
    for k in range(1, K + 1):
        terms = []
        for j in range(k):
            if xs[k - j] is None or ys[j] is None:
                continue
            if scalar_r:
                terms.append(tscale(tmul(xs[k - j], ys[j]), (r * (k - j) - j)))
            else:
                terms.append(tmul(tmul(xs[k - j], ys[j]), r * (k - j) - j))
        ys.append(tscale(tmul(tsum(terms), inv), 1.0 / k))
    return ys


def log_series(xs, y0, K):
    """``y = log x``: ``y_k = (x_k - (1/k) Σ_{j=1}^{k-1} j y_j x_{k-j}) / x_0``."""
    inv = 1.0 / xs[0]
    ys = [y0]
    for k in range(1, K + 1):
        acc = tsum(tscale(tmul(ys[j], xs[k - j]), j / k) for j in range(1, k))
        ys.append(tmul(tsub(xs[k], acc), inv))
    return ys


def faa_di_bruno(xs, ds, K):
    """``y_k = Σ_{m=1}^k d_m [t^k] δ(t)^m`` with ``δ(t) = Σ_{j≥1} x_j t^j``; ``ds[m] = f^{(m)}(x_0)/m!``.

    The powers ``δ^m`` are built by truncated Cauchy products and folded into channels (normalised) before the
    shared ``d_m`` multiply them (``Σ_v ω_v d_m p_v = d_m Σ_v ω_v p_v``).
    """
    p1 = [None] + list(xs[1:K + 1])
    powers = {1: p1}
    for m in range(2, K + 1):
        prev = powers[m - 1]
        cur: list = [None] * (K + 1)
        for k in range(m, K + 1):
            c = square_coef(p1, k, lo=1) if m == 2 else cauchy(p1, prev, k, lo=1, hi=k - m + 1)
            cur[k] = C.normalize(c) if C.is_coef(c) else c
        powers[m] = cur
    ys = [None] * (K + 1)
    for k in range(1, K + 1):
        ys[k] = tsum(C.times(powers[m][k], ds[m]) for m in range(1, k + 1)
                     if powers[m][k] is not None and ds[m] is not None)
    return ys
