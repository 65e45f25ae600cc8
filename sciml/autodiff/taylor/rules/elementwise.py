"""Elementwise analytic functions ``y = f(x)``: Faà di Bruno with shared derivatives, or an ODE recurrence.

- **Faà di Bruno** (``exp``, ``expm1``, ``log``, ``log1p``, ``sin``, ``cos``, ``sinh``, ``cosh``, ``sqrt``,
  ``rsqrt``, ``cbrt``, ``integer_pow``, ``erf``, ``erfc``, and ``tanh``, ``logistic``, ``tan``):
  ``y_k = Σ_{m=1}^k d_m [t^k] δ(t)^m`` with ``d_m = f^{(m)}(x_0) / m!`` and ``δ(t) = x(t) - x_0``
  (:func:`~..series.faa_di_bruno`). The ``d_m`` are primal quantities, computed once and shared by every
  direction; only the powers of ``δ`` are per direction, and they are folded into the channels *before* the
  ``d_m`` multiply them. The derivatives: ``tanh^{(m)}`` is a polynomial in ``y = tanh x``
  (``P_1 = 1 - y²``, ``P_{m+1} = P_m'(y) (1 - y²)``; likewise ``logistic``, ``tan``);
  ``erf^{(m)} = (2/√π)(-1)^{m-1} H_{m-1}(x) e^{-x²}`` with the Hermite polynomials ``H``;
  ``(x^r)^{(m)}/m! = binom(r, m) x^{r-m}``; ``log^{(m)}(x)/m! = (-1)^{m-1} / (m x^m)``.
- **ODE rules** (``atan``, ``atanh``, ``asin``, ``acos``, ``asinh``, ``acosh``): ``y' = g(x) x'`` with the series
  of ``g`` from the series recurrences (``1/(1 + x²)``, ``1/√(1 - x²)``, …; :func:`~..series.ode_series`).
- **Powers** (``sqrt``, ``rsqrt``, ``cbrt``, ``integer_pow``, ``pow``): ``d_m = binom(r, m) x^{r-m}``, at ``x_0 = 0``
  as JAX's derivative has it (``0`` for ``r > m``, ``1`` for ``r = m``, ``±∞`` below) except that a polynomial
  (``r`` a non-negative integer) has the derivatives ``0`` beyond its degree, where JAX's nested ``0 · ∞`` is NaN;
  a known integer-valued exponent of ``pow`` (``x ** 2.0``) is ``integer_pow``'s. A variable exponent:
  ``x^{p_0} exp((p - p_0) log x)``.
- **Compositions**: ``exp2 x = exp(x ln 2)``.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import coef as C
from ..coef import tadd, tscale
from ..series import (
    cauchy,
    exp_series,
    faa_di_bruno,
    log_series,
    mul_series,
    ode_series,
    pow_series,
    recip_series,
    square_coef,
)
from .table import register_rule, rule_for

# ---------------------------------------------------------------------------------------------------------
# Faà di Bruno: a rule from the normalised derivatives d_m
# ---------------------------------------------------------------------------------------------------------


def fdb_rule(derivs: Callable) -> Callable:
    """Faà di Bruno with ``derivs(ctx, x0, y0, K) -> [None, d_1, …, d_K]`` (normalised derivatives)."""

    def rule(ctx, x):
        y0 = ctx.bind(x[0])
        ds = derivs(ctx, x[0], y0, ctx.K)
        return [y0] + faa_di_bruno(x, ds, ctx.K)[1:]

    return rule


def _scaled(a, s: float):
    return a if s == 1 else a * s


def _d_exp(ctx, x0, y0, K):
    return [None] + [_scaled(y0, 1.0 / math.factorial(m)) for m in range(1, K + 1)]


def _d_expm1(ctx, x0, y0, K):
    e = y0 + 1.0
    return [None] + [_scaled(e, 1.0 / math.factorial(m)) for m in range(1, K + 1)]


register_rule("exp", fdb_rule(_d_exp))
register_rule("expm1", fdb_rule(_d_expm1))


def _d_log_of(shift: float):
    """``log(x + shift)``: ``d_m = (-1)^{m-1} / (m (x + shift)^m)``."""

    def derivs(ctx, x0, y0, K):
        inv = 1.0 / (x0 + shift) if shift else 1.0 / x0
        out, p = [None], None
        for m in range(1, K + 1):
            p = inv if p is None else p * inv
            out.append(p * ((-1.0) ** (m - 1) / m))
        return out

    return derivs


register_rule("log", fdb_rule(_d_log_of(0.0)))
register_rule("log1p", fdb_rule(_d_log_of(1.0)))


def _cyclic(values):
    """``f^{(m)} = values[(m - 1) % len(values)]`` (sin, cos, sinh, cosh)."""

    def derivs(ctx, x0, y0, K):
        vals = values(x0, y0)
        return [None] + [_scaled(vals[(m - 1) % len(vals)], 1.0 / math.factorial(m)) for m in range(1, K + 1)]

    return derivs


register_rule("sin", fdb_rule(_cyclic(lambda x, y: (jnp.cos(x), -y, -jnp.cos(x), y))))
register_rule("cos", fdb_rule(_cyclic(lambda x, y: (-jnp.sin(x), -y, jnp.sin(x), y))))
register_rule("sinh", fdb_rule(_cyclic(lambda x, y: (jnp.cosh(x), y))))
register_rule("cosh", fdb_rule(_cyclic(lambda x, y: (jnp.sinh(x), y))))


def _zero_base(r, m: int, c, polynomial: bool):
    """``binom(r, m) 0^{r-m}`` (``c = binom(r, m)``) as JAX's derivative has it: ``0`` for ``r > m``, ``1`` for
    ``r = m``, ``±∞`` (the sign of ``c``) for ``r < m``; where ``c = 0`` (``r`` an integer in ``[0, m)``) JAX's nested
    ``0 · ∞`` is NaN, and with ``polynomial`` (a constant exponent: ``x^r`` is a polynomial of lower degree) it is
    ``0``. Comparisons only, so no gradient meets a product with ``∞``."""
    below = jnp.where(c > 0, jnp.inf, jnp.where(c < 0, -jnp.inf, 0.0 if polynomial else jnp.nan))
    return jnp.where(r > m, 0.0, jnp.where(r == m, 1.0, below))


def power_derivatives(r, x0, power: Callable, K: int, polynomial: bool = True) -> list:
    """``d_m = binom(r, m) x^{r-m}`` of ``y = x^r`` (``r`` a number or an array, maybe traced):
    ``binom(r, m) y / x^m`` where ``x ≠ 0``, :func:`_zero_base` where ``x = 0``. ``power(x)`` is ``x^r``;
    it is evaluated at a base made safe (``1`` in place of ``0``), so neither branch of the ``where`` holds an
    ``∞`` or a NaN that a gradient through the coefficients would meet."""
    zero = x0 == 0
    safe = jnp.where(zero, 1.0, x0)
    inv = 1.0 / safe
    out: list = [None]
    p, c = power(safe), 1.0
    for m in range(1, K + 1):
        p = p * inv
        c = c * (r - (m - 1)) / m
        out.append(jnp.where(zero, _zero_base(r, m, c, polynomial), p * c))
    return out


def _d_power(r: float, power: Callable):
    """``y = x^r`` for a fixed ``r`` (``sqrt``, ``rsqrt``, ``cbrt``): :func:`power_derivatives`."""
    return lambda ctx, x0, y0, K: power_derivatives(r, x0, power, K)


register_rule("sqrt", fdb_rule(_d_power(0.5, lax.sqrt)))
register_rule("rsqrt", fdb_rule(_d_power(-0.5, lax.rsqrt)))
register_rule("cbrt", fdb_rule(_d_power(1.0 / 3.0, lax.cbrt)))


def integer_power_derivatives(n: int, x0, K: int) -> list:
    """``x^n``: ``d_m = binom(n, m) x^{n-m}`` by ``integer_pow`` (exact at ``x = 0``; ``None`` for ``m > n ≥ 0``)."""
    out: list = [None]
    for m in range(1, K + 1):
        if n >= 0 and m > n:
            out.append(None)
            continue
        b = math.prod(n - i for i in range(m)) / math.factorial(m)
        e = n - m
        out.append(b * (lax.integer_pow(x0, e) if e != 0 else jnp.ones_like(x0)))
    return out


def _d_integer_pow(ctx, x0, y0, K):
    return integer_power_derivatives(ctx.params["y"], x0, K)


register_rule("integer_pow", fdb_rule(_d_integer_pow))


def _d_erf(sign: float):
    """``erf^{(m)} = (2/√π) (-1)^{m-1} H_{m-1}(x) e^{-x²}`` with the Hermite polynomials ``H``."""

    def derivs(ctx, x0, y0, K):
        g = (sign * 2.0 / math.sqrt(math.pi)) * jnp.exp(-x0 * x0)
        out: list = [None]
        h_prev, h = None, 1.0
        for m in range(1, K + 1):
            out.append(g * h * ((-1.0) ** (m - 1) / math.factorial(m)))
            h_prev, h = h, 2.0 * x0 * h - (2.0 * (m - 1) * h_prev if h_prev is not None else 0.0)
        return out

    return derivs


register_rule("erf", fdb_rule(_d_erf(1.0)))
register_rule("erfc", fdb_rule(_d_erf(-1.0)))

# ---------------------------------------------------------------------------------------------------------
# Derivatives that are polynomials in the value: f' = P_1(f) (tanh, logistic, tan)
# ---------------------------------------------------------------------------------------------------------


def _poly_derivatives(first: Sequence[float], K: int) -> list:
    """Polynomials ``P_1..P_K`` (coefficient arrays, low to high) with ``f^{(m)} = P_m(y)`` when ``f' = P_1(y)``."""
    polys: list = [None, np.asarray(first, float)]
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


def poly_rule(first) -> Callable:
    """``f' = P_1(f)``: all derivatives are polynomials in ``y = f(x)``; Faà di Bruno with those ``d_m``."""
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


register_rule("tanh", poly_rule([1.0, 0.0, -1.0]))  # tanh' = 1 - y²
register_rule("logistic", poly_rule([0.0, 1.0, -1.0]))  # σ' = y - y²
register_rule("tan", poly_rule([1.0, 0.0, 1.0]))  # tan' = 1 + y²



def logaddexp_rule(ctx, a, b):
    """``y = log(eᵃ + eᵇ) = b + softplus(δ)``, ``δ = a - b``: Faà di Bruno in ``δ`` with
    ``softplus^{(m)} = σ^{(m-1)}``, polynomials in ``s = σ(δ)`` (``σ' = s - s²``), and ``s`` from ``e^{-|δ|}``, which
    the value computes too. For JAX's ``custom_jvp`` ``logaddexp`` (``softplus``), whose rule it equals: see
    :mod:`..custom`."""
    K = ctx.K
    d0 = a[0] - b[0]
    e = jnp.exp(-jnp.abs(d0))
    s = jnp.where(d0 >= 0, 1.0, e) / (1.0 + e)
    polys = _poly_derivatives([0.0, 1.0, -1.0], K - 1) if K > 1 else []
    ds = [None, s] + [_horner(polys[m - 1], s) * (1.0 / math.factorial(m)) for m in range(2, K + 1)]
    delta = [d0] + [C.add(a[k], C.neg(b[k])) if b[k] is not None else a[k] for k in range(1, K + 1)]
    soft = faa_di_bruno(delta, ds, K)
    return [jnp.logaddexp(a[0], b[0])] + [C.add(b[k], soft[k]) if b[k] is not None else soft[k]
                                          for k in range(1, K + 1)]


# ---------------------------------------------------------------------------------------------------------
# ODE rules: y' = g(x) x' with the series of g
# ---------------------------------------------------------------------------------------------------------


def ode_rule(gseries: Callable) -> Callable:
    """``y' = g(x) x'`` where ``g``'s series (to order K-1) comes from ``gseries(xs, K-1)``."""

    def rule(ctx, x):
        K = ctx.K
        return ode_series(x, ctx.bind(x[0]), gseries(x, K - 1), K)

    return rule


def _sq_plus(xs, K, c0, sign):
    """Series of ``c0 + sign x²``."""
    return [c0 + sign * xs[0] * xs[0]] + [tscale(square_coef(xs, k), sign) for k in range(1, K + 1)]


def _rsqrt_of(u, K):
    return pow_series(u, -0.5, lax.rsqrt(u[0]), K)


def _atan_g(xs, K):  # 1/(1 + x²)
    return recip_series(_sq_plus(xs, K, 1.0, 1.0), K)


def _atanh_g(xs, K):  # 1/(1 - x²)
    return recip_series(_sq_plus(xs, K, 1.0, -1.0), K)


def _asin_g(xs, K):  # 1/√(1 - x²)
    return _rsqrt_of(_sq_plus(xs, K, 1.0, -1.0), K)


def _acos_g(xs, K):  # -1/√(1 - x²)
    return [tscale(c, -1.0) if C.is_coef(c) else -c for c in _asin_g(xs, K)]


def _asinh_g(xs, K):  # 1/√(1 + x²)
    return _rsqrt_of(_sq_plus(xs, K, 1.0, 1.0), K)


def _acosh_g(xs, K):  # 1/√(x² - 1)
    return _rsqrt_of(_sq_plus(xs, K, -1.0, 1.0), K)


register_rule("atan", ode_rule(_atan_g))
register_rule("atanh", ode_rule(_atanh_g))
register_rule("asin", ode_rule(_asin_g))
register_rule("acos", ode_rule(_acos_g))
register_rule("asinh", ode_rule(_asinh_g))
register_rule("acosh", ode_rule(_acosh_g))

# ---------------------------------------------------------------------------------------------------------
# Compositions of series: exp2, pow
# ---------------------------------------------------------------------------------------------------------


@rule_for("exp2")
def _exp2(ctx, x):
    ln2 = math.log(2.0)
    u = [x[0]] + [tscale(c, ln2) for c in x[1:]]
    return exp_series(u, ctx.bind(x[0]), ctx.K)


def _concrete(a) -> bool:
    """Whether ``a`` is a known value (a literal or constant), not a tracer."""
    return not isinstance(a, jax.core.Tracer)


def _integer_exponent(r) -> int | None:
    """``r`` as an ``int`` when it is a known integer-valued scalar (``2.0``; JAX's ``integer_pow`` range), else
    ``None``."""
    if not _concrete(r) or np.ndim(r) != 0:
        return None
    v = float(r)
    return int(v) if v.is_integer() and abs(v) < 2 ** 31 else None


def _pow_derivatives(ctx, x0, r, K: int, polynomial: bool) -> list:
    """``d_m`` of ``x^r`` at the exponent's value ``r``: an integer-valued known ``r`` of a constant exponent
    (``polynomial``) as ``integer_pow`` (:func:`integer_power_derivatives`), any other (non-integer, an array, a
    traced value) by :func:`power_derivatives`."""
    n = _integer_exponent(r) if polynomial else None
    if n is not None:
        return integer_power_derivatives(n, x0, K)
    c = float(r) if _concrete(r) and np.ndim(r) == 0 else jnp.asarray(r).astype(jnp.result_type(x0))
    return power_derivatives(c, x0, lambda b: ctx.apply(b, r), K, polynomial)


@rule_for("pow")
def _pow(ctx, x, p):
    """``y = x^p``. A constant exponent: Faà di Bruno with :func:`_pow_derivatives`. A variable one:
    ``y = x^{p_0} · exp((p - p_0) log x)``, the first factor as for a constant exponent, the second from the series
    of the exponent's increment and of ``log x`` (no cancellation of large terms at a small base, as
    ``exp(p log x)`` has). Where ``x_0 = 0`` the second factor is ``1``: JAX's derivative in the exponent,
    ``x^p log x``, reads ``log 0`` as ``0`` (its ``_replace_zero``). That is the limit of each term of order
    ``k ≤ p_0``; at the orders ``k > p_0`` the first factor's coefficient is already ``±∞`` or NaN, as JAX's
    (``x^{p_0}`` is no polynomial when ``p_0`` varies)."""
    K = ctx.K
    x0, p0 = x[0], p[0]
    y0 = ctx.bind(x0, p0)
    constant = all(c is None for c in p[1:])
    base = [y0] + faa_di_bruno(x, _pow_derivatives(ctx, x0, p0, K, polynomial=constant), K)[1:]
    if constant:
        return base
    zero = x0 == 0
    safe = jnp.where(zero, 1.0, x0)
    away = jnp.where(zero, 0.0, 1.0).astype(jnp.result_type(y0))
    increment = [None] + [C.times(c, away) for c in p[1:]]
    log = log_series([safe] + list(x[1:]), jnp.log(safe), K)
    growth = exp_series(mul_series(increment, log, K, 0.0), 1.0, K)
    return [y0] + [tadd(base[k], cauchy(base, growth, k, hi=k - 1)) for k in range(1, K + 1)]
