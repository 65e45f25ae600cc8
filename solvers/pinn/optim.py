"""Optimisers as chunks of jitted steps over one state pytree ``{params, opt, step, key[, weights]}``.

A *chunk* runs up to ``length`` steps inside one ``jax.lax.scan`` (the first ``n`` of them active, so a
short last chunk does not compile again) and returns the loss of every step, which lets the driver find the
exact step of a NaN. Adam follows an optax schedule; L-BFGS is optax's with the zoom line search of
:mod:`.linesearch` (optax's, one evaluation per trial), and its dense sibling (``training.lbfgs.method: bfgs``)
keeps the whole inverse Hessian, updated by the self-scaled BFGS rule (:func:`scale_by_ssbfgs`), behind the same
line search. A quasi-Newton chunk compiles the loss's gradient once: one loop evaluates it for the line search's
trials and for the points whose value the chunk does not hold yet (:func:`lbfgs_chunk`).

With adaptive loss weights the state carries ``weights`` (one per loss term); Adam refreshes them every
``every`` steps with a ``balance(params, batch, key, weights) -> weights`` rule (:mod:`.features.balancing`), and
L-BFGS keeps them fixed.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax
from jax.flatten_util import ravel_pytree

from . import linesearch
from .config import AdamConfig, LbfgsConfig

DENSE_MAX = 20_000  # parameters the dense BFGS takes on a CPU (its matrix: 3.2 GB in float64)


def dense_max(device=None) -> int:
    """The most parameters the dense BFGS takes on ``device`` (default: JAX's first): ``DENSE_MAX`` on a CPU;
    on an accelerator, as many as let its ``P x P`` float64 matrix fill a quarter of the memory JAX may use
    there (60 GB, JAX's default share of an 80 GB GPU: 43 301), and never fewer than ``DENSE_MAX``."""
    stats = (device or jax.devices()[0]).memory_stats() or {}
    limit = int(stats.get("bytes_limit", 0))
    return max(DENSE_MAX, math.isqrt(limit // 32)) if limit else DENSE_MAX


def adam(cfg: AdamConfig) -> tuple[optax.GradientTransformation, optax.Schedule]:
    sched = cfg.schedule.learning_rate(cfg.lr, cfg.steps)
    return optax.adam(sched), sched


class QuasiNewton(NamedTuple):
    """A quasi-Newton phase's transforms: the direction from the gradient (optax's chain of transforms) and the
    line search along it (:class:`.linesearch.Zoom`). Its state is the chain's of both (``init``, as
    ``optax.chain(*direction parts, zoom)`` makes it: a tuple, the search's last)."""

    direction: optax.GradientTransformationExtraArgs
    search: linesearch.Zoom

    def init(self, params) -> tuple:
        return (*self.direction.init(params), self.search.init(params))


def lbfgs(cfg: LbfgsConfig) -> QuasiNewton:
    """The quasi-Newton phase: limited-memory (``method: lbfgs``: optax's L-BFGS) or dense self-scaled BFGS
    (``bfgs``), each behind the zoom line search."""
    first = scale_by_ssbfgs() if cfg.method == "bfgs" else optax.scale_by_lbfgs(memory_size=cfg.memory)
    return QuasiNewton(optax.chain(first, optax.scale(-1.0)), linesearch.pieces())


class SsbfgsState(NamedTuple):
    steps: jax.Array  # updates so far
    params: jax.Array  # the last parameters, gradient and direction, flat
    gradient: jax.Array
    direction: jax.Array
    loss: jax.Array  # the loss at the last parameters
    base: jax.Array  # (P, P): the inverse Hessian H = scale B + U W' with B = base (or I where identity)
    scale: jax.Array
    identity: jax.Array
    u: jax.Array  # (P, R): the rank-three updates since the last fold, as columns
    w: jax.Array
    used: jax.Array  # columns of u, w in use


def inverse_hessian(state: SsbfgsState) -> jax.Array:
    """The dense inverse-Hessian estimate ``H = scale B + U W'`` of a :func:`scale_by_ssbfgs` state."""
    b = jnp.where(state.identity, jnp.eye(state.base.shape[0], dtype=state.base.dtype), state.base)
    return state.scale * b + state.u @ state.w.T


def _times(state: SsbfgsState, z: jax.Array) -> jax.Array:
    """``H z`` for the columns of ``z`` (P, k): one pass over ``B``."""
    return state.scale * jnp.where(state.identity, z, state.base @ z) + state.u @ (state.w.T @ z)


def scale_by_ssbfgs(eps: float = 1e-10, max_scaling: float = 100.0, rank: int = 30
                    ) -> optax.GradientTransformationExtraArgs:
    """The preconditioned gradient ``H g`` with a dense inverse Hessian ``H`` and Al-Baali's self-scaling.

    After a step ``s`` (along the last direction ``d = -H g``, so ``s = alpha d``) with gradient change ``y``::

        H <- (H - H y y'H / y'Hy + v v') / tau + s s' / y's,   v = sqrt(y'Hy) (s / y's - H y / y'Hy)

    with ``tau = min(1, 1/b)``, ``b = s'Bs / y's`` and ``s'Bs = -alpha s'g`` (``B = H^-1``, ``g`` the gradient
    before the step; ``tau = 1`` is plain BFGS). Self-scaling enlarges ``H`` where the curvature met along the
    step is smaller than ``H`` assumed, which keeps BFGS progressing on the badly conditioned losses of PINNs
    (Urban, Stefanou & Pons, J. Comput. Phys. 2025; Al-Baali, 1998); ``1/tau`` is capped at ``max_scaling``.
    The first update, and any after a step that did not lower the loss (the line search failed: the estimate
    is spoiled), starts again from ``(y's / y'y) I``; an update with ``y's <= eps |s| |y|`` is skipped. The
    first direction is the gradient capped to norm 1 (optax's L-BFGS rule).

    ``H`` is kept as ``scale B + U W'``: each update scales ``scale`` and ``U`` by ``1/tau`` and appends its
    three rank-one terms as columns of ``U`` and ``W``; only when ``rank`` columns are full is ``B`` rewritten
    (folded). So a step reads ``B`` once (for ``H y`` and ``H g`` together) and writes it once every
    ``rank / 3`` steps, where updating the dense matrix in place costs a read and a write every step: on a
    CPU, whose memory bandwidth bounds these passes, the update of the DFG 2D-2 network's 12 935 parameters
    takes 0.052 s against 0.179 s (``sciml bench bfgs-update``, 2-core CPU). ``B`` holds ``P^2`` numbers:
    for networks of up to :func:`dense_max` parameters.
    """

    def init(params):
        flat, _ = ravel_pytree(params)
        n, zero = flat.size, jnp.zeros_like(flat)
        cols = jnp.zeros((n, rank), flat.dtype)
        return SsbfgsState(jnp.zeros((), jnp.int32), zero, zero, zero, jnp.asarray(jnp.inf, flat.dtype),
                           jnp.zeros((n, n), flat.dtype), jnp.ones((), flat.dtype), jnp.ones((), bool), cols, cols,
                           jnp.zeros((), jnp.int32))

    def update(updates, state, params, *, value=None, **extra):
        g, unravel = ravel_pytree(updates)
        w, _ = ravel_pytree(params)
        value = jnp.asarray(-jnp.inf if value is None else value, w.dtype)
        s, y = w - state.params, g - state.gradient
        ys = jnp.vdot(y, s)
        first = (state.steps == 1) | (value >= state.loss)
        yg = jnp.stack([y, g], axis=1)
        kept = _times(state, yg)  # H y, H g with the estimate as it is
        restart = ys / jnp.maximum(jnp.vdot(y, y), eps)
        hy, hg = jnp.where(first, restart * yg, kept).T
        yhy = jnp.vdot(y, hy)
        alpha = jnp.vdot(s, state.direction) / jnp.maximum(jnp.vdot(state.direction, state.direction), eps)
        sbs = -alpha * jnp.vdot(s, state.gradient)
        tau = jnp.where(first, 1.0, jnp.clip(ys / jnp.maximum(sbs, eps), 1.0 / max_scaling, 1.0))
        v = jnp.sqrt(jnp.maximum(yhy, 0.0)) * (s / ys - hy / yhy)
        ok = (state.steps > 0) & (ys > eps * jnp.linalg.norm(s) * jnp.linalg.norm(y)) & (yhy > 0)
        # the update on the estimate it starts from (the restart's: restart I, no columns)
        u, ws, used = (jnp.where(first, 0.0, state.u), jnp.where(first, 0.0, state.w),
                       jnp.where(first, jnp.zeros_like(state.used), state.used))
        at = (jnp.zeros_like(used), used)
        updated = dict(
            scale=jnp.where(first, restart, state.scale) / tau, identity=first | state.identity,
            u=jax.lax.dynamic_update_slice(u / tau, jnp.stack([-hy / (yhy * tau), v / tau, s / ys], 1), at),
            w=jax.lax.dynamic_update_slice(ws, jnp.stack([hy, v, s], 1), at), used=used + 3)
        new = state._replace(**{k: jnp.where(ok, a, getattr(state, k)) for k, a in updated.items()})  # B as is
        new = jax.lax.cond(new.used + 3 > rank, _fold, lambda st: st, new)
        # H g after the update, from its parts
        new_hg = (hg - hy * jnp.vdot(hy, g) / yhy + v * jnp.vdot(v, g)) / tau + s * jnp.vdot(s, g) / ys
        pg = jnp.where(state.steps > 0, jnp.where(ok, new_hg, kept[:, 1]),
                       g * jnp.minimum(1.0, 1.0 / jnp.linalg.norm(g)))
        return unravel(pg), new._replace(steps=state.steps + 1, params=w, gradient=g, direction=-pg, loss=value)

    return optax.GradientTransformationExtraArgs(init, update)


def _fold(state: SsbfgsState) -> SsbfgsState:
    """The same estimate with its columns folded into ``B``."""
    return state._replace(base=inverse_hessian(state), scale=jnp.ones_like(state.scale),
                          identity=jnp.zeros_like(state.identity), u=jnp.zeros_like(state.u),
                          w=jnp.zeros_like(state.w), used=jnp.zeros_like(state.used))


def new_objective(state) -> dict:
    """A quasi-Newton ``state`` told that its objective changed: the line search's stored value dropped, so that
    the next chunk takes the value and gradient again (:func:`refresh`)."""
    return {**state, "opt": optax.tree.set(state["opt"], value=jnp.asarray(jnp.inf, _dtype(state)))}


def held_points(opt, params: jax.Array) -> jax.Array:
    """The points whose values and gradients a quasi-Newton state holds, on the flat parameters (as
    :func:`lbfgs_chunk` steps): ``params`` (the line search's, where the next step starts), then each
    :func:`scale_by_ssbfgs` state's last parameters."""
    return jnp.stack([params, *(st.params for st in _dense(opt))])


def take(opt, values: jax.Array, grads: jax.Array) -> object:
    """``opt`` (on the flat parameters) holding ``values`` and ``grads`` (rows) at its :func:`held_points`, taken again
    on a new objective (the causal weights a chunk holds, new points; or none is held yet): the line search's, and each
    dense state's where it has updated, so that its next curvature pair ``(s, y)`` is of one objective (the estimate of
    the inverse Hessian is kept)."""
    at = iter(range(1, len(values)))

    def one(node):
        if isinstance(node, optax.ScaleByZoomLinesearchState):
            return node._replace(value=values[0].astype(node.value.dtype), grad=grads[0])
        if isinstance(node, SsbfgsState):
            i = next(at)
            return node._replace(loss=jnp.where(node.steps > 0, values[i].astype(node.loss.dtype), node.loss),
                                 gradient=jnp.where(node.steps > 0, grads[i], node.gradient))
        return node

    return jax.tree_util.tree_map(one, opt, is_leaf=lambda x: isinstance(x, _KINDS))


_KINDS = (SsbfgsState, optax.ScaleByZoomLinesearchState)


def _dense(opt) -> list[SsbfgsState]:
    return [n for n in jax.tree_util.tree_leaves(opt, is_leaf=lambda x: isinstance(x, _KINDS))
            if isinstance(n, SsbfgsState)]


def init_state(params, tx: optax.GradientTransformation, key, step: int = 0, weights: dict | None = None) -> dict:
    state = {"params": params, "opt": tx.init(params), "step": jnp.asarray(step, jnp.int32), "key": key}
    if weights is not None:
        state["weights"] = weights
    return state


def _objective(loss: Callable, state, batch, key, **held) -> Callable:
    """``params -> (total, terms)``, with the state's adaptive weights when it has them (and ``held``, the
    weights a quasi-Newton chunk holds, as keywords)."""
    if "weights" in state:
        return lambda p: loss(p, batch, key, state["weights"], **held)
    return lambda p: loss(p, batch, key, **held)


def _scan(step: Callable, length: int) -> Callable:
    """``(state, batch, n) -> (state, losses[length])`` running ``n <= length`` steps of ``step`` (a loop of ``n``
    turns, the losses of the others NaN). A loop rather than a scan whose body picks a step or nothing: XLA compiles
    a step inside a conditional many times slower (Adam on a plate on a polygon, whose exact conditions' factor is a
    large graph: 242 s against 11 s). The same steps, compiled as a loop, round differently in some programs: the
    smoke suite's plate and DFG entries give the same digits, the cavity's curriculum does not (its L-BFGS phase
    parts from the scan's in the fourth digit of the loss after 100 steps; Ghia rel-L2 u 0.3645 -> 0.3852, v
    0.4773 -> 0.4985)."""

    def run(state, batch, n):
        def body(i, carry):
            s, losses = carry
            s, total = step(s, batch)
            return s, losses.at[i].set(total)

        return jax.lax.fori_loop(0, n, body, (state, jnp.full((length,), jnp.nan, _dtype(state))))

    return run


def _chunk(step: Callable, length: int) -> jax.stages.Wrapped:
    """:func:`_scan` under ``jit``."""
    return jax.jit(_scan(step, length))


def _dtype(state):
    return jax.tree_util.tree_leaves(state["params"])[0].dtype


def adam_chunk(loss: Callable, tx: optax.GradientTransformation, length: int,
               balance: Callable | None = None, every: int = 1) -> jax.stages.Wrapped:
    """Adam steps; the loss is ``loss(params, batch, key[, weights]) -> (total, terms)``."""

    def step(state, batch):
        key, sub = jax.random.split(state["key"])
        state = dict(state)
        if balance is not None and "weights" in state:
            state["weights"] = jax.lax.cond(
                state["step"] % every == 0,
                lambda w: balance(state["params"], batch, sub, w), lambda w: w, state["weights"])
        (total, _), grads = jax.value_and_grad(_objective(loss, state, batch, sub), has_aux=True)(state["params"])
        updates, opt = tx.update(grads, state["opt"], state["params"])
        params = optax.apply_updates(state["params"], updates)
        return {**state, "params": params, "opt": opt, "step": state["step"] + 1, "key": key}, total

    return _chunk(step, length)


def lbfgs_chunk(loss: Callable, tx: QuasiNewton, length: int, hold: Callable | None = None) -> jax.stages.Wrapped:
    """Quasi-Newton steps on the deterministic objective ``loss(params, batch, fixed key)``.

    Each step starts from the value and gradient its line search found last; the chunk takes them first
    (:func:`held_points`, :func:`take`) when it holds none, or the objective changed. ``hold(params, batch, key)``:
    weights that move with the parameters (the causal slabs') taken at the chunk's first step and held over the
    chunk (passed as ``loss(..., causal=held)``), so that the line search sees one objective and its gradient; the
    value the line search stored in the last chunk is dropped then.

    The loss and its gradient are evaluated at one place, in an inner loop: at the held points first (when the
    chunk takes them), then at each step's trials (:class:`.linesearch.Zoom`); the outer loop ends a step and
    makes the next one's direction (``tx.direction``, outside the inner loop: a dense state's matrix is not carried
    through a conditional at every trial, which cost the cavity's dense BFGS a sixth of its speed). So the chunk
    compiles the gradient once. Its steps run on the parameters as one vector (the state's parts shaped as the
    parameters made flat on entry and shaped again on exit, :func:`_flat`): optax's L-BFGS and the search would
    otherwise repeat each operation for every array of the network. The smoke suite's plate's L-BFGS chunk
    compiles in 7.5 s against 10.7 s before both (the held points' own copy, the arrays one by one), the cavity's
    dense BFGS in 11.5 s against 17.0 s, and both step faster (one core, XLA's defaults, 2026-12-05)."""

    def run(state, batch, n):
        held = None
        if hold is not None:
            held = hold(state["params"], batch, state["key"])
            state = new_objective(state)
        objective = _objective(loss, state, batch, state["key"], **({} if held is None else {"causal": held}))
        template, tree = state["opt"], state["params"]
        flat, unravel = ravel_pytree(tree)
        state = {**state, "params": flat, "opt": _flat(template, tree)}  # the steps on one vector
        value_and_grad = jax.value_and_grad(lambda w: objective(unravel(w))[0])
        points = held_points(state["opt"], state["params"])
        m = points.shape[0]
        found = state["opt"][-1]
        fresh = ~jnp.isfinite(found.value)  # a new objective: new weights or points
        start = dict(state=state, steps=jnp.zeros((), jnp.int32), losses=jnp.full((length,), jnp.nan, _dtype(state)),
                     turn=jnp.where(fresh, 0, m), searching=jnp.asarray(False),
                     values=jnp.zeros((m,), found.value.dtype), grads=jnp.zeros_like(points),
                     direction=state["params"], search=tx.search.start(found.value, found.grad, state["params"]))

        def evaluate(c):
            """One evaluation: the next held point's while the chunk takes them, else the search's next trial."""
            holding, at = c["turn"] < m, jnp.minimum(c["turn"], m - 1)
            t = tx.search.trial(c["search"])
            trial = c["state"]["params"] + t * c["direction"]
            v, g = value_and_grad(jnp.where(holding, points[at], trial))
            tried = tx.search.absorb(c["search"], t, v, g, c["direction"])  # kept only where it was a trial
            return {**c, "turn": c["turn"] + holding,
                    "values": jnp.where(holding, c["values"].at[at].set(v.astype(c["values"].dtype)), c["values"]),
                    "grads": jnp.where(holding, c["grads"].at[at].set(g), c["grads"]),
                    "search": jax.tree_util.tree_map(lambda a, b: jnp.where(holding, a, b), c["search"], tried)}

        def evaluating(c):
            return (c["turn"] < m) | (c["searching"] & ~tx.search.stopped(c["search"]))

        def step(c):
            """The evaluations up to the end of a step (or of the held points), its end, then the next step's
            direction and search when one is due."""
            took = c["turn"] < m  # this step's evaluations begin with the held points
            c = jax.lax.while_loop(evaluating, evaluate, c)
            st = c["state"]
            *parts, found = st["opt"]
            stepsize, taken = tx.search.result(c["search"], found)
            ended = c["searching"]
            now = jax.tree_util.tree_map(lambda a, b: jnp.where(ended, a, b), dict(
                params=optax.apply_updates(st["params"], optax.tree.scale(stepsize, c["direction"])),
                found=taken, step=st["step"] + 1,
                losses=c["losses"].at[c["steps"]].set(c["search"].value0.astype(c["losses"].dtype))),
                dict(params=st["params"], found=found, step=st["step"], losses=c["losses"]))
            opt = (*parts, now["found"])
            opt = jax.tree_util.tree_map(lambda a, b: jnp.where(took, a, b), take(opt, c["values"], c["grads"]), opt)
            c = {**c, "steps": c["steps"] + ended, "losses": now["losses"], "searching": jnp.asarray(False),
                 "state": {**st, "params": now["params"], "opt": opt, "step": now["step"]}}
            return jax.lax.cond(c["steps"] < n, begin, lambda c: c, c)

        def begin(c):
            """The next step's direction from the value and gradient held, and its search."""
            st = c["state"]
            *parts, found = st["opt"]
            updates, parts = tx.direction.update(found.grad, tuple(parts), st["params"], value=found.value,
                                                 grad=found.grad)
            return {**c, "state": {**st, "opt": (*parts, found)}, "direction": updates, "searching": jnp.asarray(True),
                    "search": tx.search.start(jnp.asarray(found.value, found.value.dtype), found.grad, updates)}

        end = jax.lax.while_loop(lambda c: c["steps"] < n, step, start)
        st = end["state"]
        return {**st, "params": unravel(st["params"]), "opt": _tree(st["opt"], template, tree)}, end["losses"]

    return jax.jit(run)


def _shaped(tree) -> Callable:
    """``x -> 1`` where a part of an optimiser's state is shaped as the parameters ``tree``, ``2`` where as a stack
    of them (L-BFGS's memory), else ``0``."""
    structure: Any = jax.tree_util.tree_structure(tree)
    shapes = [jnp.shape(a) for a in jax.tree_util.tree_leaves(tree)]

    def kind(x) -> int:
        same = jax.tree_util.tree_structure(x) == structure
        got = [jnp.shape(a) for a in jax.tree_util.tree_leaves(x)] if same else []
        if same and got == shapes:
            return 1
        return 2 if same and len({g[:1] for g in got}) == 1 and [g[1:] for g in got] == shapes else 0

    return kind


def _flat(opt, tree):
    """``opt`` with each part shaped as the parameters ``tree`` (or as a stack of them) one vector (a stack of
    them): the quasi-Newton chunk's steps on the flat parameters (:func:`lbfgs_chunk`)."""
    kind = _shaped(tree)
    flat = {1: lambda x: ravel_pytree(x)[0], 2: jax.vmap(lambda x: ravel_pytree(x)[0])}
    return jax.tree_util.tree_map(lambda x: flat[kind(x)](x) if kind(x) else x, opt, is_leaf=lambda x: kind(x) > 0)


def _tree(flat_opt, template, tree):
    """:func:`_flat` undone: ``flat_opt`` in the shapes of ``template``."""
    kind, (_, unravel) = _shaped(tree), ravel_pytree(tree)
    back = {1: unravel, 2: jax.vmap(unravel)}
    return jax.tree_util.tree_map(lambda t, f: back[kind(t)](f) if kind(t) else f, template, flat_opt,
                                  is_leaf=lambda x: kind(x) > 0)
