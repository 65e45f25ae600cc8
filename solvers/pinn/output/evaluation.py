"""Errors against the reference on a domain's evaluation grid, and the 2-D plane that plots show.

Metrics are relative L2 errors over every grid point inside the domain (all of space-time for unsteady
problems), and over the regions an equation names (:meth:`~sciml.equations.Equation.error_regions`: a plate's
points away from its re-entrant corners, where the moments are singular). A field the equation knows only up to
a constant (``equation.gauge_free``, e.g. the pressure of a flow with no pressure condition) is first shifted by
the mean difference to the reference (per time level for unsteady problems); the shift is recorded in ``pressure
level`` notes.

Plots show ``x``-``y`` planes: :func:`plane` the middle ``z`` level of a 3D domain at the final time;
:func:`levels` a few of them, at times spread over ``[t0, t1]`` (unsteady cases) or else at ``z`` levels spread
inside a 3D domain.
"""
from __future__ import annotations

import numpy as np

from ..geometry.domain import EvalPoints


def relative_l2(pred: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(pred - ref) / max(np.linalg.norm(ref), 1e-300))


def align(pred: np.ndarray, ref: np.ndarray, ev: EvalPoints) -> np.ndarray:
    """``pred`` plus the constant (per time level) that best matches ``ref`` on the points inside."""
    mask = ev.mask.reshape(ev.shape)
    diff = np.where(mask, ref - pred, 0.0)
    if "t" in ev.coords:
        axes = tuple(i for i, c in enumerate(ev.coords) if c != "t")
        shift = diff.sum(axis=axes, keepdims=True) / np.maximum(mask.sum(axis=axes, keepdims=True), 1)
    else:
        shift = diff.sum() / max(mask.sum(), 1)
    return pred + shift


def errors(pred: dict, ref: dict | None, ev: EvalPoints, gauge_free=(), vectors=None,
           regions=None) -> tuple[dict, dict]:
    """``(predictions aligned where needed, {rel_l2_<field>: error})`` on the points inside the domain.

    ``vectors`` (e.g. ``{"velocity": ("u", "v")}``) adds the relative L2 error of the vector as a whole;
    ``regions`` (``{suffix: mask over the grid's points}``, an equation's :meth:`error_regions`) the error of each
    field on the points inside that the mask keeps, ``rel_l2_<field>_<suffix>``.
    """
    if ref is None:
        return pred, {}
    out, metrics = dict(pred), {}
    mask = ev.mask.reshape(ev.shape)
    for k in pred:
        if k not in ref:
            continue
        if k in gauge_free:
            out[k] = align(pred[k], ref[k], ev)
        metrics[f"rel_l2_{k}"] = relative_l2(out[k][mask], ref[k][mask])
    for name, comps in (vectors or {}).items():
        if all(c in pred and c in ref for c in comps):
            a = np.stack([out[c][mask] for c in comps])
            metrics[f"rel_l2_{name}"] = relative_l2(a, np.stack([ref[c][mask] for c in comps]))
    for suffix, keep in (regions or {}).items():
        where = mask & np.asarray(keep).reshape(ev.shape)
        for k in pred:
            if k in ref:
                metrics[f"rel_l2_{k}_{suffix}"] = relative_l2(out[k][where], ref[k][where])
    return out, metrics


def plane(ev: EvalPoints) -> tuple[tuple, str]:
    """``(index, label)``: the x-y plane of the grid at the middle ``z`` and the last ``t``."""
    index: list[slice | int] = []
    label: list[str] = []
    for c, values in zip(ev.coords, ev.axes):
        if c in ("x", "y"):
            index.append(slice(None))
        else:
            i = len(values) - 1 if c == "t" else len(values) // 2
            index.append(i)
            label.append(f"{c} = {values[i]:.3g}")
    return tuple(index), ", ".join(label)


def levels(ev: EvalPoints, n: int = 3) -> list[tuple[tuple, str]]:
    """Up to ``n`` planes as :func:`plane` gives them, stepping along ``t`` (first, ..., last time) if the
    grid has it, else along ``z`` (levels inside, away from the faces), else the one x-y plane."""
    base, _ = plane(ev)
    axis = next((ev.coords.index(c) for c in ("t", "z") if c in ev.coords), None)
    if axis is None:
        return [plane(ev)]
    count = len(ev.axes[axis])
    spread = np.linspace(0, count - 1, n) if ev.coords[axis] == "t" else np.linspace(0, count - 1, n + 2)[1:-1]
    out = []
    for i in dict.fromkeys(int(round(s)) for s in spread):
        index = base[:axis] + (i,) + base[axis + 1:]
        out.append((index, ", ".join(f"{c} = {ev.axes[a][index[a]]:.3g}" for a, c in enumerate(ev.coords)
                                     if c not in ("x", "y"))))
    return out


def on_plane(ev: EvalPoints, fields: dict | None, index) -> dict | None:
    """Fields restricted to the plot plane, NaN outside the domain (``None`` stays ``None``)."""
    if fields is None:
        return None
    mask = ev.mask.reshape(ev.shape)[index]
    return {k: np.where(mask, np.asarray(v).reshape(ev.shape)[index], np.nan) for k, v in fields.items()}


def errors_of(predict, eq, reference: dict | None, ev: EvalPoints) -> tuple[dict, dict]:
    """``predict(points)``'s fields on the evaluation grid (shaped like it) and their :func:`errors` against
    ``reference`` by equation ``eq``'s gauge, vectors and regions."""
    pred = {k: v.reshape(ev.shape) for k, v in predict(ev.points).items()}
    return errors(pred, reference, ev, eq.gauge_free, eq.vectors, eq.error_regions(ev.points))
