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

Several inputs. The plan reads mixed partials off directional derivatives (:mod:`.plan`), that is off the
symmetric part of each derivative tensor; nested ``jax.jacfwd`` gives the same whenever the rule's
derivatives are symmetric, as they are for any rule that is the derivative of some function.
"""
from __future__ import annotations

from typing import Sequence

import jax.numpy as jnp
from jax.interpreters import partial_eval as pe

from . import coef as C

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
