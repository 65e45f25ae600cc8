"""``sciml datagen`` for a case with ``equation.start``: the developed flow it begins from, made by the lattice
Boltzmann solver on the case's channel (:mod:`sciml.equations.ns_start` says what the file holds)."""
from __future__ import annotations

import os
import time as clock
from typing import TYPE_CHECKING

import numpy as np

from sciml.compile import Policy
from sciml.equations import ns_start
from sciml.errors import ConfigError, UserError
from sciml.io.atomic import atomic_h5

from ..classical import lbm
from .geometry import build_geometry

if TYPE_CHECKING:
    from .config import PinnCase

RECORD = 0.002  # time between two recorded forces, in the case's time units (about 170 per DFG 2D-2 period)


def make(cfg: PinnCase, quiet: bool = False, force: bool = False) -> str:
    """Write the start file (kept if it exists and was made with the case's settings, unless ``force``); its
    path."""
    s = getattr(cfg.equation, "start", None)
    assert isinstance(s, ns_start.StartConfig), "called for a case with equation.start"
    if os.path.exists(s.path) and not force:
        try:
            ns_start.read(s)
        except UserError as e:  # made with other settings, or damaged: made again
            if not quiet:
                print(f"{e}; making it again")
        else:
            if not quiet:
                print(f"{s.path} exists (use --force to make it again)")
            return s.path
    domain = build_geometry(cfg.geometry)
    ch = ns_start.channel(cfg.equation, domain)
    assert domain.time is not None, "ns_start.channel: an unsteady case"
    t0, t1 = domain.time
    inflow = lambda y: np.asarray(ch.inflow(np, y=y), float) + 0.0 * y
    lat = lbm.lattice(lbm.Channel(ch.box, ch.center, ch.radius, inflow, ch.u_mean, ch.nu), s.cells_per_diameter,
                      s.u_lat)
    end = s.time + (t1 - t0)
    began = clock.time()
    marks = iter(np.linspace(0, end, 11)[1:])
    mark = [next(marks)]

    def progress(t):
        if not quiet and t >= mark[0] - 1e-9:
            print(f"lattice Boltzmann {lat.nx} x {lat.ny}: t = {t:.3g} of {end:g} ({clock.time() - began:.0f} s)",
                  flush=True)
            mark[0] = next(marks, np.inf)

    try:
        with Policy.of("float64").precision():
            history, _ = lbm.simulate(lat, end, RECORD, snapshots=(s.time,), ramp=s.ramp, progress=progress)
    except FloatingPointError as e:  # a lattice too coarse for the Reynolds number: the user's setting
        raise ConfigError(f"{e}: {lat.nx} x {lat.ny} cells, relaxation time {1 / lat.omega[0]:.3f} "
                          f"(= 1/2 + 3 u_lat cells_per_diameter / Re; the collision grows unstable as it nears 1/2): "
                          f"raise it",
                          key="equation.start.cells_per_diameter") from None
    snap = history.snapshots[s.time]
    keep = history.t >= s.time - 0.5 * RECORD
    if os.path.dirname(s.path):
        os.makedirs(os.path.dirname(s.path), exist_ok=True)
    with atomic_h5(s.path) as f:
        f["x"], f["y"] = lat.x, lat.y
        for q in ns_start.FIELDS:
            f[q] = snap[q]
        g = f.create_group("history")
        g["t"] = history.t[keep] - s.time + t0
        g["c_D"], g["c_L"], g["delta_p"] = history.c_D[keep], history.c_L[keep], history.delta_p[keep]
        f.attrs.update({k: getattr(s, k) for k in ns_start.MADE_WITH}, seconds=clock.time() - began)
    if not quiet:
        print(f"start flow at t = {s.time:g} and forces over [{t0:g}, {t1:g}] in {s.path} "
              f"({clock.time() - began:.0f} s)")
    return s.path
