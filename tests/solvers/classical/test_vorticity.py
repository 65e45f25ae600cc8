"""Vorticity Navier–Stokes: Taylor–Green decay and the forced single-shell state are exact (up to Crank–Nicolson's
own decay factor); CN–Heun is second order in time, the paper's CN–Euler first order."""
import math

import numpy as np
import pytest

from sciml.solvers.classical import grf, vorticity

TWO_PI = 2.0 * math.pi


def mesh(s):
    x = np.arange(s) / s
    return np.meshgrid(x, x, indexing="ij")


def cn_factor(z, n):
    """Crank–Nicolson's amplification ((1 - z/2) / (1 + z/2))^n of the decay rate z = h ν |κ|^2."""
    return ((1.0 - 0.5 * z) / (1.0 + 0.5 * z)) ** n


@pytest.mark.parametrize("shell", [1, 2])
def test_taylor_green_decay(shell):
    """w = 2k cos(kx) cos(ky) (+ a sine on the same shell), k = 2π·shell: u·∇w = 0, w decays as exp(-2νk²t)."""
    s, nu, T, dt = 16, 0.01, 1.0, 0.01
    X, Y = mesh(s)
    k = TWO_PI * shell
    w0 = 2.0 * k * np.cos(k * X) * np.cos(k * Y) + 3.0 * np.sin(k * (X + Y))
    for scheme in vorticity.SCHEMES:
        w = vorticity.solve(w0[None], nu=nu, T=T, dt=dt, record_steps=4, scheme=scheme)[0]
        for m in range(4):
            t = T * (m + 1) / 4
            exact = w0 * math.exp(-2.0 * nu * k**2 * t)
            discrete = w0 * cn_factor(dt * nu * 2.0 * k**2, round(t / dt))
            np.testing.assert_allclose(w[..., m], discrete, atol=1e-12 * np.abs(w0).max())
            assert np.abs(w[..., m] - exact).max() < 1e-5 * shell**6 * np.abs(w0).max()


def test_forced_single_shell_state():
    """With f on the shell |k|² = 2 (the paper's forcing) and w0 = 0, w = f/(8π²ν) (1 - exp(-8π²νt))."""
    s, nu, dt = 16, 0.01, 0.01
    f = vorticity.forcing(s)
    rate = nu * 2.0 * TWO_PI**2
    w = vorticity.solve(np.zeros((1, s, s)), f, nu=nu, T=2.0, dt=dt, record_steps=2)[0]
    for m, t in enumerate((1.0, 2.0)):
        discrete = f / rate * (1.0 - cn_factor(dt * rate, round(t / dt)))
        np.testing.assert_allclose(w[..., m], discrete, atol=1e-13)
        assert np.abs(w[..., m] - f / rate * (1.0 - math.exp(-rate * t))).max() < 1e-6


def test_generate_shapes_and_time_axis():
    d = vorticity.generate(2, 16, seed=1, T=2.0, dt=1e-2)
    assert d["a"].shape == (2, 16, 16) and d["w"].shape == (2, 16, 16, 2)
    np.testing.assert_allclose(d["t"], [1.0, 2.0])
    np.testing.assert_allclose(d["f"], vorticity.forcing(16))
    assert np.abs(d["w"].mean(axis=(1, 2))).max() < 1e-13  # zero-mean vorticity stays zero-mean
    # the first snapshot is w(1), not w(0): one more solve from a over t = 1 gives it
    w1 = vorticity.solve(d["a"], d["f"], T=1.0, dt=1e-2)[..., 0]
    np.testing.assert_allclose(d["w"][..., 0], w1, atol=1e-12)
    d2 = vorticity.generate(2, 8, seed=1, r=2, T=1.0, dt=1e-2)  # solved on 16², stored on 8²
    fine = grf.periodic_grf(grf.sample_rngs(1, 1)[0], 1, 16, 2, alpha=2.5, tau=7.0, sigma=7.0**1.5)
    np.testing.assert_array_equal(d2["a"][0], fine[0, ::2, ::2])
    np.testing.assert_array_equal(d2["w"][..., 0], w1[:, ::2, ::2])
