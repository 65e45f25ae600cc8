r"""Constructive solid geometry: the union, difference or intersection of other domains, in 2-D or 3-D.

``geometry: {type: csg, op: difference, parts: [{type: rectangle, ...}, {type: disk, name: hole, ...}]}``.
Each of ``parts`` is a geometry section of its own (rectangle, box, disk, polygon, mesh, another csg), named by
its ``name`` key (default ``a``, ``b``, ``c``, … in order). ``difference`` is the first part minus every other
one (the first minus the union of the rest).

**Inside** is the boolean combination of the parts' ``contains`` (:data:`OPS`); interior points are drawn by
rejection from the bounding box (the hull of the parts' boxes for a union, their overlap for an intersection,
the first's box for a difference), so quasi-random sequences stay quasi-random.

**Boundary.** Each piece of each part becomes the piece ``<part name>.<piece>``, and each of its parts the part
``<part name>.<part>`` (``plate.left``, ``hole.circle``): its points are the part's own, drawn by its own map,
keeping those on the result's boundary. A point ``p`` with outward normal ``n`` is kept where the result holds
``p - εn`` and not ``p + εn`` (``ε`` = 10⁻⁶ of the bounding box's diagonal): for a union, the part's points
outside every other part; for an intersection, inside every other part; for a difference, the first part's
points outside the others and the others' points inside the first, their normals turned round (table
:data:`OPS`: the combination and each part's normal sign). Where two parts' surfaces coincide with the same
normal (two boxes side by side with a common floor), the earlier part keeps the points; where they face each
other (the wall between them), the result holds both sides and neither keeps them. A piece that keeps nothing is
left out, and so is a part whose pieces all are; ``groups: {new: [old, ...]}`` regroups the rest (``parts``
names the sections here), and naming a part that is wholly off the boundary is an error saying so.
A piece's measure is the fraction of its points kept (4096 Sobol' points) times its own; its samples are drawn
by rejection (:func:`.sampling.draw`, which draws more until it has enough and gives up on a part almost all
removed).

**Distances** (what exact conditions build on, :mod:`sciml.solvers.pinn.exact`): a piece keeps its part's
distance (turned round with its normal) where that stays positive at the interior points of the result: a
rectangle minus a disk keeps its edges' lines and the circle. Where it does not (the line of a face that runs
on into the other box of a union, a circle cut by a union) the piece has none and exact conditions on it are
refused; composing distances by R-functions (Sukumar & Srivastava, CMAME 389, 2022) would give one there.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sciml.errors import Invalid

from .domain import Domain, Piece, regroup
from .sampling import unit_cube

PROBES = 4096  # Sobol' points per piece (and inside) that estimate what is kept
STEP = 1e-6  # the probe's step along the normal, relative to the bounding box's diagonal


def _deep(child: Domain, pts: np.ndarray, tol: float) -> np.ndarray:
    """Points inside ``child`` farther than ``tol`` from its boundary (what a difference removes)."""
    near = np.any([p.on(pts, tol) for p in child.pieces.values()], axis=0)
    return child.contains(pts, 0.0) & ~near


def _union(children, pts, tol):
    return np.any([c.contains(pts, tol) for c in children], axis=0)


def _intersection(children, pts, tol):
    return np.all([c.contains(pts, tol) for c in children], axis=0)


def _difference(children, pts, tol):
    first = children[0].contains(pts, tol)
    return first & ~np.any([_deep(c, pts, tol) for c in children[1:]], axis=0)


def _hull(children):
    return [(min(c.bounds[i][0] for c in children), max(c.bounds[i][1] for c in children))
            for i in range(children[0].dim)]


def _overlap(children):
    return [(max(c.bounds[i][0] for c in children), min(c.bounds[i][1] for c in children))
            for i in range(children[0].dim)]


@dataclass(frozen=True)
class Op:
    """A boolean operation: membership from the parts', each part's normal sign, the bounding box."""

    contains: Callable  # (children, points, tol) -> mask
    sign: Callable[[int], float]  # part index -> +1 (its normal is the result's) or -1 (turned round)
    bounds: Callable  # children -> [(lo, hi)] per coordinate
    least: int = 1  # parts it needs


OPS: dict[str, Op] = {
    "union": Op(_union, lambda i: 1.0, _hull),
    "intersection": Op(_intersection, lambda i: 1.0, _overlap),
    "difference": Op(_difference, lambda i: 1.0 if i == 0 else -1.0, lambda cs: list(cs[0].bounds), 2),
}


def _check(op: str, children: Sequence[tuple[str, Domain]]) -> None:
    """One-line errors: the operation, the number of parts, their dimensions and names."""
    if op not in OPS:
        raise Invalid("op", f"unknown operation {op!r}; one of {sorted(OPS)}")
    if len(children) < OPS[op].least:
        raise Invalid("parts", f"a {op} needs at least {OPS[op].least} parts, got {len(children)}")
    first = children[0][1].coords
    seen: dict[str, int] = {}
    for i, (name, child) in enumerate(children):
        if child.coords != first:
            raise Invalid(f"parts[{i}]", f"has coordinates {list(child.coords)}, parts[0] {list(first)}: every "
                                         "part of a csg has the same dimension")
        if name in seen:
            raise Invalid(f"parts[{i}].name", f"{name!r} names parts[{seen[name]}] already")
        if "." in name:
            raise Invalid(f"parts[{i}].name", f"{name!r}: a name without '.' (parts are named <name>.<part>)")
        seen[name] = i


class Csg(Domain):
    """The ``op`` (``union``, ``intersection``, ``difference``) of named domains ``children`` (module notes)."""

    def __init__(self, op: str, children: Sequence[tuple[str, Domain]], groups: Mapping | None = None):
        _check(op, children)
        self.op, self.rule = op, OPS[op]
        self.names = tuple(name for name, _ in children)
        self.children = tuple(child for _, child in children)
        self.coords = self.children[0].coords
        self.bounds = tuple((float(lo), float(hi)) for lo, hi in self.rule.bounds(self.children))
        inside = self.interior_map(unit_cube(PROBES, self.dim, np.random.default_rng(0), "sobol"))
        if not inside[2].any():
            raise Invalid("parts", f"the {op} of the parts is empty")
        self._eps = STEP * float(np.linalg.norm(self.upper - self.lower))
        self.pieces, default, gone = self._boundary(inside[0][inside[2]])
        for name, members in (groups or {}).items():
            for i, m in enumerate(members or ()):
                if m in gone:
                    raise Invalid(f"groups.{name}[{i}]", f"{m!r} is not on the boundary of the {op} (it lies wholly "
                                                         "inside or outside the other parts)")
        self.groups = regroup(list(self.pieces), default, groups, "groups")

    def contains(self, pts, tol=1e-12):
        return self.rule.contains(self.children, np.asarray(pts, float), tol)

    def interior_map(self, u):
        pts = self.lower + (self.upper - self.lower) * u
        return pts, None, self.contains(pts, 0.0)

    def _boundary(self, inside: np.ndarray):
        """``(pieces, default parts, parts left out)`` (module notes)."""
        pieces: dict[str, Piece] = {}
        default: dict[str, tuple[str, ...]] = {}
        gone: set[str] = set()
        for i, (name, child) in enumerate(zip(self.names, self.children)):
            for piece_name, piece in child.pieces.items():
                kept = self._piece(i, piece, inside)
                if kept is not None:
                    pieces[f"{name}.{piece_name}"] = kept
            for part, members in child.groups.items():
                own = tuple(f"{name}.{m}" for m in members if f"{name}.{m}" in pieces)
                if own:
                    default[f"{name}.{part}"] = own
                else:
                    gone.add(f"{name}.{part}")
        return pieces, default, gone

    def _kept(self, i: int, pts: np.ndarray, normals: np.ndarray) -> np.ndarray:
        """Which points of part ``i`` (normals already the result's) lie on the result's boundary, and on no
        earlier part's surface (module notes)."""
        behind = self.contains(pts - self._eps * normals, 0.0)
        ahead = self.contains(pts + self._eps * normals, 0.0)
        return behind & ~ahead & ~self._earlier(i, pts, self._eps)

    def _earlier(self, i: int, pts: np.ndarray, tol: float) -> np.ndarray:
        """Points on the surface of a part before part ``i``."""
        return np.any([p.on(pts, tol) for c in self.children[:i] for p in c.pieces.values()] or
                      [np.zeros(len(pts), bool)], axis=0)

    def _edge(self, pts: np.ndarray, tol: float) -> np.ndarray:
        """Points of the result within ``tol`` with a point outside it a short step along some axis."""
        step = max(self._eps, 2 * tol)
        out = np.zeros(len(pts), bool)
        for axis in range(self.dim):
            for s in (-step, step):
                moved = pts.copy()
                moved[:, axis] += s
                out |= ~self.contains(moved, 0.0)
        return out & self.contains(pts, tol)

    def _piece(self, i: int, piece: Piece, inside: np.ndarray) -> Piece | None:
        """Part ``i``'s ``piece`` cut to the result's boundary, or None where none of it is."""
        sign = self.rule.sign(i)

        def point_map(u):
            pts, normals, valid = piece.map(u)
            normals = sign * normals
            return pts, normals, valid & self._kept(i, pts, normals)

        fraction = float(np.mean(point_map(unit_cube(PROBES, piece.k, np.random.default_rng(1), "sobol"))[2]))
        if fraction == 0.0:
            return None

        def on(pts, tol):
            pts = np.asarray(pts, float)
            return piece.on(pts, tol) & self._edge(pts, tol) & ~self._earlier(i, pts, tol)

        return Piece(piece.k, fraction * piece.measure, point_map, on, distance=self._distance(piece, sign, inside),
                     drawn=piece.measure)

    def _distance(self, piece: Piece, sign: float, inside: np.ndarray) -> Callable | None:
        """The piece's distance, turned round with its normal where the part's is unsigned, if it is positive
        at the interior points ``inside`` (module notes); else None."""
        if piece.distance is None:
            return None
        d = piece.distance
        for candidate in ((lambda x: -d(x)) if sign < 0 else d, d):
            if np.all(np.asarray(candidate(inside)) > 0):
                return candidate
        return None
