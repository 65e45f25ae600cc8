"""Lévy's single series: Navier agreement, Timoshenko's SS/free plate, exact limits, Chebyshev cross-check,
the x/y exchange, equilibrium and every edge condition."""
import itertools

import numpy as np
import pytest

from sciml.equations.plate_reference import levy_plate, navier_plate

SS, C, F = "simply_supported", "clamped", "free"
SQUARE = ((0.0, 1.0), (0.0, 1.0))


def test_simply_supported_pair_equals_navier():
    X, Y = np.meshgrid(np.linspace(0, 1, 9), np.linspace(0, 1, 11))
    edges = dict(left=SS, right=SS, bottom=SS, top=SS)
    levy = levy_plate(SQUARE, edges, 1.0, 0.3, 1.0, X, Y)
    navier = navier_plate(SQUARE, 1.0, 0.3, 1.0, X, Y, terms=801)
    for k, tol in dict(w=1e-10, mx=2e-6, my=2e-6, mxy=2e-5).items():  # Navier's own truncation dominates
        np.testing.assert_allclose(levy[k], navier[k], rtol=0, atol=tol * np.abs(navier[k]).max())
    # at the centre Lévy with the beam part in closed form is exact: the converged Navier value 0.0040624
    c = levy_plate(SQUARE, edges, 1.0, 0.3, 1.0, np.array([0.5]), np.array([0.5]), terms=21)
    assert c["w"][0] == pytest.approx(0.00406235266067, rel=1e-11)
    assert c["mx"][0] == pytest.approx(0.0478863796, rel=1e-9)


def test_free_edges_match_timoshenko():
    """Square plate, edges x = 0, a simply supported, y = ±a/2 free, uniform load, ν = 0.3.

    Timoshenko & Woinowsky-Krieger, 2nd ed., Ch. 6 (plates with two opposite edges simply supported and the
    other two free; the table for b/a = 1): w = 0.01309 q a⁴/D, M_x = 0.1225 q a², M_y = 0.0271 q a² at the
    centre of the plate. The largest deflection is at the middle of a free edge, 0.015011 q a⁴/D by this
    series (checked below by its edge conditions and by the exact limit of a long plate).
    """
    q, a, D = 2.0, 3.0, 0.5
    r = levy_plate(((0, a), (-a / 2, a / 2)), dict(left=SS, right=SS, bottom=F, top=F), D, 0.3, q,
                   np.array([a / 2, a / 2]), np.array([0.0, a / 2]))
    w, mx, my = r["w"] * D / (q * a**4), r["mx"] / (q * a**2), r["my"] / (q * a**2)
    assert w[0] == pytest.approx(0.01309, abs=5e-6)
    assert mx[0] == pytest.approx(0.1225, abs=5e-5) and my[0] == pytest.approx(0.0271, abs=5e-5)
    assert w[1] == pytest.approx(0.015011, abs=1e-6) and w[1] > w[0]
    assert abs(my[1]) < 1e-8


def test_long_plate_limits_are_exact():
    """b ≫ a: the middle bends like a strip, w = 5 q a⁴/(384 D); a free edge of a semi-infinite strip deflects
    by the factor 1 + ν(1+ν)/((1-ν)(3+ν)) more, exactly, for every mode (per mode Y = p + (A + Bαη)e^{-αη}
    with the free-edge conditions gives A = ν(1+ν)p/((1-ν)(3+ν)))."""
    nu, a, b = 0.3, 1.0, 24.0
    r = levy_plate(((0, a), (0, b)), dict(left=SS, right=SS, bottom=F, top=C), 1.0, nu, 1.0,
                   np.array([0.5, 0.5]), np.array([b / 2, 0.0]))
    strip = 5 / 384
    assert r["w"][0] == pytest.approx(strip, rel=1e-12)
    assert r["mx"][0] == pytest.approx(1 / 8, rel=1e-12) and r["my"][0] == pytest.approx(nu / 8, rel=1e-12)
    assert r["w"][1] == pytest.approx(strip * (1 + nu * (1 + nu) / ((1 - nu) * (3 + nu))), rel=1e-8)


@pytest.mark.parametrize("bottom,top", [(F, F), (C, F), (SS, C)])
def test_chebyshev_modes_match_closed_form(bottom, top):
    """A load constant in y solved both ways: exact exponentials vs the ultraspherical method."""
    X, Y = np.meshgrid(np.linspace(0, 1, 11), np.linspace(-0.5, 0.5, 13))
    load = lambda x, y: 1 + x + 0 * y  # noqa: E731
    edges = dict(left=SS, right=SS, bottom=bottom, top=top)
    exact = levy_plate(((0, 1), (-0.5, 0.5)), edges, 1.0, 0.3, load, X, Y, terms=60)
    cheb = levy_plate(((0, 1), (-0.5, 0.5)), edges, 1.0, 0.3, load, X, Y, terms=60, y_solver="chebyshev")
    for k in exact:
        np.testing.assert_allclose(cheb[k], exact[k], rtol=0, atol=1e-12 * np.abs(exact[k]).max())


def test_exchange_of_x_and_y():
    """Simply supported bottom/top is the transposed problem of simply supported left/right."""
    load = lambda x, y: 1 + 0.5 * x + y**2  # noqa: E731
    px, py = np.array([0.3, 1.1, 1.9]), np.array([0.2, 0.5, 0.9])
    r = levy_plate(((0, 2), (0, 1)), dict(left=C, right=F, bottom=SS, top=SS), 1.0, 0.3, load, px, py, terms=60)
    t = levy_plate(((0, 1), (0, 2)), dict(left=SS, right=SS, bottom=C, top=F), 1.0, 0.3,
                   lambda x, y: load(y, x), py, px, terms=60)
    swap = dict(w="w", mx="my", my="mx", mxy="mxy", qx="qy", qy="qx")
    for k, kt in swap.items():
        np.testing.assert_allclose(r[k], t[kt], rtol=1e-13, atol=1e-15)


EDGE_PAIRS = list(itertools.product((SS, C, F), repeat=2))


@pytest.mark.parametrize("bottom,top", EDGE_PAIRS)
def test_equilibrium_and_edge_conditions(checks, bottom, top):
    """Uniform load (exact particular part) on a 2 x 1 plate: PDE, moment/shear relations and both edges."""
    bounds, D, nu = ((0.0, 2.0), (-0.5, 0.5)), 3.0, 0.3
    edges = dict(left=SS, right=SS, bottom=bottom, top=top)
    fields = lambda x, y: levy_plate(bounds, edges, D, nu, 4.0, x, y)  # noqa: E731
    rng = np.random.default_rng(1)
    x, y = rng.uniform(0.2, 1.8, 10), rng.uniform(-0.4, 0.4, 10)
    res = checks.equilibrium(fields, lambda x, y: np.full_like(x, 4.0), D, nu, x, y, h=2e-3)
    assert max(res.values()) < 1e-7, res
    res = checks.edges(fields, bounds, edges, h=1e-3)
    assert max(res.values()) < 1e-6, res


def test_y_varying_load_by_chebyshev(checks):
    """q = sin(πx/a)(1 + y + 3y²) is one x-mode; its y-problem is solved by the ultraspherical method."""
    bounds, D, nu = ((0.0, 1.0), (0.0, 1.5)), 1.0, 0.3
    edges = dict(left=SS, right=SS, bottom=C, top=F)
    load = lambda x, y: np.sin(np.pi * x) * (1 + y + 3 * y**2)  # noqa: E731
    fields = lambda x, y: levy_plate(bounds, edges, D, nu, load, x, y, terms=8)  # noqa: E731
    rng = np.random.default_rng(2)
    res = checks.equilibrium(fields, load, D, nu, rng.uniform(0.1, 0.9, 10), rng.uniform(0.1, 1.4, 10), h=2e-3)
    assert max(res.values()) < 1e-8, res
    assert max(checks.edges(fields, bounds, edges, h=1e-3).values()) < 1e-7


def test_needs_a_simply_supported_pair():
    with pytest.raises(ValueError, match="opposite pair"):
        levy_plate(SQUARE, dict(left=SS, right=C, bottom=F, top=SS), 1.0, 0.3, 1.0, 0.5, 0.5)
