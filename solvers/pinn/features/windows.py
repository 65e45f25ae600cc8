r"""Time windows (``training.windows``): a space-time case trained one window after another.

The case's interval :math:`[t_0, t_1]` is cut into :math:`N` windows of equal length
:math:`\Delta = (t_1 - t_0)/N`; window :math:`k` is the case on :math:`[t_0 + k\Delta, t_0 + (k+1)\Delta]`
(:func:`case`), so its network sees a nondimensional time of its own in :math:`[-1, 1]`, and causal weighting
(``loss.causal``) acts inside it. Window 0 keeps the case's initial condition; window :math:`k > 0` matches
the fields of window :math:`k-1` at its first time instead (:class:`~sciml.solvers.pinn.problem.Problem` with
``initial``; as a penalty, or exactly or as a base through a spline of them on the grid of ``conditions.spacing``,
:mod:`sciml.solvers.pinn.exact`) and starts from the parameters window :math:`k-1` ended with (each of its phases with
a fresh optimizer); with ``training.continued`` those are first rewritten so that its network, on its own time axis,
gives window :math:`k-1`'s fields at every time (:meth:`~sciml.solvers.pinn.problem.Problem.continued`: the time
input's shift and scale taken up by the first layers), so that it starts where the last one ends, its initial terms at
zero. Window :math:`k` draws its points from a stream of its own, ``(seed, k)``, so a run resumed at any window gives
the numbers of one never stopped.

The driver (:mod:`sciml.solvers.pinn.run`) writes window :math:`k`'s parameters to ``checkpoints/window_<k>.h5`` when
it ends (attributes: the window and its interval; the last window's are the run's model, ``checkpoints/model.h5``);
``--resume`` restores the windows before the one it continues (:func:`chain`) and, from the end of a window,
goes on with the next one, also in a case given more windows of the same length (a longer interval). ``sciml
export`` builds the same chain and answers over the whole interval. A time :math:`t` is predicted by the window
holding it (:func:`index`: a time shared by two windows belongs to the earlier one, whose last time it is).

``training.overlap: f`` trains each window but the last on :math:`f\Delta` more, past its end
(:func:`bounds`); the next window still starts, and takes its initial values, at the end of the window's own
interval, and times past it are still predicted by the next window. Causal weighting trains a window's last
times least, and those are the ones handed over: with an overlap they lie inside the interval trained.
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from types import MethodType
from typing import Any

import numpy as np

from sciml.errors import UserError
from sciml.io import checkpoint

from ..config import PinnCase


def bounds(cfg: PinnCase, k: int) -> tuple[float, float]:
    """The time interval window ``k`` is trained on: its own, and ``training.overlap`` of a window past its end
    (module notes)."""
    t0, t1 = _interval(cfg)
    n = cfg.training.windows
    step = (t1 - t0) / n
    return t0 + k * step, (t1 if k == n - 1 else min(t1, t0 + (k + 1 + cfg.training.overlap) * step))


def _interval(cfg: PinnCase) -> tuple[float, float]:
    time = getattr(cfg.geometry, "time", None)
    assert time is not None, "windows need a time interval (checked when the case is loaded)"
    return time


def case(cfg: PinnCase, k: int) -> PinnCase:
    """The case restricted to window ``k`` (the whole case when it has one window)."""
    if cfg.training.windows == 1:
        return cfg
    geometry: Any = cfg.geometry  # one with a time interval (checked when the case is loaded)
    return dataclasses.replace(cfg, geometry=dataclasses.replace(geometry, time=bounds(cfg, k)))


def index(cfg: PinnCase, t, xp: Any = np):
    """The window holding each time of ``t`` (module notes); ``xp``: the array module (``jax.numpy`` in a traced
    prediction)."""
    t0, t1 = _interval(cfg)
    n = cfg.training.windows
    return xp.clip(xp.ceil((xp.asarray(t) - t0) / (t1 - t0) * n - 1e-9).astype(int) - 1, 0, n - 1)


def predict(cfg: PinnCase, trained: list[tuple], points, of: Callable | None = None) -> dict:
    """The fields at physical ``points`` (time last), each from the window holding its time: ``trained`` lists
    ``(problem, params)`` of windows 0, 1, ...; later times go to the last one given. ``of`` a method of the
    case's equation (e.g. ``gradients``) is taken as the window's equation's (:func:`_own`)."""
    points = np.asarray(points, float)
    which = np.minimum(index(cfg, points[:, -1]), len(trained) - 1)
    out: dict = {}
    for k in np.unique(which):
        problem, params = trained[k]
        sel = which == k
        for name, v in problem.predict(params, points[sel], of=_own(problem, of)).items():
            out.setdefault(name, np.empty(len(points), np.asarray(v).dtype))[sel] = v
    return out


def _own(problem, of: Callable | None) -> Callable | None:
    """``of``, or, when it is a method of an equation of the window's kind (the whole case's), the same method of
    the window's equation: derivatives in time are the window's (its own time scale), not the whole interval's."""
    owner = getattr(of, "__self__", None)
    if of is None or owner is None or type(owner) is not type(problem.equation):
        return of
    return MethodType(of.__func__, problem.equation)  # type: ignore[attr-defined]


def path(run_dir: str, k: int) -> str:
    return os.path.join(run_dir, "checkpoints", f"window_{k}.h5")


def save(run_dir: str, cfg: PinnCase, k: int, params) -> None:
    """Window ``k``'s parameters (host arrays), atomically."""
    checkpoint.save(path(run_dir, k), {"params": params}, window=k, time=np.asarray(bounds(cfg, k)))


def chain(cfg: PinnCase, params: list) -> list[tuple]:
    """``[(problem, params)]`` of windows 0, 1, ... from each one's parameters, in order: each window's problem
    takes the previous one's fields as its initial values, as in training."""
    from ..problem import assemble

    out: list[tuple] = []
    for k, p in enumerate(params):
        out.append((assemble(case(cfg, k), handover(*out[-1]) if out else None), p))
    return out


def handover(previous, params) -> Callable:
    """The initial values of the window after ``previous`` (its problem) with ``params``: its network's fields at
    physical points, as that window's :class:`~sciml.solvers.pinn.problem.Problem` takes them (``initial``)."""
    return lambda pts: previous.predict(params, pts, of=previous.network_fields)


def load(run_dir: str, cfg: PinnCase, k: int, template):
    """Window ``k``'s parameters, checked to cover the same interval in this case."""
    file = path(run_dir, k)
    saved = tuple(float(t) for t in checkpoint.attrs(file).get("time", (np.nan, np.nan)))
    if not np.allclose(saved, bounds(cfg, k), rtol=1e-12, atol=1e-12):
        raise UserError(f"{file}: window {k} covered t in {list(saved)}; in this case it covers "
                        f"{list(bounds(cfg, k))} (keep the windows' length when resuming)")
    return checkpoint.load_part(file, "params", template)
