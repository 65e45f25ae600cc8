"""The Taylor-mode transformation: interpret a jaxpr equation by equation, pushing truncated Taylor series.

Every variable of the jaxpr carries its series ``[x_0, x_1, …, x_K]``: the primal ``x_0`` (an ordinary JAX
array, shared by all directions) and coefficients ``x_k`` (:class:`~.coef.Coef`, or ``None`` when known to be
zero: constants and parameters cost nothing). For each equation

- if no operand depends on the input, only the primal is evaluated;
- call-like primitives (``jit``, ``custom_vjp_call``, ``checkpoint``, ``closed_call``) are entered
  recursively (a ``custom_vjp`` function has no forward-mode derivative in JAX: its implementation is used);
- ``custom_jvp_call``: the user's rule defines the derivatives, as in JAX; its jaxpr is propagated
  (:mod:`.custom`);
- otherwise the primitive's rule from :data:`~.rules.RULES` is applied;
- a primitive without a rule falls back to nested ``jax.jvp`` on that equation alone (correct, slower; a
  warning names the primitive once): along each direction ``h(t) = g(x(t))`` is differentiated ``D`` times
  in the scalar ``t``, and the top channels use ``T(y) = J(x_0) T(x) + Σ_v W_v N_v``.

Orders. A series carries its coefficients up to its own order, ``len(s) - 1``; an equation is propagated to
the highest order among its operands that have coefficients, and orders beyond a shorter operand's read as
zero. At the top level every series has the order ``K`` of the layout; only a ``custom_jvp`` rule makes
shorter ones, for values whose higher orders are provably not needed (:mod:`.custom`). ``None`` in place of a
series is a value known to be identically zero (a zero tangent inside such a rule): :data:`ZERO_RULES` carry
it through the equations that keep it zero, other equations get an array of zeros.

All operations are ordinary JAX operations, so the result composes with ``jit``, ``vmap``, ``grad`` and
sharding. :func:`jet` exposes the transformation for one direction with the calling convention of
``jax.experimental.jet``.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend import core as jcore

from . import coef as C
from . import custom, sparse
from .coef import Coef, Layout
from .rules import RULES, Ctx
from .series import faa_di_bruno

_WARNED: set[str] = set()


def _is_literal(v) -> bool:
    return isinstance(v, jcore.Literal)


def _inexact(aval) -> bool:
    return jnp.issubdtype(aval.dtype, jnp.inexact)


def bind_eqn(eqn, primals):
    """Evaluate one equation on primal values (any primitive, higher-order ones included)."""
    params = eqn.primitive.get_bind_params(eqn.params)
    out = eqn.primitive.bind(*primals, **params)
    return list(out) if eqn.primitive.multiple_results else [out]


def _sub_jaxpr(eqn):
    """``(jaxpr, consts)`` to recurse into for call-like primitives, else ``None``."""
    name = eqn.primitive.name
    p = eqn.params
    if name in ("jit", "pjit"):
        j = p["jaxpr"]
    elif name in ("custom_vjp_call", "custom_vjp_call_jaxpr", "closed_call", "core_call"):
        j = p.get("call_jaxpr", p.get("fun_jaxpr"))
    elif name in ("remat2", "checkpoint", "remat", "composite"):
        j = p["jaxpr"]
    else:
        return None
    if j is None:
        return None
    if isinstance(j, jcore.ClosedJaxpr):
        return j.jaxpr, j.consts
    return j, ()


def _pad(s, K: int):
    """Series ``s`` as ``K + 1`` terms (missing orders are zero; ``None``, a zero value, stays ``None``)."""
    if s is None or len(s) == K + 1:
        return s
    return s[:K + 1] + [None] * (K + 1 - len(s))


def _order(s) -> int:
    """The order to which ``s`` carries coefficients, 0 for a constant (or zero) value."""
    return 0 if s is None or all(c is None for c in s[1:]) else len(s) - 1


def _zero_if_any(eqn, zero):
    return [None]


def _zero_if_first(eqn, zero):
    return [None] if zero[0] else None


def _sum(eqn, zero):  # a + 0 = a, 0 + b = b (same shapes: lax operands), a - 0 = a
    if all(zero):
        return [None]
    other = 0 if zero[1] else 1
    if eqn.primitive.name == "sub" and other == 1:
        return None
    return "alias", other


def _select(eqn, zero):
    return [None] if all(zero[1:]) else None


# primitive -> (eqn, which operands are zero) -> [None] (the output is zero), ("alias", i) (it is operand i),
# or None (no shortcut: zeros are materialised).
ZERO_RULES = {
    **{name: _zero_if_any for name in ("mul", "dot_general", "conv_general_dilated")},
    **{name: _zero_if_first for name in (
        "neg", "convert_element_type", "broadcast_in_dim", "reshape", "transpose", "squeeze", "expand_dims",
        "reduce_sum", "copy", "copy_p", "slice", "dynamic_slice", "gather", "rev", "real", "imag", "conj",
        "cumsum", "div", "reduce_precision")},
    **{name: _sum for name in ("add", "add_any", "sub")},
    "select_n": _select,
}


def _through_zeros(eqn, ins):
    """Outputs of an equation with zero (``None``) operands, or the operands with the zeros materialised."""
    zero = [s is None for s in ins]
    rule = ZERO_RULES.get(eqn.primitive.name)
    out = None if rule is None or eqn.primitive.multiple_results else rule(eqn, zero)
    if out is not None and out[0] == "alias":
        src, dst = eqn.invars[out[1]].aval, eqn.outvars[0].aval
        out = [ins[out[1]]] if (src.shape, src.dtype) == (dst.shape, dst.dtype) else None
    if out is not None:
        return out, ins
    return None, [[jnp.zeros(v.aval.shape, v.aval.dtype)] if s is None else s for v, s in zip(eqn.invars, ins)]


def eval_jaxpr(jaxpr, consts: Sequence, lay: Layout, args: Sequence[list | None],
               nesting: tuple = (0, 0)) -> list[list]:
    """Propagate series through ``jaxpr``; ``args`` and the result are lists of series ``[x_0, …, x_k]`` (an
    argument may be ``None``, a zero; see the module notes on orders and zeros). The results have the highest
    order among ``args``. ``nesting``: ``(order, depth)`` of the ``custom_jvp`` rules being propagated
    (:func:`custom_jvp_series`)."""
    env: dict = {}

    def read(v):
        if _is_literal(v):
            return [v.val]
        return env[v]

    def write(v, s):
        if not isinstance(v, jcore.DropVar):
            env[v] = s

    for v, c in zip(jaxpr.constvars, consts):
        write(v, [c])
    for v, s in zip(jaxpr.invars, args):
        write(v, s)

    for eqn in jaxpr.eqns:
        ins = [read(v) for v in eqn.invars]
        if any(s is None for s in ins):
            zeros, ins = _through_zeros(eqn, ins)
            if zeros is not None:
                for v, s in zip(eqn.outvars, zeros):
                    write(v, s)
                continue
        K = max((_order(s) for s in ins), default=0)  # an equation without operands (iota) is a constant
        outs_float = [_inexact(v.aval) for v in eqn.outvars]
        if K == 0 or not any(outs_float):
            ys = bind_eqn(eqn, [s[0] for s in ins])
            for v, y in zip(eqn.outvars, ys):
                write(v, [y])
            continue
        ins = [_pad(s, K) for s in ins]
        sub = _sub_jaxpr(eqn)
        outs, extra = None, None
        if sub is None and sparse.present(ins):  # sparse input directions (:mod:`.sparse`)
            outs, ins, extra = sparse.prepare(eqn, ins, K, lay)
        if outs is None:
            outs = _propagate(eqn, sub, lay, ins, K, nesting)
        if extra:
            outs = [sparse.merge(outs[0], extra, lay, eqn.outvars[0].aval)]
        for v, s, fl in zip(eqn.outvars, outs, outs_float):
            if s is None:  # a zero from a sub-jaxpr
                pass
            elif not fl:
                s = [s[0]]
            else:
                s = [s[0]] + [C.normalize(c) for c in _pad(s, K)[1:]]
            write(v, s)
    K = max((len(s) - 1 for s in args if s is not None), default=0)
    return [_pad(read(v), K) for v in jaxpr.outvars]


def _propagate(eqn, sub, lay: Layout, ins: list[list], K: int, nesting: tuple) -> Sequence[list | None]:
    """The output series of one equation: its ``custom_jvp`` rule, its body, its Taylor rule or the fallback."""
    if eqn.primitive.name == "custom_jvp_call":
        return custom_jvp_series(eqn, lay, ins, K, nesting)
    if sub is not None:
        return eval_jaxpr(sub[0], sub[1], lay, ins, nesting)
    rule = RULES.get(eqn.primitive.name)
    if rule is not None:
        try:
            res = rule(Ctx(K, eqn, lay), *ins)
            return res if eqn.primitive.multiple_results else [res]
        except NotImplementedError:
            pass
    return fallback(eqn, lay, ins, K)


def custom_jvp_series(eqn, lay: Layout, ins: list[list], K: int, nesting: tuple) -> list[list]:
    """The series of a ``custom_jvp`` function from its rule, eq. (1) of :mod:`.custom`: the rule's jaxpr
    propagated with the primal inputs to order ``K - 1`` and the tangent series ``(0, x_1, 2 x_2, …)``.
    Nested jvp (also JAX's semantics) when a closed-over value has coefficients (JAX refuses to differentiate
    those) or rules keep calling rules at one order."""
    order, depth = nesting
    depth = depth + 1 if order == K else 1
    n = eqn.params["num_consts"]
    if depth > custom.MAX_SAME_ORDER or any(_order(s) for s in ins[:n]):
        return fallback(eqn, lay, ins, K)
    args = ins[n:]
    library = custom.library_rule(eqn)
    if library is not None:
        return [library(Ctx(K, eqn, lay), *args)]
    zero = [_order(s) == 0 for s in args]
    jaxpr, consts, out_zero, takes = custom.tangent_rule(eqn, zero)
    y0s = bind_eqn(eqn, [s[0] for s in ins])
    live = [i for i, z in enumerate(zero) if not z]
    if len(live) == 1 and len(y0s) == 1 and not out_zero[0] and live[0] in takes:
        (i,) = live
        same = np.shape(args[i][0]) == np.shape(y0s[0]) and _inexact(eqn.outvars[0].aval)
        if same and custom.is_elementwise(jaxpr, [j == i for j in range(len(args))] + [k == i for k in takes]):
            return [_elementwise_series(jaxpr, consts, args, i, takes, y0s[0], K, (K, depth))]
    primals: list[list | None] = [s[:K] for s in args]
    tangents = [None if zero[i] else custom.tangent_series(args[i], K) for i in takes]
    touts = eval_jaxpr(jaxpr, consts, lay, primals + tangents, (K, depth))
    return custom.output_series(y0s, out_zero, touts, K)


def _elementwise_series(jaxpr, consts, args, i, takes, y0, K: int, nesting: tuple) -> list:
    """Eq. (2) of :mod:`.custom`: Faà di Bruno with ``d_m = g_{m-1} / m`` from ``g(x_0 + t) = G(x_0 + t, 1)``
    propagated along the single direction ``1`` to order ``K - 1``."""
    x0 = args[i][0]
    one = jnp.ones_like(x0)
    lay1 = single_direction_layout(K - 1)
    curve = _pad([x0] + ([Coef(lay1, 1, {0: one}, x0.shape, x0.dtype)] if K > 1 else []), K - 1)
    primals = [curve if j == i else [s[0]] for j, s in enumerate(args)]
    tangents = [[one] if j == i else None for j in takes]
    (g,) = eval_jaxpr(jaxpr, consts, lay1, primals + tangents, nesting)
    g = _pad(g, K - 1)
    ds = [None] + [g[0]] + [None if C.part(g[j], 0, 0) is None else C.part(g[j], 0, 0) * (1.0 / (j + 1))
                            for j in range(1, K)]
    return [y0] + faa_di_bruno(args[i], ds, K)[1:]


# ---------------------------------------------------------------------------------------------------------
# Fallback: nested jvp on one equation
# ---------------------------------------------------------------------------------------------------------

def _warn_once(name: str) -> None:
    if name not in _WARNED:
        _WARNED.add(name)
        warnings.warn(f"sciml.autodiff.taylor: no Taylor rule for primitive {name!r}; falling back to nested "
                      f"jax.jvp for it (correct but slower)", stacklevel=3)


def taylor_coefficients(h: Callable, t0, order: int) -> list:
    """Normalised Taylor coefficients ``[h(t0), h'(t0), h''(t0)/2, …]`` of ``h: scalar -> list of arrays``.

    ``F_n(t) = F_{n-1}(t) + [d^n h/dt^n]`` is built by one ``jvp`` of ``F_{n-1}``, so all orders come out of one
    nest of ``order`` jvps.
    """
    fun = lambda t: [h(t)]
    for _ in range(order):
        fun = (lambda inner: lambda t: (lambda pt: pt[0] + [pt[1][-1]])(
            jax.jvp(inner, (t,), (jnp.ones_like(t),))))(fun)
    derivs = fun(t0)
    return [[d / math.factorial(n) for d in ds] for n, ds in enumerate(derivs)]


def fallback(eqn, lay: Layout, ins: list[list], K: int | None = None) -> list[list]:
    """Series of one equation by nested ``jvp``: per direction block along its own input curve (coefficients
    folded into channels read as zero), plus ``J(x_0) T(x)`` for every channel ``T`` and, for pairings,
    ``g''(x_0)[a_1[b_j], S_j(x)]`` (see :mod:`.coef`)."""
    _warn_once(eqn.primitive.name)
    K = lay.K if K is None else K
    primals = [s[0] for s in ins]
    ys0 = bind_eqn(eqn, primals)
    diff = [i for i, s in enumerate(ins) if any(c is not None for c in s[1:])]
    out_avals = [v.aval for v in eqn.outvars]
    n_out = len(out_avals)
    float_out = [_inexact(a) for a in out_avals]
    float_idx = [j for j in range(n_out) if float_out[j]]
    dtype = jnp.result_type(*[primals[i] for i in diff])
    parts: list[list[dict]] = [[{} for _ in range(K + 1)] for _ in range(n_out)]  # per output and order

    def g(*dargs):
        args = list(primals)
        for i, a in zip(diff, dargs):
            args[i] = a
        outs = bind_eqn(eqn, args)
        return [o for o, fl in zip(outs, float_out) if fl]

    def zeros_for(i, rows=None):
        shape = np.shape(primals[i])
        return jnp.zeros(((rows,) if rows else ()) + shape, jnp.result_type(primals[i]))

    def add_to(j, k, key, val):
        cur = parts[j][k].get(key)
        parts[j][k][key] = val if cur is None else cur + val

    blocks: list = []
    tops: list = []
    for i in diff:
        for c in ins[i][1:]:
            if c is not None:
                blocks.extend(c.blocks(1))
                tops.extend(key for key in c.parts if not isinstance(key, int))
    blocks = list(dict.fromkeys(blocks))
    tops = list(dict.fromkeys(tops))

    for b in blocks:
        D = min(lay.depth[b], K)
        rows = lay.rows[b] if lay.stacked[b] else None

        def coeff(i, k, b=b, rows=rows):
            c = ins[i][k]
            a = None if c is None else c.get(b)
            if a is None:
                return zeros_for(i, rows)
            return jnp.broadcast_to(a, ((rows,) if rows else ()) + tuple(np.shape(primals[i])))

        curve = [[coeff(i, k) for k in range(1, D + 1)] for i in diff]

        def series_along(curve_b, D=D):
            def h(t):
                xs = [primals[i] + sum(c * t ** (k + 1) for k, c in enumerate(cs)) for i, cs in zip(diff, curve_b)]
                return g(*xs)

            return taylor_coefficients(h, jnp.zeros((), dtype), D)

        res = jax.vmap(series_along)(curve) if rows else series_along(curve)
        for k in range(1, D + 1):
            if k == 1 and b in lay.derived:  # order-1 parts of derived blocks are formed from the basis
                continue
            for j, o in zip(float_idx, res[k]):
                add_to(j, k, b, o)
    for key in tops:  # channels are linear in the inputs' channel of the same order
        for k in range(1, K + 1):
            tans, present = [], False
            for i in diff:
                c = ins[i][k]
                a = None if c is None else c.parts.get(key)
                present = present or a is not None
                tans.append(zeros_for(i) if a is None else jnp.broadcast_to(a, np.shape(primals[i])))
            if present:
                _, touts = jax.jvp(g, [primals[i] for i in diff], tans)
                for j, o in zip(float_idx, touts):
                    add_to(j, k, key, o)
    for k, pairs in lay.pairs.items():  # Σ_j g''[a_1[b_j], S_j]
        if k > K:
            continue
        for r, spec in pairs:
            for basis, sidx in spec:
                a1, sk, present = [], [], False
                for i in diff:
                    c1, ck = ins[i][1], ins[i][k - 1]
                    p = None if c1 is None else c1.get(basis)
                    q = None if ck is None else ck.parts.get(("t", sidx))
                    present = present or (p is not None and q is not None)
                    a1.append(zeros_for(i) if p is None else jnp.broadcast_to(p, np.shape(primals[i])))
                    sk.append(zeros_for(i) if q is None else jnp.broadcast_to(q, np.shape(primals[i])))
                if not present:
                    continue
                inner = lambda *xs, a1=a1: jax.jvp(g, list(xs), a1)[1]
                _, second = jax.jvp(inner, [primals[i] for i in diff], sk)
                for j, o in zip(float_idx, second):
                    add_to(j, k, ("t", r), o)
    out = []
    for j in range(n_out):
        y0 = ys0[j]
        s = [y0]
        for k in range(1, K + 1):
            s.append(C.make(lay, k, parts[j][k], np.shape(y0), jnp.result_type(y0)) if float_out[j] else None)
        out.append(s)
    return out


# ---------------------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------------------

def single_direction_layout(K: int) -> Layout:
    return Layout(K=K, depth=(K,), rows=(1,), stacked=(False,))


def jet(fun: Callable, primals: Sequence, series: Sequence[Sequence]):
    """Taylor-propagate ``fun`` along one curve, with the convention of ``jax.experimental.jet``.

    ``series[i][k-1]`` is the ``k``-th derivative of the ``i``-th input curve at ``t = 0``; returns
    ``(fun(primals), [d^k fun(x(t))/dt^k at 0 for k = 1..K])`` for a single-array output. Inputs whose
    series is ``None`` (or a list of ``None``) are constants.
    """
    K = max(len(s) for s in series if s is not None)
    lay = single_direction_layout(K)
    closed = jax.make_jaxpr(fun)(*primals)
    args = []
    for p, s in zip(primals, series):
        p = jnp.asarray(p)
        cs: list[Coef | None] = [None] * K
        if s is not None:
            for k, a in enumerate(s, start=1):
                if a is not None:
                    cs[k - 1] = Coef(lay, k, {0: jnp.asarray(a, p.dtype) / math.factorial(k)}, p.shape, p.dtype)
        args.append([p] + cs)
    (out,) = eval_jaxpr(closed.jaxpr, closed.consts, lay, args)
    y0 = out[0]
    coeffs = []
    for k in range(1, K + 1):
        a = C.part(out[k], 0, 0)
        coeffs.append(jnp.zeros_like(y0) if a is None else a * math.factorial(k))
    return y0, coeffs
