"""Published comparisons and conservation checks of a trained flow, named in ``equation.checks``.

Each check is ``(equation, predict) -> Check`` where ``predict(points (N, D)) -> {field: values}`` gives
physical fields at physical points. A :class:`Check` carries metrics for ``summary.json``, notes, and
profiles (curves with reference points) for the driver to plot.

- ``ghia1982``: u on the vertical and v on the horizontal centreline of a lid-driven cavity against Ghia,
  Ghia & Shin, J. Comput. Phys. 48 (1982), Tables I–II (Re = 100; copies in ``equations/data``). The
  cavity is the domain's bounding box, the lid speed the equation's velocity scale. Metric: relative L2
  error over Ghia's 17 points, ``ghia_u_rel_l2`` and ``ghia_v_rel_l2``.
- ``mass_flux``: inflow through ``inlet``, outflow through ``outlet`` and through cross-sections
  ``x = const`` (midpoint rule); metrics ``mass_flux_error = |Q_out - Q_in| / |Q_in|`` and the largest
  cross-section deviation ``mass_flux_error_sections``.
- ``symmetry``: about the horizontal mid-line of the bounding box, ``symmetry_u = ||u - Ru|| / ||u||``,
  ``symmetry_v = ||v + Rv|| / ||v||``, ``symmetry_p`` (``R``: the mirror image).
- ``dfg_cylinder``: the DFG benchmark quantities of a cylinder in a channel (:mod:`.ns_dfg`).
"""
from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field

import numpy as np

from .ns_dfg import dfg_cylinder

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


GHIA_RE = 100.0


def ghia1982(eq, predict) -> Check:
    if abs(eq.config.reynolds - GHIA_RE) > 1e-9 * GHIA_RE:
        return Check(notes=[f"ghia1982: tables are for Re = {GHIA_RE:g}; this case has Re = "
                            f"{eq.config.reynolds:g}, no comparison made"])
    (x0, x1), (y0, y1) = eq.domain.bounds[:2]
    tu, tv = read_table("ghia1982_re100_u.csv"), read_table("ghia1982_re100_v.csv")
    s = np.linspace(0.0, 1.0, 201)
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    vertical = lambda sy: np.stack([np.full_like(sy, xm), y0 + (y1 - y0) * sy], -1)
    horizontal = lambda sx: np.stack([x0 + (x1 - x0) * sx, np.full_like(sx, ym)], -1)
    u_pts = predict(vertical(tu["y_exact"]))["u"] / eq.U
    v_pts = predict(horizontal(tv["x_exact"]))["v"] / eq.U
    rel = lambda a, b: float(np.linalg.norm(a - b) / np.linalg.norm(b))
    metrics = {"ghia_u_rel_l2": rel(u_pts, tu["u"]), "ghia_v_rel_l2": rel(v_pts, tv["v"]),
               "ghia_u_max_abs": float(np.max(np.abs(u_pts - tu["u"]))),
               "ghia_v_max_abs": float(np.max(np.abs(v_pts - tv["v"])))}
    profiles = {
        "centreline_u": {"s": predict(vertical(s))["u"] / eq.U, "s_axis": s, "ref": tu["u"],
                         "ref_axis": tu["y_exact"], "swap": True, "ref_label": GHIA,
                         "xlabel": "u / U at x = 0.5", "ylabel": "y / L",
                         "title": f"u on the vertical centreline (rel-L2 {metrics['ghia_u_rel_l2']:.2%})"},
        "centreline_v": {"s": predict(horizontal(s))["v"] / eq.U, "s_axis": s, "ref": tv["v"],
                         "ref_axis": tv["x_exact"], "swap": False, "ref_label": GHIA,
                         "xlabel": "x / L", "ylabel": "v / U at y = 0.5",
                         "title": f"v on the horizontal centreline (rel-L2 {metrics['ghia_v_rel_l2']:.2%})"},
    }
    return Check(metrics, [], profiles)


def _section_flux(eq, predict, x: float, n: int = 801) -> float:
    (y0, y1) = eq.domain.bounds[1]
    y = np.linspace(y0, y1, n)
    pts = np.stack([np.full_like(y, x), y], -1)
    inside = eq.domain.contains(pts, 1e-12)
    u = np.where(inside, predict(pts)["u"], 0.0)
    return float(np.trapezoid(u, y))


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
    sections = [_section_flux(eq, predict, x) for x in np.linspace(x0, x1, 11)[1:-1]]
    return Check({"mass_flux_in": q_in, "mass_flux_out": q_out,
                  "mass_flux_error": abs(q_out - q_in) / max(abs(q_in), 1e-300),
                  "mass_flux_error_sections": max(abs(q - q_in) for q in sections) / max(abs(q_in), 1e-300)})


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


CHECKS = {"ghia1982": ghia1982, "mass_flux": mass_flux, "symmetry": symmetry, "dfg_cylinder": dfg_cylinder}
