r"""The singular part of a lid-driven cavity's flow: Taylor's Stokes flows in the lid's two corners.

Where the moving lid meets a wall at rest the speed jumps from :math:`U` to 0: the vorticity and the pressure
grow as :math:`1/r` there, which no smooth network represents (its penalty terms for the lid and the walls then
fight near the corners, and the interior flow pays for it). Near such a corner the flow is Taylor's
"scraper" Stokes flow (G. I. Taylor 1960; the subtraction used by O. Botella & R. Peyret, Comput. Fluids 27
(1998), for their spectral benchmark of the cavity): in polar coordinates about the corner, :math:`\varphi = 0`
along the lid and :math:`\varphi = \pi/2` along the wall,

.. math:: \psi_s = U r f(\varphi), \quad f(\varphi) = \frac{\pi^2 \sin\varphi - 2\pi\varphi\sin\varphi
          - 4\varphi\cos\varphi}{4 - \pi^2}, \qquad
          p_s = -\frac{\rho\nu U}{r} \, \frac{8\cos\varphi + 4\pi\sin\varphi}{\pi^2 - 4},

which solves the Stokes equations :math:`\nabla p = \rho\nu\Delta u` exactly, with :math:`\psi = 0` on both
edges, :math:`u = U` on the lid and no slip on the wall (tests check each against nested ``jax.jacfwd``). The
top-left corner takes it as it is (:math:`x` along the lid, :math:`y_1 - y` down the wall); the top-right one
is its mirror image, :math:`\psi_R(x, y) = \psi_L(x_0 + x_1 - x, y)`, :math:`p_R = -p_L(x_0 + x_1 - x, y)`.

Each grows as :math:`r` and is not zero on the other walls, so each is cut off by :math:`\chi =
\exp(-(r/R)^2)`, :math:`R` = :data:`CUTOFF` of the lid's length (on the far walls :math:`\chi < 10^{-6}`);
on its own lid the cut-off flow moves at :math:`U\chi` and it still has no slip on its wall.

With ``equation.lid_corners: true`` both are added to the network's stream function and pressure (the
particular part of :class:`~sciml.equations.navier_stokes.NavierStokes`), so the network carries only the rest,
whose lid speed :math:`U(1 - \chi_L - \chi_R)` is continuous: near the corners the residual is then the corner
flow's convection, :math:`O(1/r)`, not the viscous and pressure terms' :math:`O(1/r^2)`. At the two corner
points themselves (an evaluation grid's) the corner flows have no value; they stand in as 0 there.
"""
from __future__ import annotations

import math

CUTOFF = 0.25  # the cut-off radius R, as a fraction of the lid's length
_DEN = math.pi**2 - 4.0


def corner_flow(xi, eta, U: float, nu: float, rho: float, xp):
    """``(psi, p)`` of Taylor's corner flow at local coordinates ``xi`` (along the lid, away from the corner)
    and ``eta`` (down the wall), both ``>= 0`` inside; lid speed ``U`` (module notes)."""
    at = xi**2 + eta**2 == 0  # the corner itself, where the flow has no value: 0 stands in
    xi, eta = xp.where(at, 1.0, xi), xp.where(at, 1.0, eta)  # (so that no derivative there is NaN either)
    r = xp.sqrt(xi**2 + eta**2)
    phi = 2 * xp.arctan(eta / (r + xi))  # the angle from the lid (half-angle form: no atan2, finite at xi = 0)
    # r f(phi) and p r with sin(phi) = eta / r, cos(phi) = xi / r
    rf = (math.pi**2 * eta - 2 * math.pi * phi * eta - 4 * phi * xi) / (4.0 - math.pi**2)
    p = -rho * nu * U * (8 * xi + 4 * math.pi * eta) / (_DEN * r**2)
    return xp.where(at, 0.0, U * rf), xp.where(at, 0.0, p)


def lid_corners(x, y, box, U: float, nu: float, rho: float, xp):
    """``(psi, p)``: the sum of the two cut-off corner flows of the lid ``y = y1`` of ``box = ((x0, x1), (y0,
    y1))`` moving at ``U`` along ``+x``, at physical points ``x, y`` (module notes)."""
    (x0, x1), (y0, y1) = box
    R = CUTOFF * (x1 - x0)
    eta = y1 - y
    psi, p = 0.0, 0.0
    for xi, sign in ((x - x0, 1.0), (x1 - x, -1.0)):  # the left corner, the right one mirrored
        psi_k, p_k = corner_flow(xi, eta, U, nu, rho, xp)
        chi = xp.exp(-(xi**2 + eta**2) / R**2)
        psi, p = psi + chi * psi_k, p + sign * chi * p_k
    return psi, p
