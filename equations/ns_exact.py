r"""Exact solutions of the incompressible Navier–Stokes equations, in physical variables.

Each is a function ``(xp, pts, nu, rho) -> {"u": ..., "v": ..., ["w": ...,] "p": ...}`` of points
``pts[..., :]`` ordered ``x, y, [z,] [t]`` (``xp`` is ``numpy`` or ``jax.numpy``), with its requirements in
``SOLUTIONS``. They solve :math:`u_t + (u\cdot\nabla)u = -\nabla p/\rho + \nu\Delta u`, :math:`\nabla\cdot u = 0`.

- **Kovasznay (1948)**, steady 2D wake behind a grid, :math:`Re = 1/\nu` (unit velocity and length):
  :math:`\lambda = Re/2 - \sqrt{Re^2/4 + 4\pi^2}`, :math:`u = 1 - e^{\lambda x}\cos 2\pi y`,
  :math:`v = \tfrac{\lambda}{2\pi} e^{\lambda x}\sin 2\pi y`, :math:`p = \tfrac{\rho}{2}(1 - e^{2\lambda x})`.
- **Taylor–Green vortex**, 2D, decaying: :math:`F = e^{-2\nu t}`, :math:`u = \cos x \sin y\,F`,
  :math:`v = -\sin x\cos y\,F`, :math:`p = -\tfrac{\rho}{4}(\cos 2x + \cos 2y) F^2` (period :math:`2\pi`).
- **Beltrami flow** (Ethier & Steinman, Int. J. Numer. Meth. Fluids 19, 1994), 3D unsteady, with
  :math:`a = d = 1` as in NSFnets (Jin et al., J. Comput. Phys. 426, 2021):
  :math:`u = -a[e^{ax}\sin(ay + dz) + e^{az}\cos(ax + dy)]e^{-\nu d^2 t}` and cyclic permutations for
  :math:`v, w`; :math:`p = -\tfrac{\rho a^2}{2}[e^{2ax} + e^{2ay} + e^{2az} + 2\sin(ax + dy)\cos(az + dx)e^{a(y+z)}
  + 2\sin(ay + dz)\cos(ax + dy)e^{a(z+x)} + 2\sin(az + dx)\cos(ay + dz)e^{a(x+y)}]e^{-2\nu d^2 t}`.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass


def kovasznay(xp, pts, nu, rho=1.0):
    re = 1.0 / nu
    lam = re / 2 - xp.sqrt(re**2 / 4 + 4 * math.pi**2)  # xp: Re may be traced (an unknown) or per point
    x, y = pts[..., 0], pts[..., 1]
    e = xp.exp(lam * x)
    return {"u": 1 - e * xp.cos(2 * math.pi * y),
            "v": lam / (2 * math.pi) * e * xp.sin(2 * math.pi * y),
            "p": rho / 2 * (1 - e**2)}


def taylor_green(xp, pts, nu, rho=1.0):
    x, y, t = pts[..., 0], pts[..., 1], pts[..., 2]
    f = xp.exp(-2 * nu * t)
    return {"u": xp.cos(x) * xp.sin(y) * f,
            "v": -xp.sin(x) * xp.cos(y) * f,
            "p": -rho / 4 * (xp.cos(2 * x) + xp.cos(2 * y)) * f**2}


def beltrami(xp, pts, nu, rho=1.0, a=1.0, d=1.0):
    x, y, z, t = pts[..., 0], pts[..., 1], pts[..., 2], pts[..., 3]
    f = xp.exp(-nu * d**2 * t)
    ex, ey, ez = xp.exp(a * x), xp.exp(a * y), xp.exp(a * z)
    sx, sy, sz = xp.sin(a * x + d * y), xp.sin(a * y + d * z), xp.sin(a * z + d * x)
    cx, cy, cz = xp.cos(a * x + d * y), xp.cos(a * y + d * z), xp.cos(a * z + d * x)
    return {
        "u": -a * (ex * sy + ez * cx) * f,
        "v": -a * (ey * sz + ex * cy) * f,
        "w": -a * (ez * sx + ey * cz) * f,
        "p": -rho * a**2 / 2 * (ex**2 + ey**2 + ez**2 + 2 * sx * cz * ey * ez + 2 * sy * cx * ez * ex
                                + 2 * sz * cy * ex * ey) * f**2,
    }


@dataclass(frozen=True)
class Solution:
    fn: Callable
    dim: int  # spatial dimension
    unsteady: bool
    note: str


SOLUTIONS = {
    "kovasznay": Solution(kovasznay, 2, False, "steady 2D; Re = 1/nu"),
    "taylor_green": Solution(taylor_green, 2, True, "2D with time"),
    "beltrami": Solution(beltrami, 3, True, "3D with time (Ethier & Steinman, a = d = 1)"),
}
