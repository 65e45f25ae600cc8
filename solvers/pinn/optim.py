"""Optimisers as chunks of jitted steps over one state pytree ``{params, opt, step, key}``.

A *chunk* runs up to ``length`` steps inside one ``jax.lax.scan`` (the first ``n`` of them active, so a
short last chunk does not compile again) and returns the loss of every step, which lets the driver find the
exact step of a NaN. Adam follows an optax schedule; L-BFGS is optax's with a zoom line search.
"""
from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import optax

from .config import AdamConfig, LbfgsConfig, ScheduleConfig


def schedule(cfg: ScheduleConfig, lr: float, steps: int) -> optax.Schedule:
    table = {
        "constant": lambda: optax.constant_schedule(lr),
        "exponential": lambda: optax.exponential_decay(lr, cfg.decay_steps, cfg.decay_rate),
        "cosine": lambda: optax.cosine_decay_schedule(lr, max(steps, 1), alpha=cfg.final_lr / lr),
    }
    return table[cfg.type]()


def adam(cfg: AdamConfig) -> tuple[optax.GradientTransformation, optax.Schedule]:
    sched = schedule(cfg.schedule, cfg.lr, cfg.steps)
    return optax.adam(sched), sched


def lbfgs(cfg: LbfgsConfig) -> optax.GradientTransformation:
    return optax.lbfgs(memory_size=cfg.memory)


def init_state(params, tx: optax.GradientTransformation, key, step: int = 0) -> dict:
    return {"params": params, "opt": tx.init(params), "step": jnp.asarray(step, jnp.int32), "key": key}


def _chunk(step: Callable, length: int) -> Callable:
    """``(state, batch, n) -> (state, losses[length])`` running ``n <= length`` steps of ``step``."""

    def run(state, batch, n):
        def body(s, i):
            return jax.lax.cond(i < n, lambda s: step(s, batch), lambda s: (s, jnp.nan * jnp.zeros((), _dtype(s))), s)

        return jax.lax.scan(body, state, jnp.arange(length))

    return jax.jit(run)


def _dtype(state):
    return jax.tree_util.tree_leaves(state["params"])[0].dtype


def adam_chunk(loss: Callable, tx: optax.GradientTransformation, length: int) -> Callable:
    """Adam steps; the loss is ``loss(params, batch, key) -> (total, terms)``."""

    def step(state, batch):
        key, sub = jax.random.split(state["key"])
        (total, _), grads = jax.value_and_grad(loss, has_aux=True)(state["params"], batch, sub)
        updates, opt = tx.update(grads, state["opt"], state["params"])
        params = optax.apply_updates(state["params"], updates)
        return {"params": params, "opt": opt, "step": state["step"] + 1, "key": key}, total

    return _chunk(step, length)


def lbfgs_chunk(loss: Callable, tx: optax.GradientTransformation, length: int) -> Callable:
    """L-BFGS steps on the deterministic objective ``loss(params, batch, fixed key)``."""

    def step(state, batch):
        fn = lambda p: loss(p, batch, state["key"])[0]
        value, grads = optax.value_and_grad_from_state(fn)(state["params"], state=state["opt"])
        updates, opt = tx.update(grads, state["opt"], state["params"], value=value, grad=grads, value_fn=fn)
        params = optax.apply_updates(state["params"], updates)
        return {"params": params, "opt": opt, "step": state["step"] + 1, "key": state["key"]}, value

    return _chunk(step, length)
