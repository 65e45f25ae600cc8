r"""A developed channel flow as a Navier–Stokes case's initial values (``equation.start``).

A PINN cannot be asked to grow vortex shedding out of a flow at rest over tens of periods; the DFG 2D-2 case
(and jaxpi's cylinder example) starts from a flow that a classical solver has developed. ``start:`` names
that flow's file and how it is made:

.. code-block:: yaml

    start: {path: data/dfg_2d2_start.h5, time: 8.0, cells_per_diameter: 40}
    conditions:
      initial: {u: start, v: start}

``sciml datagen`` makes the file with the lattice Boltzmann solver (``solvers/classical/lbm.py``) on the
case's own channel (a rectangle whose parts ``inlet``, ``outlet`` and ``walls`` are its left, right, bottom
and top sides, a circular hole named ``cylinder``, the inlet's ``u`` an expression of ``y`` and ``v = 0``,
the equation's viscosity, and ``velocity`` as the mean inflow speed): from rest, the inflow ramped up over
``ramp`` time units, to ``time`` (the case's first time) and on over the case's interval. The file holds the
fields at ``time`` on the lattice's nodes (``x (nx,)``, ``y (ny,)``, ``u``, ``v``, ``p`` ``(ny, nx)``, zero
velocity inside the cylinder) and the solver's history over the case's interval in the case's time
(``history/t``, ``history/c_D``, ``history/c_L``, ``history/delta_p``), which the ``dfg_cylinder`` check
compares the network's forces with. Its attributes record the settings it was made with (``time``,
``cells_per_diameter``, ``u_lat``, ``ramp``, ``dtype``: the lattice's precision; a file that records no precision
was made in float64): a file made with others is refused with the command that makes it again.

A condition value ``start`` is the file's field, bilinear between the nodes
(``jax.scipy.ndimage.map_coordinates``, order 1); the file is read when a value is first needed, so a case
can be loaded (``sciml show``, ``sciml datagen``) before it exists, and a missing file names the command
that makes it (checking a case traces its residuals with zeros instead, :func:`.base.checking`).
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Literal

import jax.numpy as jnp
import numpy as np
from jax.scipy.ndimage import map_coordinates

from sciml import expr
from sciml.config import spec
from sciml.errors import ConfigError, Invalid, MissingFile
from sciml.io import hdf5

from .base import is_checking

START = "start"
FIELDS = ("u", "v", "p")
SIDES = {"inlet": ["left"], "outlet": ["right"], "walls": ["bottom", "top"]}


@dataclass
class StartConfig:
    """``equation.start``: the file of a developed flow and how ``sciml datagen`` makes it."""

    path: str = spec(help="HDF5 file of the flow (made by sciml datagen)")
    time: float = spec(gt=0.0, help="time from rest at which the case begins (the flow developed by then)")
    cells_per_diameter: int = spec(40, ge=8, help="lattice cells across the cylinder")
    ramp: float = spec(2.0, ge=0.0, help="time over which the inflow grows from rest (keeps pressure waves small)")
    u_lat: float = spec(0.05, gt=0.0, le=0.1, help="the mean inflow speed in lattice units (the Mach number)")
    dtype: Literal["float32", "float64"] = spec("float64", help="the lattice's precision: float32 marches faster")


@dataclass(frozen=True)
class Channel:
    """The channel of a start: the box, the cylinder, the inlet's ``u(y)`` (an expression), mean speed, nu."""

    box: tuple[tuple[float, float], tuple[float, float]]
    center: tuple[float, float]
    radius: float
    inflow: expr.Expression
    u_mean: float
    nu: float


def channel(config, domain) -> Channel:
    """The start's channel from a case's ``equation`` section and domain; :class:`Invalid` (keys relative to
    ``equation``) where the case is not such a channel."""
    if len(domain.coords) != 3 or "t" not in domain.coords:
        raise Invalid("start", "a start is the initial flow of an unsteady 2D case (coordinates x, y, t)")
    groups = {p: sorted(pieces) for p, pieces in domain.groups.items()}
    for part, pieces in SIDES.items():
        if groups.get(part) != sorted(pieces):
            raise Invalid("start", f"the start's channel needs the part {part} to be the sides {pieces}; "
                                   f"the parts are {groups}")
    sphere = domain.sphere("cylinder") if "cylinder" in groups else None
    if sphere is None:
        raise Invalid("start", "the start's channel needs a circular hole whose part is named cylinder")
    inlet = config.conditions.get("inlet", {})
    if inlet.get("v") not in (0, 0.0, "0") or "u" not in inlet or str(inlet["u"]).strip() in (START, "exact"):
        raise Invalid("start", f"the start's channel needs the inlet's u as an expression of y and v = 0; "
                               f"conditions.inlet is {inlet}")
    (x0, x1), (y0, y1) = domain.bounds[:2]
    (cx, cy), radius = sphere
    return Channel(((float(x0), float(x1)), (float(y0), float(y1))), (float(cx), float(cy)), float(radius),
                   expr.parse(inlet["u"], ("y",)), config.velocity, config.viscosity)


def check(config, domain) -> None:
    """A ``start`` value needs ``equation.start`` (and the start its channel); values only in ``initial``."""
    uses = [f"conditions.{part}.{q}" for part, cond in config.conditions.items() for q, v in cond.items()
            if isinstance(v, str) and v.strip() == START]
    if config.start is None:
        if uses:
            raise Invalid(uses[0], "'start' needs equation.start (the file of a developed flow)")
        return
    wrong = [u for u in uses if not u.startswith("conditions.initial.") or u.split(".")[-1] not in FIELDS]
    if wrong:
        raise Invalid(wrong[0], f"'start' gives the initial values of {list(FIELDS)}")
    ch = channel(config, domain)
    n = config.start.cells_per_diameter
    sides = [(hi - lo) * n / (2 * ch.radius) for lo, hi in ch.box]
    if any(abs(c - round(c)) > 1e-6 for c in sides):
        fits = [k for k in range(8, 201) if all(abs(c / n * k - round(c / n * k)) < 1e-6 for c in sides)][:3]
        raise Invalid("start.cells_per_diameter", f"{n} cells across the cylinder do not cut the channel "
                                                  f"{ch.box[0][1] - ch.box[0][0]:g} x {ch.box[1][1] - ch.box[1][0]:g} "
                                                  f"into whole cells; {fits} do")


MADE_WITH = ("time", "cells_per_diameter", "u_lat", "ramp", "dtype")  # the settings a file records (attributes)
BEFORE = {"dtype": "float64"}  # what a file made before a setting was recorded was made with


def recorded(attrs, key: str):
    """The setting ``key`` as a file's HDF5 attributes record it (a number or a string); for a file made before
    that setting was recorded, what it was made with then (``BEFORE``); else None."""
    value = attrs.get(key, BEFORE.get(key))
    return value.item() if isinstance(value, np.generic | np.ndarray) else value


@functools.lru_cache(maxsize=4)
def _read(path: str, stamp: float) -> dict:
    with hdf5.opened(path, "start file", "; make it again with `sciml datagen CASE.yaml --force`") as f:
        out: dict = {k: np.asarray(f[k][()], float) for k in ("x", "y", *FIELDS)}
        out["history"] = {k: np.asarray(f["history"][k][()], float) for k in f["history"]}
        out["made_with"] = {k: v for k in MADE_WITH if (v := recorded(f.attrs, k)) is not None}
    return out


def read(start: StartConfig) -> dict:
    """The start file's arrays (cached while the file is unchanged); :class:`~sciml.errors.MissingFile` if absent, a
    :class:`ConfigError` if it was made with other settings than the case's."""
    if not os.path.exists(start.path):
        raise MissingFile("start file", start.path, "equation.start.path")
    out = _read(start.path, os.path.getmtime(start.path))
    wanted = {k: getattr(start, k) for k in MADE_WITH}
    if out["made_with"] != wanted:
        raise ConfigError(f"start file {start.path} was made with {out['made_with']}, the case asks for {wanted}; "
                          f"make it again with `sciml datagen CASE.yaml --force`", key="equation.start")
    return out


def value(start: StartConfig):
    """A condition value ``(q, physical points (..., 3)) -> the start's q`` (bilinear; module notes)."""
    def at(q, x):
        if is_checking():
            return jnp.zeros(x.shape[:-1], x.dtype)
        s = read(start)
        xs, ys = s["x"], s["y"]
        i = (x[..., 0] - xs[0]) / (xs[1] - xs[0])
        j = (x[..., 1] - ys[0]) / (ys[1] - ys[0])
        grid = jnp.asarray(s[q], x.dtype)
        flat = map_coordinates(grid, [j.reshape(-1), i.reshape(-1)], order=1, mode="nearest")
        return flat.reshape(x.shape[:-1])
    return at
