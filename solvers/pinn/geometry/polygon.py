r"""Polygons: any simple polygon minus polygonal or circular holes, its edges named by their index.

The outer loop's edge :math:`i` runs from vertex :math:`i` to vertex :math:`i + 1` (the last back to the first) and
is the piece ``edge<i>``; by default each edge is a part of its own, ``names`` gives each edge the part it
belongs to (``[clamped, clamped, free, ...]``), and the case file's ``parts`` regroups them as for any domain. A
hole is one part (its ``name``, ``hole`` by default) made of its edges or its circle; the normal on a hole points
into it (out of the domain). The loops may run either way round: normals follow from each loop's orientation.
Points inside are drawn by rejection from the bounding box (quasi-random sequences stay quasi-random), points on
an edge by the edge's linear map.

**Distance to an edge** (what exact conditions build on, :mod:`sciml.solvers.pinn.exact`): the trimmed
approximate distance function of a segment (Sukumar & Srivastava, CMAME 389, 2022, eq. (20)), with :math:`f` the
signed distance to the edge's line (positive into the domain), :math:`L` the edge's length, :math:`x_c` its middle,

.. math:: t = \frac{(L/2)^2 - |x - x_c|^2}{L}, \qquad \varphi = \sqrt{t^2 + f^4}, \qquad
          d = \sqrt{f^2 + \Bigl(\frac{\varphi - t}{2}\Bigr)^2}.

:math:`d` is 0 on the edge and positive off it, also where the edge's line crosses the domain (a re-entrant
corner), and :math:`\partial d/\partial n = 1` on the edge. Written as it stands, its derivatives on the edge are
:math:`0/0` (the square root of 0); since :math:`(\varphi - t)/2 = f^4 / (2(\varphi + t))`, on the side of the edge's
disc (:math:`t > 0`) the same function is :math:`d = \sigma f \sqrt{1 + r^2}`, :math:`r = f^3 / (2(\varphi + t))`,
:math:`\sigma = \pm 1` the side of the line (+1 on the edge itself), which is smooth up to the edge from inside. The
two forms are one function where both hold; each is used where it is finite (``jnp.where`` with safe arguments,
so no NaN reaches a derivative), and :math:`d` is smooth in the closed domain but at the edge's two ends. The line
is trimmed only where it meets the domain beyond the edge (:meth:`Polygon._trims`): beyond one end, :math:`t` is
the coordinate along the edge from that end (the ray; smooth at the other end); beyond neither, :math:`d = f`.
"""
from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np

from sciml.equations.domain import Corner
from sciml.errors import Invalid
from sciml.polygons import encloses, signed_area

from .domain import Piece
from .shapes import Ball, Shape


def _cross(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _crossing(p, q, r, s) -> np.ndarray:
    """Whether segments ``p q`` and ``r s`` (arrays ``(..., 2)``, broadcast) meet, touching included."""
    d1, d2 = _cross(q - p, r - p), _cross(q - p, s - p)
    d3, d4 = _cross(s - r, p - r), _cross(s - r, q - r)
    proper = (d1 * d2 < 0) & (d3 * d4 < 0)

    def on(a, b, c, d):  # c on segment a b, given cross product d == 0
        inside = (np.minimum(a, b) <= c) & (c <= np.maximum(a, b))
        return (d == 0) & inside[..., 0] & inside[..., 1]

    return proper | on(p, q, r, d1) | on(p, q, s, d2) | on(r, s, p, d3) | on(r, s, q, d4)


def check_loop(vertices, key: str) -> np.ndarray:
    """The vertices ``(n, 2)`` of a simple closed loop, or :class:`Invalid` at ``key`` saying what is wrong: fewer
    than 3 vertices, a repeated vertex, or two edges that meet other than at a shared corner."""
    v = np.asarray(vertices, float)
    if v.ndim != 2 or v.shape[1] != 2:
        raise Invalid(key, f"expected a list of [x, y] vertices, got shape {list(v.shape)}")
    if len(v) > 2 and np.array_equal(v[0], v[-1]):
        raise Invalid(key, "the loop closes itself: leave out the last vertex, which repeats the first")
    if len(v) < 3:
        raise Invalid(key, f"a polygon needs at least 3 vertices, got {len(v)}")
    if not np.all(np.isfinite(v)):
        raise Invalid(key, "vertices must be finite numbers")
    n = len(v)
    same = np.all(v[:, None] == v[None], axis=-1) & ~np.eye(n, dtype=bool)
    if same.any():
        i, j = np.argwhere(same)[0]
        raise Invalid(key, f"vertices {i} and {j} are the same point {v[i].tolist()}")
    a, b = v, np.roll(v, -1, axis=0)
    # collinear adjacent edges that fold back onto each other (before the general test, which says less)
    turn = _cross(b - a, np.roll(b - a, -1, axis=0))
    back = (turn == 0) & (np.sum((b - a) * np.roll(b - a, -1, axis=0), axis=-1) < 0)
    if back.any():
        i = int(np.argmax(back))
        raise Invalid(key, f"edges {i} and {(i + 1) % n} fold back onto each other at {b[i].tolist()}")
    meet = _crossing(a[:, None], b[:, None], a[None], b[None])
    idx = np.arange(n)
    gap = (idx[:, None] - idx[None]) % n
    meet &= (gap > 1) & (gap < n - 1)  # adjacent edges share a corner; an edge meets itself
    if meet.any():
        i, j = sorted(np.argwhere(meet)[0])
        raise Invalid(key, f"the polygon intersects itself: edge {i} ({v[i].tolist()} to {b[i].tolist()}) meets "
                           f"edge {j} ({v[j].tolist()} to {b[j].tolist()})")
    return v


def segment_distance(start, end, normal, trim: tuple[bool, bool] = (True, True)):
    """``points (..., 2) -> d``: the edge's approximate distance (module notes), JAX-traceable; ``start``, ``end``
    its corners, ``normal`` the unit normal into the domain (the side where ``f > 0``). ``trim``: whether the
    edge's line must be cut off beyond its start and its end (where it enters the domain or runs along its
    boundary): both, the edge's disc; one, the ray from that end through the edge; neither, the line itself."""
    a, b, inward = (tuple(float(c) for c in np.asarray(p, float)) for p in (start, end, normal))
    length = float(np.hypot(b[0] - a[0], b[1] - a[1]))
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    e = ((b[0] - a[0]) / length, (b[1] - a[1]) / length)

    def trimming(x, y):
        if trim == (True, True):
            return ((length / 2) ** 2 - (x - mid[0]) ** 2 - (y - mid[1]) ** 2) / length
        if trim[0]:
            return (x - a[0]) * e[0] + (y - a[1]) * e[1]
        return (b[0] - x) * e[0] + (b[1] - y) * e[1]

    def d(pts):
        x, y = pts[..., 0], pts[..., 1]
        f = (x - a[0]) * inward[0] + (y - a[1]) * inward[1]
        if not any(trim):
            return f
        t = trimming(x, y)
        s2 = t * t + f**4
        phi = jnp.sqrt(jnp.where(s2 > 0, s2, 1.0))
        phi = jnp.where(s2 > 0, phi, 0.0)
        disc = t > 0  # the edge's side: d = sigma f sqrt(1 + r^2)
        r = f**3 / (2 * jnp.where(disc, phi + t, 1.0))
        near = jnp.where(f >= 0, 1.0, -1.0) * f * jnp.sqrt(1.0 + r * r)
        q = (phi - t) / 2
        far2 = f * f + q * q
        far = jnp.sqrt(jnp.where(disc | (far2 <= 0), 1.0, far2))
        return jnp.where(disc, near, jnp.where(far2 > 0, far, 0.0))

    return d


class Outline:
    """A closed loop of straight edges: an outer boundary (``hole=False``) or a hole's."""

    def __init__(self, vertices, key: str = "vertices", hole: bool = False):
        self.vertices, self.dim = check_loop(vertices, key), 2
        ccw = signed_area(self.vertices) > 0
        self._a, self._b = self.vertices, np.roll(self.vertices, -1, axis=0)
        e = self._b - self._a
        self.lengths = np.hypot(e[:, 0], e[:, 1])
        left = np.stack([-e[:, 1], e[:, 0]], -1) / self.lengths[:, None]  # into a counter-clockwise loop
        into_loop = left if ccw else -left
        self.inward = -into_loop if hole else into_loop  # into the domain
        self.lower, self.upper = self.vertices.min(0), self.vertices.max(0)

    def encloses(self, pts: np.ndarray) -> np.ndarray:
        """Whether points lie inside the loop (even-odd rule; points on an edge are either)."""
        return encloses(self.vertices, pts)

    def edge_distance(self, pts: np.ndarray) -> np.ndarray:
        """The distance of points ``(N, 2)`` to the nearest edge."""
        e = self._b - self._a
        rel = pts[:, None] - self._a[None]
        s = np.clip(np.sum(rel * e, -1) / self.lengths**2, 0.0, 1.0)
        return np.min(np.linalg.norm(rel - s[..., None] * e, axis=-1), axis=1)

    def inside(self, pts, tol=0.0) -> np.ndarray:
        """A hole's own points: strictly inside the loop, farther than ``tol`` from its edges."""
        pts = np.asarray(pts)
        return self.encloses(pts) & (self.edge_distance(pts) > tol)

    def contains(self, pts, tol: float) -> np.ndarray:
        """The loop's region with its edges, within ``tol``."""
        return self.encloses(pts) | (self.edge_distance(pts) <= tol)

    def edge(self, i: int, trim: tuple[bool, bool] = (True, True)) -> Piece:
        a, b, normal = self._a[i], self._b[i], -self.inward[i]

        def point_map(u):
            pts = a + u[:, :1] * (b - a)
            return pts, np.broadcast_to(normal, pts.shape).copy(), np.ones(len(u), bool)

        def on(pts, tol):
            rel, e = pts - a, b - a
            s = np.clip(rel @ e / (e @ e), 0.0, 1.0)
            return np.linalg.norm(rel - s[:, None] * e, axis=-1) <= tol

        return Piece(1, float(self.lengths[i]), point_map, on,
                     distance=segment_distance(a, b, self.inward[i], trim))

    def pieces(self, prefix: str) -> dict[str, Piece]:
        """A hole's edges as pieces ``<prefix>.<i>``."""
        return {f"{prefix}.{i}": self.edge(i) for i in range(len(self.vertices))}

    def segments(self) -> tuple[np.ndarray, np.ndarray]:
        return self._a, self._b


def _apart(first, second) -> bool:
    """Whether two loops or circles (:class:`Outline`, :class:`.shapes.Ball`) neither cross nor hold one another."""
    if isinstance(first, Ball) and isinstance(second, Ball):
        return bool(np.linalg.norm(first.center - second.center) > first.radius + second.radius)
    if isinstance(first, Ball):
        first, second = second, first
    if isinstance(second, Ball):
        c = second.center[None]
        return bool(first.edge_distance(c)[0] > second.radius and not first.encloses(c)[0]
                    and not second.inside(first.vertices).any())
    (p, q), (r, s) = first.segments(), second.segments()
    if _crossing(p[:, None], q[:, None], r[None], s[None]).any():
        return False
    return not first.encloses(second.vertices[:1])[0] and not second.encloses(first.vertices[:1])[0]


def _within(outer: Outline, hole) -> bool:
    """Whether a hole lies strictly inside the outer loop, touching none of its edges."""
    if isinstance(hole, Ball):
        c = hole.center[None]
        return bool(outer.encloses(c)[0] and outer.edge_distance(c)[0] > hole.radius)
    (p, q), (r, s) = outer.segments(), hole.segments()
    return bool(outer.encloses(hole.vertices).all() and not _crossing(p[:, None], q[:, None], r[None], s[None]).any())


class Polygon(Shape):
    """A simple polygon (``vertices``, either orientation) minus ``holes``: circles ``(centre, radius, name)`` and
    polygons ``(vertices, name)`` (module notes for the parts)."""

    def __init__(self, vertices: Sequence[Sequence[float]], holes=(), names: Sequence[str] | None = None,
                 parts=None):
        self.outline = Outline(vertices)
        n = len(self.outline.vertices)
        if names is not None and len(names) != n:
            raise Invalid("names", f"{len(names)} names for the polygon's {n} edges: give one name per edge")
        outer = {f"edge{i}": self.outline.edge(i) for i in range(n)}
        lo, hi = self.outline.lower, self.outline.upper
        loops = [((h[0], h[1], h[2]) if len(h) == 3 else (Outline(h[0], f"holes[{i}].vertices", hole=True), h[1]))
                 for i, h in enumerate(holes)]
        self._setup(("x", "y"), [(float(a), float(b)) for a, b in zip(lo, hi)], outer, loops, parts, names)
        for i, h in enumerate(self.holes):
            if not _within(self.outline, h):
                raise Invalid(f"holes[{i}]", "must lie strictly inside the polygon")
            for j, other in enumerate(self.holes[:i]):
                if not _apart(h, other):
                    raise Invalid(f"holes[{i}]", f"overlaps hole {j}")
        loops_of = [(self.outline, tuple(f"edge{i}" for i in range(n)))]
        loops_of += [(h, own) for h, own in zip(self.holes, self.hole_pieces) if isinstance(h, Outline)]
        for loop, names_ in loops_of:  # each edge's distance trimmed only where its line meets the domain
            for i, (name, trim) in enumerate(zip(names_, self._trims(loop))):
                self.pieces[name] = loop.edge(i, trim)

    def _trims(self, loop: Outline) -> list[tuple[bool, bool]]:
        """For each edge of ``loop``, whether its line meets the domain (its boundary included) beyond the edge's
        start and beyond its end: on 400 points out to twice the domain's size on each side. The rays are judged
        together, their nearest points first, and a ray that met the domain is not looked at further (where the
        domain lies around a profile's edge, its first point already meets it)."""
        (a, b), span = loop.segments(), float(np.max(self.upper - self.lower))
        e = (b - a) / np.linalg.norm(b - a, axis=1)[:, None]
        ends, away = np.concatenate([a, b]), np.concatenate([-e, e])  # ray k: from ends[k] along away[k]
        out = span * np.geomspace(1e-9, 2.0, 400)[:, None]
        met = np.zeros(len(ends), bool)
        for block in (slice(0, 4), slice(4, 40), slice(40, None)):
            todo = np.flatnonzero(~met)
            if not len(todo):
                break
            pts = ends[todo, None] + out[None, block] * away[todo, None]  # (rays, points, 2)
            met[todo] = self.contains(pts.reshape(-1, 2), 1e-12).reshape(len(todo), -1).any(-1)
        return list(zip(met[:len(a)].tolist(), met[len(a):].tolist()))

    def _outer_map(self, u):
        pts = self.lower + (self.upper - self.lower) * u
        return pts, self.outline.encloses(pts)

    def _outer_contains(self, pts, tol):
        return self.outline.contains(pts, tol)

    def corners(self) -> list[Corner]:
        """Every corner of the outer loop and of the polygonal holes (circles have none), each loop run with the
        domain on its left (module notes for the edges' pieces)."""
        out = []
        loops = [(self.outline, [f"edge{i}" for i in range(len(self.outline.vertices))], False)]
        loops += [(h, list(own), True) for h, own in zip(self.holes, self.hole_pieces) if isinstance(h, Outline)]
        for loop, pieces, hole in loops:
            v, parts = loop.vertices, [self.part_of(p) for p in pieces]
            if (signed_area(v) > 0) == hole:  # the domain on the left: outer counter-clockwise, holes clockwise
                back = parts[::-1]
                v, parts = v[::-1], back[1:] + back[:1]  # reversed edge i is the old edge n - 2 - i
            e = np.roll(v, -1, axis=0) - v  # edge i: v[i] -> v[i + 1], its part parts[i]
            right = np.stack([e[:, 1], -e[:, 0]], -1) / np.linalg.norm(e, axis=1)[:, None]  # outward
            for i in range(len(v)):
                a, b = e[i - 1], e[i]
                turn = float(np.arctan2(_cross(a, b), a @ b))
                out.append(Corner(v[i].copy(), parts[i - 1], right[i - 1], parts[i], right[i], np.pi - turn))
        return out

    def area(self) -> float:
        """The outer loop's area less the holes'."""
        holes = sum(np.pi * h.radius**2 if isinstance(h, Ball) else abs(signed_area(h.vertices)) for h in self.holes)
        return float(abs(signed_area(self.outline.vertices)) - holes)

    def loops(self) -> list:
        """The boundary as loops ``(vertices, the part of each edge)``, outer first; a circle as ``(centre,
        radius, part)``: what a mesher of the same domain needs (:mod:`sciml.solvers.classical.fem`)."""
        part_of = {piece: part for part, members in self.groups.items() for piece in members}
        out: list = [(self.outline.vertices, tuple(part_of[f"edge{i}"] for i in range(len(self.outline.vertices))))]
        for h, own in zip(self.holes, self.hole_pieces):
            if isinstance(h, Ball):
                out.append((tuple(h.center), h.radius, part_of[own[0]]))
            else:
                out.append((h.vertices, tuple(part_of[p] for p in own)))
        return out
