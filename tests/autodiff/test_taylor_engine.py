"""The engine's cache of propagations (``engine._propagation``): traced, a propagation is jitted once per plan and
shape of ``f``, and every function of that shape gets its own values (its weights, its constants, its literals)."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import autodiff as ad
from sciml.autodiff.taylor import engine


def _net(seed: int, scale: float = 1.0):
    k1, k2 = jax.random.split(jax.random.PRNGKey(seed))
    W, v = jax.random.normal(k1, (2, 8)), jax.random.normal(k2, (8,))
    return (W, v), lambda params, x: jnp.tanh(scale * x @ params[0]) @ params[1]


def _laplacian_nested(g, x):
    return jax.vmap(lambda p: jnp.trace(jax.hessian(g)(p)))(x)


def _laplacian_jitted(net):
    """``(params, x) -> Δ net(params, ·)(x)``, jitted: the engine traced, ``params`` traced values."""
    return jax.jit(lambda p, x: ad.laplacian(lambda y: net(p, y))(x))


@pytest.fixture
def counted(monkeypatch):
    """How many times the interpreter propagated a plan (each is a trace of its equations)."""
    calls = []
    propagate = engine._propagate
    monkeypatch.setattr(engine, "_PROPAGATIONS", {})  # none cached by earlier tests
    monkeypatch.setattr(engine, "_propagate", lambda *a, **k: calls.append(1) or propagate(*a, **k))
    return calls


def test_functions_of_one_shape_share_a_propagation_and_keep_their_own_values(counted):
    x = jax.random.normal(jax.random.PRNGKey(9), (5, 2))
    with jax.enable_x64(True):
        x = x.astype(jnp.float64)
        for seed in (0, 1):
            params, net = _net(seed)
            params = jax.tree.map(lambda a: a.astype(jnp.float64), params)
            got = _laplacian_jitted(net)(params, x)
            np.testing.assert_allclose(got, _laplacian_nested(functools.partial(net, params), x), rtol=1e-12)
    assert len(counted) == 1  # the second network's weights are traced values of the same shape: no new walk


def test_another_literal_or_gradient_is_its_own_propagation_and_exact(counted):
    x = jnp.asarray(np.random.default_rng(0).normal(size=(4, 2)))
    with jax.enable_x64(True):
        x = x.astype(jnp.float64)
        params, _ = _net(0)
        params = jax.tree.map(lambda a: a.astype(jnp.float64), params)
        for scale in (1.0, 3.0):  # a literal in f's jaxpr: another key
            _, net = _net(0, scale)
            got = _laplacian_jitted(net)(params, x)
            np.testing.assert_allclose(got, _laplacian_nested(functools.partial(net, params), x), rtol=1e-12)
        assert len(counted) == 2

        def loss(p, nested):  # the gradient through the cached propagation against nested JAX's
            lap = _laplacian_nested(lambda y: net(p, y), x) if nested else ad.laplacian(lambda y: net(p, y))(x)
            return jnp.sum(lap ** 2)

        mine, theirs = jax.jit(jax.grad(lambda p: loss(p, False)))(params), jax.grad(lambda p: loss(p, True))(params)
        for a, b in zip(jax.tree.leaves(mine), jax.tree.leaves(theirs)):
            np.testing.assert_allclose(a, b, rtol=1e-10)


def test_called_on_values_it_walks_the_equations_and_caches_nothing(counted):
    params, net = _net(0)
    before = len(engine._PROPAGATIONS)
    ad.laplacian(lambda y: net(params, y))(jnp.ones((3, 2)))
    assert len(engine._PROPAGATIONS) == before and len(counted) == 1


def test_a_nested_jaxpr_closing_over_other_constants_is_not_confused():
    """Two functions whose jaxprs print alike but whose inner call closes over other constant values."""
    x = jnp.linspace(0.1, 0.9, 6).reshape(3, 2)

    def make(c):
        inner = jax.jit(lambda y: jnp.sin(y @ c))
        return lambda y: inner(y).sum(-1)

    with jax.enable_x64(True):
        x = x.astype(jnp.float64)
        for c in (np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.5, -1.0], [2.0, 0.25]])):
            g = make(c)
            got = jax.jit(ad.laplacian(g))(x)
            np.testing.assert_allclose(got, _laplacian_nested(g, x), rtol=1e-12)


def test_the_least_recently_used_propagation_goes_first(counted, monkeypatch):
    monkeypatch.setattr(engine, "_KEPT", 2)
    x = jnp.ones((3, 2))

    def laplacian(n: float):  # n a literal of f's jaxpr: a key of its own
        return jax.jit(lambda x: ad.laplacian(lambda y: jnp.tanh(y * n).sum(-1))(x))(x)

    for n in (2.0, 3.0, 2.0, 4.0):  # 3.0 is the least recently used when 4.0 comes
        laplacian(n)
    assert len(counted) == 3 and len(engine._PROPAGATIONS) == 2
    laplacian(2.0)  # kept: no new walk
    assert len(counted) == 3
    laplacian(3.0)  # gone: walked again
    assert len(counted) == 4
