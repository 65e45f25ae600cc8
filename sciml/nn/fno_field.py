r"""An FNO's output as a function of the coordinates: ``u = decode(params, a)``, ``u(x)`` at any points ``x``.

The grid forward pass (:func:`sciml.nn.fno.apply`) ends with the last Fourier layer and the pointwise
projection ``Q``,

.. math:: z = K_L v + W_L v + b_L, \qquad u = Q(z),

on the padded grid of :math:`N_a = n_a + p_a` points per axis (``v`` the previous layer's output, or the lifted
input when there is one layer). Decoding evaluates this layer as a trigonometric series at any ``x``: ``v`` by
its Fourier interpolant on the padded grid, the spectral convolution by its kept modes (already a
trigonometric polynomial), then ``W_L``, ``b_L`` and ``Q`` pointwise. By linearity these are one series, the
Fourier interpolant of ``z`` itself (with no Nyquist mode among the kept ones the two agree exactly; with one,
the interpolant takes its symmetric cosine, which is the same function at the grid points):

.. math:: z(x) = \frac{1}{N_1\cdots N_d}\,\mathrm{Re}\sum_{k} c_{k_d}\,\hat z(k)\prod_a \phi_{k_a}(t_a),
          \qquad t_a = x_a / h_a,

over the real FFT's half spectrum ``k`` (all ``k_a`` on the leading axes, ``0..N_d/2`` on the last), with
:math:`\phi_k(t) = e^{2\pi i k t/N}` and, for the Nyquist mode of an even axis, :math:`\phi_{N/2}(t) =
\cos\pi t` (so that the interpolant is real and smooth); :math:`c_{k_d} = 2` except for ``0`` and the Nyquist
mode (1), the Hermitian half as in ``irfft``. The grid step :math:`h_a` is that of the input grid:
``1/(n_a - 1)`` on a ``closed`` grid (``linspace(0, 1, n)``), ``1/n_a`` on a ``periodic`` one. Then
:math:`u(x) = Q(z(x))`.

Properties (tests/nn/test_fno_field.py): at the grid points ``u`` equals :func:`~sciml.nn.fno.apply` to
rounding; it is an entire function of ``x`` (sines, cosines, then the projection's activation), so
:mod:`sciml.autodiff` differentiates it in Taylor mode to any order like a PINN's network.

**Padding and non-periodic domains.** The series is periodic with the padded period :math:`N_a h_a` per axis,
not with the domain's: on a closed grid without padding that period is :math:`n/(n-1)`, with ``p`` points of
padding :math:`(n + p)/(n - 1)`. The physical domain :math:`[0, 1]^d` is the first :math:`n_a` points of
that period; the padding zone beyond it is where a non-periodic field wraps round to its start, so the field
on :math:`[0, 1]^d` need not be periodic (and boundary conditions there are the training's business, not the
basis's). Values in the padding zone are defined but mean nothing. At another resolution pass the padding
that keeps the period (``solvers.fno.model.scaled_padding``).

Cost: the spectrum ``ẑ`` is one FFT of the last layer's output per sample; evaluating ``M`` points costs one
GEMM ``(M, 2 N_1) @ (2 N_1, N_2'·batch·width·2)`` for the first axis (shared by all samples of the batch)
and an elementwise product-sum per further axis.

**On a grid.** Where the points form a tensor grid ``X_1 × … × X_d`` (a training grid, or one ``refine`` times
finer), :meth:`Field.on_grid` gives the same derivatives for a fraction of that: the partials
:math:`\partial^\alpha z` of the series up to an order ``r`` at every grid point, axis by axis (a GEMM
``(M_a, N_a)`` per axis and order: the derivatives of the basis are the basis at
:math:`\theta + m\pi/2` times :math:`\omega^m`), then the field's local Taylor polynomial

.. math:: u_r(x) = Q\Big(\sum_{|\alpha| \le r} \partial^\alpha z(x_0)\,\frac{(x - x_0)^\alpha}{\alpha!}\Big)

around each grid point :math:`x_0`. Its partials up to order ``r`` at :math:`x_0` are ``u``'s exactly (those of
``Q∘z`` depend on ``z``'s up to order ``r`` alone), so the engine differentiates ``u_r`` through the projection
at the grid points and gets ``u``'s derivatives, without pushing Taylor coefficients through the series. On
``plate_operator``'s energy (65² points, padded 41² grid, batch 10, width 24) that is
:math:`M N_1 N_2' \to (M_1 + M_1 M_2) N_2'` multiply-adds per channel.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np

from sciml.autodiff import multi_indices

from . import fno


@dataclass(frozen=True)
class Field:
    """A decoded output: ``field(x)`` at any points ``x (..., d)``; ``field.on_grid(axes, order)`` a function
    with the same values and partials up to ``order`` at the points of the tensor grid ``axes`` (its local
    Taylor polynomials, see the module's text), cheaper to differentiate there."""

    at: Callable
    local: Callable

    def __call__(self, x):
        return self.at(x)

    def on_grid(self, axes: Sequence, order: int) -> Callable:
        """``u_r(x)`` for the grid ``axes`` (1-D coordinates per axis) and ``r = order``: exact, with its partials
        up to ``order``, at the grid's points (:func:`grid_points`); its Taylor polynomial elsewhere."""
        return self.local(axes, order)

    def then(self, post: Callable) -> Field:
        """The field ``post(values, x)`` of this one's values (a scaling, a factor vanishing on the edges)."""
        def local(axes, order):
            f = self.local(axes, order)
            return lambda x: post(f(x), x)

        return Field(lambda x: post(self.at(x), x), local)

    def plus(self, other: Field) -> Field:
        """The field of this one's values and ``other``'s summed (a correction added to a decoded output)."""
        def local(axes, order):
            f, g = self.local(axes, order), other.local(axes, order)
            return lambda x: f(x) + g(x)

        return Field(lambda x: self.at(x) + other.at(x), local)


def grid_points(axes: Sequence, dtype=None) -> np.ndarray:
    """The points of the tensor grid ``axes[0] × … × axes[d-1]``, ``(M_1 ⋯ M_d, d)``, the first axis slowest."""
    grid = np.stack(np.meshgrid(*[np.asarray(a, np.float64) for a in axes], indexing="ij"), axis=-1)
    return grid.reshape(-1, len(axes)).astype(dtype or np.float64)


def decode(params: dict, a, *, grid: fno.GridKind | Sequence[fno.GridKind] | None = "closed",
           padding: int | Sequence[int] = 0, activation: str | Callable = "gelu", spectral: str = "auto",
           pad_fill: str = "zeros", kind: fno.GridKind | Sequence[fno.GridKind] | None = None) -> Field:
    """The FNO's output for input ``a`` as a function of the coordinates.

    Args:
        params: an FNO's parameters (:func:`sciml.nn.fno.init`).
        a: the input on a grid, ``(batch, n_1..n_d, c_in)``, or one sample ``(n_1..n_d, c_in)``.
        grid, padding, activation, spectral, pad_fill: as for :func:`sciml.nn.fno.apply`.
        kind: the kind of grid ``a`` lies on (``closed`` or ``periodic``, per axis or for all); default
            ``grid``, or ``closed`` when ``grid`` is ``None``.

    Returns:
        ``u``, a :class:`Field`: ``u(x)`` for points ``x`` of shape ``(..., d)`` in the input's coordinates
        ([0, 1] per axis), ``(..., batch, c_out)`` (every sample at the same points), or ``(..., c_out)`` for one
        sample. It is a pointwise function of ``x`` for :mod:`sciml.autodiff`; ``u.on_grid(axes, r)`` is the same
        up to order ``r`` at a tensor grid's points.
    """
    d = params["layers"][0]["spectral"].ndim - 3
    single = a.ndim == d + 1
    batch = a[None] if single else a
    shape = batch.shape[1:1 + d]
    kinds = _kinds(kind if kind is not None else (grid if grid is not None else "closed"), d)
    z = fno.hidden(params, batch, grid=grid, padding=padding, activation=activation, spectral=spectral,
                   pad_fill=pad_fill)
    sizes = z.shape[1:1 + d]
    steps = [1.0 / (n - 1) if k == "closed" else 1.0 / n for n, k in zip(shape, kinds)]
    spectrum = jnp.fft.rfftn(z, axes=tuple(range(1, 1 + d)))  # (batch, N_1..N_{d-1}, N_d//2+1, width)
    coef = jnp.moveaxis(spectrum, 0, -2) / float(np.prod(sizes))  # (N_1.., N_d', batch, width)
    re, im = jnp.real(coef), jnp.imag(coef)

    def out(z):
        out = fno.project(params, z, activation)
        return out[..., 0, :] if single else out

    return interpolant(re, im, sizes, steps, out)


def interpolant(re, im, sizes: Sequence[int], steps: Sequence[float], out: Callable = lambda z: z) -> Field:
    """The :class:`Field` ``out(z(x))`` of the trigonometric series ``z`` of coefficients ``re + i im`` (as for
    :func:`series`: the real FFT's layout over the sizes ``N_a``, already divided by ``Π N_a``; grid steps ``h_a``),
    ``out`` a pointwise map of its values (an FNO's projection; by default none)."""
    d = len(sizes)

    def local(axes, order):
        x0 = grid_points(axes)
        terms = [(alpha, grid_series(re, im, sizes, steps, axes, alpha).reshape(len(x0), *re.shape[d:])
                  / math.prod(math.factorial(k) for k in alpha))
                 for n in range(order + 1) for alpha in multi_indices(d, n)]

        def at(x):
            s = (x.reshape(-1, d) - jnp.asarray(x0, x.dtype)).astype(re.dtype)
            z = sum(c * _monomial(s, alpha)[(slice(None),) + (None,) * (c.ndim - 1)] for alpha, c in terms)
            return out(z.reshape((*x.shape[:-1], *z.shape[1:])))

        return at

    return Field(lambda x: out(series(re, im, sizes, steps, x)), local)


def _monomial(s, alpha):
    """``Π_a s_a^{α_a}`` of the offsets ``s (M, d)``, ``(M,)``."""
    value = jnp.ones(s.shape[:1], s.dtype)
    for a, k in enumerate(alpha):
        if k:
            value = value * s[:, a] ** k
    return value


def _kinds(kind, d: int) -> list[str]:
    kinds = [kind] * d if isinstance(kind, str) else list(kind)
    for k in kinds:
        if k not in ("closed", "periodic"):
            raise ValueError(f"grid kind {k!r}: expected 'closed' or 'periodic'")
    return kinds


def _basis(t, n: int, half: bool, order: int = 0):
    """``(cos θ, sin θ)`` of the modes of an axis of ``n`` points at continuous indices ``t (M,)``: the real FFT's
    ``0..n//2`` (``half``) or the FFT's ``0..n/2-1, -n/2..-1``; the Nyquist mode of an even ``n`` as ``cos πt``
    (its sine set to zero). ``order``: their ``order``-th derivatives in ``t``, ``ω^m (cos, sin)(θ + mπ/2)``
    (``ω = 2πk/n``; the Nyquist mode's ``ω^m cos(θ + mπ/2)``, its sine still zero)."""
    k = np.arange(n // 2 + 1) if half else np.fft.fftfreq(n, 1.0 / n).astype(int)
    omega = 2 * np.pi * k / n
    theta = t[:, None] * jnp.asarray(omega, t.dtype)
    if order:
        theta = theta + order * np.pi / 2
    scale = jnp.asarray(omega ** order, t.dtype)
    nyquist = jnp.asarray(2 * np.abs(k) == n)
    return scale * jnp.cos(theta), jnp.where(nyquist, 0.0, scale * jnp.sin(theta))


def series(re, im, sizes: Sequence[int], steps: Sequence[float], x):
    """``Re Σ_k c_{k_d} (re + i im)(k) Π_a φ_{k_a}(x_a / h_a)`` at the points ``x (..., d)``.

    ``re``, ``im``: the coefficients ``(N_1, ..., N_{d-1}, N_d//2 + 1, *tail)`` (the real FFT's layout, already
    divided by ``Π N_a``); ``sizes``: the ``N_a``; ``steps``: the ``h_a``. Returns ``(..., *tail)``. The first
    axis is contracted by one GEMM for all points, each further one by a product and a sum per point.
    """
    d = len(sizes)
    lead = x.shape[:-1]
    t = (x.reshape(-1, d) / jnp.asarray(steps, x.dtype)).astype(re.dtype)
    tail = re.shape[d:]
    hermitian = fno._hermitian(sizes[-1], np.arange(sizes[-1] // 2 + 1))  # as irfft: each k > 0 stands for ±k
    for a in range(d):
        last = a == d - 1
        c, s = _basis(t[:, a], sizes[a], half=last)
        if last:
            c, s = c * hermitian, s * hermitian
        if a == 0:  # all points at once: (M, 2 N_1) @ (2 N_1, rest), a GEMM per part
            parts = jnp.concatenate([re.reshape(len(re), -1), im.reshape(len(im), -1)], 0)
            shape = (-1, *re.shape[1:])
            re, im = ((jnp.concatenate(rows, 1) @ parts).reshape(shape) for rows in ([c, -s], [s, c]))
        else:  # per point: a product and a sum over the axis's modes
            expand = (slice(None), slice(None)) + (None,) * (re.ndim - 2)
            c, s = c[expand], s[expand]
            re, im = jnp.sum(re * c - im * s, axis=1), jnp.sum(re * s + im * c, axis=1)
    return re.reshape((*lead, *tail))  # the real part (the imaginary one of the last axis is never used)


def grid_series(re, im, sizes: Sequence[int], steps: Sequence[float], axes: Sequence, alpha: Sequence[int]):
    """The partial ``∂^α`` (in ``x``) of :func:`series` on the tensor grid ``axes[0] × … × axes[d-1]`` (1-D
    coordinates per axis), ``(M_1, …, M_d, *tail)``: per axis one GEMM of the basis's ``α_a``-th derivative
    (``(M_a, N_a)``, divided by ``h_a^{α_a}``) with the coefficients."""
    d = len(sizes)
    hermitian = fno._hermitian(sizes[-1], np.arange(sizes[-1] // 2 + 1))
    for a in range(d):
        last = a == d - 1
        t = jnp.asarray(np.asarray(axes[a], np.float64) / steps[a], re.dtype)
        c, s = (b / steps[a] ** alpha[a] for b in _basis(t, sizes[a], half=last, order=alpha[a]))
        if last:
            c, s = c * hermitian, s * hermitian
        re, im = (_contract(c, re, a) - _contract(s, im, a),
                  None if last else _contract(s, re, a) + _contract(c, im, a))
    return re


def _contract(matrix, v, axis: int):
    """``matrix (p, n)`` applied to ``v``'s axis ``axis`` (of ``n``), which then holds ``p``."""
    return jnp.moveaxis(jnp.tensordot(matrix, v, axes=([1], [axis])), 0, axis)
