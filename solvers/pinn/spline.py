r"""A C² cubic B-spline on a uniform grid: fitted on the host, evaluated (and differentiated) in JAX.

A field known on the cell centres :math:`x_i = lo + (i + \tfrac12) h` of a box (a start flow's lattice, a time
window's last fields) becomes the tensor-product spline

.. math:: S(x) = \sum_{k} c_k \prod_a \beta_3\!\left(\frac{x_a - lo_a}{h_a} - \tfrac12 - k_a\right),

which interpolates the values at the nodes (:func:`fit`: the coefficients of ``scipy.ndimage.spline_filter``
of the values extended by ``PAD`` nodes on each side by odd reflection, ``2 v_0 - v_k``, which keeps a linear
trend, so the sides cost O(h²) where a mirror would cost O(h)). :func:`value` evaluates it from the 4
coefficients per axis around a point (a gather) and the cubic B-spline's weights, a polynomial of the point's
place in its cell: the engine differentiates it like any jaxpr (``floor`` and the gather carry no derivative),
twice continuously across cells. Points outside the nodes (up to the box's sides, half a cell) take the
extension's cells.

:func:`least_squares` fits the same spline to scattered data instead of interpolating nodes: the coefficients
(the extension's included) that minimise

.. math:: \frac{1}{n}\sum_i \bigl(w_i S(x_i) - y_i\bigr)^2 + \frac{\lambda}{m} \sum_a \lVert D_a^2 c \rVert^2,

``w_i`` a weight per point (a factor the spline is multiplied by, e.g. an exact condition's ``phi``), ``D_a^2``
the coefficients' second differences along axis ``a`` (``m`` their count) and ``lambda`` the smoothing: it
fixes the coefficients no data point reaches (a hole, the extension) and damps what the data's own grid puts
in (a lattice's staircase wall). A sparse linear solve of the normal equations (:func:`design`: the data's rows).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
import numpy as np
from scipy import ndimage, sparse
from scipy.sparse import linalg

PAD = 4  # extension nodes on each side


@dataclass(frozen=True)
class Spline:
    """Coefficients ``(n_0 + 2 PAD, ...)`` of the extended nodes' spline; the box's lower corner and the cells'
    sizes per axis."""

    coefs: np.ndarray
    lo: tuple[float, ...]
    spacing: tuple[float, ...]

    @property
    def shape(self) -> tuple[int, ...]:
        """The nodes per axis."""
        return tuple(n - 2 * PAD for n in self.coefs.shape)


def nodes(box, cells) -> list[np.ndarray]:
    """The cell centres per axis of ``box`` ``[(lo, hi), ...]`` cut into ``cells`` per axis."""
    return [lo + (np.arange(n) + 0.5) * (hi - lo) / n for (lo, hi), n in zip(box, cells)]


def fit(values: np.ndarray, box) -> Spline:
    """The spline through ``values`` (one per cell centre of ``box``, :func:`nodes`)."""
    values = np.asarray(values, float)
    if min(values.shape) < 4:
        raise ValueError(f"a cubic spline needs at least 4 nodes per axis, got {values.shape}")
    extended = np.pad(values, PAD, mode="reflect", reflect_type="odd")
    coefs = ndimage.spline_filter(extended, order=3, mode="mirror")
    spacing = tuple((hi - lo) / n for (lo, hi), n in zip(box, values.shape))
    return Spline(coefs, tuple(float(lo) for lo, _ in box), spacing)


def _weights(f):
    """The cubic B-spline's weights ``(..., 4)`` of the nodes ``i - 1 .. i + 2`` at ``f = u - i``."""
    g = 1.0 - f
    return jnp.stack([g ** 3, 3.0 * f ** 3 - 6.0 * f ** 2 + 4.0, -3.0 * f ** 3 + 3.0 * f ** 2 + 3.0 * f + 1.0,
                      f ** 3], -1) / 6.0


def value(spline: Spline, x):
    """The spline at points ``x (..., d)``."""
    coefs = jnp.asarray(spline.coefs, x.dtype).reshape(-1)
    strides = np.cumprod((1, *spline.coefs.shape[::-1]))[:-1][::-1]
    flat: Any = 0
    weight: Any = 1.0
    d = len(spline.shape)
    for a, n in enumerate(spline.shape):
        u = (x[..., a] - spline.lo[a]) / spline.spacing[a] - 0.5
        i = jnp.clip(jnp.floor(u), -1, n - 1)
        place = (Ellipsis, *(slice(None) if b == a else None for b in range(d)))
        index = i.astype(jnp.int32)[..., None] + jnp.arange(PAD - 1, PAD + 3)  # the nodes i - 1 .. i + 2
        flat = flat + int(strides[a]) * index[place]
        weight = weight * _weights(u - i)[place]
    return jnp.sum(weight * coefs[flat], axis=tuple(range(-d, 0)))


def _place(x, lo: float, spacing: float, n: int):
    """The first of the 4 extended coefficients around points ``x`` (one axis) and their weights ``(N, 4)``."""
    u = (np.asarray(x, float) - lo) / spacing - 0.5
    i = np.clip(np.floor(u), -1, n - 1)
    return i.astype(int) + PAD - 1, np.asarray(_weights(u - i))


def design(shape, lo, spacing, x: np.ndarray) -> sparse.csr_matrix:
    """The spline's values at points ``x (N, d)`` as a sparse matrix ``(N, coefficients)`` over the extended
    coefficients of a spline with ``shape`` nodes per axis (row ``i``: :func:`value` at ``x_i`` per coefficient)."""
    x = np.atleast_2d(np.asarray(x, float))
    extended = tuple(n + 2 * PAD for n in shape)
    cols: np.ndarray = np.zeros((len(x), 1), int)
    vals: np.ndarray = np.ones((len(x), 1))
    for a, n in enumerate(shape):
        first, w = _place(x[:, a], lo[a], spacing[a], n)
        index = first[:, None] + np.arange(4)
        cols = (cols[:, :, None] * extended[a] + index[:, None, :]).reshape(len(x), -1)
        vals = (vals[:, :, None] * w[:, None, :]).reshape(len(x), -1)
    rows = np.repeat(np.arange(len(x)), cols.shape[1])
    return sparse.csr_matrix((vals.ravel(), (rows, cols.ravel())), shape=(len(x), int(np.prod(extended))))


def _second_differences(extended) -> sparse.csr_matrix:
    """The coefficients' second differences along each axis, stacked ``(m, coefficients)``."""
    blocks = []
    for a, n in enumerate(extended):
        d2 = sparse.diags([1.0, -2.0, 1.0], [0, 1, 2], shape=(n - 2, n))
        factors = [sparse.identity(k) if b != a else d2 for b, k in enumerate(extended)]
        block = factors[0]
        for f in factors[1:]:
            block = sparse.kron(block, f)
        blocks.append(block)
    return sparse.vstack(blocks).tocsr()


def least_squares(x: np.ndarray, y: np.ndarray, box, cells, smoothing: float, weights=None) -> Spline:
    """The spline on ``cells`` per axis of ``box`` that best fits ``weights * S(x) = y`` at points ``x (N, d)``
    with ``smoothing`` (module notes; ``weights`` 1 when None)."""
    if min(cells) < 4:
        raise ValueError(f"a cubic spline needs at least 4 nodes per axis, got {tuple(cells)}")
    if not smoothing > 0:
        raise ValueError(f"the smoothing must be positive (it fixes the coefficients no point reaches), "
                         f"got {smoothing}")
    lo = tuple(float(a) for a, _ in box)
    spacing = tuple((hi - a) / n for (a, hi), n in zip(box, cells))
    rows = design(cells, lo, spacing, x)
    if weights is not None:
        rows = sparse.diags(np.asarray(weights, float)) @ rows
    extended = tuple(n + 2 * PAD for n in cells)
    d2 = _second_differences(extended)
    normal = rows.T @ rows / len(x) + smoothing / d2.shape[0] * (d2.T @ d2)
    coefs = linalg.spsolve(normal.tocsc(), rows.T @ np.asarray(y, float) / len(x))
    return Spline(np.asarray(coefs).reshape(extended), lo, spacing)
