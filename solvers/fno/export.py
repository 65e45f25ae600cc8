"""The FNO's prediction function for ``sciml export``: dataset-layout inputs to outputs, normalisation included;
and the derived fields of its output (the plate's moments) for ``sciml.load_run(...).derived``."""
from __future__ import annotations

import jax
import numpy as np

from sciml.compile import Policy
from sciml.errors import UserError
from sciml.io import checkpoint

from . import data
from .config import FnoCase
from .model import smallest_grid
from .operators import build
from .run import derived_fields, derived_physics


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
                        f"(data.generator plate) and model.type fno or deeponet")
    _, _, op, params, stats = _trained(cfg, run_dir)
    fields = derived_fields(op, physics, cfg.source.grid)
    return lambda x: fields(params, stats, x)


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
