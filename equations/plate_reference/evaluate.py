r"""Evaluation of separable series :math:`f(x, y) = \sum_{m,n} C_{mn}\, X_m(x)\, Y_n(y)` at many points.

The series solvers express every field as such a sum. On a tensor grid (``x`` constant along one axis of a 2-D
array and ``y`` along the other, as from ``np.meshgrid`` in either indexing) the sum is two matrix products over
the distinct coordinates, :math:`X C Y^T`; at scattered points it is :math:`\sum_n (X C)_{pn} Y_{pn}`, done in
chunks of points to bound memory.
"""
from __future__ import annotations

import numpy as np


def tensor_axes(x: np.ndarray, y: np.ndarray):
    """``(xs, ys, transpose)`` if ``(x, y)`` is a 2-D tensor grid, else ``None``."""
    if x.ndim != 2 or x.size == 0:
        return None
    if np.all(x == x[:, :1]) and np.all(y == y[:1, :]):
        return x[:, 0], y[0, :], False
    if np.all(x == x[:1, :]) and np.all(y == y[:, :1]):
        return x[0, :], y[:, 0], True
    return None


def evaluate(x, y, kernel, chunk: int = 4096) -> dict:
    """Fields of ``kernel`` at the points ``(x, y)`` (arrays of one shape, or broadcastable).

    ``kernel(xs, ys, combine)`` gets 1-D coordinate vectors and a function ``combine(X, C, Y)``, where the rows
    of ``X`` belong to ``xs`` and the rows of ``Y`` to ``ys`` and ``C`` is a coefficient matrix (``None`` for the
    identity); it returns a dict of ``combine`` results, which come back shaped like ``x``.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    grid = tensor_axes(x, y)
    if grid is not None:
        xs, ys, transpose = grid

        def combine(X, C, Y):
            Z = (X if C is None else X @ C) @ Y.T
            return Z.T if transpose else Z

        return {k: np.ascontiguousarray(v) for k, v in kernel(xs, ys, combine).items()}

    def pointwise(X, C, Y):
        return np.einsum("pn,pn->p", X if C is None else X @ C, Y)

    flat_x, flat_y = x.ravel(), y.ravel()
    parts = [kernel(flat_x[i:i + chunk], flat_y[i:i + chunk], pointwise) for i in range(0, flat_x.size, chunk)]
    if not parts:
        parts = [kernel(flat_x, flat_y, pointwise)]
    return {k: np.concatenate([p[k] for p in parts]).reshape(x.shape) for k in parts[0]}
