"""The damaged plate: its residual and shear forces with a varying rigidity against nested ``jax.jacfwd`` of the
divergence form, the finite differences of a varying rigidity (Navier's series at a constant one, second order on
a manufactured solution), the zone's summary of a field."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.config import build
from sciml.equations import plate_damage
from sciml.equations.fields import collect, evaluator
from sciml.equations.plate import KirchhoffPlate, PlateConfig
from sciml.equations.plate_reference import navier_plate
from sciml.equations.plate_reference.variable import variable_plate, variable_solve
from sciml.nn import mlp
from sciml.solvers.pinn.geometry import Rectangle

DAMAGE = {"x": 1.3, "y": 1.9, "radius": 0.5, "drop": 0.3, "width": 0.2}
SECTION = {"type": "kirchhoff_plate", "D": 2.0, "nu": 0.25, "q0": 3.0,
           "load": "sin(pi * x / 2) * sin(pi * y / 3)", "damage": DAMAGE}
BOUNDS = ((0.0, 2.0), (0.0, 3.0))


def plate(section=None) -> KirchhoffPlate:
    return KirchhoffPlate(build(PlateConfig, section or SECTION), Rectangle(*BOUNDS))


def _engine(eq, w, method, xh):
    """``method(d)`` by the Taylor engine: the network ``w`` and the coefficient field ``s`` differentiated
    together, as the PINN's problem does."""
    s = eq.coefficients()["s"]
    f = lambda x: jnp.stack([w(x), s(x)], -1)
    names = ("w", "s")
    requests = collect(method, names, eq.coords, dtype=jnp.float64)
    return jax.jit(lambda x: method(evaluator(f, requests, names, eq.coords)(x)))(xh)  # one program, as in training


def _nested(eq, w):
    """Per point: the residual and the shear forces written in divergence form, by nested ``jax.jacfwd``."""
    nu, s = eq.nu, lambda x: eq.coefficients()["s"](x[None])[0]
    hess = lambda f: jax.hessian(f)
    wh = lambda x: w(x[None])[0]
    kx = lambda x: s(x) * (hess(wh)(x)[0, 0] + nu * hess(wh)(x)[1, 1])
    ky = lambda x: s(x) * (hess(wh)(x)[1, 1] + nu * hess(wh)(x)[0, 0])
    kxy = lambda x: s(x) * (1 - nu) * hess(wh)(x)[0, 1]

    def pde(x):
        div = hess(kx)(x)[0, 0] + 2 * hess(kxy)(x)[0, 1] + hess(ky)(x)[1, 1]
        return div / eq.c - eq.load_hat(x[None])[0]

    m = eq.D * eq.W / eq.L**2
    qx = lambda x: -m / eq.L * (jax.grad(kx)(x)[0] + jax.grad(kxy)(x)[1])
    qy = lambda x: -m / eq.L * (jax.grad(kxy)(x)[0] + jax.grad(ky)(x)[1])
    return (jax.jit(jax.vmap(g)) for g in (pde, qx, qy))  # one program each (op by op: hundreds of small ones)


def test_the_residual_and_shear_forces_match_nested_autodiff_of_the_divergence_form():
    with jax.enable_x64(True):
        eq = plate()
        params = mlp.init(jax.random.PRNGKey(1), [2, 12, 12, 1], jnp.float64)
        w = lambda x: mlp.apply(params, x)[..., 0]
        xh = jax.random.uniform(jax.random.PRNGKey(2), (40, 2), jnp.float64, -0.6, 0.6)
        pde, qx, qy = _nested(eq, w)
        got = _engine(eq, w, eq.interior, xh)["pde"]
        np.testing.assert_allclose(got, pde(xh), rtol=1e-10, atol=1e-12 * float(jnp.max(jnp.abs(pde(xh)))))
        derived = _engine(eq, w, eq.derived, xh)
        for name, ref in (("qx", qx(xh)), ("qy", qy(xh))):
            np.testing.assert_allclose(derived[name], ref, rtol=1e-10, atol=1e-12 * float(jnp.max(jnp.abs(ref))))
        np.testing.assert_allclose(derived["D"], 2.0 * eq.coefficients()["s"](xh), rtol=1e-14)


def test_an_undamaged_plate_has_no_coefficient_field_and_the_damage_its_full_drop_at_the_centre():
    section = {k: v for k, v in SECTION.items() if k != "damage"}
    assert plate(section).coefficients() == {} and "D" not in plate(section).derived_names
    eq = plate()
    centre = jnp.asarray(eq.to_nondim(np.array([[1.3, 1.9], [0.1, 0.1]])))
    s = np.asarray(eq.coefficients()["s"](centre))
    assert s[0] == pytest.approx(0.7, rel=1e-14) and s[1] == pytest.approx(1.0, abs=1e-6)


# --- the finite differences of a varying rigidity -----------------------------------------------
PX, PY = np.array([0.3, 1.0, 1.4, 1.9]), np.array([0.4, 1.5, 2.1, 2.8])


@pytest.mark.parametrize("load", [1.0, lambda x, y: np.sin(np.pi * x / 2) * np.sin(np.pi * y / 3) + x * y])
def test_at_a_constant_rigidity_it_is_navier(load):
    got = variable_plate(BOUNDS, lambda x, y: 2.0 + 0 * x, 0.25, load, PX, PY)
    ref = navier_plate(BOUNDS, 2.0, 0.25, load, PX, PY)
    for k, tol in (("w", 1e-6), ("mx", 1e-5), ("my", 1e-5), ("mxy", 1e-5)):
        scale = np.max(np.abs(ref[k]))
        np.testing.assert_allclose(got[k], ref[k], atol=tol * scale, err_msg=k)


def _manufactured():
    """A deflection with w = 0 and w_nn = 0 on every edge, a damaged rigidity, and the load they balance
    (nested jax.jacfwd of the divergence form, float64)."""
    z, nu = plate_damage.DamageConfig(**DAMAGE), 0.25
    D = lambda x, y, xp=np: 2.0 * plate_damage.factor(z, x, y, xp)

    def w(p):
        x, y = p[0], p[1]
        return jnp.sin(jnp.pi * x / 2) * jnp.sin(jnp.pi * y / 3) + 0.4 * jnp.sin(jnp.pi * x) * jnp.sin(jnp.pi * y)

    def q(p):
        h = jax.hessian(w)
        dd = lambda p: D(p[0], p[1], jnp)
        mx = lambda p: -dd(p) * (h(p)[0, 0] + nu * h(p)[1, 1])
        my = lambda p: -dd(p) * (h(p)[1, 1] + nu * h(p)[0, 0])
        mxy = lambda p: -dd(p) * (1 - nu) * h(p)[0, 1]
        return -(jax.hessian(mx)(p)[0, 0] + 2 * jax.hessian(mxy)(p)[0, 1] + jax.hessian(my)(p)[1, 1])

    def load(x, y):
        pts = jnp.stack([jnp.ravel(jnp.asarray(x)), jnp.ravel(jnp.asarray(y))], -1)
        return np.asarray(jax.jit(jax.vmap(q))(pts)).reshape(np.shape(x))

    return D, nu, load, jax.vmap(w)


def test_the_varying_rigidity_converges_at_second_order_and_richardson_beyond():
    with jax.enable_x64(True):
        D, nu, load, w = _manufactured()
        errors = []
        for n in (24, 48, 96):
            sol = variable_solve(BOUNDS, D, nu, load, n=n, richardson=False, uniform=False)
            X, Y = np.meshgrid(sol.x, sol.y, indexing="ij")
            exact = np.asarray(w(jnp.stack([X.ravel(), Y.ravel()], -1))).reshape(X.shape)
            errors.append(np.max(np.abs(sol.fields["w"] - exact)))
        orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
        assert orders == pytest.approx([2.0, 2.0], abs=0.15)
        sol = variable_solve(BOUNDS, D, nu, load, n=48, uniform=False)
        X, Y = np.meshgrid(sol.x, sol.y, indexing="ij")
        exact = np.asarray(w(jnp.stack([X.ravel(), Y.ravel()], -1))).reshape(X.shape)
        assert np.max(np.abs(sol.fields["w"] - exact)) < errors[-1] / 4  # extrapolated 48 beats plain 96


def test_the_reference_of_a_damaged_plate_gives_its_rigidity_and_is_softer_there():
    eq, undamaged = plate(), plate({k: v for k, v in SECTION.items() if k != "damage"})
    pts = np.array([[1.3, 1.9], [0.5, 0.5]])
    ref, base = eq.reference(pts), undamaged.reference(pts)
    assert ref["D"] == pytest.approx([1.4, 2.0], rel=1e-5)
    assert ref["w"][0] > base["w"][0] * 1.05  # deflects more over the zone


# --- the zone of a field ----------------------------------------------------------------------
def test_the_zone_of_the_true_field_is_the_truth_and_a_uniform_level_does_not_matter():
    z = plate_damage.DamageConfig(**DAMAGE)
    X, Y = np.meshgrid(np.linspace(0, 2, 101), np.linspace(0, 3, 151), indexing="ij")
    pts = np.stack([X.ravel(), Y.ravel()], -1)
    for level in (2.0, 2.6):
        found = plate_damage.zone(pts, level * plate_damage.factor(z, pts[:, 0], pts[:, 1]))
        assert found["level"] == pytest.approx(level, rel=1e-3)  # the median: the rim's tanh tail far out
        assert found["centre"] == pytest.approx([1.3, 1.9], abs=1e-9)
        assert found["drop"] == pytest.approx(0.3, abs=1e-3)
    scores = plate_damage.scores({"centre": [1.4, 1.9], "drop": 0.27}, z, (2.0, 3.0))
    assert scores == pytest.approx({"damage_centre_error": 0.05, "damage_drop_error": 3.0})
