"""Linear maps ``y = L x`` (shape and indexing ops, ``fft``, dtype conversion): ``y_k = L x_k``.

``L`` is the primitive itself with the equation's params, applied to each channel of a coefficient
(``vmap``-ed over stacked blocks, :func:`~..coef.linear`). Primitives linear in several operands
(``concatenate``, ``pad``, ``scatter``, …) apply it to the operands' coefficients jointly; their other operands
(indices, a padding value) must not depend on the input. Primitives with several results (``split``,
``unstack``) take the ``i``-th result of each channel.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import coef as C
from .table import const, register_rule, rule_for

# Linear maps that accept row-constant parts (size-1 axes stay size 1, or the output shape is explicit).
ROW_CONSTANT_SAFE = {"transpose", "squeeze", "expand_dims", "broadcast_in_dim", "copy", "copy_p",
                     "reduce_precision", "real", "imag", "conj"}


def linear_rule(linear_args=(0,)):
    """Jointly linear in the operands ``linear_args`` (``"all"``: every operand); the others must be constant."""

    def rule(ctx, *series):
        primals = [s[0] for s in series]
        y0 = ctx.bind(*primals)
        K = ctx.K
        lin = list(range(len(series))) if linear_args == "all" else [i for i in linear_args if i < len(series)]
        _check_constant(series, [i for i in range(len(series)) if i not in lin], ctx.eqn.primitive.name)
        if lin == [0]:
            rest = primals[1:]
            first = lambda a: ctx.apply(a, *rest)
            safe = ctx.eqn.primitive.name in ROW_CONSTANT_SAFE
            return [y0] + [C.linear(series[0][k], first, safe) for k in range(1, K + 1)]
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


# shapes, slicing and indexing, copies, complex parts, the Fourier transform ("expand_dims" and "copy_p":
# spellings of other JAX versions)
for _name in ("reshape", "broadcast_in_dim", "transpose", "squeeze", "expand_dims", "rev", "slice", "tile",
              "dynamic_slice", "gather", "copy", "copy_p", "reduce_precision", "real", "imag", "conj", "fft"):
    register_rule(_name, linear_rule((0,)))
register_rule("concatenate", linear_rule("all"))
register_rule("stack", linear_rule("all"))
register_rule("pad", linear_rule((0, 1)))  # operand and padding value
register_rule("dynamic_update_slice", linear_rule((0, 1)))  # operand and update
register_rule("complex", linear_rule((0, 1)))  # real and imaginary parts
for _name in ("scatter", "scatter-add", "scatter_add"):  # operand and updates (not the indices)
    register_rule(_name, linear_rule((0, 2)))


@rule_for("convert_element_type")
def _convert(ctx, x):
    y0 = ctx.bind(x[0])
    if not jnp.issubdtype(ctx.params["new_dtype"], jnp.inexact):
        return const(y0, ctx.K)
    return [y0] + [C.linear(c, ctx.apply, True) for c in x[1:]]


@rule_for("optimization_barrier")
def identity_rule(ctx, *series):
    """Identity on every operand, one result each (``optimization_barrier``)."""
    y0 = ctx.bind(*[s[0] for s in series])
    return [[y] + list(s[1:]) for y, s in zip(y0, series)]


@rule_for("split", "unstack")
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
