r"""Two-point boundary-value problems :math:`Y'''' - 2\alpha^2 Y'' + \alpha^4 Y = f` by the ultraspherical method.

On :math:`y = y_c + h t`, :math:`t \in [-1, 1]`, with :math:`\kappa = \alpha h` the equation reads
:math:`\hat Y'''' - 2\kappa^2 \hat Y'' + \kappa^4 \hat Y = h^4 f`. Writing :math:`Y = \sum_k c_k T_k(t)`, the
ultraspherical spectral method of Olver & Townsend (*SIAM Review* 55 (2013) 462–489) maps derivatives to
Gegenbauer bases, :math:`\frac{d^\lambda}{dt^\lambda} T_k = 2^{\lambda-1}(\lambda-1)!\,k\,C^{(\lambda)}_{k-\lambda}`,
and lower terms up by the banded conversions :math:`S_0: T \to C^{(1)}`, :math:`S_\lambda: C^{(\lambda)} \to
C^{(\lambda+1)}`, so that

.. math:: \bigl(\mathcal D_4 - 2\kappa^2 S_3 S_2 \mathcal D_2 + \kappa^4 S_3 S_2 S_1 S_0\bigr) c
          = S_3 S_2 S_1 S_0 \hat f

in :math:`C^{(4)}` coefficients, almost banded and well conditioned, unlike collocation of a fourth
derivative. Its first :math:`N - 4` rows, with four boundary rows from
:math:`T_k^{(d)}(\pm 1) = (\pm1)^{k+d}\prod_{i<d} (k^2 - i^2)/(2i + 1)`, determine the :math:`N` coefficients.

Boundary layers :math:`e^{-\alpha (y - y_0)}` of width :math:`1/\alpha` need about :math:`\sqrt{80\kappa}`
coefficients (the Chebyshev coefficients of :math:`e^{-\kappa(1+t)}` are :math:`2e^{-\kappa} I_k(\kappa)`, which
fall like :math:`e^{-k^2/2\kappa}`), which ``degree_for`` adds to the load's own resolution.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.polynomial import chebyshev as C
from scipy import sparse
from scipy.fft import dct
from scipy.sparse.linalg import spsolve


def points(n: int) -> np.ndarray:
    """Chebyshev points of the first kind on [-1, 1] (decreasing)."""
    return np.cos(np.pi * (np.arange(n) + 0.5) / n)


def coefficients(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Chebyshev coefficients of the interpolant through ``values`` at ``points(n)`` (DCT-II)."""
    n = values.shape[axis]
    c = dct(values, type=2, axis=axis) / n
    idx: list[slice | int] = [slice(None)] * values.ndim
    idx[axis] = 0
    c[tuple(idx)] /= 2
    return c


def degree_for(kappa: float, n_load: int) -> int:
    """Number of coefficients that resolves both the load and the boundary layers of width ``1/kappa``."""
    return max(n_load + 8, int(math.ceil(math.sqrt(80.0 * kappa))) + 32)


def _diff(n: int, lam: int) -> sparse.csr_matrix:
    k = np.arange(lam, n)
    return sparse.csr_matrix((2.0 ** (lam - 1) * math.factorial(lam - 1) * k, (k - lam, k)), shape=(n, n))


def _convert(n: int, lam: int) -> sparse.csr_matrix:
    j = np.arange(n)
    diag = np.full(n, 0.5) if lam == 0 else lam / (lam + j)
    upper = -0.5 * np.ones(n - 2) if lam == 0 else -lam / (lam + j[2:])
    if lam == 0:
        diag[0] = 1.0
    return sparse.csr_matrix((np.concatenate([diag, upper]), (np.concatenate([j, j[2:] - 2]),
                                                             np.concatenate([j, j[2:]]))), shape=(n, n))


def boundary_row(n: int, side: int, derivative: int) -> np.ndarray:
    """Row ``r`` with ``r @ c`` = the ``derivative``-th t-derivative at ``t = side`` (+1 or -1)."""
    k = np.arange(n, dtype=float)
    v = np.ones(n)
    for i in range(derivative):
        v = v * (k**2 - i**2) / (2 * i + 1)
    return v if side > 0 else v * (-1.0) ** (np.arange(n) + derivative)


@lru_cache(maxsize=8)
def _operators(n: int):
    r""":math:`\mathcal D_4`, :math:`S_3S_2\mathcal D_2`, :math:`S_3S_2S_1S_0` for ``n`` coefficients.

    All factors are upper triangular, so the leading block of a product is the product of the leading blocks:
    one set built for a large ``n`` serves every smaller one by slicing.
    """
    S0, S1, S2, S3 = (_convert(n, lam) for lam in range(4))
    S32 = S3 @ S2
    return tuple(P.toarray() for P in (_diff(n, 4), S32 @ _diff(n, 2), S32 @ S1 @ S0))


def solve(kappa: float, rhs: np.ndarray, bc_rows: np.ndarray, n: int) -> np.ndarray:
    r"""Chebyshev coefficients (length ``n``) of the solution on [-1, 1].

    ``rhs``: Chebyshev coefficients of :math:`h^4 f` (any length); ``bc_rows``: ``(4, 4)`` array, row i asks
    :math:`\sum_d \text{bc}_{id} \hat Y^{(d)}(t_i) = 0` with ``t = -1`` for rows 0, 1 and ``+1`` for rows 2, 3.
    The almost-banded system (four dense rows over a band of width 9) is solved by sparse LU with partial
    pivoting (SuperLU), which is single-threaded and :math:`O(n)`; dense LAPACK solves of this size were
    slowed 40-fold by BLAS threads on a busy two-core machine.
    """
    size = max(64, 1 << (n - 1).bit_length())
    P4, P2, P0 = (P[:n, :n] for P in _operators(size))
    A = np.empty((n, n))
    for i in range(4):
        A[i] = sum(bc_rows[i, d] * boundary_row(n, -1 if i < 2 else 1, d) for d in range(4))
    A[4:] = (P4[: n - 4] - (2.0 * kappa**2) * P2[: n - 4]) + kappa**4 * P0[: n - 4]
    f = np.zeros(n)
    f[: min(len(rhs), n)] = rhs[:n]
    b = np.concatenate([np.zeros(4), np.einsum("ij,j->i", P0[: n - 4], f)])  # einsum: no BLAS threads
    scale = 1.0 / np.abs(A).max(axis=1)
    return spsolve(sparse.csc_matrix(A * scale[:, None]), b * scale)


def evaluate(coef: np.ndarray, t: np.ndarray, h: float, derivatives: int = 3) -> list:
    r"""``[Y, Y', ...]`` up to ``derivatives`` y-derivatives at ``t``; ``coef`` has one column per series.

    Uses :math:`T_k(t) = \cos(k \arccos t)` (stable for any degree) and derivative coefficients from the
    three-term recurrence (``numpy.polynomial.chebyshev.chebder``), divided by :math:`h^d`.
    """
    t = np.clip(np.asarray(t, float), -1.0, 1.0)
    T = np.cos(np.outer(np.arccos(t), np.arange(coef.shape[0])))
    out, c = [], coef
    for _ in range(derivatives + 1):
        out.append(T[:, : c.shape[0]] @ c)
        c = C.chebder(c, scl=1.0 / h, axis=0)
    return out
