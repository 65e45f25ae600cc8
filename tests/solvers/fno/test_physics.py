"""The FNO's physics terms (PINO): the plate's residual and edge conditions on exact and perturbed fields, Darcy's
flux-form energy and residual against the classical scheme, the schema of ``training.terms``, and physics-only
and labelled runs that use no other solved sample (float64 where exact)."""
import copy

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_cases import write_case
from export_check import assert_exported_model_scores_as_summary

from sciml import cases, load_run
from sciml.errors import ConfigError, UserError
from sciml.nn import fno
from sciml.solvers.fno import data, export, run
from sciml.solvers.fno.model import build
from sciml.solvers.classical import darcy
from sciml.solvers.classical.grf import darcy_coefficient, sample_rngs
from sciml.solvers.fno.physics import PHYSICS, Darcy, Plate

TINY_PLATE_OPERATOR = {
    "case": "tiny_plate_operator", "solver": "fno", "seed": 0,
    "data": {"generator": "plate", "path": "PLACEHOLDER", "resolution": 9, "super_resolution": [17],
             "n_train": 12, "n_test": 4, "params": {"terms": 32}},
    "model": {"modes": [3, 3], "width": 6, "layers": 2, "padding": 2, "projection": [8]},
    "training": {"epochs": 2, "batch_size": 4, "lr": 3.0e-3, "schedule": {"type": "constant"},
                 "terms": {"data": 0.0, "pde": 1.0, "boundary": 1.0}, "checkpoint_every": 1},
    "evaluation": {"every": 1, "batch_size": 4, "plots": 0},
}


def sine_mode(amplitude, offset=0.0):
    """``w = A sin πx sin πy + offset`` for a batch of amplitudes: ``points (..., 2) -> (..., batch, 1)``."""
    a = jnp.asarray(amplitude)

    def field(p):
        s = jnp.sin(jnp.pi * p[..., 0]) * jnp.sin(jnp.pi * p[..., 1])
        return (s[..., None] * a + offset)[..., None]

    return field


def loads(plate, amplitude):
    """The loads ``q = D 4π⁴ A sin πx sin πy`` that make :func:`sine_mode` exact, ``(batch, s, s, 1)``."""
    x = np.linspace(0, 1, plate.resolution)
    s = np.outer(np.sin(np.pi * x), np.sin(np.pi * x))
    return jnp.asarray(plate.D * 4 * np.pi ** 4 * np.asarray(amplitude)[:, None, None, None] * s[None, ..., None])


def test_the_exact_solution_has_no_residual_and_a_scaled_one_its_scale():
    plate = Plate(D=2.5, nu=0.3, resolution=9)
    amplitude = np.array([1.0, -0.2])
    q = loads(plate, amplitude)
    assert float(plate.pde(sine_mode(amplitude), q)) < 1e-12
    assert float(plate.boundary(sine_mode(amplitude), q)) < 1e-12
    assert float(plate.pde(sine_mode(1.1 * amplitude), q)) == pytest.approx(0.1, rel=1e-9)
    p = jnp.asarray(np.random.default_rng(0).uniform(0, 1, (5, 2)))
    m = plate.moments(sine_mode(amplitude), p)  # M_x = D A π² (1 + ν) s s, M_xy = -D (1 - ν) A π² c c
    s = np.sin(np.pi * p[:, 0]) * np.sin(np.pi * p[:, 1])
    c = np.cos(np.pi * p[:, 0]) * np.cos(np.pi * p[:, 1])
    k = plate.D * np.pi ** 2 * amplitude
    np.testing.assert_allclose(m["mx"], np.outer(s, k * 1.3), rtol=1e-10)
    np.testing.assert_allclose(m["my"], np.outer(s, k * 1.3), rtol=1e-10)
    np.testing.assert_allclose(m["mxy"], np.outer(c, -k * 0.7), rtol=1e-10)


def test_the_estimate_is_zero_at_the_solution_and_a_scaled_one_s_error_by_the_discrete_inverse():
    """``‖δ‖ / ‖w - δ‖``, ``δ = (D Δ_h²)⁻¹ r``: 0 for the exact field; for ``1.1 w*`` the residual ``0.1 q`` maps to
    ``0.1 (2π²/λ)² w*`` (λ the five-point Laplacian's first eigenvalue), so the estimate is the true 0.1 to the
    grid's O(h²) (0.6 % on 17 points), each sample alike."""
    with jax.enable_x64(True):
        plate = Plate(D=2.5, nu=0.3, resolution=17)
        amplitude = np.array([1.0, -0.2])
        q = loads(plate, amplitude)
        np.testing.assert_allclose(plate.estimate(sine_mode(amplitude), q), 0.0, atol=1e-12)
        lam = 8 * 16 ** 2 * np.sin(np.pi / 32) ** 2
        delta = 0.1 * (2 * np.pi ** 2 / lam) ** 2
        np.testing.assert_allclose(plate.estimate(sine_mode(1.1 * amplitude), q), delta / (1.1 - delta), rtol=1e-9)
        assert abs(delta / (1.1 - delta) / 0.1 - 1) < 0.01


def test_a_decoded_field_s_residual_and_estimate_on_a_grid_the_engine_tiles_are_its_pointwise_ones():
    """On 65² (4225 points: the engine tiles a Δ² plan) the residual of a decoded field's local polynomials, which
    are tied to their grid points, is the pointwise field's at the same points (it failed there: a tile of 1409
    points against the 4225 of the grid), and the estimate runs (the calibration of a run scored at 65²)."""
    from sciml.nn import fno_field

    plate = Plate(D=1.0, nu=0.3, resolution=65)
    params = fno.init(jax.random.PRNGKey(0), 1, 1, modes=(3, 3), width=4, layers=1, projection=(4,))
    x = jnp.asarray(np.random.default_rng(0).normal(size=(1, 65, 65, 1)), jnp.float32)
    field = fno_field.decode(params, x, padding=2)
    local, plain = plate.residual(field, x), plate.residual(lambda p: field(p), x)
    assert local.shape == (65 * 65, 1)
    np.testing.assert_allclose(local, plain, rtol=2e-3, atol=2e-3 * float(jnp.abs(plain).max()))
    assert np.isfinite(plate.estimate(field, x)).all()


def test_the_boundary_term_measures_w_on_the_edges_against_the_deflection_scale():
    """A constant offset c breaks w = 0 on every edge (M_n stays 0): the term is |c| / W_b averaged over the
    batch, ``W_b = rms(q_b) / (4π⁴ D)``; a term c x(x - 1) (w_xx = 2c) breaks M_n ∝ w_nn + ν w_tt on every edge (on
    x = 0, 1 by w_nn, on y = 0, 1 by ν w_tt, where it breaks w too)."""
    plate = Plate(D=1.0, nu=0.3, resolution=9)
    amplitude = np.array([1.0, 2.0])
    q = loads(plate, amplitude)
    scale = np.sqrt(np.mean(np.asarray(q)[..., 0].reshape(2, -1) ** 2, axis=1)) / (4 * np.pi ** 4)
    got = float(plate.boundary(sine_mode(amplitude, offset=0.01), q))
    assert got == pytest.approx(np.mean(0.01 / scale), rel=1e-10)
    c = 0.01
    bent = lambda p: sine_mode(amplitude)(p) + (c * p[..., 0] * (p[..., 0] - 1))[..., None, None]
    # on the edges x = 0, 1 (2 x 9 points of the 32): w = 0, w_nn = 2c; on y = 0, 1 (the 14 others) w = c x(x-1),
    # w_tt = 2c
    x = np.linspace(0, 1, 9)
    on_y = c * x[1:-1] * (x[1:-1] - 1)
    mean_sq = (18 * (2 * c / np.pi ** 2) ** 2 + 2 * np.sum(on_y ** 2) + 14 * (0.3 * 2 * c / np.pi ** 2) ** 2) / 32
    assert float(plate.boundary(bent, q)) == pytest.approx(np.mean(np.sqrt(mean_sq) / scale), rel=1e-10)


def test_on_clamped_edges_the_boundary_term_measures_the_slope():
    """Clamped edges: the term reads w and π⁻¹ ∂_n w. The clamped mode sin²πx sin²πy scores 0; sin πx sin πy
    (w = 0, slope ±π sin πt along the edges) scores rms(sin πt at the edge points) / W_b."""
    plate = Plate(D=1.0, nu=0.3, resolution=9, edges="clamped")
    amplitude = np.array([1.0, 2.0])
    q = loads(plate, amplitude)
    scale = np.sqrt(np.mean(np.asarray(q)[..., 0].reshape(2, -1) ** 2, axis=1)) / (4 * np.pi ** 4)
    a = jnp.asarray(amplitude)
    clamped = lambda p: ((jnp.sin(jnp.pi * p[..., 0]) * jnp.sin(jnp.pi * p[..., 1]))[..., None] ** 2 * a)[..., None]
    assert float(plate.boundary(clamped, q)) < 1e-12
    t = np.sin(np.pi * np.linspace(0, 1, 9))  # the slope of sin πx sin πy over π, along each of the 4 edges
    rms = np.sqrt(4 * np.sum(t ** 2) / 32)
    got = float(plate.boundary(sine_mode(amplitude), q))
    assert got == pytest.approx(np.mean(amplitude * rms / scale), rel=1e-10)
    assert float(Plate(D=1.0, nu=0.3, resolution=9).boundary(sine_mode(amplitude), q)) < 1e-12


def modes(coefficients):
    """``w = Σ c_bmn sin mπx sin nπy`` for ``coefficients {(m, n): (batch,)}``: ``points (..., 2) -> (..., batch,
    1)``, and its loads ``D Δ²w = q`` on a plate's grid, ``(batch, s, s, 1)``."""
    def field(p):
        return sum(jnp.sin(m * jnp.pi * p[..., :1]) * jnp.sin(n * jnp.pi * p[..., 1:]) * jnp.asarray(c)
                   for (m, n), c in coefficients.items())[..., None]

    def loads(plate):
        x = np.linspace(0, 1, plate.resolution)
        return jnp.asarray(sum(plate.D * np.pi ** 4 * (m * m + n * n) ** 2 * np.asarray(c)[:, None, None, None]
                               * np.outer(np.sin(m * np.pi * x), np.sin(n * np.pi * x))[None, ..., None]
                               for (m, n), c in coefficients.items()))

    return field, loads


def test_the_energy_of_a_sine_load_is_minus_a_half_and_rises_by_half_the_square_of_the_error():
    """``w = (1 + ε) A sin πx sin πy`` under the load of ``A``: ``Π / E = (1 + ε)² / 2 - (1 + ε) = -1/2 + ε²/2``
    (the trapezoid rule is exact for these products of sines)."""
    plate = Plate(D=2.5, nu=0.3, resolution=9)
    amplitude = np.array([1.0, -0.2])
    q = loads(plate, amplitude)
    assert float(plate.energy(sine_mode(amplitude), q)) == pytest.approx(-0.5, rel=1e-12)
    for eps in (0.1, -0.3):
        assert float(plate.energy(sine_mode((1 + eps) * amplitude), q)) == pytest.approx(-0.5 + eps ** 2 / 2, rel=1e-12)


def test_the_solution_minimises_the_energy_and_a_perturbation_raises_it_by_half_its_laplacian_squared():
    """Two modes: ``Π(w*) / E = -½ Σ D π⁴ k⁴ c² / 4 / E`` by hand, and ``Π(w* + δ) - Π(w*) = D/2 ||Δδ||² / E`` for a
    ``δ`` of another mode or of the same ones (no cross term at the minimum)."""
    plate = Plate(D=1.5, nu=0.3, resolution=17)
    c11, c23 = np.array([1.0, 0.5]), np.array([0.3, -2.0])
    field, make_loads = modes({(1, 1): c11, (2, 3): c23})
    q = make_loads(plate)
    stiff = {(1, 1): plate.D * np.pi ** 4 * 4, (2, 3): plate.D * np.pi ** 4 * 169}  # D π⁴ (m² + n²)²
    scale = sum(k ** 2 * c ** 2 / 4 for k, c in zip(stiff.values(), (c11, c23))) / (4 * np.pi ** 4 * plate.D)
    minimum = -0.5 * sum(k * c ** 2 / 4 for k, c in zip(stiff.values(), (c11, c23))) / scale
    assert float(plate.energy(field, q)) == pytest.approx(np.mean(minimum), rel=1e-12)
    for perturbation, stiffness in (({(3, 1): np.array([0.05, 0.02])}, plate.D * np.pi ** 4 * 100),
                                    ({(2, 3): np.array([0.05, 0.02])}, stiff[(2, 3)])):
        delta, _ = modes(perturbation)
        (c,) = perturbation.values()
        rise = 0.5 * stiffness * c ** 2 / 4 / scale
        got = float(plate.energy(lambda p: field(p) + delta(p), q))
        assert got - float(plate.energy(field, q)) == pytest.approx(np.mean(rise), rel=1e-10)


def test_the_band_limited_work_is_exact_for_a_mode_whose_grid_quadrature_couples_it_with_its_mirror():
    """``work="band"`` (the refinement's): a load's work values on 17² (``ood_loads.work_values``) give back the
    load on the finer grid (``band_limited``) for every mode below the grid's, so the exact field of the mode (1, 5)
    is the energy's minimiser: scaled by 1.01 its energy rises by 1e-4 × |Π| (the minimum's ``Π(w*) = -½ a(w*, w*)``
    and ``Π((1 + t) w*) - Π(w*) = t² |Π(w*)|``); with the grid's Simpson weights, which couple the mode 5 with 11, the
    rise is 3.9 times that (the exact field is not the grid energy's minimiser)."""
    from sciml.equations.plate_reference.ood_loads import mode, work_values
    from sciml.solvers.fno.physics import band_limited

    with jax.enable_x64(True):
        s, n = 17, 65
        fine = np.linspace(0.0, 1.0, n)
        for m, k in ((1, 5), (3, 14), (15, 2)):
            L = band_limited(s, n - 1)
            got = L @ work_values(mode(m, k, 16), s) @ L.T
            np.testing.assert_allclose(got, np.outer(np.sin(m * np.pi * fine), np.sin(k * np.pi * fine)), atol=1e-9)
        q = jnp.asarray(work_values(mode(1, 5, 16), s)[None, ..., None])
        field = lambda p: (jnp.sin(np.pi * p[..., 0]) * jnp.sin(5 * np.pi * p[..., 1]) / (np.pi ** 4 * 26 ** 2)
                           )[..., None, None]
        rises = []
        for work in ("band", "grid"):
            plate = Plate(D=1.0, nu=0.3, resolution=s, refine=4, work=work)
            low = float(plate.energy(field, q))
            rises.append((float(plate.energy(lambda p: 1.01 * field(p), q)) - low) / abs(low))
        assert rises[0] == pytest.approx(1e-4, rel=1e-6) and rises[1] > 3 * rises[0]


def test_nested_jvp_gives_the_engine_s_terms_and_moments():
    """``training.autodiff: nested`` (the reference the engine is validated against) gives every plate term and the
    moments of the Taylor engine, on a field of two modes whose derivatives are not trivial, to float64 rounding."""
    sines, make_loads = modes({(1, 2): np.array([1.0, -0.3]), (3, 1): np.array([0.2, 0.5])})
    field = lambda p: sines(p) + (0.01 * p[..., 0] ** 2 * (p[..., 1] - 1))[..., None, None]  # not 0 on the edges
    taylor, nested = (Plate(D=1.5, nu=0.3, resolution=9, mode=m) for m in ("taylor", "nested"))
    q = make_loads(taylor) * 1.1  # not the field's own loads: a residual to compare
    for term in ("pde", "boundary", "energy"):
        a, b = float(getattr(taylor, term)(field, q)), float(getattr(nested, term)(field, q))
        assert a == pytest.approx(b, rel=1e-10) and abs(a) > 1e-4
    p = jnp.asarray(np.random.default_rng(1).uniform(0, 1, (6, 2)))
    for name, value in taylor.moments(field, p).items():
        np.testing.assert_allclose(value, nested.moments(field, p)[name], rtol=1e-10, atol=1e-12)


def test_the_pinn_and_the_operator_read_one_plate_equation():
    """One field and load, not a solution of each other: ``w = x³y² + sin 2x cos 3y`` (``Δ²w = 24x + 169 sin 2x cos
    3y``), ``q = 1000 sin πx sin πy + 300 xy``. The operator's residual at its grid points (:meth:`Plate.residual`,
    of the field as a decoded output) and the PINN's (``KirchhoffPlate.interior`` of the same field in its
    nondimensional variables, times its load scale ``q0``) are both ``D Δ²w - q``, by hand and by nested
    ``jax.hessian`` (float64), and the pde term is its norm over the load's."""
    from sciml.config import build as build_section
    from sciml.equations.fields import collect, evaluator
    from sciml.equations.plate import KirchhoffPlate, PlateConfig
    from sciml.solvers.pinn.geometry import Rectangle

    D, nu, s = 3.0, 0.3, 9
    w = lambda p: p[..., 0] ** 3 * p[..., 1] ** 2 + jnp.sin(2 * p[..., 0]) * jnp.cos(3 * p[..., 1])
    load = lambda x, y: 1000 * np.sin(np.pi * x) * np.sin(np.pi * y) + 300 * x * y
    operator = Plate(D=D, nu=nu, resolution=s)
    points = operator.points()[0]
    x, y = points[:, 0], points[:, 1]
    q = load(x, y)
    got = operator.residual(lambda p: w(p)[..., None, None], jnp.asarray(q.reshape(1, s, s, 1)))[:, 0]
    by_hand = D * (24 * x + 169 * np.sin(2 * x) * np.cos(3 * y)) - q
    bilap = jax.jit(jax.vmap(lambda p: jnp.trace(jax.hessian(lambda p: jnp.trace(jax.hessian(w)(p)))(p))))
    np.testing.assert_allclose(D * bilap(jnp.asarray(points)) - q, by_hand, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(got, by_hand, rtol=1e-12, atol=1e-9)
    assert np.abs(by_hand).max() > 100.0

    section = build_section(PlateConfig, {"type": "kirchhoff_plate", "D": D, "nu": nu,
                                          "load": "1000 * sin(pi * x) * sin(pi * y) + 300 * x * y"})
    eq = KirchhoffPlate(section, Rectangle((0.0, 1.0), (0.0, 1.0)))
    net = lambda xh: (w(eq.to_physical(xh)) / eq.W)[..., None]
    fields = evaluator(net, collect(eq.interior, eq.fields, eq.coords), eq.fields, eq.coords)
    pinn = eq.q0 * eq.interior(fields(jnp.asarray(eq.to_nondim(points))))["pde"]
    np.testing.assert_allclose(pinn, by_hand, rtol=1e-10, atol=1e-8)
    term = float(operator.pde(lambda p: w(p)[..., None, None], jnp.asarray(q.reshape(1, s, s, 1))))
    assert term == pytest.approx(np.linalg.norm(by_hand) / np.linalg.norm(q), rel=1e-12)


@pytest.mark.parametrize("changes,key,message", [
    ({"training__terms": {"data": 0.0}}, "training.terms", "every weight is 0"),
    ({"data__generator": "burgers", "data__params": {}, "data__resolution": 16, "data__super_resolution": [],
      "model__modes": [3]}, "training.terms", r"need a generator with physics \(plate, darcy\), not 'burgers'"),
    ({"data__params": {"fields": ["mx", "w"]}}, "data.params.fields", "reads w from the first output channel"),
    ({"training__terms": {"pdf": 1.0}}, "training.terms.pdf", "did you mean 'pde'"),
    ({"training__terms": {"data": 0.0, "energy": 1.0}}, "training.terms.energy", "set model.vanish_on_edges"),
    ({"training__terms": {"data": 1.0, "preconditioned": 1.0}}, "training.terms.preconditioned",
     "the plate physics has no such term"),
    ({"data__n_labelled": 13}, "data.n_labelled", "13 is more than data.n_train = 12"),
    ({"data__n_labelled": 0}, "data.n_labelled", "must be >= 1"),
    ({"data__n_labelled": 3, "training__terms": {"data": 0.0, "pde": 1.0}}, "data.n_labelled",
     "whose weight training.terms.data is 0"),
    ({"data__generator": "burgers", "data__params": {}, "data__resolution": 16, "data__super_resolution": [],
      "training__terms": {"data": 1.0}, "model__modes": [3], "model__vanish_on_edges": True},
     "model.vanish_on_edges", "needs model.type fno or deeponet on a closed grid, not fno on a periodic grid"),
])
def test_terms_are_validated(tmp_path, changes, key, message):
    path = write_case(tmp_path, _tiny(tmp_path), **changes)
    with pytest.raises(ConfigError, match=message) as e:
        cases.load(path)
    assert key in str(e.value)


def _tiny(tmp_path):
    case = copy.deepcopy(TINY_PLATE_OPERATOR)
    case["data"]["path"] = str(tmp_path / "plate.h5")
    return case


def _tiny_darcy(tmp_path):
    """The tiny operator on Darcy's data (the classical solver on 17 points, subsampled to 9)."""
    case = _tiny(tmp_path)
    case["data"] = {**case["data"], "generator": "darcy", "path": str(tmp_path / "darcy.h5"), "params": {}}
    return case


def darcy_sample(s, n=1, seed=0):
    """``(a, u)``: ``n`` coefficients of the FNO dataset's kind on the closed ``s``-point grid and the five-point
    scheme's solutions for ``f = 1``, each ``(n, s, s, 1)``."""
    a = np.concatenate([darcy_coefficient(rng, 1, s) for rng in sample_rngs(seed, n)])
    return a[..., None], darcy.solve(a, 1.0)[..., None]


def test_the_darcy_scheme_s_solution_zeroes_the_residual_and_minimises_the_energy():
    """The five-point scheme's solutions (:mod:`sciml.solvers.classical.darcy`, arithmetic faces) have no flux-form
    residual, vanish on the edges, zero the energy's gradient at every interior point, and a perturbation ``δ``
    raises the energy by ``½ Σ_f a_f (Δδ)² / E_b`` exactly (a quadratic with no cross term at its minimum)."""
    physics = Darcy(f=1.0, resolution=13)
    a, u = darcy_sample(13, n=2)
    assert float(physics.pde(u, a)) < 1e-12 and float(physics.boundary(u, a)) == 0.0
    grad = np.asarray(jax.grad(lambda v: physics.energy(v, a))(jnp.asarray(u)))
    assert np.abs(grad[:, 1:-1, 1:-1]).max() < 1e-12 * np.abs(grad).max() + 1e-14
    delta = np.zeros_like(u)
    delta[:, 1:-1, 1:-1] = np.random.default_rng(0).standard_normal((2, 11, 11, 1)) * 1e-3
    ax, ay = 0.5 * (a[:, 1:] + a[:, :-1]), 0.5 * (a[:, :, 1:] + a[:, :, :-1])
    bend = np.sum(ax * np.diff(delta, axis=1) ** 2, (1, 2, 3)) + np.sum(ay * np.diff(delta, axis=2) ** 2, (1, 2, 3))
    scale = 1 / (2 * np.pi ** 2 * a.mean((1, 2, 3)))
    rise = float(physics.energy(u + delta, a)) - float(physics.energy(u, a))
    assert rise == pytest.approx(np.mean(0.5 * bend / scale), rel=1e-9)
    assert float(physics.pde(u + delta, a)) > 1e-3


def test_the_darcy_energy_of_a_constant_coefficient_is_that_of_the_torsion_problem():
    """``a = c``, ``f = 1``: ``Π(u*) = -½ ∫u*`` with ``∫u = 0.0351442 / c`` (the square's torsion function, -Δu = 1),
    so ``Π / E_b = -π² 0.0351442 = -0.3469`` for every ``c`` (the scheme on 41 points within 0.5 %); the residual
    of ``u*`` scaled by 1.1 is 0.1 (the scheme is linear)."""
    s = 41
    for c in (1.0, 7.5):
        a = np.full((1, s, s, 1), c)
        u = darcy.solve(a[..., 0], 1.0)[..., None]
        physics = Darcy(f=1.0, resolution=s)
        assert float(physics.energy(u, a)) == pytest.approx(-np.pi ** 2 * 0.0351442, rel=5e-3)
        assert float(physics.pde(1.1 * u, a)) == pytest.approx(0.1, rel=1e-9)


def test_the_preconditioned_residual_is_the_relative_error_for_a_constant_coefficient_and_zero_at_the_solution():
    """``‖L⁻¹(A_h u - f)‖ / ‖L⁻¹f‖``: 0 at the scheme's solution for the dataset's coefficients; for ``a = c`` it
    is ``‖u - u*‖ / ‖u*‖`` exactly, whatever the error's wavenumbers (a smooth and a grid-scale perturbation alike),
    where the plain residual of the grid-scale one is hundreds of times that of the smooth one."""
    s = 21
    physics = Darcy(f=1.0, resolution=s)
    a, u = darcy_sample(s, n=3)
    assert float(physics.preconditioned(u, a)) < 1e-12
    x = np.linspace(0, 1, s)
    smooth = np.outer(np.sin(np.pi * x), np.sin(np.pi * x))
    rough = np.outer(np.sin(17 * np.pi * x), np.sin(18 * np.pi * x))
    for c in (1.0, 7.5):
        a = np.full((1, s, s, 1), c)
        u = darcy.solve(a[..., 0], 1.0)[..., None]
        residuals = []
        for mode in (smooth, rough):
            e = 0.01 * np.linalg.norm(u) * (mode / np.linalg.norm(mode))[None, ..., None]
            assert float(physics.preconditioned(u + e, a)) == pytest.approx(0.01, rel=1e-9)
            residuals.append(float(physics.pde(u + e, a)))
        assert residuals[1] > 100 * residuals[0]


def test_the_darcy_estimate_is_the_relative_error_for_a_constant_coefficient_and_zero_at_the_solution():
    s = 21
    physics = Darcy(f=1.0, resolution=s)
    a, u = darcy_sample(s, n=3)
    np.testing.assert_allclose(physics.estimate(u, a), 0.0, atol=1e-12)
    x = np.linspace(0, 1, s)
    a = np.full((2, s, s, 1), 7.5)
    u = darcy.solve(a[..., 0], 1.0)[..., None]
    e = np.stack([np.outer(np.sin(np.pi * x), np.sin(2 * np.pi * x)), np.outer(np.sin(17 * np.pi * x), np.sin(3 * np.pi * x))])
    e = e / np.linalg.norm(e, axis=(1, 2), keepdims=True) * np.linalg.norm(u[0]) * np.array([0.01, 0.3])[:, None, None]
    np.testing.assert_allclose(physics.estimate(u + e[..., None], a), [0.01, 0.3], rtol=1e-9)


def test_the_physics_reads_the_inputs_on_its_own_finer_grid(tmp_path, monkeypatch):
    """``data.physics_resolution: 17`` (the labels at 9): the dataset holds the training samples on the 17-point
    grid too (the 9-point ones subsampled), the physics terms' minibatches come from there and the labelled ones
    from the 9-point split, and the run learns."""
    case = _tiny_darcy(tmp_path)
    case["data"] = {**case["data"], "n_labelled": 3, "physics_resolution": 17}
    case["training"] = {**case["training"], "terms": {"data": 1.0, "energy": 1.0}, "epochs": 6, "lr": 1e-2}
    case["model"]["vanish_on_edges"] = True
    cfg = cases.load(write_case(tmp_path, case)).config
    assert run.physics_for(cfg).resolution == 17
    data.write(cfg.data, cfg.data.path)
    fine, coarse = data.Split(cfg.data.path, data.PHYSICS_GROUP), data.Split(cfg.data.path, "train")
    np.testing.assert_array_equal(fine.read(np.arange(12))[0][:, ::2, ::2], coarse.read(np.arange(12))[0])
    shapes = []
    read = data.Split.read

    def recorded(self, rows):
        x, y = read(self, rows)
        shapes.append((self.group, x.shape[1]))
        return x, y

    monkeypatch.setattr(data.Split, "read", recorded)
    s = run.train(cfg, str(tmp_path / "run"), quiet=True)
    assert {(data.PHYSICS_GROUP, 17), ("train", 9)} <= set(shapes) and ("train", 17) not in shapes
    assert np.isfinite(s["metrics"]["rel_l2"]) and s["metrics"]["rel_l2"] < s["initial_rel_l2"]
    plain = cases.load(write_case(tmp_path, _tiny_darcy(tmp_path))).config  # the file serves the case without it
    data.check(plain.data, cfg.data.path)
    data.write(plain.data, cfg.data.path)  # and one made without it is refused by the case with it
    with pytest.raises(UserError, match="holds no training inputs on the 17-point grid"):
        data.check(cfg.data)


def test_unsolved_inputs_join_the_physics_minibatches_and_are_never_solved(tmp_path):
    """``data.n_physics: 8`` (3 of 12 training samples labelled, the physics on 17 points): the physics group holds
    the 12 training inputs, then 8 coefficients drawn as the generator draws them (the chunk after the test
    samples' seed) and not solved (outputs NaN); an epoch takes all 20 and the run learns (no NaN is read)."""
    case = _tiny_darcy(tmp_path)
    case["data"] = {**case["data"], "n_labelled": 3, "physics_resolution": 17, "n_physics": 8}
    case["training"] = {**case["training"], "terms": {"data": 1.0, "preconditioned": 1.0}, "epochs": 6, "lr": 1e-2}
    case["model"]["vanish_on_edges"] = True
    cfg = cases.load(write_case(tmp_path, case)).config
    data.write(cfg.data, cfg.data.path)
    physics_inputs = data.Split(cfg.data.path, data.PHYSICS_GROUP)
    x, y = physics_inputs.read(np.arange(len(physics_inputs)))
    train = data.Split(cfg.data.path, "train").read(np.arange(12))
    unsolved = data.chunks(cfg.data)[-1]
    drawn = darcy.coefficients(8, 17, data.chunk_seed(cfg.data.seed, unsolved.index))["a"]
    assert len(physics_inputs) == 20 and unsolved.n == 8 and unsolved.index == len(data.chunks(cfg.data)) - 1
    np.testing.assert_array_equal(x[:12, ::2, ::2], train[0])
    np.testing.assert_array_equal(x[12:, ..., 0], drawn.astype(np.float32))
    assert np.isfinite(y[:12]).all() and np.isnan(y[12:]).all()
    s = run.train(cfg, str(tmp_path / "run"), quiet=True)
    assert s["steps"] == 6 * (20 // cfg.training.batch_size)
    assert np.isfinite(s["metrics"]["rel_l2"]) and s["metrics"]["rel_l2"] < s["initial_rel_l2"]
    # the file serves a case with fewer unsolved inputs (the first ones) or none, and refuses one with more
    fewer = cases.load(write_case(tmp_path, case, data__n_physics=5)).config.data
    none = cases.load(write_case(tmp_path, case, data__n_physics=None)).config.data
    for other, n in ((fewer, 17), (none, 12)):
        data.check(other)
        split = data.physics_split(other, data.Split(other.path, "train"))
        assert len(split) == n and split.num_batches(1) == n
        np.testing.assert_array_equal(split.read(np.arange(n))[0], x[:n])
    with pytest.raises(UserError, match="holds 8 unsolved inputs for the physics terms, the case asks for "
                                        "data.n_physics = 9"):
        data.check(cases.load(write_case(tmp_path, case, data__n_physics=9)).config.data)


@pytest.mark.parametrize("changes,key,message", [
    ({"data__physics_resolution": 9}, "data.physics_resolution", "is not finer than data.resolution 9"),
    ({"data__physics_resolution": 13}, "data.physics_resolution", "not a subsample of the solver's grid of S = 17"),
    ({"data__physics_resolution": 17, "training__terms": {"data": 1.0}}, "data.physics_resolution", "has none"),
    ({"data__physics_resolution": 17, "training__terms": {"data": 1.0, "energy": 1.0}}, "data.physics_resolution",
     "give data.n_labelled"),
    ({"data__n_physics": 5, "training__terms": {"data": 1.0}}, "data.n_physics", "the loss has none"),
    ({"data__n_physics": 5, "training__terms": {"data": 1.0, "energy": 1.0}}, "data.n_physics",
     "give data.n_labelled"),
])
def test_physics_resolution_is_validated(tmp_path, changes, key, message):
    case = _tiny_darcy(tmp_path)
    case["model"]["vanish_on_edges"] = True
    with pytest.raises(ConfigError, match=message) as e:
        cases.load(write_case(tmp_path, case, **changes))
    assert key in str(e.value)


@pytest.mark.parametrize("term", ["energy", "preconditioned"])
def test_a_physics_only_darcy_run_learns_from_the_coefficients_alone(tmp_path, monkeypatch, term):
    """Darcy's energy (or preconditioned residual) with ``u = 0`` imposed on the edges, no solved output read (NaN
    here), the outputs' scale ``f / (2π² ā)`` from the coefficients: the test error falls, and there are no
    derived fields to score."""
    case = _tiny_darcy(tmp_path)
    case["training"] = {**case["training"], "terms": {"data": 0.0, term: 1.0}, "epochs": 20, "lr": 1e-2}
    case["model"]["vanish_on_edges"] = True
    case["evaluation"]["estimate"] = True
    cfg = cases.load(write_case(tmp_path, case)).config
    data.write(cfg.data, cfg.data.path)
    mx, sx, my, sy = run.moments(cfg, data.Split(cfg.data.path, "train"))
    assert my.tolist() == [0.0] and sy[0] == pytest.approx(1 / (2 * np.pi ** 2 * mx[0]))
    read = data.Split.read

    def inputs_only(self, rows):
        x, y = read(self, rows)
        return x, (np.full_like(y, np.nan) if self.group == "train" else y)

    monkeypatch.setattr(data.Split, "read", inputs_only)
    s = run.train(cfg, str(tmp_path / "run"), quiet=True)
    m = s["metrics"]
    assert set(m) == {"rel_l2", "rel_l2_17"} | {f"estimate{k}{r}" for k in ("", "_spearman") for r in ("", "_17")}
    assert np.isfinite(m["rel_l2"]) and m["rel_l2"] < 0.5 * s["initial_rel_l2"]
    # the estimate: the residual through L⁻¹ over ā, whose operator L⁻¹A_h/ā lies between 3/ā and 12/ā (about
    # 0.4 and 1.6), of the error against the scheme on the test grid (the true error's against a finer solve)
    assert all(0.5 < m[f"estimate{r}"] / m[f"rel_l2{r}"] < 2 for r in ("", "_17"))
    calibration = s["estimate_calibration"]  # per test grid: every test sample's true error <= max ratio x estimate
    assert set(calibration) == {"9", "17"} and all(c["threshold"] == pytest.approx(0.1 / c["ratio"]["max"])
                                                   for c in calibration.values())
    x, _ = data.Split(cfg.data.path, "test/9").read(np.arange(4))  # the same estimates with a prediction
    got = load_run(str(tmp_path / "run")).predict(x, estimate=True)
    assert np.mean(got["estimate"]) == pytest.approx(m["estimate"], rel=1e-5)
    refined = load_run(str(tmp_path / "run")).predict(x[:1], refine=20)
    assert refined["estimate"][0] <= refined["estimate_before"][0]


@pytest.mark.parametrize("resolution,edges", [(9, "simply_supported"), (17, "simply_supported"), (9, "clamped")])
def test_vanish_on_edges_multiplies_grid_and_decoded_outputs_by_the_edge_factor(tmp_path, resolution, edges):
    """The grid prediction is ``16 x(1-x) y(1-y)`` (squared for clamped edges) times that of the same parameters
    without the factor, 0 on the edges, and equals the decoded field at the grid points (at the training grid and
    zero-shot); on clamped edges the decoded field's normal derivative is 0 too."""
    case = {**_tiny(tmp_path), "dtype": "float64"}
    case["data"]["params"] = {**case["data"]["params"], "edges": edges}
    plain = cases.load(write_case(tmp_path, case)).config
    case["model"]["vanish_on_edges"] = True
    cfg = cases.load(write_case(tmp_path, case)).config
    op, op0 = build(cfg, 1, 1), build(plain, 1, 1)
    params = op.init(jax.random.PRNGKey(1))
    stats = op.stats(np.zeros(1), np.ones(1), np.full(1, 0.3), np.full(1, 2.0))
    x = np.random.default_rng(0).standard_normal((2, resolution, resolution, 1))
    pred = np.asarray(op.predict(params, stats, x))
    grid = np.asarray(fno.grid_channels((resolution, resolution), "closed", np.float64))
    factor = np.prod(4 * grid * (1 - grid), axis=-1)[None, ..., None] ** (2 if edges == "clamped" else 1)
    np.testing.assert_allclose(pred, factor * np.asarray(op0.predict(params, stats, x)), rtol=1e-12, atol=1e-14)
    assert np.all(pred[:, [0, -1]] == 0) and np.all(pred[:, :, [0, -1]] == 0) and np.abs(pred).max() > 1e-3
    field = op.field(params, stats, x)
    decoded = np.asarray(field(jnp.asarray(grid)))  # (s, s, batch, 1)
    np.testing.assert_allclose(np.moveaxis(decoded, 2, 0), pred, rtol=1e-9, atol=1e-11)
    edge = jnp.asarray([[0.0, 0.3], [1.0, 0.6], [0.4, 0.0], [0.7, 1.0]])
    slope = np.asarray(jax.jit(jax.vmap(jax.jacfwd(lambda p: field(p)[:, 0])))(edge))  # (4, batch, 2)
    normal = np.abs(np.stack([slope[:2, :, 0], slope[2:, :, 1]]))
    assert (normal.max() < 1e-12) == (edges == "clamped"), normal


@pytest.mark.parametrize("terms,model", [({"data": 0.0, "pde": 1.0, "boundary": 1.0}, {}),
                                         ({"data": 0.0, "energy": 1.0}, {"vanish_on_edges": True})])
def test_a_physics_only_run_learns_without_solved_samples(tmp_path, monkeypatch, terms, model):
    """The outputs' scaling comes from the loads, the solved outputs of the training split are never read, and
    two epochs of the pde and boundary terms, or of the energy with w = 0 imposed, lower the test error
    against Navier's series."""
    case = _tiny(tmp_path)
    case["training"]["terms"], case["model"] = terms, {**case["model"], **model}
    case["evaluation"]["estimate"] = True
    cfg = cases.load(write_case(tmp_path, case)).config
    data.write(cfg.data, cfg.data.path)
    mx, sx, my, sy = run.moments(cfg, data.Split(cfg.data.path, "train"))
    assert my.tolist() == [0.0] and sy[0] == pytest.approx(np.hypot(mx[0], sx[0]) / (4 * np.pi ** 4))
    read = data.Split.read

    def inputs_only(self, rows):
        x, y = read(self, rows)
        return x, (np.full_like(y, np.nan) if self.group == "train" else y)  # a solved output would poison it

    monkeypatch.setattr(data.Split, "read", inputs_only)
    s = run.train(cfg, str(tmp_path / "run"), quiet=True)
    assert np.isfinite(s["metrics"]["rel_l2"]) and s["metrics"]["rel_l2"] < s["initial_rel_l2"]
    moments = {f"rel_l2_{m}{r}" for m in ("mx", "my", "mxy") for r in ("", "_17")}
    estimates = {f"estimate{k}{r}" for k in ("", "_spearman") for r in ("", "_17")}
    assert set(s["metrics"]) == {"rel_l2", "rel_l2_17"} | moments | estimates  # moments from the decoded field
    assert all(0 < s["metrics"][k] < 10 for k in moments)
    assert all(0 < s["metrics"][f"estimate{r}"] < 100 and -1 <= s["metrics"][f"estimate_spearman{r}"] <= 1
               for r in ("", "_17"))
    assert_exported_model_scores_as_summary(tmp_path / "run", tmp_path)  # a PINO's export (issue 74)



def test_the_decoded_score_runs_the_training_grid_and_reads_the_field_at_the_finer_points(tmp_path):
    """``evaluation.decoded``: ``rel_l2_17_decoded`` in the summary is the error of the operator on the 17-point
    inputs subsampled to 9 points, its field decoded at the 17² points (here by the series at every point, not
    the grid path), against the 17-point test outputs; at the points the two grids share it is the 9-point
    prediction."""
    case = _tiny(tmp_path)
    case["training"]["terms"] = {"data": 1.0}
    case["evaluation"]["decoded"], case["dtype"] = True, "float64"
    cfg = cases.load(write_case(tmp_path, case)).config
    data.write(cfg.data, cfg.data.path)
    s = run.train(cfg, str(tmp_path / "run"), quiet=True)
    path, _, op, params, stats = export._trained(cfg, str(tmp_path / "run"))
    x, y = data.Split(cfg.data.path, "test/17").read(np.arange(4))
    coarse = x[:, ::2, ::2]
    points = jnp.asarray(np.stack(np.meshgrid(*[np.linspace(0, 1, 17)] * 2, indexing="ij"), -1))
    decoded = np.moveaxis(np.asarray(op.field(params, stats, jnp.asarray(coarse))(points)), 2, 0)  # (4, 17, 17, 1)
    want = np.mean(np.linalg.norm((decoded - y).reshape(4, -1), axis=1) / np.linalg.norm(y.reshape(4, -1), axis=1))
    assert s["metrics"]["rel_l2_17_decoded"] == pytest.approx(want, rel=1e-6)
    np.testing.assert_allclose(decoded[:, ::2, ::2], np.asarray(op.predict(params, stats, jnp.asarray(coarse))),
                               rtol=1e-7, atol=1e-9 * np.abs(decoded).max())



def test_a_decoded_score_needs_an_output_that_decodes():
    with pytest.raises(ConfigError, match="evaluation.decoded: needs model.type fno .* not 'recurrent'"):
        cases.load("cases/ns_fno_quick.yaml", ["evaluation.decoded=true"])


def test_a_decoded_score_needs_finer_grids_that_hold_the_training_grid(tmp_path):
    """13 and 25 points both subsample the solver's 25 (data's check passes), but 13 does not hold 9's points."""
    path = write_case(tmp_path, _tiny(tmp_path), evaluation__decoded=True, data__super_resolution=[13, 25])
    with pytest.raises(ConfigError, match="evaluation.decoded: the test grid of 13 points does not hold the "
                                          "training grid's 9"):
        cases.load(path)
    cases.load(write_case(tmp_path, _tiny(tmp_path), evaluation__decoded=True, data__super_resolution=[17, 33]))


def exact_moments(plate, amplitude, s):
    """The moments of :func:`sine_mode` on the closed ``s``-point grid, ``(batch, s, s, 3)`` (mx, my, mxy):
    ``M_x = M_y = D π² (1 + ν) A sin πx sin πy``, ``M_xy = -D (1 - ν) π² A cos πx cos πy``."""
    x = np.linspace(0, 1, s)
    sin, cos = np.outer(np.sin(np.pi * x), np.sin(np.pi * x)), np.outer(np.cos(np.pi * x), np.cos(np.pi * x))
    k = plate.D * np.pi ** 2 * np.asarray(amplitude)[:, None, None]
    return np.stack([k * (1 + plate.nu) * sin, k * (1 + plate.nu) * sin, -k * (1 - plate.nu) * cos], -1)


@pytest.mark.parametrize("s", [9, 12])
def test_derived_moments_of_the_decoded_field_against_exact_ones(s):
    """The evaluation's moments (second derivatives by the Taylor engine at every grid point, row by row) of the
    exact field score 0 against the exact moments, of the field scaled by 1.1 score 0.1 in each of M_x, M_y,
    M_xy, and a field with another M_xy only (a term in xy, curvature-free in x and y) is wrong in M_xy alone."""
    plate = Plate(D=2.0, nu=0.3, resolution=s)
    amplitude = np.array([1.0, -0.5, 2.0])
    def field_of(params, stats, x):  # the operator's field, from its "parameters": amplitudes and a term c x y
        return lambda p: sine_mode(params["a"])(p) + params["c"] * (p[..., :1] * p[..., 1:])[..., None]

    op = type("Op", (), {"field": staticmethod(field_of)})
    derive = run.make_derived(op, plate, "closed")
    x = jnp.zeros((3, s, s, 1))
    ref = jnp.asarray(exact_moments(plate, amplitude, s))
    for scale, mxy_error in ((1.0, 0.0), (1.1, 0.1)):
        got = derive({"a": jnp.asarray(scale * amplitude), "c": 0.0}, None, x, ref)
        assert set(got) == {"mx", "my", "mxy"} and got["mx"].shape == (3,)
        for name in ("mx", "my"):
            np.testing.assert_allclose(got[name], scale - 1.0, atol=1e-12)
        np.testing.assert_allclose(got["mxy"], mxy_error, atol=1e-12)
    got = derive({"a": jnp.asarray(amplitude), "c": 0.05}, None, x, ref)  # w_xy = 0.05 more: M_xy off by 0.035 D
    np.testing.assert_allclose(got["mx"], 0.0, atol=1e-12)
    mxy = ref[..., 2].reshape(3, -1)
    want = plate.D * (1 - plate.nu) * 0.05 * np.sqrt(s * s) / np.sqrt(np.sum(mxy ** 2, axis=1))
    np.testing.assert_allclose(got["mxy"], want, rtol=1e-10)


def test_the_reference_moments_are_the_navier_series_of_the_same_loads(tmp_path):
    """``solve_test`` solves the test samples again for other fields: the same loads and deflections as the
    dataset, and moments equal to ``navier_plate``'s (the load integrated by quadrature) for the load drawn
    from the sample's own seed."""
    from sciml.equations.plate_reference import navier_plate, random_loads

    case = _tiny(tmp_path)
    case["data"]["params"] = {"terms": 128, "nu": 0.25, "D": 2.0}
    cfg = cases.load(write_case(tmp_path, case)).config
    data.write(cfg.data, cfg.data.path)
    for r in (9, 17):
        x, y = data.Split(cfg.data.path, f"test/{r}").read(np.arange(4))
        x2, w = data.solve_test(cfg.data, r)
        np.testing.assert_allclose(x2, x, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(w, y, rtol=1e-5, atol=1e-6 * np.abs(y).max())
    x, moments = data.solve_test(cfg.data, 17, fields=["mx", "my", "mxy"])
    assert moments.shape == (4, 17, 17, 3)
    rng = np.random.default_rng(np.random.SeedSequence(data.chunk_seed(0, 0)).spawn(16)[12])  # test sample 0
    _, load = random_loads.grf(rng, 128)
    grid = np.linspace(0, 1, 17)
    X, Y = np.meshgrid(grid, grid, indexing="ij")
    np.testing.assert_allclose(load(X, Y), x[0, ..., 0], rtol=1e-12)
    ref = navier_plate(((0.0, 1.0), (0.0, 1.0)), 2.0, 0.25, load, X, Y, uniform=False)
    for i, name in enumerate(("mx", "my", "mxy")):
        np.testing.assert_allclose(moments[0, ..., i], ref[name], rtol=0, atol=2e-3 * np.abs(ref[name]).max())


def test_test_loads_that_are_not_the_settings_loads_are_refused(tmp_path, monkeypatch):
    case = _tiny(tmp_path)
    cfg = cases.load(write_case(tmp_path, case)).config
    data.write(cfg.data, cfg.data.path)
    solve = data.solve_test
    monkeypatch.setattr(data, "solve_test", lambda *a, **k: (lambda xy: (xy[0] * 1.01, xy[1]))(solve(*a, **k)))
    split = data.Split(cfg.data.path, "test/9")
    with pytest.raises(UserError, match="test inputs at s = 9 are not the loads its settings give"):
        run.evaluate_derived(cfg, None, None, split, 9, Plate.of({}, 9))


def test_labelled_batches_take_every_sample_once_before_any_twice():
    batches = run.labelled_batches(7, 3, np.random.default_rng(0))
    drawn = np.concatenate([next(batches) for _ in range(14)])  # 42 = 6 rounds of the 7
    assert all(sorted(drawn[7 * k:7 * k + 7]) == list(range(7)) for k in range(6))
    assert not np.array_equal(drawn[:7], drawn[7:14])
    assert sorted(next(run.labelled_batches(3, 3, np.random.default_rng(1)))) == [0, 1, 2]


@pytest.mark.parametrize("terms,model,generator", [({"data": 1.0}, {}, "plate"),
                                                   ({"data": 1.0, "energy": 1.0}, {"vanish_on_edges": True}, "plate"),
                                                   ({"data": 1.0, "energy": 1.0}, {"vanish_on_edges": True}, "darcy")])
def test_labelled_samples_alone_carry_the_data_term(tmp_path, monkeypatch, terms, model, generator):
    """``data.n_labelled: 3``: the outputs of the other 9 training samples are never used (NaN here, which would
    poison the loss, the scalings and the parameters), and training lowers the loss, with the data term alone (on
    the 3) or with the energy on all 12 loads (4 epochs of this tiny model fit the 3: the test error may rise)."""
    case = _tiny(tmp_path) if generator == "plate" else _tiny_darcy(tmp_path)
    case["data"]["n_labelled"] = 3
    case["training"]["terms"], case["model"] = terms, {**case["model"], **model}
    case["training"]["epochs"] = 4
    cfg = cases.load(write_case(tmp_path, case)).config
    data.write(cfg.data, cfg.data.path)
    read = data.Split.read

    def three_labelled(self, rows):
        x, y = read(self, rows)
        if self.group == "train":
            y = np.where(np.asarray(rows)[:, None, None, None] < 3, y, np.nan)
        return x, y

    monkeypatch.setattr(data.Split, "read", three_labelled)
    mx, sx, my, sy = run.moments(cfg, data.Split(cfg.data.path, "train"))
    assert np.isfinite(my).all() and np.isfinite(sy).all() and np.isfinite(mx).all()
    s = run.train(cfg, str(tmp_path / "run"), quiet=True)
    loss = [float(r.split(",")[2]) for r in (tmp_path / "run" / "metrics.csv").read_text().splitlines()[1:]]
    assert np.isfinite(s["metrics"]["rel_l2"]) and np.isfinite(loss).all() and loss[-1] < loss[0]
    assert s["steps"] == 4 * 3  # 12 loads in batches of 4, each step also one labelled batch of 3


def test_n_labelled_beyond_the_training_set_is_one_line(capsys):
    from sciml.cli import main

    code = main(["show", "cases/plate_operator_quick.yaml", "data.n_labelled=41"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == "error: cases/plate_operator_quick.yaml: data.n_labelled: 41 is more than data.n_train = 40\n"


def test_unsolved_inputs_from_a_generator_that_cannot_draw_them_are_one_line(capsys):
    from sciml.cli import main

    code = main(["show", "cases/plate_operator_quick.yaml", "data.n_physics=10"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == ("error: cases/plate_operator_quick.yaml: data.n_physics: generator 'plate' cannot draw inputs "
                   "without solving them\n")


@pytest.mark.parametrize("name", sorted(PHYSICS))
def test_each_physics_gives_the_terms_it_declares_and_only_known_ones(name):
    """The terms a case may weigh are a physics' TERMS (the config checks against them), and ``terms()`` gives each
    of them, no other, as its function."""
    from sciml.solvers.fno.config import PHYSICS_TERMS

    cls = PHYSICS[name]
    physics = cls.of({}, 9)
    assert set(cls.TERMS) <= set(PHYSICS_TERMS) and tuple(physics.terms()) == cls.TERMS
    assert all(callable(f) for f in physics.terms().values())
