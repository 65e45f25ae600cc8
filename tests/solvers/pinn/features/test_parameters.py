"""Parametric PINNs (``parameters:``): the encoding and its draws, the batch's columns, derivatives in the
coordinates only, the equation at each point's values, the stretched plate, the family's evaluation and
summary, export and ``sciml predict`` with parameter columns and their range check."""
import csv

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_cases import write_case
from export_check import assert_exported_model_scores_as_summary

from sciml import cases
from sciml.cli import main
from sciml.compile import Policy
from sciml.equations.fields import evaluator
from sciml.equations.plate import KirchhoffPlate, PlateConfig
from sciml.errors import ConfigError, UserError
from sciml.solvers.pinn.features import parameters
from sciml.solvers.pinn.geometry import RectangleConfig as GeometryConfig
from sciml.solvers.pinn.geometry import build_geometry
from sciml.solvers.pinn.problem import Problem

FAMILY = {"aspect": {"range": [1.0, 2.0], "values": [1.0, 2.0]}}


def _problem(tmp_path, **changes):
    with Policy.of("float64").precision():
        case = cases.load(write_case(tmp_path, parameters=changes.pop("parameters", FAMILY), **changes))
        return Problem(case.config), case


def test_the_batch_carries_encoded_columns_and_the_network_takes_them(tmp_path):
    with Policy.of("float64").precision():
        problem, _ = _problem(tmp_path)
        batch = problem.sample(np.random.default_rng(0))
        assert batch["interior"].shape == (64, 3)
        assert all(b["x"].shape == (8, 3) for b in batch["parts"].values())
        cols = batch["interior"][:, 2]
        assert -1.0 <= cols.min() < -0.5 and 0.5 < cols.max() <= 1.0  # spread over the encoded range
        # not lined up with the points' own quasi-random sequence
        assert abs(np.corrcoef(cols, batch["interior"][:, 0])[0, 1]) < 0.5
        params = problem.init(jax.random.PRNGKey(0))
        assert np.asarray(params[0]["W"]).shape[0] == 3  # x, y and the aspect ratio
        total, terms = problem.loss(params, batch, jax.random.PRNGKey(0))
        assert np.isfinite(float(total)) and set(terms) == set(problem.terms)


def test_encoding_maps_the_range_onto_minus_one_one():
    from sciml.solvers.pinn.config import ParameterConfig

    for scale in ("linear", "log"):
        c = ParameterConfig(range=[0.5, 8.0], scale=scale)
        u = parameters._encode(c, np.array([0.5, 8.0]), np)
        np.testing.assert_allclose(u, [-1.0, 1.0], atol=1e-12)
        v = np.array([0.7, 2.0, 7.9])
        np.testing.assert_allclose(parameters._decode(c, parameters._encode(c, v, np), np), v, rtol=1e-12)
    middle = parameters._decode(ParameterConfig(range=[1.0, 100.0], scale="log"), np.array(0.0), np)
    assert float(middle) == pytest.approx(10.0)


def test_derivatives_are_taken_in_the_coordinates_only():
    """A function of (x, y, p): the padded requests give the partials in x and y at each point's own p."""
    f = lambda z: (jnp.sin(z[..., 0] * z[..., 2]) * z[..., 1] ** 3)[..., None]
    z = jnp.array([[0.3, 0.5, 1.5], [-0.2, 0.9, -0.7]])
    d = evaluator(f, [(0, 0), (2, 0), (1, 2)], ("u",), ("x", "y"), extra=1)(z)
    x, y, p = z[:, 0], z[:, 1], z[:, 2]
    np.testing.assert_allclose(d.points, z[:, :2])
    np.testing.assert_allclose(d["u_xx"], -p**2 * jnp.sin(p * x) * y**3, rtol=1e-5)
    np.testing.assert_allclose(d["u_xyy"], p * jnp.cos(p * x) * 6 * y, rtol=1e-5)


def test_the_equation_of_each_point_takes_its_value(tmp_path):
    """A family over the load's peak q0: the deflection scale follows it point by point, so w is linear in q0."""
    with Policy.of("float64").precision():
        problem, _ = _problem(tmp_path, parameters={"q0": {"range": [1.0, 4.0]}}, equation__q0=2.0)
        params = problem.init(jax.random.PRNGKey(1))
        pts = np.array([[0.7, 1.2], [1.5, 2.0]])
        w1 = problem.predict(params, pts, values={"q0": 1.0})["w"]
        w3 = problem.predict(params, pts, values={"q0": 3.0})["w"]
        # the network also sees q0, so only the scale is exactly linear: compare the network's own output
        z1, z3 = problem.inputs(pts, {"q0": 1.0}), problem.inputs(pts, {"q0": 3.0})
        net = lambda z: np.asarray(problem._apply(params, jnp.asarray(z)))[:, 0]
        np.testing.assert_allclose(w3 / w1, 3.0 * net(z3) / net(z1), rtol=1e-10)
        per_point = problem.predict(params, pts, values={"q0": np.array([1.0, 3.0])})["w"]
        np.testing.assert_allclose(per_point, [w1[0], w3[1]], rtol=1e-12)
        with pytest.raises(UserError, match=r"parameter 'q0' = 5\.\.5 is outside its range \[1, 4\]"):
            problem.predict(params, pts, values={"q0": 5.0})
        with pytest.raises(UserError, match="needs the values of its parameters"):
            problem.predict(params, pts)


def _stretched(aspect, load="sin(pi * x) * sin(pi * y / 2)"):
    geo = build_geometry(GeometryConfig(type="rectangle", x=[0.0, 1.0], y=[0.0, 1.0]))
    cfg = PlateConfig(type="kirchhoff_plate", load=load, D=2.0, nu=0.3, aspect=aspect)
    return KirchhoffPlate(cfg, geo)


def test_the_stretched_plate_is_the_longer_plate():
    """The unit square stretched to 1 x 2: the sine load's exact solution has zero residuals in the geometry's
    coordinates, its moments are the 1 x 2 plate's, and the reference is the longer plate's."""
    with Policy.of("float64").precision():
        for aspect in (2.0, jnp.full((5,), 2.0)):  # a number, and per-point values
            eq = _stretched(aspect)
            A = 1.0 / (2.0 * np.pi**4 * (1 + 1 / 4) ** 2)  # w = A sin(pi x) sin(pi y / 2) on [0, 1] x [0, 2]

            def net(xh):
                x = eq.to_physical(xh)
                return (A * jnp.sin(np.pi * x[..., 0]) * jnp.sin(np.pi * x[..., 1]) / eq.W)[..., None]

            pts = np.array([[0.2, 0.3], [0.5, 0.5], [0.8, 0.1], [0.35, 0.9], [0.6, 0.65]])
            xh = jnp.asarray(eq.to_nondim(pts))
            req = [(4, 0), (2, 2), (0, 4), (0, 0), (2, 0), (0, 2), (1, 1), (3, 0), (1, 2), (2, 1), (0, 3),
                   (1, 0), (0, 1)]
            d = evaluator(net, req, eq.fields, eq.coords)(xh)
            np.testing.assert_allclose(eq.interior(d)["pde"], 0.0, atol=1e-10)
            out = eq.derived(d)
            X, Y = pts[:, 0], 2 * pts[:, 1]
            s = np.sin(np.pi * X) * np.sin(np.pi * Y / 2)
            np.testing.assert_allclose(out["mx"], 2.0 * A * np.pi**2 * (1 + 0.3 / 4) * s, rtol=1e-9)
            np.testing.assert_allclose(out["my"], 2.0 * A * np.pi**2 * (1 / 4 + 0.3) * s, rtol=1e-9)
            top = jnp.asarray(eq.to_nondim(np.array([[0.3, 1.0], [0.7, 1.0], [0.1, 1.0], [0.5, 1.0], [0.9, 1.0]])))
            db = evaluator(net, req, eq.fields, eq.coords)(top)
            normal = jnp.tile(jnp.array([[0.0, 1.0]]), (5, 1))
            for r in eq.boundary("top", db, normal).values():
                np.testing.assert_allclose(r, 0.0, atol=1e-10)
    ref = _stretched(2.0, "1").reference(pts)
    longer = KirchhoffPlate(PlateConfig(type="kirchhoff_plate", load="1", D=2.0, nu=0.3),
                            build_geometry(GeometryConfig(type="rectangle", x=[0.0, 1.0], y=[0.0, 2.0])))
    expect = longer.reference(np.stack([pts[:, 0], 2 * pts[:, 1]], -1))
    for k in ("w", "mx", "my"):
        np.testing.assert_allclose(ref[k], expect[k], rtol=1e-12)


def test_the_plate_reports_timoshenkos_coefficients():
    """The centre check on the reference itself: Table 8's alpha, beta, beta1 at b/a = 2, errors 0."""
    eq = _stretched(2.0, "1")
    check, = eq.checks(lambda pts, of=None: eq.reference(pts))
    m = check.metrics
    assert m["alpha"] == pytest.approx(0.01013, abs=1e-5) and m["beta"] == pytest.approx(0.1017, abs=1e-4)
    assert m["beta1"] == pytest.approx(0.0464, abs=1e-4)
    assert m["center_w_err"] == m["center_mx_err"] == m["center_my_err"] == 0.0


def test_training_a_family_scores_each_value_and_the_worst(tmp_path, capsys):
    path = write_case(tmp_path, parameters=FAMILY, training__adam__steps=20)
    summary = cases.run(cases.load(path), out=str(tmp_path / "run"), quiet=True)
    rows = summary["family"]
    assert [r["aspect"] for r in rows] == [1.0, 2.0] and summary["parameters"] == {"aspect": [1.0, 2.0]}
    for k in ("rel_l2_w", "rel_l2_mx", "center_w_err"):
        assert summary["metrics"][k] == max(r["metrics"][k] for r in rows)
    assert "alpha" in rows[1]["metrics"] and "alpha" not in summary["metrics"]
    assert "rel_l2_w" in assert_exported_model_scores_as_summary(tmp_path / "run", tmp_path)  # issue 74
    # export and predict: the parameter is a column; outside its range, one line and exit 2
    assert main(["export", str(tmp_path / "run"), "--out", str(tmp_path / "m.jaxexport")]) == 0
    (tmp_path / "pts.csv").write_text("x,y,aspect\n1.0,1.5,1.0\n1.0,1.5,2.0\n")
    assert main(["predict", str(tmp_path / "m.jaxexport"), str(tmp_path / "pts.csv"),
                 "--out", str(tmp_path / "p.csv")]) == 0
    with open(tmp_path / "p.csv", newline="") as fh:
        got = list(csv.DictReader(fh))
    problem = Problem(cases.load(path).config)
    from sciml.io import checkpoint

    with Policy.of("float64").precision():
        params = checkpoint.load_part(checkpoint.trained(str(tmp_path / "run")), "params",
                                      problem.init(jax.random.PRNGKey(0)))
        for row, a in zip(got, (1.0, 2.0)):
            want = problem.predict(params, np.array([[1.0, 1.5]]), values={"aspect": a})["w"][0]
            assert float(row["w"]) == pytest.approx(want, rel=1e-8)
    capsys.readouterr()
    (tmp_path / "far.csv").write_text("x,y,aspect\n1.0,1.5,1.5\n1.0,1.5,2.5\n")
    assert main(["predict", str(tmp_path / "m.jaxexport"), str(tmp_path / "far.csv")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path}/far.csv: column 'aspect' holds 1.5..2.5, outside the range the model was " \
                  "trained on [1, 2]\n"


def test_an_equation_that_needs_the_number_as_a_constant_is_refused_on_loading(tmp_path):
    """An equation that takes its number as a Python float: loading says so, naming the section."""
    from inverse_cases import constant_only

    from sciml.errors import ConfigError

    with pytest.raises(ConfigError, match=r"constant_only.yaml: parameters: the equation cannot take \['k'\] as "
                                          "values per point"):
        with constant_only(tmp_path, "parameters") as path:
            cases.load(path)

def test_a_subsection_s_number_is_a_parameter_by_its_dotted_name(tmp_path):
    """A family over a patch load's centre (``patch.x``): each point's equation has the patch there, and each
    evaluated value's reference is the series of the patch moved there."""
    patch = {"x": 1.0, "y": 1.5, "width": 0.4, "height": 0.6}
    with Policy.of("float64").precision():
        problem, case = _problem(tmp_path, parameters={"patch.x": {"range": [0.7, 1.3], "values": [0.8, 1.2]}},
                                 equation={"type": "kirchhoff_plate", "D": 1.0, "nu": 0.25, "q0": 1.0,
                                           "patch": patch})
        family = problem.parameters
        moved = family.at({"patch.x": 1.2})
        assert moved.config.patch.x == 1.2 and moved.config.patch.y == 1.5 and case.config.equation.patch.x == 1.0
        z = jnp.asarray(family.encode({"patch.x": np.array([0.7, 1.3])}, 2))
        per_point = family.equation(z)
        np.testing.assert_allclose(np.asarray(per_point.config.patch.x), [0.7, 1.3], rtol=1e-12)
        pts = np.array([[0.6, 1.5], [1.4, 1.5]])
        left, right = (family.at({"patch.x": x}).reference(pts)["w"] for x in (0.8, 1.2))
        np.testing.assert_allclose(left, right[::-1], rtol=1e-8)  # mirror images about x = 1
    with pytest.raises(ConfigError, match=r"parameters.patch.xc: the equation \(kirchhoff_plate\) sets no number "
                                          r"'patch.xc' \(did you mean 'patch.x'\?\)"):
        cases.load(write_case(tmp_path, parameters={"patch.xc": {"range": [0.7, 1.3]}},
                              equation={"type": "kirchhoff_plate", "D": 1.0, "nu": 0.25, "q0": 1.0, "patch": patch}))
