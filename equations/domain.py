"""What an equation may ask of the domain it is posed on: the :class:`Domain` protocol.

An equation is built by ``cls(config, domain)`` and reads its domain through these members only (its
coordinates, bounding box, named boundary parts and the pieces they group, a space-time domain's interval and
space, membership, points on a part, a part's measure, a hole's circle, periodic translations, a plane domain's
corners). The PINN's geometry (``sciml.solvers.pinn.geometry``) implements it; any object that does can carry an
equation, so ``equations/`` imports nothing of a solver. ``tests/equations/test_domain.py`` checks that the
equations ask for nothing else and that every PINN geometry answers all of it.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np


class Corner(NamedTuple):
    """A corner of a plane domain's boundary: its ``point`` ``(2,)``, the part and outward unit normal ``(2,)`` of
    the edge that runs into it and of the edge that runs out of it (the boundary run with the domain on the left:
    the outer loop counter-clockwise, a hole's clockwise), and the interior ``angle`` on the domain's side in
    radians (above pi: a re-entrant corner, as every corner of a polygonal hole)."""

    point: np.ndarray
    before: str
    normal_before: np.ndarray
    after: str
    normal_after: np.ndarray
    angle: float


@runtime_checkable
class Domain(Protocol):
    """A domain as equations see it (module notes)."""

    @property
    def coords(self) -> tuple[str, ...]:
        """Names of the coordinates, in the order of the points' columns (``("x", "y", "t")``)."""

    @property
    def bounds(self) -> tuple[tuple[float, float], ...]:
        """The bounding box, ``(low, high)`` per coordinate."""

    @property
    def parts(self) -> tuple[str, ...]:
        """Names of the boundary parts (what conditions are set on)."""

    @property
    def groups(self) -> Mapping[str, tuple[str, ...]]:
        """Each part's pieces by name (``{"lid": ("top",), "walls": ("left", "right", "bottom")}``)."""

    @property
    def pieces(self) -> Mapping[str, Any]:
        """The primitive boundary pieces by name (an edge, a face, a hole's circle)."""

    @property
    def time(self) -> tuple[float, float] | None:
        """A space-time domain's interval, else None."""

    @property
    def space(self) -> Domain:
        """The spatial domain: a space-time domain's space, else the domain itself."""

    def contains(self, pts: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        """``(N,)`` True where points ``(N, D)`` lie in the domain (within ``tol``)."""

    def boundary(self, part: str, n: int, rng: np.random.Generator, method: Any = "uniform",
                 keep: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """``(points, outward unit normals)``, both ``(n, D)``, on ``part``."""

    def measure(self, part: str) -> float:
        """The length (area) of ``part``."""

    def sphere(self, part: str) -> tuple[tuple[float, ...], float] | None:
        """``(centre, radius)`` when ``part`` is one hole's circle or sphere, else None."""

    def periodic_offset(self, a: str, b: str) -> np.ndarray:
        """The translation taking part ``a`` onto part ``b``."""

    def corners(self) -> list[Corner] | None:
        """The corners of a plane domain's boundary (:class:`Corner`), of a rectangle or polygon (their holes'
        circles have none); None where the domain does not give them (a disk, 3-D, space-time, CSG)."""
