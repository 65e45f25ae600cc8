r"""A Reynolds-number curriculum (continuation in Re) for Navier–Stokes PINNs (``training.curriculum``).

A flow at high Re trained from random parameters settles in a wrong, over-diffused solution; one trained from
the converged flow at a lower Re does not (Wang, Sankaran, Wang & Perdikaris, "An expert's guide to training
physics-informed neural networks", 2023: the cavity at Re 100 → 400 → 1000 → 3200). The run trains stage by
stage at rising :math:`Re_1 < \dots < Re_n = ` ``equation.Re``, each stage starting from the parameters the last
one ended with (the driver, :mod:`.run`, keeps one step count across stages).

- :func:`stages`: the stages' Re. ``auto``: Ghia's tabulated 100, 400, 1000, 3200 below the target, then
  the target (so every stage of a cavity has its Ghia error); a list is checked (rising, ends at the target).
- :func:`stage_case`: the case at one stage's Re (its ``equation`` section with ``Re`` replaced).
- :func:`residual_rms`: the rms interior residual :math:`\sqrt{\overline{\sum_k r_k^2}}` (nondimensional,
  e.g. both momentum equations) on a fixed grid of cell midpoints (64 × 64 in 2D, none of them a
  collocation point) in the core of the domain, ``CORE`` (5 %) of the bounding box's extent away from each
  of its faces: the corners of a cavity's lid are singular, and their residual would swamp the rest (at
  Re 100, the rms over the whole box is 0.8 where the core's is 0.01 and the median 0.006).
- :func:`verdict`: whether the run converged: rms residual at most ``residual`` and, where the case has
  Ghia's check, the Ghia errors of u and v at most ``ghia`` (thresholds in the case file).
"""
from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from sciml import equations
from sciml.equations.ns_checks import GHIA_RE
from sciml.errors import Invalid

AUTO = "auto"
RESIDUAL_POINTS = 4096  # the grid of residual_rms: 64 x 64 cell midpoints in 2D ...
CORE = 0.05  # ... this fraction of the bounding box away from its faces


def stages(spec: list[float] | str, target: float) -> list[float]:
    """The stages' Re for ``training.curriculum.Re`` (``auto`` or a list) and ``equation.Re`` ``target``;
    ``ValueError`` for a list that does not rise to the target."""
    if spec == AUTO:
        return [re for re in GHIA_RE if re < target * (1 - 1e-9)] + [float(target)]
    values = [float(v) for v in spec]
    if not values or any(b <= a for a, b in zip(values, values[1:])):
        raise ValueError(f"the stages must rise, got {values}")
    if abs(values[-1] - target) > 1e-9 * target:
        raise ValueError(f"the last stage must be equation.Re = {target:g}, got {values[-1]:g}")
    return values


def stage_case(cfg, re: float):
    """The case ``cfg`` with ``equation.Re = re``."""
    return dataclasses.replace(cfg, equation=dataclasses.replace(cfg.equation, Re=float(re)))


def check(cfg, domain) -> None:
    """Case-file rules: the equation has ``Re``; the stages rise to it; each stage's equation is valid on
    ``domain`` (e.g. the ``ghia1982`` check has a table for every stage)."""
    spec, eq = cfg.training.curriculum.Re, cfg.equation
    if getattr(eq, "Re", None) is None:
        raise Invalid("training.curriculum", "a Reynolds curriculum needs equation.Re (a navier_stokes equation "
                                             "with Re given, not nu)")
    try:
        res = stages(spec, eq.Re)
    except ValueError as e:
        raise Invalid("training.curriculum.Re", str(e)) from None
    for i, re in enumerate(res[:-1]):
        try:
            equations.check_geometry(stage_case(cfg, re).equation, domain)
        except Invalid as e:
            key = "training.curriculum.Re" + ("" if spec == AUTO else f"[{i}]")
            raise Invalid(key, f"stage Re = {re:g}: equation.{e.key}: {e.message}") from None


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
