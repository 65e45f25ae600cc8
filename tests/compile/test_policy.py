"""The dtype policy: float32/float64 as they were; bfloat16 compute with float32 parameters for FNOs."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cli_cases import write_case
from sciml import cases
from sciml.compile import Policy
from sciml.nn import fno
from sciml.solvers.fno.model import build

DARCY = {"case": "d", "solver": "fno", "data": {"generator": "darcy", "path": "unused.h5", "resolution": 9,
                                                "n_train": 40, "n_test": 2},
         "model": {"modes": [3, 3], "width": 8, "layers": 2, "projection": [16]}}


@pytest.mark.parametrize("name, param, compute", [("float32", "float32", "float32"),
                                                  ("float64", "float64", "float64"),
                                                  ("bfloat16", "float32", "bfloat16")])
def test_policy_table(name, param, compute):
    p = Policy.of(name)
    assert (p.param_dtype, p.compute_dtype) == (jnp.dtype(param), jnp.dtype(compute))
    assert p.x64 == (name == "float64")


@pytest.mark.parametrize("method", ["fft", "dft"])
def test_spectral_conv_runs_its_transforms_in_float32_for_bfloat16(method):
    key1, key2 = jax.random.split(jax.random.PRNGKey(0))
    w = fno.spectral_init(key1, (3, 3), 4, 4)
    v = jax.random.normal(key2, (2, 9, 9, 4), jnp.float32)
    conv = jax.jit(lambda w, v: fno.spectral_conv(w, v, method))
    exact = conv(w, v)
    low = conv(w.astype(jnp.bfloat16), v.astype(jnp.bfloat16))
    assert low.dtype == jnp.bfloat16
    err = np.linalg.norm(np.asarray(low, np.float32) - np.asarray(exact)) / np.linalg.norm(np.asarray(exact))
    assert 1e-4 < err < 2e-2  # bfloat16 rounding of the inputs and outputs, no more


def test_bfloat16_fno_keeps_float32_parameters_and_gradients(tmp_path):
    cfg = cases.load(write_case(tmp_path, DARCY), ["dtype=bfloat16"]).config
    op = build(cfg, 1, 1)
    params = op.init(jax.random.PRNGKey(0))
    stats = op.stats(np.zeros(1), np.ones(1), np.zeros(1), np.ones(1))
    x = jax.random.uniform(jax.random.PRNGKey(1), (2, 9, 9, 1), jnp.float32)
    assert {a.dtype for a in jax.tree_util.tree_leaves(params)} == {jnp.dtype("float32")}
    predict = jax.jit(op.predict)
    jaxpr = str(jax.make_jaxpr(op.predict)(params, stats, x))
    assert "bf16" in jaxpr  # computed in bfloat16 (the transforms in float32: the test above)
    y, grads = jax.jit(jax.value_and_grad(lambda p: jnp.mean(op.predict(p, stats, x) ** 2)))(params)
    assert predict(params, stats, x).dtype == jnp.float32
    assert {g.dtype for g in jax.tree_util.tree_leaves(grads)} == {jnp.dtype("float32")}
    assert np.isfinite(float(y)) and all(np.isfinite(np.asarray(g)).all() for g in jax.tree_util.tree_leaves(grads))
    f32 = jax.jit(build(cases.load(write_case(tmp_path, DARCY)).config, 1, 1).predict)(params, stats, x)
    rel = float(jnp.linalg.norm(predict(params, stats, x) - f32) / jnp.linalg.norm(f32))
    assert rel < 5e-2  # the same network, in bfloat16


def test_a_float64_run_leaves_no_float64_behind(tmp_path):
    """A float64 case and then a float32 one in one process (as in a notebook): float64 is on only inside the
    first run; the second trains and saves float32 parameters, and the caller's setting is kept throughout."""
    import h5py

    with jax.enable_x64(False):
        first = cases.run(cases.load(write_case(tmp_path, name="f64.yaml")), str(tmp_path / "f64"), quiet=True)
        assert not jax.config.jax_enable_x64
        second = cases.run(cases.load(write_case(tmp_path, name="f32.yaml", dtype="float32")),
                           str(tmp_path / "f32"), quiet=True)
        assert not jax.config.jax_enable_x64
    assert (first["dtype"], second["dtype"]) == ("float64", "float32")
    for run, dtype in ((first, np.float64), (second, np.float32)):
        with h5py.File(f"{run['run_dir']}/checkpoints/latest.h5", "r") as f:
            stored = {f["state"][k].dtype for k in f["state"] if f["state"][k].attrs["path"].startswith("['params']")}
        assert stored == {np.dtype(dtype)}, (run["run_dir"], stored)
    assert jax.config.jax_enable_x64  # the test process's own setting (tests/conftest.py) is back
