"""``mode="taylor"``: plan the request set, propagate once, reassemble.

For a pointwise ``f`` and ``x`` of shape ``(..., d)`` every direction ``v`` of the plan is the input curve
``x(t) = x + v t`` (the same ``v`` at every point); the primal ``f(x)`` is computed once and shared, the
coefficients of order ``1..D_v`` are carried per direction (or collapsed into top channels), and each request
is the linear combination of coefficients the plan prescribes (:mod:`.plan`).
"""
from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend import core as jcore

from . import coef as C
from . import sparse, vmapped
from .interpreter import eval_jaxpr
from .plan import Plan, make_plan

_IGNORED = {"key", "samples", "distribution"}  # options meant for other modes


def run_plan(plan: Plan, f: Callable, x, *, stacked: bool = False, directions: Sequence | None = None,
             chunk: int | str | None = None) -> dict:
    """Evaluate ``plan`` for ``f`` at ``x``; ``directions`` overrides the plan's (e.g. random ones), each a
    ``(d,)`` vector or an array of ``x``'s shape (one direction per point).

    With ``chunk`` the points are processed ``chunk`` at a time (a ``lax.map`` over interleaved tiles,
    rematerialised under differentiation): the Taylor propagation of a tile stays in cache, which is what
    limits it on CPU. Tiles take every ``C``-th point, so a batch sharded along its points stays sharded. A
    point of a ``jax.vmap``-ed batch is evaluated with the whole batch, tiled (:mod:`.vmapped`).
    """
    x = jnp.asarray(x)
    if directions is None and vmapped.batched_here(x):  # one point of a vmapped batch: tile the batch
        return vmapped.call(lambda g, xs: run_plan(plan, g, xs, stacked=stacked, chunk=chunk),
                            lambda g, y: _run(plan, g, y, stacked, None), f, x)
    dirs = None if directions is None else list(directions)
    lead = x.shape[:-1]
    m = math.prod(lead)
    if chunk == "auto":
        chunk = auto_chunk(plan)
    if chunk and x.ndim >= 2 and m >= 2 * chunk:
        out_shape = jax.eval_shape(f, jax.ShapeDtypeStruct(x.shape, x.dtype)).shape
        if tuple(out_shape[: len(lead)]) == tuple(lead):
            return _tiled(plan, f, x, dirs, stacked, chunk, lead, m)
    return _run(plan, f, x, stacked, dirs)


def _tiled(plan, f, x, given, stacked, chunk, lead, m):
    d = x.shape[-1]
    dirs = list(plan.directions) if given is None else given
    sparse_dirs = [i for i, v in enumerate(dirs) if isinstance(v, sparse.Direction)]
    per_point = [i for i, v in enumerate(dirs) if v is not None and i not in sparse_dirs and np.ndim(v) > 1]
    n_tiles = -(-m // chunk)
    rows = -(-m // n_tiles)
    total = rows * n_tiles

    def tiles(a, tail=(d,)):  # lead + tail -> (n_tiles, rows) + tail: tile t holds points t, t + n_tiles, ...
        a = jnp.broadcast_to(a, tuple(lead) + tail).reshape((m,) + tail)
        if total > m:
            a = jnp.pad(a, ((0, total - m),) + ((0, 0),) * len(tail), mode="edge")
        return a.reshape((rows, n_tiles) + tail).swapaxes(0, 1)

    xs = tiles(x)
    ds = [tiles(jnp.asarray(dirs[i], x.dtype)) for i in per_point] + [tiles(dirs[i].index, ()) for i in sparse_dirs]

    @jax.checkpoint  # the backward pass recomputes a tile (in cache) rather than storing its residuals
    def body(xc, dc):
        local = list(dirs)
        for i, v in zip(per_point, dc):
            local[i] = v
        for i, v in zip(sparse_dirs, dc[len(per_point):]):
            local[i] = sparse.Direction(v, dirs[i].scale)
        out = _run(plan, f, xc, stacked, None if given is None and not (per_point or sparse_dirs) else local)
        return [out[r] for r, _ in plan.readout]  # a list: requests of mixed types do not sort as dict keys

    outs = jax.lax.map(lambda a: body(a[0], a[1]), (xs, ds))

    def untile(a):  # (n_tiles, rows, *tail) -> lead + tail
        tail = a.shape[2:]
        a = a.swapaxes(0, 1).reshape((total,) + tail)
        return a[:m].reshape(tuple(lead) + tail)

    return {r: untile(v) for (r, _), v in zip(plan.readout, outs)}


def _run(plan: Plan, f: Callable, x, stacked: bool, dirs: Sequence | None) -> dict:
    """The requests of ``plan`` for ``f`` at ``x`` along ``dirs`` (None: the plan's own directions, whose
    propagation, when traced, is cached by ``f``'s shape, :func:`_propagation`; called on values, it runs
    equation by equation as before, compiling nothing)."""
    closed = jax.make_jaxpr(f)(x)
    if len(closed.out_avals) != 1:
        raise ValueError("the Taylor engine needs f to return a single array")
    if dirs is None and any(isinstance(a, jax.core.Tracer) for a in (x, *closed.consts)):  # traced: cache it
        key = _shape_key(closed.jaxpr)
        if key is not None:
            values = _propagation(plan, stacked, closed.jaxpr, key)(closed.consts, x)
            return {r: v for (r, _), v in zip(plan.readout, values)}
    return _propagate(plan, closed.jaxpr, closed.consts, x, stacked, list(plan.directions) if dirs is None else dirs)


_PROPAGATIONS: dict = {}  # (plan, layout, f's jaxpr as text) -> the jitted propagation, the plan and the
# objects its key names by identity (held, so that no identity is reused while cached)
_KEPT = 256  # propagations kept (the least recently used go first)


def _propagation(plan: Plan, stacked: bool, jaxpr, key) -> Callable:
    """The propagation of ``plan`` through a function of ``jaxpr``'s shape, jitted once for every function of
    that shape: ``(consts, x) ->`` the requests' values in ``plan.readout``'s order.

    Why: the interpreter's Python walk of ``f``'s equations is what tracing a residual costs most, and a process
    propagates the same network's shape many times (a problem assembled for a check, a run, each time window, an
    export; the tests' many small runs of one case). As a jitted function, its jaxpr is traced once for that shape
    and argument types, and JAX's caches of a jaxpr's derivatives and transposition (keyed on the jaxpr) answer a
    gradient's trace too. The key is ``f``'s jaxpr as text (shapes, dtypes, literals, every parameter), with each
    parameter that text cannot vouch for by its own equality (a function, a mesh) or, unhashable or a nested
    jaxpr's constants, by identity: such objects are held by the entry, so that no identity is reused while it is
    cached. XLA inlines the call: the compiled program is the same."""
    shape, held = key  # f's jaxpr as text, and the parameters it names by equality or identity
    full = (id(plan), stacked, shape)
    hit = _PROPAGATIONS.pop(full, None)  # put back last: the least recently used go first
    if hit is None:
        if len(_PROPAGATIONS) >= _KEPT:
            _PROPAGATIONS.pop(next(iter(_PROPAGATIONS)))
        dirs = list(plan.directions)

        def propagation(consts, x):  # a list: requests of mixed types do not sort as a pytree's dict keys
            out = _propagate(plan, jaxpr, consts, x, stacked, dirs)
            return [out[r] for r, _ in plan.readout]

        hit = (jax.jit(propagation), plan, held)
    _PROPAGATIONS[full] = hit
    return hit[0]


_PLAIN = (bool, int, float, complex, str, bytes, type(None), np.dtype, np.generic, enum.Enum)


def _shape_key(jaxpr):
    """``(text, held objects)`` naming ``jaxpr``'s function up to its top-level constants' values, or None where
    a nested jaxpr closes over traced values (its propagation is not cached)."""
    held: list = []  # the objects the text cannot vouch for
    named: list = []  # each by its own equality where hashable (a mesh, a function: ==), else by identity

    def by_equality(v) -> bool:
        held.append(v)
        try:
            hash(v)
            named.append(v)
        except TypeError:
            named.append(("id", id(v)))
        return True

    def plain(v) -> bool:
        if isinstance(v, _PLAIN):
            return True
        if isinstance(v, (tuple, list, frozenset)):
            return all(plain(a) for a in v)
        if isinstance(v, jcore.ClosedJaxpr):
            if any(isinstance(c, jax.core.Tracer) for c in v.consts):
                return False
            if v.consts:  # their values are not in the text: the object's identity is
                held.append(v)
                named.append(("id", id(v)))
            return walk(v.jaxpr)
        if isinstance(v, jcore.Jaxpr):
            return walk(v)
        return by_equality(v)

    def walk(j) -> bool:
        return all(plain(v) for eqn in j.eqns for v in eqn.params.values())

    if not walk(jaxpr):
        return None
    return (str(jaxpr), tuple(named)), tuple(held)


def _propagate(plan: Plan, jaxpr, consts, x, stacked: bool, dirs: Sequence) -> dict:
    lay, blocks, where = plan.layout(stacked)
    parts = {}
    for b, ds in enumerate(blocks):
        if b in lay.derived:  # order-1 coefficients formed from the basis on demand
            continue
        if isinstance(dirs[ds[0]], sparse.Direction):  # index and value (:mod:`.sparse`)
            ps = [dirs[i].part(x) for i in ds]
            parts[b] = sparse.stack(ps) if lay.stacked[b] else ps[0]
        elif lay.stacked[b]:
            parts[b] = jnp.stack([jnp.broadcast_to(jnp.asarray(dirs[i], x.dtype), x.shape) for i in ds])
        else:  # row-constant: size-1 axes broadcast against the points (see coef)
            v = jnp.asarray(dirs[ds[0]], x.dtype)
            parts[b] = v.reshape((1,) * (x.ndim - v.ndim) + v.shape)
    K = plan.K
    series = [x] + [None] * K
    if K >= 1:
        series[1] = C.normalize(C.make(lay, 1, parts, x.shape, x.dtype))
    (ys,) = eval_jaxpr(jaxpr, consts, lay, [series])
    ys = sparse.dense(ys)
    y0 = ys[0]
    out = {}
    for request, terms in plan.readout:
        acc = None
        for k, kind, idx, w in terms:
            if kind == "p":
                a = y0
            elif kind == "d":
                a = C.part(ys[k], *where[idx])
            else:
                a = C.top(ys[k], idx)
            if a is None:
                continue
            if w != 1:
                a = a * jnp.asarray(w, a.dtype)
            acc = a if acc is None else acc + a
        if acc is None:
            acc = jnp.zeros_like(y0)
        elif acc.shape != y0.shape:
            acc = jnp.broadcast_to(acc, y0.shape)
        out[request] = acc
    return out


DEFAULT_CHUNK = "auto"


def auto_chunk(plan: Plan) -> int | None:
    """Points per tile for a plan. Measured on XLA CPU (2 shared cores, 4×64 tanh MLP, 8192 points, float32):
    for heavy plans (``Δ²``: 9-14 arrays per variable) 2048-point tiles make the evaluation about 1.2-2× and
    the training step (``value_and_grad`` of a ``Δ²`` loss) 1.15-1.35× faster than no tiling (1024-point
    tiles: similar for the training step, slower evaluation); light plans (``Δ``: 4-5 arrays) evaluate
    fastest untiled and are not tiled (their training step gains about 10% from ``chunk=2048``)."""
    return 2048 if plan.n_channels() >= 8 else None


def derivatives(f: Callable, requests: tuple, *, layout: str = "split", collapse: bool = True,
                chunk: int | str | None = DEFAULT_CHUNK, **options) -> Callable:
    """``x -> {request: value}``: all ``requests`` from one planned Taylor propagation.

    Options: ``layout`` ``"split"`` (each direction's coefficients as their own arrays; the faster one on XLA
    CPU, measured in :mod:`sciml.bench.autodiff`) or ``"stacked"`` (directions of equal depth on a leading
    axis); ``collapse=False`` keeps every direction's top coefficient (for comparison); ``chunk`` points per
    tile (``"auto"``: :func:`auto_chunk`; ``None``: the whole batch at once; see :func:`run_plan`).
    """
    unknown = set(options) - _IGNORED
    if unknown:
        raise TypeError(f"unknown option(s) for the taylor mode: {sorted(unknown)}")
    if layout not in ("split", "stacked"):
        raise ValueError(f"layout must be 'split' or 'stacked', not {layout!r}")
    requests = tuple(requests)

    def evaluate(x):
        plan = make_plan(requests, x.shape[-1], collapse, layout == "split")
        return run_plan(plan, f, x, stacked=layout == "stacked", chunk=chunk)

    return evaluate
