r"""Finite differences for :math:`D\,\Delta^2 w = q` on a rectangle with clamped and/or simply supported edges.

Grid: nodes :math:`x_i = x_0 + i h_x`, :math:`y_j = y_0 + j h_y`; unknowns at the interior nodes (:math:`w = 0` on
every edge). The 13-point stencil (Timoshenko & Woinowsky-Krieger, *Theory of Plates and Shells*, 2nd ed., the
chapter on approximate methods; Szilard, *Theories and Applications of Plate Analysis*, Wiley 2004) is

.. math:: \Delta_h^2 w = \frac{\delta_x^4 w}{h_x^4} + 2\frac{\delta_x^2\delta_y^2 w}{h_x^2 h_y^2}
          + \frac{\delta_y^4 w}{h_y^4}, \qquad \delta^2 w_i = w_{i-1} - 2w_i + w_{i+1},

with :math:`\delta^4 = (\delta^2)^2`. Next to an edge :math:`\delta^4` reaches one ghost node beyond it:
:math:`w_{-1} = w_1` on a clamped edge (:math:`\partial_n w = 0`) and :math:`w_{-1} = -w_1` on a simply
supported one (:math:`\partial_n^2 w = 0`, hence :math:`M_n = 0` since :math:`w_{tt} = 0` along it); the mixed
term needs no ghost. In matrix form, with :math:`K_2` the Dirichlet second-difference matrix,

.. math:: A = \frac{K_{4,x}\otimes I}{h_x^4} + 2\frac{K_{2,x}\otimes K_{2,y}}{h_x^2h_y^2}
          + \frac{I\otimes K_{4,y}}{h_y^4}, \qquad
          K_4 = K_2^2 + 2\,(e_1e_1^T\ \text{at a clamped start}) + 2\,(e_ne_n^T\ \text{at a clamped end}),

solved by sparse LU (SuperLU, factored once per grid and edges). The scheme is second order in :math:`h`. Fields
are post-processed to second order: central differences inside; on an edge :math:`w_{nn} = 0` (simply supported) or
:math:`w_{nn} = 2w_1/h^2` (clamped: the ghost-node formula; its :math:`O(h)` truncation error cancels that of the
discrete solution, whose slope at the edge is :math:`-h^2 w_{nnn}/6`, so the edge moment converges at second order,
while :math:`(8w_1 - w_2)/(2h^2)`, exact to :math:`O(h^2)` for the true :math:`w`, is only first order on the
discrete one), :math:`w_{tt} = 0`; :math:`w_{xy}` by central differences through the ghost nodes (exactly 0 on a
clamped edge); :math:`\partial\Delta w` by second-order one-sided differences at the edges (``numpy.gradient``).

Richardson extrapolation: with the grid spacing halved, :math:`F = (4F_{h/2} - F_h)/3` on the coarse nodes cancels
the :math:`h^2` term. For the clamped square under uniform load, ``n = 64`` (grids 64² and 128²) gives
:math:`w_{\max}` to about :math:`10^{-6}` relative in well under a second (see the tests). Free edges are not
supported (use ``levy.py``).
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.interpolate import RectBivariateSpline
from scipy.sparse.linalg import splu

from .plate import FIELDS, Load, Plate, make_load, make_plate

DEFAULT_N = 64
ORDER = 2  # the 13-point stencil converges at order 2 in the grid step (measured: sciml.bench.studies.plate_fd_order)


@dataclass
class FDSolution:
    """Fields on the grid ``x`` (``nx + 1`` nodes) by ``y`` (``ny + 1``), ``ij``-indexed arrays."""

    x: np.ndarray
    y: np.ndarray
    fields: dict

    def at(self, x, y) -> dict:
        """Fields at arbitrary points of the plate by bicubic interpolating splines through the nodes."""
        x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
        tol = 1e-9 * max(self.x[-1] - self.x[0], self.y[-1] - self.y[0])
        if x.size and (x.min() < self.x[0] - tol or x.max() > self.x[-1] + tol
                       or y.min() < self.y[0] - tol or y.max() > self.y[-1] + tol):
            raise ValueError("points outside the plate")
        xc, yc = np.clip(x, self.x[0], self.x[-1]), np.clip(y, self.y[0], self.y[-1])
        return {k: RectBivariateSpline(self.x, self.y, v, kx=3, ky=3, s=0).ev(xc, yc) for k, v in self.fields.items()}


def _k2(n: int) -> sparse.csr_matrix:
    return sparse.diags([np.ones(n - 1), -2.0 * np.ones(n), np.ones(n - 1)], [-1, 0, 1], format="csr")


def _k4(n: int, start: str, end: str) -> sparse.csr_matrix:
    K = (_k2(n) @ _k2(n)).tolil()
    K[0, 0] += 2.0 if start == "clamped" else 0.0
    K[n - 1, n - 1] += 2.0 if end == "clamped" else 0.0
    return K.tocsr()


def _second(W: np.ndarray, h: float, axis: int, start: str, end: str) -> np.ndarray:
    """Second derivative along ``axis`` at every node: central inside, edge formulas by condition."""
    W = np.moveaxis(W, axis, 0)
    out = np.empty_like(W)
    out[1:-1] = (W[2:] - 2.0 * W[1:-1] + W[:-2]) / h**2
    out[0] = 2.0 * W[1] / h**2 if start == "clamped" else 0.0
    out[-1] = 2.0 * W[-2] / h**2 if end == "clamped" else 0.0
    return np.moveaxis(out, 0, axis)


def _with_ghosts(W: np.ndarray, edges) -> np.ndarray:
    """``W`` padded by one ghost layer: the mirror image (clamped) or its negative (simply supported)."""
    sign = {name: 1.0 if edges[name] == "clamped" else -1.0 for name in ("left", "right", "bottom", "top")}
    G = np.zeros((W.shape[0] + 2, W.shape[1] + 2))
    G[1:-1, 1:-1] = W
    G[0, 1:-1], G[-1, 1:-1] = sign["left"] * W[1], sign["right"] * W[-2]
    G[:, 0], G[:, -1] = sign["bottom"] * G[:, 2], sign["top"] * G[:, -3]
    return G


def grid_counts(plate: Plate, n: int) -> tuple[int, int]:
    """Intervals ``(nx, ny)``: ``n`` along the longer side, an even number close to square cells on the other."""
    a, b = plate.a, plate.b
    short = max(4, 2 * int(round(n * min(a, b) / max(a, b) / 2)))
    return (n, short) if a >= b else (short, n)


@functools.lru_cache(maxsize=8)
def _factor(nx: int, ny: int, hx: float, hy: float, edges: tuple[str, str, str, str]) -> Callable:
    """``b -> A^{-1} b`` for the 13-point operator on ``nx`` by ``ny`` intervals, the edges ``(left, right,
    bottom, top)``: one sparse LU (SuperLU) per grid, kept for the next solve (a dataset of loads on one plate
    factors once)."""
    left, right, bottom, top = edges
    Ix, Iy = sparse.identity(nx - 1, format="csr"), sparse.identity(ny - 1, format="csr")
    A = (sparse.kron(_k4(nx - 1, left, right), Iy) / hx**4
         + 2.0 * sparse.kron(_k2(nx - 1), _k2(ny - 1)) / (hx**2 * hy**2)
         + sparse.kron(Ix, _k4(ny - 1, bottom, top)) / hy**4)
    return splu(A.tocsc()).solve


def solve_grid(plate: Plate, load: Load, nx: int, ny: int) -> FDSolution:
    """One finite-difference solve on an ``nx`` by ``ny`` grid of intervals."""
    (x0, x1), (y0, y1) = plate.bounds
    e, D, nu = plate.edges, plate.D, plate.nu
    if "free" in e.values():
        raise ValueError("the finite-difference solver handles clamped and simply supported edges only")
    if min(nx, ny) < 4:
        raise ValueError("need at least 4 intervals per side")
    x, y = np.linspace(x0, x1, nx + 1), np.linspace(y0, y1, ny + 1)
    hx, hy = (x1 - x0) / nx, (y1 - y0) / ny
    X, Y = np.meshgrid(x[1:-1], y[1:-1], indexing="ij")
    W = np.zeros((nx + 1, ny + 1))
    solve = _factor(nx, ny, hx, hy, tuple(e[k] for k in ("left", "right", "bottom", "top")))
    W[1:-1, 1:-1] = solve(load(X, Y).ravel() / D).reshape(nx - 1, ny - 1)
    wxx = _second(W, hx, 0, e["left"], e["right"])
    wyy = _second(W, hy, 1, e["bottom"], e["top"])
    G = _with_ghosts(W, e)
    wxy = (G[2:, 2:] - G[2:, :-2] - G[:-2, 2:] + G[:-2, :-2]) / (4.0 * hx * hy)
    lap = wxx + wyy
    fields = {
        "w": W,
        "mx": -D * (wxx + nu * wyy),
        "my": -D * (wyy + nu * wxx),
        "mxy": -D * (1 - nu) * wxy,
        "qx": -D * np.gradient(lap, hx, axis=0, edge_order=2),
        "qy": -D * np.gradient(lap, hy, axis=1, edge_order=2),
    }
    return FDSolution(x, y, fields)


def fd_solve(bounds, edges, D, nu, load, *, n: int = DEFAULT_N, richardson: bool = True,
             uniform: bool | None = None, counts: tuple[int, int] | None = None) -> FDSolution:
    """Finite-difference solution with ``n`` intervals along the longer side (``counts``: ``(nx, ny)``
    intervals instead, e.g. to land on a given grid).

    ``richardson=True`` also solves on the grid with half the spacing and returns :math:`(4F_{h/2} - F_h)/3` at the
    nodes of the coarse grid.
    """
    plate = make_plate(bounds, edges, D, nu)
    load = make_load(load, plate.bounds, uniform)
    nx, ny = counts if counts is not None else grid_counts(plate, n)
    coarse = solve_grid(plate, load, nx, ny)
    if not richardson:
        return coarse
    fine = solve_grid(plate, load, 2 * nx, 2 * ny)
    fields = {k: (4.0 * fine.fields[k][::2, ::2] - coarse.fields[k]) / 3.0 for k in FIELDS}
    return FDSolution(coarse.x, coarse.y, fields)


def fd_plate(bounds, edges, D, nu, load, x, y, *, n: int = DEFAULT_N, richardson: bool = True,
             uniform: bool | None = None) -> dict:
    """Fields ``w, mx, my, mxy, qx, qy`` at the points ``(x, y)`` (see ``fd_solve``)."""
    return fd_solve(bounds, edges, D, nu, load, n=n, richardson=richardson, uniform=uniform).at(x, y)
