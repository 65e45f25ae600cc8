"""The line search of the quasi-Newton phase: optax's zoom search with one evaluation per trial takes optax's
steps (float64), and keeps the strong Wolfe conditions."""
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from sciml.config import build
from sciml.solvers.pinn import linesearch, optim
from sciml.solvers.pinn.config import LbfgsConfig


def _rosenbrock(x):
    return jnp.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def _quadratic(x):
    return 0.5 * jnp.sum(jnp.geomspace(1.0, 1e5, x.size) * x ** 2) + jnp.sum(jnp.sin(x))


def _steps(search, fn, x, n):
    """``n`` L-BFGS steps behind ``search``: the points, values and line-search trial counts."""
    tx = optax.lbfgs(memory_size=5, linesearch=search)
    state, out = tx.init(x), []
    def one(x, s):
        value, grad = jax.value_and_grad(fn)(x)
        return tx.update(grad, s, x, value=value, grad=grad, value_fn=fn)

    step = jax.jit(one)
    for _ in range(n):
        u, state = step(x, state)
        x = x + u
        info = optax.tree.get(state, "info")
        out.append((np.asarray(x), float(fn(x)), int(info.num_linesearch_steps)))
    return out


@pytest.mark.parametrize("fn,x0,zooms", [(_rosenbrock, -1.2 * np.ones(8), True),
                                         (_quadratic, np.linspace(-1, 2, 10), False)])
def test_the_search_takes_optax_s_steps(fn, x0, zooms):
    """Forty L-BFGS steps (through expansions, and on Rosenbrock zooms into a bracket): the same points as
    optax's ``scale_by_zoom_linesearch``, trial for trial."""
    ours = _steps(linesearch.zoom(), fn, jnp.asarray(x0), 40)
    theirs = _steps(optax.scale_by_zoom_linesearch(max_linesearch_steps=20, initial_guess_strategy="one"),
                    fn, jnp.asarray(x0), 40)
    assert (max(c for _, _, c in ours) > 2) == zooms  # searches that bracketed and zoomed
    for (x, v, c), (x1, v1, c1) in zip(ours, theirs):
        assert c == c1
        np.testing.assert_allclose(x, x1, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(v, v1, rtol=1e-12, atol=1e-300)


def test_a_chunk_takes_optax_s_l_bfgs_steps():
    """A quasi-Newton chunk (one loop: the held values, then each step's direction and trials, one evaluation a
    turn) takes the steps of optax's L-BFGS behind optax's zoom search: forty on Rosenbrock, the same values at
    each step's start and the same last point."""
    x0 = jnp.asarray(-1.2 * np.ones(8))
    theirs = _steps(optax.scale_by_zoom_linesearch(max_linesearch_steps=20, initial_guess_strategy="one"),
                    _rosenbrock, x0, 40)
    tx = optim.lbfgs(build(LbfgsConfig, {"steps": 40, "memory": 5}))
    chunk = optim.lbfgs_chunk(lambda p, b, k: (_rosenbrock(p["x"]), {}), tx, 40)
    state, losses = chunk(optim.init_state({"x": x0}, tx, jax.random.PRNGKey(0)), None, 40)
    np.testing.assert_allclose(np.asarray(losses), [float(_rosenbrock(x0))] + [v for _, v, _ in theirs[:-1]],
                               rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(state["params"]["x"], theirs[-1][0], rtol=1e-12, atol=1e-14)
    # the chunk steps on the parameters as one vector: a network of two arrays takes the same steps, and its
    # state (L-BFGS's memory as a stack of them) comes back in their shapes
    split = lambda p, b, k: (_rosenbrock(jnp.concatenate([p["a"], p["b"].ravel()])), {})
    two = {"a": x0[:2], "b": x0[2:].reshape(3, 2)}
    state2, losses2 = optim.lbfgs_chunk(split, tx, 40)(optim.init_state(two, tx, jax.random.PRNGKey(0)), None, 40)
    np.testing.assert_allclose(np.asarray(losses2), np.asarray(losses), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(state2["params"]["b"].ravel(), state["params"]["x"][2:], rtol=1e-12, atol=1e-14)
    assert jax.tree_util.tree_structure(state2["opt"]) == jax.tree_util.tree_structure(tx.init(two))
    assert state2["opt"][0].diff_params_memory["b"].shape == (5, 3, 2)


def test_an_accepted_step_meets_the_strong_wolfe_conditions():
    x = jnp.asarray(-1.2 * np.ones(6))
    g = jax.grad(_rosenbrock)(x)
    d = -g / jnp.linalg.norm(g)
    search = linesearch.zoom()
    step, state = search.update(d, search.init(x), x, value=_rosenbrock(x), grad=g, value_fn=_rosenbrock)
    t = float(state.learning_rate)
    assert t > 0 and np.allclose(step, t * d)
    assert state.value == pytest.approx(float(_rosenbrock(x + step)), rel=1e-14)
    np.testing.assert_allclose(state.grad, jax.grad(_rosenbrock)(x + step), rtol=1e-12)
    assert float(state.value) <= float(_rosenbrock(x)) + 1e-4 * t * float(g @ d)  # sufficient decrease
    assert abs(float(state.grad @ d)) <= 0.9 * abs(float(g @ d))  # curvature
