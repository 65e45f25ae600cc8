r"""Values and derivatives of a finite element function at arbitrary points of its mesh (triangles or
tetrahedra).

Location. A point :math:`x` lies in triangle :math:`K = (p_0, p_1, p_2)` (the mesh's vertex order) when its
reference coordinates :math:`X = A_K^{-1}(x - p_0)`, :math:`A_K = [p_1 - p_0,\ p_2 - p_0]`, have barycentric
coordinates :math:`(1 - X_1 - X_2, X_1, X_2)` all :math:`\ge -\text{tol}`; in a tetrahedron
:math:`(p_0, \dots, p_3)` the same with :math:`A_K = [p_1 - p_0,\ p_2 - p_0,\ p_3 - p_0]` and four coordinates.
The candidates are the simplices of the 8 centroids nearest to :math:`x` (a k-d tree); the point goes to the
candidate whose smallest barycentric coordinate is largest (on a shared edge either side will do). Points no
candidate holds are tried against every simplex, in chunks; a point outside every one by more than ``tol`` (in
barycentric units, a fraction of
the element's size) is an error. :meth:`skfem.Mesh.element_finder` does the same with 5 candidates but falls
back to a dense points-by-elements array for all points at once.

Evaluation. With the containing element :math:`K` and :math:`X`, the element's own global basis
(``gbasis``: skfem's Morley and Argyris build theirs on the physical element) gives each local basis
function's value, gradient, Hessian (and third derivatives when the element computes them), and the field is
their sum weighted by the element's degrees of freedom.
"""
from __future__ import annotations

import numpy as np
import skfem
from scipy.spatial import cKDTree

CANDIDATES = 8  # nearest centroids tried per point before the exhaustive search
CHUNK = 2**22  # points x elements per block of the exhaustive search


def barycentric(m: skfem.Mesh, cells: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Reference coordinates ``X`` (shape ``cells.shape + (d,)``) of points ``x`` (broadcast against
    ``cells.shape + (d,)``) in the simplices ``cells`` of a mesh in ``d`` = 2 or 3 dimensions."""
    p0 = m.p[:, m.t[0, cells]]  # (d, *cells.shape)
    edges = [m.p[:, m.t[i, cells]] - p0 for i in range(1, m.p.shape[0] + 1)]  # the columns of A_K
    y = np.moveaxis(x, -1, 0) - p0
    if len(edges) == 2:  # the closed form
        a, b = edges
        det = a[0] * b[1] - a[1] * b[0]
        return np.stack([(b[1] * y[0] - b[0] * y[1]) / det, (a[0] * y[1] - a[1] * y[0]) / det], axis=-1)
    A = np.moveaxis(np.stack(edges, axis=-1), 0, -2)  # (*shape, d, d)
    return np.linalg.solve(A, np.moveaxis(y, 0, -1)[..., None])[..., 0]


def _slack(X: np.ndarray) -> np.ndarray:
    """The smallest barycentric coordinate: >= 0 inside the simplex."""
    return np.minimum(X.min(axis=-1), 1.0 - X.sum(axis=-1))


def locate(m: skfem.Mesh, points: np.ndarray, tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """``(cells (N,), X (N, d))``: the triangle or tetrahedron holding each point ``(N, d)`` and the point's
    reference coordinates in it. Raises ``ValueError`` for a point outside the mesh."""
    points = np.asarray(points, dtype=np.float64)
    d = m.p.shape[0]
    if points.ndim != 2 or points.shape[1] != d:
        raise ValueError(f"points must have shape (N, {d}), got {points.shape}")
    nt = m.t.shape[1]
    tree = cKDTree(m.p[:, m.t].mean(axis=1).T)
    k = min(CANDIDATES, nt)
    cand = tree.query(points, k)[1].reshape(len(points), k)
    X = barycentric(m, cand, points[:, None, :])
    best = np.argmax(_slack(X), axis=1)
    rows = np.arange(len(points))
    cells, X = cand[rows, best], X[rows, best]
    missing = np.flatnonzero(_slack(X) < -tol)
    everything = np.arange(nt)
    step = max(1, CHUNK // nt)
    for start in range(0, len(missing), step):
        idx = missing[start:start + step]
        Xall = barycentric(m, np.broadcast_to(everything, (len(idx), nt)), points[idx, None, :])
        which = np.argmax(_slack(Xall), axis=1)
        cells[idx], X[idx] = which, Xall[np.arange(len(idx)), which]
    outside = np.flatnonzero(_slack(X) < -tol)
    if len(outside):
        raise ValueError(f"{len(outside)} of {len(points)} points lie outside the mesh, the first at "
                         f"{points[outside[0]].tolist()}")
    return cells, X


def evaluate(basis: skfem.CellBasis, u: np.ndarray, cells: np.ndarray, X: np.ndarray,
             elem: skfem.Element | None = None) -> dict[str, np.ndarray]:
    """The function of degrees of freedom ``u`` at the points ``(cells, X)`` of :func:`locate`:
    ``{"value": (N,), "grad": (d, N), "hess": (d, d, N)}``, and ``"grad3": (d, d, d, N)`` when the element
    computes third derivatives. ``elem`` (default the basis's) must be an element of the same kind and mesh,
    e.g. one that also computes third derivatives."""
    elem = basis.elem if elem is None else elem
    coeffs = u[basis.element_dofs[:, cells]]  # (Nbfun, N)
    Xr = np.ascontiguousarray(X.T)[:, :, None]  # (d, N, 1): one point per element
    out: dict[str, np.ndarray] = {}
    for i in range(basis.Nbfun):
        phi = elem.gbasis(basis.mapping, Xr, i, tind=cells)[0]
        parts = {"value": np.asarray(phi), "grad": phi.grad, "hess": phi.hess, "grad3": phi.grad3}
        for name, part in parts.items():
            if part is None:
                continue
            term = coeffs[i] * part[..., 0]
            out[name] = term if name not in out else out[name] + term
    return out
