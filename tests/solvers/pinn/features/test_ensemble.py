"""Ensembles: the joint objective is each member's own, the bootstrap weights are a resample, the interval's
formula, and a tiny inverse run of each start (summary, fields, plots, resume)."""
import os

import h5py
import jax
import numpy as np
import pytest
from export_check import assert_exported_model_scores_as_summary
from inverse_cases import D_TRUE, tiny_identify
from scipy import stats as scipy_stats

from sciml import cases, plots
from sciml.results import load_run
from sciml.solvers.pinn import optim
from sciml.solvers.pinn import run as driver
from sciml.solvers.pinn.features import ensemble
from sciml.solvers.pinn.problem import Problem


def _members(problem, n=3):
    return jax.vmap(problem.init)(ensemble.keys(jax.random.PRNGKey(1), n))


def test_the_joint_loss_is_the_members_mean_and_its_gradient_each_member_s_own(tmp_path):
    problem = Problem(tiny_identify(tmp_path)["case"].config)
    batch = problem.sample(np.random.default_rng(0))
    params, key = _members(problem), jax.random.PRNGKey(0)
    total, terms = ensemble.joint(problem.loss)(params, batch, key)
    loss = jax.jit(problem.loss)  # each member's through one program (op by op, each is many small programs)
    each = [loss(ensemble.member(params, m), batch, key) for m in range(3)]
    assert float(total) == pytest.approx(np.mean([float(t) for t, _ in each]), rel=1e-12)
    assert set(terms) == set(each[0][1])
    grads = jax.grad(lambda p: ensemble.joint(problem.loss)(p, batch, key)[0])(params)
    grad = jax.jit(jax.grad(lambda p: problem.loss(p, batch, key)[0]))
    for m in range(3):
        own = grad(ensemble.member(params, m))
        for a, b in zip(jax.tree_util.tree_leaves(ensemble.member(grads, m)), jax.tree_util.tree_leaves(own)):
            np.testing.assert_allclose(3 * np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-300)


def test_adam_on_the_joint_loss_trains_each_member_as_alone(tmp_path):
    problem = Problem(tiny_identify(tmp_path)["case"].config)
    batch = problem.sample(np.random.default_rng(0))
    tx = optax_adam()
    params, key = _members(problem, 2), jax.random.PRNGKey(0)
    together, _ = optim.adam_chunk(ensemble.joint(problem.loss), tx, 5)(optim.init_state(params, tx, key), batch, 5)
    chunk = optim.adam_chunk(problem.loss, tx, 5)  # one program for both members
    for m in range(2):
        alone, _ = chunk(optim.init_state(ensemble.member(params, m), tx, key), batch, 5)
        for a, b in zip(jax.tree_util.tree_leaves(ensemble.member(together["params"], m)),
                        jax.tree_util.tree_leaves(alone["params"])):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-9)


def optax_adam():
    import optax

    return optax.adam(1e-2, eps=1e-12)  # eps below the gradients' scale: Adam's steps do not see the 1/N


def test_bootstrap_weights_make_the_misfit_that_of_the_resample(tmp_path):
    problem = Problem(tiny_identify(tmp_path)["case"].config)
    batch = problem.sample(np.random.default_rng(0))
    n = len(batch["data"]["x"])
    c = ensemble.counts(5, 4, n)
    assert c.shape == (4, n) and (c.sum(axis=1) == n).all() and (c >= 0).all()
    np.testing.assert_array_equal(c, ensemble.counts(5, 4, n))  # from the seed
    assert not np.array_equal(c, ensemble.counts(6, 4, n))
    params = problem.init(jax.random.PRNGKey(0))
    weighed = ensemble.member_batch(ensemble.resampled(batch, np.sqrt(c)), 1)
    picks = np.repeat(np.arange(n), c[1].astype(int))  # the resample itself: points repeated by their counts
    resample = {**batch, "data": {"x": batch["data"]["x"][picks],
                                  "y": {q: v[picks] for q, v in batch["data"]["y"].items()}}}
    key = jax.random.PRNGKey(0)
    a = problem.term_losses(params, weighed, key)["data.w"]
    b = problem.term_losses(params, resample, key)["data.w"]
    assert float(a) == pytest.approx(float(b), rel=1e-12)


def test_the_interval_is_the_mean_plus_minus_student_s_quantile_times_the_spread():
    values = [1.0, 2.0, 4.0, 5.0]
    s = np.std(values, ddof=1)
    lo, hi = ensemble.interval(values)
    half = scipy_stats.t.ppf(0.975, 3) * s
    assert (lo, hi) == pytest.approx((3.0 - half, 3.0 + half), rel=1e-12)
    report = ensemble.unknowns([{"D": v} for v in values], {"D": 4.5})
    assert report["D"]["covers"] and report["D"]["members"] == values
    assert not ensemble.unknowns([{"D": v} for v in values], {"D": 12.0})["D"]["covers"]


@pytest.mark.figures("w_band", "w_std")
@pytest.mark.parametrize("start", ["seeds", "trained"])
def test_an_ensemble_run_reports_spread_intervals_and_resumes_exactly(tmp_path, start):
    spec = f"ensemble={{members: 3, start: {start}, steps: 10}}"
    made = tiny_identify(tmp_path, training__adam__steps=20, training__lbfgs__steps=10)
    cfg = cases.load(made["path"], [spec]).config
    out = tmp_path / "run"
    full = driver.train(cfg, str(out), quiet=True)
    assert full["steps"] == (40 if start == "trained" else 30)
    e = full["ensemble"]
    assert e["members"] == 3 and e["bootstrap"] is True
    d = e["unknowns"]["D"]
    assert len(set(d["members"])) == 3  # three networks, three values
    assert d["interval_95"][0] < d["mean"] < d["interval_95"][1] and d["std"] > 0
    if full["unknowns"]["D"] != "not identifiable":
        assert full["unknowns"]["D"] == pytest.approx(d["mean"], rel=1e-12)
        assert full["metrics"]["D_rel_error"] == pytest.approx(abs(d["mean"] - D_TRUE) / D_TRUE)
    assert set(e["metrics"]["rel_l2_w"]) == {"mean", "std"}
    with h5py.File(out / "fields.h5") as f:
        assert f["w/std"].shape == f["w/prediction"].shape and np.nanmax(f["w/std"][()]) > 0
    assert os.path.exists(out / "plots" / "w_band.png") and os.path.exists(out / "plots" / "w_std.png")
    # the trained model (sciml predict, sciml.load_run): the members' mean and spread, as on the grid
    with h5py.File(out / "fields.h5") as f:
        x, y, w, w_std = (f[k][()][3, 4] for k in ("x", "y", "w/prediction", "w/std"))
    got = load_run(str(out)).predict(np.array([[x, y]]))
    assert float(got["w"][0]) == pytest.approx(w, rel=1e-8) and float(got["w_std"][0]) == pytest.approx(w_std, rel=1e-6)
    assert "rel_l2_w" in assert_exported_model_scores_as_summary(out, tmp_path)  # issue 74
    # stopped part way (in the members' stage for a start from the trained network), then resumed
    half = cases.load(made["path"], [spec, "training.lbfgs.steps=5" if start == "seeds" else "ensemble.steps=5"])
    with plots.disabled():  # the numbers only
        driver.train(half.config, str(tmp_path / "half"), quiet=True)
        resumed = driver.train(cfg, str(tmp_path / "half"), resume=str(tmp_path / "half"), quiet=True)
    assert resumed["ensemble"]["unknowns"] == e["unknowns"] and resumed["metrics"] == full["metrics"]
