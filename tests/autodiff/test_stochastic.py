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


# --- high dimension: the estimators against the exact collapsed operator at d = 10 and 100 ----------------
DRAWS = 400  # independent estimates, each from SAMPLES directions


def _highdim(dim, distribution, op_of=ad.laplacian_op, samples=16, draws=DRAWS):
    """``(exact, estimates (draws, n, 1))`` for a tanh MLP in ``dim`` dimensions at 3 points of the unit ball."""
    f, _ = network(dim, out=1, hidden=(16,), activation="tanh", seed=dim)
    x = points(dim, n=3) / np.sqrt(dim)
    op = op_of(dim)
    exact = ad.derivatives(f, [op], mode="taylor", layout="stacked")(x)[op]
    keys = jax.random.split(jax.random.PRNGKey(dim), draws)
    est = lambda k: ad.derivatives(f, [op], mode="stochastic", key=k, samples=samples,
                                   distribution=distribution)(x)[op]
    return np.asarray(exact), np.asarray(run_fast(jax.vmap(est), keys))


@pytest.mark.parametrize("dim", [10, 100])
@pytest.mark.parametrize("distribution", ["rademacher", "gaussian", "sparse"])
def test_laplacian_unbiased_in_high_dimension(dim, distribution):
    """The mean of many estimates is within 4 standard errors of the exact Δ, and that test has the power to
    reject a biased estimator: the same estimates scaled by 1/2 or 2 (the 2! of ``y₂ = D²f[v]/2`` dropped or
    applied twice) fall outside."""
    exact, est = _highdim(dim, distribution)
    mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / np.sqrt(DRAWS)
    assert np.all(se > 0)  # really random (no network here has a diagonal Hessian)
    assert np.all(np.abs(mean - exact) <= 4 * se), (np.abs(mean - exact) / se).max()
    for wrong in (0.5, 2.0):
        assert np.all(np.abs(wrong * mean - exact) > 4 * se), (np.abs(wrong * mean - exact) / se).min()


def test_sparse_scaling_is_checked():
    """Sparse directions without the √d (``∂_i² f`` averaged, not ``d ∂_i² f``) are far outside the error bars."""
    exact, est = _highdim(10, "sparse", draws=100)
    se = est.std(axis=0, ddof=1) / np.sqrt(100)
    assert np.all(np.abs(est.mean(axis=0) / 10 - exact) > 4 * se)


def test_biharmonic_unbiased_at_d10():
    """Δ² by Gaussian 4-jets against the exact collapsed operator (whose plan has d² directions: small d)."""
    exact, est = _highdim(10, "gaussian", op_of=ad.biharmonic_op, draws=200)
    mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / np.sqrt(200)
    assert np.all(np.abs(mean - exact) <= 4 * se), (np.abs(mean - exact) / se).max()
    assert np.all(np.abs(3 * mean - exact) > 4 * se)  # without the 1/3 of E[D⁴f[v]] = 3Δ²f


def test_biharmonic_in_d1000():
    """In d = 1000 (no d × d object: Δ² is never listed) the estimate of ``Δ²(|x|⁴ + (a·x)⁴) = 8d(d+2) + 24|a|⁴``
    is unbiased."""
    dim, draws = 1000, 100
    a = jax.numpy.asarray(np.random.default_rng(0).normal(size=dim) / np.sqrt(dim))
    f = lambda x: (jax.numpy.sum(x * x, -1) ** 2 + (x @ a) ** 4)[..., None]
    x = points(dim, n=2) / np.sqrt(dim)
    op = ad.biharmonic_op(dim)
    est = jax.vmap(lambda k: ad.derivatives(f, [op], mode="stochastic", key=k, samples=8)(x)[op])(
        jax.random.split(jax.random.PRNGKey(0), draws))
    exact = 8 * dim * (dim + 2) + 24 * float(a @ a) ** 2
    mean, se = np.asarray(est).mean(axis=0), np.asarray(est).std(axis=0, ddof=1) / np.sqrt(draws)
    assert np.all(np.abs(mean - exact) <= 4 * se) and np.all(se > 0)
    assert np.all(np.abs(3 * mean - exact) > 4 * se)


def test_sparse_directions_are_scaled_coordinates():
    from sciml.autodiff.taylor.stochastic import DISTRIBUTIONS
    v = np.asarray(DISTRIBUTIONS["sparse"][0](jax.random.PRNGKey(0), (5, 7, 16), np.float64))
    assert v.shape == (5, 7, 16)
    np.testing.assert_array_equal(np.count_nonzero(v, axis=-1), 1)
    np.testing.assert_allclose(v.sum(axis=-1), 4.0)  # √16
    with pytest.raises(ValueError, match="Gaussian"):
        f, _ = network(2, out=1, hidden=(4,))
        ad.biharmonic(f, mode="stochastic", key=jax.random.PRNGKey(0), distribution="sparse")(points(2))
