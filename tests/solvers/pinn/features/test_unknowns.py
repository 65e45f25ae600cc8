"""Unknown coefficients: the bounded map, the parameters' layout, the equation reading the trained value, the
metrics history, the summary and an exact resume."""
import csv

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from export_check import assert_exported_model_scores_as_summary
from inverse_cases import D_TRUE, DAMAGE_TRUE, tiny_damage, tiny_identify

from sciml import cases, plots
from sciml.equations import sections
from sciml.solvers.pinn import run as driver
from sciml.solvers.pinn.config import UnknownConfig
from sciml.solvers.pinn.features import unknowns
from sciml.solvers.pinn.problem import Problem


@pytest.mark.parametrize("scale", ["log", "linear"])
def test_the_map_starts_at_the_initial_value_and_stays_in_bounds(scale):
    u = UnknownConfig(initial=3.0, bounds=[0.5, 40.0], scale=scale)
    assert float(unknowns.value(u, unknowns.raw(u, 3.0))) == pytest.approx(3.0, rel=1e-12)
    far = [float(unknowns.value(u, jnp.asarray(z))) for z in (-30.0, 30.0)]
    assert 0.5 <= far[0] < 0.5 * (1 + 1e-6) and 40.0 * (1 - 1e-6) < far[1] <= 40.0


def test_log_scale_moves_by_relative_steps():
    u = UnknownConfig(initial=1.0, bounds=[0.01, 100.0])
    z = unknowns.raw(u, 1.0)  # the middle of log-space: equal raw steps are equal factors either side
    up, down = (float(unknowns.value(u, z + s)) for s in (0.5, -0.5))
    assert up * down == pytest.approx(1.0, rel=1e-12) and up > 1.1


def test_parameters_carry_the_unknowns_and_the_equation_reads_them(tmp_path):
    cfg = tiny_identify(tmp_path)["case"].config
    problem = Problem(cfg)
    params = problem.init(jax.random.PRNGKey(0))
    assert set(params) == {"net", "unknowns"} and problem.unknown_values(params) == pytest.approx({"D": 1.0})
    eq = problem.equation_at(params)
    assert float(eq.D) == pytest.approx(1.0) and problem.equation.D == D_TRUE  # the truth stays the section's
    # the deflection scale W = q0 / (D ...) follows the trained D: the predicted deflection is inversely so
    pts = np.array([[1.0, 1.5]])
    w1 = problem.predict(params, pts)["w"]
    params2 = {**params, "unknowns": {"D": params["unknowns"]["D"] + 1.0}}
    d2 = problem.unknown_values(params2)["D"]
    np.testing.assert_allclose(problem.predict(params2, pts)["w"] * d2, w1 * 1.0, rtol=1e-10)


def test_a_case_without_unknowns_keeps_its_parameters(tmp_path):
    from cli_cases import write_case

    problem = Problem(cases.load(write_case(tmp_path)).config)
    assert isinstance(problem.init(jax.random.PRNGKey(0)), list) and problem.unknowns is None


def test_training_records_d_reports_it_and_resumes_exactly(tmp_path):
    made = tiny_identify(tmp_path, training__adam__steps=40)
    full = driver.train(made["case"].config, str(tmp_path / "full"), quiet=True)
    with open(tmp_path / "full" / "metrics.csv", newline="") as fh:
        history = [float(r["unknown.D"]) for r in csv.DictReader(fh)]
    assert len(history) == 4 and len(set(history)) == 4  # a column, moving with training
    assert set(full["unknowns"]) == {"D"}
    value = full["unknowns"]["D"]
    if value != "not identifiable":
        assert value == pytest.approx(history[-1]) and \
            full["metrics"]["D_rel_error"] == pytest.approx(abs(value - D_TRUE) / D_TRUE)
    assert "rel_l2_w" in assert_exported_model_scores_as_summary(tmp_path / "full", tmp_path)  # issue 74
    half = cases.load(made["path"], ["training.adam.steps=20"]).config
    driver.train(half, str(tmp_path / "half"), quiet=True)
    resumed = driver.train(made["case"].config, str(tmp_path / "half"), resume=str(tmp_path / "half"), quiet=True)
    assert resumed["steps"] == 40
    assert resumed["unknowns"] == full["unknowns"] and resumed["metrics"] == full["metrics"]


def test_an_equation_that_needs_the_number_as_a_constant_is_refused_on_loading(tmp_path):
    """An equation that takes its number as a Python float: loading says so, naming the section."""
    from inverse_cases import constant_only

    from sciml.errors import ConfigError

    with pytest.raises(ConfigError, match=r"constant_only.yaml: unknowns: the equation cannot take \['k'\] as "
                                          "trained values"):
        with constant_only(tmp_path, "unknowns") as path:
            cases.load(path)


def test_a_subsection_s_numbers_are_named_by_dotted_name_and_replaced_inside_it():
    from sciml.config import build
    from sciml.equations.plate import PlateConfig

    section = build(PlateConfig, {"type": "kirchhoff_plate", "D": 2.0, "q0": 3.0,
                                  "patch": {"x": 1.0, "y": 1.5, "width": 0.4, "height": 0.6}})
    known = sections.numbers(section)
    assert {"D", "q0", "nu", "aspect", "patch.x", "patch.y", "patch.width", "patch.height"} <= set(known)
    assert known["patch.x"] == 1.0 and "patch.smoothing" not in known and "patch" not in known  # unset: None
    moved = sections.replace(section, {"patch.x": 1.25, "q0": 4.0, "patch.height": 0.5})
    assert (moved.patch.x, moved.patch.y, moved.patch.height, moved.q0, moved.D) == (1.25, 1.5, 0.5, 4.0, 2.0)
    assert section.patch.x == 1.0  # the section itself unchanged


def test_a_field_unknown_starts_at_its_initial_value_everywhere_and_the_equation_reads_it(tmp_path):
    """The rigidity as a field: its MLP in params["unknowns"], the damage of the section (the truth) unread,
    the derived D the field's values."""
    cfg = tiny_damage(tmp_path)["case"].config
    problem = Problem(cfg)
    params = problem.init(jax.random.PRNGKey(0))
    assert set(params["unknowns"]) == {"D"} and isinstance(params["unknowns"]["D"], list)
    assert problem.unknown_values(params) == {}
    pts = np.array([[DAMAGE_TRUE["x"], DAMAGE_TRUE["y"]], [0.3, 0.4]])
    assert problem.predict(params, pts)["D"] == pytest.approx([1.0, 1.0], rel=1e-12)  # not the truth's 0.7
    assert problem.equation.reference(pts)["D"][0] == pytest.approx(0.7, rel=1e-6)
    last = params["unknowns"]["D"][-1]
    params2 = {**params, "unknowns": {"D": [*params["unknowns"]["D"][:-1], {**last, "b": last["b"] + 0.4}]}}
    expected = 0.5 + 1.0 * jax.nn.sigmoid(0.4)  # linear in [0.5, 1.5], raw 0 at 1.0, shifted by 0.4
    assert problem.predict(params2, pts)["D"] == pytest.approx([float(expected)] * 2, rel=1e-12)


def test_a_field_s_sparsity_is_a_smoothed_l1_term_of_its_change_weighted_in_the_loss(tmp_path):
    """``field.sparsity: w``: the loss term ``prior.D`` (group ``prior``) with weight ``w`` (``loss.weights.prior``
    overrides it); 0 for the field at ``initial``; for a moved field its mean square is the mean over the interior
    points of ``d²/√(d² + 1e-4)``, ``d = D/D_initial - 1``; without sparsity no such term."""
    field = {"hidden": [6, 6], "sparsity": 0.3}
    cfg = tiny_damage(tmp_path, unknowns={"D": {"initial": 1.0, "bounds": [0.5, 1.5], "scale": "linear",
                                                "field": field}})["case"].config
    problem = Problem(cfg)
    assert "prior.D" in problem.terms and problem._weights["prior.D"] == 0.3
    params = problem.init(jax.random.PRNGKey(0))
    batch = problem.sample(np.random.default_rng(0))
    key = jax.random.PRNGKey(1)
    assert float(problem.term_losses(params, batch, key)["prior.D"]) == 0.0
    last = params["unknowns"]["D"][-1]
    moved = {**params, "unknowns": {"D": [*params["unknowns"]["D"][:-1], {**last, "b": last["b"] - 0.8}]}}
    d = float(0.5 + jax.nn.sigmoid(-0.8)) - 1.0  # a uniform change of the field
    assert float(problem.term_losses(moved, batch, key)["prior.D"]) == pytest.approx(d * d / np.sqrt(d * d + 1e-4),
                                                                                     rel=1e-10)
    assert Problem(cases.load(cfg_path(tmp_path), ["loss.weights.prior=2"]).config)._weights["prior.D"] == 2.0
    plain = tiny_damage(tmp_path / "plain")["case"].config
    assert not any(t.startswith("prior.") for t in Problem(plain).terms)


def cfg_path(tmp_path):
    return str(tmp_path / "damage.yaml")


@pytest.mark.figures("D")
def test_a_field_unknown_trains_reports_its_zone_and_resumes_exactly(tmp_path):
    made = tiny_damage(tmp_path, training__adam__steps=40)
    full = driver.train(made["case"].config, str(tmp_path / "full"), quiet=True)
    zone = full["fields"]["D"]
    assert zone["truth"] == {"centre": [DAMAGE_TRUE["x"], DAMAGE_TRUE["y"]], "drop": DAMAGE_TRUE["drop"]}
    assert 0.5 < zone["min"] < zone["max"] < 1.5 and zone["min"] < 1.0 - 1e-6  # it moved
    assert {"damage_centre_error", "damage_drop_error", "rel_l2_D"} <= set(full["metrics"])
    assert "unknowns" not in full  # no scalar unknown: no identifiability verdict
    assert (tmp_path / "full" / "plots" / "D.png").exists()
    assert "rel_l2_w" in assert_exported_model_scores_as_summary(tmp_path / "full", tmp_path)  # issue 74
    half = cases.load(made["path"], ["training.adam.steps=20"]).config
    with plots.disabled():  # the numbers only
        driver.train(half, str(tmp_path / "half"), quiet=True)
        resumed = driver.train(made["case"].config, str(tmp_path / "half"), resume=str(tmp_path / "half"),
                               quiet=True)
    assert resumed["steps"] == 40 and resumed["fields"] == full["fields"] and resumed["metrics"] == full["metrics"]


def test_a_zone_of_known_shape_is_located_by_scalar_unknowns(tmp_path):
    """``damage.x``, ``damage.y`` as scalar unknowns: the coefficient field follows their traced values (D's drop
    at the unknowns' centre, not the truth's), and their errors are reported against the plate's side."""
    unknown = {"damage.x": {"initial": 1.2, "bounds": [0.6, 1.4], "scale": "linear"},
               "damage.y": {"initial": 1.2, "bounds": [0.6, 2.4], "scale": "linear"}}
    made = tiny_damage(tmp_path, unknowns=unknown, training__adam__steps=10)
    problem = Problem(made["case"].config)
    params = problem.init(jax.random.PRNGKey(0))
    assert problem.unknown_values(params) == pytest.approx({"damage.x": 1.2, "damage.y": 1.2})
    assert problem.predict(params, np.array([[1.2, 1.2]]))["D"] == pytest.approx([0.7], rel=1e-6)
    out = driver.train(made["case"].config, str(tmp_path / "run"), quiet=True)
    assert {"damage.x_side_error", "damage.y_side_error"} <= set(out["metrics"]) or \
        "not identifiable" in out["unknowns"].values()
