"""Burgers: ETDRK4 converges at order 4 in time and spectrally in space to the Cole–Hopf solution."""
import math

import numpy as np
import pytest

from sciml.solvers.classical import burgers

NU, T = 0.05, 0.5


def grid(M):
    return np.arange(M) / M


def test_cole_hopf_quadrature_matches_bessel_series():
    x = grid(256)
    u0 = 2.0 * np.sin(2.0 * math.pi * x)
    for t in (0.0, 0.1, 1.0):
        np.testing.assert_allclose(burgers.cole_hopf(u0, t, NU), burgers.cole_hopf_sine(x, t, NU, 2.0),
                                   atol=1e-12)
    np.testing.assert_allclose(burgers.cole_hopf(u0, 0.0, NU), u0, atol=1e-12)
    with pytest.raises(ValueError):
        burgers.cole_hopf(u0 + 1.0, 0.1, NU)


def test_spectral_convergence_in_space():
    sizes = [8, 16, 32, 24, 48]
    errors = {}
    for M in sizes:
        x = grid(M)
        u = burgers.solve(np.sin(2.0 * math.pi * x)[None], nu=NU, T=T, dt=T / 400)[0, :, -1]
        errors[M] = np.abs(u - burgers.cole_hopf_sine(x, T, NU)).max()
    print("errors", errors)
    # the algebraic rate between doublings keeps growing (faster than any power of 1/M)
    rates = [math.log2(errors[m] / errors[2 * m]) for m in (8, 16, 24)]
    print("rates", rates)
    assert rates[0] < rates[1] < rates[2] and rates[2] > 12.0
    assert errors[48] < 5e-10


def test_general_initial_condition_against_cole_hopf():
    x = grid(64)
    u0 = np.sin(2 * math.pi * x) + 0.5 * np.cos(4 * math.pi * x) - 0.3 * np.sin(6 * math.pi * x)
    u = burgers.solve(np.stack([u0, -u0]), nu=NU, T=T, dt=T / 400, record_steps=5)
    for m in range(5):
        t = T * (m + 1) / 5
        np.testing.assert_allclose(u[0, :, m], burgers.cole_hopf(u0, t, NU), atol=1e-8)
        np.testing.assert_allclose(u[1, :, m], burgers.cole_hopf(-u0, t, NU), atol=1e-8)


def test_generate_trajectory_conserves_mean_and_dissipates_energy():
    d = burgers.generate(3, 64, seed=0, record_steps=4, dt=1e-2)
    assert d["a"].shape == d["u"].shape == (3, 64) and d["trajectory"].shape == (3, 64, 4)
    np.testing.assert_array_equal(d["trajectory"][..., -1], d["u"])
    np.testing.assert_allclose(d["t"], [0.25, 0.5, 0.75, 1.0])
    traj = np.concatenate([d["a"][..., None], d["trajectory"]], axis=-1)
    assert np.abs(traj.mean(axis=1)).max() < 1e-14
    energy = (traj**2).mean(axis=1)
    assert np.all(np.diff(energy, axis=-1) < 0.0)
