"""Space-time domains: a spatial domain × ``[t0, t1]``, with the coordinate ``t`` last.

Every spatial part becomes a part of the space-time boundary (the part × the time interval, normals with a
zero time component) and a new part ``initial`` is the spatial domain at ``t = t0`` (normal ``-e_t``).
"""
from __future__ import annotations

import numpy as np

from sciml.errors import Invalid

from .domain import Domain, Piece


class SpaceTime(Domain):
    def __init__(self, space: Domain, t: tuple[float, float]):
        t0, t1 = float(t[0]), float(t[1])
        if not t1 > t0:
            raise Invalid("time", f"needs t0 < t1, got [{t0}, {t1}]")
        if "t" in space.coords:
            raise ValueError("the spatial domain already has a time coordinate")
        self._space, self.t0, self.t1 = space, t0, t1
        self.coords = space.coords + ("t",)
        self.bounds = space.bounds + ((t0, t1),)
        self.pieces = {name: self._lift(p) for name, p in space.pieces.items()}
        self.pieces["initial"] = self._initial()
        self.groups = {**space.groups, "initial": ("initial",)}

    @property
    def space(self) -> Domain:
        return self._space

    @property
    def time(self):
        return (self.t0, self.t1)

    def _with_t(self, pts, t):
        return np.concatenate([pts, np.reshape(t, (-1, 1)) * np.ones((len(pts), 1))], -1)

    def _lift(self, piece: Piece) -> Piece:
        span = self.t1 - self.t0

        def point_map(u):
            pts, nrm, valid = piece.map(u[:, :piece.k])
            t = self.t0 + span * u[:, piece.k]
            return self._with_t(pts, t), self._with_t(nrm, 0.0), valid

        def on(pts, tol):
            return piece.on(pts[:, :-1], tol) & (pts[:, -1] >= self.t0 - tol) & (pts[:, -1] <= self.t1 + tol)

        inner = piece.distance
        distance = None if inner is None else (lambda pts: inner(pts[..., :-1]))
        return Piece(piece.k + 1, piece.measure * span, point_map, on, piece.face, piece.sphere, distance,
                     None if piece.drawn is None else piece.drawn * span)

    def at_start(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Spatial points ``(n, d)`` as points of the part ``initial``: ``(points at t0, normals -e_t)``."""
        normal = np.zeros(self.space.dim + 1)
        normal[-1] = -1.0
        return self._with_t(pts, self.t0), np.broadcast_to(normal, (len(pts), len(normal))).copy()

    def _initial(self) -> Piece:
        d = self.space.dim

        def point_map(u):
            pts, _, valid = self.space.interior_map(u)
            return (*self.at_start(pts), valid)

        on = lambda pts, tol: (np.abs(pts[:, -1] - self.t0) <= tol) & self.space.contains(pts[:, :-1], tol)
        volume = float(np.prod(self.space.upper - self.space.lower))  # only used to weight groups
        return Piece(d, volume, point_map, on, face=(d, 0), distance=lambda pts: pts[..., -1] - self.t0)

    def interior_map(self, u):
        pts, _, valid = self.space.interior_map(u[:, :-1])
        return self._with_t(pts, self.t0 + (self.t1 - self.t0) * u[:, -1]), None, valid

    def contains(self, pts, tol=1e-12):
        pts = np.asarray(pts)
        t = pts[:, -1]
        return self.space.contains(pts[:, :-1], tol) & (t >= self.t0 - tol) & (t <= self.t1 + tol)

    def default_grid(self):
        return self.space.default_grid()[:] + [11]

    def periodic_offset(self, a, b):
        return np.append(self.space.periodic_offset(a, b), 0.0)
