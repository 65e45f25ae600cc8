r"""Recovery of a piecewise constant field (Morley's moments) as a continuous piecewise linear one.

Superconvergent patch recovery (Zienkiewicz and Zhu, 1992), with element centroids as the sampling points: at
each mesh vertex :math:`v` fit a linear polynomial :math:`a + b\cdot(x - x_v)` by least squares to the element
values :math:`m_K` at the centroids :math:`c_K` of the elements :math:`K` of the vertex's patch, and keep
:math:`a` as the vertex value,

.. math:: \min_{a, b} \sum_{K \in P(v)} \big(a + b\cdot(c_K - x_v) - m_K\big)^2,

:math:`P(v)` the elements that touch :math:`v` or one of its neighbours (two rings: on the boundary a one-ring
patch can be one or two elements, and there the fit extrapolates, which averaging cannot). The field between the
vertices is the linear interpolant. On the Morley moments of the simply supported square this takes the
:math:`L^2` order of :math:`M_x` from about 1.3 (area-weighted averaging) to about 2 (measured:
``docs/notes/fem_reference.md``). The normal equations are sums over the patch, formed as sparse products of
the vertex-to-patch incidence with the centroids' monomials (coordinates about the mesh's centre, in units of
the mean element size); a vertex whose normal matrix is singular keeps the area-weighted average.
"""
from __future__ import annotations

import numpy as np
import skfem
from scipy import sparse


def patch_recovery(m: skfem.MeshTri, values: np.ndarray) -> np.ndarray:
    """Vertex values ``(k, n_vertices)`` recovered from the element values ``values`` ``(k, n_elements)``."""
    nv, ne = m.p.shape[1], m.t.shape[1]
    one_ring = sparse.csr_matrix((np.ones(3 * ne), (m.t.ravel(), np.tile(np.arange(ne), 3))), shape=(nv, ne))
    patch = (one_ring @ one_ring.T) @ one_ring
    patch.data[:] = 1.0
    area = _areas(m)
    size = np.sqrt(area.mean())
    origin = m.p.mean(axis=1, keepdims=True)
    c = (m.p[:, m.t].mean(axis=1) - origin) / size  # centroids (2, ne)
    x = (m.p - origin) / size  # vertices (2, nv)
    # sums over each patch of 1, c, c c^T, m, c m: the normal equations about the origin, then shifted to x_v
    S = patch @ np.stack([np.ones(ne), c[0], c[1], c[0] ** 2, c[0] * c[1], c[1] ** 2]).T  # (nv, 6)
    n, sx, sy = S[:, 0], S[:, 1] - x[0] * S[:, 0], S[:, 2] - x[1] * S[:, 0]
    sxx = S[:, 3] - 2 * x[0] * S[:, 1] + x[0] ** 2 * S[:, 0]
    sxy = S[:, 4] - x[0] * S[:, 2] - x[1] * S[:, 1] + x[0] * x[1] * S[:, 0]
    syy = S[:, 5] - 2 * x[1] * S[:, 2] + x[1] ** 2 * S[:, 0]
    A = np.stack([np.stack([n, sx, sy], -1), np.stack([sx, sxx, sxy], -1), np.stack([sy, sxy, syy], -1)], 1)
    values = np.atleast_2d(values)
    out = np.empty((len(values), nv))
    ok = np.abs(np.linalg.det(A)) > 1e-8 * np.maximum(n, 1.0) ** 3
    for k, v in enumerate(values):
        R = patch @ np.stack([v, c[0] * v, c[1] * v]).T  # (nv, 3)
        rhs = np.stack([R[:, 0], R[:, 1] - x[0] * R[:, 0], R[:, 2] - x[1] * R[:, 0]], -1)
        out[k, ok] = np.linalg.solve(A[ok], rhs[ok, :, None])[:, 0, 0]
    if not ok.all():
        out[:, ~ok] = area_average(m, values)[:, ~ok]
    return out


def area_average(m: skfem.MeshTri, values: np.ndarray) -> np.ndarray:
    """Vertex values ``(k, n_vertices)``: the element values of the elements at each vertex averaged by area."""
    area = _areas(m)
    values = np.atleast_2d(values)
    total = np.zeros((len(values), m.p.shape[1]))
    weight = np.zeros(m.p.shape[1])
    for i in range(3):
        np.add.at(total.T, m.t[i], (values * area).T)
        np.add.at(weight, m.t[i], area)
    return total / weight


def _areas(m: skfem.MeshTri) -> np.ndarray:
    e1, e2 = m.p[:, m.t[1]] - m.p[:, m.t[0]], m.p[:, m.t[2]] - m.p[:, m.t[0]]
    return 0.5 * np.abs(e1[0] * e2[1] - e1[1] * e2[0])
