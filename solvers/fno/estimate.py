"""An operator that knows when it is wrong (issue 72): each prediction's error estimate by its physics, the
estimate's calibration on the test set, and test-time refinement by the physics loss.

- :func:`estimator`: ``(params, stats, x) -> (prediction, per-sample estimate)``, the physics' estimate of the
  relative L2 error of the output's first channel (:meth:`.physics.Plate.estimate`, :meth:`.physics.Darcy.estimate`);
- :func:`calibrate`: from the test set's estimates and true errors, the quantiles of ``true / estimate`` and the
  flag threshold ``target / max(true / estimate)``: every test sample whose true error exceeds ``target``
  (10 %) has an estimate above it;
- :func:`refine`: one input's prediction improved by Adam on a copy of the operator's weights minimising the
  physics' energy of that input alone (instance-wise fine-tuning, Li et al., PINO 2021), from the trained
  weights, the estimate evaluated every ``every`` steps; it keeps the iterate of the smallest estimate (the trained
  one if none is smaller: never worse by the estimate) and stops once that falls below ``tol``.
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import numpy as np
import optax

TARGET = 0.10  # the true relative error the flag is for
QUANTILES = {"min": 0.0, "q05": 0.05, "median": 0.5, "q95": 0.95, "max": 1.0}


def physics_output(op, physics, params, stats, x):
    """What the physics' terms read (``physics.reads``): the decoded field, or the output on the grid."""
    return op.field(params, stats, x) if physics.reads == "field" else op.predict(params, stats, x)


def estimator(op, physics) -> Callable:
    """``(params, stats, x) -> (prediction, per-sample error estimate)``, jitted, on the grid of
    ``physics.resolution``."""

    @jax.jit
    def run(params, stats, x):
        return op.predict(params, stats, x), physics.estimate(physics_output(op, physics, params, stats, x), x)

    return run


def calibrate(estimate: np.ndarray, true: np.ndarray, target: float = TARGET) -> dict:
    """The calibration of per-sample estimates against true errors (the test set's): ``n``, ``target``, the
    quantiles of ``true / estimate`` (:data:`QUANTILES`), the flag ``threshold = target / max(true / estimate)``
    (a sample of these whose true error exceeds ``target`` has an estimate above it), and the share of the
    samples at or above it (``flagged``)."""
    estimate, true = np.asarray(estimate, float), np.asarray(true, float)
    ratio = true / np.maximum(estimate, np.finfo(float).tiny)
    threshold = target / float(ratio.max())
    return {"n": int(len(true)), "target": target,
            "ratio": {name: float(np.quantile(ratio, q)) for name, q in QUANTILES.items()},
            "threshold": threshold, "flagged": float(np.mean(estimate >= threshold))}


def threshold_for(calibrations: dict, resolution: int) -> float:
    """The flag threshold for inputs on the grid of ``resolution`` points: its calibration's, or the smallest
    of all (the most cautious) for a grid without one. ``calibrations``: ``{str(resolution): calibrate(...)}``."""
    own = calibrations.get(str(resolution))
    return own["threshold"] if own else min(c["threshold"] for c in calibrations.values())


def refiner(op, physics, loss: Callable, lr: float) -> tuple[optax.GradientTransformation, Callable]:
    """``(tx, advance)``: Adam of learning rate ``lr`` and ``advance(params, opt, stats, x, n) -> (params, opt)``,
    jitted, ``n`` of its steps on ``loss(physics output, x)`` (:func:`physics_output`) of the inputs ``x``."""
    tx = optax.adam(lr)
    grad = jax.grad(lambda p, stats, x: loss(physics_output(op, physics, p, stats, x), x))

    @jax.jit
    def advance(params, opt, stats, x, n):
        def body(_, carry):
            p, o = carry
            updates, o = tx.update(grad(p, stats, x), o, p)
            return optax.apply_updates(p, updates), o

        return jax.lax.fori_loop(0, n, body, (params, opt))

    return tx, advance


def objective(op, physics, loss: Callable) -> Callable:
    """``(params, stats, x) -> loss(physics output, x)``, jitted: the refinement's loss of the weights ``params``
    (:func:`refiner`'s), for :func:`refine` to keep its iterates by."""
    return jax.jit(lambda params, stats, x: loss(physics_output(op, physics, params, stats, x), x))


def refine(estimate: Callable, tx, advance: Callable, params, stats, x, steps: int, tol: float | None = None,
           every: int = 10, keep_by: Callable | None = None) -> dict:
    """One input ``x (1, s..., c)`` refined (the module's docstring): up to ``steps`` steps of ``advance``
    (:func:`refiner`), ``every`` at a time, each time the ``estimate`` (:func:`estimator`) of the new weights; the
    weights of the smallest estimate kept (with ``keep_by``, ``(params, stats, x) -> scalar``, e.g.
    :func:`objective`: of the smallest ``keep_by``), the trained ones if none is smaller. Stops early once the kept
    weights' estimate is below ``tol``. ``{"prediction", "estimate" (the kept weights'), "estimate_before",
    "steps" (taken)}``."""
    score = keep_by or (lambda p, stats, x: estimate(p, stats, x)[1][0])
    prediction, before = estimate(params, stats, x)
    kept, best, taken = (prediction, before), float(score(params, stats, x)), 0
    p, opt = params, tx.init(params)
    while taken < steps and (tol is None or float(kept[1][0]) >= tol):
        n = min(every, steps - taken)
        p, opt = advance(p, opt, stats, x, n)
        taken += n
        now = float(score(p, stats, x))
        if now < best:
            best, kept = now, estimate(p, stats, x)
    return {"prediction": np.asarray(kept[0]), "estimate": np.asarray(kept[1]), "estimate_before": np.asarray(before),
            "steps": np.array([taken])}
