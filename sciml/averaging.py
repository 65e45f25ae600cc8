"""Weight averaging: the parameters a run evaluates may be an average of those it trains.

With ``p`` the parameters, ``a`` their average (a pytree of the same structure, kept in the training state
under ``"average"``), epochs counted from 1 and ``start`` (>= 0) the epochs trained before averaging begins:

- ``none``: the parameters themselves are evaluated; no average is kept;
- ``ema`` (exponential moving average, Polyak & Juditsky 1992): after every optimiser step of an epoch
  ``e > start``, ``a <- d · a + (1 - d) · p`` (``d``: ``decay``); before, ``a = p``. Its horizon is about
  ``1 / (1 - d)`` steps;
- ``swa`` (stochastic weight averaging, Izmailov et al., UAI 2018): at the end of epoch ``e > start``,
  ``a <- a + (p - a) / (e - start)``, the mean of the parameters at the ends of epochs ``start + 1 … e``;
  before, ``a = p``.

:func:`build` gives an :class:`Averaging`: pure functions of a state dict holding ``"params"`` (and, once
``init`` has run, ``"average"``), traceable inside a jitted step, and ``key``, the entry of the state holding
the parameters to evaluate and export.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

KEY = "average"
State = dict[str, Any]


class Averaging(NamedTuple):
    """``key``: the state entry whose parameters are evaluated. ``init(state)``: the state with its average
    (a copy of the parameters). ``step(state, done)``: after an optimiser step, ``done`` epochs completed
    before it. ``epoch(state, done)``: at the end of an epoch, ``done`` epochs completed with it."""

    key: str
    init: Callable[[State], State]
    step: Callable[[State, Any], State]
    epoch: Callable[[State, Any], State]


def _unchanged(state: State, done: Any = None) -> State:
    return state


def _init(state: State) -> State:
    return {**state, KEY: state["params"]}


def _update(state: State, rule: Callable) -> State:
    return {**state, KEY: jax.tree_util.tree_map(rule, state[KEY], state["params"])}


def _ema(decay: float, start: int) -> Averaging:
    def step(state, done):
        return _update(state, lambda a, p: jnp.where(done >= start, decay * a + (1.0 - decay) * p, p))

    return Averaging(KEY, _init, step, _unchanged)


def _swa(decay: float, start: int) -> Averaging:
    def epoch(state, done):
        n = jnp.maximum(done - start, 1)
        return _update(state, lambda a, p: jnp.where(done > start, a + (p - a) / n, p))

    return Averaging(KEY, _init, _unchanged, epoch)


NONE = Averaging("params", _unchanged, _unchanged, _unchanged)

KINDS: dict[str, Callable[[float, int], Averaging]] = {
    "none": lambda decay, start: NONE,
    "ema": _ema,
    "swa": _swa,
}


def build(kind: str, decay: float = 0.999, start: int = 0) -> Averaging:
    """The averaging ``kind`` (a key of :data:`KINDS`); ``decay`` is used by ``ema`` only."""
    return KINDS[kind](decay, start)
