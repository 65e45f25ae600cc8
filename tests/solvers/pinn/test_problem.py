"""The PINN problem: each method against the network evaluated directly (jax.hessian of the MLP), on a small
equation whose residuals are easy to write by hand."""
from dataclasses import dataclass
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import cases, equations
from sciml.solvers.pinn import model
from sciml.solvers.pinn.problem import Problem

from cli_cases import write_case


@dataclass
class ShiftConfig:
    type: Literal["test_shift"]


class Shift(equations.Equation):
    """u_xx + u_y = 0 on [0, 2]^2 seen as [-1, 1]^2; u = 0 on every edge; u(1, 1) = 1 (a point set)."""

    fields, coords = ("u",), ("x", "y")

    def __init__(self, config, domain):
        pass

    def to_nondim(self, x):
        return x - 1.0

    def to_physical(self, xh):
        return xh + 1.0

    def interior(self, d):
        return {"pde": d["u_xx"] + d["u_y"]}

    def boundary(self, part, d, normal):
        return {"u": d["u"]}

    def point_sets(self):
        return {"pin": (np.array([[1.0, 1.0]]), lambda d: {"u": d["u"] - 1.0})}


EDGES = ("left", "right", "bottom", "top")


@pytest.fixture
def problem(tmp_path):
    equations.register("test_shift", ShiftConfig, Shift)
    path = write_case(tmp_path, geometry={"type": "rectangle", "x": [0.0, 2.0], "y": [0.0, 2.0]},
                      equation={"type": "test_shift"}, loss={"weights": {"pde": 2.0, "left.u": 0.0}})
    cfg = cases.load(path).config
    yield Problem(cfg), cfg
    equations.EQUATIONS.pop("test_shift")


def _net(cfg, params):
    _, apply = model.build(cfg.model, 2, 1, jnp.float64)
    return lambda x: apply(params, x)[..., 0]


def test_sample_draws_nondimensional_points_of_every_kind(problem):
    prob, cfg = problem
    batch = prob.sample(np.random.default_rng(0))
    assert batch["interior"].shape == (64, 2) and batch["interior"].dtype == np.float64
    assert np.abs(batch["interior"]).max() <= 1.0 and batch["interior"].min() < -0.5  # [-1, 1], not [0, 2]
    assert set(batch["parts"]) == set(EDGES) and batch["periodic"] == {}
    assert all(b["x"].shape == b["n"].shape == (8, 2) for b in batch["parts"].values())
    np.testing.assert_array_equal(batch["parts"]["left"]["x"][:, 0], -1.0)
    np.testing.assert_array_equal(batch["parts"]["left"]["n"], [[-1.0, 0.0]] * 8)
    np.testing.assert_array_equal(batch["points"]["pin"], [[0.0, 0.0]])
    again = prob.sample(np.random.default_rng(0))
    assert all(np.array_equal(a, b) for a, b in zip(jax.tree_util.tree_leaves(batch), jax.tree_util.tree_leaves(again)))
    half = prob.sample(np.random.default_rng(0), lambda n: n // 2)
    assert half["interior"].shape == (32, 2) and half["parts"]["top"]["x"].shape == (4, 2)


def test_residuals_are_the_equation_on_the_batch(problem):
    prob, cfg = problem
    params = prob.init(jax.random.PRNGKey(1))
    batch = prob.sample(np.random.default_rng(0))
    res = prob.residuals(params, batch, jax.random.PRNGKey(0))
    assert prob.terms == ("pde", "bottom.u", "left.u", "pin.u", "right.u", "top.u")
    assert set(res) == set(prob.terms)
    u = _net(cfg, params)
    one = lambda x: u(x[None])[0]
    hess, grad = jax.vmap(jax.hessian(one))(batch["interior"]), jax.vmap(jax.grad(one))(batch["interior"])
    np.testing.assert_allclose(res["pde"], hess[:, 0, 0] + grad[:, 1], rtol=1e-10, atol=1e-12)
    for e in EDGES:
        np.testing.assert_allclose(res[f"{e}.u"], u(batch["parts"][e]["x"]), rtol=1e-12)
    np.testing.assert_allclose(res["pin.u"], u(jnp.zeros((1, 2))) - 1.0, rtol=1e-12)


def test_term_losses_are_mean_squares_and_loss_weighs_them(problem):
    prob, cfg = problem
    params, key = prob.init(jax.random.PRNGKey(1)), jax.random.PRNGKey(0)
    batch = prob.sample(np.random.default_rng(0))
    res = prob.residuals(params, batch, key)
    terms = prob.term_losses(params, batch, key)
    for t in prob.terms:
        np.testing.assert_allclose(terms[t], np.mean(np.square(res[t])), rtol=1e-12)
    total, same = prob.loss(params, batch, key)
    fixed = {t: 2.0 if t == "pde" else 0.0 if t == "left.u" else 1.0 for t in prob.terms}
    np.testing.assert_allclose(total, sum(fixed[t] * terms[t] for t in prob.terms), rtol=1e-12)
    assert set(same) == set(terms)
    adaptive = {t: 1.0 + i for i, t in enumerate(prob.terms)}
    weighted, _ = prob.loss(params, batch, key, adaptive)
    np.testing.assert_allclose(weighted, sum(fixed[t] * adaptive[t] * terms[t] for t in prob.terms), rtol=1e-12)


def test_predict_gives_the_derived_fields_at_physical_points(problem):
    prob, cfg = problem
    params = prob.init(jax.random.PRNGKey(1))
    pts = np.random.default_rng(2).uniform(0.0, 2.0, (50, 2))
    got = prob.predict(params, pts)
    assert set(got) == {"u"} and got["u"].shape == (50,)
    np.testing.assert_allclose(got["u"], _net(cfg, params)(jnp.asarray(pts - 1.0)), rtol=1e-12)
    np.testing.assert_array_equal(prob.predict(params, pts, chunk=7)["u"], got["u"])


def test_predict_of_another_function_of_the_fields(problem):
    prob, cfg = problem
    params = prob.init(jax.random.PRNGKey(1))
    pts = np.random.default_rng(2).uniform(0.0, 2.0, (20, 2))
    got = prob.predict(params, pts, of=lambda d: {"u_y": d["u_y"], "twice": 2 * d["u"]})
    one = lambda x: _net(cfg, params)(x[None])[0]
    np.testing.assert_allclose(got["u_y"], jax.vmap(jax.grad(one))(jnp.asarray(pts - 1.0))[:, 1], rtol=1e-12)
    np.testing.assert_allclose(got["twice"], 2 * prob.predict(params, pts)["u"], rtol=1e-12)


def test_near_points_join_the_interior(tmp_path):
    equations.register("test_shift", ShiftConfig, Shift)
    try:
        path = write_case(tmp_path, geometry={"type": "rectangle", "x": [0.0, 2.0], "y": [0.0, 2.0]},
                          equation={"type": "test_shift"},
                          sampling={"interior": 64, "near": {"left": {"points": 32, "distance": 0.1}}})
        batch = Problem(cases.load(path).config).sample(np.random.default_rng(0))
    finally:
        equations.EQUATIONS.pop("test_shift")
    x = batch["interior"] + 1.0  # physical
    assert x.shape == (96, 2) and np.all(x[64:, 0] <= 0.1) and np.mean(x[:64, 0] > 0.1) > 0.9


def test_extend_adds_physical_points_to_the_interior(problem):
    prob, _ = problem
    batch = prob.sample(np.random.default_rng(0))
    more = prob.extend(batch, np.array([[2.0, 0.0]]))
    np.testing.assert_array_equal(more["interior"][-1], [1.0, -1.0])
    assert len(more["interior"]) == 65 and prob.extend(batch, None) is batch
