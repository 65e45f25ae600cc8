"""Time windows: intervals and dispatch, a window's initial values from the last one, runs that march windows
and resume at the next one exactly."""
import os
import shutil
import types
from pathlib import Path

import jax
import numpy as np
import pytest
from export_check import assert_exported_model_scores_as_summary

from sciml import cases, load_run, rundir
from sciml.compile import export
from sciml.errors import ConfigError, UserError
from sciml.io import checkpoint
from sciml.solvers.pinn import run as driver
from sciml.solvers.pinn.features import windows
from sciml.solvers.pinn.problem import Problem

CASE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "cases", "taylor_green.yaml")
TINY = ["model.hidden=[8,8]", "sampling.interior=64", "sampling.boundary=16", "sampling.parts.initial=32",
        "training.adam.steps=10", "training.lbfgs.steps=0", "training.log_every=5", "evaluation.grid=[9,9,5]"]


def load(*overrides):
    return cases.load(CASE, [*TINY, *overrides]).config


def test_intervals_cases_and_the_window_of_a_time():
    cfg = load("geometry.time=[1.0,2.0]", "training.windows=4")
    assert [windows.bounds(cfg, k) for k in (0, 3)] == [(1.0, 1.25), (1.75, 2.0)]
    assert windows.case(cfg, 2).geometry.time == (1.5, 1.75) and windows.case(cfg, 2).geometry.x == cfg.geometry.x
    np.testing.assert_array_equal(windows.index(cfg, [1.0, 1.1, 1.25, 1.2500001, 1.9, 2.0]), [0, 0, 0, 1, 3, 3])
    one = load()
    assert windows.case(one, 0) is one  # a case of one window is itself


def test_predict_takes_each_time_from_its_window():
    cfg = load("training.windows=2")
    fake = lambda c: types.SimpleNamespace(predict=lambda params, pts, of=None: {"u": np.full(len(pts), c)})
    pts = np.array([[0.1, 0.2, 0.9], [0.3, 0.1, 0.2], [0.0, 0.0, 0.5], [1.0, 1.0, 0.51]])
    got = windows.predict(cfg, [(fake(1.0), None), (fake(2.0), None)], pts)
    np.testing.assert_array_equal(got["u"], [2.0, 1.0, 1.0, 2.0])
    np.testing.assert_array_equal(windows.predict(cfg, [(fake(1.0), None)], pts)["u"], 1.0)  # so far: one


def test_time_derivatives_of_the_cases_equation_are_each_windows_own():
    """``of`` = the whole case's ``gradients`` (the drag's volume integral reads u_t): each window's u_t is the
    derivative of its own fields in time (central differences), not scaled by the whole interval."""
    cfg = load("training.windows=4")
    problems = [Problem(windows.case(cfg, k)) for k in range(4)]
    trained = [(p, p.init(jax.random.PRNGKey(k))) for k, p in enumerate(problems)]
    whole = Problem(cfg).equation
    (x0, x1), (t0, t1) = cfg.geometry.x, cfg.geometry.time
    xy = np.random.default_rng(0).uniform(x0 + 0.1 * (x1 - x0), x1 - 0.1 * (x1 - x0), (6, 2))
    pts = np.column_stack([xy, t0 + (t1 - t0) * np.array([0.1, 0.2, 0.4, 0.6, 0.7, 0.9])])
    got = windows.predict(cfg, trained, pts, of=whole.gradients)
    h = 1e-5 * (t1 - t0)
    later, earlier = (windows.predict(cfg, trained, pts + np.array([0.0, 0.0, s]), of=whole.gradients)
                      for s in (h, -h))
    for q in ("u", "v"):
        fd = (later[q] - earlier[q]) / (2 * h)
        np.testing.assert_allclose(got[f"{q}_t"], fd, rtol=1e-6, atol=1e-8 * np.abs(fd).max())


def test_a_later_window_matches_the_previous_fields_at_its_first_time():
    cfg = load("training.windows=2")
    first = Problem(windows.case(cfg, 0))
    params = first.init(jax.random.PRNGKey(3))
    initial = lambda pts: first.predict(params, pts, of=first.network_fields)
    second = Problem(windows.case(cfg, 1), initial)
    batch = second.sample(np.random.default_rng(0))
    x = second.equation.to_physical(batch["parts"]["initial"]["x"])
    assert np.allclose(x[:, -1], 0.5) and set(batch["parts"]["initial"]["target"]) == {"u", "v"}
    key = jax.random.PRNGKey(0)
    mine = second.init(jax.random.PRNGKey(4))
    res = second.residuals(mine, batch, key)
    ours = second.predict(mine, x, of=second.network_fields)
    theirs = first.predict(params, x, of=first.network_fields)
    for q in ("u", "v"):
        np.testing.assert_allclose(res[f"initial.{q}"], ours[q] - theirs[q], rtol=1e-10, atol=1e-12)
    assert second.terms == first.terms  # loss.weights name the same terms in every window


def test_exact_initial_values_of_a_later_window_are_a_spline_of_the_previous_fields():
    """With ``conditions.spacing`` a window's initial values can be exact: at the grid's nodes window 1 starts from
    window 0's last fields to round-off, whatever its own network."""
    cfg = load("training.windows=2", "loss.weights={}",
               "conditions={enforce: {initial: exact}, length: 0.5, spacing: 0.2}")
    first = Problem(windows.case(cfg, 0))
    params = first.init(jax.random.PRNGKey(3))
    second = Problem(windows.case(cfg, 1), lambda pts: first.predict(params, pts, of=first.network_fields))
    assert not any(t.startswith("initial.") for t in second.terms)
    nodes = (np.arange(31) + 0.5) * 2 * np.pi / 31
    x, y = (a.ravel() for a in np.meshgrid(nodes, nodes))
    at = np.column_stack([x, y, np.full(len(x), 0.5)])
    ours = second.predict(second.init(jax.random.PRNGKey(4)), at)
    theirs = first.predict(params, at)
    for q in ("u", "v"):
        np.testing.assert_allclose(ours[q], theirs[q], rtol=0, atol=1e-12)
    later = second.predict(second.init(jax.random.PRNGKey(4)), at + [0, 0, 0.2])
    assert np.max(np.abs(later["u"] - ours["u"])) > 1e-3


@pytest.mark.parametrize("net", [["model={type: mlp, hidden: [8, 8], activation: tanh}"], [],
                                 ["model.fourier={features: 4, scale: 1.0, inputs: [x, y]}"]],
                         ids=["mlp", "modified_mlp", "fourier_of_space"])
def test_a_continued_window_starts_as_the_last_one_ended(net):
    """``training.continued``: window k's network, rewritten from window k-1's, gives window k-1's fields (and
    their time derivatives) at every time; so its initial terms start at zero. Windows of unequal length (the
    overlap) rescale the time as well as shift it."""
    cfg = load("geometry.time=[0.0,0.6]", "training.windows=3", "training.overlap=0.5", "training.continued=true",
               *net)
    problems = [Problem(windows.case(cfg, k)) for k in range(3)]
    params = problems[1].init(jax.random.PRNGKey(3))
    later = problems[2].continued(params, problems[1])
    np.testing.assert_allclose([windows.bounds(cfg, k) for k in (1, 2)], [(0.2, 0.5), (0.4, 0.6)])  # spans differ
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(0.5, 5.5, (9, 2)), [0.4, 0.4, 0.45, 0.5, 0.55, 0.6, 0.6, 0.42, 0.58]])
    for of in (None, problems[1].equation.gradients):
        theirs = problems[1].predict(params, pts, of=of)
        ours = problems[2].predict(later, pts, of=windows._own(problems[2], of))
        for q in ("u", "v", "p", *(("u_t", "v_t") if of else ())):
            np.testing.assert_allclose(ours[q], theirs[q], rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(problems[2].predict(params, pts)["u"] - theirs["u"])) > 1e-3  # not so unchanged
    second = Problem(windows.case(cfg, 2), lambda x: problems[1].predict(params, x, of=problems[1].network_fields))
    res = second.residuals(later, second.sample(np.random.default_rng(1)), jax.random.PRNGKey(0))
    for q in ("u", "v"):
        np.testing.assert_allclose(res[f"initial.{q}"], 0.0, atol=1e-12)


def test_continued_windows_need_the_time_outside_the_embedding_and_initial_values_as_a_penalty():
    for overrides, message in [
            ([], "training.continued: continues one time window into the next"),
            (["training.windows=2", "model.fourier={features: 4}"], "training.continued: the time goes through"),
            (["training.windows=2", "conditions={enforce: {initial: exact}, length: 0.5, spacing: 0.2}"],
             "training.continued: the initial values are in the network's output")]:
        with pytest.raises(UserError, match=message):
            load("training.continued=true", *overrides)


def train(tmp_path, name, *overrides, resume=False):
    folder = str(tmp_path / name)
    return driver.train(load(*overrides), folder, resume=folder if resume else None, quiet=True), folder


def test_windows_march_and_resume_with_the_next_window_exactly(tmp_path):
    full, folder = train(tmp_path, "full", "geometry.time=[0.0,0.5]", "training.windows=2")
    assert full["steps"] == 20 and full["windows"] == 2 and full["status"] == "completed"
    assert {"rel_l2_u", "rel_l2_v"} <= set(full["metrics"])
    assert os.path.isfile(windows.path(folder, 0)) and not os.path.exists(windows.path(folder, 1))  # last: model
    # exported as one model: each point from its window, scoring as the summary (issue 74)
    assert {"rel_l2_u", "rel_l2_v"} <= set(assert_exported_model_scores_as_summary(folder, tmp_path))
    call, _ = export.load(str(tmp_path / "export_check.jaxexport"))  # points of one window: that window computed
    pts = np.random.default_rng(0).uniform(0.0, 1.0, (300, 3)) * [2 * np.pi, 2 * np.pi, 0.25]
    for pts in (pts, pts + [0.0, 0.0, 0.25], pts * [1.0, 1.0, 2.0]):  # the first window, the second, both
        for k, v in load_run(folder).predict(pts).items():
            np.testing.assert_allclose(call(pts)[k], v, rtol=1e-9, atol=1e-12 * np.abs(v).max(), err_msg=k)
    rows = Path(folder, "metrics.csv").read_text().splitlines()[1:]
    assert [int(r.split(",")[0]) for r in rows] == [5, 10, 15, 20]
    # the first window alone, then resumed in the case of two windows of its length: it goes on with the second
    part, folder = train(tmp_path, "part", "geometry.time=[0.0,0.25]")
    assert part["steps"] == 10 and "windows" not in part
    shutil.copytree(folder, tmp_path / "part_continued")
    resumed, _ = train(tmp_path, "part", "geometry.time=[0.0,0.5]", "training.windows=2", resume=True)
    assert resumed["steps"] == 20 and resumed["windows"] == 2
    assert resumed["metrics"] == full["metrics"] and resumed["final_loss"] == full["final_loss"]  # bit-identical
    with pytest.raises(UserError, match=r"window_0.h5: window 0 covered t in \[0.0, 0.25\]; in this case"):
        train(tmp_path, "part", "geometry.time=[0.0,0.6]", "training.windows=2", resume=True)
    # continued (training.continued): window 1 starts with its initial terms at zero, not at the jump between
    # window 0's fields at its two ends; resumed, the same to the bit
    on = ("geometry.time=[0.0,0.5]", "training.windows=2", "training.continued=true")
    continued, folder = train(tmp_path, "continued", *on)
    assert continued["steps"] == 20 and continued["status"] == "completed"
    first = [next(r for r in rundir.Metrics.read(str(Path(f, "metrics.csv"))) if r["step"] == 15)
             for f in (tmp_path / "full", folder)]  # window 1, 5 steps in
    for q in ("u", "v"):
        assert first[1][f"loss.initial.{q}"] < 1e-2 * first[0][f"loss.initial.{q}"]
    resumed, _ = train(tmp_path, "part_continued", *on, resume=True)
    assert resumed["metrics"] == continued["metrics"] and resumed["final_loss"] == continued["final_loss"]


def test_overlapping_windows_train_past_their_end_and_hand_over_at_it(tmp_path):
    cfg = load("geometry.time=[1.0,2.0]", "training.windows=4", "training.overlap=0.2")
    np.testing.assert_allclose([windows.bounds(cfg, k) for k in range(4)],
                               [(1.0, 1.3), (1.25, 1.55), (1.5, 1.8), (1.75, 2.0)], rtol=1e-12)
    np.testing.assert_array_equal(windows.index(cfg, [1.25, 1.2500001, 1.3, 2.0]), [0, 1, 1, 3])  # as without
    summary, folder = train(tmp_path, "overlap", "geometry.time=[0.0,0.5]", "training.windows=2",
                            "training.overlap=0.4")
    assert summary["status"] == "completed" and summary["windows"] == 2
    np.testing.assert_allclose(checkpoint.attrs(windows.path(folder, 0))["time"], [0.0, 0.35], rtol=1e-12)
    cfg = load("geometry.time=[0.0,0.5]", "training.windows=2", "training.overlap=0.4")
    assert windows.case(cfg, 1).geometry.time == (0.25, 0.5)  # the next window starts at the first one's own end
    with pytest.raises(UserError, match="training.overlap: an overlap is of time windows"):
        load("training.overlap=0.1")


def test_windows_need_time_and_an_initial_condition(tmp_path):
    with pytest.raises(UserError, match="training.windows: time windows need a time interval"):
        cases.load(os.path.join(os.path.dirname(CASE), "kovasznay.yaml"), ["training.windows=2"])
    with pytest.raises(ConfigError, match="training.windows: time windows carry the fields of the initial"):
        cases.load(CASE, ["training.windows=2", "equation.conditions.initial={}"])
