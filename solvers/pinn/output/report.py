"""What the PINN's features add to a run's metrics rows and its summary: a :class:`Report` each, in one table.

The driver (:class:`sciml.solvers.pinn.run._Pinn`, here ``pinn``) builds the reports of the features its case
uses (:data:`REPORTS`, by the names of :data:`sciml.solvers.pinn.features.USED`); after each chunk every report
adds its entries to the metrics row (:meth:`Report.row`), and at the end to the summary (:meth:`Report.summary`),
in the table's order. Also here: the errors during training (:func:`errors_now`) and the evaluation of a family
at each of its listed values (:func:`family`).
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from sciml import loop, parallel

from ..features import curriculum, ensemble, identifiability, parameters, windows
from . import evaluation
from .evaluation import errors_of


class Report:
    """A feature's entries of the metrics rows and the summary; none by default."""

    def row(self, pinn, params, phase, run: loop.Run) -> dict:
        """Entries of the metrics row after a chunk of ``phase`` ended with ``params`` (on the devices)."""
        return {}

    def summary(self, pinn, params, errors: dict, result: dict, run: loop.Run) -> dict:
        """Entries of the summary ``result`` (built so far), from the final host ``params``; ``errors`` are the
        run's metrics (a report may add to them)."""
        return {}


class Family(Report):
    """A family (``parameters``): each evaluated combination's errors and checks, the parameters' ranges, and
    which combination ``fields.h5`` and the maps show (:func:`family`, run before)."""

    def summary(self, pinn, params, errors, result, run):
        shown = f"fields.h5 and the field maps are at {parameters.label(pinn.family[0][0])}"
        return {"parameters": pinn.problem.parameters.ranges(), "family": pinn.family_rows,
                "notes": [*result.get("notes", []), shown]}


class Ensemble(Report):
    """An ensemble: its members, how they started, whether they fit resamples, each metric's mean and spread."""

    def summary(self, pinn, params, errors, result, run):
        each = [m[1] for m in pinn.member_errors]
        return {"ensemble": {"members": pinn.members, "start": pinn.cfg.ensemble.start,
                             "bootstrap": "root_count" in pinn.batch.get("data", {}),
                             "metrics": {k: ensemble.stats([e[k] for e in each]) for k in each[0]}}}


class Unknowns(Report):
    """Unknowns: their values in each row (``unknown.<name>``, an ensemble's mean and ``.std``); the summary's
    ``unknowns`` and ``identifiability`` (:mod:`..features.identifiability`; of an ensemble: each member's test
    on its own batch, the members' mean, and under ``ensemble.unknowns`` the spread and 95 % intervals), and the
    field unknowns' errors."""

    def row(self, pinn, params, phase, run):
        problem = pinn.problem
        if pinn.members == 1:
            return {f"unknown.{k}": v for k, v in problem.unknown_values(params).items()}
        each = [problem.unknown_values(ensemble.member(params, m)) for m in range(pinn.members)]
        return {f"unknown.{k}{suffix}": v for k in each[0]
                for suffix, v in zip(("", ".std"), ensemble.stats([e[k] for e in each]).values())}

    def summary(self, pinn, params, errors, result, run):
        problem = pinn.problem
        if pinn.members == 1:
            out = identifiability.report(problem, [params], [pinn.batch], errors)
        else:
            each = [ensemble.member(params, m) for m in range(pinn.members)]
            batches = [ensemble.member_batch(pinn.batch, m) for m in range(pinn.members)]
            out = identifiability.report(problem, each, batches, errors)
            values = [problem.unknown_values(p) for p in each]
            result["ensemble"]["unknowns"] = ensemble.unknowns(values, problem.unknowns.truth())
        return {**out, **identifiability.fields(problem, params, problem.geometry, errors)}


class Curriculum(Report):
    """A curriculum: each row carries the stage's value (a column named as the number), the row that ends a
    stage also its ``residual_rms`` and the checks' metrics (printed); the summary lists those ends as
    ``stages``, with whether the run ``converged`` and why."""

    def row(self, pinn, params, phase, run):
        out = dict(pinn.plan[phase.stage].constants or {})
        if pinn.step == phase.end and phase is [p for p in pinn.phases if p.stage == phase.stage][-1]:
            out.update(self._stage_end(pinn, phase.stage, parallel.to_host(params), run))
        return out

    @staticmethod
    def _stage_end(pinn, stage: int, params, run: loop.Run) -> dict:
        problem = pinn.problem
        checks = problem.equation.checks(lambda pts: problem.predict(params, pts))
        record = {"residual_rms": curriculum.residual_rms(problem, params, pinn.residual_points),
                  **{k: v for c in checks for k, v in c.metrics.items()}}
        run.write(f"stage {stage + 1}/{len(pinn.plan)} ({pinn.plan[stage].label}) ends at step {pinn.step}: "
                       + ", ".join(f"{k} {v:.3g}" for k, v in record.items()))
        return record

    def summary(self, pinn, params, errors, result, run):
        cur = pinn.cfg.training.curriculum
        errors["residual_rms"] = curriculum.residual_rms(pinn.problem, params, pinn.residual_points)
        converged, why = curriculum.verdict(errors, cur.ghia, cur.residual)
        run.write(("converged: " if converged else "NOT converged: ") + why)
        ends = [r for r in run.rows if np.isfinite(r.get("residual_rms", np.nan))]
        name = curriculum.number(pinn.cfg)
        stages = [{name: r[name], "step": int(r["step"]), "wall_time_s": r["wall_time_s"],
                   **{k: r[k] for k in r if k == "residual_rms" or k.startswith("ghia_")}} for r in ends]
        return {"stages": stages, "converged": converged, "convergence": why}


# the reports, by the feature's name in features.USED, in the order their summary entries are made
REPORTS: dict[str, type[Report]] = {
    "parameters": Family,
    "ensemble": Ensemble,
    "unknowns": Unknowns,
    "training.curriculum": Curriculum,
}


def errors_now(pinn, params, run: loop.Run) -> dict:
    """The errors during training (``evaluation.every``), printed: over the times trained so far; of a family,
    the worst over its values."""
    ev, window = pinn.ev, pinn.plan[pinn.stage].window
    if window is not None:
        end = windows.bounds(pinn.cfg, window)[1]
        ev = dataclasses.replace(ev, mask=ev.mask & (ev.points[:, -1] <= end + 1e-12))
    if pinn.family is None:
        m = errors_of(pinn.predictor(params), pinn.equation, pinn.reference, ev)[1]
    else:
        each = [errors_of(pinn.predictor(params, v), eq, ref, ev)[1] for v, eq, ref in pinn.family]
        m = {k: max(e[k] for e in each) for k in each[0]}
    run.write(f"step {pinn.step}: " + ", ".join(f"{k} {v:.3e}" for k, v in m.items()))
    return m


def members_on_grid(pinn, params, values, eq) -> tuple[dict, dict, dict]:
    """An ensemble on the evaluation grid, each member once: ``(the members' mean, its errors, the spread)``;
    each member's ``(predictions, errors)`` kept for the summary (:class:`Ensemble`)."""
    pinn.member_errors = [errors_of(p, eq, pinn.reference, pinn.ev) for p in pinn.members_predict(params, values)]
    mean, std = ensemble.mean_fields([m[0] for m in pinn.member_errors])
    mean, errors = evaluation.errors(mean, pinn.reference, pinn.ev, eq.gauge_free, eq.vectors,
                                     eq.error_regions(pinn.ev.points))
    return mean, errors, std


def family(pinn, params, run: loop.Run) -> tuple[dict, list[dict]]:
    """A family's evaluation: each combination's errors and checks, printed; ``(the worst of each error over
    them, the rows)``."""
    rows: list[dict[str, Any]] = []
    for values, eq, ref in pinn.family:
        predict = pinn.predictor(params, values)
        _, m = errors_of(predict, eq, ref, pinn.ev)
        for check in eq.checks(predict):
            m.update(check.metrics)
        rows.append({**values, "metrics": m})
        run.write(f"{parameters.label(values)}: " + ", ".join(f"{k} {v:.3e}" for k, v in m.items()))
    names = [k for k in rows[0]["metrics"] if k.startswith("rel_l2_") or k.endswith("_err")]
    worst = {k: max(r["metrics"][k] for r in rows) for k in names}
    run.write("worst over the family: " + ", ".join(f"{k} {v:.3e}" for k, v in worst.items()))
    return worst, rows
