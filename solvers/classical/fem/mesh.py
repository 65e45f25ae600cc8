r"""Conforming triangulations of polygons with polygonal holes, their boundary edges named.

A :class:`Region` is an outer :class:`Loop` and any number of hole loops; each loop's edge :math:`i` runs from
its corner :math:`i` to corner :math:`i + 1` and carries a name (several edges may share one). :func:`mesh`
hands the loops to Shewchuk's Triangle (the PyPI wheel ``triangle``, a constrained Delaunay triangulation with
Ruppert/Shewchuk refinement: no angle below 30 degrees) as a planar straight-line graph whose segment ``k``
carries the marker :math:`k + 1`; Triangle splits a segment but keeps its marker on the pieces, so each
boundary facet of the result is traced back to the input edge it lies on.

Element size. The target is the side :math:`h` of an equilateral triangle, so the largest area allowed is
:math:`\tfrac{\sqrt3}{4}h^2`; Triangle's elements come out smaller, of mean side about :math:`0.8h` (1474
elements on the unit square at :math:`h = 0.05`). With ``grading`` :math:`\mu \in [0, 1)` the size shrinks toward each
re-entrant corner :math:`c` (an interior angle above :math:`1.1\pi`),

.. math:: h(x) = h \min_c \min\big(1, (|x - c| / R_c)^{\mu}\big),

:math:`R_c` the shorter of the two edges at :math:`c`. Near a corner of interior angle :math:`\omega > \pi`
the plate's deflection behaves like :math:`r^{1+\lambda}` with :math:`\lambda < 1` (clamped on both sides,
:math:`\omega = 3\pi/2`: :math:`\lambda \approx 0.5445`; simply supported: :math:`\lambda = 1/3`), and a mesh
graded with :math:`\mu \ge 1 - \lambda` recovers the rates of a smooth solution (Babuška's graded meshes) at a
constant factor in the number of elements, :math:`\approx 1/(1 - \mu)` inside the graded discs. Triangle
meets the size field by rounds of refinement with per-triangle area limits (its ``r`` and ``a`` switches),
each triangle's limit read at its centroid, until no triangle is more than 1.5 times its limit.

A caller's own size field (``size``: points ``(N, 2)`` to sides ``(N,)``, e.g. finer near an obstacle in a flow,
:func:`near_edges`) is met the same way; with grading as well, the smaller of the two sizes.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import skfem
import triangle
from numpy.typing import ArrayLike
from scipy.spatial import cKDTree

from sciml.polygons import encloses, signed_area

QUALITY = 30.0  # Triangle's minimum angle (degrees); it terminates for any input up to about 33.8
REENTRANT = 1.1 * np.pi  # interior angles above this are graded toward (a circle's sides turn by 2 pi / n)
SLACK = 1.5  # a triangle up to this many times its area limit is accepted by the grading rounds
ROUNDS = 40  # grading rounds at most (each shrinks the too-large triangles near a corner by a constant factor)


@dataclass(frozen=True)
class Loop:
    """A closed polygon: ``vertices`` ``(n, 2)`` its corners in order (the last not repeated), ``names`` the
    ``n`` edge names, edge ``i`` from ``vertices[i]`` to ``vertices[(i + 1) % n]``."""

    vertices: np.ndarray
    names: tuple[str, ...]

    def __post_init__(self):
        v = np.array(self.vertices, dtype=np.float64)
        names = (self.names,) if isinstance(self.names, str) else tuple(self.names)
        if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
            raise ValueError(f"a loop needs (n, 2) corners with n >= 3, got shape {v.shape}")
        if not np.all(np.isfinite(v)):
            raise ValueError("a loop's corners must be finite")
        if len(names) != len(v):
            raise ValueError(f"a loop of {len(v)} corners needs {len(v)} edge names, got {len(names)}")
        if not all(isinstance(n, str) and n for n in names):
            raise ValueError(f"edge names must be non-empty strings, got {names}")
        if np.min(np.linalg.norm(np.roll(v, -1, axis=0) - v, axis=1)) <= 1e-12 * np.ptp(v):
            raise ValueError("a loop has an edge of zero length (a repeated corner?)")
        v.setflags(write=False)
        object.__setattr__(self, "vertices", v)
        object.__setattr__(self, "names", names)

    @property
    def lengths(self) -> np.ndarray:
        """The ``n`` edge lengths."""
        return np.linalg.norm(np.roll(self.vertices, -1, axis=0) - self.vertices, axis=1)

    @property
    def signed_area(self) -> float:
        """Shoelace area: positive when the corners run counter-clockwise."""
        return signed_area(self.vertices)


@dataclass(frozen=True)
class Region:
    """A polygon with holes: ``loops[0]`` the outer boundary, the others holes (any orientation)."""

    loops: tuple[Loop, ...]

    def __post_init__(self):
        loops = (self.loops,) if isinstance(self.loops, Loop) else tuple(self.loops)
        if not loops or not all(isinstance(loop, Loop) for loop in loops):
            raise ValueError("a region needs one or more Loop objects, the outer boundary first")
        object.__setattr__(self, "loops", loops)
        _check_simple(loops)

    @property
    def names(self) -> tuple[str, ...]:
        """The distinct edge names, in the order they first appear."""
        return tuple(dict.fromkeys(n for loop in self.loops for n in loop.names))

    def check_names(self, conditions, choices: str) -> None:
        """Raise ``ValueError`` for an edge name without a condition (``choices`` says what each may be given) or a
        condition for a name no edge has."""
        missing = [n for n in self.names if n not in conditions]
        if missing:
            raise ValueError(f"no condition for edge name(s) {missing}: give each of {list(self.names)} {choices}")
        extra = [n for n in conditions if n not in self.names]
        if extra:
            raise ValueError(f"condition(s) for edge name(s) {extra} that no edge has (the edges: "
                             f"{list(self.names)})")

    @property
    def area(self) -> float:
        """The outer polygon's area less the holes'."""
        return abs(self.loops[0].signed_area) - sum(abs(loop.signed_area) for loop in self.loops[1:])

    @property
    def diameter(self) -> float:
        """The diagonal of the outer loop's bounding box."""
        return float(np.linalg.norm(np.ptp(self.loops[0].vertices, axis=0)))


def polygon(vertices: ArrayLike, names: str | Sequence[str]) -> Region:
    """A region without holes: one loop, ``names`` one per edge (or one name for every edge)."""
    v = np.asarray(vertices, dtype=np.float64)
    return Region((Loop(v, (names,) * len(v) if isinstance(names, str) else tuple(names)),))


def circle(center: ArrayLike, radius: float, n: int, name: str) -> Loop:
    """A circle as the polygon of its ``n`` corners at angles :math:`2\\pi k/n`, every edge named ``name``."""
    if n < 3 or radius <= 0:
        raise ValueError(f"a circle needs n >= 3 and a positive radius, got n={n}, radius={radius}")
    a = 2.0 * np.pi * np.arange(n) / n
    return Loop(np.asarray(center, dtype=np.float64) + radius * np.stack([np.cos(a), np.sin(a)], axis=1),
                (name,) * n)


def size_field(region: Region, h: float, grading: float = 0.0) -> Callable[[np.ndarray], np.ndarray]:
    """The target element side ``h(x)`` of the module docstring, as a function of points ``(N, 2)``."""
    corners = reentrant_corners(region)
    if grading == 0.0 or not corners:
        return lambda x: np.full(len(x), float(h))
    centres = np.array([c for c, _ in corners])
    radii = np.array([r for _, r in corners])

    def field(x: np.ndarray) -> np.ndarray:
        r = np.linalg.norm(x[:, None, :] - centres[None], axis=-1) / radii
        return h * np.min(np.minimum(1.0, r) ** grading, axis=1)
    return field


def reentrant_corners(region: Region) -> list[tuple[np.ndarray, float]]:
    """``(corner, R)`` for each corner whose interior angle (on the region's side) exceeds ``REENTRANT``, ``R``
    the shorter of its two edges."""
    found = []
    for k, loop in enumerate(region.loops):
        v = loop.vertices if loop.signed_area > 0 else loop.vertices[::-1]  # counter-clockwise
        before, after = v - np.roll(v, 1, axis=0), np.roll(v, -1, axis=0) - v
        turn = np.arctan2(before[:, 0] * after[:, 1] - before[:, 1] * after[:, 0], np.sum(before * after, axis=1))
        inside = np.pi - turn if k == 0 else np.pi + turn  # a hole's region lies outside its polygon
        lengths = np.minimum(np.linalg.norm(before, axis=1), np.linalg.norm(after, axis=1))
        found += [(v[i], float(lengths[i])) for i in np.flatnonzero(inside > REENTRANT)]
    return found


def mesh(region: Region, h: float, grading: float = 0.0, size: Callable[[np.ndarray], np.ndarray] | None = None
         ) -> tuple[skfem.MeshTri, dict[str, np.ndarray]]:
    """A conforming triangulation of ``region`` with elements of side about ``h`` (graded toward re-entrant
    corners with exponent ``grading``, and no larger than ``size(x)`` where given: module docstring), and for each
    edge name the indices of the mesh's boundary facets on it. The mesh carries the same dict as its
    ``boundaries``."""
    if not (np.isfinite(h) and h > 0):
        raise ValueError(f"the element size h must be positive, got {h}")
    if not 0.0 <= grading < 1.0:
        raise ValueError(f"grading must lie in [0, 1), got {grading}")
    if region.area / (np.sqrt(3) / 4 * h * h) > 5e6:
        raise ValueError(f"h={h} would give over 5e6 elements on a region of area {region.area:.3g}")
    vertices, segments, owner = _graph(region)
    holes = np.array([_inside_point(loop) for loop in region.loops[1:]]).reshape(-1, 2)
    graph = {"vertices": vertices, "segments": segments, "segment_markers": np.arange(1, len(segments) + 1)}
    if len(holes):
        graph["holes"] = holes
    area = np.format_float_positional(np.sqrt(3) / 4 * h * h, trim="-")  # Triangle reads no exponent
    out = _triangulate(graph, f"pq{QUALITY:g}a{area}")
    if grading > 0.0 or size is not None:
        field = size_field(region, h, grading)
        out = _grade(out, field if size is None else lambda x: np.minimum(field(x), size(x)), holes)
    return _skfem(out, owner, region)


def rectangle(xs: ArrayLike, ys: ArrayLike, h: float, name: str = "edge"
              ) -> tuple[skfem.MeshTri, dict[str, np.ndarray]]:
    """A structured triangulation of the rectangle ``[xs[0], xs[-1]] × [ys[0], ys[-1]]`` whose grid lines include
    every ``xs`` and ``ys`` (increasing; e.g. the edges of a patch load, so that no element straddles the load's
    jump): each gap between consecutive lines cut into equal intervals of at most ``h``, each cell into two
    triangles; every boundary facet under the one edge name ``name``. No mesher: right triangles of aspect at most
    about 2, which Argyris' element takes."""
    xs, ys = (np.unique(np.asarray(a, np.float64)) for a in (xs, ys))
    if len(xs) < 2 or len(ys) < 2 or not (np.isfinite(h) and h > 0):
        raise ValueError(f"a rectangle needs two lines per axis and h > 0, got {len(xs)}, {len(ys)} lines, h={h}")
    lines = [np.concatenate([np.linspace(a, b, max(1, int(np.ceil((b - a) / h - 1e-9))) + 1)[:-1]
                             for a, b in zip(v[:-1], v[1:])] + [v[-1:]]) for v in (xs, ys)]
    m = skfem.MeshTri.init_tensor(*lines)
    return m, {name: m.boundary_facets()}


def near_edges(region: Region, name: str, h: float, h_near: float, growth: float = 0.25
               ) -> Callable[[np.ndarray], np.ndarray]:
    """A size field for :func:`mesh`: ``h_near`` on the edges named ``name``, growing by ``growth`` per unit
    of distance from them, at most ``h``: :math:`\\min(h, h_{near} + g\\,d(x))`. The distance is to points spread
    along those edges at a spacing of ``h_near / 4`` (exact to that spacing)."""
    edges = [(loop.vertices[i], loop.vertices[(i + 1) % len(loop.vertices)])
             for loop in region.loops for i, n in enumerate(loop.names) if n == name]
    if not edges:
        raise ValueError(f"no edge is named {name!r}; the edges: {list(region.names)}")
    if not (0 < h_near <= h and growth > 0):
        raise ValueError(f"need 0 < h_near <= h and growth > 0, got h_near={h_near}, h={h}, growth={growth}")
    pts = np.concatenate([a + np.linspace(0.0, 1.0, max(2, int(np.ceil(4 * np.linalg.norm(b - a) / h_near)) + 1),
                                          endpoint=False)[:, None] * (b - a) for a, b in edges])
    tree = cKDTree(pts)
    return lambda x: np.minimum(h, h_near + growth * tree.query(x)[0])


def _graph(region: Region) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Triangle's input: all corners, the segments between them and each segment's edge name."""
    vertices, segments, owner, offset = [], [], [], 0
    for loop in region.loops:
        n = len(loop.vertices)
        vertices.append(loop.vertices)
        segments.append(offset + np.stack([np.arange(n), (np.arange(n) + 1) % n], axis=1))
        owner += list(loop.names)
        offset += n
    return np.concatenate(vertices), np.concatenate(segments).astype(np.int32), owner


def _triangulate(graph: dict, switches: str) -> dict:
    out = triangle.triangulate({k: np.array(v) for k, v in graph.items()}, switches)  # writable copies
    if "triangles" not in out or len(out["triangles"]) == 0:
        raise ValueError("Triangle returned no triangles: are the holes inside the outer loop?")
    return out


def _areas(p: np.ndarray, t: np.ndarray) -> np.ndarray:
    e1, e2 = p[t[:, 1]] - p[t[:, 0]], p[t[:, 2]] - p[t[:, 0]]
    return 0.5 * np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])


def _grade(out: dict, size, holes: np.ndarray) -> dict:
    """Refine until every triangle is within ``SLACK`` of the area limit of ``size`` at its centroid."""
    for _ in range(ROUNDS):
        p, t = out["vertices"], out["triangles"]
        limit = np.sqrt(3) / 4 * size(p[t].mean(axis=1)) ** 2
        too_big = _areas(p, t) > SLACK * limit
        if not too_big.any():
            return out
        graph = {"vertices": p, "triangles": t, "segments": out["segments"],
                 "segment_markers": out["segment_markers"], "triangle_max_area": np.where(too_big, limit, -1.0)}
        if len(holes):
            graph["holes"] = holes
        out = _triangulate(graph, f"pq{QUALITY:g}ra")
    raise RuntimeError(f"the graded mesh did not meet its size field in {ROUNDS} rounds of refinement")


def _skfem(out: dict, owner: list[str], region: Region) -> tuple[skfem.MeshTri, dict[str, np.ndarray]]:
    """The skfem mesh (unused vertices dropped) and its named boundary facets."""
    t = np.asarray(out["triangles"], dtype=np.int64)
    used, t = np.unique(t, return_inverse=True)
    renumber = np.full(len(out["vertices"]), -1)
    renumber[used] = np.arange(len(used))
    m = skfem.MeshTri(np.ascontiguousarray(out["vertices"][used].T), np.ascontiguousarray(t.reshape(-1, 3).T))
    segments = renumber[np.asarray(out["segments"])]
    markers = np.asarray(out["segment_markers"]).ravel()
    if np.any(segments < 0) or np.any(markers < 1):
        raise RuntimeError("Triangle returned a boundary segment without its input edge")
    nv = m.p.shape[1]
    facet_keys = np.sort(m.facets, axis=0)
    facet_keys = facet_keys[0].astype(np.int64) * nv + facet_keys[1]
    order = np.argsort(facet_keys)
    seg_keys = np.sort(segments, axis=1)
    seg_keys = seg_keys[:, 0] * nv + seg_keys[:, 1]
    pos = np.minimum(np.searchsorted(facet_keys[order], seg_keys), len(order) - 1)
    if not np.array_equal(facet_keys[order][pos], seg_keys):
        raise RuntimeError("a boundary segment of Triangle's output is not a facet of the mesh")
    facets = order[pos]
    boundary = m.boundary_facets()
    if len(facets) != len(boundary) or not np.array_equal(np.sort(facets), np.sort(boundary)):
        raise RuntimeError("Triangle's boundary segments and the mesh's boundary facets differ")
    names = np.array(owner)[markers - 1]
    tagged = {name: np.sort(facets[names == name]).astype(np.int32) for name in region.names}
    return m.with_boundaries(tagged), tagged


def _inside_point(loop: Loop) -> np.ndarray:
    """A point strictly inside a polygon: the centroid of the largest triangle of its own triangulation."""
    n = len(loop.vertices)
    out = _triangulate({"vertices": loop.vertices,
                        "segments": np.stack([np.arange(n), (np.arange(n) + 1) % n], axis=1)}, "p")
    p, t = out["vertices"], out["triangles"]
    return p[t[np.argmax(_areas(p, t))]].mean(axis=0)


def _check_simple(loops: tuple[Loop, ...]) -> None:
    """No two edges of the loops meet except neighbours at their shared corner; every hole inside the outer
    loop and outside the other holes."""
    a = np.concatenate([loop.vertices for loop in loops])
    b = np.concatenate([np.roll(loop.vertices, -1, axis=0) for loop in loops])
    ids = np.concatenate([np.full(len(loop.vertices), k) for k, loop in enumerate(loops)])
    local = np.concatenate([np.arange(len(loop.vertices)) for loop in loops])
    sizes = np.array([len(loop.vertices) for loop in loops])[ids]
    scale = max(np.ptp(a), 1e-300)

    def orient(p, q, r):
        return ((q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1])
                - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])) / scale**2

    A, B, C, E = a[:, None], b[:, None], a[None], b[None]
    d1, d2, d3, d4 = orient(A, B, C), orient(A, B, E), orient(C, E, A), orient(C, E, B)
    eps = 1e-12
    cross = (d1 * d2 <= eps**2) & (d3 * d4 <= eps**2) & ~((np.abs(d1) < eps) & (np.abs(d2) < eps)
                                                         & (np.abs(d3) < eps) & (np.abs(d4) < eps))
    # collinear pairs: overlapping when their projections overlap
    col = (np.abs(d1) < eps) & (np.abs(d2) < eps)
    u = b - a
    t0 = np.sum((a[None] - a[:, None]) * u[:, None], axis=-1) / np.sum(u * u, axis=-1)[:, None]
    t1 = np.sum((b[None] - a[:, None]) * u[:, None], axis=-1) / np.sum(u * u, axis=-1)[:, None]
    overlap = col & (np.maximum(t0, t1) > eps) & (np.minimum(t0, t1) < 1 - eps)
    same = ids[:, None] == ids[None]
    gap = np.abs(local[:, None] - local[None])
    neighbours = same & ((gap == 1) | (gap == sizes[:, None] - 1))
    bad = (cross & ~neighbours) | overlap
    np.fill_diagonal(bad, False)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"the region's edges cross or overlap: edge {local[i]} of loop {ids[i]} and edge "
                         f"{local[j]} of loop {ids[j]}")
    outer = loops[0].vertices
    for k, loop in enumerate(loops[1:], start=1):
        if not _inside(loop.vertices[0], outer):
            raise ValueError(f"hole loop {k} is not inside the outer loop")
        for j, other in enumerate(loops[1:], start=1):
            if j != k and _inside(loop.vertices[0], other.vertices):
                raise ValueError(f"hole loop {k} lies inside hole loop {j}")


def _inside(x: np.ndarray, v: np.ndarray) -> bool:
    """Ray casting: whether ``x`` is inside the polygon of corners ``v``."""
    return bool(encloses(v, x[None])[0])
