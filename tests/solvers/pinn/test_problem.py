"""The PINN problem: each method against the network evaluated directly (jax.hessian of the MLP), on a small
equation whose residuals are easy to write by hand."""
import os
from dataclasses import dataclass
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_cases import TINY_PLATE, write_case

from sciml import cases, equations
from sciml.autodiff import api
from sciml.errors import ConfigError
from sciml.solvers.pinn import model
from sciml.solvers.pinn.problem import Problem


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
    hess, grad = (jax.jit(jax.vmap(d(one)))(batch["interior"]) for d in (jax.hessian, jax.grad))
    np.testing.assert_allclose(res["pde"], hess[:, 0, 0] + grad[:, 1], rtol=1e-10, atol=1e-12)
    for e in EDGES:
        np.testing.assert_allclose(res[f"{e}.u"], u(batch["parts"][e]["x"]), rtol=1e-12)
    np.testing.assert_allclose(res["pin.u"], u(jnp.zeros((1, 2))) - 1.0, rtol=1e-12)


def test_the_engine_runs_once_per_batch_layout_however_many_programs_trace_the_loss(problem, monkeypatch):
    """An optimiser's step, its line search and the causal weights each trace the loss: the residuals are traced
    once per layout of the batch and the autodiff engine's propagation is not run again for each."""
    _, cfg = problem
    taylor, runs = api.MODES["taylor"], []
    monkeypatch.setitem(api.MODES, "taylor", lambda *a, **k: runs.append(1) or taylor(*a, **k))
    prob = Problem(cfg)
    params, key = prob.init(jax.random.PRNGKey(1)), jax.random.PRNGKey(0)
    batch = prob.sample(np.random.default_rng(0))
    value = lambda p: prob.loss(p, batch, key)[0]
    made = len(runs)
    assert made > 0  # the problem's own probe of its terms
    for program in (value, jax.value_and_grad(value), jax.grad(value)):
        jax.jit(program).lower(params)
    assert len(runs) == made
    np.testing.assert_allclose(jax.jit(value)(params), value(params), rtol=1e-12)
    prob.residuals(params, prob.sample(np.random.default_rng(0), share=lambda n: n // 2), key)
    assert len(runs) > made  # a new layout is traced anew


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


def test_predict_pads_pieces_to_a_few_sizes_and_gives_every_point_its_own_value(problem):
    prob, _ = problem
    params = prob.init(jax.random.PRNGKey(1))
    pts = np.random.default_rng(3).uniform(0.0, 2.0, (3000, 2))
    whole = prob.predict(params, pts)["u"]
    for n in (1, 2, 100, 255, 256, 257, 1000, 1024, 1025, 2999):
        got = prob.predict(params, pts[:n])["u"]
        assert got.shape == (n,)
        np.testing.assert_allclose(got, whole[:n], rtol=1e-13, atol=1e-15)
    assert prob.derived.func._cache_size() == 3  # 256, 1024 and 4096 rows: one program each


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


@pytest.mark.parametrize("interior", [False, True])
def test_avoided_balls_hold_no_points(tmp_path, interior):
    """``sampling.avoid``: no boundary point (and with ``interior``, no interior point) within the radius of
    a centre; the counts stay what the case asks; elsewhere points still come right up to the ball."""
    equations.register("test_shift", ShiftConfig, Shift)
    try:
        path = write_case(tmp_path, geometry={"type": "rectangle", "x": [0.0, 2.0], "y": [0.0, 2.0]},
                          equation={"type": "test_shift"},
                          sampling={"interior": 512, "boundary": 256, "near": {"top": {"points": 64, "distance": 0.3}},
                                    "avoid": {"points": [[0.0, 2.0], [2.0, 2.0]], "radius": 0.25,
                                              "interior": interior}})
        batch = Problem(cases.load(path).config).sample(np.random.default_rng(0))
    finally:
        equations.EQUATIONS.pop("test_shift")
    gap = lambda x: np.min(np.linalg.norm(x[:, None, :] - np.array([[0.0, 2.0], [2.0, 2.0]]), axis=-1), axis=1)
    for part in ("left", "right", "top"):
        x = batch["parts"][part]["x"] + 1.0
        assert len(x) == 256 and gap(x).min() >= 0.25 and gap(x).min() < 0.3
    inner = gap(batch["interior"] + 1.0)
    assert len(inner) == 512 + 64 and (inner.min() >= 0.25) == interior


def test_exact_zero_conditions_multiply_the_network_by_a_vanishing_factor(tmp_path):
    equations.register("test_shift", ShiftConfig, Shift)
    try:
        path = write_case(tmp_path, geometry={"type": "rectangle", "x": [0.0, 2.0], "y": [0.0, 2.0]},
                          equation={"type": "test_shift"}, model={"hidden": [8, 8]},
                          conditions={"enforce": {"left": "exact", "top": "exact", "bottom": "penalty"},
                                      "length": 0.5})
        cfg = cases.load(path).config
        prob, free = Problem(cfg), Problem(cases.load(path, ["conditions.enforce={}"]).config)
    finally:
        equations.EQUATIONS.pop("test_shift")
    assert prob.terms == ("pde", "bottom.u", "pin.u", "right.u")  # left and top hold exactly: not sampled
    assert set(prob.sample(np.random.default_rng(0))["parts"]) == {"bottom", "right"}
    params = prob.init(jax.random.PRNGKey(1))
    pts = np.array([[0.0, 0.7], [1.3, 2.0], [1.0, 1.0], [2.0, 0.0]])
    phi = (1 - np.exp(-pts[:, 0] / 0.5)) * (1 - np.exp(-(2.0 - pts[:, 1]) / 0.5))
    np.testing.assert_allclose(prob.predict(params, pts)["u"], phi * free.predict(params, pts)["u"], rtol=1e-12)
    assert np.all(prob.predict(params, pts[:2])["u"] == 0.0)


def test_exact_conditions_take_values_of_network_outputs_only():
    here = os.path.join(os.path.dirname(__file__), "..", "..", "..", "cases")
    with pytest.raises(ConfigError, match=r"conditions.enforce.walls: no condition on 'walls' can be imposed"):
        cases.load(os.path.join(here, "ldc.yaml"), ["conditions={enforce: {walls: exact}, length: 0.1}",
                                                    "equation.lid_corners=false"])
    dfg = os.path.join(here, "dfg_2d1.yaml")
    problem = Problem(cases.load(dfg, ["conditions={enforce: {walls: exact, cylinder: exact, outlet: exact}, "
                                       "length: 0.1}"]).config)
    assert not any(t.startswith(("walls.", "cylinder.")) for t in problem.terms) and "inlet.u" in problem.terms
    assert "outlet.p" not in problem.terms and "outlet.u_n" in problem.terms  # the pressure value only


def test_extend_adds_physical_points_to_the_interior(problem):
    prob, _ = problem
    batch = prob.sample(np.random.default_rng(0))
    more = prob.extend(batch, np.array([[2.0, 0.0]]))
    np.testing.assert_array_equal(more["interior"][-1], [1.0, -1.0])
    assert len(more["interior"]) == 65 and prob.extend(batch, None) is batch


def test_box_points_join_the_interior_over_the_window():
    """``sampling.boxes.<name>``: that many more interior points in the box of space (a wake), at every time of
    the interval, after the layer's."""
    overrides = ["sampling.interior=64", "sampling.boundary=16", "sampling.parts={cylinder: 16, initial: 16}",
                 "sampling.near={cylinder: {points: 8, distance: 0.05}}", "geometry.time=[0.5, 0.6]",
                 "equation.conditions.initial={u: 1, v: 0, p: 0}",
                 "sampling.boxes={wake: {points: 50, lower: [0.25, 0.1], upper: [0.6, 0.3]}}"]
    prob = Problem(cases.load("dfg_2d2", overrides).config)
    physical = np.asarray(prob.equation.to_physical(prob.sample(np.random.default_rng(0))["interior"]))
    box = physical[72:]
    assert physical.shape == (122, 3) and np.all((box[:, :2] >= [0.25, 0.1]) & (box[:, :2] <= [0.6, 0.3]))
    assert np.all((box[:, 2] >= 0.5) & (box[:, 2] <= 0.6)) and np.ptp(box[:, 2]) > 0.08
    assert np.mean((physical[:72, 0] >= 0.25) & (physical[:72, 0] <= 0.6)) < 0.5


def test_initial_points_in_a_layer_along_a_part():
    """``sampling.near.<part>.initial``: that many more points of the part ``initial`` at the first time, within
    the layer's distance of the part (a start flow's wall layer), each with its initial residuals; a steady case
    has no first time and is told so."""
    overrides = ["sampling.interior=64", "sampling.boundary=16", "sampling.parts={cylinder: 16, initial: 100}",
                 "sampling.near={cylinder: {points: 8, distance: 0.05, initial: 40}}",
                 "equation.conditions.initial={u: 1, v: 0, p: 0}", "geometry.time=[0.5, 0.6]",
                 "sampling.boxes={}"]  # the case's wake box (4000 points) is not what this test is about
    prob = Problem(cases.load("dfg_2d2", overrides).config)
    batch = prob.sample(np.random.default_rng(0))
    init = batch["parts"]["initial"]
    x = np.asarray(init["x"])
    res = prob.residuals(prob.init(jax.random.PRNGKey(1)), batch, jax.random.PRNGKey(0))
    assert x.shape == (140, 3) and res["initial.u"].shape == (140,)
    assert np.all(init["n"][:, :2] == 0) and np.all(init["n"][:, 2] == -1)
    physical = np.asarray(prob.equation.to_physical(x))
    np.testing.assert_allclose(physical[:, 2], 0.5)
    gap = np.linalg.norm(physical[:, :2] - [0.2, 0.2], axis=1) - 0.05
    assert np.all((gap[100:] >= 0) & (gap[100:] <= 0.05 + 1e-12)) and np.mean(gap[:100] > 0.05) > 0.9
    # sampling.avoid keeps its balls free of the layer's initial points too (points of the part initial), but
    # not of the layer's interior points (without avoid.interior)
    avoid = Problem(cases.load("dfg_2d2", [*overrides, "sampling.near={cylinder: {points: 64, distance: 0.05, "
                                                        "initial: 40}}",
                                           "sampling.avoid={points: [[0.2, 0.2]], radius: 0.06}"]).config)
    batch = avoid.sample(np.random.default_rng(0))
    centre = lambda x: np.linalg.norm(np.asarray(avoid.equation.to_physical(x))[:, :2] - [0.2, 0.2], axis=1)
    start, inside = centre(batch["parts"]["initial"]["x"]), centre(batch["interior"])
    assert len(start) == 140 and start.min() >= 0.06 and np.sum(start < 0.1) >= 40 and inside.min() < 0.06
    with pytest.raises(ConfigError, match=r"sampling\.near\.cylinder\.initial: initial points need a time interval"):
        cases.load("dfg_2d1", ["sampling.near.cylinder.initial=10"])


def test_a_case_loaded_again_on_the_same_files_is_assembled_once(tmp_path, monkeypatch):
    from sciml.solvers.pinn import problem as module

    made = []
    monkeypatch.setattr(module, "Problem", lambda cfg, **kw: made.append(cfg))
    monkeypatch.setattr(module, "_ASSEMBLED", set())
    weights = ["loss.weights={pde: 2.0}", "model.hidden=[4]"]
    cases.load("plate", weights)
    cases.load("plate", weights)
    assert len(made) == 1  # the same case: assembled once
    cases.load("plate", [*weights, "equation.q0=2.0"])
    assert len(made) == 2  # another case
    data = tmp_path / "sensors.csv"
    data.write_text("x,y,w\n0.5,0.5,0.0\n")
    identify = [f"data.path={data}", "model.hidden=[4]"]
    cases.load("plate_identify", identify)
    cases.load("plate_identify", identify)
    assert len(made) == 3
    os.utime(data, ns=(0, 0))  # a file it names changed: assembled again
    cases.load("plate_identify", identify)
    assert len(made) == 4


def test_an_energy_density_enters_the_loss_by_its_mean(tmp_path):
    """The plate in its energy form: the interior term is the energy's density, taken by its mean (it may be
    negative), and the simply supported edges keep only ``w`` (the moment is the energy's natural condition)."""
    cfg = cases.load(write_case(tmp_path, equation={**TINY_PLATE["equation"], "form": "energy"},
                                sampling={**TINY_PLATE["sampling"], "resample_every": 1})).config
    prob = Problem(cfg)
    assert prob.terms == ("energy", "bottom.w", "left.w", "right.w", "top.w")
    params, key = prob.init(jax.random.PRNGKey(1)), jax.random.PRNGKey(0)
    batch = prob.sample(np.random.default_rng(0))
    res, terms = prob.residuals(params, batch, key), prob.term_losses(params, batch, key)
    np.testing.assert_allclose(terms["energy"], np.mean(res["energy"]), rtol=1e-12)
    np.testing.assert_allclose(terms["left.w"], np.mean(np.square(res["left.w"])), rtol=1e-12)
