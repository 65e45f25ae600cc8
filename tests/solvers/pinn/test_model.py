"""The PINN's network (solvers/pinn/model.py): a Fourier embedding of some coordinates, the others beside it."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import cases
from sciml.errors import ConfigError
from sciml.nn import fourier, modified_mlp
from sciml.solvers.pinn import model
from sciml.solvers.pinn.problem import Problem

SMALL = ["model.hidden=[8, 8]", "equation.conditions.initial={u: 1, v: 0, p: 0}"]  # no start file needed


def test_an_embedding_of_the_space_passes_the_time_on_beside_its_features():
    """``model.fourier.inputs: [x, y]`` of an unsteady case: frequencies for x and y only, the time one more input
    of the network (so no random frequency of it can make the fields oscillate in time)."""
    cfg = cases.load("dfg_2d2", [*SMALL, "model.fourier={features: 4, scale: 2.0, inputs: [x, y]}"]).config
    prob = Problem(cfg)
    params = prob.init(jax.random.PRNGKey(0))
    assert params["fourier"]["B"].shape == (2, 4)
    _, apply = model.build(cfg.model, 3, 3, jnp.float64, embedded=[0, 1])
    x = jax.random.uniform(jax.random.PRNGKey(1), (5, 3), jnp.float64, -1.0, 1.0)
    features = jnp.concatenate([fourier.apply(params["fourier"], x[:, :2]), x[:, 2:]], axis=-1)
    np.testing.assert_array_equal(apply(params, x), modified_mlp.apply(params["net"], features, "tanh"))
    whole = Problem(cases.load("dfg_2d2", [*SMALL, "model.fourier={features: 4, scale: 2.0}"]).config)
    assert whole.init(jax.random.PRNGKey(0))["fourier"]["B"].shape == (3, 4)  # the default: every coordinate


@pytest.mark.parametrize("inputs", ["[x, z]", "[]"])
def test_an_embedding_of_no_coordinate_of_the_case_is_refused(inputs):
    with pytest.raises(ConfigError, match=r"model\.fourier\.inputs: expected some of this case's coordinates "
                                          r"\['x', 'y', 't'\]"):
        cases.load("dfg_2d2", [f"model.fourier={{features: 4, inputs: {inputs}}}"])
