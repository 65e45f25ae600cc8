"""The decoded FNO field: the grid pass at the grid points, the Fourier interpolant between them, periodic with
the padded period, and differentiated by the Taylor engine exactly as by nested ``jax.jacfwd`` (float64)."""
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import autodiff as ad
from sciml.nn import fno, fno_field


def model(d=2, modes=(3, 2), width=4, layers=2, c_in=1, c_out=2, seed=0):
    params = fno.init(jax.random.PRNGKey(seed), c_in, c_out, modes[:d], width, layers, projection=(8,),
                      dtype=jnp.float64)
    # the spectral weights start positive and tiny: spread them so every mode matters
    rng = np.random.default_rng(seed)
    for layer in params["layers"]:
        layer["spectral"] = layer["spectral"] + 0.3 * rng.standard_normal(layer["spectral"].shape)
    return params


def inputs(shape, c=1, batch=2, seed=1):
    return jnp.asarray(np.random.default_rng(seed).standard_normal((batch, *shape, c)))


@pytest.mark.parametrize("shape,modes,padding,grid,spectral,fill", [
    ((9, 8), (3, 2), (2, 1), "closed", "dft", "zeros"),  # padded: 11 x 9 (odd and even periods)
    ((9, 8), (3, 2), (2, 1), "closed", "dft", "smooth"),
    ((9, 8), (3, 2), (2, 1), "closed", "fft", "zeros"),
    ((8, 10), (4, 5), 0, "closed", "dft", "zeros"),  # a kept Nyquist mode on both axes (2m = n)
    ((12,), (4,), 3, "closed", "fft", "smooth"),
    ((10,), (5,), 0, "periodic", "dft", "zeros"),
])
def test_decoded_field_is_the_grid_pass_at_the_grid_points(shape, modes, padding, grid, spectral, fill):
    d = len(shape)
    params = model(d, modes)
    a = inputs(shape)
    opts = {"grid": grid, "padding": padding, "spectral": spectral, "pad_fill": fill}
    on_grid = np.asarray(jax.jit(lambda p, a: fno.apply(p, a, **opts))(params, a))
    points = fno.grid_channels(shape, grid, jnp.float64)
    decoded = jax.jit(lambda p, a, x: fno_field.decode(p, a, **opts)(x))
    got = np.asarray(decoded(params, a, points))  # (n..., batch, c_out)
    np.testing.assert_allclose(np.moveaxis(got, -2, 0), on_grid, rtol=1e-10, atol=1e-10)
    one = decoded(params, a[1], points)  # one sample: (n..., c_out)
    np.testing.assert_allclose(np.asarray(one), on_grid[1], rtol=1e-10, atol=1e-10)


def interpolant(z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The real trigonometric interpolant of ``z (N_1..N_d, c)`` at continuous indices ``t (M, d)`` by explicit
    complex sums over the full spectrum; the Nyquist mode of an even axis split evenly between ``±N/2``."""
    sizes = z.shape[:-1]
    Z = np.fft.fftn(z, axes=tuple(range(len(sizes))))
    out = np.zeros((len(t), z.shape[-1]), complex)
    for k in itertools.product(*[range(n) for n in sizes]):
        phase = np.ones(len(t), complex)
        for a, (ka, n) in enumerate(zip(k, sizes)):
            f = ka if 2 * ka < n else ka - n
            phase *= np.cos(np.pi * t[:, a]) if 2 * abs(f) == n else np.exp(2j * np.pi * f * t[:, a] / n)
        out += phase[:, None] * Z[k]
    assert np.abs(out.imag).max() < 1e-10 * np.abs(out.real).max()
    return out.real / np.prod(sizes)


def test_between_grid_points_the_last_layer_is_its_fourier_interpolant():
    params = model()
    a = inputs((9, 8), batch=1)
    z = np.asarray(fno.hidden(params, a, padding=(2, 1)))[0]  # (11, 9, width)
    x = np.random.default_rng(3).uniform(-0.2, 1.3, (7, 2))
    t = x * np.array([8.0, 7.0])  # closed grids of 9 and 8 points
    want = np.asarray(fno.project(params, jnp.asarray(interpolant(z, t)), "gelu"))
    got = np.asarray(fno_field.decode(params, a[0], padding=(2, 1))(jnp.asarray(x)))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_decoded_field_has_the_padded_period():
    """On a closed grid of n points with p of padding the period is (n + p) / (n - 1) per axis."""
    params = model()
    u = fno_field.decode(params, inputs((9, 8), batch=1)[0], padding=(2, 1))
    x = jnp.asarray(np.random.default_rng(4).uniform(0, 1, (5, 2)))
    shift = jnp.asarray([11 / 8, 9 / 7])
    np.testing.assert_allclose(np.asarray(u(x + shift)), np.asarray(u(x)), rtol=1e-10, atol=1e-12)
    assert np.abs(np.asarray(u(x + shift / 2) - u(x))).max() > 1e-3  # not a shorter period


ALPHAS = [(1, 0), (0, 1), (2, 0), (1, 1), (2, 1), (0, 3), (4, 0), (2, 2), (1, 3)]


def test_partials_of_orders_one_to_four_by_the_engine_are_nested_jax():
    """All nine partials from one plan of the engine, against the tensors of nested ``jax.jacfwd`` (order k: k
    nestings, read at the multi-index's entry)."""
    params = model()
    u = fno_field.decode(params, inputs((9, 8), batch=1)[0], padding=(2, 1))
    x = jnp.asarray(np.random.default_rng(5).uniform(0, 1, (6, 2)))
    got = jax.jit(ad.derivatives(u, ALPHAS))(x)
    tensors, g = {}, u
    for k in range(1, 5):
        g = jax.jacfwd(g)
        tensors[k] = np.asarray(jax.jit(jax.vmap(g))(x))  # (6, c_out, 2, ..., 2)
    for alpha in ALPHAS:
        order = tuple(i for i, n in enumerate(alpha) for _ in range(n))
        want = tensors[len(order)][(slice(None), slice(None), *order)]
        assert np.abs(want).max() > 1e-3
        np.testing.assert_allclose(np.asarray(got[alpha]), want, rtol=1e-9, atol=1e-9 * np.abs(want).max(),
                                   err_msg=str(alpha))


def test_laplacian_and_biharmonic_of_a_batch_are_nested_hessians():
    """Every sample of a batch at the same points: ``(M, batch, c)``; ``Δ`` from ``jax.hessian``, ``Δ²`` from the
    Hessian of the Hessian's trace."""
    params = model()
    a = inputs((9, 8), batch=3)
    u = fno_field.decode(params, a, padding=(2, 1))
    x = jnp.asarray(np.random.default_rng(6).uniform(0, 1, (5, 2)))
    lap, bih = (np.asarray(jax.jit(op(u))(x)) for op in (ad.laplacian, ad.biharmonic))
    trace = lambda f: (lambda p: jnp.trace(jax.hessian(f)(p), axis1=-2, axis2=-1))
    want_lap, want_bih = (np.asarray(jax.jit(jax.vmap(f))(x)) for f in (trace(u), trace(trace(u))))
    assert lap.shape == bih.shape == (5, 3, 2)
    np.testing.assert_allclose(lap, want_lap, rtol=1e-9, atol=1e-9 * np.abs(want_lap).max())
    np.testing.assert_allclose(bih, want_bih, rtol=1e-9, atol=1e-9 * np.abs(want_bih).max())


def test_parameter_gradient_through_the_biharmonic_is_the_difference_quotient():
    """Training differentiates the residual in the parameters: the engine's gradient along a random direction
    of the parameters against the central difference quotient of the loss (float64: agreement to ~1e-8)."""
    params = model(layers=1)
    a = inputs((9, 8), batch=2)
    x = jnp.asarray(np.random.default_rng(7).uniform(0, 1, (4, 2)))
    loss = jax.jit(lambda p: jnp.mean(ad.biharmonic(fno_field.decode(p, a, padding=(2, 1)))(x) ** 2))
    leaves, tree = jax.tree_util.tree_flatten(params)
    rng = np.random.default_rng(8)
    v = jax.tree_util.tree_unflatten(tree, [jnp.asarray(rng.standard_normal(l.shape)) for l in leaves])
    along = lambda eps: jax.tree_util.tree_map(lambda p, d: p + eps * d, params, v)
    grad = jax.jit(jax.grad(loss))(params)
    directional = sum(float(jnp.vdot(g, d))
                      for g, d in zip(jax.tree_util.tree_leaves(grad), jax.tree_util.tree_leaves(v)))
    eps = 1e-5
    quotient = (float(loss(along(eps))) - float(loss(along(-eps)))) / (2 * eps)
    assert directional == pytest.approx(quotient, rel=1e-6)


@pytest.mark.parametrize("shape,modes,padding,grid,refine", [
    ((9, 8), (3, 2), (2, 1), "closed", 2),  # padded: 11 x 9 (odd and even periods)
    ((8, 10), (4, 5), 0, "closed", 1),  # a kept Nyquist mode on both axes (2m = n)
    ((10, 7), (5, 3), 0, "periodic", 2),
])
def test_on_a_grid_the_local_polynomials_have_the_field_s_partials(shape, modes, padding, grid, refine):
    """``on_grid(axes, r)``: every partial up to order ``r`` at the grid's points (the training grid or one
    ``refine`` times finer) is the decoded field's, by the engine on both; the biharmonic against the Hessian of
    the Hessian's trace of the field itself (nested ``jax.hessian``)."""
    params = model(2, modes)
    a = inputs(shape, batch=2)
    u = fno_field.decode(params, a, grid=grid, padding=padding)
    axes = [np.linspace(0, 1, (n - 1) * refine + 1) if grid == "closed" else np.arange(refine * n) / (refine * n)
            for n in shape]
    x = jnp.asarray(fno_field.grid_points(axes))
    alphas = [alpha for n in range(5) for alpha in ad.multi_indices(2, n)]
    want = jax.jit(ad.derivatives(u, alphas))(x)
    for order in (2, 4):
        got = jax.jit(ad.derivatives(u.on_grid(axes, order), [al for al in alphas if sum(al) <= order]))(x)
        for alpha, value in got.items():
            scale = np.abs(np.asarray(want[alpha])).max()
            np.testing.assert_allclose(np.asarray(value), np.asarray(want[alpha]), rtol=0, atol=1e-11 * scale,
                                       err_msg=f"order {order}, {alpha}")
    points = x[::7]  # nested JAX on the field at some of the points
    trace = lambda f: (lambda p: jnp.trace(jax.hessian(f)(p), axis1=-2, axis2=-1))
    nested = np.asarray(jax.jit(jax.vmap(trace(trace(u))))(points))
    local = np.asarray(jax.jit(ad.biharmonic(u.on_grid(axes, 4)))(x))[::7]
    np.testing.assert_allclose(local, nested, rtol=1e-9, atol=1e-9 * np.abs(nested).max())


def test_on_a_grid_the_parameter_gradient_is_the_series_one():
    """Training differentiates the terms in the parameters: the energy-like loss ``mean((Δu)²)`` on a finer grid
    by the local polynomials has the gradient of the same loss by the series (float64, to rounding)."""
    params = model(layers=1)
    a = inputs((9, 8), batch=2)
    axes = [np.linspace(0, 1, 17), np.linspace(0, 1, 15)]
    x = jnp.asarray(fno_field.grid_points(axes))

    def loss(p, grid):
        u = fno_field.decode(p, a, padding=(2, 1))
        return jnp.mean(ad.laplacian(u.on_grid(axes, 2) if grid else u)(x) ** 2)

    grads = [jax.jit(jax.grad(loss), static_argnums=1)(params, grid) for grid in (False, True)]
    for want, got in zip(*(jax.tree_util.tree_leaves(g) for g in grads)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-9, atol=1e-12)


def test_a_field_plus_another_has_their_summed_values_and_partials_on_a_grid():
    """``u.plus(v)``: values and partials up to order 2 at a grid's points (:meth:`Field.on_grid`) and values
    anywhere are the two fields' summed; :func:`interpolant` alone is a :class:`Field` like a decoded one."""
    u = fno_field.decode(model(2, (3, 2)), inputs((9, 8), batch=1), padding=(2, 1))
    rng = np.random.default_rng(3)
    re, im = (jnp.asarray(rng.normal(size=(8, 5, 1, 1))) for _ in range(2))
    v = fno_field.interpolant(re, im, (8, 8), (1 / 8, 1 / 7))
    axes = [np.linspace(0, 1, 9), np.linspace(0, 1, 8)]
    x = jnp.asarray(fno_field.grid_points(axes))
    alphas = [alpha for n in range(3) for alpha in ad.multi_indices(2, n)]
    got = jax.jit(ad.derivatives(u.plus(v).on_grid(axes, 2), alphas))(x)
    each = [jax.jit(ad.derivatives(f.on_grid(axes, 2), alphas))(x) for f in (u, v)]
    for alpha in alphas:
        np.testing.assert_allclose(np.asarray(got[alpha]), np.asarray(each[0][alpha] + each[1][alpha]), rtol=1e-12,
                                   atol=1e-12)
    far = jnp.asarray(rng.uniform(size=(5, 2)))
    np.testing.assert_allclose(np.asarray(u.plus(v)(far)), np.asarray(u(far) + v(far)), rtol=1e-12)
