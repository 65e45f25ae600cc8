"""The FNO's prediction function for ``sciml export``: dataset-layout inputs to outputs, normalisation included."""
from __future__ import annotations

import jax
import numpy as np

from sciml.compile import Policy
from sciml.io import checkpoint

from . import data
from .config import FnoCase
from .model import build, smallest_grid


def export_model(cfg: FnoCase, run_dir: str):
    """``(fn, input_shape, dtype, meta)`` from the run's best checkpoint (its latest if there is no best): its
    parameters, or their average when the case averages them (``training.average``)."""
    path = checkpoint.trained(run_dir)
    data.check(cfg.data, case=cfg.case)
    train_set, _ = data.open_splits(cfg.data.path, cfg.data.resolutions)
    (x_shape, y_shape) = train_set.shapes
    op = build(cfg, x_shape[-1], y_shape[-1])
    params = checkpoint.load_part(path, cfg.training.average.rule().key, op.init(jax.random.PRNGKey(0)))
    ones = [np.ones(x_shape[-1]), np.ones(x_shape[-1]), np.ones(y_shape[-1]), np.ones(y_shape[-1])]
    stats = checkpoint.load_part(path, "stats", op.stats(*ones))
    grid = [f"n{i + 1}" for i in range(len(x_shape) - 1)]  # every grid: symbolic sizes, channels fixed
    meta = {"solver": "fno", "inputs": ["inputs"], "outputs": ["prediction"],
            "output_shape": grid + list(y_shape[len(grid):]), "trained_on": list(x_shape),
            "constraints": [f"{n} >= {k}" for n, k in zip(grid, smallest_grid(cfg))],
            "generator": cfg.data.generator, "checkpoint": path,
            "units": "those of the dataset (its generator's nondimensional variables)",
            "scalings": {"note": "applied inside: inputs (x - x_mean) / x_std, outputs y * y_std + y_mean, "
                                 "per channel",
                         **{k: np.asarray(v).ravel().tolist() for k, v in stats.items()}},
            "layout": "(batch, grid..., channels); any grid the constraints allow (zero-shot)"}
    shape = (*grid, x_shape[-1])
    return (lambda x: {"prediction": op.predict(params, stats, x)}), shape, Policy.of(cfg.dtype).param_dtype, meta
