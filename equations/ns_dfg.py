r"""The DFG benchmark "laminar flow around a cylinder" (Schäfer & Turek 1996) as the check ``dfg_cylinder``.

The set-ups share a channel :math:`[0, 2.2]\times[0, 0.41]` and a cylinder of radius 0.05 centred at
:math:`(0.2, 0.2)` (off the axis), :math:`\rho = 1`, :math:`\nu = 10^{-3}`, a parabolic inflow of mean speed
:math:`U_{mean}`, no slip on the walls and the cylinder and a do-nothing outflow; they differ by
:math:`Re = U_{mean} D/\nu` and whether the flow is steady (``DFG``: each with its reference values and source).

The check computes, for the circular hole whose boundary part is named ``cylinder`` (diameter :math:`D`),
with the equation's velocity scale as :math:`U_{mean}` (:mod:`.ns_forces`): ``c_D`` and ``c_L``, the scored
estimates, by the volume integral over the ring from the cylinder to :math:`R = \min(3D/2, d)`, :math:`d` the
distance from its centre to the nearest side of the bounding box (where that ring leaves the fluid, the surface
formula's, and a note says so); ``c_D_surface`` and ``c_L_surface`` by the benchmark's line integral,
``c_D_stress`` and ``c_L_stress`` by the full-stress one (these two differ by the network's wall slip and its
divergence at the wall; both take derivatives at the wall, where a network's are least accurate); ``delta_p``
between the front and back points of the cylinder (:math:`(0.15, 0.2)` and :math:`(0.25, 0.2)` in the
benchmark) and ``cylinder_slip``, the largest speed on the cylinder over :math:`U_{mean}`. When the case is one
of the set-ups (channel, cylinder, Reynolds number, steady or not, to 1e-9) it adds
``<quantity>_rel_error = |ours - ref| / |ref|`` for each reference; otherwise a note says no comparison was
made. Maps of the pressure and the vorticity near the cylinder go to the run's plots.

An unsteady flow is scored over its interval (:func:`_history`: the Strouhal number and the maxima of the
coefficients over its last two periods, or its one if it holds one, with ``periods`` how many; their curves
in time) with the vorticity over the channel at its
first, middle and last times, and its mass flux through the inlet, the cylinder's section and the outlet in
time (a plot; for a DFG set-up ``mass_flux_error``, the largest departure from the inflow's :math:`U_{mean} H`
over the sections and times, H the channel's height: a network that lets the inflow leak loses drag); a case
that starts from a developed flow (``equation.start``, :mod:`.ns_start`) is also compared with the classical
solver's forces over the same interval (``c_D_lbm_rms_diff``, ``c_L_lbm_rms_diff``, the same of the line
integral's ``c_D_surface_lbm_rms_diff`` and ``c_L_surface_lbm_rms_diff``, which does not read the time
derivatives, and ``St_lbm``, ``c_D_max_lbm``, ``c_L_max_lbm``: the solver's over the same interval and the
same number of periods).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import ns_start
from .ns_checks import Check, section_flux
from .ns_forces import (
    circle,
    coefficient,
    oscillation,
    pressure_difference,
    ring,
    surface_forces,
    volume_forces,
    whole_periods,
)


@dataclass(frozen=True)
class Benchmark:
    """A DFG set-up: its Reynolds number ``U_mean D / nu``, whether it is unsteady, its reference values."""

    Re: float
    unsteady: bool
    references: dict[str, float]
    source: str


DFG_CHANNEL = ((0.0, 2.2), (0.0, 0.41))
DFG_CYLINDER = ((0.2, 0.2), 0.05)
DFG = {
    "2D-1": Benchmark(20.0, False, {"c_D": 5.57953523384, "c_L": 0.010618948146, "delta_p": 0.11752016697},
                      "FeatFlow refined values, as quoted in V. John, Finite Element Methods for Incompressible "
                      "Flow Problems (2016), Example D.5"),
    "2D-2": Benchmark(100.0, True, {"St": 0.300, "c_D_max": 3.23, "c_L_max": 1.00},
                      "Schäfer & Turek 1996, the middles of the ranges St 0.295-0.305, c_D,max 3.22-3.24, "
                      "c_L,max 0.99-1.01"),
}


def _close(a, b) -> bool:
    return bool(np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-9, atol=1e-12))


def dfg_setup(eq, cylinder) -> str | None:
    """The name of the DFG set-up the case is (channel, cylinder, Reynolds number, time), or None."""
    (center, radius), reynolds = cylinder, eq.U * 2 * cylinder[1] / eq.nu
    if not (_close(eq.domain.bounds[:2], DFG_CHANNEL) and _close(center, DFG_CYLINDER[0])
            and _close(radius, DFG_CYLINDER[1])):
        return None
    return next((name for name, b in DFG.items() if _close(b.Re, reynolds) and b.unsteady == eq.unsteady), None)


def _snapshot(predict, t):
    """``predict`` on spatial points at time ``t`` (None: a steady flow)."""
    if t is None:
        return predict
    return lambda pts, of=None: predict(np.column_stack([pts, np.full(len(pts), t)]), of=of)


def ring_outer(eq, center, radius) -> float | None:
    """The outer radius of the volume forces' ring (module notes), or None where that ring leaves the fluid."""
    box = np.asarray(eq.domain.bounds[:2], float)
    outer = min(3 * radius, float(np.min(np.abs(box - np.asarray(center, float)[:, None]))))
    pts = ring(center, radius, outer, 8, 64)[0]
    inside = eq.domain.space.contains(pts, 1e-12)
    return outer if outer > radius and bool(np.all(inside)) else None


def _quantities(eq, snap, center, radius, outer: float | None) -> dict[str, float]:
    """The coefficients (``c_D``, ``c_L`` by the volume integral over the ring to ``outer``; None: by the
    surface formula), the pressure difference and the wall slip of one (steady or frozen) flow."""
    flow = lambda pts: snap(pts, of=eq.gradients)
    surface = surface_forces(flow, center, radius, eq.nu, eq.rho).coefficients(eq.rho, eq.U, 2 * radius)
    if outer is None:
        c_d, c_l = surface["c_D_surface"], surface["c_L_surface"]
    else:
        c_d, c_l = (coefficient(f, eq.rho, eq.U, 2 * radius)
                    for f in volume_forces(flow, center, radius, eq.nu, eq.rho, outer))
    out = {"c_D": c_d, "c_L": c_l, **surface}
    out["delta_p"] = pressure_difference(flow, (center[0] - radius, center[1]), (center[0] + radius, center[1]))
    on = flow(circle(center, radius, 256)[0])
    out["cylinder_slip"] = float(np.max(np.hypot(on["u"], on["v"])) / eq.U)
    return out


_READ = ("u", "v", "p", "u_x", "u_y", "v_x", "v_y")  # what a snapshot's quantities read (ns_forces.Flow)


def _asked(eq, center, radius, outer) -> list[np.ndarray]:
    """The point sets one snapshot's :func:`_quantities` reads, in order (the same at every time): recorded on a
    flow of zeros."""
    asked: list[np.ndarray] = []

    def record(pts, of=None):
        asked.append(np.asarray(pts, float))
        return {k: np.zeros(len(pts)) for k in _READ}

    _quantities(eq, record, center, radius, outer)
    return asked


def _quantities_in_time(eq, predict, t, center, radius, outer, rows: int = 1 << 19) -> list[dict]:
    """:func:`_quantities` at each of the times ``t``: the flow predicted at every point a snapshot reads, for a
    block of times of about ``rows`` points in all, in one call (where a snapshot at a time made one call per
    point set: about 800 calls for a history), and served back to each snapshot's point sets in turn."""
    asked = _asked(eq, center, radius, outer)
    pts = np.concatenate(asked)
    pieces = np.split(np.arange(len(pts)), np.cumsum([len(a) for a in asked])[:-1])
    out, block = [], max(1, rows // len(pts))
    for start in range(0, len(t), block):
        times = t[start:start + block]
        flat = predict(np.column_stack([np.tile(pts, (len(times), 1)), np.repeat(times, len(pts))]),
                       of=eq.gradients)
        values = {k: np.asarray(v).reshape(len(times), len(pts)) for k, v in flat.items()}
        out += [_quantities(eq, _served(values, i, pieces), center, radius, outer) for i in range(len(times))]
    return out


def _served(values: dict, i: int, pieces: list) -> Callable:
    """A flow that answers the ``k``-th call with the ``k``-th of ``pieces`` (indices) of the ``i``-th time's
    ``values``: the point sets a snapshot reads, in the order it reads them."""
    served = iter(pieces)

    def flow(pts, of=None):
        idx = next(served)
        return {k: v[i, idx] for k, v in values.items()}

    return flow


def _sections(eq, center) -> dict[str, float]:
    """The cross-sections ``x = const`` whose flux the unsteady check follows."""
    (x0, x1) = eq.domain.bounds[0]
    return {"inlet": x0, f"x = {center[0]:.3g} (the cylinder)": center[0], "outlet": x1}


def _history(eq, predict, center, radius, outer) -> tuple[dict, list, dict]:
    """``(metrics, notes, series)`` of an unsteady flow: the quantities at ``equation.check_times`` times, the
    Strouhal number and the maxima over the last two periods of the lift, or its one (over all times if it has
    none)."""
    t0, t1 = eq.domain.time
    t = np.linspace(t0, t1, eq.config.check_times)
    history = _quantities_in_time(eq, predict, t, center, radius, outer)
    c = {k: np.array([h[k] for h in history])
         for k in ("c_D", "c_L", "c_D_surface", "c_L_surface", "delta_p", "cylinder_slip")}
    flux = {name: section_flux(eq, predict, x, t) for name, x in _sections(eq, center).items()}
    notes: list[str] = []
    periods = whole_periods(t, c["c_L"])
    if periods:
        metrics = oscillation(t, c["c_L"], c["c_D"], 2 * radius, eq.U, periods)
        metrics["periods"] = float(periods)
    else:
        notes.append("dfg_cylinder: no Strouhal number (c_L completes no period over the interval); "
                     "maxima over all times")
        metrics = {"c_D_max": float(c["c_D"].max()), "c_L_max": float(c["c_L"].max())}
    metrics["cylinder_slip"] = float(c["cylinder_slip"].max())
    curves = {"c_D": c["c_D"], "c_L": c["c_L"]}
    if outer is not None:  # the line integral beside the volume one (which also reads the time derivatives)
        curves.update({"c_D (surface)": c["c_D_surface"], "c_L (surface)": c["c_L_surface"]})
    if eq.config.start is not None:  # the classical solver's forces over the same interval
        lbm = ns_start.read(eq.config.start)["history"]
        for k in ("c_D", "c_L"):
            ref = np.interp(t, lbm["t"], lbm[k])
            curves[f"{k} (lattice Boltzmann)"] = ref
            for name in (k, f"{k}_surface"):
                metrics[f"{name}_lbm_rms_diff"] = float(np.sqrt(np.mean((c[name] - ref) ** 2)))
        inside = lbm["t"] <= t1 + 1e-12  # the solver's over the same interval and periods as the network's
        lt, l_l, l_d = lbm["t"][inside], lbm["c_L"][inside], lbm["c_D"][inside]
        if periods and whole_periods(lt, l_l) >= periods:
            ref = oscillation(lt, l_l, l_d, 2 * radius, eq.U, periods)
            metrics.update({f"{k}_lbm": ref[k] for k in ("St", "c_D_max", "c_L_max")})
    series = {"cylinder_forces": {"t": t, "curves": curves, "xlabel": "t", "ylabel": "coefficient",
                                  "title": "drag and lift coefficients"},
              "mass_flux": {"t": t, "curves": flux, "xlabel": "t", "ylabel": "flux through x = const",
                            "title": "mass flux through the inlet, the cylinder's section and the outlet"}}
    return metrics, notes, series


def _near_cylinder(eq, snap, center, radius) -> dict:
    """Maps of the pressure and the vorticity around the cylinder, across the channel."""
    (y0, y1) = eq.domain.bounds[1]
    X, Y = np.meshgrid(np.linspace(center[0] - 3 * radius, center[0] + 9 * radius, 241),
                       np.linspace(y0, y1, 165), indexing="ij")
    pts = np.stack([X.ravel(), Y.ravel()], -1)
    inside = eq.domain.space.contains(pts, 1e-12).reshape(X.shape)
    pred = snap(pts)
    where = "near the cylinder" + (f", t = {eq.domain.time[1]:.3g}" if eq.unsteady else "")
    return {f"cylinder_{f}": {"X": X, "Y": Y, "values": np.where(inside, pred[f].reshape(X.shape), np.nan),
                              "field": f, "where": where} for f in ("p", "vorticity")}


def _vorticity_in_time(eq, predict, count: int = 3) -> dict:
    """Maps of the vorticity over the whole channel at ``count`` times from the first to the last."""
    (x0, x1), (y0, y1) = eq.domain.bounds[:2]
    X, Y = np.meshgrid(np.linspace(x0, x1, 441), np.linspace(y0, y1, 83), indexing="ij")
    pts = np.stack([X.ravel(), Y.ravel()], -1)
    inside = eq.domain.space.contains(pts, 1e-12).reshape(X.shape)
    out = {}
    t0, t1 = eq.domain.time
    for k, t in enumerate(np.linspace(t0, t1, count)):
        w = _snapshot(predict, t)(pts)["vorticity"].reshape(X.shape)
        out[f"vorticity_{k}"] = {"X": X, "Y": Y, "values": np.where(inside, w, np.nan), "field": "vorticity",
                                 "where": f"t = {t:.3g}"}
    return out


def dfg_cylinder(eq, predict):
    """The check (a :class:`~.ns_checks.Check`): module notes."""
    center, radius = eq.domain.sphere("cylinder")
    outer = ring_outer(eq, center, radius)
    if eq.unsteady:
        metrics, notes, series = _history(eq, predict, center, radius, outer)
    else:
        metrics, notes, series = _quantities(eq, predict, center, radius, outer), [], {}
    if outer is None:
        notes.append("dfg_cylinder: the ring of the volume forces leaves the fluid; c_D, c_L by the surface formula")
    setup = dfg_setup(eq, (center, radius))
    if setup is None:
        notes.append(f"dfg_cylinder: not one of the DFG set-ups {list(DFG)}; no comparison made")
    else:
        bench = DFG[setup]
        metrics.update({f"{k}_rel_error": abs(metrics[k] - ref) / abs(ref) for k, ref in bench.references.items()
                        if k in metrics})
        notes.append(f"dfg_cylinder: DFG {setup}, references: {bench.source}")
        if "mass_flux" in series:  # the set-ups' inflow carries U_mean times the channel's height
            inflow = eq.U * float(np.diff(eq.domain.bounds[1])[0])
            flux = series["mass_flux"]["curves"].values()
            metrics["mass_flux_error"] = max(float(np.max(np.abs(q - inflow))) for q in flux) / inflow
    last = _snapshot(predict, eq.domain.time[1] if eq.unsteady else None)
    maps = _near_cylinder(eq, last, center, radius)
    if eq.unsteady:
        maps.update(_vorticity_in_time(eq, predict))
    return Check(metrics, notes, maps=maps, series=series)
