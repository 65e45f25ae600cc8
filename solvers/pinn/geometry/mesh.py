r"""A 3-D domain bounded by a closed triangle mesh: a part read from an STL, OBJ, PLY or OFF file.

``geometry: {type: mesh, path: cases/parts/bracket.stl, scale: 0.001, select: {...}, parts: {...}}``. The file
is read by trimesh (``pip install 'sciml[mesh]'``; a path under ``cases/`` that the working directory lacks is
the shipped file, :func:`located`), merged where its vertices coincide, and must be *closed*
(every edge shared by exactly two faces, consistently wound): a domain needs an inside. ``scale`` multiplies
the coordinates (a part drawn in millimetres, solved in metres).

**Boundary parts by selectors.** ``select`` names groups of faces, each by one rule: ``{normal: [nx, ny, nz],
angle: 10}`` (faces whose outward normal is within ``angle`` degrees of that direction) or ``{where: "z < 1e-3"}``
(an expression of ``x, y, z`` true at the face's centroid, :mod:`sciml.expr`). A face goes to the first
selector that takes it; faces no selector takes form the part ``surface``. A selector that takes no face is an
error naming it. ``parts`` then regroups as for every shape.

**Inside.** A point is inside where the mesh's winding number about it is over 1/2: the sum of the solid
angles its triangles subtend there (Van Oosterom & Strackee, IEEE Trans. Biomed. Eng. 30, 1983), divided by
4π, is 1 inside a closed surface and 0 outside, whatever its shape, with no ray to miss an edge. Written here
because trimesh's own test casts rays through an R-tree (the ``rtree`` package, compiled) and can miss on an
edge; the winding number needs numpy only and costs points × faces (a few thousand faces: well under a
second per 10⁴ points). Within ``tol`` of the surface counts as inside too (the distance to the nearest
triangle, :func:`triangle_distance`).

**Sampling.** Interior points by rejection from the bounding box (quasi-random kept); points on a part by a
map from the unit square: the first coordinate picks a triangle by the cumulative area and, rescaled within
it, is with the second the triangle's two barycentric coordinates (``p = (1 - √r₁) a + √r₁ (1 - r₂) b + √r₁ r₂
c``, uniform in area), so a quasi-random sequence stays spread over the part; the normal is the face's.
A mesh has no distance functions yet: exact conditions (``conditions.enforce``) are for the analytic shapes.
"""
from __future__ import annotations

import os

import numpy as np

from sciml import catalog
from sciml.errors import Invalid
from sciml.expr import parse

from .domain import Domain, Piece, regroup
from .sampling import split

REST = "surface"  # the part of the faces no selector takes
CHUNK = 2_000_000  # points x faces per block of the winding number and the distance


def read(path: str, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``(vertices (V, 3), faces (F, 3))`` of the closed mesh in ``path``, outward wound, scaled; an
    :class:`Invalid` at ``path`` naming what is wrong (no file, unreadable, not closed, not 3-D)."""
    try:
        import trimesh
    except ImportError:
        raise Invalid("path", "a mesh domain reads its file with trimesh: pip install 'sciml[mesh]'") from None
    path = located(path)
    if not os.path.isfile(path):
        raise Invalid("path", f"{path}: no such file")
    try:
        mesh = trimesh.load(path, force="mesh", process=True)
    except Exception as e:  # trimesh raises many kinds on a file it cannot parse
        raise Invalid("path", f"{path}: unreadable mesh ({type(e).__name__}: {e})") from None
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise Invalid("path", f"{path}: no triangles in the file")
    if not mesh.is_watertight:
        edges = np.sort(mesh.edges, axis=1)
        _, counts = np.unique(edges, axis=0, return_counts=True)
        raise Invalid("path", f"{path}: the surface is not closed: {int(np.sum(counts != 2))} of its edges do not "
                              "join exactly two faces (a domain needs an inside; close the mesh)")
    if not mesh.is_winding_consistent:
        raise Invalid("path", f"{path}: the faces are not wound consistently (some normals point in, some out)")
    if mesh.volume < 0:
        mesh.invert()
    return np.asarray(mesh.vertices, np.float64) * float(scale), np.asarray(mesh.faces, np.int64)


def located(path: str) -> str:
    """``path``, or, where the working directory has no such file and it names one under ``cases/``, the shipped
    file of that name (the catalog's rule, :mod:`sciml.catalog`: ``sciml run beltrami_bracket`` from any folder
    finds ``cases/parts/bracket.stl``)."""
    prefix = catalog.LOCAL + "/"
    if os.path.isfile(path) or not path.replace(os.sep, "/").startswith(prefix):
        return path
    shipped = os.path.join(catalog.root(), path[len(prefix):])
    return shipped if os.path.isfile(shipped) else path


def winding(points: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """The winding number ``(N,)`` of the closed surface ``triangles (F, 3, 3)`` about each point (module notes):
    1 inside, 0 outside."""
    points = np.asarray(points, float)
    out = np.empty(len(points))
    step = max(1, CHUNK // max(len(triangles), 1))
    for i in range(0, len(points), step):
        a, b, c = (triangles[None, :, k] - points[i:i + step, None] for k in range(3))
        la, lb, lc = (np.linalg.norm(v, axis=-1) for v in (a, b, c))
        det = np.sum(a * np.cross(b, c), axis=-1)
        dots = la * lb * lc + np.sum(a * b, -1) * lc + np.sum(a * c, -1) * lb + np.sum(b * c, -1) * la
        out[i:i + step] = np.sum(np.arctan2(det, dots), axis=1) / (2 * np.pi)
    return out


def triangle_distance(points: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """The distance ``(N,)`` from each point to the nearest of ``triangles (F, 3, 3)``: to the plane where the
    foot lies inside a triangle, else to the nearest of its edges."""
    points = np.asarray(points, float)
    a, b, c = triangles[:, 0], triangles[:, 1], triangles[:, 2]
    normal = np.cross(b - a, c - a)
    normal = normal / np.maximum(np.linalg.norm(normal, axis=-1, keepdims=True), 1e-300)
    out = np.empty(len(points))
    step = max(1, CHUNK // max(len(triangles), 1))
    for i in range(0, len(points), step):
        p = points[i:i + step, None]
        height = np.sum((p - a) * normal, axis=-1)
        foot = p - height[..., None] * normal
        inside = np.ones(height.shape, bool)
        for u, v in ((a, b), (b, c), (c, a)):  # the foot on the inner side of each edge
            inside &= np.sum(np.cross(v - u, foot - u) * normal, axis=-1) >= 0
        edges = np.min([_segment(p, u, v) for u, v in ((a, b), (b, c), (c, a))], axis=0)
        out[i:i + step] = np.min(np.where(inside, np.abs(height), edges), axis=1)
    return out


def _segment(p, a, b):
    """Distances of points ``p (n, 1, 3)`` to the segments ``a b`` ``(F, 3)``: ``(n, F)``."""
    ab = b - a
    t = np.clip(np.sum((p - a) * ab, axis=-1) / np.maximum(np.sum(ab * ab, axis=-1), 1e-300), 0.0, 1.0)
    return np.linalg.norm(p - a - t[..., None] * ab, axis=-1)


def select(centroids: np.ndarray, normals: np.ndarray, rules: dict, key: str = "select") -> dict[str, np.ndarray]:
    """``{part: face indices}``: each face to the first rule of ``rules`` (name -> ``{normal, angle}`` or
    ``{where}``) that takes it, the rest to :data:`REST` (module notes)."""
    free = np.ones(len(centroids), bool)
    groups: dict[str, np.ndarray] = {}
    for name, rule in rules.items():
        if name == REST:
            raise Invalid(f"{key}.{name}", f"{REST!r} names the faces no selector takes; pick another name")
        taken = free & _rule(centroids, normals, rule, f"{key}.{name}")
        if not taken.any():
            raise Invalid(f"{key}.{name}", "selects no face (the faces before it in select took any it would)")
        groups[name], free = np.flatnonzero(taken), free & ~taken
    if free.any():
        groups[REST] = np.flatnonzero(free)
    return groups


def _rule(centroids, normals, rule, key: str) -> np.ndarray:
    """Which faces one selector takes."""
    rule = dict(rule or {})
    if set(rule) == {"where"}:
        try:
            expr = parse(rule["where"], ("x", "y", "z"))
        except ValueError as e:
            raise Invalid(f"{key}.where", str(e)) from None
        return np.broadcast_to(np.asarray(expr(np, x=centroids[:, 0], y=centroids[:, 1], z=centroids[:, 2]), bool),
                               (len(centroids),))
    if "normal" in rule and set(rule) <= {"normal", "angle"}:
        direction = np.asarray(rule["normal"], float)
        if direction.shape != (3,) or not np.linalg.norm(direction) > 0:
            raise Invalid(f"{key}.normal", f"expected a direction [nx, ny, nz], got {rule['normal']}")
        angle = float(rule.get("angle", 10.0))
        if not 0 <= angle <= 180:
            raise Invalid(f"{key}.angle", f"an angle in degrees from 0 to 180, got {angle}")
        cosine = normals @ (direction / np.linalg.norm(direction))
        return cosine >= np.cos(np.radians(angle)) - 1e-12
    raise Invalid(key, f"a selector is {{normal: [nx, ny, nz], angle: degrees}} or {{where: 'expression of x, y, z'}}, "
                       f"got {rule}")


class Mesh(Domain):
    """The inside of a closed triangle mesh (module notes); parts by :func:`select`."""

    coords = ("x", "y", "z")

    def __init__(self, vertices: np.ndarray, faces: np.ndarray, rules: dict | None = None, parts=None):
        self.triangles = np.asarray(vertices, float)[np.asarray(faces)]  # (F, 3, 3)
        a, b, c = (self.triangles[:, k] for k in range(3))
        cross = np.cross(b - a, c - a)
        self.areas = 0.5 * np.linalg.norm(cross, axis=-1)
        self.normals = cross / np.maximum(2 * self.areas[:, None], 1e-300)
        self.bounds = tuple((float(lo), float(hi)) for lo, hi in zip(vertices.min(0), vertices.max(0)))
        groups = select(self.triangles.mean(axis=1), self.normals, rules or {})
        self.pieces = {name: self._piece(faces) for name, faces in groups.items()}
        self.groups = regroup(list(self.pieces), {name: (name,) for name in self.pieces}, parts)

    @property
    def volume(self) -> float:
        """The enclosed volume (the divergence theorem over the faces)."""
        return float(np.sum(np.einsum("fi,fi->f", self.triangles.mean(axis=1), self.normals) * self.areas) / 3)

    def _piece(self, faces: np.ndarray) -> Piece:
        tri, normals, areas = self.triangles[faces], self.normals[faces], self.areas[faces]

        def on_faces(u):
            which, r = split(u, areas)
            s, r2 = np.sqrt(r[:, 0])[:, None], u[:, 1:2]
            t = tri[which]
            pts = (1 - s) * t[:, 0] + s * (1 - r2) * t[:, 1] + s * r2 * t[:, 2]
            return pts, normals[which], np.ones(len(u), bool)

        return Piece(2, float(areas.sum()), on_faces, lambda pts, tol: triangle_distance(pts, tri) <= tol)

    def interior_map(self, u: np.ndarray):
        pts = self.lower + (self.upper - self.lower) * u
        return pts, None, self.contains(pts, 0.0)

    def contains(self, pts: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        pts = np.asarray(pts, float)
        lo, hi = self.lower - tol, self.upper + tol
        box = np.all((pts >= lo) & (pts <= hi), axis=-1)
        inside = np.zeros(len(pts), bool)
        idx = np.flatnonzero(box)
        if len(idx):
            w = winding(pts[idx], self.triangles)
            inside[idx] = w > 0.5
            if tol > 0:
                near = idx[~inside[idx]]
                if len(near):
                    inside[near] = triangle_distance(pts[near], self.triangles) <= tol
        return inside

    def default_grid(self) -> list[int]:
        return [31, 31, 31]
