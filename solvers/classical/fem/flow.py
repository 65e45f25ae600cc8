r"""Steady incompressible Navier–Stokes flow on a polygon with holes by Taylor–Hood finite elements: the
independent reference for the PINN's flows past obstacles (a cylinder, an airfoil) on the same shapes.

.. math:: -\nu\Delta u + (u\cdot\nabla)u + \nabla p = 0, \qquad \nabla\cdot u = 0

in kinematic form (:math:`p` here is the pressure over :math:`\rho`; :meth:`FlowSolution.fields` gives
:math:`\rho p`). Each named part of the boundary has either a **velocity** :math:`u = g` (an inflow profile, no
slip on walls and obstacles; numbers or vectorised functions of :math:`x, y`) or the **do-nothing** outflow
:math:`\nu\,\partial_n u - p n = 0`, natural in the weak form

.. math:: a(u; v) = \int_\Omega \nu\nabla u : \nabla v + (u\cdot\nabla u)\cdot v - p\,\nabla\cdot v\,dx = 0,
          \qquad \int_\Omega q\,\nabla\cdot u\,dx = 0

(the DFG benchmark's outflow; it also fixes the pressure's constant; without it one pressure value is held and
the mean pressure is set to zero). Elements: continuous quadratic velocity and linear pressure (Taylor–Hood
P2/P1, inf-sup stable), on Triangle's straight-sided meshes of :mod:`.mesh`, exact quadrature of the
convection (degree 5).

**Iterations.** From the Stokes solution, Newton's method on the full system (the Jacobian adds
:math:`((u\cdot\nabla)w + (w\cdot\nabla)u)\cdot v`); a step that raises the residual's norm is replaced by a
Picard (Oseen) step :math:`(w\cdot\nabla)u`, which converges from farther away. It stops when the largest
change of the unknowns is below ``tol`` times the largest velocity. Each step is a direct sparse solve (SuperLU,
in nested-dissection order, :func:`.ordering.lu_nested`).

**Forces** on a part :math:`S` held by a velocity condition (the obstacle): the volume form of
:mod:`sciml.equations.ns_forces`, :math:`F\cdot e = -\rho\,a(u_h; \phi e)` with :math:`\phi` the finite-element
function equal to 1 at the nodes on :math:`S` and 0 at all others. For the exact flow this is the surface
integral :math:`\int_S (\rho\nu\,\partial u/\partial n - p n)\,dS` (:math:`n` into the fluid) whatever
:math:`\phi`; for the discrete flow it is the residual of the discrete momentum equations at the nodes of
:math:`S`, summed by component. It converges at the rate of the energy norm squared (the residual is tested
against a discrete function, no derivative taken at the wall): :math:`O(h^4)` for a smooth flow on an exact
boundary; a curved obstacle given as a polygon adds the polygon's :math:`O(h_S^2)` error of shape,
:math:`h_S` its side, and a corner (an airfoil's trailing edge) its own singularity.

**Meshes** (:func:`steady`): side about ``h``, and with ``near`` the named obstacle's surroundings finer, side
``near_factor * h`` on it growing by ``growth`` per unit distance (:func:`.mesh.near_edges`).
:func:`reference` halves ``h`` until the velocity at given points settles, and records the forces on the way.
Measured orders and errors: ``docs/notes/fem_reference.md``.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import skfem
from scipy import sparse
from skfem.helpers import ddot, div, dot, grad

from . import probe
from .mesh import Region, mesh, near_edges
from .ordering import lu_nested

DO_NOTHING = "do_nothing"
INTORDER = 5  # quadrature degree: (w . grad u) . v of quadratics is of degree 5
NEAR_FACTOR = 0.25  # the obstacle's element side, of h
GROWTH = 0.25  # the side's growth per unit distance from the obstacle
TOL = 1e-10  # Newton: the largest change over the largest velocity
MAX_ITERATIONS = 40
MAX_DOFS = 600_000  # reference()'s largest system

Value = float | Callable[[np.ndarray, np.ndarray], np.ndarray]
Condition = tuple[Value, Value] | str  # a velocity (u, v), or DO_NOTHING


def check_conditions(region: Region, conditions: Mapping[str, Condition]) -> None:
    """Raise ``ValueError`` naming the problem: an edge name without a condition, a condition for no edge, a
    condition neither a velocity pair nor ``"do_nothing"``, or no velocity anywhere."""
    region.check_names(conditions, f"a velocity (u, v) or {DO_NOTHING!r}")
    for name, c in conditions.items():
        if isinstance(c, str):
            if c != DO_NOTHING:
                raise ValueError(f"unknown condition {c!r} for edge {name!r}: a velocity (u, v) or {DO_NOTHING!r}")
        elif len(c) != 2 or not all(callable(g) or np.isfinite(g) for g in c):
            raise ValueError(f"the velocity of edge {name!r} must be a pair (u, v) of numbers or functions of x, y, "
                             f"got {c!r}")
    if all(isinstance(c, str) for c in conditions.values()):
        raise ValueError("no edge has a velocity: the flow needs an inflow or walls")


@dataclass(frozen=True)
class FlowSolution:
    """A solved flow: the mesh, the velocity (vector P2) and pressure (P1) bases, the unknowns ``x`` (velocity
    then kinematic pressure), the momentum residual ``residual`` at every velocity node (zero but on the
    velocity conditions' nodes: the forces there), and ``info``: ``h``, ``elements``, ``dofs``, ``iterations``,
    ``seconds`` (meshing, assembly and solves)."""

    mesh: skfem.MeshTri
    velocity: skfem.CellBasis
    pressure: skfem.CellBasis
    x: np.ndarray
    residual: np.ndarray
    nu: float
    rho: float
    edges: dict[str, np.ndarray]
    info: dict = field(default_factory=dict)

    def fields(self, points: np.ndarray) -> dict[str, np.ndarray]:
        """``u, v, p`` (:math:`\\rho` times the kinematic pressure), ``vorticity`` :math:`v_x - u_y` and ``speed``
        at the points ``(N, 2)``; ``ValueError`` for a point outside the mesh."""
        cells, X = probe.locate(self.mesh, points)
        scalar = skfem.Basis(self.mesh, skfem.ElementTriP2(), intorder=1)
        n = self.velocity.N
        comps = [probe.evaluate(scalar, self.x[k:n:2], cells, X) for k in (0, 1)]
        p = probe.evaluate(self.pressure, self.x[n:], cells, X)["value"]
        u, v = comps[0]["value"], comps[1]["value"]
        return {"u": u, "v": v, "p": self.rho * p, "vorticity": comps[1]["grad"][0] - comps[0]["grad"][1],
                "speed": np.hypot(u, v)}

    def force(self, name: str) -> tuple[float, float]:
        """``(F_x, F_y)``: the force of the fluid on the boundary part ``name`` (module notes), per unit depth."""
        if name not in self.edges:
            raise ValueError(f"no edge is named {name!r}; the edges: {list(self.edges)}")
        dofs = self.velocity.get_dofs(self.edges[name])
        return tuple(-self.rho * float(np.sum(self.residual[np.concatenate([dofs.nodal[f"u^{k}"],
                                                                              dofs.facet[f"u^{k}"]])]))
                     for k in (1, 2))  # type: ignore[return-value]

    def coefficients(self, name: str, velocity: float, length: float) -> dict[str, float]:
        """``c_D``, ``c_L``: the force on ``name`` times :math:`2/(\\rho U^2 L)`."""
        fx, fy = self.force(name)
        k = 2.0 / (self.rho * velocity**2 * length)
        return {"c_D": k * fx, "c_L": k * fy}


def _values(g: Value, xy: np.ndarray) -> np.ndarray:
    if callable(g):
        return np.broadcast_to(np.asarray(g(xy[0], xy[1]), float), xy[0].shape)
    return np.full(xy.shape[1], float(g))


def _dirichlet(basis: skfem.CellBasis, edges: dict[str, np.ndarray], conditions: Mapping[str, Condition]
               ) -> tuple[np.ndarray, np.ndarray]:
    """The velocity unknowns held by the conditions, and the vector of their values (zero elsewhere). Where two
    parts meet, the later in ``conditions`` sets the shared node."""
    held, values = [], np.zeros(basis.N)
    for name, c in conditions.items():
        if isinstance(c, str) or len(edges[name]) == 0:
            continue
        dofs = basis.get_dofs(edges[name])
        for k, g in enumerate(c, start=1):
            idx = np.concatenate([dofs.nodal[f"u^{k}"], dofs.facet[f"u^{k}"]])
            values[idx] = _values(g, basis.doflocs[:, idx])
            held.append(idx)
    return np.unique(np.concatenate(held)), values


def _convection(w, newton: bool) -> skfem.BilinearForm:
    """:math:`((w\\cdot\\nabla)u)\\cdot v`, and with ``newton`` also :math:`((u\\cdot\\nabla)w)\\cdot v`."""

    def form(u, v, p):
        z = p["w"]
        out = dot(np.einsum("ij...,j...->i...", grad(u), z), v)
        if newton:
            out = out + dot(np.einsum("ij...,j...->i...", grad(z), u), v)
        return out
    return skfem.BilinearForm(form)


def _momentum(nu: float) -> skfem.LinearForm:
    """The momentum residual :math:`a(w; v)` of the velocity ``w`` and kinematic pressure ``p`` (module notes)."""

    def form(v, p):
        z = p["w"]
        return nu * ddot(grad(z), grad(v)) + dot(np.einsum("ij...,j...->i...", grad(z), z), v) - p["p"] * div(v)
    return skfem.LinearForm(form)


def steady(region: Region, conditions: Mapping[str, Condition], nu: float, h: float, rho: float = 1.0,
         near: str | None = None, near_factor: float = NEAR_FACTOR, growth: float = GROWTH, tol: float = TOL,
         max_iterations: int = MAX_ITERATIONS) -> FlowSolution:
    """Solve the flow on a mesh of ``region`` with elements of side about ``h`` (finer around the edges named
    ``near``); ``conditions``: edge name -> ``(u, v)`` (numbers or functions of ``x, y``) or ``"do_nothing"``
    (module docstring)."""
    check_conditions(region, conditions)
    if not (np.isfinite(nu) and nu > 0 and np.isfinite(rho) and rho > 0):
        raise ValueError(f"the viscosity and the density must be positive, got nu={nu}, rho={rho}")
    start = time.perf_counter()
    size = None if near is None else near_edges(region, near, h, near_factor * h, growth)
    m, edges = mesh(region, h, size=size)
    vb = skfem.Basis(m, skfem.ElementVector(skfem.ElementTriP2()), intorder=INTORDER)
    pb = skfem.Basis(m, skfem.ElementTriP1(), intorder=INTORDER)
    A = skfem.BilinearForm(lambda u, v, _: nu * ddot(grad(u), grad(v))).assemble(vb)
    B = skfem.BilinearForm(lambda u, q, _: div(u) * q).assemble(vb, pb)
    held, x = _dirichlet(vb, edges, conditions)
    x = np.concatenate([x, np.zeros(pb.N)])
    n, N = vb.N, vb.N + pb.N
    fixed = held
    if not any(isinstance(c, str) for c in conditions.values()):  # no outflow: hold one pressure value
        fixed = np.append(held, n)
    free = np.setdiff1d(np.arange(N), fixed)

    xy = np.concatenate([vb.doflocs, pb.doflocs], axis=1).T[free]

    def step(K: sparse.spmatrix, r: np.ndarray) -> np.ndarray:
        J = sparse.bmat([[K, -B.T], [-B, None]], format="csr")
        d = np.zeros(N)
        d[free] = lu_nested(J[free][:, free], xy)(-r[free])
        return d

    def residual(x: np.ndarray) -> np.ndarray:
        w, p = vb.interpolate(x[:n]), pb.interpolate(x[n:])
        return np.concatenate([_momentum(nu).assemble(vb, w=w, p=p), -(B @ x[:n])])

    x = x + step(A, np.concatenate([A @ x[:n], -(B @ x[:n])]))  # Stokes, from the conditions' values (p = 0)
    r, iterations, picard = residual(x), 0, 0
    while True:
        if iterations >= max_iterations:
            raise RuntimeError(f"Newton's method did not converge in {max_iterations} iterations (h={h})")
        w = vb.interpolate(x[:n])
        d = step(A + _convection(w, True).assemble(vb, w=w), r)
        trial = x + d
        rt = residual(trial)
        if np.linalg.norm(rt[free]) > np.linalg.norm(r[free]) and np.max(np.abs(d)) > 1e-6 * np.max(np.abs(x[:n])):
            d, picard = step(A + _convection(w, False).assemble(vb, w=w), r), picard + 1  # a Picard step instead
            trial = x + d
            rt = residual(trial)
        x, r, iterations = trial, rt, iterations + 1
        if np.max(np.abs(d)) <= tol * np.max(np.abs(x[:n])):
            break
    if fixed is not held:  # the pressure's constant: mean zero
        area = np.sum(pb.interpolate(np.ones(pb.N)).value * pb.dx)
        x[n:] -= float(np.sum(pb.interpolate(x[n:]).value * pb.dx)) / area
    info = {"h": float(h), "elements": int(m.t.shape[1]), "dofs": int(N), "iterations": iterations,
            "picard_steps": picard, "residual": float(np.max(np.abs(r[free]))),
            "seconds": time.perf_counter() - start}
    return FlowSolution(m, vb, pb, x, r[:n], float(nu), float(rho), edges, info)


def reference(region: Region, conditions: Mapping[str, Condition], nu: float, points: np.ndarray,
              rtol: float = 1e-3, h0: float | None = None, rho: float = 1.0, near: str | None = None,
              scales: tuple[float, float] = (1.0, 1.0), near_factor: float = NEAR_FACTOR, growth: float = GROWTH,
              max_dofs: int = MAX_DOFS) -> tuple[dict[str, np.ndarray], dict]:
    r"""The flow's fields at ``points`` ``(N, 2)``, converged in :math:`h`: solve on meshes of :math:`h_0, h_0/2,
    \dots` (``h0`` default: the region's diameter / 20) until the relative :math:`L^2` change of the velocity
    :math:`(u, v)` at the points between the last two meshes is below ``rtol``. With ``near`` (an obstacle's
    edge name) the meshes are finer around it and ``info["coefficients"]`` holds its ``c_D``, ``c_L`` on each
    mesh (``scales``: the velocity and length of :math:`c = 2F/(\rho U^2 L)`).

    Returns ``(fields on the finest mesh, info)``, ``info`` with ``element``, ``rtol``, the lists ``h``,
    ``elements``, ``dofs``, ``iterations``, ``seconds``, ``changes`` (one fewer), ``orders`` (:math:`\log_2` of
    successive changes' ratios) and ``wall_seconds``. Raises ``ValueError`` when the next mesh would exceed
    ``max_dofs`` unknowns (taken as 4 times the last) before the change falls below ``rtol``."""
    check_conditions(region, conditions)
    points = np.asarray(points, dtype=np.float64)
    h = region.diameter / 20.0 if h0 is None else float(h0)
    start = time.perf_counter()
    info: dict = {"element": "taylor-hood P2/P1", "rtol": rtol, "h": [], "elements": [], "dofs": [],
                  "iterations": [], "seconds": [], "changes": [], "coefficients": []}
    previous = None
    while True:
        sol = steady(region, conditions, nu, h, rho, near, near_factor, growth)
        out = sol.fields(points)
        for key in ("h", "elements", "dofs", "iterations", "seconds"):
            info[key].append(sol.info[key])
        if near is not None:
            info["coefficients"].append(sol.coefficients(near, *scales))
        velocity = np.stack([out["u"], out["v"]])
        if previous is not None:
            norm = np.linalg.norm(velocity)
            info["changes"].append(float(np.linalg.norm(velocity - previous) / (norm if norm > 0 else 1.0)))
            if info["changes"][-1] < rtol:
                break
        if 4 * sol.info["dofs"] > max_dofs:
            raise ValueError(f"the flow's reference did not converge to rtol={rtol} within {max_dofs} unknowns: "
                             f"h {info['h']}, dofs {info['dofs']}, changes of the velocity {info['changes']}")
        previous, h = velocity, h / 2.0
    c = np.array(info["changes"])
    info["orders"] = np.log2(c[:-1] / c[1:]).tolist() if len(c) > 1 else []
    info["wall_seconds"] = time.perf_counter() - start
    return out, info
