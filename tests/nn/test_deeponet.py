"""The DeepONet's network (sciml/nn/deeponet.py): shapes, the branch-trunk sum, and the trunk's features."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.nn import deeponet, mlp


def test_shapes_and_the_sum_of_branch_times_trunk_per_channel():
    params = deeponet.init(jax.random.PRNGKey(0), sensors=12, coords=2, channels=3, basis=5, branch=[7], trunk=[6, 4])
    assert [layer["W"].shape for layer in params["branch"]] == [(12, 7), (7, 15)]
    assert [layer["W"].shape for layer in params["trunk"]] == [(2, 6), (6, 4), (4, 15)]
    params["bias"] = jnp.array([0.5, -1.0, 2.0])
    a = jax.random.normal(jax.random.PRNGKey(1), (4, 12))
    y = jax.random.uniform(jax.random.PRNGKey(2), (9, 2))
    u = deeponet.apply(params, a, y, "tanh")
    assert u.shape == (4, 9, 3)
    b = mlp.apply(params["branch"], a, "tanh").reshape(4, 3, 5)
    t = jnp.tanh(mlp.apply(params["trunk"], y, "tanh")).reshape(9, 3, 5)  # the trunk's last layer activated
    want = np.array([[[sum(b[i, c, k] * t[j, c, k] for k in range(5)) + params["bias"][c] for c in range(3)]
                      for j in range(9)] for i in range(4)])
    np.testing.assert_allclose(u, want, rtol=1e-5, atol=1e-6)


def test_harmonics_are_periodic_and_keep_the_coordinates_off_a_periodic_grid():
    y = jnp.array([[0.0, 0.25], [1.0, 1.25]])
    periodic = deeponet.features(y, harmonics=3, periodic=True)
    assert periodic.shape == (2, deeponet.feature_count(2, 3, True)) == (2, 12)
    np.testing.assert_allclose(periodic[0], periodic[1], atol=1e-6)  # y and y + 1: the same features
    closed = deeponet.features(y, harmonics=3)
    assert closed.shape == (2, deeponet.feature_count(2, 3)) == (2, 14)
    np.testing.assert_array_equal(closed[:, :2], y)
    assert deeponet.features(y) is y and deeponet.feature_count(2) == 2


def test_a_cnn_branch_convolves_the_sensors_on_their_grid_then_its_mlp():
    """``conv``: 5 x 5 kernels at a stride of 2 without padding, each activated, then the MLP (Lu et al. 2022's
    Darcy branch); the same numbers as the sums written out, and the MLP-only parameters unchanged beside it."""
    key = jax.random.PRNGKey(0)
    assert deeponet.conv_shape((29, 29), 2) == (5, 5) and deeponet.conv_shape((12,), 1, kernel=3, stride=3) == (4,)
    with pytest.raises(ValueError, match="convolution 2 of 5 points per axis meets a grid of"):
        deeponet.conv_shape((9, 9), 2)
    params = deeponet.init(key, sensors=2 * 9 * 9, coords=2, channels=1, basis=4, branch=[6], trunk=[5],
                           conv=[3], grid=(9, 9))
    assert [layer["W"].shape for layer in params["conv"]] == [(5, 5, 2, 3)]
    assert [layer["W"].shape for layer in params["branch"]] == [(3 * 3 * 3, 6), (6, 4)]
    plain = deeponet.init(key, sensors=2 * 9 * 9, coords=2, channels=1, basis=4, branch=[6], trunk=[5])
    np.testing.assert_array_equal(params["trunk"][0]["W"], plain["trunk"][0]["W"])  # the same draws elsewhere
    params["conv"][0]["b"] = jnp.array([0.1, -0.2, 0.3])
    a = jax.random.normal(jax.random.PRNGKey(1), (2, 9 * 9 * 2))
    got = deeponet.branch(params, a, "tanh", grid=(9, 9))
    x, w = np.asarray(a).reshape(2, 9, 9, 2), np.asarray(params["conv"][0]["W"])
    h = np.tanh(np.array([[[np.einsum("xyc,xyco->o", x[b, 2 * i:2 * i + 5, 2 * j:2 * j + 5], w)
                            for j in range(3)] for i in range(3)] for b in range(2)]) + params["conv"][0]["b"])
    want = mlp.apply(params["branch"], h.reshape(2, -1), "tanh").reshape(2, 1, 4)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
