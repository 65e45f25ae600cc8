"""A classical solver's reference where the equation has none of its own (a plate on a polygon): a table from the
equation's type and geometry to the solver that answers it on the same domain.

:meth:`~sciml.equations.Equation.reference` answers with the equation's own maths (a rectangular plate's series,
the cavity's tables); where it gives None, :func:`reference` asks the table: ``kirchhoff_plate`` on a
:class:`~sciml.solvers.pinn.geometry.Polygon` (or a rectangle with holes or regrouped edges, which the series do not
take) is solved by finite elements (:func:`sciml.solvers.classical.fem.reference`), refined until the deflection at
the points changes by less than ``rtol``, a steady 2D ``navier_stokes`` flow on a polygon by Taylor–Hood
elements (:mod:`sciml.solvers.classical.fem.flow`), refined until the velocity there does, its obstacle's drag and
lift recorded on each mesh, and ``heat`` in a part bounded by a triangle mesh
(:class:`~sciml.solvers.pinn.geometry.Mesh`) by quadratic tetrahedra (:mod:`sciml.solvers.classical.fem.heat`),
refined until the temperature there does. Points outside the domain get NaN.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sciml.errors import ConfigError

from ..geometry import Mesh, Polygon, Rectangle


def _region(geometry: Polygon | Rectangle):
    from sciml.solvers.classical import fem  # on use: the optional extra `fem`

    loops = []
    for loop in geometry.loops():
        if len(loop) == 3:  # a circle (centre, radius, part): its polygon, fine enough for the reference
            centre, radius, part = loop
            loops.append(fem.circle(centre, radius, 256, part))
        else:
            loops.append(fem.Loop(np.asarray(loop[0], float), tuple(loop[1])))
    return fem.Region(tuple(loops))


def _plate(eq, geometry, points: np.ndarray, rtol: float) -> tuple[dict, dict]:
    from sciml.solvers.classical import fem

    conditions = {part: eq.config.edge(part) for part in geometry.parts}
    scale = eq.q0 / eq.peak
    load = lambda x, y: scale * np.broadcast_to(np.asarray(eq.shape(x, y), float), np.shape(x))
    return fem.reference(_region(geometry), conditions, eq.D, eq.nu, load, points, rtol=rtol)


def _velocity(eq, part: str, condition: dict):
    """A part's condition as the flow solver's: ``(u, v)`` (numbers or functions of x, y) for a velocity,
    ``"do_nothing"`` for an outflow (no velocity given: ``{}`` or ``{p: 0, u_n: 0, v_n: 0}``, which the
    finite elements pose as nu du/dn - p n = 0, the do-nothing condition); :class:`~sciml.errors.ConfigError`
    naming the part for any other."""
    from sciml import expr

    keys = set(condition)
    if keys == {"u", "v"}:
        def value(q):
            e = expr.parse(condition[q], eq.coords)
            return lambda x, y: np.broadcast_to(np.asarray(e(np, x=x, y=y), float), np.shape(x))
        return value("u"), value("v")
    if keys <= {"p", "u_n", "v_n"} and all(not isinstance(v, str) and float(v) == 0 for v in condition.values()):
        return "do_nothing"
    raise ConfigError(f"the finite-element reference takes a velocity {{u, v}} or an outflow ({{}} or {{p: 0, u_n: 0, "
                      f"v_n: 0}}) on each part, not {condition}", f"equation.conditions.{part}")


def _flow(eq, geometry, points: np.ndarray, rtol: float) -> tuple[dict, dict]:
    """A steady 2D flow by Taylor–Hood elements, finer around the domain's hole when it has one (its forces,
    coefficients on the equation's velocity and length scales, in ``info["coefficients"]``)."""
    from sciml.solvers.classical.fem import flow

    if eq.unsteady or eq.stream or eq.periodic or eq.config.force:
        raise ConfigError("the finite-element reference on a polygon is a steady flow in velocity and pressure, "
                          "without periodic parts or a body force", "equation")
    conditions = {part: _velocity(eq, part, eq.config.conditions[part]) for part in geometry.parts}
    holes = {loop[-1] if len(loop) == 3 else loop[1][0] for loop in geometry.loops()[1:]}
    near = holes.pop() if len(holes) == 1 else None
    fields, info = flow.reference(_region(geometry), conditions, eq.nu, points, rtol=rtol, rho=eq.rho, near=near,
                                  scales=(eq.U, eq.config.length))
    info["measure"], info["obstacle"] = "velocity", near
    return fields, info


def _labels(geometry, points: np.ndarray) -> np.ndarray:
    """The part of the domain each boundary point ``(n, D)`` lies on (within a millionth of the domain's size);
    ``ValueError`` for a point on none."""
    tol = 1e-6 * float(np.linalg.norm([hi - lo for lo, hi in geometry.bounds]))
    out = np.full(len(points), "", dtype=object)
    for part, pieces in geometry.groups.items():
        for piece in pieces:
            out[(out == "") & geometry.pieces[piece].on(points, tol)] = part
    if np.any(out == ""):
        raise ValueError(f"{int(np.sum(out == ''))} boundary facets of the finite-element mesh lie on no part of the "
                         f"domain, the first at {points[np.argmax(out == '')].tolist()}")
    return out


def _heat(eq, geometry, points: np.ndarray, rtol: float) -> tuple[dict, dict]:
    """Steady heat conduction in a part bounded by a triangle mesh, by quadratic tetrahedra of Gmsh's meshes of
    the same surface, each boundary facet under the condition of the domain's part it lies on."""
    from sciml.solvers.classical.fem import heat

    vertices, faces = np.unique(geometry.triangles.reshape(-1, 3), axis=0, return_inverse=True)
    conditions, source = eq.classical()
    fields, info = heat.reference(vertices, faces.reshape(-1, 3), lambda c: _labels(geometry, c), conditions,
                                  eq.k, points, source=source, rtol=rtol)
    info["measure"] = "u"
    return fields, info


# (equation type, geometry class) -> (equation, geometry, points inside, rtol) -> (fields, info)
SOLVERS: dict[tuple[str, type], Callable] = {("kirchhoff_plate", Polygon): _plate,
                                             ("kirchhoff_plate", Rectangle): _plate,
                                             ("navier_stokes", Polygon): _flow,
                                             ("heat", Mesh): _heat}


def available(eq, geometry) -> bool:
    """Whether a classical solver answers ``eq`` on ``geometry``."""
    return (eq.section.type, type(geometry)) in SOLVERS


def reference(eq, geometry, points: np.ndarray, inside: np.ndarray, rtol: float) -> tuple[dict | None, dict]:
    """``(fields at the points, the solver's info)``, NaN outside (``inside`` False); ``(None, {})`` when no
    solver answers."""
    solver = SOLVERS.get((eq.section.type, type(geometry)))
    if solver is None:
        return None, {}
    fields, info = solver(eq, geometry, np.asarray(points, float)[inside], rtol)
    out = {}
    for name, values in fields.items():
        full = np.full(len(points), np.nan)
        full[inside] = values
        out[name] = full
    return out, info


def on_grid(eq, geometry, ev, rtol: float) -> tuple[dict | None, dict]:
    """The reference on the evaluation grid ``ev`` (the arrays shaped as the grid): the equation's own, else a
    classical solver's, with a summary of how the solver made it (else ``{}``)."""
    fields, info = eq.reference(ev.points), dict[str, Any]()
    if fields is None:
        fields, info = reference(eq, geometry, ev.points, ev.mask, rtol)
    if info:
        summary = {"solver": f"finite elements ({info['element']})", "elements": info["elements"][-1],
                   f"change_of_{info.get('measure', 'w')}": info["changes"][-1], "rtol": info["rtol"],
                   "seconds": round(info["wall_seconds"], 1)}
        if info.get("coefficients"):  # a flow's forces on its obstacle, on each mesh
            summary[f"{info['obstacle']}_coefficients"] = info["coefficients"]
        info = summary
    return None if fields is None else {k: np.asarray(v).reshape(ev.shape) for k, v in fields.items()}, info


def force_errors(metrics: dict, info: dict) -> dict[str, float]:
    """``c_D_<part>_rel_error``, ``c_L_<part>_rel_error``: a run's coefficients of a part (``equation.forces``)
    against the classical solver's on its finest mesh (the summary's ``<part>_coefficients``, :func:`on_grid`)."""
    out = {}
    for key, levels in info.items():
        if not (key.endswith("_coefficients") and levels):
            continue
        part = key[: -len("_coefficients")]
        for name, ref in levels[-1].items():
            ours = metrics.get(f"{name}_{part}")
            if ours is not None and ref != 0:
                out[f"{name}_{part}_rel_error"] = abs(ours - ref) / abs(ref)
    return out


def of_case(equation, problem, ev, rtol: float) -> tuple[dict | None, list | None, dict]:
    """``(reference, family, info)`` of a run on the evaluation grid ``ev``: a family's ``[(values, equation
    there, reference there)]`` for each of its evaluated combinations (the reference: the first's), else None
    and ``equation``'s reference (:func:`on_grid`); ``info``: how a classical solver made them."""
    info: dict = {}

    def one(eq) -> dict | None:
        reference, made = on_grid(eq, problem.geometry, ev, rtol)
        info.update(made)
        return reference

    family = problem.parameters
    if family is None:
        return one(equation), None, info
    combos = [(v, eq, one(eq)) for v in family.grid() for eq in (family.at(v),)]
    return combos[0][2], combos, info
