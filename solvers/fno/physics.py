r"""Physics terms of the FNO loss (physics-informed neural operators, PINO: Li, Zheng, Kovachki, Jin, Chen, Liu,
Azizzadenesheli & Anandkumar, *Physics-Informed Neural Operator for Learning Partial Differential Equations*,
ACM/IMS J. Data Sci. 2024, arXiv:2111.03794).

The operator's output for a batch of inputs is decoded as a function of the coordinates
(:func:`sciml.nn.fno_field.decode`), and its derivatives come from the Taylor engine (:mod:`sciml.autodiff`),
exactly, as a PINN's do. The collocation points are the points of the training grid, where the inputs are
known. Each term is relative, so that its weight (``training.terms``) means the same for any load scale.

Plate (generator ``plate``: the simply supported unit square, ``D`` and ``ν`` from ``data.params``; the model's
output channel 0 is ``w``):

.. math::
    \text{pde} = \frac1B\sum_b \frac{\|D\,\Delta^2 w_b - q_b\|}{\|q_b\|}, \qquad
    \text{boundary} = \frac1B\sum_b \Big(\frac{1}{|E|}\sum_{x \in E}
        \frac{w_b(x)^2 + (\pi^{-2}\,\partial_{nn} w_b(x))^2}{W_b^2}\Big)^{1/2},

norms over the grid points, ``E`` the grid points on the edges (``w = 0`` and ``M_n ∝ w_{nn} = 0``, the
simply supported conditions: with ``w = 0`` along an edge, ``w_{tt} = 0`` there), and the deflection scale
:math:`W_b = \mathrm{rms}(q_b)/(4\pi^4 D)` (the amplitude under a sine load of the same size). A physics-only
run (``terms.data = 0``) scales the outputs by :meth:`Plate.output_scale` instead of the solved outputs'
moments, so that no solved sample enters its training.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np

from sciml import autodiff as ad

from .generators import coordinates


@dataclass(frozen=True)
class Plate:
    """The plate's residual and edge conditions on a closed ``resolution``-point grid of the unit square."""

    D: float
    nu: float
    resolution: int

    @classmethod
    def of(cls, params: dict, resolution: int) -> Plate:
        return cls(float(params.get("D", 1.0)), float(params.get("nu", 0.3)), resolution)

    def points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(grid (s², 2), edge points (E, 2), whether each edge point's normal is x)``."""
        s = self.resolution
        grid = coordinates(s, 2, "closed")
        on_x = np.zeros((s, s), bool)
        on_x[[0, -1], :] = True
        on_y = np.zeros((s, s), bool)
        on_y[:, [0, -1]] = True
        edge = on_x | on_y
        return grid.reshape(-1, 2), grid[edge], on_x[edge]

    def output_scale(self, x_mean, x_std):
        """The deflection scale ``rms(q) / (4 π⁴ D)`` of loads with these moments."""
        return np.sqrt(np.asarray(x_mean) ** 2 + np.asarray(x_std) ** 2) / (4 * np.pi ** 4 * self.D)

    def moments(self, field: Callable, points) -> dict:
        """``mx, my, mxy`` of the decoded field at ``points (..., 2)``, each ``(..., batch)``:
        ``M_x = -D(w_xx + ν w_yy)``, ``M_y = -D(w_yy + ν w_xx)``, ``M_xy = -D(1 - ν) w_xy``."""
        d = ad.derivatives(lambda p: field(p)[..., 0], [(2, 0), (0, 2), (1, 1)])(points)
        wxx, wyy, wxy = d[(2, 0)], d[(0, 2)], d[(1, 1)]
        return {"mx": -self.D * (wxx + self.nu * wyy), "my": -self.D * (wyy + self.nu * wxx),
                "mxy": -self.D * (1 - self.nu) * wxy}

    def pde(self, field: Callable, x):
        """The relative residual for the decoded field ``field(points) -> (..., batch, channels)`` of the loads
        ``x (batch, s, s, 1)``."""
        grid = jnp.asarray(self.points()[0], x.dtype)
        q = x[..., 0].reshape(x.shape[0], -1).T  # (s², batch), the grid's order
        residual = self.D * ad.biharmonic(lambda p: field(p)[..., 0])(grid) - q
        return jnp.mean(_norm(residual) / _norm(q))

    def boundary(self, field: Callable, x):
        """The edge conditions' relative size (arguments as for :meth:`pde`)."""
        _, edge, normal_x = self.points()
        d = ad.derivatives(lambda p: field(p)[..., 0], [(0, 0), (2, 0), (0, 2)])(jnp.asarray(edge, x.dtype))
        w_nn = jnp.where(normal_x[:, None], d[(2, 0)], d[(0, 2)])
        scale = jnp.sqrt(jnp.mean(x[..., 0].reshape(x.shape[0], -1) ** 2, axis=1)) / (4 * np.pi ** 4 * self.D)
        return jnp.mean(jnp.sqrt(jnp.mean(d[(0, 0)] ** 2 + (w_nn / np.pi ** 2) ** 2, axis=0)) / scale)


def _norm(a):
    """``||a||`` over the points (axis 0), with a finite gradient at 0."""
    return jnp.sqrt(jnp.sum(a * a, axis=0) + jnp.finfo(a.dtype).tiny)


PHYSICS: dict[str, Callable] = {"plate": Plate.of}  # generator -> (data.params, resolution) -> its physics
