"""The ball in any dimension: uniform sampling inside and on the sphere, held-out points, a PINN run on it."""
import jax
import numpy as np
import pytest
import yaml

from sciml import cases
from sciml.errors import UserError
from sciml.solvers.pinn import run as driver
from sciml.solvers.pinn.geometry import Ball


@pytest.mark.parametrize("dim", [2, 5, 300])
def test_interior_is_uniform_in_the_ball(dim):
    ball = Ball(dim, radius=2.0)
    x = ball.interior(4000, np.random.default_rng(0), "uniform")
    assert x.shape == (4000, dim) and ball.contains(x).all()
    # |x|/r is distributed as U^(1/d): P(|x| <= r/2) = 2^-d, and the mean of (|x|/r)^d is 1/2
    rho = np.linalg.norm(x, axis=-1) / 2.0
    assert abs(np.mean(rho**dim) - 0.5) < 4 * np.sqrt(1 / 12 / 4000)
    # the directions are isotropic: mean x ≈ 0 (each coordinate's standard error is about r/√(d n))
    assert np.abs(x.mean(axis=0)).max() < 5 * 2.0 / np.sqrt(dim * 4000)


@pytest.mark.parametrize("method", ["uniform", "sobol"])
def test_sphere_points_and_normals(method):
    ball = Ball(7, radius=1.5)
    pts, normals = ball.boundary("sphere", 256, np.random.default_rng(1), method)
    np.testing.assert_allclose(np.linalg.norm(pts, axis=-1), 1.5, rtol=1e-12)
    np.testing.assert_allclose(normals, pts / 1.5, rtol=1e-12)
    assert ball.on_part("sphere", pts).all() and not ball.on_part("sphere", 0.5 * pts).any()
    assert np.abs(pts.mean(axis=0)).max() < 5 * 1.5 / np.sqrt(7 * 256)
    np.testing.assert_allclose(np.asarray(ball.distances("sphere")[0](0.2 * pts)), 1.2, rtol=1e-12)


def test_held_out_points_are_fixed_and_scattered():
    ball = Ball(50, test_points=64)
    a, b = ball.evaluation_points(), ball.evaluation_points()
    np.testing.assert_array_equal(a.points, b.points)
    assert a.points.shape == (64, 50) and a.shape == (64,) and a.mask.all() and not a.gridded
    assert ball.coords[0] == "x1" and ball.coords[-1] == "x50"
    train = ball.interior(64, np.random.default_rng(0), "uniform")
    assert not np.isin(a.points, train).any()


CASE = """
case: hd
solver: pinn
dtype: float64
geometry: {type: ball, dim: 12, test_points: 500}
equation: {type: semilinear, form: poisson, solution: two_body}
model: {hidden: [16, 16]}
conditions: {enforce: {sphere: exact}, length: 1.0}
sampling: {interior: 64, boundary: 32, method: uniform, resample_every: 1}
autodiff: {mode: stochastic, samples: 12, distribution: sparse}
training: {adam: {steps: 300, lr: 1.0e-2, schedule: {type: cosine}}, log_every: 20}
"""


@pytest.mark.figures("loss")
def test_pinn_on_a_ball_reports_held_out_error(tmp_path):
    path = tmp_path / "hd.yaml"
    path.write_text(CASE)
    case = cases.load(str(path))
    cfg = case.config
    summary = driver.train(cfg, str(tmp_path / "run"), quiet=True)
    err = summary["metrics"]["rel_l2_u"]
    with jax.enable_x64(True):  # the network as initialised, on the same held-out points
        problem = driver.assemble(cfg)
        ev = problem.geometry.evaluation_points()
        _, untrained = driver.evaluate(problem, problem.init(jax.random.PRNGKey(0)),
                                       problem.equation.reference(ev.points), ev)
    assert np.isfinite(err) and err < 0.5 * untrained["rel_l2_u"]
    assert summary["parallel"]["interior_points"] == 64 and err < 0.3
    assert not (tmp_path / "run" / "fields.h5").exists()  # scattered points: no grid to write
    assert (tmp_path / "run" / "plots" / "loss.png").exists()


def test_too_few_coordinates_is_one_clear_error(tmp_path):
    doc = yaml.safe_load(CASE)
    doc["geometry"]["dim"] = 2
    doc["equation"]["solution"] = "three_body"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(UserError, match="three_body needs at least 3 coordinates"):
        cases.load(str(path))


def test_held_out_points_are_bounded_in_coordinates():
    """At most 10⁸ held-out coordinates (0.8 GB): 1000 points at d = 10⁵, the request below that."""
    from sciml.solvers.pinn.geometry.ball import MAX_TEST_COORDINATES, Ball

    assert Ball(10**5, test_points=10000).test_points == MAX_TEST_COORDINATES // 10**5 == 1000
    assert Ball(1000, test_points=10000).test_points == 10000
