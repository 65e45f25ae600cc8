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
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
import numpy as np
from scipy import ndimage

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
