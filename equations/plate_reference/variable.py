r"""Finite differences for a plate of varying rigidity :math:`D(x, y)`, all four edges simply supported.

The plate's equilibrium in divergence form (Timoshenko & Woinowsky-Krieger, the chapter on plates of variable
thickness):

.. math:: \partial_{xx} M_x + 2\,\partial_{xy} M_{xy} + \partial_{yy} M_y = -q, \qquad
          M_x = -D(w_{xx} + \nu w_{yy}),\ M_y = -D(w_{yy} + \nu w_{xx}),\ M_{xy} = -D(1-\nu) w_{xy}.

Grid: nodes :math:`x_i = x_0 + i h_x`, :math:`y_j = y_0 + j h_y`, unknowns :math:`w` at the interior nodes. On a
simply supported edge :math:`w = 0` and :math:`M_n = 0`; along it :math:`w_{tt} = 0`, so :math:`w_{nn} = 0` and both
:math:`M_x` and :math:`M_y` vanish there. So, with :math:`\delta^2` the second difference and the edge values zero:

- the curvatures at the interior nodes, :math:`\kappa_{xx} = \delta_x^2 w / h_x^2`, :math:`\kappa_{yy}` likewise, and
  :math:`M_x, M_y` there with :math:`D` at the nodes (zero on the edges);
- the twist on the cells, :math:`w_{xy} = (w_{i+1,j+1} - w_{i+1,j} - w_{i,j+1} + w_{i,j}) / (h_x h_y)`, and
  :math:`M_{xy}` there with :math:`D` at the cells' centres;
- the balance at each interior node: :math:`\delta_x^2 M_x / h_x^2 + 2\,\delta_{xy} M_{xy} / (h_x h_y)
  + \delta_y^2 M_y / h_y^2 = -q`, :math:`\delta_{xy}` the cells' difference around the node.

In matrix form :math:`A = C_{xx} \mathcal D (C_{xx} + \nu C_{yy}) + C_{yy} \mathcal D (C_{yy} + \nu C_{xx}) +
2(1-\nu) C_{xy}^\top \mathcal D_c C_{xy}`, symmetric positive definite, solved by sparse LU. For a constant
:math:`D` it is the 13-point operator of :mod:`.fd` with simply supported edges (its ghost nodes
:math:`w_{-1} = -w_1` are the edge moments' zero here). Second order in :math:`h` (measured in the tests on a
manufactured solution); Richardson extrapolation over the grid and its half as in :mod:`.fd`. Fields are
post-processed at the nodes: :math:`w_{xx}, w_{yy}` by central differences (0 on the edges), :math:`w_{xy}` through
the ghost nodes, the moments with :math:`D` at the node, :math:`Q_x = \partial_x M_x + \partial_y M_{xy}` and
:math:`Q_y = \partial_x M_{xy} + \partial_y M_y` by second-order differences (``numpy.gradient``).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import spsolve

from .fd import DEFAULT_N, FDSolution, _k2, _second, _with_ghosts, grid_counts
from .plate import FIELDS, make_load, make_plate

SIMPLY_SUPPORTED = dict.fromkeys(("left", "right", "bottom", "top"), "simply_supported")


def _forward(n: int) -> sparse.csr_matrix:
    """``(n, n - 1)``: the differences :math:`w_{i+1} - w_i` over the ``n`` intervals of interior values (the
    ends' zero)."""
    return sparse.diags([np.ones(n - 1), -np.ones(n - 1)], [0, -1], shape=(n, n - 1), format="csr")


def operator(D: Callable, nu: float, x: np.ndarray, y: np.ndarray) -> sparse.csr_matrix:
    """The matrix :math:`A` (module notes) on the nodes ``x`` by ``y`` (edges included), ``ij`` order of the
    interior nodes."""
    nx, ny = len(x) - 1, len(y) - 1
    hx, hy = x[1] - x[0], y[1] - y[0]
    Ix, Iy = sparse.identity(nx - 1, format="csr"), sparse.identity(ny - 1, format="csr")
    cxx = sparse.kron(_k2(nx - 1), Iy) / hx**2
    cyy = sparse.kron(Ix, _k2(ny - 1)) / hy**2
    cxy = sparse.kron(_forward(nx), _forward(ny)) / (hx * hy)
    X, Y = np.meshgrid(x[1:-1], y[1:-1], indexing="ij")
    Xc, Yc = np.meshgrid((x[1:] + x[:-1]) / 2, (y[1:] + y[:-1]) / 2, indexing="ij")
    nodes = sparse.diags(np.broadcast_to(np.asarray(D(X, Y), float), X.shape).ravel())
    cells = sparse.diags(np.broadcast_to(np.asarray(D(Xc, Yc), float), Xc.shape).ravel())
    return (cxx @ nodes @ (cxx + nu * cyy) + cyy @ nodes @ (cyy + nu * cxx)
            + 2 * (1 - nu) * cxy.T @ cells @ cxy).tocsr()


def solve_grid(bounds, D: Callable, nu: float, load, nx: int, ny: int) -> FDSolution:
    """One solve on an ``nx`` by ``ny`` grid of intervals; ``D(x, y)`` and ``load(x, y)`` vectorised."""
    (x0, x1), (y0, y1) = bounds
    if min(nx, ny) < 4:
        raise ValueError("need at least 4 intervals per side")
    x, y = np.linspace(x0, x1, nx + 1), np.linspace(y0, y1, ny + 1)
    hx, hy = x[1] - x[0], y[1] - y[0]
    X, Y = np.meshgrid(x[1:-1], y[1:-1], indexing="ij")
    W = np.zeros((nx + 1, ny + 1))
    W[1:-1, 1:-1] = spsolve(operator(D, nu, x, y).tocsc(), load(X, Y).ravel()).reshape(nx - 1, ny - 1)
    ss = "simply_supported"
    wxx, wyy = _second(W, hx, 0, ss, ss), _second(W, hy, 1, ss, ss)
    G = _with_ghosts(W, SIMPLY_SUPPORTED)
    wxy = (G[2:, 2:] - G[2:, :-2] - G[:-2, 2:] + G[:-2, :-2]) / (4.0 * hx * hy)
    XX, YY = np.meshgrid(x, y, indexing="ij")
    Dn = np.broadcast_to(np.asarray(D(XX, YY), float), XX.shape)
    mx, my, mxy = -Dn * (wxx + nu * wyy), -Dn * (wyy + nu * wxx), -Dn * (1 - nu) * wxy
    grad = lambda F, h, axis: np.gradient(F, h, axis=axis, edge_order=2)
    fields = {"w": W, "mx": mx, "my": my, "mxy": mxy,
              "qx": grad(mx, hx, 0) + grad(mxy, hy, 1), "qy": grad(mxy, hx, 0) + grad(my, hy, 1)}
    return FDSolution(x, y, fields)


def variable_solve(bounds, D: Callable, nu: float, load, *, n: int = DEFAULT_N, richardson: bool = True,
                   uniform: bool | None = None) -> FDSolution:
    """The solution with ``n`` intervals along the longer side (``richardson``: extrapolated with the grid of
    half the spacing, :math:`(4F_{h/2} - F_h)/3` on the coarse nodes)."""
    plate = make_plate(bounds, SIMPLY_SUPPORTED, 1.0, nu)
    load = make_load(load, plate.bounds, uniform)
    nx, ny = grid_counts(plate, n)
    coarse = solve_grid(plate.bounds, D, nu, load, nx, ny)
    if not richardson:
        return coarse
    fine = solve_grid(plate.bounds, D, nu, load, 2 * nx, 2 * ny)
    fields = {k: (4.0 * fine.fields[k][::2, ::2] - coarse.fields[k]) / 3.0 for k in FIELDS}
    return FDSolution(coarse.x, coarse.y, fields)


def variable_plate(bounds, D: Callable, nu: float, load, x, y, **options) -> dict:
    """Fields ``w, mx, my, mxy, qx, qy`` at the points ``(x, y)`` (:func:`variable_solve`)."""
    return variable_solve(bounds, D, nu, load, **options).at(x, y)
