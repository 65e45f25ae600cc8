r"""Kirchhoff plates on polygons by finite elements: the classical reference the PINN's plates are checked against.

The plate of rigidity :math:`D` (N m) and Poisson ratio :math:`\nu` under a load :math:`q` (Pa) has the
deflection :math:`w` (m) that minimises :math:`\tfrac12 a(w, w) - \int q w`, with the bending energy

.. math:: a(w, v) = D\int_\Omega \big[(1 - \nu)\, \nabla^2 w : \nabla^2 v + \nu\, \Delta w\, \Delta v\big],

equivalently :math:`D\Delta^2 w = q` with, on each named edge, **clamped** :math:`w = \partial_n w = 0`,
**simply supported** :math:`w = 0` (and :math:`M_n = 0`, natural) or **free** (:math:`M_n = 0` and the Kirchhoff
shear :math:`Q_n + \partial_s M_{ns} = 0`, both natural). Signs as ``equations/plate.py``:
:math:`M_x = -D(w_{xx} + \nu w_{yy})`, :math:`M_y = -D(w_{yy} + \nu w_{xx})`, :math:`M_{xy} = -D(1 - \nu)w_{xy}`,
:math:`Q_x = \partial_x M_x + \partial_y M_{xy} = -D(w_{xxx} + w_{xyy})`,
:math:`Q_y = \partial_x M_{xy} + \partial_y M_y = -D(w_{xxy} + w_{yyy})`.

Elements (scikit-fem's, in per-element scaled coordinates, :mod:`.elements`; on the meshes of :mod:`.mesh`):

- ``"morley"`` (the default of :func:`plate`): the nonconforming quadratic of Morley (1968), degrees of freedom
  the vertex values and the normal derivatives at edge midpoints, so it fits edges of any orientation (clamped:
  the vertex values and midpoint normal derivatives of the edge's facets set to zero; simply supported: the vertex
  values). The energy is summed element by element. Errors :math:`O(h)` in the broken energy norm and
  :math:`O(h^2)` for :math:`w` in :math:`L^2`. Its Hessian is constant on each element, so the moments are
  **recovered**: superconvergent patch recovery of the element moments to the vertices, interpolated linearly
  (:mod:`.recovery`), :math:`O(h^2)` in :math:`L^2` on smooth solutions where the element values give
  :math:`O(h)`. No shear forces: differentiating the recovered moments and recovering again converges at about
  :math:`O(h^{0.8})` (1.7 % at :math:`2\times10^4` elements on the square), too slow for a reference.
- ``"argyris"``: the :math:`C^1` quintic of Argyris (value, gradient and Hessian at the vertices, normal
  derivatives at edge midpoints). Its vertex degrees of freedom are derivatives along :math:`x` and :math:`y`, so
  clamped and simply supported edges must be **axis-aligned** (free edges may lie anyhow): on an edge along
  :math:`x` simply supported sets :math:`w, w_x, w_{xx}` to zero at its vertices, clamped also :math:`w_y, w_{xy}`
  and the midpoint normal derivatives (along :math:`y` the same with :math:`x, y` exchanged). Moments from the
  element's Hessian, shear forces from its third derivatives; :math:`O(h^6)` for a smooth :math:`w`.
- ``"auto"``: Argyris when every held edge is axis-aligned, else Morley (the default of :func:`reference`).

Measured orders and errors: ``docs/notes/fem_reference.md``. Near a re-entrant corner the deflection is singular
(:math:`w \sim r^{1 + \lambda}`; at :math:`3\pi/2`, :math:`\lambda \approx 0.54` clamped, :math:`1/3` simply
supported), so the meshes are graded toward such corners (``grading``, :func:`.mesh.mesh`), by default with
:math:`\mu = 2/3`, which restores Morley's order 2 for :math:`w` on the clamped L. The linear systems are solved
directly (:mod:`.ordering`). :func:`reference` halves :math:`h` until the deflection at given points settles.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import skfem

from sciml.equations.plate import moments

from . import elements, probe, refinement
from .mesh import Region, mesh, rectangle
from .ordering import solve_spd
from .recovery import patch_recovery

CONDITIONS = ("clamped", "simply_supported", "free")
ELEMENTS = ("morley", "argyris", "auto")
GRADING = 2.0 / 3.0  # toward re-entrant corners: >= 1 - lambda for clamped (0.46) and simply supported (0.67)
INTORDER = {"morley": 4, "argyris": 8}  # quadrature degree: exact energy, and room for a smooth load q
MAX_ELEMENTS = {"morley": 200_000, "argyris": 50_000}  # reference()'s finest mesh (Argyris: ~4.5 dofs/element)

Load = float | Callable[[np.ndarray, np.ndarray], np.ndarray]


def check_conditions(region: Region, conditions: dict[str, str], element: str = "morley") -> None:
    """Raise ``ValueError`` naming the problem: an edge name without a condition, a condition for no edge,
    an unknown condition or element, a plate nothing holds, or an Argyris plate with a slanted held edge."""
    if element not in ELEMENTS:
        raise ValueError(f"unknown element {element!r}: choose one of {ELEMENTS}")
    region.check_names(conditions, f"one of {CONDITIONS}")
    for name, kind in conditions.items():
        if kind not in CONDITIONS:
            raise ValueError(f"unknown condition {kind!r} for edge {name!r}: choose one of {CONDITIONS}")
    held = [(loop.vertices[i], loop.vertices[(i + 1) % len(loop.vertices)], conditions[n])
            for loop in region.loops for i, n in enumerate(loop.names) if conditions[n] != "free"]
    points = np.array([p for a, b, _ in held for p in (a, b)]).reshape(-1, 2)
    if not any(kind == "clamped" for *_, kind in held) and (
            len(points) < 3 or np.linalg.matrix_rank(np.c_[points - points.mean(axis=0)], tol=1e-9) < 2):
        raise ValueError("the plate is not held: clamp an edge, or simply support edges not all on one line")
    if element == "argyris" and slanted_held_edges(region, conditions):
        name, a, b = slanted_held_edges(region, conditions)[0]
        raise ValueError(f"argyris: edge {name!r} from {a} to {b} is held but not axis-aligned; use "
                         f"element='morley'")


def slanted_held_edges(region: Region, conditions: dict[str, str]) -> list[tuple[str, list, list]]:
    """``(name, start, end)`` of each clamped or simply supported edge along neither axis."""
    found = []
    for loop in region.loops:
        a, b = loop.vertices, np.roll(loop.vertices, -1, axis=0)
        slanted = np.minimum(np.abs(b[:, 0] - a[:, 0]), np.abs(b[:, 1] - a[:, 1])) > 1e-12 * region.diameter
        found += [(loop.names[i], a[i].tolist(), b[i].tolist()) for i in np.flatnonzero(slanted)
                  if conditions.get(loop.names[i], "free") != "free"]
    return found


def choose_element(region: Region, conditions: dict[str, str], element: str) -> str:
    """``element``, or for ``"auto"`` Argyris when every held edge is axis-aligned and Morley otherwise."""
    if element != "auto":
        return element
    return "morley" if slanted_held_edges(region, conditions) else "argyris"


@dataclass(frozen=True)
class PlateSolution:
    """A solved plate: the mesh, the basis and degrees of freedom ``u``, and for Morley the moments recovered at
    the mesh vertices (``(3, n_vertices)``: :math:`M_x, M_y, M_{xy}`). ``info``: ``h``, ``elements``, ``dofs``,
    ``seconds`` (meshing, assembly and solve)."""

    mesh: skfem.MeshTri
    basis: skfem.CellBasis
    u: np.ndarray
    D: float
    nu: float
    element: str
    nodal_moments: np.ndarray | None
    info: dict = field(default_factory=dict)

    def fields(self, points: np.ndarray) -> dict[str, np.ndarray]:
        """``w, mx, my, mxy`` (and ``qx, qy`` for Argyris) at the points ``(N, 2)`` of the region (m, N m / m,
        N / m); ``ValueError`` for a point outside the mesh."""
        cells, X = probe.locate(self.mesh, points)
        third = elements.element(self.element, third_derivatives=True) if self.element == "argyris" else None
        d = probe.evaluate(self.basis, self.u, cells, X, third)
        out = {"w": d["value"]}
        if self.nodal_moments is None:
            (wxx, wxy), (_, wyy) = d["hess"]
            out |= moments(self.D, self.nu, wxx, wyy, wxy)
            g = d["grad3"]
            out["qx"] = -self.D * (g[0, 0, 0] + g[0, 1, 1])
            out["qy"] = -self.D * (g[0, 0, 1] + g[1, 1, 1])
        else:
            lam = np.stack([1.0 - X[:, 0] - X[:, 1], X[:, 0], X[:, 1]])  # P1 shape functions at the points
            nodal = self.nodal_moments[:, self.mesh.t[:, cells]]  # (3 moments, 3 vertices, N)
            out |= dict(zip(("mx", "my", "mxy"), np.sum(nodal * lam[None], axis=1)))
        return out


def plate(region: Region, conditions: dict[str, str], D: float, nu: float, load: Load, h: float,
          element: str = "morley", grading: float = GRADING) -> PlateSolution:
    """Solve the plate on a mesh of ``region`` with elements of side about ``h`` (module docstring).
    ``conditions``: edge name -> ``"clamped" | "simply_supported" | "free"``; ``load``: a number (uniform, Pa) or
    a vectorised ``q(x, y)``."""
    check_conditions(region, conditions, element)
    element = choose_element(region, conditions, element)
    if not (np.isfinite(D) and D > 0):
        raise ValueError(f"the rigidity D must be positive, got {D}")
    if not -1.0 < nu < 1.0:
        raise ValueError(f"Poisson's ratio must lie in (-1, 1) for a positive bending energy, got {nu}")
    if not (callable(load) or np.isfinite(load)):
        raise ValueError(f"the load must be a finite number or a callable q(x, y), got {load!r}")
    start = time.perf_counter()
    m, edges = mesh(region, h, grading)
    return solved(m, edges, conditions, D, nu, load, element, h, start)


def on_rectangle(xs, ys, condition: str, D: float, nu: float, load: Load, h: float) -> PlateSolution:
    """The rectangle ``[xs[0], xs[-1]] × [ys[0], ys[-1]]``, every edge ``condition`` (clamped or simply supported),
    by Argyris' element on the structured mesh of :func:`.mesh.rectangle` whose lines include ``xs`` and ``ys``:
    a load with jumps along those lines (patches) is smooth on every element, so the element's quadrature
    integrates it as it does a smooth load (measured: docs/notes/fem_reference.md, "Patch loads")."""
    if condition not in ("clamped", "simply_supported"):
        raise ValueError(f"on_rectangle holds its edges clamped or simply supported, got {condition!r}")
    start = time.perf_counter()
    m, edges = rectangle(xs, ys, h)
    return solved(m, edges, {"edge": condition}, D, nu, load, "argyris", h, start)


def solved(m: skfem.MeshTri, edges: dict[str, np.ndarray], conditions: dict[str, str], D: float, nu: float,
           load: Load, element: str, h: float, start: float) -> PlateSolution:
    """The plate on the mesh ``m`` whose boundary facets ``edges`` (by name) are held as ``conditions`` say, by
    ``element`` (``morley`` or ``argyris``); ``start``: the clock's reading the solve's seconds count from."""
    basis = skfem.Basis(m, elements.element(element), intorder=INTORDER[element])
    K = _bending(D, nu).assemble(basis)
    f = _load(load).assemble(basis)
    fixed = _held_dofs(basis, conditions, edges, element)
    u = np.zeros(basis.N)
    free = np.setdiff1d(np.arange(basis.N), fixed)
    u[free] = solve_spd(K[free][:, free], f[free], basis.doflocs.T[free])
    nodal = _recovered_moments(basis, u, D, nu) if element == "morley" else None
    info = {"h": float(h), "elements": int(m.t.shape[1]), "dofs": int(basis.N),
            "seconds": time.perf_counter() - start}
    return PlateSolution(m, basis, u, float(D), float(nu), element, nodal, info)


def _bending(D: float, nu: float) -> skfem.BilinearForm:
    def form(u, v, _):
        H, G = u.hess, v.hess
        return D * ((1.0 - nu) * (H[0, 0] * G[0, 0] + H[1, 1] * G[1, 1] + 2.0 * H[0, 1] * G[0, 1])
                    + nu * (H[0, 0] + H[1, 1]) * (G[0, 0] + G[1, 1]))
    return skfem.BilinearForm(form)


def _load(load: Load) -> skfem.LinearForm:
    if callable(load):
        return skfem.LinearForm(lambda v, w: np.broadcast_to(load(w.x[0], w.x[1]), v.shape) * v)
    q = float(load)
    return skfem.LinearForm(lambda v, _: q * v)


def _held_dofs(basis: skfem.CellBasis, conditions: dict[str, str], edges: dict[str, np.ndarray],
               element: str) -> np.ndarray:
    """The degrees of freedom the supports set to zero (module docstring)."""
    fixed = []
    for name, facets in edges.items():
        kind = conditions[name]
        if kind == "free" or len(facets) == 0:
            continue
        dofs = basis.get_dofs(facets)
        if element == "morley":
            fixed.append(dofs.all() if kind == "clamped" else dofs.all("u"))
            continue
        p = basis.mesh.p[:, basis.mesh.facets[:, facets]]  # (2, 2 ends, n)
        for along_x in (True, False):
            on = np.abs(p[1, 1] - p[1, 0]) <= np.abs(p[0, 1] - p[0, 0])  # the facet runs along x
            part = facets[on if along_x else ~on]
            if len(part) == 0:
                continue
            t, n = ("x", "y") if along_x else ("y", "x")
            names = ["u", f"u_{t}", f"u_{t}{t}"] + (["u_" + n, "u_xy", "u_n"] if kind == "clamped" else [])
            fixed.append(basis.get_dofs(part).all(names))
    return np.unique(np.concatenate(fixed)) if fixed else np.zeros(0, dtype=np.int64)


def _recovered_moments(basis: skfem.CellBasis, u: np.ndarray, D: float, nu: float) -> np.ndarray:
    """Morley's element moments recovered at the vertices (:func:`.recovery.patch_recovery`), ``(3, n_vertices)``."""
    H = basis.interpolate(u).hess.mean(axis=-1)  # (2, 2, elements): constant on each element
    return patch_recovery(basis.mesh, np.stack(list(moments(D, nu, H[0, 0], H[1, 1], H[0, 1]).values())))


def reference(region: Region, conditions: dict[str, str], D: float, nu: float, load: Load, points: np.ndarray,
              rtol: float = 1e-3, h0: float | None = None, element: str = "auto", grading: float = GRADING,
              max_elements: int | None = None) -> tuple[dict[str, np.ndarray], dict]:
    r"""The plate's fields at ``points`` ``(N, 2)``, converged in :math:`h`: solve on meshes of :math:`h_0,
    h_0/2, \dots` (``h0`` default: the region's diameter / 10; each mesh made anew by the mesher) until the
    relative :math:`L^2` change of :math:`w` at the points between the last two, :math:`\|w_k - w_{k-1}\| /
    \|w_k\|`, is below ``rtol``. ``element="auto"``: Argyris when the held edges are all axis-aligned, else Morley.

    Returns ``(fields on the finest mesh, info)``, ``info`` with ``element``, the lists ``h``, ``elements``,
    ``dofs``, ``seconds`` (each mesh's), ``changes`` (one fewer), the observed ``orders`` :math:`\log_2` of
    successive changes' ratios, ``error_estimate`` (the last change times :math:`\rho/(1 - \rho)`, :math:`\rho`
    the last ratio of changes: the geometric tail, when :math:`\rho < 1`) and ``wall_seconds``. Raises
    ``ValueError`` when the next mesh would exceed ``max_elements`` (default ``MAX_ELEMENTS`` of the element; the
    next mesh is taken as 4 times the last) before the change falls below ``rtol``."""
    check_conditions(region, conditions, element)
    element = choose_element(region, conditions, element)
    cap = MAX_ELEMENTS[element] if max_elements is None else int(max_elements)
    points = np.asarray(points, dtype=np.float64)
    h = region.diameter / 10.0 if h0 is None else float(h0)

    def solve(h: float) -> tuple[dict, dict]:
        sol = plate(region, conditions, D, nu, load, h, element, grading)
        return sol.fields(points), sol.info
    return refinement.halving(solve, h, "w", rtol, cap, 4, {"element": element}, f"the plate's reference ({element})")
