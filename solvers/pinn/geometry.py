"""Geometry for collocation: domains with named boundary parts and samplers.

A geometry answers three questions: which boundary parts it has (``parts``), points inside it
(``interior(n, rng, method)``), and points on a part with their outward unit normals
(``boundary(part, n, rng, method)``). Points are NumPy arrays in physical coordinates; sampling happens
outside ``jit`` and the arrays are handed to the train step as data.

Samplers (``method``): ``uniform`` (i.i.d.), ``sobol``, ``halton`` and ``lhs`` (quasi-random, from
``scipy.stats.qmc``, scrambled with the run's seed), and ``grid`` (a tensor grid, for plots and tests).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.stats import qmc

from sciml.config import spec
from sciml.errors import Invalid

Method = Literal["uniform", "sobol", "halton", "lhs", "grid"]


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


@dataclass
class RectangleConfig:
    """Case-file section ``geometry`` for ``type: rectangle``: ``[x0, x1] × [y0, y1]`` in metres."""

    type: Literal["rectangle"]
    x: tuple[float, float] = spec(help="[x0, x1]")
    y: tuple[float, float] = spec(help="[y0, y1]")

    def check(self):
        for name in ("x", "y"):
            lo, hi = getattr(self, name)
            if not hi > lo:
                raise Invalid(name, f"needs x0 < x1, got [{lo}, {hi}]")


class Rectangle:
    """``[x0, x1] × [y0, y1]`` with edges ``left`` (x = x0), ``right``, ``bottom`` (y = y0) and ``top``."""

    parts = ("left", "right", "bottom", "top")
    dim = 2

    def __init__(self, x: tuple[float, float], y: tuple[float, float]):
        self.bounds = (tuple(map(float, x)), tuple(map(float, y)))
        (x0, x1), (y0, y1) = self.bounds
        # part -> (fixed axis, fixed value, outward normal)
        self._edges = {"left": (0, x0, (-1.0, 0.0)), "right": (0, x1, (1.0, 0.0)),
                       "bottom": (1, y0, (0.0, -1.0)), "top": (1, y1, (0.0, 1.0))}

    @classmethod
    def from_config(cls, cfg: RectangleConfig) -> "Rectangle":
        return cls(cfg.x, cfg.y)

    @property
    def lower(self) -> np.ndarray:
        return np.array([b[0] for b in self.bounds])

    @property
    def upper(self) -> np.ndarray:
        return np.array([b[1] for b in self.bounds])

    def interior(self, n: int, rng: np.random.Generator, method: Method = "uniform") -> np.ndarray:
        return self.lower + (self.upper - self.lower) * unit_cube(n, 2, rng, method)

    def boundary(self, part: str, n: int, rng: np.random.Generator, method: Method = "uniform"):
        """``(points, normals)`` on edge ``part``, both ``(n, 2)``."""
        axis, value, normal = self._edges[part]
        free = 1 - axis
        s = unit_cube(n, 1, rng, method)[:, 0]
        lo, hi = self.bounds[free]
        pts = np.empty((n, 2))
        pts[:, axis], pts[:, free] = value, lo + (hi - lo) * s
        return pts, np.broadcast_to(np.array(normal), (n, 2)).copy()

    def contains(self, pts: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        return np.all((pts >= self.lower - tol) & (pts <= self.upper + tol), axis=-1)

    def on_part(self, part: str, pts: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        axis, value, _ = self._edges[part]
        return (np.abs(pts[:, axis] - value) <= tol) & self.contains(pts, tol)

    def grid(self, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """Evaluation grid ``(X, Y)`` of ``shape`` (nx, ny) including the edges, ``indexing='ij'``."""
        (x0, x1), (y0, y1) = self.bounds
        return np.meshgrid(np.linspace(x0, x1, shape[0]), np.linspace(y0, y1, shape[1]), indexing="ij")

    def evaluation_points(self, shape) -> tuple[np.ndarray, tuple[int, ...], tuple[np.ndarray, ...]]:
        """``(points (N, 2), grid shape, (X, Y))``: a tensor grid for errors and plots."""
        X, Y = self.grid(tuple(shape))
        return np.stack([X.ravel(), Y.ravel()], -1), X.shape, (X, Y)


GEOMETRIES = {"rectangle": (RectangleConfig, Rectangle)}
GeometryConfig = RectangleConfig
