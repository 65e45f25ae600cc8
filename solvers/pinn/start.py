"""``sciml datagen`` for a case with ``equation.start``: the developed flow it begins from, made by the lattice
Boltzmann solver on the case's channel (:mod:`sciml.equations.ns_start` says what the file holds).

The march from rest can take hours on a fine lattice: where it stands (:class:`~..classical.lbm.March`: the
populations, the forces recorded, the start's fields once reached) is written atomically to
``<path>.partial.h5`` every ``SAVE_EVERY_S`` seconds and when SIGTERM or SIGINT asks the command to stop (after
the chunk in progress, :class:`sciml.signals.Deferred`: a second signal acts at once;
:class:`~sciml.errors.Interrupted` says where it is kept). The same command continues from that file when it was
made with the same settings, with the numbers of a march never stopped; the file goes once the start file is
written. The march does not depend on the start's time: a march kept short of it serves a case that starts at
another time too (one that has passed it without its fields starts again)."""
from __future__ import annotations

import contextlib
import os
import signal
import time as clock
from typing import TYPE_CHECKING

import jax.numpy as jnp
import numpy as np

from sciml import signals
from sciml.compile import Policy
from sciml.equations import ns_start
from sciml.errors import ConfigError, Interrupted, UserError
from sciml.io import hdf5
from sciml.io.atomic import atomic_h5

from ..classical import lbm
from .geometry import build_geometry

if TYPE_CHECKING:
    from .config import PinnCase

RECORD = 0.002  # time between two recorded forces, in the case's time units (about 170 per DFG 2D-2 period)
SAVE_EVERY_S = 300.0  # wall seconds between two writes of the march in progress


def partial_path(path: str) -> str:
    """Where the march towards start file ``path`` is kept while it runs."""
    return f"{path}.partial.h5"


def _settings(s: ns_start.StartConfig) -> dict:
    """What a march depends on: not the start's time, which only says which fields to keep on the way."""
    return {**{k: getattr(s, k) for k in ns_start.MADE_WITH if k != "time"}, "record": RECORD}


def _save_march(path: str, s: ns_start.StartConfig, march: lbm.March) -> None:
    with atomic_h5(path) as f:
        f["f"] = np.asarray(march.f)
        f["rows"] = np.array(march.rows, float).reshape(-1, 4)
        for k, (t, snap) in enumerate(march.snapshots.items()):
            g = f.create_group(f"snapshots/{k}")
            g.attrs["time"] = t
            for q, a in snap.items():
                g[q] = a
        f.attrs.update(_settings(s), done=march.done)


def _load_march(path: str, s: ns_start.StartConfig, quiet: bool) -> lbm.March | None:
    """The march kept at ``path`` if it was made with ``s``'s settings and holds the start's fields or has not
    reached its time (else None: it starts again)."""
    if not os.path.exists(path):
        return None
    with hdf5.opened(path, "lattice Boltzmann march", "; delete it to start the march again") as f:
        same = all(ns_start.recorded(f.attrs, k) == v for k, v in _settings(s).items())
        if same:
            snaps = {float(g.attrs["time"]): {q: g[q][()] for q in g} for g in f.get("snapshots", {}).values()}
            march = lbm.March(int(f.attrs["done"]), f["f"][()], tuple(map(tuple, f["rows"][()])), snaps)
            same = s.time in snaps or not march.rows or march.rows[-1][0] < s.time - 0.5 * RECORD
    if not same:
        if not quiet:
            print(f"{path} was made with other settings, or is past the start's time without its fields: the "
                  f"march starts again")
        return None
    if not quiet and march.rows:
        print(f"continuing the lattice Boltzmann march from t = {march.rows[-1][0]:.4g} ({path})")
    return march


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
    with Policy.of("float64").precision():
        history = _march(lat, s, end, quiet).history()
    snap = history.snapshots[s.time]
    keep = (history.t >= s.time - 0.5 * RECORD) & (history.t <= end + 0.5 * RECORD)  # a kept one may go past
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
    with contextlib.suppress(FileNotFoundError):  # the march kept on the way, now done
        os.remove(partial_path(s.path))
    if not quiet:
        print(f"start flow at t = {s.time:g} and forces over [{t0:g}, {t1:g}] in {s.path} "
              f"({clock.time() - began:.0f} s)")
    return s.path


def _march(lat: lbm.Lattice, s: ns_start.StartConfig, end: float, quiet: bool) -> lbm.March:
    """The lattice's march from rest (or from where a stopped one was kept) to ``end``, kept on the way and when
    a signal asks to stop (module notes)."""
    began = saved = clock.time()
    kept = partial_path(s.path)
    march = resumed = _load_march(kept, s, quiet)
    done = resumed.rows[-1][0] if resumed is not None and resumed.rows else 0.0
    marks = iter([m for m in np.linspace(0, end, 11)[1:] if m > done + 1e-9])
    mark = next(marks, np.inf)
    try:
        with signals.Deferred() as stop:
            for march in lbm.marching(lat, end, RECORD, (s.time,), s.ramp, getattr(jnp, s.dtype), resumed):
                t = march.rows[-1][0]
                if not quiet and t >= mark - 1e-9:
                    print(f"lattice Boltzmann {lat.nx} x {lat.ny}: t = {t:.3g} of {end:g} "
                          f"({clock.time() - began:.0f} s)", flush=True)
                    mark = next(marks, np.inf)
                if stop.signum or clock.time() - saved > SAVE_EVERY_S:
                    _save_march(kept, s, march)
                    saved = clock.time()
                if stop.signum:
                    raise Interrupted(f"stopped by {signal.Signals(stop.signum).name} at t = {t:.4g} of {end:g}: the "
                                      f"lattice Boltzmann march is kept in {kept}; the same command continues from it",
                                      stop.signum)
    except FloatingPointError as e:  # a lattice too coarse for the Reynolds number: the user's setting
        with contextlib.suppress(FileNotFoundError):  # a march that blows up is not worth continuing
            os.remove(kept)
        raise ConfigError(f"{e}: {lat.nx} x {lat.ny} cells, relaxation time {1 / lat.omega[0]:.3f} "
                          f"(= 1/2 + 3 u_lat cells_per_diameter / Reynolds number; the collision grows unstable as "
                          f"it nears 1/2): raise it",
                          key="equation.start.cells_per_diameter") from None
    assert march is not None, "the case's interval and start time are positive"
    return march
