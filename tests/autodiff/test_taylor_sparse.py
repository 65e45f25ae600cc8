"""Sparse input directions (``sciml.autodiff.taylor.sparse``): the (index, value) parts give the values of the
same directions carried densely, through every table entry and the materialising fallback, and keep the
first layer at the primal's cost."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from autodiff.ad_helpers import equations, network, points

from sciml import autodiff as ad
from sciml.autodiff.taylor import sparse
from sciml.autodiff.taylor.engine import run_plan
from sciml.autodiff.taylor.stochastic import stochastic_plan

D, N, S = 6, 5, 3
F, PARAMS = network(D, out=1, hidden=(8, 8), activation="tanh", seed=4)

# name -> pointwise f: each exercises table entries (dot_general, mul/div by a primal, x * x, reduce_sum, slice,
# squeeze, neg, convert) or the fallback that materialises the parts (sin of x, a broadcast, a transpose).
FUNCTIONS = {
    "mlp": F,
    "ball_factor": lambda y: (1 - jnp.sum(y * y, -1, keepdims=True)) * F(y),
    "scaled_input": lambda y: F((y - 0.3) / 2.0) * jnp.exp(-jnp.sum(y ** 2, -1))[..., None],
    "slices": lambda y: jnp.sin(y[..., :1]) * y[..., 1:2] - (y[..., 4] ** 3)[..., None],
    "weight_transposed": lambda y: jnp.tanh(jnp.einsum("...i,ji->...j", y, jnp.arange(2.0 * D).reshape(2, D)))
    .sum(-1, keepdims=True),
    "float32_cast": lambda y: F(y.astype(jnp.float32).astype(jnp.float64)),
    "materialised": lambda y: jnp.sin(y).sum(-1, keepdims=True) * F(y.T.T) + jnp.broadcast_to(y[..., :1], y.shape)
    .sum(-1, keepdims=True),
}


def _index(key, x):
    return jax.random.randint(key, (S,) + x.shape[:-1], 0, x.shape[-1])


def _laplacian(f, x, key, dense: bool, layout="split", chunk=None):
    """``(d/S) Σ_s ∂²f/∂x_{i_s}²`` from the stochastic plan, the directions as one-hot arrays or sparse parts."""
    d = x.shape[-1]
    op = ad.laplacian_op(d)
    plan = stochastic_plan((), ((op, "laplacian", 1.0),), d, S)
    i = _index(key, x)
    if dense:
        dirs = [jax.nn.one_hot(i[s], d, dtype=x.dtype) * math.sqrt(d) for s in range(S)]
    else:
        dirs = [sparse.Direction(i[s], math.sqrt(d)) for s in range(S)]
    return run_plan(plan, f, x, stacked=layout == "stacked", directions=dirs, chunk=chunk)[op]


@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("layout,chunk", [("split", None), ("stacked", None), ("split", 2)])
def test_sparse_parts_equal_dense_directions(name, layout, chunk):
    f, x, key = FUNCTIONS[name], points(D, n=N), jax.random.PRNGKey(7)
    got = _laplacian(f, x, key, dense=False, layout=layout, chunk=chunk)
    want = _laplacian(f, x, key, dense=True, layout=layout)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # and the value SDGD computes for the same coordinates by nested AD: (d/S) Σ_s e_iᵀ ∇²f e_i
    hess = jax.vmap(jax.hessian(lambda y: f(y[None])[0, 0]))(x)
    i = np.asarray(_index(key, x))
    nested = D / S * sum(hess[np.arange(N), i[s], i[s]] for s in range(S))
    tol = 1e-6 if name == "float32_cast" else 1e-10  # the network evaluated in float32 there
    np.testing.assert_allclose(got[..., 0], nested, rtol=tol, atol=tol)


def test_public_mode_uses_sparse_parts_and_its_gradient_matches():
    """``mode="stochastic", distribution="sparse"`` equals the dense one-hot plan, gradient w.r.t. the network
    included (a training step)."""
    x, key = points(D, n=N), jax.random.PRNGKey(3)

    def loss(params, dense):
        f = lambda y: network(D, out=1, hidden=(8, 8), seed=4)[0](y, params)
        if dense:
            lap = _laplacian(f, x, key, dense=True)
        else:
            lap = ad.laplacian(f, mode="stochastic", key=key, samples=S, distribution="sparse")(x)
        return jnp.mean((lap - 1.0) ** 2)

    (v1, g1), (v2, g2) = (jax.value_and_grad(loss)(PARAMS, dense) for dense in (False, True))
    np.testing.assert_allclose(v1, v2, rtol=1e-12)
    for a, b in zip(jax.tree.leaves(g1), jax.tree.leaves(g2)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _contractions_over_d(jaxpr, d: int) -> list:
    """Shapes of the ``dot_general`` left operands that contract an axis of size ``d`` (nested jaxprs too)."""
    found = []
    for eqn in equations(jaxpr):
        if eqn.primitive.name == "dot_general":
            lhs = eqn.invars[0].aval.shape
            (lc, _), _ = eqn.params["dimension_numbers"]
            if any(lhs[a] == d for a in lc):
                found.append(lhs)
    return found


def test_first_layer_costs_the_primal_only():
    """With sparse parts the only product over the ``d`` input coordinates is the primal's ``x W``: the
    directions reach the first layer as rows of ``W`` (the dense directions add one product per direction)."""
    d = 50
    f, _ = network(d, out=1, hidden=(8,), seed=1)
    x = points(d, n=4)
    lap = lambda dist: ad.laplacian(f, mode="stochastic", key=jax.random.PRNGKey(0), samples=S, distribution=dist)
    sparse_jaxpr = jax.make_jaxpr(lap("sparse"))(x).jaxpr
    dense_jaxpr = jax.make_jaxpr(lap("rademacher"))(x).jaxpr
    assert _contractions_over_d(sparse_jaxpr, d) == [(4, d)]
    assert len(_contractions_over_d(dense_jaxpr, d)) == 1 + S


def test_one_hot_parts():
    """The part's own operations against its dense array: folding (scatter), gathering, a stacked row."""
    index = jnp.array([[0, 3], [2, 2]])
    value = jnp.array([[1.5, -2.0], [0.5, 4.0]])
    a = sparse.OneHot(index, value, (2, 2, 4), jnp.float64)
    dense = np.asarray(a.dense())
    assert dense.shape == (2, 2, 4) and dense[0, 1, 3] == -2.0 and dense.sum() == value.sum()
    acc = jnp.ones((2, 4))
    np.testing.assert_allclose(a[1].fold_into(acc, 0.5), acc + 0.5 * dense[1])
    np.testing.assert_allclose(a[0].fold_into(None, 1.0), dense[0])
    p = jnp.arange(8.0).reshape(2, 4)
    want = np.take_along_axis(np.broadcast_to(np.asarray(p), (2, 2, 4)), np.asarray(index)[..., None], -1)
    np.testing.assert_allclose(a.gather(p, lead=1), want[..., 0])
