"""Optimisers as chunks of jitted steps over one state pytree ``{params, opt, step, key[, weights]}``.

A *chunk* runs up to ``length`` steps inside one ``jax.lax.scan`` (the first ``n`` of them active, so a
short last chunk does not compile again) and returns the loss of every step, which lets the driver find the
exact step of a NaN. Adam follows an optax schedule; L-BFGS is optax's with a zoom line search.

With adaptive loss weights the state carries ``weights`` (one per loss term); Adam refreshes them every
``every`` steps with a ``balance(params, batch, key, weights) -> weights`` rule (:mod:`.balancing`), and
L-BFGS keeps them fixed.
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import optax

from sciml import schedules

from .config import AdamConfig, LbfgsConfig, ScheduleConfig


def schedule(cfg: ScheduleConfig, lr: float, steps: int) -> optax.Schedule:
    return schedules.build(cfg.type, lr, steps, decay_steps=cfg.decay_steps, decay_rate=cfg.decay_rate,
                           final_lr=cfg.final_lr, warmup=cfg.warmup_steps)


def adam(cfg: AdamConfig) -> tuple[optax.GradientTransformation, optax.Schedule]:
    sched = schedule(cfg.schedule, cfg.lr, cfg.steps)
    return optax.adam(sched), sched


def lbfgs(cfg: LbfgsConfig) -> optax.GradientTransformation:
    return optax.lbfgs(memory_size=cfg.memory)


def init_state(params, tx: optax.GradientTransformation, key, step: int = 0, weights: dict | None = None) -> dict:
    state = {"params": params, "opt": tx.init(params), "step": jnp.asarray(step, jnp.int32), "key": key}
    if weights is not None:
        state["weights"] = weights
    return state


def _objective(loss: Callable, state, batch, key) -> Callable:
    """``params -> (total, terms)``, with the state's adaptive weights when it has them."""
    if "weights" in state:
        return lambda p: loss(p, batch, key, state["weights"])
    return lambda p: loss(p, batch, key)


def _chunk(step: Callable, length: int) -> jax.stages.Wrapped:
    """``(state, batch, n) -> (state, losses[length])`` running ``n <= length`` steps of ``step``."""

    def run(state, batch, n):
        def body(s, i):
            return jax.lax.cond(i < n, lambda s: step(s, batch), lambda s: (s, jnp.nan * jnp.zeros((), _dtype(s))), s)

        return jax.lax.scan(body, state, jnp.arange(length))

    return jax.jit(run)


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


def lbfgs_chunk(loss: Callable, tx: optax.GradientTransformation, length: int) -> jax.stages.Wrapped:
    """L-BFGS steps on the deterministic objective ``loss(params, batch, fixed key)``."""

    def step(state, batch):
        objective = _objective(loss, state, batch, state["key"])
        fn = lambda p: objective(p)[0]
        value, grads = optax.value_and_grad_from_state(fn)(state["params"], state=state["opt"])
        updates, opt = tx.update(grads, state["opt"], state["params"], value=value, grad=grads, value_fn=fn)
        params = optax.apply_updates(state["params"], updates)
        return {**state, "params": params, "opt": opt, "step": state["step"] + 1}, value

    return _chunk(step, length)
