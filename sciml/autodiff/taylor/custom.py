"""``jax.custom_jvp`` functions: the user's derivative rule defines every derivative, as in JAX.

JAX's semantics. For ``y = f(x)`` with the rule ``(x, ẋ) ↦ (f(x), G(x, ẋ))`` the implementation of ``f`` gives the
value only; along a curve ``x(t)`` the first derivative is ``y'(t) = G(x(t), x'(t))``, and the higher ones
differentiate the rule (``jax.jacfwd`` nested ``K`` times differentiates ``G`` ``K - 1`` times). A
straight-through ``round`` (``G = ẋ``) has ``y = round(x_0) + (x(t) - x_0)``; a rule that agrees with its
implementation (``relu``, ``logaddexp``) gives that implementation's derivatives.

Taylor coefficients from the rule. ``G`` is linear in ``ẋ`` (JAX needs it to transpose the rule), so with
``x(t) = Σ_k x_k t^k`` and ``y(t) = Σ_k y_k t^k``

    t y'(t) = G(x(t), t x'(t)),      t x'(t) = Σ_{k≥1} k x_k t^k,      t y'(t) = Σ_{k≥1} k y_k t^k,

hence, for ``k = 1..K``,

    y_k = (1/k) [t^k] G(x(t), Σ_{j≥1} j x_j t^j):                                                    (1)

one Taylor propagation of the rule's jaxpr, with the series of ``x`` on its primal inputs and
``(0, x_1, 2 x_2, …, K x_K)`` on its tangent inputs, and ``y_0 = f(x_0)`` from the implementation. The tangent
series vanishes at ``t = 0`` and the values of the rule that depend on it are linear in it, so their
``t^k`` coefficient involves the values that depend on the primal inputs alone up to order ``k - 1`` only:
``[t^k] L(r(t), t s(t)) = [t^{k-1}] L(r(t), s(t))`` for ``L`` linear in its second argument. Those *primal-side*
values are therefore propagated to order ``K - 1`` (their series are one shorter, see
:func:`~.interpreter.eval_jaxpr`). That is what makes rules that call a ``custom_jvp`` function themselves
terminate: ``logaddexp``'s rule computes ``logaddexp(x_1, x_2)``, ``sinc``'s Maclaurin rule calls the next
Maclaurin term; each nesting drops an order, and at order 0 only the primal is evaluated.

Zero tangents (inputs without coefficients, e.g. the constant ``0`` of ``softplus = logaddexp(x, 0)``) enter
as symbolic zeros: values of the rule that are identically zero are not propagated (a product with a zero is
zero, a sum with a zero is the other operand; :data:`~.interpreter.ZERO_RULES`), and outputs the rule marks
as zero have zero coefficients.

Elementwise rules (activations: ``relu``, ``softplus``, a straight-through ``round``). When the rule acts
position by position on its one differentiated input (:func:`is_elementwise`), ``G(x, ẋ) = g(x) ẋ`` with
``g(x) = G(x, 1)``, so ``f`` has the derivatives ``f^{(m)}(x_0) = g^{(m-1)}(x_0)`` and

    y_k = Σ_{m=1}^k d_m [t^k] δ(t)^m,    d_m = f^{(m)}(x_0) / m! = g_{m-1} / m,    g_j = [t^j] g(x_0 + t)     (2)

(Faà di Bruno, as for ``exp`` or ``tanh`` in :mod:`.rules.elementwise`): the ``d_m`` are primal quantities shared
by every direction, from one propagation of ``G(x_0 + t, 1)`` along the single direction ``1`` to order
``K - 1``; only the powers of ``δ(t) = x(t) - x_0`` are carried per direction. (2) and (1) agree to rounding; (2)
costs about what the implementation's own rules cost.

Library rules. A few of JAX's own rules have a cheaper exact Taylor rule: ``logaddexp`` (``softplus``) would
cost one more exponential per value through (2) (its rule computes ``σ(δ)`` as ``exp(a - y)``);
:data:`LIBRARY_RULES` gives it Faà di Bruno with ``σ`` from the value's own ``e^{-|δ|}``
(:func:`~.rules.elementwise.logaddexp_rule`), exact where the implementation's derivative is not (at ``a = b``
the implementation's ``|δ|`` has no higher derivatives; the rule and nested ``jax.jacfwd`` have ``σ``'s).

Several inputs. The plan reads mixed partials off directional derivatives (:mod:`.plan`), that is off the
symmetric part of each derivative tensor; nested ``jax.jacfwd`` gives the same whenever the rule's
derivatives are symmetric, as they are for any rule that is the derivative of some function.
"""
from __future__ import annotations

import os
from collections.abc import Sequence

import jax
import jax.numpy as jnp
from jax.extend import core as jcore
from jax.interpreters import partial_eval as pe

from . import coef as C
from .rules.elementwise import logaddexp_rule

# JAX's custom_jvp rules, by (rule name, file under jax/_src), with a Taylor rule of their own (see the notes).
LIBRARY_RULES = {("_logaddexp_jvp", "lax/other.py"): logaddexp_rule}
_JAX_SRC = os.path.join(os.path.dirname(jax.__file__), "_src")


def library_rule(eqn):
    """The Taylor rule of a ``custom_jvp_call`` to one of JAX's functions in :data:`LIBRARY_RULES`, or ``None``."""
    p = eqn.params
    info = getattr(p.get("jvp_jaxpr_fun", p.get("jvp_jaxpr_thunk")), "debug_info", None)
    name, _, where = (getattr(info, "func_src_info", None) or "").partition(" at ")
    path = os.path.relpath(where.rpartition(":")[0], _JAX_SRC).replace(os.sep, "/") if where else ""
    return LIBRARY_RULES.get((name, path))


# Custom rules entered at one order, each from the tangent side of the one before (a rule whose tangent part
# calls its own function on the tangents would never drop an order): beyond this depth, nested jvp.
MAX_SAME_ORDER = 4


def tangent_rule(eqn, zero: Sequence[bool]):
    """The rule of a ``custom_jvp_call`` equation reduced to its tangent outputs.

    ``zero[i]``: the ``i``-th (non-const) input has no coefficients. Returns ``(jaxpr, consts, out_zero, takes)``:
    the jaxpr takes the primal inputs, then the tangents of the inputs listed in ``takes`` (all of them unless
    the function was defined with ``symbolic_zeros=True``) and returns the tangents of the outputs whose
    ``out_zero`` is false.
    """
    p = eqn.params
    thunk = p.get("jvp_jaxpr_fun", p.get("jvp_jaxpr_thunk"))
    flags = tuple(bool(z) for z in zero) if p.get("symbolic_zeros") else (False,) * len(zero)
    jaxpr, consts, out_zero = thunk.call_wrapped(*flags)
    n = len(out_zero)
    used = [False] * n + [True] * (len(jaxpr.outvars) - n)
    jaxpr, _ = pe.dce_jaxpr(jaxpr, used, instantiate=True)
    return jaxpr, consts, list(out_zero), [i for i, f in enumerate(flags) if not f]


def tangent_series(s: list, K: int) -> list:
    """``(0, x_1, 2 x_2, …, K x_K)``: the series of ``t x'(t)`` for ``x`` of series ``s``, eq. (1)."""
    return [jnp.zeros_like(s[0])] + [C.scale(s[k], float(k)) for k in range(1, K + 1)]


def output_series(y0s: Sequence, out_zero: Sequence[bool], tangents: Sequence, K: int) -> list[list]:
    """``[y_0, y_1, …, y_K]`` per output: ``y_k = T_k / k`` from the series ``T`` of the rule's tangent output."""
    out, it = [], iter(tangents)
    for y0, z in zip(y0s, out_zero):
        t = None if z else next(it)
        if t is None:
            out.append([y0] + [None] * K)
        else:
            out.append([y0] + [C.scale(t[k], 1.0 / k) for k in range(1, K + 1)])
    return out


# Primitives that act position by position.
ELEMENTWISE = frozenset("""
    add add_any sub mul div neg max min abs sign pow integer_pow square sqrt rsqrt cbrt exp exp2 expm1 log log1p
    tanh logistic sin cos tan asin acos atan atan2 sinh cosh asinh acosh atanh erf erfc erf_inv lgamma digamma
    floor ceil round rem nextafter select_n clamp convert_element_type is_finite eq ne lt le gt ge and or not xor
    stop_gradient copy copy_p reduce_precision real imag conj
""".split())  # noqa: SIM905 (a table of words reads best as words)


def _call_jaxpr(eqn):
    p = eqn.params
    j = p.get("jaxpr", p.get("call_jaxpr", p.get("fun_jaxpr")))
    return getattr(j, "jaxpr", j)


def is_elementwise(jaxpr, dependent: Sequence[bool] | None = None) -> bool:
    """Whether every value of ``jaxpr`` that depends on its ``dependent`` inputs (default: all) is computed
    position by position: by :data:`ELEMENTWISE` primitives on operands of the output's shape or scalars, or
    by calls (``jit``, nested ``custom_jvp``/``custom_vjp`` functions, ``checkpoint``) of such jaxprs. Values that
    depend on no input (broadcast constants) may be anything."""
    dep = set(v for v, d in zip(jaxpr.invars, dependent or [True] * len(jaxpr.invars)) if d)
    for eqn in jaxpr.eqns:
        flags = [not isinstance(v, jcore.Literal) and v in dep for v in eqn.invars]
        if not any(flags):
            continue
        name = eqn.primitive.name
        if name in ELEMENTWISE:
            shape = eqn.outvars[0].aval.shape
            if any(f and v.aval.shape != shape for v, f in zip(eqn.invars, flags)):
                return False
        else:
            sub = _call_jaxpr(eqn)
            if not hasattr(sub, "eqns"):
                return False
            n = len(eqn.invars) - len(sub.invars)  # leading operands that are not the sub-jaxpr's (none here)
            if n or not is_elementwise(sub, flags):
                return False
        dep.update(eqn.outvars)
    return True
