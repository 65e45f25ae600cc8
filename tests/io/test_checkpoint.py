"""Checkpoints: round trip of a state pytree, and clear errors for a mismatching file."""
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from sciml.errors import UserError
from sciml.io import checkpoint
from sciml.nn import mlp


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
    with pytest.raises(UserError, match="cannot open checkpoint"):
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
