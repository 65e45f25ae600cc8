"""Point samplers: points in the unit cube, and valid points drawn through a map (with rejection).

``method``: ``uniform`` (i.i.d.), ``sobol``, ``halton`` and ``lhs`` (quasi-random, from ``scipy.stats.qmc``,
scrambled with a seed drawn from the run's generator), and ``grid`` (a tensor grid of cell midpoints, for
plots and tests). Everything is NumPy and runs outside ``jit``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
from scipy.stats import qmc

Method = Literal["uniform", "sobol", "halton", "lhs", "grid"]
SOBOL_MAX_DIM = 21201  # scipy's Sobol' direction numbers (Joe & Kuo) stop there


def probe_method(dim: int) -> Method:
    """The sampler of a few probe points in ``dim`` dimensions: Sobol' where it exists."""
    return "sobol" if dim <= SOBOL_MAX_DIM else "uniform"


def unit_cube(n: int, dim: int, rng: np.random.Generator, method: Method) -> np.ndarray:
    """``n`` points in ``[0, 1]^dim`` by ``method``."""
    if method == "uniform":
        return rng.random((n, dim))
    if method == "grid":
        per = int(np.ceil(n ** (1 / dim)))
        axes = [(np.arange(per) + 0.5) / per] * dim
        pts = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, dim)
        return pts[:n] if len(pts) >= n else np.concatenate([pts, rng.random((n - len(pts), dim))])
    seed = int(rng.integers(2**31))
    engines = {"sobol": lambda: qmc.Sobol(dim, scramble=True, seed=seed),
               "halton": lambda: qmc.Halton(dim, scramble=True, seed=seed),
               "lhs": lambda: qmc.LatinHypercube(dim, seed=seed)}
    engine = engines[method]()
    if method == "sobol":  # Sobol' is balanced at powers of two: draw the next one and keep n
        return engine.random_base2(int(np.ceil(np.log2(max(n, 2)))))[:n]
    return engine.random(n)


# map(u (m, k)) -> (points (m, d), normals (m, d) or None, valid (m,) bool)
PointMap = Callable[[np.ndarray], tuple]


Keep = Callable[[PointMap], PointMap]  # a filter of a map's valid points, e.g. avoiding(...)


def kept(point_map: PointMap, keep: Keep | None) -> PointMap:
    """``point_map`` through the filter ``keep`` (None: as it is)."""
    return point_map if keep is None else keep(point_map)


def avoiding(point_map: PointMap, centres: np.ndarray, radius: float) -> PointMap:
    """``point_map`` with the points within ``radius`` of any of ``centres`` (m, s) invalid (their first ``s``
    coordinates: the spatial ones of a space-time point)."""

    def mapped(u):
        pts, normals, valid = point_map(u)
        near = np.linalg.norm(pts[:, None, :centres.shape[1]] - centres[None], axis=-1) < radius
        return pts, normals, valid & ~near.any(axis=1)

    return mapped


def split(u: np.ndarray, weights) -> tuple[np.ndarray, np.ndarray]:
    """``(which (m,), u')``: each sample of ``u (m, k)`` given to one of ``len(weights)`` items in proportion to
    the weights by its first coordinate, which ``u'`` rescales to ``[0, 1]`` within the item's share (so a
    quasi-random sequence stays spread over every item)."""
    w = np.asarray(weights, float)
    edges = np.concatenate([[0.0], np.cumsum(w) / w.sum()])
    which = np.clip(np.searchsorted(edges, u[:, 0], side="right") - 1, 0, len(w) - 1)
    out = u.copy()
    out[:, 0] = np.clip((u[:, 0] - edges[which]) / np.maximum(edges[which + 1] - edges[which], 1e-300), 0.0, 1.0)
    return which, out


def draw(point_map: PointMap, k: int, n: int, rng: np.random.Generator, method: Method):
    """``n`` valid points (and normals) of ``point_map`` applied to samples of ``[0, 1]^k``.

    Maps with holes reject some samples; the first ``n`` valid ones of a longer quasi-random sequence are
    kept (for ``grid``, ``n`` evenly spread ones, since a grid is ordered).
    """
    m = n
    for _ in range(30):
        pts, normals, valid = point_map(unit_cube(m, k, rng, method))
        idx = np.flatnonzero(valid)
        if len(idx) >= n:
            idx = idx[np.linspace(0, len(idx) - 1, n).round().astype(int)] if method == "grid" else idx[:n]
            return pts[idx], None if normals is None else normals[idx]
        m = int(np.ceil(1.2 * m * n / max(len(idx), 1))) + 8
    raise ValueError("cannot draw points: the domain is (almost) empty")
