"""The FNO's prediction function for ``sciml export``: dataset-layout inputs to outputs, normalisation included;
the derived fields of its output (the plate's moments) for ``sciml.load_run(...).derived``; and its predictions
with their error estimates and test-time refinement (:mod:`.estimate`) for ``load_run(...).predict(x,
estimate=True)`` and ``sciml predict RUN_DIR ... --estimate``."""
from __future__ import annotations

import functools

import jax
import numpy as np

from sciml.compile import Policy
from sciml.errors import UserError
from sciml.io import checkpoint
from sciml.rundir import read_summary

from . import correction, data, estimate
from .config import FIELD_TYPES, FnoCase
from .model import smallest_grid
from .operators import build
from .physics import PHYSICS
from .run import derived_fields, derived_physics, evaluate_estimate, make_estimate, physics_for


def export_model(cfg: FnoCase, run_dir: str):
    """``(fn, input_shape, dtype, meta)`` of the run's model (:func:`sciml.io.checkpoint.trained`: the state the run
    ended with, which its summary scores): its parameters, or their average when the case averages them
    (``training.average``)."""
    path, (x_shape, y_shape), op, params, stats = _trained(cfg, run_dir)
    if cfg.kind.fourier:  # every grid: symbolic sizes, channels fixed
        grid: list = [f"n{i + 1}" for i in range(len(x_shape) - 1)]
        constraints = [f"{n} >= {k}" for n, k in zip(grid, smallest_grid(cfg))]
    else:  # the training grid's points, where the branch's sensors are (sciml.load_run(...).predict takes finer)
        grid, constraints = list(x_shape[:-1]), []
    meta = {"solver": "fno", "model": cfg.model.type, "inputs": ["inputs"], "outputs": ["prediction"],
            "output_shape": grid + list(y_shape[len(grid):]), "trained_on": list(x_shape),
            "constraints": constraints,
            "generator": cfg.source.name, "checkpoint": path,
            "units": "those of the dataset (its generator's nondimensional variables)",
            "scalings": {"note": "applied inside: inputs (x - x_mean) / x_std, outputs y * y_std + y_mean, "
                                 "per channel",
                         **{k: np.asarray(v).ravel().tolist() for k, v in stats.items()}},
            "layout": "(batch, grid..., channels); any grid the constraints allow (zero-shot)" if cfg.kind.fourier
            else "(batch, grid..., channels) on the training grid or point set"}
    shape = (*grid, x_shape[-1])
    return (lambda x: {"prediction": op.predict(params, stats, x)}), shape, Policy.of(cfg.dtype).param_dtype, meta


def derived_model(cfg: FnoCase, run_dir: str):
    """``fn(inputs) -> {name: (batch, s..., 1)}``: the derived fields of the trained operator's output (the
    plate's moments ``mx, my, mxy``: :meth:`.physics.Plate.derived`, second derivatives of the decoded output by
    the Taylor engine) at the points of the inputs' grid, for inputs in the dataset's layout on any grid the
    model takes; the parameters as :func:`export_model` reads them. A case whose generator has no derived
    fields, or whose model's output is no function of the coordinates (``model.type`` other than ``fno`` and
    ``deeponet``), is one line."""
    physics = derived_physics(cfg)
    if physics is None:
        raise UserError(f"{run_dir}: no derived fields: they need a generator with physics "
                        f"(data.generator plate) and model.type {' or '.join(FIELD_TYPES)}")
    _, _, op, params, stats = _trained(cfg, run_dir)
    fields = derived_fields(op, physics, cfg.source.grid)
    return lambda x: fields(params, stats, x)


def estimate_model(cfg: FnoCase, run_dir: str):
    """``fn(inputs, refine=0, tol=None, every=None, lr=None, schedule=None, method=None) -> {name: array}``: the trained
    operator's predictions with each sample's error estimate (:func:`.estimate.estimator`) and flag (``estimate >=
    threshold``, the threshold of the run's calibration, :func:`calibration`), for inputs ``(batch, s, s, c)`` in the
    dataset's layout; ``refine`` > 0: each input estimated at or above half the flag threshold (:data:`.estimate.FLOOR`;
    every input for a plate's field on grids of 33 points or more and for Darcy, :func:`.estimate.doors`) refined by
    up to that many steps (:func:`.estimate.refine`) of ``method`` (:func:`.estimate.method`: by default
    ``field`` for a plate on a grid finer than the training grid, else ``weights``, :func:`.estimate.default_method`;
    a plate's ``field``, conjugate gradients on a correction of the decoded field, :mod:`.correction`;
    ``weights``, Adam on a copy of the weights minimising the physics' energy, with the run's ``pde`` term where it
    trains with both, a plate's load work the band-limited load's, on clamped edges alone on a 6× grid,
    :func:`.estimate.refinement_loss`, the learning rate from ``lr`` (None: :data:`.estimate.LR`) by ``schedule`` over
    the steps, :func:`.estimate.learning_rate`, by default cosine for a plate, constant for Darcy,
    :func:`.estimate.schedule_for`); keeping the iterate of the lowest energy (by the method's energy; the weights': its
    bending on a 4× grid), whose estimate is at most 0.4 times the trained answer's, :data:`.estimate.FACTOR`, with its
    energy below the trained answer's by 2e-4 of its size, :data:`.estimate.FALL`, or any iterate's where the trained
    answer's energy is not below 0 or its own fell below it by a share of its size, :data:`.estimate.DROPS` (a quarter
    for the weights, 1e-2 for the field; any fall where every input is refined), else the trained answer; ``tol``
    as there, ``every`` by default :data:`.estimate.EVERY` of the method). Keys: ``prediction``, ``estimate``,
    ``flagged``, ``threshold`` (per sample), and with ``refine`` ``estimate_before``, ``energy_before`` (the trained
    answer's energy), ``energy`` (the answer's returned), ``refine_steps`` and the derived fields of the answer returned
    (the plate's moments ``mx, my, mxy``, each ``(batch, s, s, 1)``: those of the kept answer, as :func:`derived_model`
    gives the trained weights', which they are for an input left as trained). A case without physics is one line."""
    if cfg.source.name not in PHYSICS or not cfg.kind.field:
        raise UserError(f"{run_dir}: no error estimate: it needs an operator with physics (data.generator "
                        f"{' or '.join(PHYSICS)}, model.type {' or '.join(FIELD_TYPES)}); this one has "
                        f"data.generator {cfg.source.name}, model.type {cfg.model.type}")
    _, (x_shape, _), op, params, stats = _trained(cfg, run_dir)
    calibrations = calibration(cfg, run_dir, op, {"params": params, "stats": stats})
    derived = derived_physics(cfg)
    fields = None if derived is None else jax.jit(derived_fields(op, derived, cfg.source.grid))

    @functools.cache
    def on(s: int):  # the physics and the estimate on the grid of s points, made (and compiled) once
        at = physics_for(cfg, s)
        return at, estimate.estimator(op, at)

    @functools.cache
    def weighted(s: int, lr: float, steps: int, schedule: str):  # fine-tuning the weights there, made once
        at, run = on(s)
        loss = estimate.refinement_loss(at, cfg.training.terms)
        choice = estimate.refinement_loss(at, cfg.training.terms, estimate.CHOICE_QUADRATURE)
        return (run, *estimate.refiner(op, at, loss, lr, steps, schedule), estimate.objective(op, at, choice),
                lambda x: params, fields)

    @functools.cache
    def corrected(s: int):  # correcting the decoded field there, made once
        at, _ = on(s)
        basis = correction.Basis(s, cfg.source.edge_power(cfg.data.params))
        model = correction.corrected(op, basis)
        loss = correction.energy_of(at)
        start, tx, advance = correction.conjugate_gradients(model, loss)
        lifted = correction.lift(params, jax.tree_util.tree_leaves(params)[0].dtype, basis)
        return (estimate.estimator(model, at), tx, advance, estimate.objective(model, at, loss),
                lambda x: start(lifted, stats, x),
                None if derived is None else jax.jit(derived_fields(model, derived, cfg.source.grid)))

    def fn(x, refine: int = 0, tol: float | None = None, every: int | None = None, lr: float | None = None,
           schedule: str | None = None, method: str | None = None) -> dict:
        s = _grid(x, x_shape[-1], cfg)
        at, run = on(s)
        threshold = estimate.threshold_for(calibrations, s)
        if not refine:
            pred, guess = run(params, stats, x)
            out = {"prediction": np.asarray(pred), "estimate": np.asarray(guess)}
        else:
            if not cfg.model.vanish_on_edges:
                raise UserError(f"{run_dir}: --refine minimises the physics' energy, bounded below only among fields "
                                "that vanish on the edges: it needs a model trained with model.vanish_on_edges")
            method = estimate.method(at, method, lr, schedule, cfg.data.resolution)
            run, tx, advance, energy, begin, values = corrected(s) if method == "field" else weighted(
                s, estimate.LR if lr is None else lr, refine, schedule or estimate.schedule_for(at))
            every = every or estimate.EVERY[method]
            doors = estimate.doors(cfg.source.name, method, s, threshold)  # the same for every input of the grid
            each = [estimate.refine(run, tx, advance, begin(x[i:i + 1]), stats, x[i:i + 1], refine, tol, every,
                                    energy, **doors)
                    for i in range(len(x))]
            out = {k: np.concatenate([e[k] for e in each])
                   for k in ("prediction", "estimate", "estimate_before", "energy_before", "energy")}
            out["refine_steps"] = np.concatenate([e["steps"] for e in each])
            if values is not None:  # the derived fields of each input's kept answer
                got = [values(e["params"], stats, x[i:i + 1]) for i, e in enumerate(each)]
                out.update({k: np.concatenate([np.asarray(v[k]) for v in got]) for k in derived.derived_names})
        return {**out, "flagged": out["estimate"] >= threshold, "threshold": np.full(len(x), threshold)}

    return fn


def calibration(cfg: FnoCase, run_dir: str, op, state) -> dict:
    """The run's calibration of its estimate, ``{str(test grid): estimate.calibrate(...)}``: its summary's
    ``estimate_calibration`` (a run with ``evaluation.estimate``), else made now on the test set of its
    training grid, as the run would have."""
    found = (read_summary(run_dir) or {}).get("estimate_calibration")
    if found:
        return found
    r = cfg.data.resolution
    _, tests = data.open_splits(cfg.data.path, [r])
    return {str(r): estimate.calibrate(*evaluate_estimate(make_estimate(op, physics_for(cfg, r)), state, tests[r],
                                                          cfg.evaluation.batch_size))}


def _grid(x: np.ndarray, channels: int, cfg: FnoCase) -> int:
    """The size ``s`` of the square grid of inputs ``x (batch, s, s, channels)``, checked (one line if not)."""
    if x.ndim != 4 or x.shape[1] != x.shape[2] or x.shape[1] < 3 or x.shape[3] != channels:
        raise UserError(f"inputs of shape {x.shape}; an estimate takes (batch, s, s, {channels}) on a square grid "
                        f"(the training grid's s is {cfg.data.resolution})")
    return int(x.shape[1])


def _trained(cfg: FnoCase, run_dir: str):
    """``(checkpoint path, (input shape, output shape), operator, parameters, stats)`` of the run's model."""
    path = checkpoint.trained(run_dir)
    data.check(cfg.data, case=cfg.case)
    train_set, _ = data.open_splits(cfg.data.path, cfg.data.resolutions)
    (x_shape, y_shape) = train_set.shapes
    op = build(cfg, x_shape[-1], y_shape[-1], train_set.grid)
    params = checkpoint.load_part(path, cfg.training.average.rule().key, op.init(jax.random.PRNGKey(0)))
    ones = [np.ones(x_shape[-1]), np.ones(x_shape[-1]), np.ones(y_shape[-1]), np.ones(y_shape[-1])]
    stats = checkpoint.load_part(path, "stats", op.stats(*ones))
    return path, (x_shape, y_shape), op, params, stats
