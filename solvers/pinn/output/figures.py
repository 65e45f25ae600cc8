"""A PINN run's figures and its equation's checks: field maps against the reference, an ensemble's spread, the
loss history, the checks' profiles, maps and series (each series also as numbers, ``plots/<name>.csv``)."""
from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial

import numpy as np

from sciml import plots
from sciml.compile import points

from ..features import ensemble
from . import evaluation, fields_h5
from . import plots as pinn_plots


def write(out: str, case: str, equation, ev, pred: dict, std: dict | None, reference: dict | None, rows: list,
          phases: tuple[str, ...], errors: dict) -> None:
    """Into run folder ``out``: ``fields.h5`` (the predictions ``pred``, an ensemble's spread ``std``, the
    reference) and an ensemble's spread plots, where the evaluation points are a grid (a high-dimensional ball's
    scattered held-out points have none); the loss history of the metrics ``rows`` (``phases``: their names)
    with the final ``errors``."""
    if ev.gridded:
        fields_h5.write(os.path.join(out, "fields.h5"), ev, pred, reference, case, equation.units, std)
        if std is not None:
            spread_plots(ev, pred, std, reference, os.path.join(out, "plots"), equation.units)
    if rows:
        plots.save(partial(plots.loss_history, rows, f"{case}: loss", phases, errors),
                   os.path.join(out, "plots", "loss.png"))


def spread_plots(ev, pred: dict, std: dict, reference: dict | None, folder: str, units) -> None:
    """An ensemble's spread: ``<field>_std.png`` (maps on the plot planes) and ``<field>_band.png`` (the
    profile along x through the middle of the plot plane, mean +- 1.96 std, with the reference)."""
    grids, units = ev.grids(), dict(units or {})
    index, where = evaluation.plane(ev)
    X, Y = grids[0][index], grids[1][index]
    mean, spread = evaluation.on_plane(ev, pred, index) or {}, evaluation.on_plane(ev, std, index) or {}
    ref = evaluation.on_plane(ev, reference, index) or {}
    j = X.shape[1] // 2
    for k in std:
        level = pinn_plots.Level(X, Y, spread[k], None, where)
        plots.save(partial(pinn_plots.field_maps, [level], f"{k}_std", {**units, f"{k}_std": units.get(k)}),
                   os.path.join(folder, f"{k}_std.png"))
        line = {"s_axis": X[:, j], "mean": mean[k][:, j], "std": spread[k][:, j], "band": ensemble.BAND,
                "ref": ref[k][:, j] if k in ref else None, "ylabel": plots.label(k, units.get(k)),
                "xlabel": plots.label("x", units.get("x")),
                "title": f"{k} along x at y = {Y[0, j]:.3g}" + (f", {where}" if where else "")}
        plots.save(partial(pinn_plots.band, line), os.path.join(folder, f"{k}_band.png"))


def plots_and_checks(predict: Callable, equation, ev, pred, reference, out: str | None) -> dict:
    """Field maps on a few planes (:func:`.evaluation.levels`), a flow picture for velocity fields on the
    plot plane, and the equation's checks on ``predict(points, of=None)`` (``out`` None: the checks' metrics
    without writing plots)."""
    metrics: dict[str, float] = {}
    notes: list[str] = []
    result = {"metrics": metrics, "notes": notes}
    folder, units = os.path.join(out or "", "plots"), dict(equation.units or {})
    for check in equation.checks(predict):
        metrics.update(check.metrics)
        notes.extend(check.notes)
        if out is not None:
            for name, prof in check.profiles.items():
                plots.save(partial(pinn_plots.profile, prof), os.path.join(folder, f"{name}.png"))
            for name, m in check.maps.items():
                level = pinn_plots.Level(m["X"], m["Y"], m["values"], None, m["where"])
                plots.save(partial(pinn_plots.field_maps, [level], m["field"], units),
                           os.path.join(folder, f"{name}.png"))
            for name, sr in check.series.items():  # the curves also as numbers, a column each
                plots.save(partial(pinn_plots.series, sr), os.path.join(folder, f"{name}.png"))
                points.write(os.path.join(folder, f"{name}.csv"), np.asarray(sr["t"], float)[:, None], ["t"],
                             sr["curves"])
    if out is None or not ev.gridded:
        return result
    grids = ev.grids()
    planes = []
    for index, where in evaluation.levels(ev):
        p2, r2 = evaluation.on_plane(ev, pred, index) or {}, evaluation.on_plane(ev, reference, index) or {}
        planes.append((grids[0][index], grids[1][index], p2, r2, where))
    for k in pred:
        levels = [pinn_plots.Level(X, Y, p2[k], r2.get(k), where) for X, Y, p2, r2, where in planes]
        plots.save(partial(pinn_plots.field_maps, levels, k, units), os.path.join(folder, f"{k}.png"))
    index, where = evaluation.plane(ev)
    p2 = evaluation.on_plane(ev, pred, index) or {}
    if "u" in p2 and "v" in p2:
        plots.save(partial(pinn_plots.flow, grids[0][index], grids[1][index], p2["u"], p2["v"], where, units),
                   os.path.join(folder, "flow.png"))
    return result
