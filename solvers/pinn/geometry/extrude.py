r"""Extruded polygons: a plane :class:`.polygon.Polygon` (any simple polygon minus polygonal or circular holes)
times an interval :math:`[z_0, z_1]`, a prism in 3-D.

**Parts.** ``bottom`` (:math:`z = z_0`) and ``top`` (:math:`z = z_1`), each the polygon's region; the side
walls take the polygon's parts: the face over the outer loop's edge :math:`i` is the piece ``edge<i>`` of the
part the polygon gives that edge (``edge<i>`` itself, or its ``names`` entry), a hole's walls (its edges' faces,
or its circle's cylinder) the hole's part. ``parts`` regroups them as for any domain.

**Normals** point out of the prism: :math:`(0, 0, \mp 1)` on the bottom and top, the polygon's outward normal with
:math:`n_z = 0` on the walls (into a hole).

**Sampling.** Inside: the polygon's interior map on the first two cube coordinates, :math:`z` linear in the third
(quasi-random sequences stay quasi-random); on a wall: the edge's (or circle's) map times :math:`z`; on the bottom
and top: the polygon's interior map (rejection from its bounding box, the piece's ``drawn`` measure the box's area,
so a part of several pieces shares its points by what each map covers).

**Distances** (what exact conditions build on): a wall's is its edge's (:func:`.polygon.segment_distance`, trimmed
where the edge's line meets the polygon) or its circle's, of :math:`(x, y)` alone, so it is smooth up to the wall
as in the plane; the bottom's :math:`z - z_0`, the top's :math:`z_1 - z`.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sciml.errors import Invalid

from .domain import Domain, Piece, regroup
from .polygon import Polygon


def _wall(piece: Piece, z0: float, z1: float) -> Piece:
    """A plane boundary piece (an edge, a circle) swept over ``[z0, z1]``."""
    height = z1 - z0

    def point_map(u):
        pts, normals, valid = piece.map(u[:, :1])
        z = z0 + height * u[:, 1:2]
        return np.c_[pts, z], np.c_[normals, np.zeros(len(u))], valid

    def on(pts, tol):
        return piece.on(pts[:, :2], tol) & (pts[:, 2] >= z0 - tol) & (pts[:, 2] <= z1 + tol)

    d2 = piece.distance
    distance = None if d2 is None else (lambda pts: d2(pts[..., :2]))
    return Piece(2, piece.measure * height, point_map, on, distance=distance)


class Extrusion(Domain):
    """The prism ``polygon × [z0, z1]`` (module notes for its parts, normals and sampling)."""

    def __init__(self, polygon: Polygon, z: Sequence[float], parts=None):
        z0, z1 = (float(v) for v in z)
        if not z1 > z0:
            raise Invalid("z", f"needs z0 < z1, got [{z0:g}, {z1:g}]")
        self.polygon, self.z = polygon, (z0, z1)
        self.coords = ("x", "y", "z")
        self.bounds = (*polygon.bounds, (z0, z1))
        area = polygon.area()
        box = float(np.prod(polygon.upper - polygon.lower))
        pieces = {"bottom": self._cap(z0, -1.0, area, box), "top": self._cap(z1, 1.0, area, box)}
        default: dict[str, tuple[str, ...]] = {"bottom": ("bottom",), "top": ("top",)}
        for part, members in polygon.groups.items():
            for name in members:
                pieces[name] = _wall(polygon.pieces[name], z0, z1)
            default[part] = tuple(members)
        clash = [p for p in ("bottom", "top") if p in polygon.groups]
        if clash:
            raise Invalid("polygon.names", f"{clash[0]!r} names the prism's {clash[0]} face: give the edges another "
                                           f"name")
        self.pieces, self.groups = pieces, regroup(list(pieces), default, parts)

    def _cap(self, z: float, side: float, area: float, box: float) -> Piece:
        """The bottom (``side`` -1) or top (+1) face: the polygon's region at height ``z``."""
        polygon = self.polygon

        def point_map(u):
            pts, _, valid = polygon.interior_map(u)
            return np.c_[pts, np.full(len(u), z)], np.tile([0.0, 0.0, side], (len(u), 1)), valid

        def on(pts, tol):
            return (np.abs(pts[:, 2] - z) <= tol) & polygon.contains(pts[:, :2], tol)

        distance = (lambda pts: pts[..., 2] - z) if side < 0 else (lambda pts: z - pts[..., 2])
        return Piece(2, area, point_map, on, distance=distance, drawn=box)

    def interior_map(self, u):
        pts, _, valid = self.polygon.interior_map(u[:, :2])
        z0, z1 = self.z
        return np.c_[pts, z0 + (z1 - z0) * u[:, 2]], None, valid

    def contains(self, pts, tol=1e-12):
        pts = np.asarray(pts)
        z0, z1 = self.z
        return self.polygon.contains(pts[:, :2], tol) & (pts[:, 2] >= z0 - tol) & (pts[:, 2] <= z1 + tol)

    def volume(self) -> float:
        """The polygon's area times the height."""
        return self.polygon.area() * (self.z[1] - self.z[0])
