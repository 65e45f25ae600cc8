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
- ``dfg_cylinder``: the DFG benchmark quantities of the hole named ``cylinder`` (Schäfer & Turek 1996;
  :mod:`.ns_forces`), with the equation's velocity scale as the mean inflow velocity :math:`U_{mean}` and
  :math:`D` the cylinder's diameter: ``c_D``, ``c_L`` (the benchmark's formula), ``c_D_stress``,
  ``c_L_stress`` (the full-stress integral), ``delta_p`` (between the front and back points of the cylinder)
  and ``cylinder_slip`` (the largest speed on the cylinder over :math:`U_{mean}`). When the case is one of
  the set-ups of ``DFG`` (channel, cylinder, :math:`Re = U_{mean} D/\nu`, steady or not) also
  ``<quantity>_rel_error`` against its reference values. Maps of the pressure and the vorticity near the
  cylinder.
"""
from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field

import numpy as np

from .ns_forces import circle, pressure_difference, surface_forces

DATA = os.path.join(os.path.dirname(__file__), "data")

GHIA = "Ghia, Ghia & Shin (1982)"


@dataclass
class Check:
    metrics: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    profiles: dict = field(default_factory=dict)  # name -> {s, pred, s_ref, ref, ref_label, xlabel, ylabel, title}
    maps: dict = field(default_factory=dict)  # name -> {X, Y, values (NaN outside), field, where}


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


def _near_cylinder(eq, predict, center, radius) -> dict:
    """Maps of the pressure and the vorticity around the cylinder, across the channel."""
    (y0, y1) = eq.domain.bounds[1]
    X, Y = np.meshgrid(np.linspace(center[0] - 3 * radius, center[0] + 9 * radius, 241),
                       np.linspace(y0, y1, 165), indexing="ij")
    pts = np.stack([X.ravel(), Y.ravel()], -1)
    inside = eq.domain.contains(pts, 1e-12).reshape(X.shape)
    pred = predict(pts)
    return {f"cylinder_{f}": {"X": X, "Y": Y, "values": np.where(inside, pred[f].reshape(X.shape), np.nan),
                              "field": f, "where": "near the cylinder"} for f in ("p", "vorticity")}


def dfg_cylinder(eq, predict) -> Check:
    center, radius = eq.domain.sphere("cylinder")
    flow = lambda pts: predict(pts, of=eq.gradients)
    forces = surface_forces(flow, center, radius, eq.nu, eq.rho)
    metrics = forces.coefficients(eq.rho, eq.U, 2 * radius)
    front, back = (center[0] - radius, center[1]), (center[0] + radius, center[1])
    metrics["delta_p"] = pressure_difference(flow, front, back)
    on = flow(circle(center, radius, 256)[0])
    metrics["cylinder_slip"] = float(np.max(np.hypot(on["u"], on["v"])) / eq.U)
    setup, notes = dfg_setup(eq, (center, radius)), []
    if setup is None:
        notes.append(f"dfg_cylinder: not one of the DFG set-ups {list(DFG)}; no comparison made")
    else:
        bench = DFG[setup]
        metrics.update({f"{k}_rel_error": abs(metrics[k] - ref) / abs(ref) for k, ref in bench.references.items()})
        notes.append(f"dfg_cylinder: DFG {setup}, references: {bench.source}")
    return Check(metrics, notes, maps=_near_cylinder(eq, predict, center, radius))


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
