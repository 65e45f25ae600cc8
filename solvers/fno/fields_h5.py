"""An FNO run's ``fields.h5`` and its XDMF sidecar ``fields.xdmf`` (ParaView opens every test sample from it).

``fields.h5`` holds, per test resolution ``r``, group ``/<r>`` (attribute ``rel_l2``: the mean test error):
``inputs``, ``outputs``, ``prediction``, ``error`` of the first test samples, ``(samples, s..., channels)``,
and ``grid`` ``(s..., d)``, the points' coordinates in [0, 1] (a point set's ``(n_points, d)``, as its file gives
them; the sidecar shows them as scattered vertices). Root attributes: ``case``, ``solver``,
``generator``, ``resolution`` (the training grid), ``coords`` and ``units`` (those of the dataset: its
generator's nondimensional variables).

``fields.xdmf`` (:mod:`sciml.io.xdmf`) has one grid per resolution, with each sample's arrays on it as
``<array>_<sample>`` (``_c<channel>`` added when there are several channels: time steps for a trajectory).
"""
from __future__ import annotations

import h5py
import numpy as np

from sciml.io import xdmf
from sciml.io.atomic import atomic_path

ARRAYS = ("inputs", "outputs", "prediction", "error")
UNITS = "those of the dataset (its generator's nondimensional variables)"


def write(path: str, case: str, generator: str, resolution: int, samples: dict) -> None:
    """``fields.h5`` at ``path`` and ``fields.xdmf`` beside it; ``samples``: resolution -> ``(rel_l2, grid,
    {array name: values})`` with the arrays of :data:`ARRAYS`."""
    with atomic_path(path) as tmp, h5py.File(tmp, "w") as f:
        dims = next(iter(samples.values()))[1].shape[-1]
        f.attrs.update({"case": case, "solver": "fno", "generator": generator, "resolution": resolution,
                        "coords": ["x", "y", "z"][:dims], "units": UNITS})
        for r, (err, grid, arrays) in samples.items():
            g = f.create_group(str(r))
            g.attrs["rel_l2"] = err
            for name in ARRAYS:
                g.create_dataset(name, data=arrays[name], compression="gzip")
            g["grid"] = grid
        grids = [_grid(f[str(r)], str(r)) for r in samples]
    xdmf.write(path, grids)


def _grid(g: h5py.Group, r: str) -> xdmf.Grid:
    """Resolution ``r``'s grid: coordinates from ``grid`` (its last axis held), one field per sample and channel."""
    grid = g["grid"]
    shape, dims = grid.shape[:-1], grid.shape[-1]
    coords = [xdmf.Slab(grid.name, grid.shape, grid.dtype, {len(shape): j}) for j in range(dims)]
    fields = {}
    for name in ARRAYS:
        a = g[name]
        channels = a.shape[-1]
        for i in range(a.shape[0]):
            for c in range(channels):
                label = f"{name}_{i}" + (f"_c{c}" if channels > 1 else "")
                fields[label] = xdmf.Slab(a.name, a.shape, np.dtype(a.dtype), {0: i, a.ndim - 1: c})
    return xdmf.Grid(f"s = {r}", shape, coords, fields, scattered=len(shape) < dims)
