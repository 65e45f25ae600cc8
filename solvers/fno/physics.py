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

and the total potential energy (Ritz; its minimiser among fields with ``w = 0`` on the edges is the solution)

.. math::
    \text{energy} = \frac1B\sum_b \frac{\Pi(w_b)}{E_b}, \qquad
    \Pi(w) = \int_{[0,1]^2} \Big(\frac D2 (\Delta w)^2 - q\,w\Big)\,dx, \qquad E_b = \frac{\int q_b^2\,dx}{4\pi^4 D},

norms over the grid points, ``E`` the grid points on the edges (``w = 0`` and ``M_n ∝ w_{nn} = 0``, the
simply supported conditions: with ``w = 0`` along an edge, ``w_{tt} = 0`` there), and the deflection scale
:math:`W_b = \mathrm{rms}(q_b)/(4\pi^4 D)` (the amplitude under a sine load of the same size). A physics-only
run (``terms.data = 0``) scales the outputs by :meth:`Plate.output_scale` instead of the solved outputs'
moments, so that no solved sample enters its training.

The energy is the whole Kirchhoff energy for fields that vanish on the edges: its Gaussian-curvature part
:math:`(1-\nu)\int (w_{xy}^2 - w_{xx}w_{yy})` integrates to 0 for ``w = 0`` on a polygon's edges, and the
simply supported moment condition ``M_n = 0`` is its natural condition, so it needs no boundary term; it is
bounded below only among such fields (``model.vanish_on_edges`` imposes ``w = 0``). For the solution ``w*``,
:math:`\Pi(w) - \Pi(w^*) = \frac D2\|\Delta(w - w^*)\|^2`: a mode of wavenumber ``k`` weighs ``k⁴``, where the
squared strong residual weighs ``k⁸``. :math:`\Pi(w^*)/E_b` is ``-1/2`` for the load ``sin πx sin πy`` and
lies in ``[-1/2, 0)`` for any load (its higher modes are stiffer). The load's work is integrated on the training grid,
where ``q`` is known (Simpson's rule), the bending energy on a grid ``refine`` times finer (the trapezoid
rule): on the training grid alone the decoded field could make its Laplacian small at the points and large
between them, and the energy would have no lower bound.
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
    refine: int = 2  # the energy's bending part on a grid this many times finer

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

    derived_names = ("mx", "my", "mxy")  # the fields :meth:`derived` gives, in the generator's names

    def derived_params(self) -> dict:
        """The generator's parameters that make it solve for :attr:`derived_names` (the reference of
        :meth:`derived`)."""
        return {"fields": list(self.derived_names)}

    def derived(self, field: Callable, points) -> dict:
        """The fields the evaluation derives from the decoded output and scores against the generator's: the
        bending moments (:meth:`moments`)."""
        return self.moments(field, points)

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

    def weights(self, fine: bool = False) -> np.ndarray:
        """Quadrature weights ``(n²,)`` on the closed grid of the training points (Simpson's rule where their
        ``s - 1`` intervals are even, else the trapezoid rule) or, ``fine``, on the grid ``refine`` times finer
        (the trapezoid rule), in the grids' order."""
        n = (self.resolution - 1) * (self.refine if fine else 1)
        h = np.full(n + 1, 1.0 / n)
        h[[0, -1]] /= 2
        if not fine and n % 2 == 0:
            h[1:-1] *= np.where(np.arange(1, n) % 2, 4.0, 2.0) / 3.0
            h[[0, -1]] *= 2.0 / 3.0
        return np.outer(h, h).ravel()

    def energy(self, field: Callable, x):
        """The total potential energy relative to ``E_b`` (arguments as for :meth:`pde`): the bending energy by
        the trapezoid rule on the grid ``refine`` times finer (it must resolve the decoded field, else the
        energy has no lower bound: fields whose Laplacian is small at the grid points but not between), the
        load's work on the training grid, where ``q`` is known."""
        w = lambda p: field(p)[..., 0]
        fine = jnp.asarray(coordinates((self.resolution - 1) * self.refine + 1, 2, "closed").reshape(-1, 2), x.dtype)
        bending = jnp.sum(jnp.asarray(self.weights(fine=True), x.dtype)[:, None] * ad.laplacian(w)(fine) ** 2, 0)
        weight = jnp.asarray(self.weights(), x.dtype)[:, None]
        q = x[..., 0].reshape(x.shape[0], -1).T  # (s², batch), the grid's order
        work = jnp.sum(weight * q * w(jnp.asarray(self.points()[0], x.dtype)), axis=0)
        scale = jnp.sum(weight * q * q, axis=0) / (4 * np.pi ** 4 * self.D) + jnp.finfo(x.dtype).tiny
        return jnp.mean((0.5 * self.D * bending - work) / scale)

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
