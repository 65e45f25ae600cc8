"""The cubic B-spline of a grid's values: scipy's interpolant, differentiated by the engine as by nested JAX,
twice continuously across cells."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import ndimage

from sciml.autodiff import derivatives, hessian
from sciml.solvers.pinn import spline

BOX = [(0.0, 2.0), (-0.5, 0.5)]


def smooth(x, y):
    return np.sin(2.0 * x) * np.cos(3.0 * y) + 0.3 * x * y


@pytest.fixture(scope="module")
def fitted():
    x, y = np.meshgrid(*spline.nodes(BOX, (40, 20)), indexing="ij")
    return spline.fit(smooth(x, y), BOX), (x, y)


def test_it_is_scipys_cubic_interpolant_of_the_extended_nodes(fitted):
    s, (x, y) = fitted
    values = smooth(x, y)
    nodes = jnp.stack([jnp.asarray(x), jnp.asarray(y)], -1)
    np.testing.assert_allclose(spline.value(s, nodes), values, rtol=0, atol=1e-13)
    pts = np.random.default_rng(0).uniform([0.0, -0.5], [2.0, 0.5], (200, 2))  # the box's sides included
    at = (pts - [0.0, -0.5]) / s.spacing - 0.5 + spline.PAD
    extended = np.pad(values, spline.PAD, mode="reflect", reflect_type="odd")
    np.testing.assert_allclose(spline.value(s, jnp.asarray(pts)),
                               ndimage.map_coordinates(extended, at.T, order=3, mode="mirror"), rtol=0, atol=1e-13)
    error = np.abs(spline.value(s, jnp.asarray(pts)) - smooth(*pts.T))  # h = 0.05
    inner = np.all((pts > [0.2, -0.3]) & (pts < [1.8, 0.3]), axis=1)
    assert np.max(error[inner]) < 5e-5 and np.max(error) < 5e-3  # O(h^4) inside, O(h^2) at the sides


def test_the_engine_differentiates_it_as_nested_jax(fitted):
    s, _ = fitted
    f = lambda p: spline.value(s, p)
    x = jnp.asarray(np.random.default_rng(1).uniform([0.0, -0.5], [2.0, 0.5], (30, 2)))
    # the references jitted: one program each (run op by op, nested autodiff compiles hundreds of small ones)
    np.testing.assert_allclose(hessian(f)(x), jax.jit(jax.vmap(jax.hessian(f)))(x), rtol=1e-10, atol=1e-10)
    third = jax.jit(jax.vmap(jax.jacfwd(jax.jacfwd(jax.jacfwd(f)))))(x)
    got = derivatives(f, [(1, 0), (0, 1), (3, 0), (1, 2)])(x)
    np.testing.assert_allclose(got[(3, 0)], third[:, 0, 0, 0], rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(got[(1, 2)], third[:, 0, 1, 1], rtol=1e-10, atol=1e-9)


def test_second_derivatives_are_continuous_across_a_cell_and_the_third_is_not(fitted):
    s, (x, _) = fitted
    f = lambda p: spline.value(s, p[None])[0]
    knot = jnp.array([x[10, 0], 0.1])  # the nodes are the knots
    step = jnp.array([1e-7, 0.0])
    second = [jax.jit(jax.hessian(f))(knot + e)[0, 0] for e in (-step, step)]
    third = [jax.jit(jax.jacfwd(jax.jacfwd(jax.jacfwd(f))))(knot + e)[0, 0, 0] for e in (-step, step)]
    assert abs(second[1] - second[0]) < 1e-4 * abs(second[0])
    assert abs(third[1] - third[0]) > 1e-3 * max(map(abs, third))


def test_least_squares_fits_scattered_weighted_data_and_its_design_is_the_value():
    """``least_squares``: the spline on 40 x 20 cells closest to ``w S = y`` at 2 points per cell and axis, ``w``
    a weight per point (a factor that vanishes on a side), within O(h^4) of the function inside; ``design`` is
    :func:`value` as a matrix; a grid too small or no smoothing is refused."""
    x, y = np.meshgrid(*spline.nodes(BOX, (80, 40)), indexing="ij")
    pts = np.column_stack([x.ravel(), y.ravel()])
    w = 1.0 - np.exp(-(pts[:, 1] + 0.5) / 0.2)  # 0 on the side y = -0.5
    s = spline.least_squares(pts, w * smooth(*pts.T), BOX, (40, 20), 1e-8, w)
    inner = np.random.default_rng(3).uniform([0.2, -0.3], [1.8, 0.3], (300, 2))
    assert np.max(np.abs(spline.value(s, jnp.asarray(inner)) - smooth(*inner.T))) < 2e-6  # h = 0.05
    np.testing.assert_allclose(spline.design(s.shape, s.lo, s.spacing, inner) @ s.coefs.ravel(),
                               spline.value(s, jnp.asarray(inner)), rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="at least 4 nodes per axis"):
        spline.least_squares(pts, smooth(*pts.T), BOX, (40, 3), 1e-8)
    with pytest.raises(ValueError, match="the smoothing must be positive"):
        spline.least_squares(pts, smooth(*pts.T), BOX, (40, 20), 0.0)
