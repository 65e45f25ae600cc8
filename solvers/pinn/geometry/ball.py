r"""The ball :math:`B_r = \{x \in \mathbb{R}^d : |x| \le r\}` in any dimension ``d`` (high-dimensional PDEs).

Coordinates ``x1 … xd``; one boundary part, ``sphere``. Points come from standard normal vectors ``g`` (the
inverse normal CDF of unit-cube samples, so every sampling ``method`` applies; for ``uniform`` interior points,
i.i.d. normals drawn directly): ``r g/|g|`` is uniform on the
sphere, and ``r U^{1/d} g/|g|`` with ``U`` uniform in ``[0, 1]`` uniform in the ball (``d + 1`` cube coordinates
per point). Everything is ``O(n d)`` for ``n`` points: no ``d × d`` object.

A tensor grid has ``m^d`` points, so :meth:`Ball.evaluation_points` gives ``test_points`` held-out points drawn
uniformly in the ball from a fixed stream of their own (the same for every run of the case, independent of
the training points): the evaluation reports relative errors over them, and the run writes no field maps.
They are held at most :data:`MAX_TEST_COORDINATES` coordinates (0.8 GB in float64): in ``d`` dimensions at most
``10⁸ / d`` points (1000 at ``d = 10⁵``), which keeps the evaluation's memory linear in ``d`` for the budget.
"""
from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from scipy.special import ndtri

from .domain import Domain, EvalPoints, Piece, regroup
from .sampling import Keep, Method, draw, kept

TEST_SEED = 20231  # the held-out points' own stream
MAX_TEST_COORDINATES = 10**8


def _gaussian(u: np.ndarray) -> np.ndarray:
    """Standard normal samples from unit-cube samples (clipped away from 0 and 1)."""
    tiny = np.finfo(float).eps
    return ndtri(np.clip(u, tiny, 1.0 - tiny))


def _directions(u: np.ndarray) -> np.ndarray:
    """Points uniform on the unit sphere from ``u (m, d)``."""
    g = _gaussian(u)
    return g / np.linalg.norm(g, axis=-1, keepdims=True)


class Ball(Domain):
    """The ball of ``radius`` around the origin in ``dim`` dimensions (module notes)."""

    def __init__(self, dim: int, radius: float = 1.0, parts=None, test_points: int = 10000):
        self.radius = float(radius)
        self.test_points = min(int(test_points), max(1, MAX_TEST_COORDINATES // dim))  # module notes
        self.coords = tuple(f"x{i + 1}" for i in range(dim))
        self.bounds = ((-self.radius, self.radius),) * dim
        r = self.radius
        log_area = math.log(2.0) + 0.5 * dim * math.log(math.pi) - math.lgamma(0.5 * dim) + (dim - 1) * math.log(r)

        def on_sphere(u):
            v = _directions(u)
            return r * v, v, np.ones(len(u), bool)

        sphere = Piece(dim, math.exp(log_area), on_sphere,
                       lambda pts, tol: np.abs(np.linalg.norm(pts, axis=-1) - r) <= tol,
                       distance=lambda pts: r - jnp.sqrt(jnp.sum(pts * pts, axis=-1)))
        self.pieces = {"sphere": sphere}
        self.groups = regroup(["sphere"], {"sphere": ("sphere",)}, parts)

    def interior_map(self, u: np.ndarray):
        """``u (m, d + 1)`` to points uniform in the ball."""
        d = self.dim
        radius = self.radius * np.clip(u[:, d], 0.0, 1.0) ** (1.0 / d)
        return radius[:, None] * _directions(u[:, :d]), None, np.ones(len(u), bool)

    def interior(self, n: int, rng: np.random.Generator, method: Method = "uniform",
                 keep: Keep | None = None) -> np.ndarray:
        if method == "uniform" and keep is None:  # i.i.d.: normals drawn directly (the inverse CDF costs 10× more)
            g = rng.standard_normal((n, self.dim))
            radius = self.radius * rng.random(n) ** (1.0 / self.dim)
            return radius[:, None] * g / np.linalg.norm(g, axis=-1, keepdims=True)
        return draw(kept(self.interior_map, keep), self.dim + 1, n, rng, method)[0]

    def contains(self, pts, tol: float = 1e-12) -> np.ndarray:
        return np.linalg.norm(np.asarray(pts), axis=-1) <= self.radius + tol

    def evaluation_points(self, grid=None) -> EvalPoints:
        """``test_points`` held-out points, uniform in the ball (module notes); ``grid`` is not used."""
        pts = self.interior(self.test_points, np.random.default_rng(TEST_SEED), "uniform")
        return EvalPoints(pts, (len(pts),), (), np.ones(len(pts), bool), self.coords)
