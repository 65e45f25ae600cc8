r"""The singular part of a clamped plate at a re-entrant corner: Williams' corner function in the exact factor.

Where two clamped edges meet at an interior angle :math:`\omega > \pi` (an L-shaped plate's inner corner), the
deflection near the corner is :math:`w \approx c\, r^{1+\lambda} F(\vartheta)` (M. L. Williams, J. Appl. Mech. 19,
1952), :math:`r` the distance from the corner, :math:`\vartheta` the angle from the bisector of the wedge; its
moments grow as :math:`r^{\lambda - 1}`. For the symmetric mode

.. math:: F(\vartheta) = a \cos((\lambda+1)\vartheta) + b \cos((\lambda-1)\vartheta),

biharmonic with :math:`r^{1+\lambda}`, and :math:`F = F' = 0` at :math:`\vartheta = \pm\omega/2` (both edges
clamped) for :math:`(a, b) \ne 0` when :math:`(\lambda - 1)\cos((\lambda+1)\alpha)\sin((\lambda-1)\alpha) =
(\lambda + 1)\cos((\lambda-1)\alpha)\sin((\lambda+1)\alpha)`, :math:`\alpha = \omega/2`: its least root in
:math:`(0, 1)` is :math:`\lambda`, 0.5445 at 270° (the L), 0.5 for a crack. The antisymmetric mode's exponent is
larger (0.9085 at 270°: moments as :math:`r^{-0.09}`, nearly bounded) and is left to the network.

A network times the clamped edges' exact factor :math:`\varphi^2` cannot take this shape: :math:`\varphi` is a
product of the edges' distance factors, so :math:`\varphi^2` vanishes as :math:`r^4` at the corner where
:math:`w` vanishes as :math:`r^{1.54}`. The Ritz solution is then too stiff all around the corner (the clamped
L, 2026-12-04: :math:`w` 1.1 % too small, 80 % of its squared error within 0.3 of the corner). With
``equation.singular_corners: true`` the factor of :math:`w` becomes

.. math:: \varphi^2 + \sum_k \chi_k\, \rho_k^{1+\lambda_k} F_k(\vartheta_k), \qquad \rho_k = r_k / R_k, \qquad
          \chi_k = (1 - \rho_k^2)^5 \text{ for } \rho_k < 1, \text{ else } 0,

so that :math:`w = (\varphi^2 + \ldots) N` carries the corner's exponent with the network's value at the corner
as its coefficient. Each term vanishes with its normal slope on the corner's two edges (:math:`F = F' = 0`)
and, with :math:`\chi_k` (:math:`C^4`), outside the disc of radius :math:`R_k`: :data:`RADIUS` of the distance
from the corner to the nearest boundary point that is not on its two clamped edges' lines, so the disc meets no
other edge and the conditions stay exact. The energy form only: the strong form's fourth derivatives of
:math:`r^{1.54}` are not square-integrable at the corner, its second derivatives (the energy's) are. At the
corner itself (an evaluation grid's point) the term stands in as 0, with finite derivatives.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import jax.numpy as jnp
import numpy as np
from scipy.optimize import brentq

from .domain import Corner, Domain

RADIUS = 0.8  # the cut-off disc's radius, of the distance from the corner to the rest of the boundary
_CHI_POWER = 5  # chi = (1 - rho^2)^5: C^4 at the disc's rim


def _symmetric(lam: float, alpha: float) -> np.ndarray:
    """The 2 x 2 matrix of the clamped conditions at ``theta = alpha`` on ``(a, b)`` (module notes)."""
    return np.array([[math.cos((lam + 1) * alpha), math.cos((lam - 1) * alpha)],
                     [(lam + 1) * math.sin((lam + 1) * alpha), (lam - 1) * math.sin((lam - 1) * alpha)]])


def exponent(angle: float) -> float:
    """``lambda``: the least root in ``(0, 1)`` of the symmetric clamped-clamped wedge of interior ``angle``
    (radians, above pi): ``w ~ r^(1 + lambda)``."""
    if not math.pi < angle <= 2 * math.pi:
        raise ValueError(f"a re-entrant corner's angle is in (pi, 2 pi], got {angle}")
    det = lambda lam: float(np.linalg.det(_symmetric(lam, angle / 2)))
    grid = np.linspace(1e-3, 1.0 - 1e-9, 2000)
    values = [det(v) for v in grid]
    for lo, hi, a, b in zip(grid, grid[1:], values, values[1:]):
        if a == 0.0:
            return float(lo)
        if a * b < 0:
            return float(brentq(det, lo, hi, xtol=1e-14))
    raise ValueError(f"no corner exponent below 1 at the angle {angle}")


def shape(angle: float) -> tuple[float, float, float]:
    """``(lambda, a, b)``: the exponent and ``F = a cos((lambda+1) t) + b cos((lambda-1) t)``, ``F(0) = 1``."""
    lam = exponent(angle)
    a, b = np.linalg.svd(_symmetric(lam, angle / 2))[2][-1]
    return lam, float(a / (a + b)), float(b / (a + b))


def corner_function(corner: Corner, radius: float) -> Callable:
    """``x (..., 2) -> chi rho^(1+lambda) F`` of one corner (physical points; module notes), jnp."""
    lam, a, b = shape(corner.angle)
    t_after = np.array([-corner.normal_after[1], corner.normal_after[0]])  # the edge leaving the corner
    half = corner.angle / 2
    bis = np.array([math.cos(half) * t_after[0] - math.sin(half) * t_after[1],
                    math.sin(half) * t_after[0] + math.cos(half) * t_after[1]])
    normal = np.array([-bis[1], bis[0]])
    p0 = np.asarray(corner.point, float)

    def term(x):
        dx, dy = x[..., 0] - p0[0], x[..., 1] - p0[1]
        u, v = (dx * bis[0] + dy * bis[1]) / radius, (dx * normal[0] + dy * normal[1]) / radius
        at = u * u + v * v == 0  # the corner itself: 0 stands in (and no NaN reaches a derivative)
        u, v = jnp.where(at, 1.0, u), jnp.where(at, 0.0, v)
        rho = jnp.sqrt(u * u + v * v)
        theta = 2 * jnp.arctan(v / (rho + u))  # half-angle form: finite but on the far side of the corner
        f = a * jnp.cos((lam + 1) * theta) + b * jnp.cos((lam - 1) * theta)
        near = rho < 1
        chi = jnp.where(near, (1 - jnp.minimum(rho * rho, 1.0)) ** _CHI_POWER, 0.0)
        return jnp.where(at, 0.0, chi * jnp.exp((lam + 1) * jnp.log(rho)) * f)

    return term


def _on_ray(points: np.ndarray, start: np.ndarray, direction: np.ndarray, tol: float) -> np.ndarray:
    rel = points - start
    along = rel @ direction
    return (np.abs(rel[:, 0] * direction[1] - rel[:, 1] * direction[0]) <= tol) & (along >= -tol)


def reentrant_clamped(domain: Domain, clamped: Callable[[str], bool]) -> list[Corner]:
    """The corners of ``domain`` with an interior angle above pi between two parts that ``clamped`` accepts."""
    return [c for c in (domain.corners() or []) if c.angle > math.pi * (1 + 1e-9)
            and clamped(c.before) and clamped(c.after)]


def radius(domain: Domain, corner: Corner, clamped: Callable[[str], bool], n: int = 4000) -> float:
    """:data:`RADIUS` of the distance from ``corner`` to the boundary points (``n`` per part) that do not lie on
    its two edges' rays from the corner within clamped parts (module notes)."""
    rng = np.random.default_rng(0)
    side = max(hi - lo for lo, hi in domain.bounds)
    t_after = np.array([-corner.normal_after[1], corner.normal_after[0]])
    t_before = np.array([-corner.normal_before[1], corner.normal_before[0]])
    p0 = np.asarray(corner.point, float)
    gaps = []
    for part in domain.parts:
        pts = np.asarray(domain.boundary(part, n, rng)[0], float)
        if clamped(part):
            ray = _on_ray(pts, p0, t_after, 1e-9 * side) | _on_ray(pts, p0, -t_before, 1e-9 * side)
            pts = pts[~ray]
        if len(pts):
            gaps.append(float(np.min(np.linalg.norm(pts - p0, axis=1))))
    return RADIUS * min(gaps)


def enrichment(domain: Domain, clamped: Callable[[str], bool], to_physical: Callable) -> Callable:
    """``xh -> sum of the corner functions`` at nondimensional points (``to_physical`` maps them), over
    :func:`reentrant_clamped`'s corners; raises ValueError when there are none."""
    corners: Sequence[Corner] = reentrant_clamped(domain, clamped)
    if not corners:
        raise ValueError("no re-entrant corner between two clamped edges")
    terms = [corner_function(c, radius(domain, c, clamped)) for c in corners]

    def total(xh):
        x = to_physical(xh)
        out = 0.0
        for t in terms:
            out = out + t(x)
        return out

    return total
