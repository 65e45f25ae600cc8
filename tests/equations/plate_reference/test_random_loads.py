"""The plate-loading operator's data: exact sine coefficients of the random loads against quadrature and the
Navier reference, Timoshenko's uniform-load values, the truncation's convergence, and the generator's contract."""
import numpy as np
import pytest

from sciml.equations.plate_reference import navier_coefficients, navier_plate, random_loads
from sciml.equations.plate_reference.plate import make_load
from sciml.equations.plate_reference.sine import gauss

SQUARE = ((0.0, 1.0), (0.0, 1.0))


def on_grid(r: dict, keys=random_loads.FIELDS):
    return np.stack([r[k] for k in keys], -1)


def test_a_patch_over_the_whole_plate_is_the_uniform_load_of_timoshenko():
    """The patch formula for the rectangle [0, 1]² is Navier's uniform closed form (16 q / π² m n, odd m, n), and
    the fields at the centre are Timoshenko's Table 8 (ν = 0.3): w = 0.0040624 q a⁴/D, M_x = M_y = 0.0479 q a²."""
    rects = [(1.0, (0.0, 0.0), (1.0, 1.0))]
    m = np.arange(1, 65)
    fx = (np.cos(0.0) - np.cos(m * np.pi)) / (np.pi * m)
    q_mn = 4.0 * np.outer(fx, fx)
    np.testing.assert_allclose(q_mn, navier_coefficients(SQUARE, make_load(1.0, SQUARE), terms=64), rtol=1e-13,
                               atol=1e-15)
    assert random_loads.rectangles(rects, np.array([0.5, 0.0, 1.0]), np.array([0.5, 1.0, 0.3])).tolist() == [1, 1, 1]
    D, q = 2.0, 3.0
    s0 = random_loads.cosine_to_sine(256, 1)[:, 0]  # the sine coefficients of 1
    f = random_loads.solution(q * np.outer(s0, s0), np.array([0.5]), D=D, nu=0.3)
    assert f["w"][0, 0] * D / q == pytest.approx(0.0040624, abs=5e-8)
    assert f["mx"][0, 0] / q == pytest.approx(0.0479, abs=5e-5)
    assert f["my"][0, 0] == pytest.approx(f["mx"][0, 0], rel=1e-12)


def test_cosine_to_sine_is_the_quadrature_of_the_coefficient_integrals():
    x, w = gauss(1.0, 400)
    phi = random_loads.cosines(x, 7)
    m = np.arange(1, 31)
    quad = 2.0 * (np.sin(np.pi * np.outer(m, x)) * w) @ phi
    np.testing.assert_allclose(random_loads.cosine_to_sine(30, 7), quad, rtol=0, atol=1e-12)


def test_patch_coefficients_are_the_quadrature_over_the_patches():
    """Gauss–Legendre on each patch's own sides (smooth there: exact to rounding) against the closed form."""
    rng = np.random.default_rng(3)
    q_mn, load = random_loads.patches(rng, 24, patches=3, patch_width=(0.1, 0.5))
    rng = np.random.default_rng(3)  # the same draws, to know the rectangles
    n = rng.integers(1, 4)
    want = np.zeros((24, 24))
    m = np.arange(1, 25)
    for _ in range(n):
        width = rng.uniform(0.1, 0.5, 2)
        corner = rng.uniform(0.0, 1.0 - width)
        intensity = rng.uniform(0.2, 1.0) / np.prod(width)
        sides = []
        for c, wd in zip(corner, width):
            t, wt = gauss(wd, 60)
            sides.append(2.0 * (np.sin(np.pi * np.outer(m, c + t)) * wt).sum(1))
        want += intensity * np.outer(*sides)
        centre = corner + width / 2
        assert load(centre[0], centre[1]) >= intensity  # the load is there
    np.testing.assert_allclose(q_mn, want, rtol=0, atol=1e-12 * np.abs(want).max())


def test_grf_fields_are_the_navier_reference_for_the_same_load():
    """The series from the exact coefficients against navier_plate, which integrates the load by quadrature."""
    q_mn, load = random_loads.grf(np.random.default_rng(0), 201, modes=12)
    x = np.linspace(0.0, 1.0, 9)
    got = random_loads.solution(q_mn, x, D=2.0, nu=0.25)
    X, Y = np.meshgrid(x, x, indexing="ij")
    ref = navier_plate(SQUARE, 2.0, 0.25, load, X, Y, uniform=False)
    for k in random_loads.FIELDS:
        scale = np.abs(ref[k]).max()
        assert scale > 0
        np.testing.assert_allclose(got[k], ref[k], rtol=0, atol=1e-7 * scale)


@pytest.mark.parametrize("family", ["grf", "patches"])
def test_truncation_converges(family):
    """The rms error over the plate against 1024 terms, per doubling of the terms from 32 to 128: w by at least
    2^3.5 (measured 2^4.2 - 2^5.4), the moments by at least 2^2 (measured 2^2.3 - 2^4.3)."""
    x = np.linspace(0.0, 1.0, 41)
    q_full, _ = random_loads.LOADS[family](np.random.default_rng(1), 1024)
    ref = random_loads.solution(q_full, x)
    rms = lambda a: np.sqrt(np.mean(a[1:-1, 1:-1] ** 2))
    errors = np.array([[rms(f[k] - ref[k]) / rms(ref[k]) for k in ("w", "mx", "mxy")]
                       for f in (random_loads.solution(q_full[:t, :t], x) for t in (32, 64, 128))])
    rates = np.log2(errors[:-1] / errors[1:])
    assert (rates[:, 0] > 3.5).all() and (rates[:, 1:] > 2.0).all(), (errors, rates)
    assert errors[-1, 0] < 1e-8


def test_generate_contract():
    """Shapes, the supports (w = 0 on every edge, M_x = 0 on x = 0, 1), a sample depends on (seed, i) only,
    both families sum, unknown families are refused."""
    r = random_loads.generate(3, 9, seed=5, loads=["grf", "patches"], fields=random_loads.FIELDS, terms=64)
    assert r["q"].shape == (3, 9, 9) and r["fields"].shape == (3, 9, 9, 4)
    w, mx, my = r["fields"][..., 0], r["fields"][..., 1], r["fields"][..., 2]
    for edge in (np.s_[:, 0, :], np.s_[:, -1, :], np.s_[:, :, 0], np.s_[:, :, -1]):
        assert np.abs(w[edge]).max() < 1e-15
    assert np.abs(mx[:, [0, -1], :]).max() < 1e-13 and np.abs(my[:, :, [0, -1]]).max() < 1e-13
    assert np.abs(w[:, 4, 4]).min() > 0
    first = random_loads.generate(2, 9, seed=5, loads=["grf", "patches"], terms=64)  # w only, by default
    np.testing.assert_array_equal(first["fields"], r["fields"][:2, ..., :1])
    alone = random_loads.generate(1, 9, seed=5, loads=["grf"], terms=64)
    assert not np.allclose(alone["q"][0], r["q"][0])
    with pytest.raises(ValueError, match="loads: expected a list of grf, patches"):
        random_loads.generate(1, 9, 0, loads=["gauss"])
    with pytest.raises(ValueError, match="fields: expected a list of w, mx, my, mxy"):
        random_loads.generate(1, 9, 0, fields=["q"])


def test_clamped_square_under_uniform_load_is_timoshenko_s():
    """The clamped reference (finite differences, Richardson) at the centre of the uniformly loaded square:
    Timoshenko & Woinowsky-Krieger Table 35, w = 0.00126 q a⁴/D (0.0012653 to more digits), M_x = 0.0231 q a²
    at the centre and -0.0513 q a² at the middle of an edge (ν = 0.3)."""
    x = np.linspace(0.0, 1.0, 33)
    r = random_loads.clamped(lambda x, y: np.ones(np.broadcast(x, y).shape), x)
    assert r["w"][16, 16] == pytest.approx(0.0012653, rel=2e-4)
    assert r["mx"][16, 16] == pytest.approx(0.0231, rel=1e-2)
    assert r["mx"][0, 16] == pytest.approx(-0.0513, rel=1e-2)
    assert np.abs(r["w"][[0, -1]]).max() == 0 and np.abs(r["w"][:, [0, -1]]).max() == 0


def test_clamped_random_loads_converge_at_fourth_order():
    """The same draws as the simply supported data; their clamped fields on 17² and 33² against 129²
    (each Richardson-extrapolated): w falls about 16x per halving of the step."""
    fields = list(random_loads.FIELDS)
    ref = random_loads.generate(2, 129, seed=3, fields=fields, terms=32, edges="clamped")
    errors = []
    for s in (17, 33):
        r = random_loads.generate(2, s, seed=3, fields=fields, terms=32, edges="clamped")
        np.testing.assert_array_equal(r["q"], random_loads.generate(2, s, seed=3, terms=32)["q"])
        sub = ref["fields"][:, ::128 // (s - 1), ::128 // (s - 1)]
        errors.append([np.linalg.norm(r["fields"][..., c] - sub[..., c]) / np.linalg.norm(sub[..., c])
                       for c in range(4)])
    errors = np.array(errors)
    assert errors[1, 0] < 1e-4 and errors[1, 1:].max() < 1e-3, errors
    assert errors[0, 0] / errors[1, 0] > 12, errors
    with pytest.raises(ValueError, match="edges: expected one of simply_supported, clamped, got 'free'"):
        random_loads.generate(1, 9, 0, edges="free")
