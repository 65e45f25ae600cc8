"""High-dimensional semilinear equations: the closed-form source against the engine's Laplacian of u*."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import autodiff as ad
from sciml.equations import semilinear
from sciml.equations.fields import Fields
from sciml.solvers.pinn.geometry import Ball


@pytest.mark.parametrize("solution", ["two_body", "three_body"])
@pytest.mark.parametrize("dim", [3, 6])
def test_laplacian_of_the_exact_solution(solution, dim):
    with jax.enable_x64(True):
        c = semilinear.coefficients(solution, dim, seed=3)
        assert c.shape == (dim - semilinear.SOLUTIONS[solution][0],)
        x = jnp.asarray(Ball(dim).interior(20, np.random.default_rng(0), "uniform"))
        u, lap = semilinear.exact(x, c, solution)
        u_fn = lambda y: semilinear.exact(y, c, solution)[0]
        np.testing.assert_allclose(lap, jax.jit(ad.laplacian(u_fn))(x), rtol=1e-10, atol=1e-10)
        sphere, _ = Ball(dim).boundary("sphere", 8, np.random.default_rng(1), "uniform")
        assert not np.any(semilinear.exact(jnp.asarray(sphere), c, solution)[0])  # exactly 0 on the unit sphere
        inside = jnp.asarray(0.999 * sphere)
        assert np.all(np.abs(semilinear.exact(inside, c, solution)[0]) > 0)


@pytest.mark.parametrize("form", sorted(semilinear.FORMS))
def test_exact_solution_has_zero_residual(form):
    with jax.enable_x64(True):
        dim = 5
        cfg = semilinear.SemilinearConfig(type="semilinear", form=form, solution="two_body", seed=1)
        eq = semilinear.Semilinear(cfg, Ball(dim))
        x = jnp.asarray(Ball(dim).interior(10, np.random.default_rng(2), "uniform"))
        u_fn = lambda y: eq.exact(y)[0][..., None] / eq.scale  # the network's field is u / U
        lap = ad.laplacian_op(dim)
        values = ad.derivatives(u_fn, [(0,) * dim, lap])(x)
        d = Fields(x, values, eq.fields, eq.coords)
        np.testing.assert_allclose(eq.interior(d)["pde"], 0.0, atol=1e-10)
        np.testing.assert_allclose(eq.boundary("sphere", d, x)["u"], 0.0, atol=1e-12)
        wrong = Fields(x, {k: v * 1.01 for k, v in values.items()}, eq.fields, eq.coords)
        assert np.abs(eq.interior(wrong)["pde"]).max() > 1e-3
        np.testing.assert_allclose(eq.reference(np.asarray(x))["u"], eq.derived(d)["u"], rtol=1e-12)
        assert eq.scale == pytest.approx(np.linalg.norm(eq.c)) and eq.scale > 1


def test_reference_is_float64_in_a_float32_run():
    """Uniform points of the ball lie within about 1/d of the sphere: ``1 - |x|²`` from a float32 sum is off by
    percents at d = 10⁴ and more, so the reference is computed in float64 whatever the run's precision."""
    dim = 20_000
    cfg = semilinear.SemilinearConfig(type="semilinear", form="poisson", solution="two_body", seed=0)
    eq = semilinear.Semilinear(cfg, Ball(dim))
    x = Ball(dim).interior(50, np.random.default_rng(3), "uniform")
    with jax.enable_x64(False):  # a float32 run
        got = eq.reference(x)["u"]
    phi = 1.0 - np.sum(x * x, -1)  # from a float64 sum: about 1e-12 relative
    s = got / phi
    with jax.enable_x64(True):
        s64 = np.asarray(semilinear.SOLUTIONS["two_body"][1](jnp.asarray(x), jnp.asarray(eq.c))[0])
    assert got.dtype == np.float64
    np.testing.assert_allclose(s, s64, rtol=1e-6)
    with jax.enable_x64(False):  # what a float32 evaluation gives: percents off
        f32 = np.asarray(semilinear.exact(jnp.asarray(x, jnp.float32), jnp.asarray(eq.c, jnp.float32), "two_body")[0])
    assert np.linalg.norm(f32 - got) / np.linalg.norm(got) > 1e-3
