"""Plane polygons as arrays of their corners ``(n, 2)`` in order (the last not repeated): the shoelace area and
the even-odd test of points, shared by the PINN's polygon domains (``sciml.solvers.pinn.geometry.polygon``) and
the finite-element meshes of the same shapes (``sciml.solvers.classical.fem.mesh``)."""
from __future__ import annotations

import numpy as np


def signed_area(vertices: np.ndarray) -> float:
    """The shoelace area: positive when the corners run counter-clockwise."""
    x, y = vertices[:, 0], vertices[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def encloses(vertices: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """``(N,)``: whether each of ``pts (N, 2)`` lies inside the polygon (even-odd rule, a ray along +x; points on
    an edge may fall either way)."""
    a, b = vertices, np.roll(vertices, -1, axis=0)
    x, y = pts[:, 0:1], pts[:, 1:2]
    spans = (a[None, :, 1] > y) != (b[None, :, 1] > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        at = a[None, :, 0] + (y - a[None, :, 1]) * (b[None, :, 0] - a[None, :, 0]) / (b[None, :, 1] - a[None, :, 1])
    return (np.sum(spans & (x < at), axis=1) % 2) == 1
