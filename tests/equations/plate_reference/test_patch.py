"""A patch load's closed-form sine coefficients and Navier series, against independent computations."""
import numpy as np
from scipy.integrate import quad

from sciml.equations.plate_reference import navier_coefficients, navier_plate
from sciml.equations.plate_reference.patch import patch_load, sine_factors
from sciml.equations.plate_reference.plate import make_load

PLATE = ((0.5, 2.5), (-1.0, 2.0))  # a = 2, b = 3, off the origin


def test_sine_factors_are_the_integrals_of_the_sines():
    """p_m = (2/a) ∫ sin(mπξ/a) over the pulse, by adaptive quadrature (scipy.integrate.quad)."""
    a, c, u = 2.0, 1.3, 0.4
    p = sine_factors(a, c, u, 12)
    direct = [2 / a * quad(lambda s, m=m: np.sin(m * np.pi * s / a), c - u / 2, c + u / 2, epsabs=1e-14)[0]
              for m in range(1, 13)]
    np.testing.assert_allclose(p, direct, rtol=1e-12, atol=1e-14)


def test_a_patch_over_the_whole_plate_is_the_uniform_load():
    """Timoshenko's eq. 134: 16 q0 / (π² m n) for odd m, n, zero otherwise."""
    (x0, x1), (y0, y1) = PLATE
    whole = patch_load(7.0, ((x0 + x1) / 2, (y0 + y1) / 2), (x1 - x0, y1 - y0))
    c = navier_coefficients(PLATE, whole, terms=9)
    np.testing.assert_allclose(c, navier_coefficients(PLATE, make_load(7.0, PLATE), terms=9), atol=1e-13)


def test_the_series_matches_quadrature_of_the_indicator():
    """The same plate by Gauss quadrature of the indicator itself (only algebraic convergence at the jumps: many
    nodes, agreement to about 1e-3); the indicator's values, edges included."""
    q0, centre, size = 1000.0, (1.8, 0.1), (0.4, 0.6)
    load = patch_load(q0, centre, size)
    x, y = np.array([1.0, 1.8, 2.2, 1.5]), np.array([0.5, 0.1, -0.5, 1.5])
    closed = navier_plate(PLATE, 5.0, 0.3, load, x, y, terms=81)
    indicator = navier_plate(PLATE, 5.0, 0.3, load.func, x, y, terms=81, uniform=False, quad_nodes=4000)
    for k in ("w", "mx", "my"):
        np.testing.assert_allclose(closed[k], indicator[k], rtol=2e-3, atol=2e-3 * np.abs(closed[k]).max())
    assert load.func(np.array([1.8, 1.61, 1.59]), np.array([0.1, 0.39, 0.1])).tolist() == [q0, q0, 0.0]
