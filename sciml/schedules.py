"""Learning-rate schedules by name: one table for every solver (optax schedules underneath), and the one case-file
section that names them, :class:`ScheduleConfig` (a PINN's ``training.adam.schedule``, an operator's
``training.schedule``).

``build(kind, lr, total, ...)`` returns ``step -> learning rate`` for a run of ``total`` steps whose first
``warmup`` steps ramp from 0 up to ``lr``; after them (``t`` counts from the warm-up's end, ``n = total -
warmup``) the curve of the kind (:data:`KINDS`):

- ``constant``: ``lr``;
- ``exponential``: ``lr · decay^(t / every)``, a smooth decay;
- ``step``: the same with the exponent floored, a staircase (the FNO paper's: ``lr`` halved every 100 epochs);
- ``cosine``: ``final_lr + (lr - final_lr) · (1 + cos(π t / n)) / 2``, half a cosine down to ``final_lr``;
- ``onecycle``: the same cosine after a warm-up that is itself half a cosine, ``lr · (1 - cos(π s /
  warmup)) / 2`` at step ``s`` (Smith & Topin 2017, "Super-convergence", with cosine annealing both ways as
  in fastai and ``optax.cosine_onecycle_schedule``, but from 0 and down to ``final_lr``); it needs a warm-up.

The warm-up of the other kinds is linear, ``lr · s / warmup``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

import jax.numpy as jnp
import optax

from .config import spec
from .errors import Invalid


@dataclass(frozen=True)
class Options:
    """What a curve may use: the peak ``lr``, the ``steps`` after the warm-up and the kinds' own settings."""

    lr: float
    steps: int
    every: int = 1
    decay: float = 1.0
    final_lr: float = 0.0


def linear_ramp(lr: float, n: int) -> optax.Schedule:
    """``lr · s / n`` over ``n`` steps."""
    return optax.linear_schedule(0.0, lr, n)


def cosine_ramp(lr: float, n: int) -> optax.Schedule:
    """``lr · (1 - cos(π s / n)) / 2`` over ``n`` steps: 0 to ``lr``, flat at both ends."""
    return lambda step: lr * (1.0 - jnp.cos(jnp.pi * jnp.minimum(step / n, 1.0))) / 2.0


def _cosine(o: Options) -> optax.Schedule:
    return optax.cosine_decay_schedule(o.lr, max(o.steps, 1), alpha=o.final_lr / o.lr)


def _exponential(staircase: bool) -> Callable[[Options], optax.Schedule]:
    return lambda o: optax.exponential_decay(o.lr, o.every, o.decay, staircase=staircase)


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
    "exponential": Kind(_exponential(staircase=False)),
    "step": Kind(_exponential(staircase=True)),
    "cosine": Kind(_cosine, spans=True),
    "onecycle": Kind(_cosine, ramp=cosine_ramp, spans=True, needs_warmup=True),
}


def build(kind: str, lr: float, total: int, *, warmup: int = 0, **options) -> optax.Schedule:
    """The schedule ``kind`` (a key of :data:`KINDS`) for a run of ``total`` steps, the first ``warmup`` of them
    a warm-up; ``options``: ``every``, ``decay``, ``final_lr`` (:class:`Options`).

    >>> s = build("onecycle", 1.0, 100, warmup=20, final_lr=0.1)
    >>> [round(float(s(t)), 4) for t in (0, 10, 20, 60, 100)]
    [0.0, 0.5, 1.0, 0.55, 0.1]
    """
    k = KINDS[kind]
    curve = k.curve(Options(lr, total - warmup, **options))
    if not warmup:
        return curve
    return optax.join_schedules([k.ramp(lr, warmup), curve], [warmup])


Type = Literal["constant", "exponential", "step", "cosine", "onecycle"]  # the keys of KINDS (a test holds them equal)
UNITS = "in the solver's own unit: a PINN's optimizer steps, an operator's epochs"


@dataclass
class ScheduleConfig:
    """The learning-rate schedule, one section with the same keys in every solver (a PINN's
    ``training.adam.schedule``, an operator's ``training.schedule``). ``every`` and ``warmup`` count the solver's
    own unit (:attr:`UNIT`): a PINN's optimizer steps, an operator's epochs. The defaults are a PINN's (a smooth
    decay by 0.9 every 1000 steps); an operator's schedule is a subclass with the FNO paper's
    (``solvers/fno/config.py``)."""

    UNIT: ClassVar[str] = "step"  # what every and warmup count, in the one-line errors
    renamed: ClassVar[dict[str, str]] = {  # the keys of the two vocabularies before this one: the key to write now
        "decay_rate": "decay", "decay_steps": "every", "warmup_steps": "warmup", "gamma": "decay"}

    type: Type = spec("exponential", help="constant: lr; exponential: lr times decay^(t / every), a smooth decay; "
                                          "step: lr times decay after each `every`, a staircase (the FNO paper's); "
                                          "cosine: half a cosine from lr down to final_lr; onecycle: a warm-up "
                                          "along half a cosine from 0 up to lr, then the cosine down to final_lr")
    decay: float = spec(0.9, gt=0.0, le=1.0, help="exponential, step: the factor per `every`")
    every: int = spec(1000, ge=1, help=f"exponential, step: the decay's period, {UNITS}")
    final_lr: float = spec(0.0, ge=0.0, help="cosine, onecycle: learning rate at the end")
    warmup: int = spec(0, ge=0, help=f"a warm-up from 0 up to lr before the schedule, {UNITS} (linear; along half "
                                     "a cosine for onecycle, which needs at least 1)")

    def check(self):
        if KINDS[self.type].needs_warmup and not self.warmup:
            raise Invalid("warmup", f"{self.type} needs a warm-up of at least 1 {self.UNIT}")

    def learning_rate(self, lr: float, total: int, unit: int = 1) -> optax.Schedule:
        """The schedule from peak ``lr`` over ``total`` optimizer steps, ``unit`` of them to the unit of
        ``every`` and ``warmup`` (an operator's steps per epoch)."""
        return build(self.type, lr, total, warmup=self.warmup * unit, every=self.every * unit, decay=self.decay,
                     final_lr=self.final_lr)


def default(name: str, value) -> Any:
    """The field ``name`` of :class:`ScheduleConfig` (its bounds and help) with another default: a solver's own,
    in a subclass."""
    base = next(f for f in fields(ScheduleConfig) if f.name == name)
    return field(default=value, metadata=base.metadata)
