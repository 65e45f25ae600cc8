"""The geometry interface every domain implements, built from boundary *pieces* grouped into named *parts*.

A domain answers:

- ``coords`` (e.g. ``("x", "y")`` or ``("x", "y", "z", "t")``), ``bounds`` (its bounding box per coordinate);
  ``time`` (a space-time domain's interval, else None) and ``space`` (its spatial domain, else itself);
- ``interior(n, rng, method)``: ``n`` points inside; ``near(part, n, distance, rng, method)``: inside, near a part;
  ``box(lower, upper, n, rng, method)``: inside, within a box of space;
- ``parts`` and ``boundary(part, n, rng, method)``: ``(points, outward unit normals)`` on a named part;
- ``contains(points)``, ``on_part(part, points)``: membership tests (for tests and masks);
- ``evaluation_points(grid)``: a tensor grid over the bounding box with a mask of the points inside (a
  high-dimensional domain: scattered held-out points, :attr:`EvalPoints.gridded` False);
- ``periodic_offset(a, b)``: the translation taking part ``a`` onto part ``b`` (periodic pairs);
- ``sphere(part)``: the centre and radius of a part that is one hole's circle or sphere;
- ``distances(part)``: each piece's distance function (to its plane or sphere, positive inside);
- ``corners()``: a plane domain's corners, each with the parts and outward normals of its two edges and its
  interior angle (None where the domain does not know them).

A *piece* is a primitive surface (an edge, a face, a circle): a map from ``[0, 1]^k`` onto it, its measure,
and a membership test. A *part* is a named group of pieces; a case file may regroup and rename pieces
(``lid: [top]``, ``walls: [left, right, bottom]``). Points on a part are spread over its pieces in proportion
to their measure, by splitting the first sample coordinate, so quasi-random sequences stay balanced.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sciml.config import suggest
from sciml.equations.domain import Corner
from sciml.errors import Invalid

from .sampling import Keep, Method, draw, kept, split, unit_cube


@dataclass(frozen=True)
class Piece:
    """A primitive boundary piece: ``map(u (m, k)) -> (points, normals, valid)``, its measure and test."""

    k: int
    measure: float
    map: Callable
    on: Callable  # (points, tol) -> bool mask
    face: tuple[int, int] | None = None  # (axis, side 0/1) for a face of the bounding box
    sphere: tuple[tuple[float, ...], float] | None = None  # (centre, radius) for a hole's circle or sphere
    # (points (..., dim)) -> distance to the piece's plane or sphere, positive on the domain's side (jnp)
    distance: Callable | None = None
    # the measure the map covers before its own rejection (a csg piece: its child's whole piece); None: measure
    drawn: float | None = None

    @property
    def weight(self) -> float:
        """The share of a part's samples the piece's map takes: what it covers before rejecting points."""
        return self.measure if self.drawn is None else self.drawn


@dataclass(frozen=True)
class EvalPoints:
    """A tensor grid over a domain's bounding box: ``points`` (N, D) in C order of ``shape``."""

    points: np.ndarray
    shape: tuple[int, ...]
    axes: tuple[np.ndarray, ...]
    mask: np.ndarray  # (N,) True where the point lies in the domain
    coords: tuple[str, ...]

    def grids(self) -> tuple[np.ndarray, ...]:
        return tuple(self.points[:, i].reshape(self.shape) for i in range(len(self.shape)))

    @property
    def gridded(self) -> bool:
        """True for a tensor grid (one axis per coordinate); False for scattered points (``shape == (N,)``, no
        ``axes``: a high-dimensional domain's held-out points), which have no planes to plot or write."""
        return len(self.axes) == len(self.coords)


def regroup(pieces: Sequence[str], default: Mapping[str, tuple[str, ...]],
            custom: Mapping[str, Sequence[str]] | None, key: str = "parts") -> dict[str, tuple[str, ...]]:
    """Named parts: ``default`` groups of pieces, with ``custom`` groups of default part names merged in."""
    groups = dict(default)
    used: dict[str, str] = {}
    out: dict[str, tuple[str, ...]] = {}
    for name, members in (custom or {}).items():
        if not members:
            raise Invalid(f"{key}.{name}", "needs at least one part")
        collected: list[str] = []
        for i, m in enumerate(members):
            if m not in groups:
                raise Invalid(f"{key}.{name}[{i}]", f"unknown part {m!r}{suggest(m, groups)}; parts are {list(groups)}")
            if m in used:
                raise Invalid(f"{key}.{name}[{i}]", f"part {m!r} is already in {used[m]!r}")
            used[m] = name
            collected.extend(groups[m])
        out[name] = tuple(collected)
    for name, members in groups.items():
        if name not in used:
            if name in out:
                raise Invalid(f"{key}.{name}", f"name {name!r} is taken by an existing part; pick another")
            out[name] = members
    return out


class Domain:
    """Base class: pieces and named parts; subclasses give ``interior_map``, ``contains`` and ``bounds``."""

    coords: tuple[str, ...] = ()
    bounds: tuple[tuple[float, float], ...] = ()
    pieces: dict[str, Piece]
    groups: dict[str, tuple[str, ...]]

    @property
    def dim(self) -> int:
        return len(self.coords)

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.groups)

    @property
    def lower(self) -> np.ndarray:
        return np.array([b[0] for b in self.bounds])

    @property
    def upper(self) -> np.ndarray:
        return np.array([b[1] for b in self.bounds])

    @property
    def time(self) -> tuple[float, float] | None:
        """The time interval, for space-time domains."""
        return None

    @property
    def space(self) -> Domain:
        """The spatial domain: this one, or a space-time domain's space."""
        return self

    # --- to implement ---------------------------------------------------------------------------
    def interior_map(self, u: np.ndarray):
        """``u (m, dim) in [0, 1]^dim -> (points, None, valid)``."""
        raise NotImplementedError

    def contains(self, pts: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        raise NotImplementedError

    # --- sampling -------------------------------------------------------------------------------
    def interior(self, n: int, rng: np.random.Generator, method: Method = "uniform",
                 keep: Keep | None = None) -> np.ndarray:
        """``n`` points inside (``keep``: a filter of the map, e.g. :func:`.sampling.avoiding`)."""
        return draw(kept(self.interior_map, keep), self.dim, n, rng, method)[0]

    def _check_part(self, part: str) -> tuple[Piece, ...]:
        if part not in self.groups:
            raise KeyError(f"unknown boundary part {part!r}; parts are {list(self.parts)}")
        return tuple(self.pieces[p] for p in self.groups[part])

    def pieces_of(self, part: str) -> tuple[Piece, ...]:
        """The pieces of ``part``."""
        return self._check_part(part)

    def part_map(self, part: str) -> tuple[Callable, int]:
        """``(map, k)``: one map from ``[0, 1]^k`` onto all pieces of ``part`` (measure-weighted)."""
        pieces = self._check_part(part)
        if len({p.k for p in pieces}) != 1:
            raise ValueError(f"part {part!r} groups pieces of different dimensions")
        if len(pieces) == 1:
            return pieces[0].map, pieces[0].k
        weights = [p.weight for p in pieces]

        def mapped(u):
            which, rescaled = split(u, weights)
            pts, nrm = np.empty((len(u), self.dim)), np.empty((len(u), self.dim))
            valid = np.zeros(len(u), bool)
            for j, piece in enumerate(pieces):
                sel = which == j
                if sel.any():
                    pts[sel], nrm[sel], valid[sel] = piece.map(rescaled[sel])
            return pts, nrm, valid

        return mapped, pieces[0].k

    def boundary(self, part: str, n: int, rng: np.random.Generator, method: Method = "uniform",
                 keep: Keep | None = None):
        """``(points, outward unit normals)`` on ``part``, both ``(n, dim)``."""
        point_map, k = self.part_map(part)
        return draw(kept(point_map, keep), k, n, rng, method)

    def near(self, part: str, n: int, distance: float, rng: np.random.Generator, method: Method = "uniform",
             keep: Keep | None = None):
        """``n`` points inside within ``distance`` of ``part``: points of the part moved inwards along the
        normal by a distance uniform in ``[0, distance]`` (those that leave the domain are redrawn)."""
        point_map, k = self.part_map(part)

        def moved(u):
            pts, normals, valid = point_map(u[:, :k])
            pts = pts - distance * u[:, k:] * normals
            return pts, None, valid & self.contains(pts, 0.0)

        return draw(kept(moved, keep), k + 1, n, rng, method)[0]

    def box_map(self, lower, upper):
        """``u (m, dim) -> (points, None, valid)``: the box ``[lower, upper]`` of the first ``len(lower)``
        coordinates, the others (an unsteady domain's time) over the domain's bounds; valid: inside the domain."""
        rest = self.bounds[len(lower):]
        lo = np.array([*lower, *(b[0] for b in rest)], float)
        hi = np.array([*upper, *(b[1] for b in rest)], float)

        def mapped(u):
            pts = lo + (hi - lo) * u
            return pts, None, self.contains(pts, 0.0)

        return mapped

    def in_box(self, lower, upper, m: int) -> np.ndarray:
        """Which of ``m`` evenly spread points of the box (:meth:`box_map`) lie inside the domain."""
        return self.box_map(lower, upper)(unit_cube(m, self.dim, np.random.default_rng(0), "sobol"))[2]

    def box(self, lower, upper, n: int, rng: np.random.Generator, method: Method = "uniform",
            keep: Keep | None = None) -> np.ndarray:
        """``n`` points inside the domain and the box ``[lower, upper]`` (:meth:`box_map`)."""
        return draw(kept(self.box_map(lower, upper), keep), self.dim, n, rng, method)[0]

    def on_part(self, part: str, pts: np.ndarray, tol: float = 1e-9) -> np.ndarray:
        pieces = self._check_part(part)
        return np.any([p.on(pts, tol) for p in pieces], axis=0)

    def measure(self, part: str) -> float:
        return float(sum(p.measure for p in self._check_part(part)))

    def distances(self, part: str) -> tuple[Callable, ...]:
        """The distance functions of the pieces of ``part`` (:class:`Piece`), JAX-traceable."""
        pieces = self._check_part(part)
        if any(p.distance is None for p in pieces):
            raise ValueError(f"part {part!r} has a piece without a distance function")
        return tuple(p.distance for p in pieces)  # type: ignore[misc]  # checked above

    def sphere(self, part: str) -> tuple[tuple[float, ...], float] | None:
        """``(centre, radius)`` when ``part`` is the surface of one hole (in space), else None."""
        pieces = self._check_part(part)
        return pieces[0].sphere if len(pieces) == 1 else None

    def corners(self) -> list[Corner] | None:
        """The corners of a plane domain's boundary (:class:`~sciml.equations.domain.Corner`); None here: a domain
        that knows them says so (a rectangle, a polygon)."""
        return None

    def part_of(self, piece: str) -> str:
        """The first part that groups ``piece``."""
        return next(part for part, members in self.groups.items() if piece in members)

    # --- evaluation -----------------------------------------------------------------------------
    def default_grid(self) -> list[int]:
        return [101, 101] if self.dim == 2 else [31] * self.dim

    def evaluation_points(self, grid: Sequence[int] | None = None) -> EvalPoints:
        """A tensor grid including the bounding box's faces, ``indexing='ij'``, with the inside mask."""
        grid = list(grid or self.default_grid())
        if len(grid) != self.dim:
            raise ValueError(f"an evaluation grid for coordinates {list(self.coords)} needs {self.dim} sizes")
        axes = tuple(np.linspace(lo, hi, n) for (lo, hi), n in zip(self.bounds, grid))
        mesh = np.meshgrid(*axes, indexing="ij")
        pts = np.stack([m.ravel() for m in mesh], -1)
        return EvalPoints(pts, tuple(mesh[0].shape), axes, self.contains(pts, 1e-9), self.coords)

    # --- periodic pairs -------------------------------------------------------------------------
    def periodic_offset(self, a: str, b: str) -> np.ndarray:
        """The translation taking part ``a`` onto part ``b``; both must be opposite faces of the box."""
        pa, pb = self._check_part(a), self._check_part(b)
        if len(pa) != 1 or len(pb) != 1 or pa[0].face is None or pb[0].face is None:
            raise ValueError(f"periodic parts must be single faces of the bounding box, got {a!r} and {b!r}")
        (axa, sa), (axb, sb) = pa[0].face, pb[0].face
        if axa != axb or sa == sb:
            raise ValueError(f"parts {a!r} and {b!r} are not opposite faces")
        off = np.zeros(self.dim)
        off[axa] = self.bounds[axa][sb] - self.bounds[axa][sa]
        return off
