"""Checkpoints: round trip of a state pytree, clear errors for a mismatching file, and surviving damage
(two versions kept, checksums, fallback with a warning)."""
import os

import h5py
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from sciml.errors import BadFile, UserError
from sciml.io import checkpoint
from sciml.nn import mlp

from fault_injection import flip_array, truncate


def state(sizes):
    params = mlp.init(jax.random.PRNGKey(0), sizes, jnp.float64)
    return {"params": params, "opt": optax.adam(1e-3).init(params), "step": jnp.asarray(7), "key": jax.random.PRNGKey(1)}


def test_round_trip(tmp_path):
    s = state([2, 5, 1])
    s["opt"] = jax.tree_util.tree_map(lambda a: a + 1, s["opt"])
    path = str(tmp_path / "c.h5")
    checkpoint.save(path, s, step=7, phase="adam")
    back, attrs = checkpoint.load(path, state([2, 5, 1]))
    assert attrs["step"] == 7 and attrs["phase"] == "adam"
    for a, b in zip(jax.tree_util.tree_leaves(s), jax.tree_util.tree_leaves(back)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_mismatch_is_a_user_error(tmp_path):
    path = str(tmp_path / "c.h5")
    checkpoint.save(path, state([2, 5, 1]))
    with pytest.raises(UserError, match="different case or model size"):
        checkpoint.load(path, state([2, 6, 1]))
    with pytest.raises(UserError, match="missing.h5: no such checkpoint"):
        checkpoint.load(str(tmp_path / "missing.h5"), state([2, 5, 1]))


def test_load_part_reads_params_whatever_the_optimizer(tmp_path):
    s = state([2, 5, 1])
    path = str(tmp_path / "c.h5")
    checkpoint.save(path, s)
    params = checkpoint.load_part(path, "params", mlp.init(jax.random.PRNGKey(9), [2, 5, 1], jnp.float64))
    for a, b in zip(jax.tree_util.tree_leaves(s["params"]), jax.tree_util.tree_leaves(params)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with pytest.raises(UserError, match="do not fit"):
        checkpoint.load_part(path, "params", mlp.init(jax.random.PRNGKey(9), [2, 4, 1], jnp.float64))


def _steps(tmp_path, n):
    """``latest.h5`` saved ``n`` times (steps 1..n); its path."""
    path = str(tmp_path / "latest.h5")
    for step in range(1, n + 1):
        checkpoint.save(path, state([2, 5, 1]), step=step)
    return path


def test_keeps_the_last_two_versions(tmp_path):
    path = _steps(tmp_path, 3)
    assert sorted(os.listdir(tmp_path)) == ["latest.h5", "latest.prev.h5"]
    assert checkpoint.load(path, state([2, 5, 1]))[1]["step"] == 3
    assert checkpoint.load(checkpoint.previous(path), state([2, 5, 1]))[1]["step"] == 2


@pytest.mark.parametrize("damage,what", [
    (truncate, "unreadable checkpoint: truncated (a damaged or unfinished copy)"),
    (flip_array, "damaged checkpoint: its arrays do not match the checksum stored in it"),
    (os.remove, "no such checkpoint"),
])
def test_a_damaged_latest_falls_back_to_the_previous_one(tmp_path, capsys, damage, what):
    path = _steps(tmp_path, 2)
    damage(path)
    back, attrs = checkpoint.load(path, state([2, 5, 1]))
    assert attrs["step"] == 1 and checkpoint.attrs(path)["step"] == 1
    for a, b in zip(jax.tree_util.tree_leaves(state([2, 5, 1])), jax.tree_util.tree_leaves(back)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    prev = checkpoint.previous(path)
    assert capsys.readouterr().err == f"warning: {path}: {what}; using the previous checkpoint {prev} (step 1)\n"


def test_none_good_is_one_line_naming_both(tmp_path):
    path = _steps(tmp_path, 2)
    flip_array(path)
    truncate(checkpoint.previous(path))
    with pytest.raises(BadFile) as e:
        checkpoint.load_part(path, "params", state([2, 5, 1])["params"])
    assert str(e.value) == (f"{path}: damaged checkpoint: its arrays do not match the checksum stored in it; "
                            f"the previous version is no better: {checkpoint.previous(path)}: unreadable "
                            "checkpoint: truncated (a damaged or unfinished copy)")


def test_a_save_never_overwrites_the_only_good_version(tmp_path):
    path = _steps(tmp_path, 2)
    truncate(path)  # latest damaged, prev (step 1) the only good one: the next save replaces latest only
    checkpoint.save(path, state([2, 5, 1]), step=3)
    assert checkpoint.attrs(path)["step"] == 3 and checkpoint.attrs(checkpoint.previous(path))["step"] == 1


def test_checkpoints_without_a_checksum_still_load(tmp_path):
    path = str(tmp_path / "old.h5")
    s = state([2, 5, 1])
    with h5py.File(path, "w") as f:  # the layout written before checksums
        g = f.create_group("state")
        for i, (p, leaf) in enumerate(zip(checkpoint._names(s), jax.tree_util.tree_leaves(s))):
            g.create_dataset(f"{i:05d}", data=np.asarray(leaf)).attrs["path"] = p
        f.attrs["step"] = 7
    back, attrs = checkpoint.load(path, state([2, 5, 1]))
    assert attrs == {"step": 7}
    for a, b in zip(jax.tree_util.tree_leaves(s), jax.tree_util.tree_leaves(back)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_the_version_before_leaves_out_what_the_rule_keeps_in_the_newest_alone(tmp_path, capsys):
    """``alone``: the leaves it picks live in ``NAME.h5`` only; ``.prev`` is rewritten without them (named in its
    ``without``) and loads with the template's in their place, the rest exact."""
    path = str(tmp_path / "latest.h5")
    big = lambda name, a: name.startswith("['opt']") and a.size > 5  # the first layer's moments (2 x 5)
    for step in (1, 2):
        s = state([2, 5, 1])
        s["opt"] = jax.tree_util.tree_map(lambda a: a + step, s["opt"])
        checkpoint.save(path, s, alone=big, step=step)
    prev = checkpoint.previous(path)
    dropped = checkpoint.left_out(checkpoint.attrs(prev))
    assert dropped and all(n.startswith("['opt']") for n in dropped) and checkpoint.attrs(path)["step"] == 2
    assert checkpoint.left_out(checkpoint.attrs(path)) == []
    truncate(path)
    back, attrs = checkpoint.load(path, state([2, 5, 1]))
    assert attrs["step"] == 1 and "using the previous checkpoint" in capsys.readouterr().err
    names = checkpoint._names(back)
    for name, a, kept, fresh in zip(names, jax.tree_util.tree_leaves(back),
                                    jax.tree_util.tree_leaves({**state([2, 5, 1]), "opt": jax.tree_util.tree_map(
                                        lambda a: a + 1, state([2, 5, 1])["opt"])}),
                                    jax.tree_util.tree_leaves(state([2, 5, 1]))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(fresh if name in dropped else kept), err_msg=name)


def test_a_part_of_a_state_loads_into_the_whole(tmp_path):
    s = state([2, 5, 1])
    part, without = checkpoint.part(s, "opt")
    path = str(tmp_path / "model.h5")
    checkpoint.save(path, part, without=without, step=3)
    assert checkpoint.left_out(checkpoint.attrs(path)) == without and all(n.startswith("['opt']") for n in without)
    template = {**state([2, 5, 1]), "opt": jax.tree_util.tree_map(lambda a: a + 5, s["opt"])}
    back, _ = checkpoint.load(path, template)
    for a, b in zip(jax.tree_util.tree_leaves({**s, "opt": template["opt"]}), jax.tree_util.tree_leaves(back)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_a_square_matrix_kept_alone_is_stored_by_its_triangles_and_loads_bit_for_bit(tmp_path):
    """The dense BFGS matrix (square, symmetric up to rounding, picked by ``alone``) takes about half its bytes
    and loads to the bit; a square matrix the rule does not pick is stored as it is."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((400, 30))
    h = (w * rng.standard_normal(30)) @ w.T  # symmetric up to rounding, as the folded estimate
    s = {"params": jnp.zeros(3), "opt": {"base": h, "small": np.eye(4)}, "other": h.copy()}
    path = str(tmp_path / "latest.h5")
    checkpoint.save(path, s, alone=lambda name, a: name.startswith("['opt']"), step=1)
    with h5py.File(path) as f:
        layouts = {d.attrs["path"]: d.attrs.get("layout") for d in f["state"].values()}
    assert layouts == {"['opt']['base']": "symmetric_bits", "['opt']['small']": "symmetric_bits",
                       "['other']": None, "['params']": None}
    assert os.path.getsize(path) < 0.85 * 2 * h.nbytes  # the two large matrices: one stored in little over half
    back, _ = checkpoint.load(path, s)
    for a, b in zip(jax.tree_util.tree_leaves(s), jax.tree_util.tree_leaves(back)):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        assert np.array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8))
