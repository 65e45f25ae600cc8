r"""2D Darcy flow :math:`-\nabla\cdot(a\nabla u) = f` on :math:`[0,1]^2`, :math:`u = 0` on the boundary.

Grid: the ``s × s`` nodes :math:`(x_i, y_j) = (ih, jh)`, :math:`h = 1/(s-1)`, boundary nodes included
(``ij`` order: axis 0 is :math:`x`). Unknowns are the :math:`(s-2)^2` interior values. The five-point
conservative scheme is

.. math:: \frac{1}{h^2}\Big[a_{i+\frac12,j}(u_{i,j} - u_{i+1,j}) + a_{i-\frac12,j}(u_{i,j} - u_{i-1,j})
          + a_{i,j+\frac12}(u_{i,j} - u_{i,j+1}) + a_{i,j-\frac12}(u_{i,j} - u_{i,j-1})\Big] = f_{i,j},

with face coefficients by **arithmetic** averaging, :math:`a_{i+\frac12,j} = (a_{i,j} + a_{i+1,j})/2`, as in
the paper's ``solve_gwf.m`` (``averaging="harmonic"``, :math:`2a_{i,j}a_{i+1,j}/(a_{i,j} + a_{i+1,j})`, is the
flux-continuous choice for discontinuous :math:`a`). For smooth :math:`a` and :math:`u` the scheme is second
order in :math:`h` (symmetric, consistent to :math:`O(h^2)`, monotone); the tests observe order 2 on a
manufactured solution. Each sample's matrix is factorised by sparse LU (SuperLU, symmetric mode with a
minimum-degree ordering of :math:`A + A^T`: 1.4 s at 421 × 421 here) and solved.

The FNO dataset (Li et al., ICLR 2021, §5.2): :math:`a = \psi_\#N(0, (-\Delta + 9I)^{-2})` (``grf.py``),
values 12 and 3, :math:`f = 1`, solved on a 421 × 421 grid and subsampled (``r = 5`` gives 85 × 85; the
nodes of the coarse grid are nodes of the fine one).
"""
from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import splu

from .grf import darcy_coefficient, sample_rngs

ORDER = 2  # the five-point scheme converges at order 2 in the grid step, with either averaging

AVERAGES = {
    "arithmetic": lambda a, b: 0.5 * (a + b),
    "harmonic": lambda a, b: 2.0 * a * b / (a + b),
}


def face_coefficients(a, averaging: str = "arithmetic"):
    r"""Face values :math:`a_{i+\frac12,j}` (shape ``(..., s-1, s)``) and :math:`a_{i,j+\frac12}` (``(..., s,
    s-1)``) of coefficients ``a (..., s, s)`` (NumPy, or jax.numpy: the operators' Darcy terms,
    ``sciml.solvers.fno.physics.Darcy``, are this scheme's)."""
    avg = AVERAGES[averaging]
    return avg(a[..., :-1, :], a[..., 1:, :]), avg(a[..., :, :-1], a[..., :, 1:])


def matrix(a: np.ndarray, averaging: str = "arithmetic") -> sparse.csc_matrix:
    r"""The scheme's matrix on the interior nodes of one ``(s, s)`` coefficient, in ``ij`` raveled order
    (index :math:`(i-1)(s-2) + (j-1)`), scaled by :math:`1/h^2`: symmetric positive definite."""
    s = a.shape[0]
    m, h = s - 2, 1.0 / (s - 1)
    ax, ay = face_coefficients(a, averaging)
    east, west = ax[1:, 1:-1], ax[:-1, 1:-1]  # a_{i+1/2,j}, a_{i-1/2,j} at interior (i, j): (m, m)
    north, south = ay[1:-1, 1:], ay[1:-1, :-1]  # a_{i,j+1/2}, a_{i,j-1/2}
    diag = (east + west + north + south).ravel()
    along_y = north.copy()
    along_y[:, -1] = 0.0  # no coupling across the end of a row of j
    along_y = along_y.ravel()[:-1]
    along_x = east[:-1, :].ravel()
    A = sparse.diags([diag, -along_y, -along_y, -along_x, -along_x], [0, 1, -1, m, -m], shape=(m * m, m * m),
                     format="csc")
    return A / h**2


def solve(a: np.ndarray, f: float | np.ndarray = 1.0, averaging: str = "arithmetic") -> np.ndarray:
    r"""Solutions ``(n, s, s)`` of :math:`-\nabla\cdot(a\nabla u) = f`, :math:`u|_{\partial\Omega} = 0`, for
    coefficients ``a`` of shape ``(n, s, s)``; ``f`` is a number or nodal values ``(s, s)`` or ``(n, s, s)``."""
    a = np.asarray(a, dtype=np.float64)
    n, s = a.shape[0], a.shape[-1]
    f = np.broadcast_to(np.asarray(f, dtype=np.float64), a.shape)
    u = np.zeros_like(a)
    for i in range(n):
        lu = splu(matrix(a[i], averaging), permc_spec="MMD_AT_PLUS_A", options={"SymmetricMode": True})
        u[i, 1:-1, 1:-1] = lu.solve(np.ascontiguousarray(f[i, 1:-1, 1:-1]).ravel()).reshape(s - 2, s - 2)
    return u


def generate(n_samples: int, resolution: int, seed: int, progress=None, *, r: int = 1, alpha: float = 2.0,
             tau: float = 3.0, high: float = 12.0, low: float = 3.0, f: float = 1.0,
             averaging: str = "arithmetic", modes: int | None = None) -> dict[str, np.ndarray]:
    r"""``n_samples`` Darcy pairs on the closed ``resolution``-point grid, solved on the grid of
    ``(resolution - 1) r + 1`` points (``r = 5`` with ``resolution = 85``: the paper's 421) and subsampled.

    Returns ``{"a": (n, s, s) coefficient (values high/low), "u": (n, s, s) solution, "x": (s,) nodes}``.
    ``modes``: cosines per axis of the random field (default: the solver grid's point count, as ``GRF.m``).
    ``progress(k)`` is called with the number of samples just finished (here 1, after each sample).
    """
    fine = _fine_grid(resolution, r)
    a_out = np.empty((n_samples, resolution, resolution))
    u_out = np.empty_like(a_out)
    for i, rng in enumerate(sample_rngs(seed, n_samples)):
        a = darcy_coefficient(rng, 1, fine, modes=modes, alpha=alpha, tau=tau, high=high, low=low)
        u = solve(a, f, averaging)
        a_out[i], u_out[i] = a[0, ::r, ::r], u[0, ::r, ::r]
        if progress is not None:
            progress(1)
    return {"a": a_out, "u": u_out, "x": np.linspace(0.0, 1.0, resolution)}


def coefficients(n_samples: int, resolution: int, seed: int, progress=None, *, r: int = 1, alpha: float = 2.0,
                 tau: float = 3.0, high: float = 12.0, low: float = 3.0, modes: int | None = None,
                 **solver) -> dict[str, np.ndarray]:
    """The coefficients of :func:`generate` with the same arguments (the same draws), not solved: ``{"a", "x"}``.
    ``solver``: :func:`generate`'s settings of the solve (``f``, ``averaging``), unread."""
    fine = _fine_grid(resolution, r)
    a_out = np.empty((n_samples, resolution, resolution))
    for i, rng in enumerate(sample_rngs(seed, n_samples)):
        a_out[i] = darcy_coefficient(rng, 1, fine, modes=modes, alpha=alpha, tau=tau, high=high, low=low)[0, ::r, ::r]
        if progress is not None:
            progress(1)
    return {"a": a_out, "x": np.linspace(0.0, 1.0, resolution)}


def _fine_grid(resolution: int, r: int) -> int:
    if resolution < 3 or r < 1:
        raise ValueError(f"need resolution >= 3 and r >= 1, got {resolution}, {r}")
    return (resolution - 1) * r + 1


def manufactured(s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a, f, u)`` on the s-point grid for u = sin(πx) sin(πy), a = 1 + xy, f = -∇·(a∇u)
    = -(y u_x + x u_y) + 2π² a u: a smooth problem for measuring the scheme's order."""
    pi = np.pi
    x = np.linspace(0.0, 1.0, s)
    X, Y = np.meshgrid(x, x, indexing="ij")
    u = np.sin(pi * X) * np.sin(pi * Y)
    a = 1.0 + X * Y
    ux, uy = pi * np.cos(pi * X) * np.sin(pi * Y), pi * np.sin(pi * X) * np.cos(pi * Y)
    return a, -(Y * ux + X * uy) + 2.0 * pi**2 * a * u, u
