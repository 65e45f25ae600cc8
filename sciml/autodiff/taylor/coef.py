"""Taylor coefficients of one order, carried for many directions at once (the *channels*).

Notation. A direction ``v`` defines the input curve ``x(t) = x0 + v t`` and the output curve
``y(t) = f(x(t)) = Σ_k y_k t^k``; the (normalised) Taylor coefficient is ``y_k = D^k f(x0)[v,…,v] / k!``.
All directions share the primal ``y_0``, so it is carried once, as a plain array. The coefficient of order
``k ≥ 1`` of one variable is a :class:`Coef`: a dict of *parts*, one per channel.

Channels. Each direction has a *depth* ``D_v``: the highest order anyone reads from it. Its coefficients
of order ``k ≤ D_v`` are carried; beyond ``D_v`` they are never computed. At ``k = D_v`` the coefficient is
only read through fixed linear functionals (the requested operators), and it depends *linearly* on the
inputs' coefficients of the same order (every propagation rule has the form
``y_k = J(x_0) x_k + N(x_1, …, x_{k-1})``). So instead of one channel per direction we may carry the
weighted sums ``T_r = Σ_v W[r, v] y_{D_v}[v]`` as *top channels*: *collapsed Taylor mode*
(Dangel, Siebert, Zeinhofer & Walther 2025; the forward Laplacian of Li et al. 2023 is the case ``k = 2``).
Linearity gives ``T_r(y) = J(x_0) T_r(x) + Σ_v W[r, v] N_v``, which is exactly what the ordinary rules compute
when the collapse of the per-direction parts is done after each rule (:func:`normalize`).

Parts are keyed by ``int`` (a *block* of directions) or ``("t", r)`` (top channel ``r`` of this order).
A block is either one direction (an array of the variable's shape: the *split* layout) or several
directions of equal depth stacked on a leading axis (the *stacked* layout). Elementwise operations broadcast
against primals directly; shape-changing linear maps are ``vmap``-ed over stacked blocks.

Shared low orders. Order-1 coefficients are linear in the direction, ``y_1[v] = J v``: with a basis ``B`` of
the directions' span only ``|B|`` order-1 channels are propagated, ``y_1[v] = Σ_j c_{v,j} y_1[b_j]`` is formed
on demand (*derived* blocks). For the same reason a top channel ``T = Σ_v ω_v y_K[v]`` only needs the order
``K-1`` coefficients through ``Σ_v ω_v a_1[v] b_{K-1}[v] = Σ_j a_1[b_j] S_j(b)`` with the *semi-collapsed*
channels ``S_j = Σ_v ω_v c_{v,j} y_{K-1}[v]`` (``|B|`` of them instead of one per direction, ``K ≥ 3``); the
product rule adds these *pairings* to ``T`` directly. For ``Δ²`` in 2D this carries 1 + 2 + 3 + 2 + 1 = 9
arrays per variable instead of 1 + 3·3 + 1 = 11 (3D: 14 instead of 20).

Symbolic zeros: a coefficient known to be zero is ``None`` and costs nothing; a part missing from a
:class:`Coef` is zero as well. Row-constant parts: the input directions are the same at every point, so a
split part may have size-1 axes where the coefficient's shape does not (``(1, d)`` for ``x`` of shape
``(N, d)``); elementwise arithmetic broadcasts them, ``dot_general`` keeps them when those axes are free,
other maps get them materialised (:func:`full`). In an MLP the whole first layer's polynomial work then runs
on ``(1, width)`` rows.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def _binary(op, fallback):
    """``op`` from ``lax`` when no broadcasting or promotion is needed (much faster to trace than ``jnp``)."""

    def f(a, b):
        if isinstance(b, (int, float)):
            return op(a, np.asarray(b, a.dtype))
        if a.shape == b.shape and a.dtype == b.dtype:
            return op(a, b)
        return fallback(a, b)

    return f


_mul = _binary(lax.mul, lambda a, b: a * b)
_add = _binary(lax.add, lambda a, b: a + b)
_sub = _binary(lax.sub, lambda a, b: a - b)


def axpy(acc, a, w: float):
    """``acc + w a`` (``acc`` None is zero); weights ±1 cost an addition or subtraction, no product."""
    if acc is None:
        return a if w == 1 else (lax.neg(a) if w == -1 else _mul(a, w))
    if w == 1:
        return _add(acc, a)
    if w == -1:
        return _sub(acc, a)
    return _add(acc, _mul(a, w))


@dataclass(frozen=True)
class Layout:
    """Static description of the channels: blocks of directions, their depths, and the collapse.

    ``channels[k]`` lists the channels of order ``k``; each is a tuple of ``(block, row, weight)``.
    ``folded[k]`` is the set of blocks whose order-``k`` parts are folded into them (blocks of depth ``k`` for
    top channels, of depth ``k + 1`` for semi-collapsed ones). ``derived`` and ``pairs``: see the module notes.
    """

    K: int
    depth: tuple[int, ...]  # per block
    rows: tuple[int, ...]  # directions per block
    stacked: tuple[bool, ...]  # per block: leading direction axis?
    channels: dict = field(default_factory=dict)  # k -> tuple of channels
    folded: dict = field(default_factory=dict)  # k -> frozenset of blocks
    derived: dict = field(default_factory=dict)  # block -> ((basis block, c), ...): order-1 parts on demand
    pairs: dict = field(default_factory=dict)  # k -> ((top r, ((basis block, semi channel at k-1), ...)), ...)

    def __hash__(self):  # layouts are compared by identity
        return id(self)

    def __eq__(self, other):
        return self is other


class Coef:
    """One Taylor coefficient of order ``k`` of one variable, for all channels (see the module notes)."""

    __slots__ = ("lay", "k", "parts", "shape", "dtype", "memo")

    def __init__(self, lay: Layout, k: int, parts: dict, shape: tuple, dtype):
        self.lay, self.k, self.parts, self.shape, self.dtype = lay, k, parts, tuple(shape), dtype
        self.memo: dict | None = None

    def get(self, block: int):
        """The part of ``block``; for order 1 also the derived ones, ``Σ_j c_j part[b_j]`` (memoised)."""
        a = self.parts.get(block)
        if a is not None or self.k != 1:
            return a
        spec = self.lay.derived.get(block)
        if spec is None:
            return None
        if self.memo is None:
            self.memo = {}
        elif block in self.memo:
            return self.memo[block]
        acc = None
        for b, w in spec:
            p = self.parts.get(b)
            if p is not None:
                acc = axpy(acc, p, w)
        self.memo[block] = acc
        return acc

    def blocks(self, min_depth: int):
        """Direction blocks available (carried or derived) with depth ``≥ min_depth``."""
        depth = self.lay.depth
        out = [key for key in self.parts if isinstance(key, int) and depth[key] >= min_depth]
        if self.k == 1 and self.lay.derived:
            out += [b for b in self.lay.derived if depth[b] >= min_depth and b not in self.parts]
        return out

    def __repr__(self):
        return f"Coef(k={self.k}, shape={self.shape}, parts={list(self.parts)})"


def make(lay: Layout, k: int, parts: dict, shape, dtype) -> Coef | None:
    return Coef(lay, k, parts, shape, dtype) if parts else None


def _stacked(lay: Layout, key) -> bool:
    return isinstance(key, int) and lay.stacked[key]


def _lift(lay: Layout, key, arr, nd: int, shape=None):
    """Give a part ``nd`` unstacked dimensions (inserting axes after a stacked block's leading axis)."""
    if _stacked(lay, key):
        own = arr.ndim - 1
        if own < nd:
            arr = arr.reshape(arr.shape[:1] + (1,) * (nd - own) + arr.shape[1:])
        if shape is not None and arr.shape[1:] != tuple(shape):
            arr = jnp.broadcast_to(arr, arr.shape[:1] + tuple(shape))
    elif shape is not None and arr.shape != tuple(shape):
        arr = jnp.broadcast_to(arr, shape)
    return arr


def zeros(lay: Layout, key, shape, dtype):
    if _stacked(lay, key):
        return jnp.zeros((lay.rows[key],) + tuple(shape), dtype)
    return jnp.zeros(shape, dtype)


# ---------------------------------------------------------------------------------------------------------
# Arithmetic on "terms": an order-0 term is a plain array (the primal), an order-k term a Coef, zero is None.
# ---------------------------------------------------------------------------------------------------------

def is_coef(a) -> bool:
    return isinstance(a, Coef)


def times(c: Coef | None, p) -> Coef | None:
    """``c * p`` for a coefficient ``c`` and a primal (or constant) ``p``, broadcasting."""
    if c is None:
        return None
    pshape = np.shape(p)
    shape = c.shape if pshape == () or pshape == c.shape else jnp.broadcast_shapes(c.shape, pshape)
    nd = len(shape)
    parts = {key: _mul(_lift(c.lay, key, a, nd), p) for key, a in c.parts.items()}
    dtype = next(iter(parts.values())).dtype
    return Coef(c.lay, c.k, parts, shape, dtype)


def scale(c: Coef | None, s: float) -> Coef | None:
    """``s * c`` for a Python number ``s``."""
    if c is None or s == 1:
        return c
    if s == 0:
        return None
    if s == -1:
        return neg(c)
    return Coef(c.lay, c.k, {key: lax.mul(a, jnp.asarray(s, a.dtype)) for key, a in c.parts.items()}, c.shape,
                c.dtype)


def neg(c: Coef | None) -> Coef | None:
    if c is None:
        return None
    return Coef(c.lay, c.k, {key: lax.neg(a) for key, a in c.parts.items()}, c.shape, c.dtype)


def product(a: Coef | None, b: Coef | None, fn: Callable | None = None) -> Coef | None:
    """The bilinear product ``fn(a, b)`` (default: elementwise ``a * b``) of two coefficients of order ≥ 1.

    It contributes to order ``k = a.k + b.k``, which only directions of at least that depth carry. Top
    channels only meet primals, except through the pairings of order-1 coefficients with semi-collapsed
    channels of order ``k - 1`` (see the module notes), which go straight into the top channels of order ``k``.
    """
    if a is None or b is None:
        return None
    lay, k = a.lay, a.k + b.k
    if k > lay.K:
        return None
    parts = {}
    if fn is None:
        shape = a.shape if a.shape == b.shape else tuple(jnp.broadcast_shapes(a.shape, b.shape))
        nd = len(shape)
        mul = lambda key, p, q: _mul(_lift(lay, key, p, nd), _lift(lay, key, q, nd))
    else:
        shape = None

        def mul(key, p, q):
            if _stacked(lay, key):
                return jax.vmap(fn)(p, q)
            return fn(jnp.broadcast_to(p, a.shape), jnp.broadcast_to(q, b.shape))

    bkeys = b.blocks(k)
    if bkeys:
        for key in a.blocks(k):
            if key in bkeys:
                pa, pb = a.get(key), b.get(key)
                if pa is not None and pb is not None:
                    parts[key] = mul(key, pa, pb)
    pairs = lay.pairs.get(k)
    if pairs and 1 in (a.k, b.k) and k - 1 in (a.k, b.k):
        one, other = (a, b) if a.k == 1 else (b, a)
        for r, spec in pairs:
            acc = None
            for basis, s in spec:
                p, q = one.get(basis), other.parts.get(("t", s))
                if p is None or q is None:
                    continue
                term = mul(("t", r), p, q) if one is a else mul(("t", r), q, p)
                acc = term if acc is None else _add(acc, term)
            if acc is not None:
                parts[("t", r)] = acc
    if not parts:
        return None
    first = next(iter(parts.items()))
    if shape is None:
        shape = first[1].shape[1:] if _stacked(lay, first[0]) else first[1].shape
    return Coef(lay, k, parts, shape, first[1].dtype)


def add(a: Coef | None, b: Coef | None) -> Coef | None:
    if a is None:
        return b
    if b is None:
        return a
    lay = a.lay
    shape = a.shape if a.shape == b.shape else tuple(jnp.broadcast_shapes(a.shape, b.shape))
    nd = len(shape)
    parts = {}
    same = a.shape == b.shape
    for key, pa in a.parts.items():
        pb = b.parts.get(key)
        if pb is None:
            parts[key] = pa if a.shape == shape else _lift(lay, key, pa, nd, shape)
        elif same:
            parts[key] = _add(pa, pb)
        else:
            parts[key] = _lift(lay, key, pa, nd) + _lift(lay, key, pb, nd)
    for key, pb in b.parts.items():
        if key not in a.parts:
            parts[key] = pb if b.shape == shape else _lift(lay, key, pb, nd, shape)
    dtype = jnp.result_type(a.dtype, b.dtype)
    return Coef(lay, a.k, parts, shape, dtype)


def tmul(a, b):
    """Product of two terms of any order (order-0 terms are arrays)."""
    if a is None or b is None:
        return None
    ca, cb = is_coef(a), is_coef(b)
    if ca and cb:
        return product(a, b)
    if ca:
        return times(a, b)
    if cb:
        return times(b, a)
    return a * b


def tadd(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if is_coef(a) or is_coef(b):
        if not (is_coef(a) and is_coef(b)):
            raise TypeError("cannot add a coefficient of order 0 to one of order ≥ 1")
        return add(a, b)
    return a + b


def tsum(terms: Iterable):
    out = None
    for t in terms:
        out = tadd(out, t)
    return out


def tscale(a, s: float):
    if a is None:
        return None
    if is_coef(a):
        return scale(a, s)
    return a * s


def tsub(a, b):
    return tadd(a, tscale(b, -1.0) if not is_coef(b) else neg(b))


# ---------------------------------------------------------------------------------------------------------
# Linear maps of coefficients
# ---------------------------------------------------------------------------------------------------------

def full(c: Coef, key, a):
    """A part materialised to the coefficient's shape (row-constant parts are broadcast)."""
    if not _stacked(c.lay, key) and a.shape != c.shape:
        return jnp.broadcast_to(a, c.shape)
    return a


def linear(c: Coef | None, fn: Callable, safe=False) -> Coef | None:
    """``fn`` (linear, written for one unstacked part) applied to every part; vmapped on stacked blocks.

    ``safe`` (a bool, or a predicate of the part's shape) says whether ``fn`` may see a row-constant part
    with size-1 axes; otherwise the part is materialised first.
    """
    if c is None:
        return None
    lay = c.lay
    parts = {}
    shape = None
    for key, a in c.parts.items():
        if _stacked(lay, key):
            out = jax.vmap(fn)(a)
            shape = out.shape[1:]
        else:
            if a.shape != c.shape and not (safe(a.shape) if callable(safe) else safe):
                a = jnp.broadcast_to(a, c.shape)
            out = fn(a)
            if a.shape == c.shape:
                shape = out.shape
        parts[key] = out
    if shape is None:  # only row-constant parts: the logical shape from an abstract evaluation
        shape = jax.eval_shape(fn, jax.ShapeDtypeStruct(c.shape, c.dtype)).shape
    return Coef(lay, c.k, parts, shape, next(iter(parts.values())).dtype)


def linear_n(fn: Callable, coefs: Sequence[Coef | None], shapes: Sequence[tuple], dtypes: Sequence,
             elementwise: bool = False) -> Coef | None:
    """``fn(*parts)`` jointly linear in all its arguments, missing parts (and ``None`` s) filled with zeros.

    ``shapes``/``dtypes`` are the unstacked shapes and dtypes of the arguments (for the zeros). With
    ``elementwise=True`` ``fn`` broadcasts over a leading block axis and is not vmapped (parts are lifted to
    the full output shape first).
    """
    present = [c for c in coefs if c is not None]
    if not present:
        return None
    lay, k = present[0].lay, present[0].k
    keys = list(dict.fromkeys(key for c in present for key in c.parts))
    parts = {}
    shape: tuple = ()
    out_shape = tuple(jnp.broadcast_shapes(*shapes)) if elementwise else ()
    for key in keys:
        args = []
        for c, s, dt in zip(coefs, shapes, dtypes):
            a = c.parts.get(key) if c is not None else None
            if a is None:
                a = zeros(lay, key, s, dt)
            elif not _stacked(lay, key) and a.shape != tuple(s):
                a = jnp.broadcast_to(a, s)
            if elementwise:
                a = _lift(lay, key, a, len(out_shape), out_shape)
            args.append(a)
        out = jax.vmap(fn)(*args) if _stacked(lay, key) and not elementwise else fn(*args)
        parts[key] = out
        shape = out.shape[1:] if _stacked(lay, key) else out.shape
    return Coef(lay, k, parts, shape, next(iter(parts.values())).dtype)


def normalize(c: Coef | None) -> Coef | None:
    """Fold the parts of blocks whose depth is ``c.k`` into the top channels of order ``c.k`` (collapse)."""
    if c is None:
        return None
    lay = c.lay
    chans = lay.channels.get(c.k)
    if not chans:
        return c
    fold = lay.folded[c.k]
    folding = [key for key in c.parts if key in fold]
    if not folding:
        return c
    parts = dict(c.parts)
    for r, chan in enumerate(chans):
        acc = parts.get(("t", r))
        for key, row, w in chan:
            a = c.parts.get(key)
            if a is None:
                continue
            a = a[row] if lay.stacked[key] else a
            fold_into = getattr(a, "fold_into", None)  # a sparse part (:class:`.sparse.OneHot`) scatters
            acc = fold_into(acc, w) if fold_into is not None else axpy(acc, a, w)
        if acc is not None:
            parts[("t", r)] = acc
    for key in folding:
        del parts[key]
    return make(lay, c.k, parts, c.shape, c.dtype)


def part(c: Coef | None, block: int, row: int):
    """The coefficient of one direction (``None`` if zero)."""
    if c is None:
        return None
    a = c.get(block)
    if a is None:
        return None
    return a[row] if c.lay.stacked[block] else a


def top(c: Coef | None, r: int):
    if c is None:
        return None
    return c.parts.get(("t", r))
