"""One Taylor propagation rule per primitive: the table :data:`RULES` (primitive name -> rule).

A rule receives a :class:`Ctx` and, per operand, its truncated series ``xs = [x_0, x_1, …, x_K]`` (``x_0`` the
primal array, ``x_k`` a :class:`~.coef.Coef` or ``None`` for a known zero) and returns the output series
``[y_0, …, y_K]`` (a list of them for primitives with several results). Coefficients are normalised,
``x(t) = Σ_k x_k t^k``. The recurrences are those of Griewank & Walther, *Evaluating Derivatives* (2nd ed.,
ch. 13):

- linear maps ``y = L x`` (reshapes, slices, sums, ``fft``, …): ``y_k = L x_k``;
- bilinear maps ``y = B(a, b)`` (``mul``, ``dot_general``): Leibniz, ``y_k = Σ_{j=0}^k B(a_j, b_{k-j})``;
- division ``y = a / b``: ``y_k = (a_k - Σ_{j=1}^k b_j y_{k-j}) / b_0``;
- ODE rules: when ``y' = g · x'`` (``'`` = d/dt) then ``k y_k = Σ_{j=1}^k j x_j g_{k-j}``, with the series of
  ``g`` from the same recurrences: ``g = y`` (exp, used for ``exp2`` and variable powers), ``1/(1 + x²)`` (atan),
  ``1/√(1 - x²)`` (asin), …;
- powers ``y = x^r`` with a variable exponent: ``exp(r log x)`` with ``y_k = 1/(k x_0) Σ_{j=0}^{k-1}
  (r (k-j) - j) x_{k-j} y_j`` for constant ``r`` and ``log`` from ``x y' = x'``:
  ``y_k = (x_k - (1/k) Σ_{j=1}^{k-1} j y_j x_{k-j}) / x_0``;
- piecewise functions (``max``, ``abs``, ``select_n``, ``reduce_max``) follow the branch the primal takes;
- elementwise functions with cheap derivatives (``tanh``, ``logistic``, ``tan``, ``exp``, ``expm1``, ``sin``,
  ``cos``, ``sinh``, ``cosh``, ``log``, ``log1p``, ``sqrt``, ``rsqrt``, ``cbrt``, ``integer_pow``, ``erf``, ``erfc``)
  use Faà di Bruno: with ``d_m = f^{(m)}(x_0) / m!`` and the increment ``δ(t) = x(t) - x_0``,
  ``y_k = Σ_{m=1}^k d_m [t^k] δ(t)^m``. The ``d_m`` are primal quantities, computed once and shared by every
  direction (``tanh^{(m)}`` is a polynomial in ``y = tanh x``: ``P_1 = 1 - y²``, ``P_{m+1} = P_m'(y) (1 - y²)``;
  ``erf^{(m)} = (2/√π)(-1)^{m-1} H_{m-1}(x) e^{-x²}``; ``(x^r)^{(m)}/m! = binom(r, m) x^{r-m}``);
  only the powers of ``δ`` are per direction, and they are folded into the channels *before* multiplying by
  ``d_m`` (``Σ_v ω_v d_m p_v = d_m Σ_v ω_v p_v``).

Operands whose series are all zero never reach a rule (the interpreter evaluates the primal only), and a
primitive missing from the table falls back to nested ``jax.jvp`` (see :mod:`.interpreter`). Adding a
primitive means adding one function here and one line to the table.
"""
from __future__ import annotations

import math
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import coef as C
from .coef import cauchy, square_coef, tadd, tmul, tscale, tsub, tsum


class Ctx:
    """What a rule may use besides the series: the order, the equation's params, its primal evaluation."""

    __slots__ = ("K", "eqn", "params", "lay")

    def __init__(self, K, eqn, lay):
        self.K, self.eqn, self.params, self.lay = K, eqn, eqn.params, lay

    def bind(self, *primals):
        """The primitive applied to primal operands (with this equation's params)."""
        out = self.eqn.primitive.bind(*primals, **self.params)
        return out

    def apply(self, *args):
        """The primitive with the same params applied to arbitrary (e.g. coefficient) operands."""
        return self.eqn.primitive.bind(*args, **self.params)

    @property
    def out_aval(self):
        return self.eqn.outvars[0].aval


def _const(y0, K):
    return [y0] + [None] * K


# ---------------------------------------------------------------------------------------------------------
# Series helpers (order-by-order recurrences shared by several rules)
# ---------------------------------------------------------------------------------------------------------

def ode_series(xs, y0, g0, K, g_next: Callable):
    """``y' = g x'``: ``y_k = (1/k) Σ_{j=1}^k j x_j g_{k-j}``; ``g_next(ys, gs, k)`` gives ``g_k`` (k < K)."""
    ys, gs = [y0], [g0]
    jx = [None] + [tscale(xs[j], float(j)) for j in range(1, K + 1)]
    for k in range(1, K + 1):
        yk = tsum(tmul(jx[j], gs[k - j]) for j in range(1, k + 1))
        ys.append(tscale(yk, 1.0 / k))
        if k < K:
            gs.append(g_next(ys, gs, k))
    return ys


def exp_series(xs, y0, K):
    return ode_series(xs, y0, y0, K, lambda ys, gs, k: ys[k])


def recip_series(xs, K, y0=None):
    """``y = 1/x``: ``y_k = -(Σ_{j=1}^k x_j y_{k-j}) / x_0``."""
    y0 = 1.0 / xs[0] if y0 is None else y0
    ys = [y0]
    for k in range(1, K + 1):
        ys.append(tmul(tscale(cauchy(xs, ys, k, lo=1), -1.0), y0))
    return ys


def div_series(a, b, K, y0):
    """``y = a / b``: ``y_k = (a_k - Σ_{j=1}^k b_j y_{k-j}) / b_0``."""
    inv = 1.0 / b[0]
    ys = [y0]
    for k in range(1, K + 1):
        ys.append(tmul(tsub(a[k], cauchy(b, ys, k, lo=1)), inv))
    return ys


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


def mul_series(a, b, K, y0=None):
    y0 = a[0] * b[0] if y0 is None else y0
    return [y0] + [cauchy(a, b, k) for k in range(1, K + 1)]


def faa_di_bruno(xs, ds, K):
    """``y_k = Σ_{m=1}^k d_m [t^k] δ(t)^m`` with ``δ(t) = Σ_{j≥1} x_j t^j``; ``ds[m] = f^{(m)}(x_0)/m!``.

    The powers ``δ^m`` are built by truncated Cauchy products and folded into channels (normalised) before the
    shared ``d_m`` multiply them.
    """
    p1 = [None] + list(xs[1:K + 1])
    powers = {1: p1}
    for m in range(2, K + 1):
        prev, cur = powers[m - 1], [None] * (K + 1)
        for k in range(m, K + 1):
            if m == 2:
                c = square_coef(p1, k, lo=1)
            else:
                c = tsum(tmul(p1[j], prev[k - j]) for j in range(1, k - m + 2))
            cur[k] = C.normalize(c) if C.is_coef(c) else c
        powers[m] = cur
    ys = [None] * (K + 1)
    for k in range(1, K + 1):
        ys[k] = tsum(C.times(powers[m][k], ds[m]) for m in range(1, k + 1)
                     if powers[m][k] is not None and ds[m] is not None)
    return ys


def _poly_derivatives(first: np.ndarray, K: int) -> list:
    """Polynomials ``P_1..P_K`` (coefficient arrays, low to high) with ``f^{(m)} = P_m(y)`` when ``f' = P_1(y)``."""
    polys = [None, np.asarray(first, float)]
    for _ in range(2, K + 1):
        prev = polys[-1]
        polys.append(np.polynomial.polynomial.polymul(np.polynomial.polynomial.polyder(prev), first))
    return polys


def _horner(coefs, y):
    out = y * float(coefs[-1]) if len(coefs) > 1 else jnp.full_like(y, float(coefs[0]))
    for i, c in enumerate(coefs[-2::-1]):
        if c != 0:
            out = out + float(c)
        if i < len(coefs) - 2:
            out = out * y
    return out


def _scaled(a, s: float):
    return a if s == 1 else a * s


def _poly_rule(first):
    """``f' = P_1(f)``: all derivatives are polynomials in ``y = f(x)`` (tanh, logistic, tan)."""
    first = np.asarray(first, float)

    def rule(ctx, x):
        K = ctx.K
        y0 = ctx.bind(x[0])
        polys = _poly_derivatives(first, K)
        d1 = _horner(polys[1], y0)
        ds = [None, d1]
        for m in range(2, K + 1):  # P_m = P_{m-1}' P_1 is a multiple of P_1: d_m = d_1 Q_m(y) / m!
            q, r = np.polynomial.polynomial.polydiv(polys[m], polys[1])
            if np.abs(r).max() > 1e-9 * np.abs(polys[m]).max():  # pragma: no cover - not for P_1 = ±1 ± y²
                ds.append(_horner(polys[m] / math.factorial(m), y0))
            else:
                ds.append(d1 * _horner(q / math.factorial(m), y0))
        return [y0] + faa_di_bruno(x, ds, K)[1:]

    return rule


def _fdb_rule(derivs: Callable):
    """Faà di Bruno with ``derivs(ctx, x0, y0, K) -> [None, d_1, …, d_K]`` (normalised derivatives)."""

    def rule(ctx, x):
        y0 = ctx.bind(x[0])
        ds = derivs(ctx, x[0], y0, ctx.K)
        return [y0] + faa_di_bruno(x, ds, ctx.K)[1:]

    return rule


def _d_exp(ctx, x0, y0, K):
    return [None] + [_scaled(y0, 1.0 / math.factorial(m)) for m in range(1, K + 1)]


def _d_expm1(ctx, x0, y0, K):
    e = y0 + 1.0
    return [None] + [_scaled(e, 1.0 / math.factorial(m)) for m in range(1, K + 1)]


def _cyclic(values):
    """``f^{(m)} = values[(m - 1) % 4]`` (sin, cos, sinh, cosh)."""

    def derivs(ctx, x0, y0, K):
        vals = values(x0, y0)
        return [None] + [_scaled(vals[(m - 1) % len(vals)], 1.0 / math.factorial(m)) for m in range(1, K + 1)]

    return derivs


def _d_log_of(shift: float):
    def derivs(ctx, x0, y0, K):
        inv = 1.0 / (x0 + shift) if shift else 1.0 / x0
        out, p = [None], None
        for m in range(1, K + 1):
            p = inv if p is None else p * inv
            out.append(p * ((-1.0) ** (m - 1) / m))
        return out

    return derivs


def _d_power(r_of: Callable):
    """``y = x^r``: ``d_m = binom(r, m) x^{r-m} = binom(r, m) y / x^m`` (``x ≠ 0``)."""

    def derivs(ctx, x0, y0, K):
        r = r_of(ctx)
        inv = 1.0 / x0
        out, p, b = [None], y0, 1.0
        for m in range(1, K + 1):
            p = p * inv
            b = b * (r - (m - 1)) / m
            out.append(p * b)
        return out

    return derivs


def _d_integer_pow(ctx, x0, y0, K):
    """``x^n``: ``d_m = binom(n, m) x^{n-m}`` (exact at ``x = 0`` for ``n ≥ 0``)."""
    n = ctx.params["y"]
    out = [None]
    for m in range(1, K + 1):
        if n >= 0 and m > n:
            out.append(None)
            continue
        b = math.prod(n - i for i in range(m)) / math.factorial(m)
        e = n - m
        out.append(b * (lax.integer_pow(x0, e) if e != 0 else jnp.ones_like(x0)))
    return out


def _d_erf(sign: float):
    """``erf^{(m)} = (2/√π) (-1)^{m-1} H_{m-1}(x) e^{-x²}`` with the Hermite polynomials ``H``."""

    def derivs(ctx, x0, y0, K):
        g = (sign * 2.0 / math.sqrt(math.pi)) * jnp.exp(-x0 * x0)
        out = [None]
        h_prev, h = None, 1.0
        for m in range(1, K + 1):
            out.append(g * h * ((-1.0) ** (m - 1) / math.factorial(m)))
            h_prev, h = h, 2.0 * x0 * h - (2.0 * (m - 1) * h_prev if h_prev is not None else 0.0)
        return out

    return derivs


# ---------------------------------------------------------------------------------------------------------
# Rule factories
# ---------------------------------------------------------------------------------------------------------

def _linear(linear_args=(0,)):
    """Jointly linear in the operands ``linear_args`` (``"all"``: every operand); the others must be constant."""

    def rule(ctx, *series):
        primals = [s[0] for s in series]
        y0 = ctx.bind(*primals)
        K = ctx.K
        lin = list(range(len(series))) if linear_args == "all" else [i for i in linear_args if i < len(series)]
        _check_constant(series, [i for i in range(len(series)) if i not in lin], ctx.eqn.primitive.name)
        if lin == [0]:
            rest = primals[1:]
            fn = lambda a: ctx.apply(a, *rest)
            safe = ctx.eqn.primitive.name in ROW_CONSTANT_SAFE
            return [y0] + [C.linear(series[0][k], fn, safe) for k in range(1, K + 1)]
        shapes = [np.shape(primals[i]) for i in lin]
        dtypes = [jnp.result_type(primals[i]) for i in lin]

        def fn(*parts):
            args = list(primals)
            for i, p in zip(lin, parts):
                args[i] = p
            return ctx.apply(*args)

        return [y0] + [C.linear_n(fn, [series[i][k] for i in lin], shapes, dtypes) for k in range(1, K + 1)]

    return rule


def _check_constant(series, idx, name):
    for i in idx:
        if any(c is not None for c in series[i][1:]):
            raise NotImplementedError(f"{name}: operand {i} must not depend on the input")


def _add(ctx, a, b):
    return [ctx.bind(a[0], b[0])] + [tadd(a[k], b[k]) for k in range(1, ctx.K + 1)]


def _sub(ctx, a, b):
    return [ctx.bind(a[0], b[0])] + [tsub(a[k], b[k]) for k in range(1, ctx.K + 1)]


def _neg(ctx, x):
    return [ctx.bind(x[0])] + [C.neg(x[k]) for k in range(1, ctx.K + 1)]


def _mul(ctx, a, b):
    return mul_series(a, b, ctx.K, ctx.bind(a[0], b[0]))


def _square(ctx, x):
    return [ctx.bind(x[0])] + [square_coef(x, k) for k in range(1, ctx.K + 1)]


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


def _exp2(ctx, x):
    ln2 = math.log(2.0)
    u = [x[0]] + [tscale(c, ln2) for c in x[1:]]
    return exp_series(u, ctx.bind(x[0]), ctx.K)


def _ode_from(gseries: Callable):
    """``y' = g(x) x'`` where ``g``'s series (to order K-1) comes from ``gseries(xs, K-1)``."""

    def rule(ctx, x):
        K = ctx.K
        y0 = ctx.bind(x[0])
        gs = gseries(x, K - 1)
        ys = [y0]
        jx = [None] + [tscale(x[j], float(j)) for j in range(1, K + 1)]
        for k in range(1, K + 1):
            ys.append(tscale(tsum(tmul(jx[j], gs[k - j]) for j in range(1, k + 1)), 1.0 / k))
        return ys

    return rule


def _sq_plus(xs, K, c0, sign):
    """Series of ``c0 + sign x²``."""
    s = [c0 + sign * xs[0] * xs[0]] + [tscale(square_coef(xs, k), sign) for k in range(1, K + 1)]
    return s


def _atan_g(xs, K):
    return recip_series(_sq_plus(xs, K, 1.0, 1.0), K)


def _atanh_g(xs, K):
    return recip_series(_sq_plus(xs, K, 1.0, -1.0), K)


def _rsqrt_of(u, K):
    return pow_series(u, -0.5, lax.rsqrt(u[0]), K)


def _asin_g(xs, K):
    return _rsqrt_of(_sq_plus(xs, K, 1.0, -1.0), K)


def _acos_g(xs, K):
    return [tscale(c, -1.0) if C.is_coef(c) else -c for c in _asin_g(xs, K)]


def _asinh_g(xs, K):
    return _rsqrt_of(_sq_plus(xs, K, 1.0, 1.0), K)


def _acosh_g(xs, K):
    return _rsqrt_of(_sq_plus(xs, K, -1.0, 1.0), K)


def _pow(ctx, x, p):
    y0 = ctx.bind(x[0], p[0])
    K = ctx.K
    if all(c is None for c in p[1:]):
        r = p[0]
        if isinstance(r, (int, float, np.number, np.ndarray)) and np.ndim(r) == 0:
            r = float(r)
        return pow_series(x, r, y0, K)
    # x^p = exp(p log x)
    lg = log_series(x, jnp.log(x[0]), K)
    u = mul_series(p, lg, K, p[0] * lg[0])
    return exp_series(u, y0, K)


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


def _abs(ctx, x):
    s = jnp.sign(x[0])
    return [ctx.bind(x[0])] + [C.times(c, s) for c in x[1:]]


def _select_n(ctx, pred, *cases):
    p0 = pred[0]
    y0 = ctx.bind(p0, *[c[0] for c in cases])
    shapes = [np.shape(c[0]) for c in cases]
    dts = [jnp.result_type(c[0]) for c in cases]
    out_shape = np.shape(y0)
    if np.shape(p0) != out_shape:
        p0 = jnp.broadcast_to(p0, out_shape)

    def fn(*parts):
        if parts[0].ndim > len(out_shape):  # stacked block: broadcast the predicate over the block axis
            pp = jnp.broadcast_to(p0, parts[0].shape)
        else:
            pp = p0
        return lax.select_n(pp, *parts)

    return [y0] + [C.linear_n(fn, [c[k] for c in cases], shapes, dts, elementwise=True)
                   for k in range(1, ctx.K + 1)]


def _clamp(ctx, lo, x, hi):
    y0 = ctx.bind(lo[0], x[0], hi[0])
    below, above = x[0] < lo[0], x[0] > hi[0]
    shapes = [np.shape(lo[0]), np.shape(x[0]), np.shape(hi[0])]
    dts = [jnp.result_type(v[0]) for v in (lo, x, hi)]

    def fn(l, v, h):
        return jnp.where(below, l, jnp.where(above, h, v))

    return [y0] + [C.linear_n(fn, [lo[k], x[k], hi[k]], shapes, dts, elementwise=True)
                   for k in range(1, ctx.K + 1)]


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


def _rem(ctx, a, b):
    y0 = ctx.bind(a[0], b[0])
    q = a[0] / b[0]
    q = jnp.sign(q) * jnp.floor(jnp.abs(q))
    return [y0] + [tsub(a[k], C.times(b[k], q) if b[k] is not None else None) for k in range(1, ctx.K + 1)]


def _zero_derivative(ctx, *series):
    y0 = ctx.bind(*[s[0] for s in series])
    if ctx.eqn.primitive.multiple_results:
        return [[y] + [None] * ctx.K for y in y0]
    return _const(y0, ctx.K)


def _convert(ctx, x):
    y0 = ctx.bind(x[0])
    if not jnp.issubdtype(ctx.params["new_dtype"], jnp.inexact):
        return _const(y0, ctx.K)
    return [y0] + [C.linear(c, ctx.apply, True) for c in x[1:]]


def _identity_multi(ctx, *series):
    """``optimization_barrier``-like primitives: identity on every operand."""
    y0 = ctx.bind(*[s[0] for s in series])
    return [[y] + list(s[1:]) for y, s in zip(y0, series)]


def _split(ctx, x):
    """Linear maps with several results (``split``, ``unstack``): the i-th result of each part."""
    y0 = ctx.bind(x[0])
    n = len(y0)
    outs = [[y] for y in y0]
    for k in range(1, ctx.K + 1):
        c = x[k]
        if c is None:
            for o in outs:
                o.append(None)
            continue
        # apply split to each part; collect the i-th result
        pieces = {}
        for key, a in c.parts.items():
            if C._stacked(c.lay, key):
                pieces[key] = jax.vmap(lambda v: ctx.apply(v))(a)
            else:
                pieces[key] = ctx.apply(C.full(c, key, a))
        for i in range(n):
            parts = {key: v[i] for key, v in pieces.items()}
            shp = next(iter(parts.values()))
            shape = shp.shape[1:] if C._stacked(c.lay, next(iter(parts))) else shp.shape
            outs[i].append(C.Coef(c.lay, k, parts, shape, c.dtype))
    return outs


LINEAR_UNARY = [
    "reshape", "broadcast_in_dim", "transpose", "squeeze", "expand_dims", "rev", "slice", "reduce_sum",
    "cumsum", "fft", "copy", "copy_p", "real", "imag", "conj", "reduce_precision", "dynamic_slice", "gather",
    "sharding_constraint", "mesh_cast", "reshard", "reduce_and_scatter", "device_put", "psum", "all_gather",
    "tile",
]

# Linear maps that accept row-constant parts (size-1 axes stay size 1, or the output shape is explicit).
ROW_CONSTANT_SAFE = {"transpose", "squeeze", "expand_dims", "broadcast_in_dim", "copy", "copy_p",
                     "reduce_precision", "real", "imag", "conj"}

ZERO_DERIVATIVE = [
    "sign", "floor", "ceil", "round", "is_finite", "stop_gradient", "eq", "ne", "lt", "gt", "le", "ge",
    "and", "or", "not", "xor", "argmax", "argmin", "iota", "nextafter", "population_count", "shift_left",
    "shift_right_logical", "shift_right_arithmetic", "random_bits", "random_seed", "random_wrap", "random_unwrap",
    "threefry2x32",
]

RULES: dict[str, Callable] = {
    "add": _add,
    "add_any": _add,
    "sub": _sub,
    "neg": _neg,
    "mul": _mul,
    "div": _div,
    "square": _square,
    "dot_general": _bilinear,
    "conv_general_dilated": _bilinear,
    "exp": _fdb_rule(_d_exp),
    "exp2": _exp2,
    "expm1": _fdb_rule(_d_expm1),
    "log": _fdb_rule(_d_log_of(0.0)),
    "log1p": _fdb_rule(_d_log_of(1.0)),
    "tanh": _poly_rule([1.0, 0.0, -1.0]),
    "logistic": _poly_rule([0.0, 1.0, -1.0]),
    "sin": _fdb_rule(_cyclic(lambda x, y: (jnp.cos(x), -y, -jnp.cos(x), y))),
    "cos": _fdb_rule(_cyclic(lambda x, y: (-jnp.sin(x), -y, jnp.sin(x), y))),
    "tan": _poly_rule([1.0, 0.0, 1.0]),
    "sinh": _fdb_rule(_cyclic(lambda x, y: (jnp.cosh(x), y))),
    "cosh": _fdb_rule(_cyclic(lambda x, y: (jnp.sinh(x), y))),
    "atan": _ode_from(_atan_g),
    "atanh": _ode_from(_atanh_g),
    "asin": _ode_from(_asin_g),
    "acos": _ode_from(_acos_g),
    "asinh": _ode_from(_asinh_g),
    "acosh": _ode_from(_acosh_g),
    "erf": _fdb_rule(_d_erf(1.0)),
    "erfc": _fdb_rule(_d_erf(-1.0)),
    "sqrt": _fdb_rule(_d_power(lambda ctx: 0.5)),
    "rsqrt": _fdb_rule(_d_power(lambda ctx: -0.5)),
    "cbrt": _fdb_rule(_d_power(lambda ctx: 1.0 / 3.0)),
    "pow": _pow,
    "integer_pow": _fdb_rule(_d_integer_pow),
    "max": _max_min(True),
    "min": _max_min(False),
    "abs": _abs,
    "select_n": _select_n,
    "clamp": _clamp,
    "reduce_max": _reduce_extremum,
    "reduce_min": _reduce_extremum,
    "rem": _rem,
    "convert_element_type": _convert,
    "concatenate": _linear("all"),
    "pad": _linear((0, 1)),
    "dynamic_update_slice": _linear((0, 1)),
    "scatter-add": _linear((0, 2)),
    "scatter_add": _linear((0, 2)),
    "scatter": _linear((0, 2)),
    "complex": _linear((0, 1)),
    "optimization_barrier": _identity_multi,
    "split": _split,
    "unstack": _split,
    "stack": _linear("all"),
}
RULES.update({name: _linear((0,)) for name in LINEAR_UNARY})
RULES.update({name: _zero_derivative for name in ZERO_DERIVATIVE})


def register_rule(name: str, rule: Callable) -> None:
    """Add (or replace) the rule of primitive ``name``."""
    RULES[name] = rule
