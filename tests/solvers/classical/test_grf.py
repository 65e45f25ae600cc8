"""Gaussian random fields: the empirical spectrum and variance match the prescribed covariance within sampling
error; the Neumann basis is orthonormal; Darcy coefficients take the values 12 and 3 only."""
import math

import numpy as np
import pytest

from sciml.solvers.classical import grf


@pytest.mark.parametrize("dim, size, n, alpha, tau, sigma", [
    (1, 32, 4000, 2.0, 5.0, 25.0),          # Burgers: 625(-Δ + 25)^-2
    (2, 16, 1500, 2.5, 7.0, 7.0 ** 1.5),   # Navier–Stokes: 7^3 (-Δ + 49)^-2.5
])
def test_periodic_spectrum_and_variance(dim, size, n, alpha, tau, sigma):
    u = grf.periodic_grf(np.random.default_rng(0), n, size, dim, alpha=alpha, tau=tau, sigma=sigma)
    assert u.shape == (n,) + (size,) * dim and np.isrealobj(u)
    assert np.abs(u.mean(axis=tuple(range(1, dim + 1)))).max() < 1e-12  # the mean mode is left out
    axes = tuple(range(1, dim + 1))
    power = np.mean(np.abs(np.fft.fftn(u, axes=axes) / size**dim) ** 2, axis=0)  # E|û_k|^2 estimate
    lam = sigma**2 * grf.periodic_eigenvalues(size, dim, alpha, tau)
    lam[(0,) * dim] = 0.0
    ratio = np.where(lam > 0, power / np.where(lam > 0, lam, 1.0), 0.0)
    # |û_k|^2 is exponential (chi^2_2 / 2) for most k, chi^2_1 on the real Nyquist modes: sd <= sqrt(2 / n)
    assert np.abs(ratio[lam > 0] - 1.0).max() < 5.0 * math.sqrt(2.0 / n)
    assert power[(0,) * dim] < 1e-25
    # pointwise variance sigma^2 sum_k lambda_k; its estimate's sd from the per-mode variances (Parseval)
    var = np.mean(u**2)
    sd = math.sqrt(2.0 * np.sum(lam**2) / n)
    assert abs(var - lam.sum()) < 5.0 * sd, (var, lam.sum(), sd)


def test_neumann_basis_orthonormal_eigenfunctions():
    x = np.linspace(0.0, 1.0, 2001)
    phi = grf.neumann_basis(x, 6)
    w = np.full(x.size, x[1] - x[0])
    w[[0, -1]] /= 2  # trapezoidal rule: exact for these trigonometric products at this step
    np.testing.assert_allclose(phi.T @ (w[:, None] * phi), np.eye(6), atol=1e-12)
    # φ_k'' = -π²k² φ_k (central second differences) and φ_k'(0) = φ_k'(1) = 0 (central first differences)
    h, xs = 1e-3, np.array([0.0, 0.3, 1.0])
    b = lambda t: grf.neumann_basis(t, 6)  # noqa: E731
    second = (b(xs + h) - 2.0 * b(xs) + b(xs - h)) / h**2
    np.testing.assert_allclose(second, -(math.pi * np.arange(6)) ** 2 * b(xs), rtol=1e-4, atol=1e-6)
    assert np.abs(b(np.array([h, 1.0 + h])) - b(np.array([-h, 1.0 - h]))).max() < 1e-12


def test_neumann_variance_and_coefficients():
    size, n = 9, 3000
    u = grf.neumann_grf(np.random.default_rng(1), n, size, alpha=2.0, tau=3.0)
    x = np.linspace(0.0, 1.0, size)
    expected = grf.neumann_variance(x, size, alpha=2.0, tau=3.0)
    sample = u.var(axis=0)
    assert np.abs(sample / expected - 1.0).max() < 5.0 * math.sqrt(2.0 / n)
    # with as many modes as nodes the basis matrix is invertible: recover the standard normals ξ_k
    phi = grf.neumann_basis(x, size)
    c = np.linalg.solve(phi, np.linalg.solve(phi, u).transpose(0, 2, 1)).transpose(0, 2, 1)
    k = np.arange(size)
    sqrt_lam = (math.pi**2 * (k[:, None] ** 2 + k[None, :] ** 2) + 9.0) ** -1.0
    xi = (c / sqrt_lam)[:, (k[:, None] + k[None, :]) > 0]
    assert abs(xi.mean()) < 5.0 / math.sqrt(xi.size)
    assert abs(xi.var() - 1.0) < 5.0 * math.sqrt(2.0 / xi.size)
    assert np.abs(c[:, 0, 0]).max() < 1e-12


def test_darcy_coefficient_values():
    a = grf.darcy_coefficient(np.random.default_rng(2), 20, 33)
    assert set(np.unique(a)) == {3.0, 12.0}
    high = (a == 12.0).mean()
    assert 0.3 < high < 0.7  # a symmetric field: about half of the square on each side
    np.testing.assert_array_equal(grf.threshold(np.array([-1e-9, 0.0, 2.0])), [3.0, 12.0, 12.0])


def test_sample_rngs_are_per_sample():
    a = [g.standard_normal(3) for g in grf.sample_rngs(5, 4)]
    b = [g.standard_normal(3) for g in grf.sample_rngs(5, 2)]
    np.testing.assert_array_equal(a[:2], b)
    assert not np.allclose(a[0], a[1])
