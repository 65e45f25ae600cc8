"""Learning-rate schedules by name: one table for every solver (optax schedules underneath).

``build(kind, lr, total, ...)`` returns ``step -> learning rate`` for a run of ``total`` steps whose first
``warmup`` steps ramp from 0 up to ``lr``; after them (``t`` counts from the warm-up's end, ``n = total -
warmup``) the curve of the kind (:data:`KINDS`):

- ``constant``: ``lr``;
- ``exponential``: ``lr · rate^(t / decay_steps)`` (with ``staircase``, the exponent is floored: the FNO
  paper's step decay, ``gamma`` every ``every`` epochs);
- ``cosine``: ``final_lr + (lr - final_lr) · (1 + cos(π t / n)) / 2``, half a cosine down to ``final_lr``;
- ``onecycle``: the same cosine after a warm-up that is itself half a cosine, ``lr · (1 - cos(π s /
  warmup)) / 2`` at step ``s`` (Smith & Topin 2017, "Super-convergence", with cosine annealing both ways as
  in fastai and ``optax.cosine_onecycle_schedule``, but from 0 and down to ``final_lr``); it needs a warm-up.

The warm-up of the other kinds is linear, ``lr · s / warmup``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import jax.numpy as jnp
import optax


@dataclass(frozen=True)
class Options:
    """What a curve may use: the peak ``lr``, the ``steps`` after the warm-up and the kinds' own settings."""

    lr: float
    steps: int
    decay_steps: int = 1
    decay_rate: float = 1.0
    staircase: bool = False
    final_lr: float = 0.0


def linear_ramp(lr: float, n: int) -> optax.Schedule:
    """``lr · s / n`` over ``n`` steps."""
    return optax.linear_schedule(0.0, lr, n)


def cosine_ramp(lr: float, n: int) -> optax.Schedule:
    """``lr · (1 - cos(π s / n)) / 2`` over ``n`` steps: 0 to ``lr``, flat at both ends."""
    return lambda step: lr * (1.0 - jnp.cos(jnp.pi * jnp.minimum(step / n, 1.0))) / 2.0


def _cosine(o: Options) -> optax.Schedule:
    return optax.cosine_decay_schedule(o.lr, max(o.steps, 1), alpha=o.final_lr / o.lr)


@dataclass(frozen=True)
class Kind:
    """A schedule: its ``curve`` after the warm-up, the warm-up's ``ramp``, whether the curve ``spans`` the run
    (depends on its total number of steps) and whether it ``needs_warmup``."""

    curve: Callable[[Options], optax.Schedule]
    ramp: Callable[[float, int], optax.Schedule] = linear_ramp
    spans: bool = False
    needs_warmup: bool = False


KINDS = {
    "constant": Kind(lambda o: optax.constant_schedule(o.lr)),
    "exponential": Kind(lambda o: optax.exponential_decay(o.lr, o.decay_steps, o.decay_rate, staircase=o.staircase)),
    "cosine": Kind(_cosine, spans=True),
    "onecycle": Kind(_cosine, ramp=cosine_ramp, spans=True, needs_warmup=True),
}


def build(kind: str, lr: float, total: int, *, warmup: int = 0, **options) -> optax.Schedule:
    """The schedule ``kind`` (a key of :data:`KINDS`) for a run of ``total`` steps, the first ``warmup`` of them
    a warm-up; ``options``: ``decay_steps``, ``decay_rate``, ``staircase``, ``final_lr`` (:class:`Options`).

    >>> s = build("onecycle", 1.0, 100, warmup=20, final_lr=0.1)
    >>> [round(float(s(t)), 4) for t in (0, 10, 20, 60, 100)]
    [0.0, 0.5, 1.0, 0.55, 0.1]
    """
    k = KINDS[kind]
    curve = k.curve(Options(lr, total - warmup, **options))
    if not warmup:
        return curve
    return optax.join_schedules([k.ramp(lr, warmup), curve], [warmup])
