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
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import jax.numpy as jnp
import numpy as np

from . import fno


def decode(params: dict, a, *, grid: fno.GridKind | Sequence[fno.GridKind] | None = "closed",
           padding: int | Sequence[int] = 0, activation: str | Callable = "gelu", spectral: str = "auto",
           kind: fno.GridKind | Sequence[fno.GridKind] | None = None) -> Callable:
    """The FNO's output for input ``a`` as a function of the coordinates.

    Args:
        params: an FNO's parameters (:func:`sciml.nn.fno.init`).
        a: the input on a grid, ``(batch, n_1..n_d, c_in)``, or one sample ``(n_1..n_d, c_in)``.
        grid, padding, activation, spectral: as for :func:`sciml.nn.fno.apply`.
        kind: the kind of grid ``a`` lies on (``closed`` or ``periodic``, per axis or for all); default
            ``grid``, or ``closed`` when ``grid`` is ``None``.

    Returns:
        ``u(x)``: for points ``x`` of shape ``(..., d)`` in the input's coordinates ([0, 1] per axis),
        ``(..., batch, c_out)`` (every sample at the same points), or ``(..., c_out)`` for one sample. It is a
        pointwise function of ``x`` for :mod:`sciml.autodiff`.
    """
    d = params["layers"][0]["spectral"].ndim - 3
    single = a.ndim == d + 1
    batch = a[None] if single else a
    shape = batch.shape[1:1 + d]
    kinds = _kinds(kind if kind is not None else (grid if grid is not None else "closed"), d)
    z = fno.hidden(params, batch, grid=grid, padding=padding, activation=activation, spectral=spectral)
    sizes = z.shape[1:1 + d]
    steps = [1.0 / (n - 1) if k == "closed" else 1.0 / n for n, k in zip(shape, kinds)]
    spectrum = jnp.fft.rfftn(z, axes=tuple(range(1, 1 + d)))  # (batch, N_1..N_{d-1}, N_d//2+1, width)
    coef = jnp.moveaxis(spectrum, 0, -2) / float(np.prod(sizes))  # (N_1.., N_d', batch, width)
    re, im = jnp.real(coef), jnp.imag(coef)

    def u(x):
        out = fno.project(params, series(re, im, sizes, steps, x), activation)
        return out[..., 0, :] if single else out

    return u


def _kinds(kind, d: int) -> list[str]:
    kinds = [kind] * d if isinstance(kind, str) else list(kind)
    for k in kinds:
        if k not in ("closed", "periodic"):
            raise ValueError(f"grid kind {k!r}: expected 'closed' or 'periodic'")
    return kinds


def _basis(t, n: int, half: bool):
    """``(cos θ, sin θ)`` of the modes of an axis of ``n`` points at continuous indices ``t (M,)``: the real FFT's
    ``0..n//2`` (``half``) or the FFT's ``0..n/2-1, -n/2..-1``; the Nyquist mode of an even ``n`` as ``cos πt``
    (its sine set to zero)."""
    k = np.arange(n // 2 + 1) if half else np.fft.fftfreq(n, 1.0 / n).astype(int)
    theta = t[:, None] * jnp.asarray(2 * np.pi * k / n, t.dtype)
    nyquist = jnp.asarray(2 * np.abs(k) == n)
    return jnp.cos(theta), jnp.where(nyquist, 0.0, jnp.sin(theta))


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
