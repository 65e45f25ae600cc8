"""Stochastic Taylor estimators: unbiased (mean within a few standard errors of the exact operator)."""
import jax
import numpy as np
import pytest

from autodiff.ad_helpers import network, points, run_fast
from sciml import autodiff as ad

REPEATS, SAMPLES = 40, 4


def _estimates(f, op, x, **opts):
    """``REPEATS`` independent estimates (each from ``SAMPLES`` directions) with fixed seeds."""
    keys = jax.random.split(jax.random.PRNGKey(1234), REPEATS)
    est = lambda k: ad.derivatives(f, [op], mode="stochastic", key=k, samples=SAMPLES, **opts)(x)[op]
    return run_fast(jax.vmap(est), keys)


@pytest.mark.parametrize("which,distribution", [("laplacian", "rademacher"), ("laplacian", "gaussian"),
                                                ("biharmonic", None)])
def test_unbiased_within_standard_error(which, distribution):
    dim = 3
    f, _ = network(dim, out=2, hidden=(8,), activation="tanh", seed=11)
    x = points(dim, n=4)
    op = ad.laplacian_op(dim) if which == "laplacian" else ad.biharmonic_op(dim)
    exact = ad.derivatives(f, [op], mode="taylor")(x)[op]
    est = _estimates(f, op, x, distribution=distribution)
    mean = est.mean(axis=0)
    se = est.std(axis=0, ddof=1) / np.sqrt(REPEATS)
    assert np.all(np.abs(mean - exact) <= 4 * se + 1e-12), (np.abs(mean - exact) / se).max()
    assert np.all(se > 0)  # really random


def test_biharmonic_scale_is_checked():
    """A wrong normalisation (E[D⁴f[v]] without the 1/3) would be far outside the standard error."""
    f, _ = network(2, out=1, hidden=(8,), activation="sin", seed=2)
    x = points(2, n=3)
    op = ad.biharmonic_op(2)
    exact = ad.derivatives(f, [op], mode="taylor")(x)[op]
    est = _estimates(f, op, x)
    se = est.std(axis=0, ddof=1) / np.sqrt(REPEATS)
    assert np.all(np.abs(3 * est.mean(axis=0) - exact) > 4 * se)


def test_mixed_requests_and_shared_directions():
    f, _ = network(2, out=1, hidden=(8,), activation="tanh", seed=5)
    x = points(2, n=3)
    reqs = [ad.laplacian_op(2), ad.biharmonic_op(2), (1, 0), (0, 2)]
    got = ad.derivatives(f, reqs, mode="stochastic", key=jax.random.PRNGKey(0), samples=8)(x)
    exact = ad.derivatives(f, reqs, mode="taylor")(x)
    np.testing.assert_allclose(got[(1, 0)], exact[(1, 0)], rtol=1e-12)  # multi-indices stay exact
    np.testing.assert_allclose(got[(0, 2)], exact[(0, 2)], rtol=1e-12)
    for op in reqs[:2]:
        assert got[op].shape == exact[op].shape and not np.allclose(got[op], exact[op])
    # per-batch directions (per_point=False) are unbiased too and jit-able with a traced key
    run = jax.jit(lambda k: ad.laplacian(f, mode="stochastic", key=k, samples=4, per_point=False)(x))
    assert run(jax.random.PRNGKey(3)).shape == (3, 1)


def test_refusals():
    f, _ = network(2, out=1, hidden=(4,))
    x = points(2)
    with pytest.raises(ValueError, match="only the Laplacian and the biharmonic"):
        ad.linear_operator(f, {(1, 1): 1.0}, mode="stochastic", key=jax.random.PRNGKey(0))(x)
    with pytest.raises(ValueError, match="PRNG key"):
        ad.laplacian(f, mode="stochastic")(x)
    with pytest.raises(ValueError, match="Gaussian"):
        ad.biharmonic(f, mode="stochastic", key=jax.random.PRNGKey(0), distribution="rademacher")(x)
