"""A PINN run's ``fields.h5`` and its XDMF sidecar ``fields.xdmf`` (ParaView opens every field from it).

``fields.h5`` holds the evaluation grid (``indexing="ij"``, shape ``ev.shape``, one axis per coordinate):

- ``/<coord>``: the coordinate at every grid point (attribute ``units`` where the equation gives them);
- ``/inside``: True where the point lies in the domain (predictions outside are the network's, unchecked);
- ``/<field>/{prediction, reference, error}``: each derived field (attribute ``units`` on the group), the
  reference and the error where the equation has a reference, and an ensemble's standard deviation of the
  members (``std``; the prediction is their mean).

Root attributes: ``case``, ``solver``, ``coords`` (names, in axis order), ``units`` (coordinate or field ->
units, as JSON; or ``"those of the case file"`` when the equation names none) and, for unsteady cases,
``times`` (the time levels: the grid's ``t`` axis).

``fields.xdmf`` (:mod:`sciml.io.xdmf`) shows the grid in space: steady cases as one grid, unsteady ones as a
temporal collection of their time levels; every field (prediction, ``_reference``, ``_error``) and ``inside``
on each.
"""
from __future__ import annotations

import json
from collections.abc import Mapping

import h5py
import numpy as np

from sciml.io import xdmf
from sciml.io.atomic import atomic_path

UNKNOWN_UNITS = "those of the case file"


def write(path: str, ev, pred: dict, reference: dict | None, case: str, units: Mapping[str, str] | None,
          std: dict | None = None) -> None:
    """``fields.h5`` at ``path`` and ``fields.xdmf`` beside it (module notes); ``units``: the equation's;
    ``std``: an ensemble's standard deviation of each field (``<field>/std``)."""
    units = dict(units or {})
    with atomic_path(path) as tmp, h5py.File(tmp, "w") as f:
        f.attrs.update({"case": case, "solver": "pinn", "coords": list(ev.coords),
                        "units": json.dumps(units) if units else UNKNOWN_UNITS})
        if "t" in ev.coords:
            f.attrs["times"] = ev.axes[ev.coords.index("t")]
        for c, grid in zip(ev.coords, ev.grids()):
            f[c] = grid
            if c in units:
                f[c].attrs["units"] = units[c]
        f["inside"] = ev.mask.reshape(ev.shape)
        for k, v in pred.items():
            g = f.create_group(k)
            if k in units:
                g.attrs["units"] = units[k]
            g.create_dataset("prediction", data=v, compression="gzip")
            if std is not None and k in std:
                g.create_dataset("std", data=std[k], compression="gzip")
            if reference is not None and k in reference:
                g.create_dataset("reference", data=reference[k], compression="gzip")
                g.create_dataset("error", data=v - reference[k], compression="gzip")
        grids = _grids(f, ev)
    xdmf.write(path, grids)


def _grids(f: h5py.File, ev) -> list[xdmf.Grid]:
    """The sidecar's grids: the whole grid, or one per time level (the ``t`` axis held) for unsteady cases."""
    datasets = {}
    f.visititems(lambda name, obj: datasets.update({name: obj}) if isinstance(obj, h5py.Dataset) else None)
    shown = {("inside" if name == "inside" else name.replace("/prediction", "").replace("/", "_")): name
             for name in datasets if name == "inside" or "/" in name}

    def slabs(names, held):
        return {shown: xdmf.Slab("/" + name, datasets[name].shape, datasets[name].dtype, held)
                for shown, name in names.items()}

    space = [c for c in ev.coords if c != "t"]
    if "t" not in ev.coords:
        return [xdmf.Grid("fields", ev.shape, list(slabs({c: c for c in space}, {}).values()), slabs(shown, {}))]
    axis = ev.coords.index("t")
    shape = tuple(n for a, n in enumerate(ev.shape) if a != axis)
    return [xdmf.Grid(f"t = {t:.6g}", shape, list(slabs({c: c for c in space}, {axis: i}).values()),
                      slabs(shown, {axis: i}), time=float(t))
            for i, t in enumerate(np.asarray(ev.axes[axis]))]
