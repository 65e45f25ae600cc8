"""The nested reference mode against closed-form derivatives."""
import jax.numpy as jnp
import numpy as np

from sciml import autodiff as ad


def f(x):
    return jnp.sin(2 * x[..., 0]) * jnp.exp(x[..., 1])


def test_partials_closed_form():
    x = jnp.array([[0.3, -0.2], [1.1, 0.4]])
    s, c, e = jnp.sin(2 * x[:, 0]), jnp.cos(2 * x[:, 0]), jnp.exp(x[:, 1])
    got = ad.derivatives(f, [(1, 0), (2, 1), (0, 3), (4, 0)], mode="nested")(x)
    np.testing.assert_allclose(got[(1, 0)], 2 * c * e, rtol=1e-12)
    np.testing.assert_allclose(got[(2, 1)], -4 * s * e, rtol=1e-12)
    np.testing.assert_allclose(got[(0, 3)], s * e, rtol=1e-12)
    np.testing.assert_allclose(got[(4, 0)], 16 * s * e, rtol=1e-12)


def test_operators_closed_form():
    x = jnp.array([[0.3, -0.2]])
    s, e = jnp.sin(2 * x[:, 0]), jnp.exp(x[:, 1])
    np.testing.assert_allclose(ad.laplacian(f, mode="nested")(x), -3 * s * e, rtol=1e-12)
    np.testing.assert_allclose(ad.biharmonic(f, mode="nested")(x), 9 * s * e, rtol=1e-12)
    assert ad.hessian(f, mode="nested")(x).shape == (1, 2, 2)
