"""Reading inputs for ``sciml predict`` and writing its outputs (CSV with a header, or HDF5)."""
from __future__ import annotations

import csv
import io
import os

import numpy as np

from ..errors import UserError
from ..io import hdf5
from ..io.atomic import atomic_h5, write_text


def read(path: str, names: list[str]) -> np.ndarray:
    """Points ``(n, len(names))`` from a CSV with those column names, or an HDF5 file with dataset
    ``inputs`` (any shape with a leading sample axis) or one dataset per name."""
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file")
    if path.endswith((".h5", ".hdf5")):
        with hdf5.opened(path, "points file") as f:
            if "inputs" in f:
                return np.asarray(f["inputs"][()])
            missing = [n for n in names if n not in f]
            if missing:
                raise UserError(f"{path}: needs a dataset 'inputs' or datasets {names} (missing {missing})")
            return np.stack([np.asarray(f[n][()]).ravel() for n in names], -1)
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [n for n in names if n not in (reader.fieldnames or [])]
        if missing:
            raise UserError(f"{path}: the CSV header must name the inputs {names} (missing {missing})")
        try:
            return np.array([[float(row[n]) for n in names] for row in reader])
        except ValueError as e:
            raise UserError(f"{path}: {e}") from None


def write(path: str, inputs: np.ndarray, names: list[str], outputs: dict) -> None:
    if path.endswith((".h5", ".hdf5")):
        with atomic_h5(path) as f:
            f["inputs"] = inputs
            for k, v in outputs.items():
                f[k] = np.asarray(v)
        return
    cols = {**{n: inputs[:, i] for i, n in enumerate(names)}, **{k: np.asarray(v).ravel() for k, v in outputs.items()}}
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(list(cols))
    for row in zip(*cols.values()):
        w.writerow([f"{v:.10g}" for v in row])
    write_text(path, buf.getvalue())
