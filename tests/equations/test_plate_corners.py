"""A clamped plate's re-entrant corner (equations/plate_corners.py, ``equation.singular_corners``): Williams'
exponent, the corner function biharmonic with both clamped conditions (nested ``jax.jacfwd``, float64), vanishing
outside its disc; in the L-plate's exact factor the edges stay exact, the Taylor engine's energy density equals
nested autodiff's, and the case file's mistakes are one line naming the key."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_cases import write_case

from sciml import cases
from sciml.cli import main
from sciml.equations import plate_corners
from sciml.equations.domain import Corner
from sciml.solvers.pinn.problem import Problem

jax.config.update("jax_enable_x64", True)

L_SHAPE = [[0, 0], [1, 0], [1, 0.5], [0.5, 0.5], [0.5, 1], [0, 1]]
# the L's inner corner: the edge from (1, 0.5) runs in along -x (outward normal +y), the edge to (0.5, 1) out along +y
L_CORNER = Corner(np.array([0.5, 0.5]), "edge", np.array([0.0, 1.0]), "edge", np.array([1.0, 0.0]), 1.5 * math.pi)


def test_the_exponent_is_williams_at_270_degrees_and_a_half_at_a_crack():
    assert plate_corners.exponent(1.5 * math.pi) == pytest.approx(0.5444837368, abs=1e-9)
    assert plate_corners.exponent(2 * math.pi) == pytest.approx(0.5, abs=1e-9)
    assert plate_corners.exponent(1.01 * math.pi) > 0.95  # nearly straight: nearly smooth (r^2)
    with pytest.raises(ValueError):
        plate_corners.exponent(0.5 * math.pi)


@pytest.fixture
def uncut(monkeypatch):
    """The corner function without its cut-off inside the disc (chi = 1 for rho < 1)."""
    monkeypatch.setattr(plate_corners, "_CHI_POWER", 0)


def test_the_corner_function_is_biharmonic_and_clamped_on_both_edges(uncut):
    f = plate_corners.corner_function(L_CORNER, radius=1.0)
    s = lambda z: f(z[None])[0]
    lap = lambda z: jnp.trace(jax.hessian(s)(z))
    bilap = jax.jit(lambda z: jnp.trace(jax.hessian(lap)(z)))  # one program (op by op: hundreds of small ones)
    lap = jax.jit(lap)
    rng = np.random.default_rng(0)
    inside = [p for p in rng.uniform(0.1, 0.9, (40, 2)) if not (p[0] > 0.5 and p[1] > 0.5)][:12]
    for p in inside:
        assert abs(float(bilap(jnp.asarray(p)))) < 1e-9 * abs(float(lap(jnp.asarray(p)))) + 1e-9, p
    assert max(abs(float(s(jnp.asarray(p)))) for p in inside) > 0.05
    grad = jax.grad(s)
    for t in (0.05, 0.2, 0.4):  # on the edge x = 0.5 (y > 0.5) and on y = 0.5 (x > 0.5): w = 0, dw/dn = 0
        for p, n in (([0.5, 0.5 + t], [1.0, 0.0]), ([0.5 + t, 0.5], [0.0, 1.0])):
            z = jnp.asarray(p)
            assert abs(float(s(z))) < 1e-14 and abs(float(grad(z) @ jnp.asarray(n))) < 1e-12, p
    # r^(1 + lambda) along the bisector
    lam = plate_corners.exponent(1.5 * math.pi)
    b = np.array([-1.0, -1.0]) / math.sqrt(2)
    ratio = float(s(jnp.asarray(0.5 + 0.2 * b)) / s(jnp.asarray(0.5 + 0.1 * b)))
    assert ratio == pytest.approx(2 ** (1 + lam), rel=1e-12)


def test_the_cut_off_corner_function_vanishes_with_its_derivatives_off_its_disc():
    f = plate_corners.corner_function(L_CORNER, radius=0.3)
    s = lambda z: f(z[None])[0]
    for p in ([0.1, 0.1], [0.5, 0.15], [0.2, 0.9]):  # farther than 0.3 from the corner
        z = jnp.asarray(p)
        assert float(s(z)) == 0 and float(jnp.max(jnp.abs(jax.hessian(s)(z)))) == 0
    corner = jnp.asarray([0.5, 0.5])
    assert float(s(corner)) == 0 and np.all(np.isfinite(np.asarray(jax.hessian(s)(corner))))  # the corner itself


def l_plate(tmp_path, *overrides, **changes):
    path = write_case(tmp_path, geometry={"type": "polygon", "vertices": L_SHAPE, "names": ["edge"] * 6},
                      equation__edges={"edge": "clamped"}, equation__load=1.0, equation__form="energy",
                      equation__singular_corners=True, model__hidden=[6], sampling__interior=16,
                      sampling__resample_every=1, **changes)
    return cases.load(path, ["conditions={enforce: {edge: exact}, length: 0.2}", *overrides]).config


def test_the_l_plate_with_its_corner_function_keeps_every_edge_clamped_exactly(tmp_path):
    problem = Problem(l_plate(tmp_path))
    assert problem.terms == ("energy",)
    assert plate_corners.radius(problem.geometry, L_CORNER, lambda p: True) == pytest.approx(0.4, rel=1e-6)
    params = problem.init(jax.random.PRNGKey(0))
    pts, normals = problem.geometry.boundary("edge", 24, np.random.default_rng(5), "uniform")
    pts = np.concatenate([np.array([[0.4, 0.4], [0.3, 0.3], [0.25, 0.75]]), pts])
    of = lambda d: {k: d[k] for k in ("w", "w_x", "w_y")}
    d = problem.predict(params, pts, of=of)
    scale = np.max(np.abs(d["w"][:3]))
    assert scale > 0
    slope = d["w_x"][3:] * normals[:, 0] + d["w_y"][3:] * normals[:, 1]
    assert np.max(np.abs(d["w"][3:])) < 1e-14 * scale and np.max(np.abs(slope)) < 1e-12 * scale
    plain = Problem(l_plate(tmp_path, "equation.singular_corners=false")).predict(params, pts[:3])["w"]
    assert np.all(np.abs(d["w"][:3] - plain) > 1e-6 * scale)  # near the corner the function is in the factor


def test_the_engine_differentiates_the_corner_function_as_nested_jacfwd(tmp_path):
    taylor, nested = (Problem(l_plate(tmp_path, f"autodiff.mode={m}")) for m in ("taylor", "nested"))
    params = taylor.init(jax.random.PRNGKey(2))
    batch = taylor.sample(np.random.default_rng(0))
    key = jax.random.PRNGKey(0)
    a, b = taylor.residuals(params, batch, key), nested.residuals(params, batch, key)
    assert a.keys() == b.keys() == {"energy"}
    np.testing.assert_allclose(a["energy"], b["energy"], rtol=1e-10, atol=1e-10 * float(np.max(np.abs(b["energy"]))))


@pytest.mark.parametrize("changes,overrides,said", [
    ({"equation__form": "strong"}, [], "equation.singular_corners: needs form: energy"),
    ({"geometry": {"type": "rectangle", "x": [0.0, 1.0], "y": [0.0, 1.0]}}, [],
     "equation.singular_corners: the plate has no re-entrant corner between two clamped edges"),
    ({}, ["conditions={enforce: {}}"], "conditions.enforce: the equation adds a singular shape"),
])
def test_case_file_mistakes_are_one_line(tmp_path, capsys, changes, overrides, said):
    base = {"geometry": {"type": "polygon", "vertices": L_SHAPE, "names": ["edge"] * 6}, "equation__edges":
            {"edge": "clamped"}, "equation__load": 1.0, "equation__form": "energy", "equation__singular_corners": True,
            "conditions": {"enforce": {"edge": "exact"}, "length": 0.2}, "sampling__resample_every": 1}
    path = write_case(tmp_path, **{**base, **changes})
    if "geometry" in changes:
        path = write_case(tmp_path, **{**base, **changes, "equation__edges": {"left": "clamped"},
                                       "conditions": {"enforce": {"left": "exact"}, "length": 0.2}})
    assert main(["show", path, *overrides]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err
