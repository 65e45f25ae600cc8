"""Cylinder forces, pressure differences and oscillations against fields whose answers are known."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.equations.ns_forces import Forces, circle, oscillation, pressure_difference, surface_forces

CENTER, A = np.array([0.2, 0.2]), 0.05


def flow_of(fields):
    """``fields(x, y) -> (u, v, p)`` (jnp) as a flow callable with autodiff gradients."""
    def stacked(pt):
        return jnp.stack(fields(pt[0], pt[1]))

    def flow(pts):
        pts = jnp.asarray(pts)
        val, jac = jax.vmap(stacked)(pts), jax.vmap(jax.jacfwd(stacked))(pts)  # (N, 3), (N, 3, 2)
        return {"u": val[:, 0], "v": val[:, 1], "p": val[:, 2], "u_x": jac[:, 0, 0], "u_y": jac[:, 0, 1],
                "v_x": jac[:, 1, 0], "v_y": jac[:, 1, 1]}

    return flow


def potential(U, gamma, rho=1.0, p0=0.3):
    """Potential flow past the cylinder with circulation: w = U (z + a^2/z) + i gamma/(2 pi) log z."""
    def fields(x, y):
        z = (x - CENTER[0]) + 1j * (y - CENTER[1])
        dw = U * (1 - A**2 / z**2) + 1j * gamma / (2 * jnp.pi * z)
        u, v = jnp.real(dw), -jnp.imag(dw)
        return u, v, p0 - rho / 2 * (u**2 + v**2)  # Bernoulli
    return fields


def test_circle_quadrature_is_the_trapezoid_rule():
    pts, normals, w = circle(CENTER, A, 64)
    np.testing.assert_allclose(np.linalg.norm(pts - CENTER, axis=1), A, rtol=1e-14)
    np.testing.assert_allclose(pts, CENTER + A * normals, rtol=1e-14)  # normals point out of the cylinder
    assert w * len(pts) == pytest.approx(2 * np.pi * A)


@pytest.mark.parametrize("U,gamma", [(0.2, 0.0), (0.3, 0.05), (1.5, -0.4)])
def test_potential_flow_has_no_drag_and_kutta_joukowski_lift(U, gamma):
    rho = 1.3
    flow = flow_of(potential(U, gamma, rho))
    inviscid = surface_forces(flow, CENTER, A, nu=0.0, rho=rho, n=64)
    assert inviscid.drag == pytest.approx(0.0, abs=1e-12)
    assert inviscid.lift == pytest.approx(rho * U * gamma, rel=1e-12, abs=1e-12)
    # the viscous stress of a potential flow exerts no net force: the full-stress integral keeps the answer...
    viscous = surface_forces(flow, CENTER, A, nu=0.1, rho=rho, n=64)
    assert viscous.drag_stress == pytest.approx(0.0, abs=1e-12)
    assert viscous.lift_stress == pytest.approx(rho * U * gamma, rel=1e-12, abs=1e-12)
    # ... while the benchmark's formula, which assumes no slip, does not (the flow slips on the wall)
    if U:
        assert abs(viscous.drag - viscous.drag_stress) > 1e-3 * rho * U**2 * A


def test_no_slip_field_with_a_known_viscous_stress():
    """psi = (r^2 - a^2)^2 (y - y_c), p = P x' + Q y': no slip, divergence free; by hand (polar coordinates)
    d u_t / d n = psi_rr = 8 a^3 sin(theta), so F_D = 8 pi rho nu a^4 - P pi a^2, F_L = -Q pi a^2."""
    P, Q, nu, rho = 2e-3, -1e-3, 0.02, 1.1

    def fields(x, y):
        psi = lambda x, y: ((x - CENTER[0]) ** 2 + (y - CENTER[1]) ** 2 - A**2) ** 2 * (y - CENTER[1])
        u, v = jax.grad(psi, 1)(x, y), -jax.grad(psi, 0)(x, y)
        return u, v, P * (x - CENTER[0]) + Q * (y - CENTER[1]) + 5.0

    f = surface_forces(flow_of(fields), CENTER, A, nu=nu, rho=rho, n=32)
    drag, lift = 8 * np.pi * rho * nu * A**4 - P * np.pi * A**2, -Q * np.pi * A**2
    for d, l in ((f.drag, f.lift), (f.drag_stress, f.lift_stress)):
        assert d == pytest.approx(drag, rel=1e-12)
        assert l == pytest.approx(lift, rel=1e-12)
    assert 8 * np.pi * rho * nu * A**4 > 0.1 * abs(drag)  # the viscous part is not lost in the sum


def test_coefficients_scale_forces_by_the_dynamic_pressure():
    c = Forces(0.5, -0.25, 1.0, 2.0).coefficients(rho=2.0, u_mean=0.5, diameter=0.1)
    assert c == pytest.approx({"c_D": 20.0, "c_L": -10.0, "c_D_stress": 40.0, "c_L_stress": 80.0})


def test_pressure_difference_between_two_points():
    flow = flow_of(lambda x, y: (x * 0, y * 0, 3 * x**2 - y))
    assert pressure_difference(flow, (0.15, 0.2), (0.25, 0.2)) == pytest.approx(3 * (0.15**2 - 0.25**2))


def test_strouhal_number_and_maxima_of_a_known_sine():
    f, D, U = 3.1, 0.1, 1.0
    t = np.sort(np.random.default_rng(0).uniform(0.0, 3.0, 3000))
    c_l = 1.0 * np.sin(2 * np.pi * f * t + 0.4) + 0.02
    c_d = 3.2 + 0.03 * np.cos(4 * np.pi * f * t)
    out = oscillation(t, c_l, c_d, D, U, periods=3)
    assert out["period"] == pytest.approx(1 / f, rel=1e-5)
    assert out["St"] == pytest.approx(f * D / U, rel=1e-5)
    assert out["c_L_max"] == pytest.approx(1.02, abs=1e-6)
    assert out["c_D_max"] == pytest.approx(3.23, abs=1e-6)


def test_oscillation_needs_the_periods_it_is_asked_for():
    t = np.linspace(0.0, 1.0, 200)
    with pytest.raises(ValueError, match="2 periods need 3"):
        oscillation(t, np.sin(2 * np.pi * 1.5 * t), np.ones_like(t), 0.1, 1.0, periods=2)
