"""Exact boundary conditions (solvers/pinn/exact.py): the transformed network meets each exact condition to
round-off on its part, the engine's derivatives of the transform match nested jax.jacfwd, and the case file's
mistakes name their key."""
import os

import jax
import numpy as np
import pytest
from cli_cases import TINY_PLATE, write_case

from sciml import cases
from sciml.errors import ConfigError
from sciml.solvers.pinn.problem import Problem

CASES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "cases")
ALL_EXACT = "conditions={enforce: {left: exact, right: exact, bottom: exact, top: exact}, length: 0.5}"
TINY_NS = ["model.hidden=[8,8]", "sampling.interior=32", "sampling.boundary=8"]


def plate(tmp_path, edge: str, *overrides: str):
    """The tiny plate's case with every edge ``edge``, imposed exactly."""
    edges = dict.fromkeys(("left", "right", "bottom", "top"), edge)
    path = write_case(tmp_path, equation__edges=edges)
    return cases.load(path, [ALL_EXACT, *overrides]).config


def edge_points(problem: Problem, n: int = 7) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(5)
    return {p: problem.geometry.boundary(p, n, rng, "uniform") for p in problem.geometry.parts}


def derivatives(d):
    return {k: d[k] for k in ("w", "w_x", "w_y", "w_xx", "w_yy")}


def test_clamped_edges_hold_the_deflection_and_its_slope_exactly(tmp_path):
    problem = Problem(plate(tmp_path, "clamped"))
    assert problem.terms == ("pde",)  # both quantities of every edge are exact: no edge is sampled
    params = problem.init(jax.random.PRNGKey(0))
    edges = edge_points(problem)
    pts = np.concatenate([np.array([[0.7, 1.1], [1.3, 2.2]]), *(p for p, _ in edges.values())])
    d = problem.predict(params, pts, of=derivatives)  # one call, one compilation
    scale = max(np.max(np.abs(v[:2])) for v in d.values())
    assert scale > 1e-3  # a network that is not zero inside
    for i, (p, (_, normals)) in enumerate(edges.items()):
        at = {k: v[2 + 7 * i:9 + 7 * i] for k, v in d.items()}
        slope = at["w_x"] * normals[:, 0] + at["w_y"] * normals[:, 1]
        assert np.max(np.abs(at["w"])) < 1e-14 * scale and np.max(np.abs(slope)) < 1e-13 * scale, p
        across = at["w_xx"] if p in ("left", "right") else at["w_yy"]
        assert np.min(np.abs(across)) > 1e-8 * scale, p  # the curvature across the edge is free


def test_simply_supported_edges_hold_the_deflection_and_keep_the_moment_as_a_penalty(tmp_path):
    problem = Problem(plate(tmp_path, "simply_supported"))
    assert problem.terms == ("pde", "bottom.m", "left.m", "right.m", "top.m")
    params = problem.init(jax.random.PRNGKey(0))
    for pts, _ in edge_points(problem).values():
        assert np.max(np.abs(problem.predict(params, pts)["w"])) < 1e-14 * problem.equation.W


def same_residuals_as_nested_jacfwd(load):
    """The residuals of a case loaded by ``load(autodiff mode)``, by the Taylor engine and by nested jax.jacfwd
    (float64, the cases' dtype), agree on one batch."""
    taylor, nested = Problem(load("taylor")), Problem(load("nested"))
    params = taylor.init(jax.random.PRNGKey(2))
    batch = taylor.sample(np.random.default_rng(0))
    key = jax.random.PRNGKey(0)
    a, b = taylor.residuals(params, batch, key), nested.residuals(params, batch, key)
    assert a.keys() == b.keys()
    for t in a:
        np.testing.assert_allclose(a[t], b[t], rtol=1e-10, atol=1e-10 * float(np.max(np.abs(b[t]))), err_msg=t)


def test_the_engine_differentiates_the_clamped_transform_as_nested_jacfwd(tmp_path):
    """Δ²w through the φ² factors of four clamped edges."""
    same_residuals_as_nested_jacfwd(lambda mode: plate(tmp_path, "clamped", "model.hidden=[6]",
                                                       "sampling.interior=16", f"autodiff.mode={mode}"))


def test_the_engine_differentiates_the_coons_transform_as_nested_jacfwd():
    """Kovasznay's momentum residuals through g, the Coons interpolant of the exact solution's edge values."""
    kovasznay = os.path.join(CASES, "kovasznay.yaml")
    same_residuals_as_nested_jacfwd(lambda mode: cases.load(kovasznay, [
        *TINY_NS, "model.type=mlp", "conditions={enforce: {boundary: exact}, length: 0.3}",
        f"autodiff.mode={mode}"]).config)


def test_kovasznay_velocity_takes_the_boundary_values_from_the_faces_alone():
    cfg = cases.load(os.path.join(CASES, "kovasznay.yaml"),
                     [*TINY_NS, "conditions={enforce: {boundary: exact}, length: 0.3}"]).config
    problem = Problem(cfg)
    assert problem.terms == ("continuity", "momentum_x", "momentum_y")
    params = problem.init(jax.random.PRNGKey(0))
    pts, _ = problem.geometry.boundary("boundary", 64, np.random.default_rng(1), "uniform")
    corners = np.array([[-0.5, -0.5], [1.0, -0.5], [-0.5, 1.5], [1.0, 1.5]])
    pts = np.concatenate([pts, corners])
    got, want = problem.predict(params, pts), problem.equation.reference(pts)
    for q in ("u", "v"):
        np.testing.assert_allclose(got[q], want[q], rtol=0, atol=1e-13 * np.max(np.abs(want[q])))
    # inside, the data g is the Coons interpolant of the edge values, not the exact solution: a network
    # transformed with N = 0 there differs from it
    zero = jax.tree_util.tree_map(lambda a: 0.0 * a, params)
    mid = np.array([[0.25, 0.2], [0.6, 0.9]])
    assert np.all(np.abs(problem.predict(zero, mid)["u"] - problem.equation.reference(mid)["u"]) > 1e-3)


@pytest.mark.parametrize("overrides,expected", [
    (["conditions.enforce={lef: exact}", "conditions.length=0.1"], "conditions.enforce.lef: unknown boundary part"),
    (["conditions.enforce={left: exakt}", "conditions.length=0.1"], "conditions.enforce.left"),
    (["conditions.enforce={left: exact}"], "conditions.length: exact parts ['left'] need the length scale"),
    (["conditions.enforce={left: exact}", "conditions.lenght=0.1"], "conditions.lenght"),
    (["equation.edges.left=free", "conditions.enforce={left: exact}", "conditions.length=0.1"],
     "conditions.enforce.left: no condition on 'left' can be imposed exactly"),
    (["conditions.enforce={left: base}", "conditions.length=0.1", "conditions.spacing=0.1"],
     "conditions.enforce.left: base is for the initial part"),
])
def test_case_file_errors_name_the_key(tmp_path, overrides, expected):
    path = write_case(tmp_path, TINY_PLATE)
    with pytest.raises(ConfigError) as e:
        cases.load(path, overrides)
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_refusals_name_the_part(tmp_path):
    kovasznay = os.path.join(CASES, "kovasznay.yaml")
    with pytest.raises(ConfigError, match=r"conditions.enforce.cylinder: non-zero values are exact only on faces"):
        cases.load(os.path.join(CASES, "dfg_2d1.yaml"),
                   ["equation.conditions.cylinder={u: 1, v: 0}", "conditions={enforce: {cylinder: exact}, "
                                                                "length: 0.1}"])
    assert Problem(cases.load(kovasznay, [*TINY_NS, "conditions={enforce: {boundary: penalty}}"]).config).terms[-2:] \
        == ("boundary.u", "boundary.v")
    with pytest.raises(ConfigError, match=r"conditions.enforce.initial: a time window's initial values .* exact with "
                                          r"conditions.spacing"):
        cases.load(os.path.join(CASES, "taylor_green.yaml"),
                   ["training.windows=2", "conditions={enforce: {initial: exact}, length: 0.1}"])
    with pytest.raises(ConfigError, match=r"conditions.enforce.initial: a base needs conditions.spacing"):
        cases.load(os.path.join(CASES, "taylor_green.yaml"), ["conditions={enforce: {initial: base}, length: 0.1}"])


def test_exact_initial_values_beside_an_exact_hole_are_refused(tmp_path):
    """A hole spans every time, so it meets the initial face, where the blend ``Z / (Z + F)`` would be 0 / 0 (the
    DFG 2D-2 start with the cylinder exact gave NaN forces at t = 0)."""
    with pytest.raises(ConfigError, match=r"conditions.enforce.initial: the exact values of 'initial' and of the "
                                          r"hole 'cylinder' meet .* give conditions.spacing"):
        cases.load(os.path.join(CASES, "dfg_2d2.yaml"),
                   ["training.windows=1", "training.overlap=0", "loss.weights={}",
                    "equation.start.path=" + str(tmp_path / "none.h5"),
                    "conditions={enforce: {walls: exact, cylinder: exact, initial: exact}, length: 0.05}"])
    cases.load(os.path.join(CASES, "dfg_2d2.yaml"),  # the initial values exact beside exact walls alone: accepted
               ["training.windows=1", "training.overlap=0", "loss.weights={}",
                "equation.start.path=" + str(tmp_path / "none.h5"),
                "conditions={enforce: {walls: exact, initial: exact}, length: 0.05}"])


U0 = "10 * y * (0.41 - y) * ((x - 0.2)**2 + (y - 0.2)**2 - 0.0025)"  # 0 on the walls and the cylinder


def start_beside_the_cylinder(tmp_path, *overrides):
    """DFG 2D-2 with smooth initial values (no start file) that vanish on the walls and the cylinder, the walls,
    cylinder and initial values exact, the initial values a spline on a grid of 0.01."""
    return cases.load(os.path.join(CASES, "dfg_2d2.yaml"), [
        *TINY_NS, "training.windows=1", "training.overlap=0", "loss.weights={}", "geometry.time=[0.0, 0.1]",
        "dtype=float64", "sampling.boxes={}",  # the case trains in float32 with a wake box; these checks are float64's
        "sampling.parts={cylinder: 16, initial: 16}", "sampling.near.cylinder.points=16",
        "equation.start.path=" + str(tmp_path / "none.h5"),
        f"equation.conditions.initial={{u: '{U0} * (1 + 0.3 * sin(3 * x))', v: '{U0} * 0.2 * cos(2 * y)'}}",
        "conditions={enforce: {walls: exact, cylinder: exact, initial: exact}, length: 0.05, spacing: 0.01}",
        *overrides]).config


def test_exact_initial_values_beside_an_exact_hole_take_a_spline_of_them_on_the_grid(tmp_path):
    """``g + phi (S + phi_t N)``: the initial values at the grid's nodes a cell away from the walls and the cylinder
    (to round-off) and between them (to the spline's error), 0 on the walls and the cylinder at every time."""
    problem = Problem(start_beside_the_cylinder(tmp_path))
    assert not any(t.startswith("initial.") for t in problem.terms)  # held exactly: no loss term
    params = problem.init(jax.random.PRNGKey(1))
    base = lambda x, y: 10 * y * (0.41 - y) * ((x - 0.2) ** 2 + (y - 0.2) ** 2 - 0.0025)
    u0 = lambda x, y: (base(x, y) * (1 + 0.3 * np.sin(3 * x)), base(x, y) * 0.2 * np.cos(2 * y))
    x, y = np.meshgrid(0.005 + 0.01 * np.arange(220), 0.005 + 0.01 * np.arange(41), indexing="ij")
    x, y = x.ravel(), y.ravel()
    away = (np.hypot(x - 0.2, y - 0.2) > 0.06) & (y > 0.01) & (y < 0.4)
    got = problem.predict(params, np.column_stack([x, y, np.zeros_like(x)])[away])
    for q, want in zip("uv", u0(x[away], y[away])):
        np.testing.assert_allclose(got[q], want, rtol=0, atol=1e-12)
    pts = np.random.default_rng(2).uniform([0.0, 0.02, 0.0], [2.2, 0.39, 0.0], (400, 3))
    pts = pts[np.hypot(pts[:, 0] - 0.2, pts[:, 1] - 0.2) > 0.07]
    got = problem.predict(params, pts)
    for q, want in zip("uv", u0(pts[:, 0], pts[:, 1])):
        error = np.abs(got[q] - want)  # h = 0.01: the spline's, not round-off; largest by the filled nodes
        assert 1e-9 < np.median(error) < 1e-5 and np.max(error) < 1e-3
    later = problem.predict(params, pts + [0, 0, 0.05])
    assert np.max(np.abs(later["u"] - got["u"])) > 1e-3  # the network's part after t0
    edges = edge_points(problem)
    for part in ("walls", "cylinder"):
        pts, _ = edges[part]
        for t in (0.0, 0.03, 0.1):
            at = problem.predict(params, np.column_stack([pts[:, :2], np.full(len(pts), t)]))
            assert max(np.max(np.abs(at[q])) for q in "uv") < 1e-12, (part, t)


def test_a_least_squares_start_is_the_same_at_t0_for_any_network_and_fits_closer_by_the_cylinder(tmp_path):
    """``conditions.fit: least_squares`` (the smooth start of issue 73): ``g + phi S`` with ``S`` fitted to the
    initial values at 2 points per cell and axis, no quotient and no filled nodes. At t0 the output is the same
    for any network (round-off: ``phi_t`` is 0 there), within 1e-5 of the values everywhere (the interpolating
    spline's filled nodes by the walls: 7e-3) and 1e-7 by the cylinder (6e-5)."""
    problem = Problem(start_beside_the_cylinder(tmp_path, "conditions.fit={method: least_squares, refine: 2}"))
    assert not any(t.startswith("initial.") for t in problem.terms)
    pts = np.random.default_rng(2).uniform([0.0, 0.0, 0.0], [2.2, 0.41, 0.0], (2000, 3))
    r = np.hypot(pts[:, 0] - 0.2, pts[:, 1] - 0.2)
    pts, r = pts[r > 0.05], r[r > 0.05]
    one, two = (problem.predict(problem.init(jax.random.PRNGKey(k)), pts) for k in (1, 2))
    base = 10 * pts[:, 1] * (0.41 - pts[:, 1]) * (r ** 2 - 0.0025)
    for q, want in (("u", base * (1 + 0.3 * np.sin(3 * pts[:, 0]))), ("v", base * 0.2 * np.cos(2 * pts[:, 1]))):
        np.testing.assert_allclose(one[q], two[q], rtol=0, atol=1e-14)
        error = np.abs(one[q] - want)
        assert np.max(error) < 1e-5 and np.max(error[r < 0.07]) < 1e-7, (q, np.max(error), np.max(error[r < 0.07]))
    later = [problem.predict(problem.init(jax.random.PRNGKey(k)), pts + [0, 0, 0.05]) for k in (1, 2)]
    assert np.max(np.abs(later[0]["u"] - later[1]["u"])) > 1e-3  # the network's part after t0
    edges = edge_points(problem)
    for part in ("walls", "cylinder"):
        on, _ = edges[part]
        for t in (0.0, 0.05):
            at = problem.predict(problem.init(jax.random.PRNGKey(1)), np.column_stack([on[:, :2], np.full(len(on), t)]))
            assert max(np.max(np.abs(at[q])) for q in "uv") < 1e-12, (part, t)


def test_a_grid_with_no_node_away_from_the_exact_parts_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"conditions.spacing: a grid of 0.5 leaves no node a cell away from the "
                                          r"exact parts \['walls', 'cylinder'\]"):
        start_beside_the_cylinder(tmp_path, "conditions.spacing=0.5")


def test_the_engine_differentiates_the_spline_transform_as_nested_jacfwd(tmp_path):
    same_residuals_as_nested_jacfwd(lambda mode: start_beside_the_cylinder(tmp_path, f"autodiff.mode={mode}"))


def test_a_base_holds_the_initial_values_under_a_zero_network_and_stays_a_penalty(tmp_path):
    """``enforce: {initial: base}``: ``g + phi (S + N)``, no time factor, the initial values still loss terms."""
    problem = Problem(start_beside_the_cylinder(tmp_path, "conditions.enforce.initial=base"))
    assert {"initial.u", "initial.v"} <= set(problem.terms)
    zero = jax.tree_util.tree_map(lambda a: 0.0 * a, problem.init(jax.random.PRNGKey(1)))
    x, y = (a.ravel() for a in np.meshgrid(0.005 + 0.01 * np.arange(220), 0.005 + 0.01 * np.arange(41), indexing="ij"))
    away = (np.hypot(x - 0.2, y - 0.2) > 0.06) & (y > 0.01) & (y < 0.4)
    base = 10 * y[away] * (0.41 - y[away]) * ((x[away] - 0.2) ** 2 + (y[away] - 0.2) ** 2 - 0.0025)
    for t in (0.0, 0.07):
        got = problem.predict(zero, np.column_stack([x[away], y[away], np.full(away.sum(), t)]))
        np.testing.assert_allclose(got["u"], base * (1 + 0.3 * np.sin(3 * x[away])), rtol=0, atol=1e-12)
    params = problem.init(jax.random.PRNGKey(1))
    start = problem.predict(params, np.column_stack([x[away], y[away], np.zeros(away.sum())]))
    assert np.max(np.abs(start["u"] - got["u"])) > 1e-3  # the network's part at t0 too


def test_a_clamped_polygon_holds_the_deflection_and_its_slope_exactly_on_every_edge(tmp_path):
    """The L-shaped plate: six edges, two of whose lines cross the plate (the re-entrant corner); its edges'
    trimmed distances (geometry/polygon.py) make ``phi^2 N`` vanish with its normal slope on every one."""
    l_shape = [[0, 0], [1, 0], [1, 0.5], [0.5, 0.5], [0.5, 1], [0, 1]]
    path = write_case(tmp_path, geometry={"type": "polygon", "vertices": l_shape, "names": ["edge"] * 6},
                      equation__edges={"edge": "clamped"}, equation__load=1.0)
    problem = Problem(cases.load(path, ["conditions={enforce: {edge: exact}, length: 0.5}"]).config)
    assert problem.terms == ("pde",)
    params = problem.init(jax.random.PRNGKey(0))
    pts, normals = problem.geometry.boundary("edge", 24, np.random.default_rng(5), "uniform")
    pts = np.concatenate([np.array([[0.3, 0.3], [0.25, 0.75]]), pts])
    d = problem.predict(params, pts, of=derivatives)
    scale = np.max(np.abs(d["w"][:2]))
    assert scale > 0
    slope = d["w_x"][2:] * normals[:, 0] + d["w_y"][2:] * normals[:, 1]
    assert np.max(np.abs(d["w"][2:])) < 1e-14 * scale and np.max(np.abs(slope)) < 1e-12 * scale
