"""Navier's double series: textbook values, the single-mode sine load, quadrature, equilibrium and edges."""
import numpy as np
import pytest

from sciml.equations.plate_reference import navier_coefficients, navier_plate
from sciml.equations.plate_reference.plate import make_load

SQUARE = ((0.0, 1.0), (0.0, 1.0))
SS = dict.fromkeys(("left", "right", "bottom", "top"), "simply_supported")


def test_uniform_square_matches_timoshenko():
    """Timoshenko & Woinowsky-Krieger, 2nd ed., Table 8 (b/a = 1, ν = 0.3): w_max = 0.00406 q a⁴/D,
    M_x = M_y = 0.0479 q a² at the centre; the converged series gives 0.0040624."""
    q, a, D = 3.0, 2.0, 5.0
    r = navier_plate(((1.0, 1.0 + a), (-1.0, -1.0 + a)), D, 0.3, q, np.array([1 + a / 2]), np.array([-1 + a / 2]))
    w, mx, my = r["w"][0] * D / (q * a**4), r["mx"][0] / (q * a**2), r["my"][0] / (q * a**2)
    assert w == pytest.approx(0.0040624, abs=5e-8)
    assert mx == pytest.approx(0.0479, abs=5e-5) and my == pytest.approx(mx, rel=1e-13)
    assert abs(r["mxy"][0]) < 1e-12 and abs(r["qx"][0]) < 1e-12 and abs(r["qy"][0]) < 1e-12


def test_default_terms_converge_the_moments():
    x, y = np.array([0.5, 0.25]), np.array([0.5, 0.3])
    ref = navier_plate(SQUARE, 1.0, 0.3, 1.0, x, y, terms=801)
    r = navier_plate(SQUARE, 1.0, 0.3, 1.0, x, y)
    for k in ("w", "mx", "my", "mxy"):
        np.testing.assert_allclose(r[k], ref[k], rtol=1e-6, atol=1e-7 * np.abs(ref[k]).max())


def test_sine_load_is_one_term_and_matches_closed_form():
    """q = q0 sin(πx/a) sin(πy/b) gives w = q0 / (D π⁴ (1/a² + 1/b²)²) sin(πx/a) sin(πy/b) exactly."""
    a, b, q0, D, nu = 2.0, 3.0, 980.0, 7.0, 0.25
    load = lambda x, y: q0 * np.sin(np.pi * x / a) * np.sin(np.pi * y / b)  # noqa: E731
    c = navier_coefficients(((0, a), (0, b)), make_load(load, ((0, a), (0, b))), terms=40)
    assert c[0, 0] == pytest.approx(q0, rel=1e-12)
    c[0, 0] = 0.0
    assert np.abs(c).max() < 1e-12 * q0
    X, Y = np.meshgrid(np.linspace(0, a, 31), np.linspace(0, b, 41))
    r = navier_plate(((0, a), (0, b)), D, nu, load, X, Y, terms=40)
    al, be = np.pi / a, np.pi / b
    W = q0 / (D * (al**2 + be**2) ** 2)
    s, c_ = np.sin(al * X) * np.sin(be * Y), np.cos(al * X) * np.cos(be * Y)
    exact = {
        "w": W * s, "mx": D * W * (al**2 + nu * be**2) * s, "my": D * W * (be**2 + nu * al**2) * s,
        "mxy": -D * (1 - nu) * W * al * be * c_,
        "qx": D * W * (al**2 + be**2) * al * np.cos(al * X) * np.sin(be * Y),
        "qy": D * W * (al**2 + be**2) * be * np.sin(al * X) * np.cos(be * Y),
    }
    for k, v in exact.items():
        np.testing.assert_allclose(r[k], v, rtol=0, atol=1e-12 * np.abs(v).max())


def test_uniform_detection_and_quadrature_agree_with_closed_form():
    x, y = np.array([0.5, 0.1, 0.7]), np.array([0.5, 0.2, 0.9])
    closed = navier_plate(SQUARE, 1.0, 0.3, 1.0, x, y, terms=61)
    detected = navier_plate(SQUARE, 1.0, 0.3, lambda x, y: np.ones_like(x), x, y, terms=61)
    quad = navier_plate(SQUARE, 1.0, 0.3, lambda x, y: np.ones_like(x), x, y, terms=61, uniform=False)
    for k in closed:
        np.testing.assert_array_equal(detected[k], closed[k])
        np.testing.assert_allclose(quad[k], closed[k], rtol=0, atol=1e-11 * np.abs(closed[k]).max())


def test_equilibrium_and_edges(checks):
    """A smooth load whose sine series converges fast: the truncated series satisfies D Δ²w = q to ~1e-8."""
    bounds, D, nu = ((-1.0, 1.0), (0.0, 1.5)), 2.0, 0.3
    load = lambda x, y: (1 - x**2) * y * (1.5 - y) * (1 + x)  # noqa: E731
    fields = lambda x, y: navier_plate(bounds, D, nu, load, x, y)  # noqa: E731
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-0.8, 0.8, 12), rng.uniform(0.2, 1.3, 12)
    res = checks.equilibrium(fields, load, D, nu, x, y, h=2e-3)
    assert max(res.values()) < 1e-6, res
    assert max(checks.edges(fields, bounds, SS, h=1e-3).values()) < 1e-12


def test_grid_and_scattered_points_agree():
    X, Y = np.meshgrid(np.linspace(0, 1, 7), np.linspace(0, 1, 5))
    load = lambda x, y: 1 + x * y  # noqa: E731
    grid = navier_plate(SQUARE, 1.0, 0.3, load, X, Y, terms=31)
    scattered = navier_plate(SQUARE, 1.0, 0.3, load, X.ravel(), Y.ravel(), terms=31)
    for k in grid:
        assert grid[k].shape == X.shape
        np.testing.assert_allclose(grid[k].ravel(), scattered[k], rtol=1e-12, atol=1e-15)
