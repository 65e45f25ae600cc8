"""Vorticity Navier–Stokes: Taylor–Green decay and the forced single-shell state are exact (up to Crank–Nicolson's
own decay factor; the integrating factor's is exact); CN–Heun is second order in time, the paper's CN–Euler first
order, IF–RK4 fourth (tests/solvers/test_orders.py). Steps chosen by the flow's speed (``cfl``) are each sample's
own and keep the solution within a bound of a fine fixed-step one."""
import math
import re

import numpy as np
import pytest

from sciml.errors import UserError
from sciml.solvers.classical import grf, vorticity

TWO_PI = 2.0 * math.pi


def mesh(s):
    x = np.arange(s) / s
    return np.meshgrid(x, x, indexing="ij")


def cn_factor(z, n):
    """Crank–Nicolson's amplification ((1 - z/2) / (1 + z/2))^n of the decay rate z = h ν |κ|^2."""
    return ((1.0 - 0.5 * z) / (1.0 + 0.5 * z)) ** n


DECAY = {"heun": cn_factor, "euler": cn_factor, "ifrk4": lambda z, n: math.exp(-z * n)}  # each scheme's own


def taylor_green(s, shell):
    X, Y = mesh(s)
    k = TWO_PI * shell
    return 2.0 * k * np.cos(k * X) * np.cos(k * Y) + 3.0 * np.sin(k * (X + Y))


@pytest.mark.parametrize("shell", [1, 2])
def test_taylor_green_decay(shell):
    """w = 2k cos(kx) cos(ky) (+ a sine on the same shell), k = 2π·shell: u·∇w = 0, w decays as exp(-2νk²t)."""
    s, nu, T, dt = 16, 0.01, 1.0, 0.01
    k = TWO_PI * shell
    w0 = taylor_green(s, shell)
    for scheme in vorticity.SCHEMES:
        w = vorticity.solve(w0[None], nu=nu, T=T, dt=dt, record_steps=4, scheme=scheme)[0]
        for m in range(4):
            t = T * (m + 1) / 4
            exact = w0 * math.exp(-2.0 * nu * k**2 * t)
            discrete = w0 * DECAY[scheme](dt * nu * 2.0 * k**2, round(t / dt))
            np.testing.assert_allclose(w[..., m], discrete, atol=1e-12 * np.abs(w0).max())
            assert np.abs(w[..., m] - exact).max() < 1e-5 * shell**6 * np.abs(w0).max()


def test_taylor_green_with_steps_from_the_speed():
    """The integrating factor makes the decay exact whatever steps the speed picks (here about 60 per record)."""
    s, nu = 16, 0.01
    w0 = taylor_green(s, 1)
    w = vorticity.solve(w0[None], nu=nu, T=1.0, dt=1.0, record_steps=4, scheme="ifrk4", cfl=1.0)[0]
    for m in range(4):
        exact = w0 * math.exp(-2.0 * nu * TWO_PI**2 * (m + 1) / 4)
        np.testing.assert_allclose(w[..., m], exact, atol=1e-12 * np.abs(w0).max())


def test_forced_single_shell_state():
    """With f on the shell |k|² = 2 (the paper's forcing) and w0 = 0, w = f/(8π²ν) (1 - exp(-8π²νt))."""
    s, nu, dt = 16, 0.01, 0.01
    f = vorticity.forcing(s)
    rate = nu * 2.0 * TWO_PI**2
    for scheme in vorticity.SCHEMES:
        w = vorticity.solve(np.zeros((1, s, s)), f, nu=nu, T=2.0, dt=dt, record_steps=2, scheme=scheme)[0]
        for m, t in enumerate((1.0, 2.0)):
            exact = f / rate * (1.0 - math.exp(-rate * t))
            if scheme == "ifrk4":  # Simpson's rule on the exact integral of e^{-rate (t - s)} f: error O((h rate)^4)
                np.testing.assert_allclose(w[..., m], exact, atol=1e-13)
                continue
            discrete = f / rate * (1.0 - cn_factor(dt * rate, round(t / dt)))
            np.testing.assert_allclose(w[..., m], discrete, atol=1e-13)
            assert np.abs(w[..., m] - exact).max() < 1e-6


def speed(w):
    """max|u| + max|v| of one vorticity field, by numpy's FFT: u = ψ_y, v = -ψ_x, -Δψ = w."""
    s = w.shape[-1]
    k = TWO_PI * np.fft.fftfreq(s, 1.0 / s)
    kx, ky = k[:, None], k[None, :]
    lap = kx**2 + ky**2
    psi = np.fft.fft2(w) / np.where(lap > 0, lap, 1.0) * (lap > 0)
    keep = (np.abs(kx) < TWO_PI * s / 2) & (np.abs(ky) < TWO_PI * s / 2)  # no Nyquist modes, as the solver
    u, v = (np.fft.ifft2(1j * ky * psi * keep).real, np.fft.ifft2(-1j * kx * psi * keep).real)
    return np.abs(u).max() + np.abs(v).max()


def test_cfl_steps_are_the_fewest_within_both_bounds():
    s, interval, cfl = 32, 1.0, 1.5
    w = grf.periodic_grf(np.random.default_rng(0), 3, s, 2, alpha=2.5, tau=7.0, sigma=7.0**1.5)
    w[1] *= 4.0  # faster
    w[2] *= 0.0  # at rest: dt alone bounds the step
    ops = vorticity.operators(s)
    n, h = (np.asarray(a) for a in vorticity.cfl_steps(np.fft.rfft2(w), ops, interval, 0.5, cfl))
    kmax = TWO_PI * (s // 3)  # the largest wavenumber the 2/3 rule keeps
    for i in range(3):
        bound = min(0.5, cfl / (kmax * speed(w[i]))) if i < 2 else 0.5
        assert h[i] == pytest.approx(interval / n[i]) and h[i] <= bound * (1 + 1e-12)
        assert interval / (n[i] - 1) > bound  # one step fewer would be too long
    assert n[2] == 2 and n[0] > 2 and n[1] > 3 * n[0]


def test_cfl_steps_are_each_samples_own_and_converge():
    """Solved together or alone, a sample gives the same trajectory, though the faster one takes about three times
    the steps; halving the Courant number (and the longest step) divides the error by about 2^4."""
    s = 16
    w0 = grf.periodic_grf(np.random.default_rng(1), 2, s, 2, alpha=2.5, tau=7.0, sigma=7.0**1.5)
    w0[1] *= 3.0
    f = vorticity.forcing(s)
    kw = {"nu": 1e-3, "T": 2.0, "record_steps": 2, "scheme": "ifrk4"}
    both = vorticity.solve(w0, f, dt=0.1, cfl=0.5, **kw)
    for i in range(2):
        np.testing.assert_allclose(vorticity.solve(w0[i:i + 1], f, dt=0.1, cfl=0.5, **kw)[0], both[i], rtol=0,
                                   atol=1e-12)
    fine = vorticity.solve(w0, f, dt=1e-3, **kw)
    coarse = vorticity.solve(w0, f, dt=0.2, cfl=1.0, **kw)
    for i in range(2):
        errors = [np.abs(w[i] - fine[i]).max() / np.abs(fine[i]).max() for w in (coarse, both)]
        assert errors[1] < 2e-6 and errors[0] / errors[1] > 10.0, errors


def test_an_unstable_step_is_a_user_error():
    with pytest.raises(vorticity.Unstable, match=r"heun solve on 16² blew up .* dt = 0\.5.*params\.cfl"):
        vorticity.generate(1, 16, seed=0, nu=1e-4, T=20.0, dt=0.5, forcing_amplitude=10.0)


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


@pytest.mark.parametrize("params, message", [
    ({"scheme": "rk9"}, "params.scheme must be one of ['heun', 'euler', 'ifrk4'], got 'rk9'"),
    ({"dt": 0.0}, "params.dt must be a step > 0, got 0.0"),
    ({"cfl": -1.0}, "params.cfl must be a Courant number > 0, or null, got -1.0"),
])
def test_bad_stepping_parameters_are_one_line(params, message):
    with pytest.raises(UserError, match=re.escape(f"vorticity: {message}")):
        vorticity.generate(1, 8, seed=0, T=1.0, **params)
