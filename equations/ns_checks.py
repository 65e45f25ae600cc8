"""Published comparisons and conservation checks of a trained flow, named in ``equation.checks``.

Each check is ``(equation, predict) -> Check`` where ``predict(points (N, D)) -> {field: values}`` gives
physical fields at physical points. A :class:`Check` carries metrics for ``summary.json``, notes, and
profiles (curves with reference points) for the driver to plot.

- ``ghia1982``: u on the vertical and v on the horizontal centreline of a lid-driven cavity against Ghia,
  Ghia & Shin, J. Comput. Phys. 48 (1982), Tables I–II, at the case's Re: 100, 400, 1000 or 3200 (copies
  in ``equations/data``, their sources in the files' headers; another Re is refused when the case is
  checked). The cavity is the domain's bounding box, the lid speed the equation's velocity scale.
  Metrics: the relative L2 error ``||pred - ref|| / ||ref||`` over Ghia's 15 interior points of each
  profile (grid indices 8–126 of his 129: the two wall points, 1 and 129, are boundary values, not
  predictions), ``ghia_u_rel_l2`` and ``ghia_v_rel_l2``, and the largest deviations there,
  ``ghia_u_max_abs`` and ``ghia_v_max_abs``. One misprint of the paper is left out of the score
  (:data:`GHIA_MISPRINTS`: Re 400, v at x = 0.9063), so that profile has 14 points; another, Re 3200, u at
  y = 0.4531, is stored corrected (the file's header says why).
- ``mass_flux``: inflow through ``inlet``, outflow through ``outlet`` and through cross-sections
  ``x = const`` (midpoint rule); metrics ``mass_flux_error = |Q_out - Q_in| / |Q_in|`` and the largest
  cross-section deviation ``mass_flux_error_sections``.
- ``symmetry``: about the horizontal mid-line of the bounding box, ``symmetry_u = ||u - Ru|| / ||u||``,
  ``symmetry_v = ||v + Rv|| / ||v||``, ``symmetry_p`` (``R``: the mirror image).
- ``dfg_cylinder``: the DFG benchmark quantities of a cylinder in a channel (:mod:`.ns_dfg`).
- ``forces`` (run for the parts in ``equation.forces``, not named in ``checks``): the drag and lift of an
  obstacle of any shape by the volume integral over a band around it, and by the line integrals along it
  (:func:`forces`).
"""
from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field

import numpy as np

from .ns_forces import band_forces, coefficient, line_forces

DATA = os.path.join(os.path.dirname(__file__), "data")

GHIA = "Ghia, Ghia & Shin (1982)"


@dataclass
class Check:
    metrics: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    profiles: dict = field(default_factory=dict)  # name -> {s, pred, s_ref, ref, ref_label, xlabel, ylabel, title}
    maps: dict = field(default_factory=dict)  # name -> {X, Y, values (NaN outside), field, where}
    series: dict = field(default_factory=dict)  # name -> {t, curves: {label: values}, xlabel, ylabel, title}


def read_table(name: str) -> dict[str, np.ndarray]:
    """Columns of a CSV in ``equations/data`` (lines starting with ``#`` are its source header)."""
    with open(os.path.join(DATA, name), encoding="utf-8") as fh:
        rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}


GHIA_RE = (100.0, 400.0, 1000.0, 3200.0)  # the Reynolds numbers of Ghia's tables
GHIA_WALLS = (1, 129)  # Ghia's grid indices of the walls: boundary values, not scored
GHIA_MISPRINTS = {  # (Re, profile) -> Ghia's grid indices of misprinted entries, not scored
    (400.0, "v"): (117,),  # -0.23827 at x = 0.9063 breaks the profile between -0.44993 and -0.22847 (-0.38 solved)
}


def ghia_re(reynolds: float) -> float | None:
    """The tabulated Reynolds number equal to ``reynolds`` (to 1e-6 relative), or None."""
    return next((re for re in GHIA_RE if abs(reynolds - re) <= 1e-6 * re), None)


def ghia_tables(reynolds: float) -> dict[str, dict[str, np.ndarray]]:
    """Ghia's profiles at ``reynolds`` (one of :data:`GHIA_RE`): ``{"u": {"s", "ref", "scored"}, "v": ...}``,
    ``s`` the coordinate along the centreline (y for u, x for v), ``ref`` the tabulated values, ``scored``
    the points of the score (the interior ones less misprints)."""
    re = ghia_re(reynolds)
    if re is None:
        raise ValueError(f"Ghia's tables are for Re = {', '.join(f'{r:g}' for r in GHIA_RE)}, not {reynolds:g}")
    out = {}
    for q, s in (("u", "y_exact"), ("v", "x_exact")):
        t = read_table(f"ghia1982_re{re:g}_{q}.csv")
        left_out = GHIA_WALLS + GHIA_MISPRINTS.get((re, q), ())
        out[q] = {"s": t[s], "ref": t[q], "scored": ~np.isin(t["index"], left_out)}
    return out


PROFILE_LABELS = {
    "u": {"xlabel": "u / U at x = 0.5", "ylabel": "y / L", "title": "u on the vertical centreline (rel-L2 {:.2%})"},
    "v": {"xlabel": "x / L", "ylabel": "v / U at y = 0.5", "title": "v on the horizontal centreline (rel-L2 {:.2%})"},
}


def ghia1982(eq, predict) -> Check:
    if ghia_re(eq.config.reynolds) is None:
        return Check(notes=[f"ghia1982: tables are for Re = {', '.join(f'{r:g}' for r in GHIA_RE)}; this case "
                            f"has Re = {eq.config.reynolds:g}, no comparison made"])
    (x0, x1), (y0, y1) = eq.domain.bounds[:2]
    tables = ghia_tables(eq.config.reynolds)
    s = np.linspace(0.0, 1.0, 201)
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    lines = {"u": lambda sy: np.stack([np.full_like(sy, xm), y0 + (y1 - y0) * sy], -1),   # vertical, x = 0.5
             "v": lambda sx: np.stack([x0 + (x1 - x0) * sx, np.full_like(sx, ym)], -1)}  # horizontal, y = 0.5
    metrics, profiles = {}, {}
    for q, t in tables.items():
        keep = t["scored"]
        pred, ref = predict(lines[q](t["s"][keep]))[q] / eq.U, t["ref"][keep]
        rel = float(np.linalg.norm(pred - ref) / np.linalg.norm(ref))
        metrics[f"ghia_{q}_rel_l2"], metrics[f"ghia_{q}_max_abs"] = rel, float(np.max(np.abs(pred - ref)))
        profiles[f"centreline_{q}"] = {"s": predict(lines[q](s))[q] / eq.U, "s_axis": s, "ref": ref,
                                       "ref_axis": t["s"][keep], "swap": q == "u", "ref_label": GHIA,
                                       **PROFILE_LABELS[q], "title": PROFILE_LABELS[q]["title"].format(rel)}
    order = ("ghia_u_rel_l2", "ghia_v_rel_l2", "ghia_u_max_abs", "ghia_v_max_abs")
    return Check({k: metrics[k] for k in order}, [], profiles)


def section_flux(eq, predict, x: float, times=None, n: int = 801):
    """The flux of ``u`` through the section ``x = const`` of a 2D domain (trapezoid rule, 0 outside the fluid),
    or, given ``times``, an unsteady flow's through it at each of them (an array)."""
    (y0, y1) = eq.domain.bounds[1]
    y = np.linspace(y0, y1, n)
    pts = np.stack([np.full_like(y, x), y], -1)
    inside = eq.domain.space.contains(pts, 1e-12)
    if times is None:
        return float(np.trapezoid(np.where(inside, predict(pts)["u"], 0.0), y))
    times = np.asarray(times, float)
    u = predict(np.column_stack([np.tile(pts, (len(times), 1)), np.repeat(times, n)]))["u"].reshape(len(times), n)
    return np.trapezoid(np.where(inside, u, 0.0), y, axis=-1)


def mass_flux(eq, predict) -> Check:
    rng = np.random.default_rng(0)
    flux = {}
    for part in ("inlet", "outlet"):
        pts, normals = eq.domain.boundary(part, 2048, rng, "grid")
        pred = predict(pts)
        un = sum(pred[u] * normals[:, i] for i, u in enumerate(eq.velocity))
        flux[part] = float(eq.domain.measure(part) * np.mean(un))
    q_in, q_out = -flux["inlet"], flux["outlet"]
    (x0, x1) = eq.domain.bounds[0]
    sections = [section_flux(eq, predict, x) for x in np.linspace(x0, x1, 11)[1:-1]]
    return Check({"mass_flux_in": q_in, "mass_flux_out": q_out,
                  "mass_flux_error": abs(q_out - q_in) / max(abs(q_in), 1e-300),
                  "mass_flux_error_sections": max(abs(q - q_in) for q in sections) / max(abs(q_in), 1e-300)})


FORCE_POINTS = 8192  # points of the midpoint rule along a part whose forces are reported
BAND_CELLS = 64  # cells across the band of the volume forces on an obstacle (:func:`.ns_forces.band`)


def forces(eq, predict) -> Check:
    """The drag and lift coefficients of each part in ``equation.forces`` (an obstacle: a polygon's hole, an
    airfoil), :math:`c = 2F/(\\rho U^2 L)` on the equation's velocity and length scales: ``c_D_<part>``,
    ``c_L_<part>`` by the volume integral over the band of the fluid within ``width`` of the part
    (:func:`.ns_forces.band_forces`, as the cylinder's ``dfg_cylinder``: no derivative at the wall), ``width`` half
    the part's size and at most 0.8 of its distance to the other boundaries; ``c_D_<part>_surface`` by the line
    integral of the benchmark's formula and ``c_D_<part>_stress`` by the full stress (:func:`.ns_forces.line_forces`;
    the midpoint rule at ``FORCE_POINTS`` points spread evenly along the part). A part that meets another boundary
    (a channel's walls) has no band: its ``c_D_<part>`` is the line integral's, and a note says so."""
    metrics, notes = {}, []
    rng = np.random.default_rng(0)
    for part in eq.config.forces:
        pts, outward = eq.domain.boundary(part, FORCE_POINTS, rng, "grid")
        flow = lambda x: predict(x, of=eq.gradients)  # noqa: E731
        f = line_forces(flow, pts, -outward, eq.domain.measure(part) / len(pts), eq.nu, eq.rho)
        c = f.coefficients(eq.rho, eq.U, eq.config.length)
        metrics.update({f"c_D_{part}_surface": c["c_D_surface"], f"c_L_{part}_surface": c["c_L_surface"],
                        f"c_D_{part}_stress": c["c_D_stress"], f"c_L_{part}_stress": c["c_L_stress"]})
        width = band_width(eq, part, pts)
        if width is None:
            metrics.update({f"c_D_{part}": c["c_D_surface"], f"c_L_{part}": c["c_L_surface"]})
            notes.append(f"forces: {part} meets another boundary; c_D_{part}, c_L_{part} by the line integral")
            continue
        drag, lift = band_forces(flow, pts, lambda x: eq.domain.contains(x, 1e-12), width, eq.nu, eq.rho,
                                 BAND_CELLS)
        metrics.update({f"c_D_{part}": coefficient(drag, eq.rho, eq.U, eq.config.length),
                        f"c_L_{part}": coefficient(lift, eq.rho, eq.U, eq.config.length)})
    return Check(metrics, notes)


def band_width(eq, part: str, pts: np.ndarray) -> float | None:
    """The width of the volume forces' band around ``part`` (points ``pts`` along it): half its size, at most 0.8
    of its distance to the other parts; None when that is under a tenth of its size (it meets another boundary)."""
    from scipy.spatial import cKDTree

    size = float(np.max(np.ptp(pts, axis=0)))
    rng = np.random.default_rng(0)
    others = [eq.domain.boundary(p, 2048, rng, "grid")[0] for p in eq.domain.parts if p != part]
    gap = float(np.min(cKDTree(pts).query(np.concatenate(others))[0])) if others else np.inf
    width = min(size / 2, 0.8 * gap)
    return width if width >= size / 10 else None


def symmetry(eq, predict) -> Check:
    (x0, x1), (y0, y1) = eq.domain.bounds[:2]
    X, Y = np.meshgrid(np.linspace(x0, x1, 221), np.linspace(y0, y1, 81), indexing="ij")
    pts = np.stack([X.ravel(), Y.ravel()], -1)
    inside = eq.domain.contains(pts, 1e-12).reshape(X.shape)
    mirror = np.stack([X.ravel(), (y0 + y1 - Y).ravel()], -1)
    inside &= eq.domain.contains(mirror, 1e-12).reshape(X.shape)
    pred = {k: v.reshape(X.shape) for k, v in predict(pts).items()}
    out = {}
    for f, sign in (("u", 1.0), ("v", -1.0), ("p", 1.0)):
        a = np.where(inside, pred[f], 0.0)
        r = np.where(inside, sign * pred[f][:, ::-1], 0.0)
        if f == "p":  # the pressure level is irrelevant
            a, r = a - a[inside].mean() * inside, r - r[inside].mean() * inside
        out[f"symmetry_{f}"] = float(np.linalg.norm(a - r) / max(np.linalg.norm(a), 1e-300))
    return Check(out)
