"""Random Fourier features and the modified MLP: shapes, the formulas, fixed frequencies, smooth derivatives."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import autodiff as ad
from sciml.nn import fourier, mlp, modified_mlp


def test_fourier_features_formula_and_fixed_frequencies():
    p = fourier.init(jax.random.PRNGKey(0), 3, 8, scale=2.0, dtype=jnp.float64)
    assert p["B"].shape == (3, 8)
    x = jnp.asarray(np.random.default_rng(0).normal(size=(5, 3)))
    y = fourier.apply(p, x)
    z = 2 * np.pi * np.asarray(x) @ np.asarray(p["B"])
    np.testing.assert_allclose(y, np.concatenate([np.cos(z), np.sin(z)], -1), rtol=1e-12)
    g = jax.grad(lambda q: jnp.sum(fourier.apply(q, x) ** 2 * x[:, :1]))(p)
    assert float(jnp.abs(g["B"]).max()) == 0.0  # B is not trained
    assert abs(float(jnp.std(p["B"])) - 2.0) < 1.0


def test_modified_mlp_matches_its_definition():
    sizes = [2, 6, 6, 6, 3]
    p = modified_mlp.init(jax.random.PRNGKey(1), sizes, jnp.float64)
    x = jnp.asarray(np.random.default_rng(1).normal(size=(4, 2)))
    y = modified_mlp.apply(p, x, "tanh")
    assert y.shape == (4, 3)
    u = np.tanh(x @ p["u"]["W"] + p["u"]["b"])
    v = np.tanh(x @ p["v"]["W"] + p["v"]["b"])
    h = np.asarray(x)
    for layer in p["layers"][:-1]:
        z = np.tanh(h @ layer["W"] + layer["b"])
        h = (1 - z) * u + z * v
    np.testing.assert_allclose(y, h @ p["layers"][-1]["W"] + p["layers"][-1]["b"], rtol=1e-12)
    with pytest.raises(ValueError):
        modified_mlp.init(jax.random.PRNGKey(1), [2, 6, 5, 3])


@pytest.mark.parametrize("net", ["mlp", "modified_mlp", "fourier_mlp"])
def test_variants_work_with_the_derivative_api(net):
    key = jax.random.PRNGKey(2)
    if net == "mlp":
        p = mlp.init(key, [2, 8, 8, 1], jnp.float64)
        f = lambda x: mlp.apply(p, x)
    elif net == "modified_mlp":
        p = modified_mlp.init(key, [2, 8, 8, 1], jnp.float64)
        f = lambda x: modified_mlp.apply(p, x)
    else:
        emb = fourier.init(key, 2, 4, 1.0, jnp.float64)
        p = mlp.init(key, [8, 8, 1], jnp.float64)
        f = lambda x: mlp.apply(p, fourier.apply(emb, x))
    x = jnp.asarray([[0.1, -0.3], [0.5, 0.2]])
    lap = jax.jit(ad.laplacian(f, mode="nested"))(x)  # jitted: one program each (op by op, many small ones)
    h = jax.jit(jax.vmap(jax.hessian(lambda z: f(z[None])[0, 0])))(x)
    np.testing.assert_allclose(lap[:, 0], jnp.trace(h, axis1=1, axis2=2), rtol=1e-10)
