"""Optimisers as chunks of jitted steps over one state pytree ``{params, opt, step, key[, weights]}``.

A *chunk* runs up to ``length`` steps inside one ``jax.lax.scan`` (the first ``n`` of them active, so a
short last chunk does not compile again) and returns the loss of every step, which lets the driver find the
exact step of a NaN. Adam follows an optax schedule; L-BFGS is optax's with the zoom line search of
:mod:`.linesearch` (optax's, one evaluation per trial), and its dense sibling (``training.lbfgs.method: bfgs``)
keeps the whole inverse Hessian, updated by the self-scaled BFGS rule (:func:`scale_by_ssbfgs`), behind the same
line search. A quasi-Newton chunk compiles the loss's gradient twice: in the line search, and once at its start
for the points whose value it does not hold yet (:func:`lbfgs_chunk`).

With adaptive loss weights the state carries ``weights`` (one per loss term); Adam refreshes them every
``every`` steps with a ``balance(params, batch, key, weights) -> weights`` rule (:mod:`.features.balancing`), and
L-BFGS keeps them fixed.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

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


def lbfgs(cfg: LbfgsConfig) -> optax.GradientTransformation:
    """The quasi-Newton phase: limited-memory (``method: lbfgs``) or dense self-scaled BFGS (``bfgs``)."""
    if cfg.method == "bfgs":
        return optax.chain(scale_by_ssbfgs(), optax.scale(-1.0), linesearch.zoom())
    return optax.lbfgs(memory_size=cfg.memory, linesearch=linesearch.zoom())


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


def refresh(opt, fn: Callable, params, fresh) -> object:
    """``opt`` with the values and gradients it holds taken again on the objective ``fn`` when ``fresh`` (the
    objective changed: the causal weights a chunk holds, new points; or none is held yet): the line search's at
    ``params`` (where the next step starts) and each :func:`scale_by_ssbfgs` state's at its last parameters, so
    that the next curvature pair ``(s, y)`` is of one objective (the estimate of the inverse Hessian is kept).
    The points are evaluated by one ``lax.map``: the gradient is compiled once for all of them."""
    flat, unravel = ravel_pytree(params)
    kinds = (SsbfgsState, optax.ScaleByZoomLinesearchState)
    dense = [n for n in jax.tree_util.tree_leaves(opt, is_leaf=lambda x: isinstance(x, kinds))
             if isinstance(n, SsbfgsState)]

    def again(opt):
        values, grads = jax.lax.map(lambda w: jax.value_and_grad(fn)(unravel(w)),
                                    jnp.stack([flat, *(st.params for st in dense)]))
        at = iter(range(1, len(dense) + 1))

        def one(node):
            if isinstance(node, optax.ScaleByZoomLinesearchState):
                return node._replace(value=values[0].astype(node.value.dtype),
                                     grad=jax.tree_util.tree_map(lambda g: g[0], grads))
            if isinstance(node, SsbfgsState):
                i = next(at)
                taken = node._replace(loss=values[i].astype(node.loss.dtype),
                                      gradient=ravel_pytree(jax.tree_util.tree_map(lambda g: g[i], grads))[0])
                return jax.tree_util.tree_map(lambda a, b: jnp.where(node.steps > 0, a, b), taken, node)
            return node

        return jax.tree_util.tree_map(one, opt, is_leaf=lambda x: isinstance(x, kinds))

    return jax.lax.cond(fresh, again, lambda o: o, opt)


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


def lbfgs_chunk(loss: Callable, tx: optax.GradientTransformation, length: int,
                hold: Callable | None = None) -> jax.stages.Wrapped:
    """L-BFGS steps on the deterministic objective ``loss(params, batch, fixed key)``.

    Each step starts from the value and gradient its line search found last; the chunk takes them first
    (:func:`refresh`) when it holds none, or the objective changed. ``hold(params, batch, key)``: weights that move
    with the parameters (the causal slabs') taken at the chunk's first step and held over the chunk (passed as
    ``loss(..., causal=held)``), so that the line search sees one objective and its gradient; the value the line
    search stored in the last chunk is dropped then."""

    def total(state, batch, held) -> Callable:
        """``params -> loss`` of the chunk: its batch, its fixed key and the weights it holds."""
        objective = _objective(loss, state, batch, state["key"], **({} if held is None else {"causal": held}))
        return lambda p: objective(p)[0]

    def step(state, batch, held):
        value, grads = optax.tree.get(state["opt"], "value"), optax.tree.get(state["opt"], "grad")
        updates, opt = tx.update(grads, state["opt"], state["params"], value=value, grad=grads,
                                 value_fn=total(state, batch, held))
        params = optax.apply_updates(state["params"], updates)
        return {**state, "params": params, "opt": opt, "step": state["step"] + 1}, value

    def run(state, batch, n):
        held = None
        if hold is not None:
            held = hold(state["params"], batch, state["key"])
            state = new_objective(state)
        fresh = ~jnp.isfinite(optax.tree.get(state["opt"], "value"))  # a new objective: new weights or points
        state = {**state, "opt": refresh(state["opt"], total(state, batch, held), state["params"], fresh)}
        return _scan(lambda s, b: step(s, b, held), length)(state, batch, n)

    return jax.jit(run)
