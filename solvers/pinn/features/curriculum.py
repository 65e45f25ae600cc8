r"""A curriculum (continuation in one number of the equation, ``training.curriculum``).

A flow at a high Reynolds number trained from random parameters settles in a wrong, over-diffused solution; one
trained from the converged flow at a lower one does not (Wang, Sankaran, Wang & Perdikaris, "An expert's guide to
training physics-informed neural networks", 2023: the cavity at Reynolds numbers 100 → 400 → 1000 → 3200). The
same holds of other numbers that make a problem stiffer. The run trains stage by stage at values
:math:`c_1, \dots, c_n` of one number of the ``equation`` section (``key``, a dotted name such as
``equation.nu``), rising or falling to the section's own :math:`c_n`, each stage starting from the parameters the
last one ended with (the driver, :mod:`sciml.solvers.pinn.run`, keeps one step count across stages). The solver knows
no number by name: the stage's value rides in the batch (``constants``) and the residuals take the equation at it
(:meth:`~sciml.equations.Equation.at`).

- :func:`stages`: the stages' values. ``auto``: the equation's own
  (:meth:`~sciml.equations.Equation.continuation`; the flow's are Ghia's tabulated ones below its target, so
  every stage of a cavity has its Ghia error); a list is checked (monotone, ends at the section's value).
- :func:`stage_case`: the case at one stage's value (its ``equation`` section with the number replaced).
- :func:`residual_rms`: the rms interior residual :math:`\sqrt{\overline{\sum_k r_k^2}}` (nondimensional,
  e.g. both momentum equations) on a fixed grid of cell midpoints (64 × 64 in 2D, none of them a
  collocation point) in the core of the domain, ``CORE`` (5 %) of the bounding box's extent away from each
  of its faces: the corners of a cavity's lid are singular, and their residual would swamp the rest (at
  Reynolds number 100, the rms over the whole box is 0.8 where the core's is 0.01 and the median 0.006).
- :func:`verdict`: whether the run converged: rms residual at most ``residual`` and, where the case has
  Ghia's check, the Ghia errors of u and v at most ``ghia`` (thresholds in the case file).
"""
from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from sciml import equations
from sciml.equations import EQUATIONS
from sciml.equations.sections import numbers, replace
from sciml.errors import Invalid

AUTO = "auto"
SECTION = "equation."  # a curriculum's key names a number of this section
RESIDUAL_POINTS = 4096  # the grid of residual_rms: 64 x 64 cell midpoints in 2D ...
CORE = 0.05  # ... this fraction of the bounding box away from its faces


def number(cfg) -> str:
    """The dotted name, within the ``equation`` section, of the number case ``cfg``'s curriculum continues in."""
    return cfg.training.curriculum.key.removeprefix(SECTION)


def stages(cfg) -> list[float]:
    """The stages' values of case ``cfg``'s curriculum (``values``: ``auto`` or a list); ``ValueError`` for
    values that are not monotone or do not end at the section's, or ``auto`` where the equation gives none."""
    spec, name, section = cfg.training.curriculum.values, number(cfg), cfg.equation
    target = numbers(section).get(name)
    if target is None:
        raise ValueError(f"the equation section sets no number {name!r}")
    if spec == AUTO:
        auto = EQUATIONS[section.type][1].continuation(section, name)
        if auto is None:
            raise ValueError(f"the equation ({section.type}) gives no values for {name}: list them")
        return [float(v) for v in auto]
    values = [float(v) for v in spec]
    steps = [b - a for a, b in zip(values, values[1:])]
    if not values or not (all(d > 0 for d in steps) or all(d < 0 for d in steps)):
        raise ValueError(f"the stages must rise or fall, got {values}")
    if abs(values[-1] - target) > 1e-9 * abs(target):
        raise ValueError(f"the last stage must be the section's {SECTION}{name} = {target:g}, got {values[-1]:g}")
    return values


def stage_case(cfg, value: float):
    """The case ``cfg`` at one stage's ``value`` of the curriculum's number."""
    return dataclasses.replace(cfg, equation=replace(cfg.equation, {number(cfg): float(value)}))


def check(cfg, domain) -> None:
    """Case-file rules (none without a curriculum): the key names a number of the equation section; the stages
    reach its value monotonically; each stage's equation is valid on ``domain`` (e.g. the ``ghia1982`` check has
    a table for every stage)."""
    cur, known = cfg.training.curriculum, numbers(cfg.equation)
    if cur is None:
        return
    if not cur.key.startswith(SECTION) or number(cfg) not in known:
        raise Invalid("training.curriculum.key", f"{cur.key!r} is not a number of the equation section; its "
                                                 f"numbers are {[SECTION + k for k in sorted(known)]}")
    try:
        values = stages(cfg)
    except ValueError as e:
        raise Invalid("training.curriculum.values", str(e)) from None
    for i, value in enumerate(values[:-1]):
        try:
            equations.check_geometry(stage_case(cfg, value).equation, domain)
        except Invalid as e:
            key = "training.curriculum.values" + ("" if cur.values == AUTO else f"[{i}]")
            raise Invalid(key, f"stage {number(cfg)} = {value:g}: equation.{e.key}: {e.message}") from None


def residual_points(problem) -> np.ndarray:
    """The physical points of :func:`residual_rms` (the same for every stage and run of a case)."""
    pts = problem.geometry.interior(RESIDUAL_POINTS, np.random.default_rng(0), "grid")
    lo, hi = np.asarray(problem.geometry.bounds, float)[:pts.shape[1]].T
    margin = CORE * (hi - lo)
    return pts[np.all((pts > lo + margin) & (pts < hi - margin), axis=1)]


def residual_rms(problem, params, points: np.ndarray) -> float:
    """The rms over ``points`` of the summed squared interior residuals (module notes)."""
    xh = jnp.asarray(problem.equation.to_nondim(points), problem.dtype)
    return float(np.sqrt(np.mean(np.asarray(problem.residual_score(params, xh)))))


def verdict(metrics: dict, ghia: float, residual: float) -> tuple[bool, str]:
    """``(converged, why)`` from final ``metrics`` (``residual_rms``, ``ghia_u_rel_l2``, ``ghia_v_rel_l2``
    when present) and the thresholds."""
    limits = {"residual_rms": residual, "ghia_u_rel_l2": ghia, "ghia_v_rel_l2": ghia}
    tests = [(k, metrics[k], limit) for k, limit in limits.items() if k in metrics]
    ok = all(v <= limit for _, v, limit in tests)
    why = ", ".join(f"{k} {v:.3g} {'<=' if v <= limit else '>'} {limit:g}" for k, v, limit in tests)
    return ok, why
