"""The FNO's prediction function for ``sciml export``: dataset-layout inputs to outputs, normalisation included."""
from __future__ import annotations

import os

import jax
import numpy as np

from sciml.errors import UserError
from sciml.io import checkpoint

from . import data
from .config import FnoCase
from .model import build


def export_model(cfg: FnoCase, run_dir: str):
    """``(fn, input_shape, dtype, meta)`` from the run's best checkpoint (its latest if there is no best)."""
    path = next((p for p in (os.path.join(run_dir, "checkpoints", f"{n}.h5") for n in ("best", "latest"))
                 if os.path.exists(p)), None)
    if path is None:
        raise UserError(f"{run_dir}: no checkpoint to export (checkpoints/best.h5 or latest.h5)")
    data.check(cfg.data, case=cfg.case)
    train_set, _ = data.open_splits(cfg.data.path, cfg.data.resolutions)
    (x_shape, y_shape) = train_set.shapes
    op = build(cfg, x_shape[-1], y_shape[-1])
    params = checkpoint.load_part(path, "params", op.init(jax.random.PRNGKey(0)))
    ones = [np.ones(x_shape[-1]), np.ones(x_shape[-1]), np.ones(y_shape[-1]), np.ones(y_shape[-1])]
    stats = checkpoint.load_part(path, "stats", op.stats(*ones))
    dtype = np.float64 if cfg.dtype == "float64" else np.float32
    meta = {"solver": "fno", "inputs": ["inputs"], "outputs": ["prediction"], "output_shape": list(y_shape),
            "generator": cfg.data.generator, "checkpoint": path}
    return (lambda x: {"prediction": op.predict(params, stats, x)}), tuple(x_shape), dtype, meta
