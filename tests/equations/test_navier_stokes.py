"""Navier–Stokes: exact solutions have zero residuals, conditions and scales, stream-function aliases."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.config import build
from sciml.equations.fields import collect, evaluator
from sciml.equations import create
from sciml.equations.navier_stokes import NavierStokesConfig
from sciml.equations.ns_exact import beltrami, kovasznay, taylor_green
from sciml.errors import Invalid
from sciml.solvers.pinn.geometry import Box, Rectangle, SpaceTime


def make(domain, **cfg):
    raw = {"type": "navier_stokes", **cfg}
    if "conditions" not in raw:
        raw["conditions"] = {p: {} for p in domain.parts}
    return create(build(NavierStokesConfig, raw), domain)


def evaluate(eq, fn, net, x, mode="nested"):
    req = collect(fn, eq.fields, eq.coords, aliases=eq.aliases)
    # jitted, as in training: one program (op by op, the derivatives compile hundreds of small ones)
    return jax.jit(lambda x: fn(evaluator(net, req, eq.fields, eq.coords, eq.aliases, mode=mode)(x)))(x)


def exact_net(eq, solution):
    """The exact solution as a network of nondimensional inputs and outputs."""
    names = eq.velocity + ("p",)

    def net(xh):
        s = solution(jnp, eq.to_physical(xh), eq.nu, eq.rho)
        return jnp.stack([s[k] / eq.field_scale[k] for k in names], -1)

    return net


def points(domain, n=64, seed=0):
    return domain.interior(n, np.random.default_rng(seed), "uniform")


CASES = [
    ("kovasznay", kovasznay, lambda: Rectangle((-0.5, 1.0), (-0.5, 1.5)), {"Re": 40}),
    ("taylor_green", taylor_green, lambda: SpaceTime(Rectangle((0, 2 * np.pi), (0, 2 * np.pi)), (0, 1)), {"nu": 0.01}),
    ("beltrami", beltrami, lambda: SpaceTime(Box((-1, 1), (-1, 1), (-1, 1)), (0, 1)), {"Re": 1}),
]


@pytest.mark.parametrize("mode", ["taylor", "nested"])
@pytest.mark.parametrize("name,solution,domain,params", CASES, ids=[c[0] for c in CASES])
def test_exact_solutions_satisfy_the_equations(name, solution, domain, params, mode):
    dom = domain()
    eq = make(dom, solution=name, rho=1.3, **params)
    x = jnp.asarray(eq.to_nondim(points(dom)))
    res = evaluate(eq, eq.interior, exact_net(eq, solution), x, mode)
    assert set(res) == {f"momentum_{c}" for c in eq.space} | {"continuity"}
    for r in res.values():
        np.testing.assert_allclose(r, 0.0, atol=1e-8)


def test_kovasznay_values_and_scales():
    dom = Rectangle((-0.5, 1.0), (-0.5, 1.5))
    eq = make(dom, Re=40, solution="kovasznay")
    assert eq.nu == pytest.approx(1 / 40) and eq.L == pytest.approx(1.0) and eq.Re_hat == pytest.approx(40)
    s = kovasznay(np, np.array([[0.0, 0.0]]), 1 / 40)
    lam = 20 - np.sqrt(400 + 4 * np.pi**2)
    assert s["u"][0] == pytest.approx(0.0) and s["p"][0] == pytest.approx(0.0)
    assert kovasznay(np, np.array([[1.0, 0.25]]), 1 / 40)["v"][0] == pytest.approx(lam / (2 * np.pi) * np.exp(lam))


def test_physical_scales_do_not_change_the_nondimensional_problem():
    """A channel 1000x larger with a 1000x more viscous fluid has the same residual functions."""
    small = make(Rectangle((0, 2), (0, 1)), Re=50)
    big = make(Rectangle((0, 2000), (0, 1000)), nu=1000 * 2 / 50 / 2, velocity=1.0)
    assert big.Re_hat == pytest.approx(small.Re_hat)
    net = lambda xh: jnp.tanh(xh @ jnp.array([[0.3, -0.2, 0.5], [0.7, 0.1, -0.4]]) + 0.1)
    x = jnp.asarray([[0.1, 0.2], [-0.5, 0.9]])
    a, b = evaluate(small, small.interior, net, x), evaluate(big, big.interior, net, x)
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-12)


@pytest.mark.parametrize("mode", ["taylor", "nested"])
def test_stream_function_velocity_and_exact_continuity(mode):
    dom = Rectangle((0, 1), (0, 1))
    eq = make(dom, Re=100, formulation="stream_function")
    assert eq.fields == ("psi", "p")
    psi = lambda x, y: jnp.sin(x) * jnp.cos(2 * y) + x**3 * y
    net = lambda xh: jnp.stack([psi(xh[..., 0], xh[..., 1]), xh[..., 0] * 0], -1)
    x = jnp.asarray(points(dom, 8))
    res = evaluate(eq, eq.interior, net, x, mode)
    assert set(res) == {"momentum_x", "momentum_y"}  # continuity holds by construction
    d = evaluate(eq, lambda d: {"u": d["u"], "v": d["v"], "div": d["u_x"] + d["v_y"]}, net, x, mode)
    xx, yy = x[:, 0], x[:, 1]
    np.testing.assert_allclose(d["u"], -2 * jnp.sin(xx) * jnp.sin(2 * yy) + xx**3, rtol=1e-12)  # psi_y
    np.testing.assert_allclose(d["v"], -(jnp.cos(xx) * jnp.cos(2 * yy) + 3 * xx**2 * yy), rtol=1e-12)
    np.testing.assert_allclose(d["div"], 0.0, atol=1e-12)
    # the momentum residual by hand: u u_x + v u_y + p_x - (u_xx + u_yy) / Re
    u_x = lambda f: jax.grad(lambda a, b: f(a, b), 0)
    U = lambda a, b: jax.grad(psi, 1)(a, b)
    V = lambda a, b: -jax.grad(psi, 0)(a, b)
    a, b = float(xx[0]), float(yy[0])
    lap = jax.grad(jax.grad(U, 0), 0)(a, b) + jax.grad(jax.grad(U, 1), 1)(a, b)
    by_hand = U(a, b) * u_x(U)(a, b) + V(a, b) * jax.grad(U, 1)(a, b) - lap / eq.Re_hat
    assert float(res["momentum_x"][0]) == pytest.approx(float(by_hand), rel=1e-10)


def test_conditions_dirichlet_neumann_exact_and_expressions():
    dom = Rectangle((0, 2), (-1, 1), parts={"walls": ["bottom", "top"]})
    eq = make(dom, Re=10, rho=2.0, velocity=3.0, conditions={
        "left": {"u": "1 - y**2", "v": 0}, "right": {"p": 5.0, "u_n": 0.5}, "walls": {}})
    net = lambda xh: jnp.stack([xh[..., 0] + xh[..., 1] ** 2, xh[..., 1], 2 * xh[..., 0]], -1)
    pts = np.array([[0.0, 0.5]])
    res = evaluate(eq, lambda d: eq.boundary("left", d, jnp.asarray([[-1.0, 0.0]])), net,
                   jnp.asarray(eq.to_nondim(pts)))
    xh = eq.to_nondim(pts)[0]
    assert float(res["u"][0]) == pytest.approx(xh[0] + xh[1] ** 2 - (1 - 0.25) / 3.0)
    assert float(res["v"][0]) == pytest.approx(xh[1])
    pts = np.array([[2.0, 0.0]])
    res = evaluate(eq, lambda d: eq.boundary("right", d, jnp.asarray([[1.0, 0.0]])), net,
                   jnp.asarray(eq.to_nondim(pts)))
    assert float(res["p"][0]) == pytest.approx(2 * 1.0 - 5.0 / (2.0 * 9.0))
    assert float(res["u_n"][0]) == pytest.approx(1.0 - 0.5 * eq.L / 3.0)  # du/dn = 0.5 in physical units
    assert evaluate(eq, lambda d: eq.boundary("walls", d, jnp.ones((1, 2))), net, jnp.zeros((1, 2))) == {}
    assert eq.gauge_free == ()


def test_exact_boundary_values_vanish_on_the_exact_solution():
    dom = SpaceTime(Rectangle((0, 2 * np.pi), (0, 2 * np.pi)), (0, 1))
    eq = make(dom, nu=0.01, solution="taylor_green",
              conditions={p: {"u": "exact", "v": "exact"} for p in dom.parts},
              gauge={"point": [1.0, 2.0], "p": "exact"})
    net = exact_net(eq, taylor_green)
    for part in dom.parts:
        pts, normals = dom.boundary(part, 16, np.random.default_rng(1), "sobol")
        res = evaluate(eq, lambda d: eq.boundary(part, d, jnp.asarray(normals)), net, jnp.asarray(eq.to_nondim(pts)))
        for r in res.values():
            np.testing.assert_allclose(r, 0.0, atol=1e-12)
    (gpts, fn), = eq.point_sets().values()
    assert gpts.shape == (17, 3) and np.all(gpts[:, :2] == [1.0, 2.0])
    np.testing.assert_allclose(evaluate(eq, fn, net, jnp.asarray(eq.to_nondim(gpts)))["p"], 0.0, atol=1e-12)


def test_derived_fields_and_reference():
    dom = Rectangle((-0.5, 1.0), (-0.5, 1.5))
    eq = make(dom, Re=40, solution="kovasznay", rho=1.0)
    pts = points(dom, 20)
    ref = eq.reference(pts)
    out = evaluate(eq, eq.derived, exact_net(eq, kovasznay), jnp.asarray(eq.to_nondim(pts)))
    for k in ("u", "v", "p", "speed", "vorticity"):
        np.testing.assert_allclose(out[k], ref[k], rtol=1e-10, atol=1e-12)
    assert eq.gauge_free == ("p",)


@pytest.mark.parametrize("name,solution,domain,params", CASES[:2], ids=[c[0] for c in CASES[:2]])
def test_physical_gradients_with_the_time_derivatives_of_an_unsteady_flow(name, solution, domain, params):
    """The forces' input (:mod:`sciml.equations.ns_forces`): first derivatives in physical units, by autodiff
    of the exact solution in physical coordinates."""
    dom = domain()
    eq = make(dom, solution=name, rho=1.3, velocity=0.7, **params)
    pts = points(dom, 16)
    out = evaluate(eq, eq.gradients, exact_net(eq, solution), jnp.asarray(eq.to_nondim(pts)))
    names = ("u", "v", "p")
    jac = jax.vmap(jax.jacfwd(lambda x: jnp.stack([solution(jnp, x, eq.nu, eq.rho)[k] for k in names])))(pts)
    expected = {f"{f}_{c}": jac[:, i, j] for i, f in enumerate(names) for j, c in enumerate(eq.coords)
                if not (f == "p" and c == "t")}
    assert set(out) == set(names) | set(expected)
    assert ("u_t" in out) == eq.unsteady
    for k, v in expected.items():
        np.testing.assert_allclose(out[k], v, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("raw,domain,key", [
    ({}, Rectangle((0, 1), (0, 1)), "Re"),
    ({"Re": 10, "nu": 0.1}, Rectangle((0, 1), (0, 1)), "Re"),
    ({"Re": 10, "conditions": {"lidd": {}}}, Rectangle((0, 1), (0, 1)), "conditions.lidd"),
    ({"Re": 10, "conditions": {"left": {"uu": 1}}}, Rectangle((0, 1), (0, 1)), "conditions.left.uu"),
    ({"Re": 10, "conditions": {"left": {"u": "exact"}}}, Rectangle((0, 1), (0, 1)), "conditions.left.u"),
    ({"Re": 10, "conditions": {"left": {"u": "sin(z)"}}}, Rectangle((0, 1), (0, 1)), "conditions.left.u"),
    ({"Re": 10, "solution": "beltrami"}, Rectangle((0, 1), (0, 1)), "solution"),
    ({"Re": 10, "formulation": "stream_function"}, Box((0, 1), (0, 1), (0, 1)), "formulation"),
    ({"Re": 10, "periodic": [["left", "bottom"]]}, Rectangle((0, 1), (0, 1)), "periodic[0]"),
    ({"Re": 10, "gauge": {"point": [2.0, 0.5]}}, Rectangle((0, 1), (0, 1)), "gauge.point"),
    ({"Re": 10, "checks": ["mass_flux"]}, Rectangle((0, 1), (0, 1)), "checks"),
])
def test_config_errors_name_the_key(raw, domain, key):
    with pytest.raises(Invalid) as e:
        full = {"conditions": {p: {} for p in domain.parts}, **raw}
        if "conditions" in raw:
            full["conditions"] = {**{p: {} for p in domain.parts}, **raw["conditions"]}
        create(build(NavierStokesConfig, {"type": "navier_stokes", **full}), domain)
    assert e.value.key == key, e.value


def test_missing_condition_is_an_error():
    with pytest.raises(Invalid) as e:
        make(Rectangle((0, 1), (0, 1)), Re=1, conditions={"left": {}})
    assert e.value.key == "conditions" and "right" in e.value.message
