r"""Physics terms of the FNO loss (physics-informed neural operators, PINO: Li, Zheng, Kovachki, Jin, Chen, Liu,
Azizzadenesheli & Anandkumar, *Physics-Informed Neural Operator for Learning Partial Differential Equations*,
ACM/IMS J. Data Sci. 2024, arXiv:2111.03794).

Each physics says what its terms read (``reads``). The plate's read the operator's output decoded as a function
of the coordinates (:func:`sciml.nn.fno_field.decode`), whose derivatives come from the Taylor engine
(:mod:`sciml.autodiff`), exactly, as a PINN's do; the collocation points are the points of the training grid,
where the inputs are known (or a grid ``refine`` times finer). On such grids the terms differentiate the field's
local Taylor polynomials (:meth:`sciml.nn.fno_field.Field.on_grid`: the series' partials by a GEMM per axis, the
engine through the projection), which have the field's partials there exactly: 6.6x faster steps on
``plate_operator`` than the series at the points. Darcy's read the output at the grid points, in the weak (flux)
form that a piecewise-constant coefficient needs (:class:`Darcy`). Each term is relative, so that its weight
(``training.terms``) means the same for any load scale.

Plate (generator ``plate``: the unit square, simply supported or, with ``data.params.edges: clamped``, clamped;
``D`` and ``ν`` from ``data.params``; the model's output channel 0 is ``w``). Its physics is the plate equation's
(:mod:`sciml.equations.plate`: the residual, the edge conditions, the bending moments, the total potential
energy), written once over the partials of ``w`` and read here of the decoded field's (:meth:`Plate.evaluate`), as
the PINN reads it of its network's, in physical variables (``D``; the load ``q`` per sample, the input); what
stays here is the grid: the points, the quadrature, the norms over the samples and the scales:

.. math::
    \text{pde} = \frac1B\sum_b \frac{\|D\,\Delta^2 w_b - q_b\|}{\|q_b\|}, \qquad
    \text{boundary} = \frac1B\sum_b \Big(\frac{1}{|E|}\sum_{x \in E}
        \frac{w_b(x)^2 + (\pi^{-2}\,(\partial_{nn} + \nu\,\partial_{tt}) w_b(x))^2}{W_b^2}\Big)^{1/2},

and the total potential energy (Ritz; its minimiser among fields with ``w = 0`` on the edges is the solution)

.. math::
    \text{energy} = \frac1B\sum_b \frac{\Pi(w_b)}{E_b}, \qquad
    \Pi(w) = \int_{[0,1]^2} \Big(\frac D2 (\Delta w)^2 - q\,w\Big)\,dx, \qquad E_b = \frac{\int q_b^2\,dx}{4\pi^4 D},

norms over the grid points, ``E`` the grid points on the edges (``w = 0`` and ``M_n ∝ w_{nn} + \nu w_{tt} =
0``, the simply supported conditions of the plate equation's :func:`~sciml.equations.plate.edge`; on clamped edges
:math:`\pi^{-1}\partial_n w` in place of the moment), and the deflection scale
:math:`W_b = \mathrm{rms}(q_b)/(4\pi^4 D)` (the amplitude under a sine load of the same size). A physics-only
run (``terms.data = 0``) scales the outputs by :meth:`Plate.output_scale` instead of the solved outputs'
moments, so that no solved sample enters its training.

The energy (:func:`sciml.equations.plate.potential`) is the whole Kirchhoff energy for fields that vanish on the
edges, whose simply supported moment condition ``M_n = 0`` is natural, so it needs no boundary term; it is
bounded below only among such fields (``model.vanish_on_edges`` imposes ``w = 0``). Clamped edges' ``∂_n w = 0``
is essential, not natural: ``model.vanish_on_edges`` imposes it too there (the edge factor squared). Since
:math:`\Pi(w) - \Pi(w^*) = \frac D2\|\Delta(w - w^*)\|^2`, a mode of wavenumber ``k`` weighs ``k⁴``, where the
squared strong residual weighs ``k⁸``. :math:`\Pi(w^*)/E_b` is ``-1/2`` for the load ``sin πx sin πy`` and
lies in ``[-1/2, 0)`` for any load (its higher modes are stiffer). The load's work is integrated on the training grid,
where ``q`` is known (Simpson's rule), the bending energy on a grid ``refine`` times finer (the trapezoid
rule): on the training grid alone the decoded field could make its Laplacian small at the points and large
between them, and the energy would have no lower bound.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
import numpy as np

from sciml.equations import plate
from sciml.equations.fields import Fields, collect, evaluator
from sciml.nn.fno_field import Field, grid_points

from ..classical.darcy import face_coefficients
from .generators import coordinates

# a plate edge's residual (sciml.equations.plate.EDGE_RULES) -> its order in the derivatives of w
EDGE_ORDERS = {"w": 0, "dw": 1, "m": 2}


@dataclass(frozen=True)
class Plate:
    """The plate's residual and edge conditions on a closed ``resolution``-point grid of the unit square."""

    reads = "field"  # the terms take the decoded output (a function of the coordinates)
    first_field = "w"  # the output channel the terms read, by the generator's name (data.params.fields)
    TERMS = ("pde", "boundary", "energy")  # the loss terms it has (config.PHYSICS_TERMS), :meth:`terms`
    D: float
    nu: float
    resolution: int
    refine: int = 2  # the energy's bending part on a grid this many times finer
    mode: str = "taylor"  # sciml.autodiff's mode for the derivatives of the decoded field (training.autodiff)
    edges: str = "simply_supported"  # or "clamped" (all four edges alike, data.params.edges)
    work: str = "grid"  # the load's work: on the inputs' grid (training), or "band" (:func:`band_limited`; refinement)
    gauss: int = 0  # the energy's fine quadrature: the trapezoid rule (0), or this many Gauss points a cell (nodes)

    @classmethod
    def of(cls, params: dict, resolution: int, mode: str = "taylor") -> Plate:
        return cls(float(params.get("D", 1.0)), float(params.get("nu", 0.3)), resolution, mode=mode,
                   edges=str(params.get("edges", "simply_supported")))

    def points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(grid (s², 2), edge points (E, 2), their outward unit normals (E, 2))``; a corner's normal is x's."""
        s = self.resolution
        grid = coordinates(s, 2, "closed")
        on_x = np.zeros((s, s), bool)
        on_x[[0, -1], :] = True
        on_y = np.zeros((s, s), bool)
        on_y[:, [0, -1]] = True
        edge = on_x | on_y
        side = np.sign(grid[edge] - 0.5)  # -1 on the edges x = 0 and y = 0, +1 on x = 1 and y = 1
        normal = np.where(on_x[edge][:, None], side * [1.0, 0.0], side * [0.0, 1.0])
        return grid.reshape(-1, 2), grid[edge], normal

    def terms(self) -> dict[str, Callable]:
        """Each of :attr:`TERMS` by name: ``(decoded field, inputs x) -> the term``."""
        return {"pde": self.pde, "boundary": self.boundary, "energy": self.energy}

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
        """``mx, my, mxy`` of the decoded field at ``points (..., 2)``, each ``(..., batch)``: the plate equation's
        (:func:`sciml.equations.plate.moments`) of its second derivatives."""
        return self.evaluate(lambda d: plate.moments(self.D, self.nu, d["w_xx"], d["w_yy"], d["w_xy"]), field,
                             points)

    def evaluate(self, fn: Callable[[Fields], Any], field: Callable, points, local: bool = False):
        """``fn`` of the decoded field's partials at ``points (..., 2)``: ``fn`` reads them as the PINN's residuals
        do (``d["w_xx"]``, ``d.bilap("w")``: :class:`~sciml.equations.fields.Fields`, ``w`` the output channel 0,
        each value ``(..., batch)``), and what it reads is computed in one propagation of the Taylor engine.
        ``local``: ``field`` is the decoded field's local polynomials around ``points`` (:func:`_on_grid`), whose
        value at a point depends on its place in ``points``: evaluated at all of them at once, never in the
        engine's tiles (which take every n-th point: 65² and finer grids failed so, 4225 points against a tile)."""
        requests = collect(fn, ("w",), ("x", "y"), points.dtype)
        options: dict[str, Any] = {"mode": self.mode, **({"chunk": None} if local else {})}
        return fn(evaluator(lambda p: field(p)[..., :1], requests, ("w",), ("x", "y"), **options)(points))

    def residual(self, field: Callable, x):
        """The plate equation's residual ``D Δ²w - q`` (:func:`sciml.equations.plate.residual`) at the grid points,
        ``(s², batch)`` in the grid's order, for the decoded field ``field(points) -> (..., batch, channels)`` of
        the loads ``x (batch, s, s, 1)``."""
        grid = jnp.asarray(self.points()[0], x.dtype)
        q = _loads(x)
        return self.evaluate(lambda d: plate.residual(plate.bending(d, self.nu), q, D=self.D),
                             _on_grid(field, self.resolution, 4), grid, local=isinstance(field, Field))

    def pde(self, field: Callable, x):
        """The :meth:`residual` relative to the load (arguments as there)."""
        q = _loads(x)
        return jnp.mean(_norm(self.residual(field, x)) / _norm(q))

    def estimate(self, field: Callable, x):
        """Each sample's estimate of the relative L2 error of the decoded field (arguments as for :meth:`pde`),
        ``(batch,)``: the :meth:`residual` at the grid's interior points mapped back to a deflection by the inverse
        of the discrete simply supported bilaplacian, ``δ = (D Δ_h²)⁻¹ r`` (diagonal in the sine basis,
        :func:`_sine_solver`), over the field less it: ``‖δ‖ / ‖w - δ‖``. For ``w = w* + e``, ``e`` smooth on the
        grid and zero with its Laplacian on the edges, ``δ ≈ e`` and ``w - δ ≈ w*``; on clamped edges the same
        inverse is an approximation. Measured on loads unlike the training's: docs/notes/operator_estimate.md."""
        s, batch = self.resolution, x.shape[0]
        r = self.residual(field, x).T.reshape(batch, s, s)[:, 1:-1, 1:-1]
        delta = _sine_inverse(r, power=2) / self.D
        w = _on_grid(field, s, 0)(jnp.asarray(self.points()[0], x.dtype))[..., 0].T.reshape(batch, s, s)
        return _relative(delta, w[:, 1:-1, 1:-1] - delta)

    def weights(self) -> np.ndarray:
        """Quadrature weights ``(s²,)`` on the closed grid of the training points, in its order: Simpson's rule where
        its ``s - 1`` intervals are even, else the trapezoid rule (:func:`nodes`; the energy's finer grid has its
        own there)."""
        n = self.resolution - 1
        h = nodes(n)[1]
        if n % 2 == 0:
            h = h * np.concatenate([[2.0 / 3.0], np.where(np.arange(1, n) % 2, 4.0, 2.0) / 3.0, [2.0 / 3.0]])
        return np.outer(h, h).ravel()

    def energy(self, field: Callable, x):
        """The total potential energy relative to ``E_b`` (arguments as for :meth:`pde`): the bending energy on the
        grid ``refine`` times finer (it must resolve the decoded field, else the energy has no lower bound: fields
        whose Laplacian is small at the grid points but not between), by the trapezoid rule or, with ``gauss``,
        by Gauss-Legendre with that many points in each of its cells (:func:`nodes`), the load's work on the
        training grid, where ``q`` is known (``work="grid"``), or that of the band-limited load whose work values
        the inputs are (``work="band"``, :func:`band_limited`) against the field at the fine quadrature's nodes,
        exact there for the field's sine modes below that grid's Nyquist. Why Gauss: the trapezoid rule's error
        grows with the field's frequency, and a refinement that lowers the energy far enough finds it: with it on
        the 6× grid a point-like patch's moments went from 3.6 % to 8.1 % off over 300 to 3000 iterations while the
        energy fell, with 3 Gauss points a cell of the 2× grid from 2.2 % to 0.8 % (docs/notes/operator_estimate.md,
        session 53)."""
        cells = (self.resolution - 1) * self.refine
        t, h = nodes(cells, self.gauss)
        fine = jnp.asarray(grid_points([t, t]), x.dtype)
        band = self.work == "band"
        w_fine, laplacian = self.evaluate(lambda d: (d["w"] if band else None, d.lap("w")),
                                          _local(field, t, 2), fine, local=isinstance(field, Field))
        fine_weight = jnp.asarray(np.outer(h, h).ravel(), x.dtype)[:, None]
        bending = jnp.sum(fine_weight * laplacian ** 2, 0)
        weight = jnp.asarray(self.weights(), x.dtype)[:, None]
        q = _loads(x)
        if band:
            L = jnp.asarray(band_limited(self.resolution, cells, self.gauss), x.dtype)
            q_fine = jnp.einsum("ai,bij,cj->acb", L, x[..., 0], L).reshape(len(t) ** 2, -1)
            work = jnp.sum(fine_weight * q_fine * w_fine, axis=0)
        else:
            values = _on_grid(field, self.resolution, 0)(jnp.asarray(self.points()[0], x.dtype))[..., 0]
            work = jnp.sum(weight * q * values, axis=0)
        scale = jnp.sum(weight * q * q, axis=0) / (4 * np.pi ** 4 * self.D) + jnp.finfo(x.dtype).tiny
        return jnp.mean(plate.potential(self.D, bending, work) / scale)

    def boundary(self, field: Callable, x):
        """The edge conditions' relative size (arguments as for :meth:`pde`): the plate equation's residuals of
        the edges (:func:`sciml.equations.plate.edge`), each of derivative order ``k`` over ``π^k``: ``w`` and ``π⁻²
        (w_nn + ν w_tt)`` (``∝ M_n``) on simply supported edges, ``w`` and ``π⁻¹ ∂_n w`` on clamped ones."""
        _, edge, normals = self.points()
        normal = jnp.asarray(normals[:, None], x.dtype)  # (E, 1, 2): one per point, for every sample
        residuals = self.evaluate(lambda d: plate.edge(self.edges, d, normal, self.nu), field,
                                  jnp.asarray(edge, x.dtype))
        size = sum((r / np.pi ** EDGE_ORDERS[name]) ** 2 for name, r in residuals.items())
        scale = jnp.sqrt(jnp.mean(x[..., 0].reshape(x.shape[0], -1) ** 2, axis=1)) / (4 * np.pi ** 4 * self.D)
        return jnp.mean(jnp.sqrt(jnp.mean(size, axis=0)) / scale)


@functools.lru_cache(maxsize=16)
def nodes(cells: int, gauss: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A quadrature of [0, 1] in ``cells`` equal cells, ``(nodes, weights)``: the trapezoid rule's ``cells + 1``
    points (``gauss`` 0), or ``gauss`` Gauss-Legendre points in each cell."""
    if not gauss:
        h = np.full(cells + 1, 1.0 / cells)
        h[[0, -1]] /= 2
        return np.linspace(0.0, 1.0, cells + 1), h
    offsets, weights = np.polynomial.legendre.leggauss(gauss)
    left = np.arange(cells) / cells
    return (left[:, None] + (offsets[None] + 1) / (2 * cells)).ravel(), np.tile(weights / (2 * cells), cells)


@functools.lru_cache(maxsize=16)
def band_limited(s: int, cells: int, gauss: int = 0) -> np.ndarray:
    """``L (n, s)``: the values at the ``n`` nodes of the fine quadrature (:func:`nodes` of ``cells`` cells: the closed
    ``cells + 1``-point grid, or ``gauss`` Gauss points a cell) of the band-limited load (sine modes ``1 .. s - 2``)
    whose work values on the closed ``s``-point grid (``ood_loads.work_values``: ``∫ q ψ_i / W_i`` per axis, ``ψ``
    the grid quadrature's basis) are the load's given ones at the interior points, per axis (``q_fine = L q Lᵀ``;
    the edge values do no work: zero columns). The grid's own quadrature of the work (Simpson's alternating weights)
    couples a load's mode ``m`` with ``s - 1 ± m``: the discrete energy's minimiser at 33² then has the mode (1, 5)'s
    ``M_x`` 6.9 % off and a point-like patch's 2-4.5 %, with this load 0.6 % at most
    (docs/notes/operator_refine_moments_floor.py). The refinement's since session 50 (``estimate.WORK``, with a
    cosine learning rate and the kept iterate's rule of :mod:`.estimate`; alone, at 200 steps, it had moved the mode
    (1, 5)'s kept iterate from 0.0017 to 0.46 off by the estimate rule: docs/notes/operator_estimate.md)."""
    from sciml.equations.plate_reference.ood_loads import basis_integrals

    m = np.arange(1, s - 1)
    A = basis_integrals(s, lambda t: np.sin(np.pi * np.outer(t, m)), points=32 + s)
    W = basis_integrals(s, lambda t: np.ones((len(t), 1)))[:, 0]
    inverse = np.linalg.inv(A[1:-1] / W[1:-1, None])  # (modes, interior points)
    t = nodes(cells, gauss)[0]
    L = np.zeros((len(t), s))
    L[:, 1:-1] = np.sin(np.pi * np.outer(t, m)) @ inverse
    return L


def _on_grid(field: Callable, n: int, order: int) -> Callable:
    """The decoded field as its local Taylor polynomials of degree ``order`` around the points of the closed
    ``n``-point grid of the unit square (:func:`_local`)."""
    return _local(field, np.linspace(0.0, 1.0, n), order)


def _local(field: Callable, axis: np.ndarray, order: int) -> Callable:
    """The decoded field as its local Taylor polynomials of degree ``order`` around the points of the grid ``axis ×
    axis`` (:meth:`sciml.nn.fno_field.Field.on_grid`: the same values and partials up to ``order`` there, cheaper
    to differentiate); a plain function of the points as it is."""
    return field.on_grid([axis, axis], order) if isinstance(field, Field) else field


def _loads(x):
    """The loads of the inputs ``x (batch, s, s, 1)`` at the grid points, ``(s², batch)`` in the grid's order."""
    return x[..., 0].reshape(x.shape[0], -1).T


def _norm(a):
    """``||a||`` over the points (axis 0), with a finite gradient at 0."""
    return jnp.sqrt(jnp.sum(a * a, axis=0) + jnp.finfo(a.dtype).tiny)


def _relative(error, reference):
    """``‖error‖ / ‖reference‖`` of each sample, both ``(batch, ...)``."""
    return _norm(error.reshape(error.shape[0], -1).T) / _norm(reference.reshape(reference.shape[0], -1).T)


def _sine_inverse(r, power: int = 1):
    """``L^-power r`` for values ``r (batch, n, n)`` on the ``n`` interior points of the closed unit grid, ``L = -Δ_h``
    the five-point Laplacian (zero on the edges): ``S (S r S / λ^power) S`` (:func:`_sine_solver`)."""
    sine, eigenvalues, _ = _sine_solver(r.shape[1], 1.0)
    S, lam = jnp.asarray(sine, r.dtype), jnp.asarray(eigenvalues, r.dtype)
    return S @ ((S @ r @ S) / lam ** power) @ S


@functools.cache
def _sine_solver(n: int, f: float) -> tuple[np.ndarray, np.ndarray, float]:
    """On the ``n`` interior points of the closed unit grid (``h = 1/(n+1)``): the orthonormal sine transform
    ``S = S^T = S^{-1}``, ``S_jk = √(2/(n+1)) sin(jkπ/(n+1))``, the eigenvalues ``λ_jk = (4/h²)(sin²(jπh/2) +
    sin²(kπh/2))`` of the five-point ``-Δ_h`` (zero on the edges), and ``‖L⁻¹ f‖`` for the constant ``f``."""
    k = np.arange(1, n + 1)
    sine = np.sqrt(2.0 / (n + 1)) * np.sin(np.pi * np.outer(k, k) / (n + 1))
    mu = 4.0 * (n + 1) ** 2 * np.sin(k * np.pi / (2 * (n + 1))) ** 2
    eigenvalues = mu[:, None] + mu[None, :]
    solved = sine @ ((sine @ np.full((n, n), f) @ sine) / eigenvalues) @ sine
    return sine, eigenvalues, float(np.linalg.norm(solved))


@dataclass(frozen=True)
class Darcy:
    r"""Darcy's equation :math:`-\nabla\cdot(a\nabla u) = f`, ``u = 0`` on the edges, on the closed
    ``resolution``-point grid of the unit square (generator ``darcy``; input channel 0 is ``a``, output channel 0
    is ``u``, ``f`` from ``data.params``).

    The coefficient jumps (12 and 3 across the interfaces of a thresholded random field), so the strong form
    :math:`-a\Delta u - \nabla a\cdot\nabla u = f` has no meaning on the interfaces (``∇a`` is a line of Dirac
    masses), and a decoded field's derivatives at the grid points would score a residual that the solution
    does not satisfy. The terms are in weak (flux) form on the grid instead, the operator's output at the grid
    points ``u_ij`` with the face coefficients of the classical scheme (:mod:`sciml.solvers.classical.darcy`,
    arithmetic averages ``a_{i+1/2,j}``):

    .. math::
        \Pi_h(u) = \frac12\sum_{\text{faces}} a_f\,(u_{f^+} - u_{f^-})^2 - h^2 \sum_{ij} f\,u_{ij},
        \qquad \text{energy} = \frac1B\sum_b \frac{\Pi_h(u_b)}{E_b},
        \qquad E_b = \frac{f^2}{2\pi^2\,\bar a_b},

    the discrete Dirichlet energy (Ritz), whose minimiser among grid fields with ``u = 0`` on the edges is the
    conservative five-point scheme's solution on the training grid (its gradient in ``u_ij`` is ``h²`` times the
    scheme's residual); ``ā_b`` the mean coefficient (``Π(u*)/E_b = -π² ∫u₀ = -0.347`` for a constant ``a``,
    ``u₀`` the square's torsion function, ``-Δu₀ = 1``). ``pde`` is that residual itself, relative,
    ``‖A_h u - f‖ / ‖f‖`` over the interior points, ``preconditioned`` that residual through the inverse of the
    five-point Laplacian (about the relative L2 error, :meth:`preconditioned`), and ``boundary`` the rms of ``u``
    on the edges over the output scale. The minimiser is the scheme's answer on the training grid, not the
    421-point solve the data come from: on darcy_fno's samples the scheme on 43 / 61 / 85 points with the
    subsampled coefficient is 1.25 / 0.98 / 0.65 % (rel-L2) from the fine solution subsampled, the floor of
    physics alone.
    """

    reads = "grid"  # the terms take the output at the grid points
    first_field = None
    TERMS = ("pde", "boundary", "energy", "preconditioned")  # the loss terms it has, :meth:`terms`
    f: float
    resolution: int

    @classmethod
    def of(cls, params: dict, resolution: int, mode: str = "taylor") -> Darcy:
        return cls(float(params.get("f", 1.0)), resolution)  # differences on the grid: no autodiff mode

    derived_names = ()  # no derived fields to score

    def terms(self) -> dict[str, Callable]:
        """Each of :attr:`TERMS` by name: ``(the output on the grid, inputs x) -> the term``."""
        return {"pde": self.pde, "boundary": self.boundary, "energy": self.energy,
                "preconditioned": self.preconditioned}

    def output_scale(self, x_mean, x_std=None):
        """The solution's scale ``|f| / (2π² ā)`` for coefficients of mean ``ā``."""
        return abs(self.f) / (2 * np.pi ** 2 * x_mean)

    def _parts(self, u, x):
        """``(u (batch, s, s), a (batch, s, s), a_x (batch, s-1, s), a_y (batch, s, s-1), h)`` from the outputs
        and inputs ``(batch, s, s, c)``: the classical scheme's face coefficients (arithmetic averages,
        :func:`sciml.solvers.classical.darcy.face_coefficients`)."""
        a = x[..., 0].astype(u.dtype)
        ax, ay = face_coefficients(a)
        return u[..., 0], a, ax, ay, 1.0 / (self.resolution - 1)

    def energy(self, u, x):
        """The discrete Dirichlet energy relative to ``E_b`` (the class's formula) of the outputs ``u (batch, s,
        s, c)`` at the grid points for the coefficients ``x (batch, s, s, 1)``."""
        u, a, ax, ay, h = self._parts(u, x)
        bending = jnp.sum(ax * jnp.diff(u, axis=1) ** 2, (1, 2)) + jnp.sum(ay * jnp.diff(u, axis=2) ** 2, (1, 2))
        work = h * h * self.f * jnp.sum(u[:, 1:-1, 1:-1], (1, 2))
        scale = self.f ** 2 / (2 * np.pi ** 2 * jnp.mean(a, (1, 2)))
        return jnp.mean((0.5 * bending - work) / scale)

    def _residual(self, u, x):
        """The scheme's residual ``A_h u - f`` at the interior points, ``(batch, s-2, s-2)``."""
        u, _, ax, ay, h = self._parts(u, x)
        fx, fy = ax * jnp.diff(u, axis=1), ay * jnp.diff(u, axis=2)  # a_f (u_{f+} - u_{f-}) on each face
        flux = (fx[:, 1:, 1:-1] - fx[:, :-1, 1:-1]) + (fy[:, 1:-1, 1:] - fy[:, 1:-1, :-1])
        return -flux / (h * h) - self.f

    def pde(self, u, x):
        """The scheme's residual ``‖A_h u - f‖ / ‖f‖`` over the interior points (arguments as for :meth:`energy`)."""
        residual = self._residual(u, x).reshape(u.shape[0], -1).T
        return jnp.mean(_norm(residual) / (abs(self.f) * np.sqrt(residual.shape[0])))

    def preconditioned(self, u, x):
        r"""The residual through the inverse of the five-point Laplacian ``L = -Δ_h`` (zero on the edges),
        relative: :math:`\|L^{-1}(A_h u - f)\| / \|L^{-1} f\|` (arguments as for :meth:`energy`).

        ``A_h`` is ``L`` with the coefficient inside, so ``L⁻¹A_h`` is as well conditioned as the coefficient's
        range (12/3 here): for ``u = u* + e`` the term is about ``ā‖e‖ / (ā‖u*‖)``, the relative L2 error, every
        wavenumber of ``e`` weighed alike (for a constant coefficient, exactly). The energy weighs wavenumber
        ``k`` by ``k²`` and the plain residual by ``k⁴``, so they see least the smooth modes that make most of the
        L2 error. ``L⁻¹`` by the discrete sine transform (``L``'s eigenvectors), dense: ``S (S r S / λ) S``."""
        residual = self._residual(u, x)
        z = _sine_inverse(residual)
        return jnp.mean(_norm(z.reshape(z.shape[0], -1).T)) / _sine_solver(residual.shape[1], self.f)[2]

    def estimate(self, u, x):
        """Each sample's estimate of the relative L2 error of the outputs ``u`` against the scheme's solution
        (arguments as for :meth:`energy`), ``(batch,)``: the residual through the inverse Laplacian (as
        :meth:`preconditioned`) over the sample's mean coefficient ``ā``, ``δ = L⁻¹(A_h u - f) / ā ≈ u - u*``, over
        the output less it at the interior points: ``‖δ‖ / ‖u - δ‖``, exact for a constant coefficient."""
        delta = _sine_inverse(self._residual(u, x)) / jnp.mean(x[..., 0], (1, 2))[:, None, None]
        return _relative(delta, u[:, 1:-1, 1:-1, 0] - delta)

    def boundary(self, u, x):
        """The rms of ``u`` on the edges over :meth:`output_scale` of each sample's coefficient."""
        u, a, *_ = self._parts(u, x)
        edge = jnp.concatenate([u[:, 0], u[:, -1], u[:, 1:-1, 0], u[:, 1:-1, -1]], axis=1)
        return jnp.mean(jnp.sqrt(jnp.mean(edge ** 2, axis=1)) / self.output_scale(jnp.mean(a, (1, 2))))


# generator -> its physics (``.of(data.params, resolution, mode)``)
PHYSICS: dict[str, type[Plate] | type[Darcy]] = {"plate": Plate, "darcy": Darcy}
