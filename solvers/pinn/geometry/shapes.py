"""Spatial domains: rectangles and boxes (with circular/spherical holes), disks.

Face names: ``left``/``right`` (x = x0 / x1), ``bottom``/``top`` (y in 2D, z in 3D) and, in 3D,
``front``/``back`` (y = y0 / y1). A hole's surface is the part ``hole`` unless it is given a name; its
normal points out of the fluid, into the hole. Points inside a hole are not in the domain (a boolean
difference), and interior samples falling in a hole are rejected.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import jax.numpy as jnp
import numpy as np

from sciml.equations.domain import Corner
from sciml.errors import Invalid

from .domain import Domain, Piece, regroup

FACE_NAMES = {2: (("left", "right"), ("bottom", "top")),
              3: (("left", "right"), ("front", "back"), ("bottom", "top"))}


class Ball:
    """A circle (2D) or sphere (3D) of ``radius`` around ``center``: a hole's surface."""

    def __init__(self, center: Sequence[float] | np.ndarray, radius: float):
        self.center, self.radius = np.asarray(center, float), float(radius)
        self.dim = len(self.center)
        if self.dim not in (2, 3):
            raise ValueError("holes are circles (2D) or spheres (3D)")

    def inside(self, pts, tol=0.0) -> np.ndarray:
        """Strictly inside (the hole's own points, at distance < radius - tol)."""
        return np.linalg.norm(pts - self.center, axis=-1) < self.radius - tol

    def directions(self, u: np.ndarray) -> np.ndarray:
        """Area-preserving map of ``[0, 1]^(dim-1)`` onto the unit circle/sphere."""
        if self.dim == 2:
            th = 2 * np.pi * u[:, 0]
            return np.stack([np.cos(th), np.sin(th)], -1)
        z, ph = 1 - 2 * u[:, 0], 2 * np.pi * u[:, 1]
        s = np.sqrt(np.clip(1 - z**2, 0.0, None))
        return np.stack([s * np.cos(ph), s * np.sin(ph), z], -1)

    def piece(self, normal_sign: float = -1.0) -> Piece:
        """The surface; ``normal_sign = -1``: the normal points to the centre (out of the fluid around it)."""
        measure = 2 * np.pi * self.radius if self.dim == 2 else 4 * np.pi * self.radius**2

        def point_map(u):
            d = self.directions(u)
            return self.center + self.radius * d, normal_sign * d, np.ones(len(u), bool)

        on = lambda pts, tol: np.abs(np.linalg.norm(pts - self.center, axis=-1) - self.radius) <= tol
        center = tuple(float(c) for c in self.center)
        hole = (center, self.radius) if normal_sign < 0 else None
        distance = lambda pts: -normal_sign * (jnp.sqrt(sum((pts[..., i] - c) ** 2 for i, c in enumerate(center)))
                                               - self.radius)
        return Piece(self.dim - 1, measure, point_map, on, sphere=hole, distance=distance)

    def pieces(self, prefix: str) -> dict[str, Piece]:
        """A hole's surface as its one piece ``prefix``."""
        return {prefix: self.piece()}


class Shape(Domain):
    """A spatial domain minus holes: subclasses give ``_outer_map``, ``_outer_contains`` and outer pieces."""

    def _setup(self, coords, bounds, outer: Mapping[str, Piece], holes, parts, names=None):
        """Pieces and parts: the ``outer`` pieces (each its own part, or the part ``names`` gives it, in order),
        and the holes, ``(centre, radius, name)`` of a circle or sphere or ``(shape, name)`` of another shape with
        ``pieces(prefix)`` and ``inside(points, tol)``, each hole's pieces ``<name>#<i>...`` the part ``name``."""
        self.coords, self.bounds = tuple(coords), tuple(bounds)
        self.holes, self.hole_pieces = [], []
        pieces = dict(outer)
        default: dict[str, tuple[str, ...]] = {}
        for piece, part in zip(outer, names if names is not None else outer):
            default[part] = default.get(part, ()) + (piece,)
        for i, hole in enumerate(holes):
            shape, name = (Ball(hole[0], hole[1]), hole[2]) if len(hole) == 3 else hole
            if shape.dim != self.dim:
                raise Invalid(f"holes[{i}].center", f"has {shape.dim} coordinates, the domain {self.dim}")
            self.holes.append(shape)
            own = shape.pieces(f"{name}#{i}")
            pieces.update(own)
            self.hole_pieces.append(tuple(own))
            default[name] = default.get(name, ()) + tuple(own)
        self.pieces, self.groups = pieces, regroup(list(pieces), default, parts)

    def _outer_map(self, u) -> tuple[np.ndarray, np.ndarray]:
        """Unit-cube points ``u`` to ``(points, valid)`` of the shape without its holes."""
        raise NotImplementedError

    def _outer_contains(self, pts, tol: float) -> np.ndarray:
        """Whether each point lies in the shape without its holes (within ``tol``)."""
        raise NotImplementedError

    def _outside_holes(self, pts, tol=0.0):
        ok = np.ones(len(pts), bool)
        for h in self.holes:
            ok &= ~h.inside(pts, tol)
        return ok

    def interior_map(self, u):
        pts, valid = self._outer_map(u)
        return pts, None, valid & self._outside_holes(pts)

    def contains(self, pts, tol=1e-12):
        pts = np.asarray(pts)
        return self._outer_contains(pts, tol) & self._outside_holes(pts, tol)


class BoxShape(Shape):
    """An axis-aligned box ``Π [lo_i, hi_i]`` (2D or 3D) with optional holes."""

    def __init__(self, bounds: Sequence[Sequence[float]], holes=(), parts=None):
        bounds = tuple((float(lo), float(hi)) for lo, hi in bounds)
        dim = len(bounds)
        coords = ("x", "y", "z")[:dim]
        lo, hi = np.array([b[0] for b in bounds]), np.array([b[1] for b in bounds])
        outer = {}
        for axis, names in enumerate(FACE_NAMES[dim]):
            for side, name in enumerate(names):
                outer[name] = self._face(axis, side, lo, hi)
        self._setup(coords, bounds, outer, holes, parts)
        for i, h in enumerate(self.holes):
            if np.any(h.center - h.radius <= lo) or np.any(h.center + h.radius >= hi):
                raise Invalid(f"holes[{i}]", "must lie strictly inside the box")
        for i, a in enumerate(self.holes):
            for j, b in enumerate(self.holes[:i]):
                if np.linalg.norm(a.center - b.center) <= a.radius + b.radius:
                    raise Invalid(f"holes[{i}]", f"overlaps hole {j}")

    def _face(self, axis, side, lo, hi) -> Piece:
        dim = len(lo)
        free = [i for i in range(dim) if i != axis]
        value = (lo, hi)[side][axis]
        normal = np.zeros(dim)
        normal[axis] = 1.0 if side else -1.0

        def point_map(u):
            pts = np.empty((len(u), dim))
            pts[:, axis] = value
            pts[:, free] = lo[free] + (hi[free] - lo[free]) * u
            return pts, np.broadcast_to(normal, pts.shape).copy(), np.ones(len(u), bool)

        def on(pts, tol):
            return (np.abs(pts[:, axis] - value) <= tol) & self._outer_contains(pts, tol)

        distance = (lambda pts: pts[..., axis] - value) if side == 0 else (lambda pts: value - pts[..., axis])
        return Piece(dim - 1, float(np.prod(hi[free] - lo[free])), point_map, on, face=(axis, side),
                     distance=distance)

    def loops(self) -> list:
        """A rectangle's boundary as :meth:`.polygon.Polygon.loops` gives a polygon's (what a mesher of the same
        domain needs): its corners counter-clockwise from ``(x0, y0)`` with the parts of the edges bottom, right,
        top, left, then each hole ``(centre, radius, part)``."""
        (x0, x1), (y0, y1) = self.bounds
        out: list = [(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]),
                      tuple(self.part_of(e) for e in ("bottom", "right", "top", "left")))]
        return out + [(tuple(h.center), h.radius, self.part_of(own[0])) for h, own in zip(self.holes, self.hole_pieces)]

    def corners(self) -> list[Corner] | None:
        """A rectangle's four corners (its holes are circles), counter-clockwise from ``(x0, y0)``; a box's are
        not given (None)."""
        if self.dim != 2:
            return None
        (x0, x1), (y0, y1) = self.bounds
        loop = [("bottom", (0.0, -1.0)), ("right", (1.0, 0.0)), ("top", (0.0, 1.0)), ("left", (-1.0, 0.0))]
        points = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        return [Corner(np.array(p), self.part_of(loop[i - 1][0]), np.array(loop[i - 1][1]), self.part_of(loop[i][0]),
                       np.array(loop[i][1]), np.pi / 2) for i, p in enumerate(points)]

    def _outer_map(self, u):
        return self.lower + (self.upper - self.lower) * u, np.ones(len(u), bool)

    def _outer_contains(self, pts, tol):
        return np.all((pts >= self.lower - tol) & (pts <= self.upper + tol), axis=-1)


class Rectangle(BoxShape):
    """``[x0, x1] × [y0, y1]`` with edges ``left`` (x = x0), ``right``, ``bottom`` (y = y0) and ``top``."""

    def __init__(self, x: tuple[float, float], y: tuple[float, float], holes=(), parts=None):
        super().__init__((x, y), holes, parts)


class Box(BoxShape):
    """``[x0, x1] × [y0, y1] × [z0, z1]`` with faces left/right (x), front/back (y), bottom/top (z)."""

    def __init__(self, x, y, z, holes=(), parts=None):
        super().__init__((x, y, z), holes, parts)


class Disk(Shape):
    """The disk (2-D) or solid ball (3-D, ``center`` of three numbers) of ``radius`` around ``center``; its
    boundary is the part ``circle`` (2-D) or ``sphere`` (3-D)."""

    def __init__(self, center: Sequence[float], radius: float, holes=(), parts=None):
        self.center, self.radius = np.asarray(center, float), float(radius)
        rim = Ball(self.center, self.radius).piece(normal_sign=1.0)
        bounds = [(c - self.radius, c + self.radius) for c in self.center]
        coords = ("x", "y", "z")[:len(self.center)]
        self._setup(coords, bounds, {"circle" if len(coords) == 2 else "sphere": rim}, holes, parts)
        for i, h in enumerate(self.holes):
            if np.linalg.norm(h.center - self.center) + h.radius >= self.radius:
                raise Invalid(f"holes[{i}]", "must lie strictly inside the disk")

    def _outer_map(self, u):
        r = self.radius * u[:, 0] ** (1.0 / self.dim)  # uniform in area (volume); the rest is the direction
        return self.center + r[:, None] * Ball(self.center, self.radius).directions(u[:, 1:]), np.ones(len(u), bool)

    def _outer_contains(self, pts, tol):
        return np.linalg.norm(pts - self.center, axis=-1) <= self.radius + tol
