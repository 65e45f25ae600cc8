r"""Gaussian random fields on [0, 1]^d: the random inputs of the FNO datasets (Li et al., ICLR 2021).

**Periodic** (Burgers, Navier–Stokes). On the torus :math:`[0,1)^d` the operator :math:`-\Delta + \tau^2 I` has
eigenfunctions :math:`e^{2\pi i k\cdot x}`, :math:`k \in \mathbb{Z}^d`, and eigenvalues
:math:`4\pi^2|k|^2 + \tau^2`. A field :math:`u \sim N(0, \sigma^2(-\Delta + \tau^2 I)^{-\alpha})` has the
covariance

.. math:: \mathbb{E}[u(x)u(y)] = \sigma^2 \sum_k \lambda_k \cos 2\pi k\cdot(x - y), \qquad
          \lambda_k = (4\pi^2|k|^2 + \tau^2)^{-\alpha}.

It is drawn on the grid :math:`x_j = j/N` as :math:`u = \mathrm{Re}\,\mathrm{IFFT}(N^d\sqrt{2}\,\sigma
\lambda_k^{1/2}\xi_k)` with independent standard complex normals :math:`\xi_k`
(:math:`\mathbb{E}|\xi_k|^2 = 1`) for the :math:`N^d` grid wavenumbers :math:`k_i \in \{-N/2, …, N/2 - 1\}`,
exactly as the paper's ``GaussianRF`` does: taking the real part gives each :math:`k` the variance
:math:`\sigma^2\lambda_k`, so the discrete Fourier coefficients :math:`\hat u_k = \mathrm{FFT}(u)_k / N^d`
satisfy :math:`\mathbb{E}|\hat u_k|^2 = \sigma^2\lambda_k` and :math:`\mathrm{Var}\,u(x) =
\sigma^2\sum_k\lambda_k`. The mean mode :math:`k = 0` is left out (``mean_zero``), as in the paper: a vorticity
on the torus has zero mean, and the Burgers data have mean zero.

**Neumann** (Darcy). On :math:`[0,1]^2` with :math:`\partial_n u = 0` the eigenfunctions are
:math:`\phi_{k_1}(x)\phi_{k_2}(y)`, :math:`\phi_0 = 1`, :math:`\phi_k = \sqrt 2\cos\pi k x`, with eigenvalues
:math:`\pi^2|k|^2 + \tau^2`; the Karhunen–Loève expansion

.. math:: u(x, y) = \sigma\sum_{0 \le k_1, k_2 < K} (\pi^2|k|^2 + \tau^2)^{-\alpha/2}\,\xi_k\,
          \phi_{k_1}(x)\phi_{k_2}(y), \qquad \xi_k \sim N(0, 1),

without :math:`k = (0, 0)`, is the paper's ``GRF.m`` (``idct2`` of ``s * coef .* xi``), with ``K = s`` modes.
We evaluate it at the nodes :math:`x_i = i/(s-1)` of the closed grid the Darcy solver uses; ``GRF.m``
evaluates it at cell centres and its solver spline-interpolates to the nodes. The Darcy coefficient is
:math:`\psi(u)` with :math:`\psi = 12` on :math:`[0, \infty)` and :math:`3` on :math:`(-\infty, 0)`; the scale
:math:`\sigma` does not change it (``GRF.m`` uses :math:`\sigma = \tau^{\alpha-1}`, the paper's text
:math:`\sigma = 1`).

Randomness: every sampler takes a ``numpy.random.Generator`` (NumPy's stable PCG64 streams, float64), and
``sample_rngs(seed, n)`` gives one independent generator per sample, so sample ``i`` of a dataset depends on
``(seed, i)`` only, not on how many samples are drawn or in which batches.
"""
from __future__ import annotations

import math

import numpy as np


def sample_rngs(seed: int, n: int) -> list[np.random.Generator]:
    """``n`` independent generators, the ``i``-th a function of ``(seed, i)`` only (``SeedSequence.spawn``)."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


def wavenumbers(size: int) -> np.ndarray:
    """The FFT wavenumbers of ``size`` points: ``0, 1, …, N/2 - 1, -N/2, …, -1`` (as ``numpy.fft.fftfreq``)."""
    return np.fft.fftfreq(size, 1.0 / size)


def periodic_eigenvalues(size: int, dim: int, alpha: float, tau: float) -> np.ndarray:
    r""":math:`\lambda_k = (4\pi^2|k|^2 + \tau^2)^{-\alpha}` on the ``(size,)*dim`` FFT wavenumber grid."""
    k = np.meshgrid(*([wavenumbers(size)] * dim), indexing="ij")
    return (4.0 * math.pi**2 * sum(ki**2 for ki in k) + tau**2) ** (-alpha)


def periodic_grf(rng: np.random.Generator, n: int, size: int, dim: int = 1, *, alpha: float = 2.0,
                 tau: float = 3.0, sigma: float = 1.0, mean_zero: bool = True) -> np.ndarray:
    r"""``n`` samples of :math:`N(0, \sigma^2(-\Delta + \tau^2 I)^{-\alpha})` on the periodic grid
    :math:`x_j = j/\text{size}`, shape ``(n, size, …, size)`` (``dim`` spatial axes, ``ij`` order)."""
    sqrt_lam = sigma * np.sqrt(periodic_eigenvalues(size, dim, alpha, tau))
    if mean_zero:
        sqrt_lam[(0,) * dim] = 0.0
    shape = (n,) + (size,) * dim
    xi = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) / math.sqrt(2.0)
    coeff = size**dim * math.sqrt(2.0) * sqrt_lam * xi
    return np.fft.ifftn(coeff, axes=tuple(range(1, dim + 1))).real


def neumann_basis(points: np.ndarray, modes: int) -> np.ndarray:
    r"""Orthonormal Neumann eigenfunctions :math:`\phi_k(x)` on [0, 1], shape ``(len(points), modes)``."""
    k = np.arange(modes)
    phi = np.sqrt(2.0) * np.cos(math.pi * np.outer(points, k))
    phi[:, 0] = 1.0
    return phi


def neumann_grf(rng: np.random.Generator, n: int, size: int, *, modes: int | None = None, alpha: float = 2.0,
                tau: float = 3.0, sigma: float = 1.0, mean_zero: bool = True) -> np.ndarray:
    r"""``n`` samples of :math:`N(0, \sigma^2(-\Delta_N + \tau^2 I)^{-\alpha})` on :math:`[0,1]^2` (zero-flux
    Laplacian), truncated to ``modes`` (default ``size``) cosines per axis, at the nodes
    :math:`x_i = i/(\text{size}-1)`: shape ``(n, size, size)``."""
    modes = size if modes is None else modes
    k = np.arange(modes)
    sqrt_lam = sigma * (math.pi**2 * (k[:, None] ** 2 + k[None, :] ** 2) + tau**2) ** (-alpha / 2.0)
    if mean_zero:
        sqrt_lam[0, 0] = 0.0
    phi = neumann_basis(np.linspace(0.0, 1.0, size), modes)
    xi = rng.standard_normal((n, modes, modes))
    return np.einsum("ik,nkl,jl->nij", phi, sqrt_lam * xi, phi, optimize=True)


def neumann_variance(points: np.ndarray, modes: int, *, alpha: float = 2.0, tau: float = 3.0,
                     sigma: float = 1.0, mean_zero: bool = True) -> np.ndarray:
    r"""Pointwise variance :math:`\sigma^2\sum_k\lambda_k\phi_{k_1}(x)^2\phi_{k_2}(y)^2` of ``neumann_grf`` on
    the tensor grid ``points × points``."""
    k = np.arange(modes)
    lam = sigma**2 * (math.pi**2 * (k[:, None] ** 2 + k[None, :] ** 2) + tau**2) ** (-alpha)
    if mean_zero:
        lam[0, 0] = 0.0
    phi2 = neumann_basis(points, modes) ** 2
    return phi2 @ lam @ phi2.T


def threshold(field: np.ndarray, high: float = 12.0, low: float = 3.0) -> np.ndarray:
    r""":math:`\psi(u)`: ``high`` where :math:`u \ge 0`, ``low`` where :math:`u < 0` (the paper's Darcy map)."""
    return np.where(field >= 0.0, high, low)


def darcy_coefficient(rng: np.random.Generator, n: int, size: int, *, modes: int | None = None,
                      alpha: float = 2.0, tau: float = 3.0, high: float = 12.0, low: float = 3.0) -> np.ndarray:
    r"""Piecewise-constant Darcy coefficients :math:`\psi_\#N(0, (-\Delta_N + 9I)^{-2})`: ``(n, size, size)``
    with values ``high`` (12) and ``low`` (3)."""
    return threshold(neumann_grf(rng, n, size, modes=modes, alpha=alpha, tau=tau), high, low)
