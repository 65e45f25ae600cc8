"""Sparse input directions: STDE's ``√d e_i`` jets carried as (index, value) until they meet a dense operation.

A sparse random jet (``distribution="sparse"`` of :mod:`.stochastic`) moves one coordinate of ``x``: the order-1
coefficient of the input is zero except at ``i``. Carried as a dense ``(…, d)`` array, the first layer of an MLP
multiplies it by ``W`` (``d × w``) like any tangent: ``S`` directions cost ``S`` times the primal's ``O(N d w)``
there, which is the whole step in high dimension (d = 10⁴: 90 % of it). As a :class:`OneHot` part (the index and
the value at it) the same product is a row of ``W``, ``value · W[i]``: ``O(w)`` per direction, so the first
layer costs what the primal costs, whatever ``S`` (Shi et al. 2024, sec. 4.3).

The interpreter asks :func:`prepare` before each equation whose operands carry such parts:

- an equation in :data:`LINEAR` with a single operand carrying coefficients (``dot_general`` by a matrix
  contracting the input's last axis, ``mul``/``div`` by a primal, ``neg``, ``slice``, ``squeeze``,
  ``reduce_sum``, ``convert_element_type``) maps each sparse part by its table entry, which gives a sparse or a
  dense part; the dense parts go through the ordinary rule;
- ``mul`` of two series whose only coefficients are sparse order-1 parts along the same index (``x * x``) is
  propagated exactly (:func:`_square`): ``y₁ = a₀ b₁ + a₁ b₀``, ``y₂ = a₁ b₁`` stay sparse;
- call-like equations (``jit``, ``checkpoint``) pass the parts on to their body;
- anything else gets its sparse parts materialised (:meth:`OneHot.dense`): correct, and what the dense
  directions cost.

Folding sparse parts into a top channel (collapse, :meth:`OneHot.fold_into`) scatters them into a dense array of the
coefficient's shape: ``O(N d)`` once instead of ``O(S N d)``. Entries without a table rule return ``None``
and the parts are materialised, so a table entry is an optimisation that can never change a value; every entry
is tested against the dense propagation (``tests/autodiff/taylor/test_sparse.py``).
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from . import coef as C
from .coef import Coef


class OneHot:
    """A part that is zero except at one index of its last axis: ``dense[..., index[...]] = value[...]``.

    ``index`` (ints) and ``value`` have the part's shape without its last axis; ``shape`` is the dense part's
    (with a leading direction axis for a stacked block, as every part of it).
    """

    __slots__ = ("index", "value", "shape", "dtype")

    def __init__(self, index, value, shape, dtype):
        self.index, self.value, self.shape, self.dtype = index, value, tuple(shape), jnp.dtype(dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def dense(self):
        return jax.nn.one_hot(self.index, self.shape[-1], dtype=self.dtype) * self.value[..., None]

    def with_value(self, value, dtype=None) -> OneHot:
        return OneHot(self.index, value, self.shape, self.dtype if dtype is None else dtype)

    def __getitem__(self, row: int) -> OneHot:  # one direction of a stacked block
        return OneHot(self.index[row], self.value[row], self.shape[1:], self.dtype)

    def gather(self, p, lead: int = 0):
        """``p`` (broadcastable to the unstacked part's shape ``shape[lead:]``) read at the index: ``value``'s
        shape."""
        p = jnp.broadcast_to(jnp.asarray(p, self.dtype), self.shape[lead:])
        if lead:
            p = jnp.broadcast_to(p[None], self.shape)
        return jnp.take_along_axis(p, self.index[..., None], axis=-1)[..., 0]

    def fold_into(self, acc, w: float):
        """``acc + w · part`` as a dense array (``acc`` None is zero): one scatter of the values, ``O(size)``
        whatever the number of directions folded (the collapse of :func:`.coef.normalize`)."""
        acc = jnp.zeros(self.shape, self.dtype) if acc is None else jnp.broadcast_to(acc, self.shape)
        flat = acc.reshape(-1, self.shape[-1])
        rows = jnp.arange(flat.shape[0])
        val = self.value if w == 1 else self.value * jnp.asarray(w, self.dtype)
        return flat.at[rows, self.index.reshape(-1)].add(val.reshape(-1)).reshape(self.shape)


class Direction:
    """A sparse input direction for :func:`.engine.run_plan`: ``scale · e_{index}`` at every point,
    ``index`` of the points' shape ``x.shape[:-1]``."""

    __slots__ = ("index", "scale")

    def __init__(self, index, scale: float):
        self.index, self.scale = index, scale

    def part(self, x) -> OneHot:
        value = jnp.full(self.index.shape, self.scale, x.dtype)
        return OneHot(self.index, value, x.shape, x.dtype)


def stack(parts: list[OneHot]) -> OneHot:
    """Directions of one stacked block, on a leading axis."""
    p = parts[0]
    return OneHot(jnp.stack([q.index for q in parts]), jnp.stack([q.value for q in parts]),
                  (len(parts),) + p.shape, p.dtype)


def is_sparse(a) -> bool:
    return isinstance(a, OneHot)


def _any(s) -> bool:
    return s is not None and any(c is not None and any(map(is_sparse, c.parts.values())) for c in s[1:])


def present(ins) -> bool:
    """Whether any operand series carries a sparse part."""
    return any(_any(s) for s in ins)


def dense_coef(c: Coef | None) -> Coef | None:
    if c is None or not any(map(is_sparse, c.parts.values())):
        return c
    parts = {key: a.dense() if is_sparse(a) else a for key, a in c.parts.items()}
    return Coef(c.lay, c.k, parts, c.shape, c.dtype)


def dense(s):
    """A series with its sparse parts materialised."""
    return s if not _any(s) else [s[0]] + [dense_coef(c) for c in s[1:]]


# ---------------------------------------------------------------------------------------------------------
# Linear maps of one sparse part: (eqn, part, operand index, primals, lead) -> OneHot | array | None.
# ``lead`` is 1 for a stacked block's part (its leading direction axis), 0 otherwise; None: not handled.
# ---------------------------------------------------------------------------------------------------------

def _dot_general(eqn, a: OneHot, j, primals, lead):
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    w = primals[1]
    nd = a.ndim - lead
    if j != 0 or lb or rb or tuple(lc) != (nd - 1,) or np.ndim(w) != 2:
        return None
    rows = w if tuple(rc) == (0,) else w.T  # (d, width): the rows W[i]
    out = a.value[..., None] * jnp.take(rows, a.index, axis=0)
    dtype = eqn.outvars[0].aval.dtype
    return out.astype(dtype)


def _scaled(op: Callable):
    def rule(eqn, a: OneHot, j, primals, lead):
        if j != 0 and op is not _times:
            return None  # c / x is not linear in x
        other = primals[1 - j]
        out = eqn.outvars[0].aval
        if tuple(out.shape) != a.shape[lead:]:  # broadcasting x itself: not an index map
            return None
        return a.with_value(op(a.value, a.gather(other, lead)), out.dtype)

    return rule


def _times(v, p):
    return v * p


def _neg(eqn, a: OneHot, j, primals, lead):
    return a.with_value(-a.value)


def _convert(eqn, a: OneHot, j, primals, lead):
    dtype = eqn.params["new_dtype"]
    return a.with_value(a.value.astype(dtype), dtype)


def _reduce_sum(eqn, a: OneHot, j, primals, lead):
    axes = tuple(int(ax) + lead for ax in eqn.params["axes"])
    last = a.ndim - 1
    if last not in axes:
        return None
    rest = tuple(ax for ax in axes if ax != last)
    return jnp.sum(a.value, axis=rest) if rest else a.value


def _slice(eqn, a: OneHot, j, primals, lead):
    p = eqn.params
    if p["strides"] is not None and any(s != 1 for s in p["strides"]):
        return None
    start, limit = (lead * (0,) + tuple(p["start_indices"]), (a.shape[0],) * lead + tuple(p["limit_indices"]))
    lo, hi = start[-1], limit[-1]
    sl = tuple(slice(s, e) for s, e in zip(start[:-1], limit[:-1]))
    index, value = a.index[sl], a.value[sl]
    inside = (index >= lo) & (index < hi)
    shape = tuple(e - s for s, e in zip(start, limit))
    return OneHot(jnp.clip(index - lo, 0, hi - lo - 1), jnp.where(inside, value, 0), shape, a.dtype)


def _squeeze(eqn, a: OneHot, j, primals, lead):
    dims = tuple(int(ax) + lead for ax in eqn.params["dimensions"])
    last = a.ndim - 1
    rest = tuple(ax for ax in dims if ax != last)
    value, index = jnp.squeeze(a.value, rest), jnp.squeeze(a.index, rest)
    if last in dims:  # a size-1 last axis: the value is the whole part
        return value
    shape = tuple(n for ax, n in enumerate(a.shape) if ax not in dims)
    return OneHot(index, value, shape, a.dtype)


# primitive -> map of one sparse part (module notes)
LINEAR: dict[str, Callable] = {
    "dot_general": _dot_general,
    "mul": _scaled(_times),
    "div": _scaled(lambda v, p: v / p),
    "neg": _neg,
    "convert_element_type": _convert,
    "reduce_sum": _reduce_sum,
    "slice": _slice,
    "squeeze": _squeeze,
}


def _split(c: Coef | None):
    """``(dense parts as a Coef or None, {key: sparse part})``."""
    if c is None:
        return None, {}
    sparse = {key: a for key, a in c.parts.items() if is_sparse(a)}
    rest = {key: a for key, a in c.parts.items() if not is_sparse(a)}
    return C.make(c.lay, c.k, rest, c.shape, c.dtype), sparse


def _linear(eqn, ins, j, lay):
    """``(ins with operand j's sparse parts removed, {order: {key: mapped part}})``, or None if one fails."""
    primals = [s[0] for s in ins]
    stripped: list = [ins[j][0]]
    extra: dict = {}
    for k, c in enumerate(ins[j][1:], start=1):
        rest, sparse = _split(c)
        stripped.append(rest)
        for key, a in sparse.items():
            out = LINEAR[eqn.primitive.name](eqn, a, j, primals, int(C._stacked(lay, key)))
            if out is None:
                return None
            extra.setdefault(k, {})[key] = out
    return [*ins[:j], stripped, *ins[j + 1:]], extra


def _square(eqn, ins, K: int, lay):
    """``mul`` of two series ``[a₀, a₁]``, ``[b₀, b₁]`` with sparse order-1 parts on the same indices."""
    (a0, *ac), (b0, *bc) = ins
    if lay.pairs or any(c is not None for c in ac[1:] + bc[1:]) or ac[0] is None or bc[0] is None:
        return None
    pa, pb = ac[0].parts, bc[0].parts
    if set(pa) != set(pb) or not all(is_sparse(pa[k]) and is_sparse(pb[k]) and pa[k].index is pb[k].index
                                     and pa[k].shape == pb[k].shape for k in pa):
        return None
    out = eqn.outvars[0].aval
    if tuple(out.shape) != ac[0].shape:
        return None
    one, two = {}, {}
    for key, p in pa.items():
        q, lead = pb[key], int(C._stacked(lay, key))
        one[key] = p.with_value(p.gather(b0, lead) * q.value + p.value * q.gather(a0, lead))
        if K >= 2 and lay.depth[key] >= 2:
            two[key] = p.with_value(p.value * q.value)
    series = [a0 * b0, C.make(lay, 1, one, out.shape, out.dtype)]
    if K >= 2:
        series.append(C.make(lay, 2, two, out.shape, out.dtype))
    return [series + [None] * (K + 1 - len(series))]


def prepare(eqn, ins, K: int, lay):
    """Before an equation whose operands carry sparse parts (module notes): ``(outputs, ins, extra)``, the
    outputs when this module propagated the equation itself (else None), the operands for the ordinary rule,
    and ``extra`` (``{order: {key: part}}`` or None), the mapped sparse parts that join its output."""
    name = eqn.primitive.name
    active = [j for j, s in enumerate(ins) if s is not None and any(c is not None for c in s[1:])]
    if name == "mul" and len(active) == 2:
        outs = _square(eqn, ins, K, lay)
        if outs is not None:
            return outs, ins, None
    if name in LINEAR and len(active) == 1 and not eqn.primitive.multiple_results:
        res = _linear(eqn, ins, active[0], lay)
        if res is not None:
            return None, *res
    return None, [dense(s) for s in ins], None


def merge(out, extra: dict | None, lay, aval) -> list:
    """The ordinary rule's output series with the mapped sparse parts added (disjoint blocks)."""
    if not extra:
        return out
    out = list(out) + [None] * max(0, max(extra) + 1 - len(out))
    for k, parts in extra.items():
        c = out[k]
        merged = dict(c.parts) if c is not None else {}
        merged.update(parts)
        out[k] = Coef(lay, k, merged, tuple(aval.shape), aval.dtype)
    return out
