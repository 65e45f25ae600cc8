"""A cavity's lid-corner flows (``equation.lid_corners``): Taylor's Stokes corner flow solves Stokes with its
conditions, checked by nested ``jax.jacfwd``; the cut-off pair keeps no slip on the walls; added to a network,
the Taylor engine's residuals equal nested autodiff's."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.config import build
from sciml.equations import create, ns_corners
from sciml.equations.navier_stokes import NavierStokesConfig
from sciml.errors import Invalid
from sciml.equations.fields import collect, evaluator
from sciml.solvers.pinn.geometry import Rectangle

NU, RHO, U = 0.01, 1.3, 2.0
BOX = ((0.0, 2.0), (0.0, 1.0))


def flow(z):
    psi, p = ns_corners.lid_corners(z[0], z[1], BOX, U, NU, RHO, jnp)
    return jnp.stack([psi, p])


def velocity(z):
    g = jax.jacfwd(lambda q: flow(q)[0])(z)
    return jnp.stack([g[1], -g[0]])  # u = psi_y, v = -psi_x


def stokes_residual(z):
    """grad p - rho nu Laplacian(u) by nested jacfwd."""
    lap = jnp.trace(jax.jacfwd(jax.jacfwd(velocity))(z), axis1=1, axis2=2)
    return jax.jacfwd(lambda q: flow(q)[1])(z) - RHO * NU * lap


@pytest.fixture
def uncut(monkeypatch):
    """Taylor's flows as they are: no cut-off."""
    monkeypatch.setattr(ns_corners, "CUTOFF", 1e6)


def test_corner_flow_solves_stokes_with_lid_and_no_slip(uncut):
    z = jnp.asarray(np.random.default_rng(0).uniform([0.05, 0.2], [1.95, 0.95], (6, 2)))
    # jitted (one program each; op by op, nested jacfwd compiles hundreds of small ones), traced here: the
    # fixture's cut-off is read when they are traced
    residual, slope = jax.jit(lambda q: stokes_residual(q)), jax.jit(lambda q: jax.jacfwd(lambda r: flow(r)[1])(q))
    for zi in z:  # each corner flow (and so their sum) solves Stokes exactly
        res, scale = residual(zi), slope(zi)
        assert float(jnp.abs(res).max()) < 1e-12 * max(1.0, float(jnp.abs(scale).max()))
    left = lambda z: ns_corners.corner_flow(z[0], 1.0 - z[1], U, NU, RHO, jnp)[0]  # the top-left one alone
    for s in (0.1, 0.5, 0.9):
        lid, wall = jnp.asarray([s, 1.0]), jnp.asarray([0.0, s])
        g_lid, g_wall = jax.grad(left)(lid), jax.grad(left)(wall)
        assert abs(float(left(lid))) < 1e-14 and abs(float(left(wall))) < 1e-14
        np.testing.assert_allclose([g_lid[1], -g_lid[0]], [U, 0.0], atol=1e-12)  # the lid's speed
        np.testing.assert_allclose(g_wall, 0.0, atol=1e-12)  # no slip


def test_cut_off_pair_keeps_no_slip_and_moves_with_the_lid():
    R = ns_corners.CUTOFF * 2.0
    for z in [jnp.asarray([x, s]) for s in (0.02, 0.2, 0.5, 0.8) for x in (0.0, 2.0)]:
        np.testing.assert_allclose(velocity(z), 0.0, atol=1e-6)  # no slip (the far corner's flow: cut off)
    for x in (0.01, 0.1, 0.7, 1.5):  # on the lid: U chi_L + U chi_R
        chi = sum(np.exp(-d**2 / R**2) for d in (x, 2.0 - x))
        np.testing.assert_allclose(velocity(jnp.asarray([x, 1.0])), [U * chi, 0.0], rtol=1e-10, atol=1e-14)
    # near a corner the pair is still (almost) Stokes: the cut-off's terms are small against the singular ones
    near = jnp.asarray([0.02, 0.985])
    assert float(jnp.abs(stokes_residual(near)).max()) < 1e-2 * float(jnp.abs(jax.jacfwd(lambda q: flow(q)[1])(near)).max())
    for corner in (jnp.asarray([0.0, 1.0]), jnp.asarray([2.0, 1.0])):  # no value there: 0 (and the other
        # corner's cut-off flow), and finite slopes
        assert np.abs(np.asarray(flow(corner))).max() < 1e-6 and np.isfinite(np.asarray(jax.jacfwd(flow)(corner))).all()


def cavity(**extra):
    dom = Rectangle((0, 2), (0, 1), parts={"lid": ["top"], "walls": ["left", "right", "bottom"]})
    raw = {"type": "navier_stokes", "Re": 250, "rho": RHO, "formulation": "stream_function", "lid_corners": True,
           "conditions": {"lid": {"u": U, "v": 0}, "walls": {"u": 0, "v": 0}}, **extra}
    return create(build(NavierStokesConfig, raw), dom), dom


@pytest.mark.parametrize("mode", ["taylor", "nested"])
def test_residuals_through_the_particular_part_match_nested_autodiff(mode):
    """The PINN's field: a small smooth 'network' plus the corner flows; its momentum residuals by the Taylor
    engine (and by nested jvp) against the same residual written with nested jax.jacfwd."""
    eq, dom = cavity()
    net = lambda xh: jnp.stack([0.3 * jnp.sin(xh[..., 0]) * xh[..., 1]**2, jnp.cos(xh[..., 0] + xh[..., 1])], -1)
    full = lambda xh: net(xh) + eq.particular(xh)
    x = jnp.asarray(eq.to_nondim(dom.interior(16, np.random.default_rng(1), "uniform")))
    res = eq.interior(evaluator(full, collect(eq.interior, eq.fields, eq.coords, aliases=eq.aliases), eq.fields,
                                eq.coords, eq.aliases, mode=mode)(x))

    def by_hand(xh):  # nondimensional momentum_x: u u_x + v u_y + p_x - (u_xx + u_yy) / Re_hat
        f = lambda q: full(q)
        uv = lambda q: jnp.stack([jax.jacfwd(f)(q)[0, 1], -jax.jacfwd(f)(q)[0, 0]])
        J, H = jax.jacfwd(uv)(xh), jax.jacfwd(jax.jacfwd(uv))(xh)
        u, v = uv(xh)
        return u * J[0, 0] + v * J[0, 1] + jax.jacfwd(f)(xh)[1, 0] - (H[0, 0, 0] + H[0, 1, 1]) / eq.Re_hat

    np.testing.assert_allclose(res["momentum_x"], jax.vmap(by_hand)(x), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("extra,why", [
    ({"formulation": "velocity_pressure"}, "stream_function"),
    ({"conditions": {"lid": {"u": "x", "v": 0}, "walls": {"u": 0, "v": 0}}}, "constant u"),
    ({"conditions": {"lid": {"v": 0}, "walls": {"u": 0, "v": 0}}}, "constant u"),
])
def test_lid_corners_refused_where_they_do_not_apply(extra, why):
    with pytest.raises(Invalid) as e:
        cavity(**extra)
    assert e.value.key == "lid_corners" and why in e.value.message
