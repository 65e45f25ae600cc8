"""Operators as data: Δ and Δ² known by (power, dimension), their terms listed only on demand."""
import itertools

import jax
import jax.numpy as jnp
import pytest

from sciml import autodiff as ad
from sciml.autodiff import LinearOperator, Polyharmonic


def test_terms_are_the_explicit_sums():
    d = 4
    lap = {ad.unit(d, i, 2): 1.0 for i in range(d)}
    bih = {ad.unit(d, i, 4): 1.0 for i in range(d)}
    bih.update({tuple(2 if k in (i, j) else 0 for k in range(d)): 2.0 for i, j in itertools.combinations(range(d), 2)})
    assert ad.laplacian_op(d).terms == LinearOperator.of(lap).terms
    assert ad.biharmonic_op(d).terms == LinearOperator.of(bih).terms
    assert ad.biharmonic_op(d).orders == (4,) and ad.laplacian_op(d).homogeneous and ad.laplacian_op(d).dim == d


def test_equality_and_hash_by_power_and_dimension():
    assert ad.laplacian_op(3) == Polyharmonic(1, 3) and hash(ad.laplacian_op(3)) == hash(Polyharmonic(1, 3))
    assert ad.laplacian_op(3) != ad.laplacian_op(4) and ad.laplacian_op(3) != ad.biharmonic_op(3)
    assert len({ad.laplacian_op(5): 1, Polyharmonic(1, 5): 2}) == 1
    with pytest.raises(ValueError, match="powers"):
        Polyharmonic(3, 2)


def test_high_dimension_lists_no_terms():
    """Δu in d = 20 000 by the stochastic mode: the operator's d × d term list is never made."""
    d = 20000
    op = ad.laplacian_op(d)
    w = jnp.linspace(-1.0, 1.0, d) / d
    f = lambda x: jnp.sin(x @ w)[..., None]  # Δf = -|w|² sin(x·w)
    x = jnp.ones((2, d)) * 0.01
    est = ad.derivatives(f, [op], mode="stochastic", key=jax.random.PRNGKey(0), samples=2,
                         distribution="rademacher")(x)[op]
    assert est.shape == (2, 1) and "terms" not in vars(op)
    # a rank-one Hessian: Rademacher estimates are (v·w)² sin(x·w) with E = |w|² sin(x·w): finite, same sign
    assert bool(jnp.all(est * -jnp.sin(x @ w)[:, None] >= 0))
