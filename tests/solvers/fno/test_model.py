"""The three ways to use the FNO on trajectories, and a recurrent run on real vorticity data."""
import copy
import re

import jax
import numpy as np
import pytest

from sciml import cases
from sciml.errors import ConfigError
from sciml.nn import fno
from sciml.solvers.fno import data, run
from sciml.solvers.fno.model import build

TINY_NS = {
    "case": "tiny_ns", "solver": "fno", "seed": 0,
    "data": {"generator": "vorticity", "path": "PLACEHOLDER", "resolution": 8, "super_resolution": [16],
             "n_train": 12, "n_test": 4, "t_in": 3, "t_out": 2,
             "params": {"T": 5.0, "record_steps": 5, "dt": 0.05, "batch_size": 16}},
    "model": {"type": "recurrent", "modes": [3, 3], "width": 6, "layers": 2, "projection": [8]},
    "training": {"epochs": 3, "batch_size": 4, "lr": 1.0e-2, "loss": "h1"},
    "evaluation": {"plots": 1},
}


def config(tmp_path, case_file, **changes):
    return cases.load(case_file(tmp_path, copy.deepcopy(TINY_NS), **changes)).config


def test_recurrent_feeds_its_predictions_back(tmp_path, case_file):
    cfg = config(tmp_path, case_file, data__t_out=4, model__step=2)
    op = build(cfg, 3, 4)
    params = op.init(jax.random.PRNGKey(0))
    stats = op.stats(*(np.zeros(3), np.ones(3), np.zeros(4), np.ones(4)))
    x = np.random.default_rng(0).standard_normal((2, 8, 8, 3)).astype(np.float32)
    got = np.asarray(jax.jit(op.predict)(params, stats, x))
    net = lambda w: fno.apply(params, w, grid="periodic")
    first = net(x)  # steps 4, 5 from 1, 2, 3
    second = net(np.concatenate([x[..., 2:], first], -1))  # steps 6, 7 from 3, 4, 5
    np.testing.assert_allclose(got, np.concatenate([first, second], -1), rtol=2e-5, atol=2e-6)


def test_a_window_of_the_rollout_is_its_first_steps(tmp_path, case_file):
    """training.window's rollouts: ``steps=k`` predicts the whole rollout's first k steps."""
    cfg = config(tmp_path, case_file, data__t_out=4, model__step=2, training__window=2)
    op = build(cfg, 3, 4)
    params = op.init(jax.random.PRNGKey(0))
    stats = op.stats(*(np.zeros(3), np.ones(3), np.zeros(4), np.ones(4)))
    x = np.random.default_rng(0).standard_normal((2, 8, 8, 3)).astype(np.float32)
    whole = np.asarray(jax.jit(op.predict)(params, stats, x))
    part = np.asarray(jax.jit(op.predict, static_argnames="steps")(params, stats, x, steps=2))
    assert whole.shape[-1] == 4 and part.shape[-1] == 2
    np.testing.assert_allclose(part, whole[..., :2], rtol=1e-6, atol=1e-7)


def test_windows_cut_each_sample_at_its_own_start():
    traj = np.arange(7)[None, None] + 100 * np.arange(2)[:, None, None]  # sample i's step t is 100 i + t
    x, y = run.windows(traj[..., :3], traj[..., 3:], np.array([0, 2]), 2)
    np.testing.assert_array_equal(x[:, 0], [[0, 1, 2], [102, 103, 104]])
    np.testing.assert_array_equal(y[:, 0], [[3, 4], [105, 106]])


def test_space_time_maps_given_steps_to_predicted_ones(tmp_path, case_file):
    cfg = config(tmp_path, case_file, model__type="space_time", model__modes=[3, 3, 2], model__padding=[0, 0, 2])
    op = build(cfg, 3, 2)
    params = op.init(jax.random.PRNGKey(0))
    assert params["layers"][0]["spectral"].shape == (6, 6, 2, 6, 6, 2)
    stats = op.stats(np.zeros(3), np.ones(3), np.zeros(2), np.ones(2))
    x = np.ones((2, 8, 8, 3), np.float32)
    assert jax.jit(op.predict)(params, stats, x).shape == (2, 8, 8, 2)


@pytest.mark.parametrize("changes,expected", [
    ({"model__modes": [3, 3]}, "model.modes: expected 3 numbers (one per axis of the x, y, t)"),
    ({"model__modes": [3, 3, 4]}, "model.modes: 4 modes on axis 2 need a grid of at least 6 points, got 2"),
])
def test_space_time_checks(tmp_path, case_file, changes, expected):
    with pytest.raises(ConfigError, match=re.escape(expected)):
        config(tmp_path, case_file, model__type="space_time", **changes)


@pytest.mark.figures("test_16_0")
def test_recurrent_run_on_vorticity_data(tmp_path, case_file):
    cfg = config(tmp_path, case_file)
    data.write(cfg.data, cfg.data.path)
    out = tmp_path / "run"
    out.mkdir()
    s = run.train(cfg, str(out), quiet=True)
    assert s["epochs"] == 3 and set(s["metrics"]) == {"rel_l2", "rel_l2_16"}
    assert s["metrics"]["rel_l2"] < s["initial_rel_l2"]
    assert (out / "plots" / "test_16_0.png").is_file()


def test_a_run_on_windows_trains_and_scores_the_whole_rollout(tmp_path, case_file):
    cfg = config(tmp_path, case_file, data__t_in=1, data__t_out=4, training__window=2, training__loss="rel_l2",
                 evaluation__plots=0)
    data.write(cfg.data, cfg.data.path)
    s = run.train(cfg, str(tmp_path / "run"), quiet=True)
    assert s["epochs"] == 3 and s["metrics"]["rel_l2"] < s["initial_rel_l2"]


@pytest.mark.parametrize("changes,expected", [
    ({"training__window": 3}, "training.window: 3: windows of a recurrent model's rollout, a multiple of model.step "
                              "(1) up to data.t_out (2)"),
    ({"data__t_out": 4, "model__step": 2, "training__window": 3}, "a multiple of model.step (2)"),
])
def test_window_checks(tmp_path, case_file, changes, expected):
    with pytest.raises(ConfigError, match=re.escape(expected)):
        config(tmp_path, case_file, **changes)


@pytest.mark.parametrize("n", [85, 141, 211, 421])
def test_padding_keeps_the_fourier_period_on_every_grid(n):
    """(n + p) h is the period of the padded axis: 8/7 for p = 11 on 85 points, exactly, at each resolution."""
    from fractions import Fraction

    from sciml.solvers.fno.model import scaled_padding

    p = scaled_padding(11, 85, n, "closed")
    assert Fraction(n + p, n - 1) == Fraction(8, 7)
    assert scaled_padding(9, 85, 85, "closed") == 9 and scaled_padding(4, 64, 256, "periodic") == 16
    # where it cannot be exact, the period is the nearest one: within half a point
    q = scaled_padding(9, 85, n, "closed")
    assert abs((n + q) / (n - 1) - 94 / 84) <= 0.5 / (n - 1)


def test_padding_is_one_rule_for_numbers_and_symbolic_sizes():
    """The integer rule rounds halves up, and a symbolic size (an export for every grid) gets the same padding."""
    import jax
    import jax.numpy as jnp

    from sciml.solvers.fno.model import scaled_padding

    assert scaled_padding(0, 3, 4, "closed") == 1  # 3 * 3 / 2 = 4.5 points: 5
    for p, n0, kind in ((11, 85, "closed"), (5, 21, "closed"), (3, 9, "closed"), (4, 64, "periodic")):
        n = jax.export.symbolic_shape("n", constraints=(f"n >= {n0}",))
        padded = jax.export.export(jax.jit(lambda x: jnp.pad(x, (0, scaled_padding(p, n0, x.shape[0], kind)))))(
            jax.ShapeDtypeStruct(n, jnp.float32))  # pads as the model does, by the symbolic padding
        for k in (n0, 2 * n0 - 1, 141, 421):
            assert padded.call(np.zeros(k, np.float32)).shape == (k + scaled_padding(p, n0, k, kind),), (p, n0, k)
