"""The Taylor engine against nested ``jax.jacfwd``: partials of order 1–6 in dimensions 1–5, and every operator
of the API on MLPs with each activation, vector outputs and batches (float64, relative 1e-10)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autodiff.ad_helpers import (ACTIVATIONS, jacfwd_partial, jacfwd_tensor, jacfwd_tensors, network, points,
                                 rel_err, run_fast, tensor_entry)
from sciml import autodiff as ad
from sciml.autodiff import taylor

TOL = 1e-10


def _sample(dim: int, order: int) -> tuple:
    """One multi-index per (dim, order), cycling through pure, most mixed and irregular ones."""
    alphas = ad.multi_indices(dim, order)
    kind = (dim + order) % 3
    if kind == 0 or dim == 1:
        return alphas[0]  # pure
    if kind == 1:  # most mixed: spread the order over all coordinates
        base = [order // dim + (i < order % dim) for i in range(dim)]
        return tuple(base)
    rng = np.random.default_rng(dim * 10 + order)
    return alphas[int(rng.integers(len(alphas)))]


# Orders 1-4 in every dimension; the (costly to reference) orders 5 and 6 on a covering diagonal.
GRID = [(d, k) for d in range(1, 6) for k in range(1, 5)] + [(1, 5), (2, 6), (3, 5), (4, 6), (5, 5), (5, 6)]


@pytest.mark.parametrize("dim,order", GRID)
def test_partial_against_nested_jacfwd(dim, order):
    alpha = _sample(dim, order)
    hidden = (6,) if order >= 3 else (8, 8)  # keeps the deep jacfwd references cheap to compile
    f, _ = network(dim, out=2, hidden=hidden, activation="tanh" if order % 2 else "sin", seed=dim + order)
    x = points(dim, n=3, seed=order)
    pure = tuple(order if i == dim - 1 else 0 for i in range(dim))
    reqs = [alpha] if pure == alpha else [alpha, pure]

    def both(x):  # one compilation for the engine and the references
        got = ad.derivatives(f, reqs, mode="taylor")(x)
        return [got[a] for a in reqs], [jacfwd_partial(f, a, jit=False)(x) for a in reqs]

    got, ref = run_fast(both, x)
    for a, g, r in zip(reqs, got, ref):
        assert rel_err(g, r) < TOL, a


# Every partial of every order up to 6 in dimensions 1-3 and up to 4 in dimensions 4-5 (all orders 5 and 6
# there too: the autodiff suite's `all_partials` entry, a few minutes); with lower maximum orders the plans
# differ, so (2, 4) and (4, 2) stay.
@pytest.mark.parametrize("dim,max_order", [(1, 6), (2, 6), (3, 6), (4, 4), (5, 4), (2, 4), (4, 2)])
def test_all_partials_in_one_plan(dim, max_order):
    """Every multi-index of every order up to ``max_order``, planned and propagated together."""
    f, _ = network(dim, out=2, hidden=(4,) if max_order > 4 else (6,), activation="softplus", seed=3)
    x = points(dim, n=4)
    reqs = [a for k in range(max_order + 1) for a in ad.multi_indices(dim, k)]

    def both(x):
        got = ad.derivatives(f, reqs, mode="taylor")(x)
        return [got[a] for a in reqs], jacfwd_tensors(f, max_order)(x)

    got, tensors = run_fast(both, x)
    for a, g in zip(reqs, got):
        ref = tensor_entry(tensors[sum(a)], a)
        assert rel_err(g, ref) < TOL, a
    plan = taylor.make_plan(tuple(reqs), dim)
    assert len(plan.directions) == len(ad.multi_indices(dim, max_order))  # a minimal, unisolvent set


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_laplacian_biharmonic_each_activation(activation):
    """One planned propagation for Δ, Δ² and a mixed partial of a 2-D MLP with vector output."""
    f, _ = network(2, out=2, hidden=(8,), activation=activation, seed=5)
    x = points(2, n=3)
    reqs = [ad.laplacian_op(2), ad.biharmonic_op(2), (1, 1)]

    def run(x):  # one compilation for the engine and the references
        got = ad.derivatives(f, reqs, mode="taylor")(x)
        t = jacfwd_tensors(f, 4)(x)
        return [got[r] for r in reqs], t[2], t[4]

    (lap, bih, mixed), t2, t4 = run_fast(run, x)
    assert rel_err(lap, t2[..., 0, 0] + t2[..., 1, 1]) < TOL
    assert rel_err(bih, t4[..., 0, 0, 0, 0] + 2 * t4[..., 0, 0, 1, 1] + t4[..., 1, 1, 1, 1]) < TOL
    assert rel_err(mixed, t2[..., 0, 1]) < TOL


@pytest.mark.parametrize("dim,activation", [(3, "tanh"), (2, "softplus")])
def test_every_operator_of_the_api(dim, activation):
    f, _ = network(dim, out=2, hidden=(6, 6), activation=activation, seed=5)
    x = points(dim, n=3)
    opts = dict(mode="taylor")

    def run(x):  # one compilation for the engine and the references
        ours = (ad.jacobian(f, **opts)(x), ad.hessian(f, **opts)(x), ad.laplacian(f, **opts)(x),
                ad.biharmonic(f, **opts)(x))
        t = jacfwd_tensors(f, 4)(x)
        return ours, (t[1], t[2], t[4])

    (jac, hess, lap, bih), (t1, t2, t4) = run_fast(run, x)
    assert jac.shape == (3, 2, dim) and hess.shape == (3, 2, dim, dim)
    assert rel_err(jac, t1) < TOL
    assert rel_err(hess, t2) < TOL
    assert rel_err(lap, sum(t2[..., i, i] for i in range(dim))) < TOL
    assert rel_err(bih, sum(t4[..., i, i, j, j] for i in range(dim) for j in range(dim))) < TOL


def test_grad_and_divergence():
    f, _ = network(3, out=0, hidden=(8, 8), activation="gelu")
    g, _ = network(3, out=3, hidden=(8, 8), activation="silu", seed=2)
    x = points(3, n=4)
    grad, div = run_fast(lambda x: (ad.grad(f, mode="taylor")(x), ad.divergence(g, mode="taylor")(x)), x)
    assert rel_err(grad, jacfwd_tensor(f, 1)(x)) < TOL
    jg = jacfwd_tensor(g, 1)(x)
    assert rel_err(div, jnp.trace(jg, axis1=-2, axis2=-1)) < TOL


def test_linear_operators_homogeneous_and_inhomogeneous():
    f, _ = network(3, out=2, hidden=(8, 8), activation="tanh", seed=7)
    x = points(3, n=3)
    homog = {(2, 0, 0): 1.0, (1, 1, 0): -3.0, (0, 1, 1): 0.5, (0, 0, 2): 2.0}
    inhom = {(3, 0, 0): 1.0, (1, 1, 1): 2.0, (0, 2, 0): -1.0, (0, 0, 1): 4.0, (0, 0, 0): 0.25}
    got = jax.jit(lambda x: (ad.linear_operator(f, homog, mode="taylor")(x),
                             ad.linear_operator(f, inhom, mode="taylor")(x)))(x)
    t = {k: jacfwd_tensor(f, k)(x) for k in (1, 2, 3)}
    ref = lambda ops: sum(c * (f(x) if sum(a) == 0 else tensor_entry(t[sum(a)], a)) for a, c in ops.items())
    assert rel_err(got[0], ref(homog)) < TOL
    assert rel_err(got[1], ref(inhom)) < TOL


def test_operator_plans_use_few_directions():
    lap2, bih2, bih3 = (taylor.make_plan((op,), d) for op, d in
                        ((ad.laplacian_op(2), 2), (ad.biharmonic_op(2), 2), (ad.biharmonic_op(3), 3)))
    assert len(lap2.directions) == 2 and lap2.n_channels() == 4  # u, ∂₁u, ∂₂u and the collapsed Δu
    assert len(bih2.directions) == 3 and bih2.n_channels() == 9  # the 4-design at 0°, 60°, 120°
    assert len(bih3.directions) == 6 and bih3.n_channels() == 14  # the icosahedron axes
    both = taylor.make_plan((ad.biharmonic_op(2), ad.laplacian_op(2)), 2)
    assert len(both.directions) == 3  # Δ comes free from the 4-design's order-2 coefficients


def test_batch_shapes_and_scalar_points():
    f, _ = network(2, out=2, hidden=(8,), activation="tanh")
    xb = points(2, n=12).reshape(3, 4, 2)
    lap = jax.jit(ad.laplacian(f, mode="taylor"))(xb)
    assert lap.shape == (3, 4, 2)
    ref = jax.jit(ad.laplacian(f, mode="nested"))(xb)
    assert rel_err(lap, ref) < TOL
    single = ad.laplacian(f, mode="taylor")(xb[0, 0])
    assert single.shape == (2,) and rel_err(single, ref[0, 0]) < TOL
