r"""Steady heat conduction in a 3-D part by quadratic tetrahedra: the classical reference of the PINN's heat cases.

The temperature :math:`u` (K) in a part :math:`\Omega` of conductivity :math:`k` (W/(m K)) with a volumetric
source :math:`f` (W/m³) solves

.. math:: -k\,\Delta u = f \ \text{in}\ \Omega, \qquad u = g \ \text{on the held parts}, \qquad
          k\,\partial_n u = q \ \text{on the others}

(:math:`q` the heat flux *into* the part through its surface, W/m²; :math:`q = 0`: insulated), in the weak form
:math:`\int k \nabla u\cdot\nabla v = \int f v + \int_{\Gamma_q} q v`, by scikit-fem's ``ElementTetP2``
(continuous quadratics): errors :math:`O(h^3)` in :math:`L^2` for a smooth solution (``tests/solvers/classical/
test_fem_heat.py`` measures it). Near a re-entrant edge of the part (the inner edge of an L-shaped bracket, an
interior angle of :math:`3\pi/2`) the temperature behaves like :math:`r^{2/3}` and the :math:`L^2` error falls
about as :math:`h^{4/3}` on uniform meshes.

**Meshing.** The part's closed surface (vertices and triangles, as :mod:`sciml.solvers.pinn.geometry.mesh` reads
them from an STL file) is handed to Gmsh (the PyPI wheel ``gmsh``, GPL-2.0-or-later, in the optional extra
``fem``) as a discrete surface: ``classifySurfaces`` splits it into faces at edges sharper than :data:`FEATURE`
degrees, ``createGeometry`` gives each face a parametrisation, and the volume they close is filled with tetrahedra
of side about :math:`h` (Gmsh's ``Mesh.MeshSizeMax``, met loosely: in the unit cube at :math:`h = 0.125` the edges
average 0.15 and reach 0.26; Delaunay, one thread, so the same mesh for the same input). So each face is a plane
of the input's triangles, remeshed *on* them: the part is meshed exactly, and each boundary facet lies on the
triangles of one of the domain's parts. (At 30 degrees the eight facets of the filleted bracket's rounded edge
became one curved face, remeshed on a smooth surface through them: at :math:`h = 0.25` a boundary facet's centroid
lay 7 % of the fillet's radius inside the STL.) Why Gmsh: its wheel holds the whole mesher (no compiler, no other
package) and imports with no network; ``pytetwild`` (MPL-2.0) needs PyVista and VTK and only approximates the
surface within an envelope; TetGen (``tetgen``, ``meshpy``) is AGPL. Gmsh's GPL binds whoever redistributes it,
which sciml does not: it is an optional extra a user installs.

**Parts.** The caller names the boundary: ``label(centroids (n, 3)) -> names (n,)`` gives each boundary facet of
the tetrahedral mesh the part its centroid lies on (for a PINN case the domain's own parts, so the two solve the
same problem); every part needs a condition (:data:`CONDITIONS`). The linear system is solved by conjugate
gradients with the diagonal as preconditioner to a relative residual of :data:`CG_RTOL`: the direct solve of
:mod:`.ordering` (nested dissection, made for the plate's 2-D systems) took 25 s for :math:`4.5\times10^4` unknowns
of the bracket and 380 s for :math:`1.6\times10^5`, where the conductivity's matrix (condition :math:`\sim h^{-2}`)
needs a few hundred iterations. :func:`reference` halves :math:`h` until the temperature at given points settles.
"""
from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import skfem
from scipy import sparse

from sciml.errors import MissingExtra

from . import probe, refinement

FEATURE = 1.0  # degrees: triangles of the surface meeting at a sharper angle lie on different faces of the mesh
MAX_ELEMENTS = 2_000_000  # reference()'s finest mesh (the next is taken as 8 times the last)
INTORDER = 4  # quadrature degree: exact for P2 stiffness, room for a smooth source or flux
CG_RTOL = 1e-10  # relative residual of the conjugate gradients
CONDITIONS = ("temperature", "flux")  # u = g on the part, or k du/dn = q into the part

Value = float | Callable[..., np.ndarray]  # a number or a vectorised g(x, y, z)
Condition = tuple[str, Value]  # (one of CONDITIONS, its value)


@contextlib.contextmanager
def _gmsh() -> Iterator:
    """Gmsh, quiet and single-threaded, its state dropped on leaving (it is one per process)."""
    try:
        import gmsh
    except ImportError as error:  # pragma: no cover - the extra is in the dev install
        raise MissingExtra("the tetrahedral mesher (Gmsh)", "fem", error) from None
    gmsh.initialize(interruptible=False)  # leaves the caller's SIGINT handler alone
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.option.setNumber("General.NumThreads", 1)
        yield gmsh
    finally:
        gmsh.finalize()


def tetrahedra(vertices: np.ndarray, faces: np.ndarray, h: float) -> skfem.MeshTet:
    """A tetrahedral mesh of side about ``h`` of the inside of the closed surface ``(vertices (V, 3), faces (F, 3))``
    (module notes)."""
    vertices, faces = np.asarray(vertices, np.float64), np.asarray(faces, np.int64)
    if not (np.isfinite(h) and h > 0):
        raise ValueError(f"the element size h must be positive, got {h}")
    volume = abs(np.sum(np.einsum("fi,fi->f", vertices[faces[:, 0]],
                                  np.cross(vertices[faces[:, 1]], vertices[faces[:, 2]])))) / 6.0
    if volume / (h**3 / (6 * np.sqrt(2))) > 5e7:
        raise ValueError(f"h={h} would give over 5e7 tetrahedra in a volume of {volume:.3g}")
    with _gmsh() as gmsh:
        gmsh.model.add("part")
        gmsh.model.addDiscreteEntity(2, 1)
        gmsh.model.mesh.addNodes(2, 1, np.arange(1, len(vertices) + 1), vertices.ravel())
        gmsh.model.mesh.addElementsByType(1, 2, [], (faces + 1).ravel())  # type 2: 3-node triangles
        gmsh.model.mesh.classifySurfaces(np.radians(FEATURE), True, False, np.pi)
        gmsh.model.mesh.createGeometry()
        loop = gmsh.model.geo.addSurfaceLoop([tag for _, tag in gmsh.model.getEntities(2)])
        gmsh.model.geo.addVolume([loop])
        gmsh.model.geo.synchronize()
        for option, value in (("Mesh.MeshSizeMax", float(h)), ("Mesh.MeshSizeFromPoints", 0),
                              ("Mesh.MeshSizeExtendFromBoundary", 0)):  # the size from h alone
            gmsh.option.setNumber(option, value)
        gmsh.model.mesh.generate(3)
        tags, xyz, _ = gmsh.model.mesh.getNodes()
        _, nodes = gmsh.model.mesh.getElementsByType(4)  # type 4: 4-node tetrahedra
    if len(nodes) == 0:
        raise ValueError("Gmsh made no tetrahedra: is the surface closed and free of self-intersections?")
    index = np.zeros(int(tags.max()) + 1, np.int64)
    index[tags.astype(np.int64)] = np.arange(len(tags))
    t = index[nodes.astype(np.int64)].reshape(-1, 4)
    used, t = np.unique(t, return_inverse=True)  # the surface's nodes of removed faces, if any
    return skfem.MeshTet(np.ascontiguousarray(xyz.reshape(-1, 3)[used].T), np.ascontiguousarray(t.reshape(-1, 4).T))


def facets_by_part(m: skfem.MeshTet, label: Callable[[np.ndarray], np.ndarray]) -> dict[str, np.ndarray]:
    """``{part: boundary facet indices}``, each facet to the part ``label`` names at its centroid."""
    boundary = m.boundary_facets()
    names = np.asarray(label(m.p[:, m.facets[:, boundary]].mean(axis=1).T))
    return {str(name): boundary[names == name] for name in dict.fromkeys(names.tolist())}


def _value(value: Value) -> Callable[[np.ndarray], np.ndarray]:
    """``points (3, ...) -> values``: a number everywhere, or a function of x, y, z."""
    if callable(value):
        return lambda x: np.broadcast_to(np.asarray(value(x[0], x[1], x[2]), np.float64), x.shape[1:])
    number = float(value)
    return lambda x: np.full(x.shape[1:], number)


def check_conditions(parts, conditions: dict[str, Condition]) -> None:
    """Raise ``ValueError`` naming the problem: a part without a condition, a condition for no part, an unknown
    kind, or no part held at a temperature (the temperature would be free up to a constant)."""
    missing = [p for p in parts if p not in conditions]
    if missing:
        raise ValueError(f"no condition for part(s) {missing}: give each of {list(parts)} one of {CONDITIONS}")
    extra = [p for p in conditions if p not in parts]
    if extra:
        raise ValueError(f"condition(s) for part(s) {extra} that the mesh does not have (its parts: {list(parts)})")
    for name, (kind, _) in conditions.items():
        if kind not in CONDITIONS:
            raise ValueError(f"unknown condition {kind!r} for part {name!r}: choose one of {CONDITIONS}")
    if not any(kind == "temperature" for kind, _ in conditions.values()):
        raise ValueError("no part is held at a temperature: the steady temperature is then free up to a constant")


@dataclass(frozen=True)
class HeatSolution:
    """A solved part: the mesh, the P2 basis and its degrees of freedom ``u``; ``info``: ``h``, ``elements``,
    ``dofs``, ``seconds`` (meshing, assembly and solve)."""

    mesh: skfem.MeshTet
    basis: skfem.CellBasis
    u: np.ndarray
    info: dict = field(default_factory=dict)

    def fields(self, points: np.ndarray) -> dict[str, np.ndarray]:
        """``u`` at the points ``(N, 3)`` of the part; ``ValueError`` for a point outside the mesh."""
        cells, X = probe.locate(self.mesh, points)
        return {"u": probe.evaluate(self.basis, self.u, cells, X)["value"]}


def conduction(m: skfem.MeshTet, facets: dict[str, np.ndarray], conditions: dict[str, Condition], k: float,
               source: Value = 0.0) -> HeatSolution:
    """Solve :math:`-k\\Delta u = f` on the mesh ``m`` by P2 tetrahedra, ``facets`` the boundary facets of each
    part (:func:`facets_by_part`), ``conditions`` part -> ``("temperature", g)`` or ``("flux", q)`` (numbers or
    functions of x, y, z; module notes)."""
    check_conditions(facets, conditions)
    if not (np.isfinite(k) and k > 0):
        raise ValueError(f"the conductivity k must be positive, got {k}")
    start = time.perf_counter()
    basis = skfem.Basis(m, skfem.ElementTetP2(), intorder=INTORDER)
    K = skfem.BilinearForm(lambda u, v, _: k * skfem.helpers.dot(u.grad, v.grad)).assemble(basis)
    f = _value(source)
    b = skfem.LinearForm(lambda v, w: f(w.x) * v).assemble(basis)
    u = np.zeros(basis.N)
    held = []
    for name, (kind, value) in conditions.items():
        if len(facets[name]) == 0:
            continue
        g = _value(value)
        if kind == "flux":
            b += skfem.LinearForm(lambda v, w, g=g: g(w.x) * v).assemble(skfem.FacetBasis(m, basis.elem,
                                                                                         facets=facets[name],
                                                                                         intorder=INTORDER))
            continue
        dofs = basis.get_dofs(facets[name]).all()
        u[dofs] = g(basis.doflocs[:, dofs])  # P2's degrees of freedom are values at its nodes
        held.append(dofs)
    fixed = np.unique(np.concatenate(held))
    free = np.setdiff1d(np.arange(basis.N), fixed)
    rhs = b[free] - K[free][:, fixed] @ u[fixed]
    u[free] = _solve(K[free][:, free], rhs)
    info = {"elements": int(m.t.shape[1]), "dofs": int(basis.N), "seconds": time.perf_counter() - start}
    return HeatSolution(m, basis, u, info)


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a · b`` by numpy's own sum, not BLAS: OpenBLAS's threads, spinning on a machine whose cores are all busy,
    made each dot of 4.5e4 numbers take 17 ms (the conjugate gradients 24 s instead of 1.9 s)."""
    return float(np.sum(a * b))


def _solve(A: sparse.spmatrix, b: np.ndarray) -> np.ndarray:
    """``A^{-1} b`` for the symmetric positive definite ``A`` by conjugate gradients, the diagonal as
    preconditioner, to a residual of :data:`CG_RTOL` times ``|b|``."""
    A = sparse.csr_matrix(A)
    inverse = 1.0 / A.diagonal()
    x, r = np.zeros_like(b), b.copy()
    z = inverse * r
    p, rz, goal = z.copy(), _dot(r, z), CG_RTOL * np.sqrt(_dot(b, b))
    for _ in range(10 * A.shape[0]):
        if np.sqrt(_dot(r, r)) <= goal:
            return x
        Ap = A @ p
        alpha = rz / _dot(p, Ap)
        x += alpha * p
        r -= alpha * Ap
        z = inverse * r
        rz, previous = _dot(r, z), rz
        p = z + (rz / previous) * p
    raise RuntimeError(f"the conjugate gradients did not reach a residual of {CG_RTOL} |b|")


def reference(vertices: np.ndarray, faces: np.ndarray, label: Callable[[np.ndarray], np.ndarray],
              conditions: dict[str, Condition], k: float, points: np.ndarray, source: Value = 0.0,
              rtol: float = 1e-3, h0: float | None = None, max_elements: int = MAX_ELEMENTS
              ) -> tuple[dict[str, np.ndarray], dict]:
    r"""The temperature at ``points`` ``(N, 3)``, converged in :math:`h`: solve on meshes of :math:`h_0, h_0/2,
    \dots` (``h0`` default: the part's smallest bounding-box side / 2) until the relative :math:`L^2` change of
    :math:`u` at the points between the last two is below ``rtol``.

    Returns ``(fields on the finest mesh, info)``, ``info`` with ``element`` (``"P2"``), ``rtol``, the lists
    ``h``, ``elements``, ``dofs``, ``seconds`` (each mesh's), ``changes`` (one fewer), ``orders`` (:math:`\log_2`
    of successive changes' ratios), ``error_estimate`` (the last change times :math:`\rho/(1-\rho)`, :math:`\rho`
    the last ratio of changes) and ``wall_seconds``. Raises ``ValueError`` when the next mesh (taken as 8 times the
    last) would exceed ``max_elements`` before the change falls below ``rtol``."""
    points = np.asarray(points, np.float64)
    h = float(np.min(np.ptp(vertices, axis=0))) / 2.0 if h0 is None else float(h0)

    def solve(h: float) -> tuple[dict, dict]:
        start = time.perf_counter()
        m = tetrahedra(vertices, faces, h)
        sol = conduction(m, facets_by_part(m, label), conditions, k, source)
        return sol.fields(points), {**sol.info, "seconds": time.perf_counter() - start}
    return refinement.halving(solve, h, "u", rtol, max_elements, 8, {"element": "P2"}, "the heat reference (P2)")
