r"""NACA four-digit profiles as polygons: a hole of a :class:`~.polygon.Polygon` (an airfoil in a channel).

Digits ``MPTT``: the largest camber :math:`m = M/100` at :math:`p = P/10` of the chord, the largest thickness
:math:`t = TT/100`. In chord units :math:`\xi \in [0, 1]` the half-thickness is (Abbott & von Doenhoff, *Theory of
Wing Sections*, 1959, §6.4, with the closed trailing edge's last coefficient :math:`-0.1036` in place of
:math:`-0.1015`, so that :math:`y_t(1) = 0`)

.. math:: y_t = 5t\,(0.2969\sqrt\xi - 0.1260\,\xi - 0.3516\,\xi^2 + 0.2843\,\xi^3 - 0.1036\,\xi^4),

the camber line :math:`y_c = \frac{m}{p^2}(2p\xi - \xi^2)` for :math:`\xi < p` and
:math:`\frac{m}{(1-p)^2}(1 - 2p + 2p\xi - \xi^2)` beyond, and the surfaces lie at :math:`\pm y_t` normal to it.
The stations are spaced by the cosine rule :math:`\xi_k = (1 - \cos(\pi k/n))/2`, :math:`k = 0..n` (fine at both
ends, where the curvature is), so the polygon has :math:`2n` corners: the trailing edge, the upper surface to the
leading edge, the lower surface back. The profile is scaled by the chord, turned nose up by the angle of attack
:math:`\alpha` about its leading edge (clockwise, so a flow along :math:`+x` meets it at :math:`\alpha`), and its
leading edge put at ``leading_edge``.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sciml.errors import Invalid

THICKNESS = (0.2969, -0.1260, -0.3516, 0.2843, -0.1036)  # sqrt(xi), xi, xi^2, xi^3, xi^4; closed trailing edge


def digits_of(digits: str) -> tuple[float, float, float]:
    """``(m, p, t)`` of the four digits ``MPTT``, or :class:`Invalid` at ``digits``."""
    if not (isinstance(digits, str) and len(digits) == 4 and digits.isdigit()):
        raise Invalid("digits", f"expected four digits as a string (quote it in YAML: '0012'), got {digits!r}")
    m, p, t = int(digits[0]) / 100, int(digits[1]) / 10, int(digits[2:]) / 100
    if t == 0:
        raise Invalid("digits", f"{digits}: the thickness (the last two digits) must not be zero")
    if (m == 0) != (p == 0):
        raise Invalid("digits", f"{digits}: give both the camber and its position (the first two digits) or neither")
    return m, p, t


def naca4(digits: str = "0012", chord: float = 1.0, angle: float = 0.0,
          leading_edge: Sequence[float] = (0.0, 0.0), points: int = 64) -> np.ndarray:
    """The profile's corners ``(2 points, 2)`` (module notes): ``angle`` the angle of attack in degrees,
    ``points`` the intervals along each surface."""
    m, p, t = digits_of(digits)
    if not chord > 0:
        raise Invalid("chord", f"must be > 0, got {chord}")
    if not 8 <= points <= 4096:
        raise Invalid("points", f"must lie in [8, 4096], got {points}")
    xi = (1 - np.cos(np.pi * np.arange(points + 1) / points)) / 2
    yt = 5 * t * (THICKNESS[0] * np.sqrt(xi) + xi * (THICKNESS[1] + xi * (THICKNESS[2] + xi * (THICKNESS[3]
                                                                                         + xi * THICKNESS[4]))))
    yt[-1] = 0.0  # exactly closed (the coefficients sum to zero up to rounding)
    if m > 0:
        front = xi < p
        yc = np.where(front, m / p**2 * (2 * p * xi - xi**2), m / (1 - p) ** 2 * (1 - 2 * p + 2 * p * xi - xi**2))
        slope = np.where(front, 2 * m / p**2 * (p - xi), 2 * m / (1 - p) ** 2 * (p - xi))
    else:
        yc = slope = np.zeros_like(xi)
    theta = np.arctan(slope)
    upper = np.stack([xi - yt * np.sin(theta), yc + yt * np.cos(theta)], -1)
    lower = np.stack([xi + yt * np.sin(theta), yc - yt * np.cos(theta)], -1)
    profile = np.concatenate([upper[::-1], lower[1:-1]])  # trailing edge, upper surface, leading edge, lower
    a = np.radians(angle)
    turn = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])  # clockwise by the angle of attack
    return np.asarray(leading_edge, float) + chord * profile @ turn.T
