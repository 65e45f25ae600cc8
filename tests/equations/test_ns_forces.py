"""Cylinder forces, pressure differences and oscillations against fields whose answers are known."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.equations.ns_forces import (
    Forces,
    circle,
    coefficient,
    cutoff,
    oscillation,
    pressure_difference,
    ring,
    surface_forces,
    volume_forces,
    whole_periods,
)

CENTER, A = np.array([0.2, 0.2]), 0.05


def flow_of(fields, t=None):
    """``fields(x, y) -> (u, v, p)`` (jnp) as a flow callable with autodiff gradients; with ``t``,
    ``fields(x, y, t)`` frozen at that time, with the velocity's time derivatives."""
    def stacked(pt):
        return jnp.stack(fields(*pt))

    # one program per point count (called op by op, each call ran hundreds of small programs)
    values = jax.jit(lambda pts: (jax.vmap(stacked)(pts), jax.vmap(jax.jacfwd(stacked))(pts)))

    def flow(pts):
        pts = jnp.asarray(pts)
        if t is not None:
            pts = jnp.column_stack([pts, jnp.full(len(pts), t)])
        val, jac = values(pts)  # (N, 3), (N, 3, 2 or 3)
        out = {"u": val[:, 0], "v": val[:, 1], "p": val[:, 2], "u_x": jac[:, 0, 0], "u_y": jac[:, 0, 1],
               "v_x": jac[:, 1, 0], "v_y": jac[:, 1, 1]}
        if t is not None:
            out.update({"u_t": jac[:, 0, 2], "v_t": jac[:, 1, 2]})
        return out

    return flow


def potential(U, gamma, rho=1.0, p0=0.3):
    """Potential flow past the cylinder with circulation: w = U (z + a^2/z) + i gamma/(2 pi) log z."""
    def fields(x, y):
        z = (x - CENTER[0]) + 1j * (y - CENTER[1])
        dw = U * (1 - A**2 / z**2) + 1j * gamma / (2 * jnp.pi * z)
        u, v = jnp.real(dw), -jnp.imag(dw)
        return u, v, p0 - rho / 2 * (u**2 + v**2)  # Bernoulli
    return fields


def accelerating(U, gamma, rho=1.0, p0=0.3):
    """The potential flow above with the stream speed ``U(t)``: unsteady Bernoulli,
    p = p0 - rho (d phi/dt + |u|^2 / 2), phi = Re(w); the force on the cylinder is
    (2 pi rho a^2 U'(t), rho U(t) gamma) (the pressure gradient that accelerates the stream plus the added mass)."""
    def fields(x, y, t):
        z = (x - CENTER[0]) + 1j * (y - CENTER[1])
        dw = U(t) * (1 - A**2 / z**2) + 1j * gamma / (2 * jnp.pi * z)
        u, v = jnp.real(dw), -jnp.imag(dw)
        return u, v, p0 - rho * (jax.grad(U)(t) * jnp.real(z + A**2 / z) + (u**2 + v**2) / 2)
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


def test_ring_quadrature_integrates_over_the_annulus():
    inner, outer = A, 0.15
    pts, r, w = ring(CENTER, inner, outer, 8, 32)
    np.testing.assert_allclose(np.linalg.norm(pts - CENTER, axis=1), r, rtol=1e-14)
    assert inner < r.min() and r.max() < outer
    assert w.sum() == pytest.approx(np.pi * (outer**2 - inner**2), rel=1e-13)
    assert np.sum(w * r**6) == pytest.approx(2 * np.pi * (outer**8 - inner**8) / 8, rel=1e-13)
    x = pts[:, 0] - CENTER[0]  # x^2 = r^2 cos^2: the angle's average 1/2
    assert np.sum(w * x**2) == pytest.approx(np.pi * (outer**4 - inner**4) / 4, rel=1e-13)


def test_cutoff_is_one_on_the_cylinder_and_flat_at_both_ends():
    phi, dphi = cutoff(np.array([0.05, 0.1, 0.15]), 0.05, 0.15)
    np.testing.assert_allclose(phi, [1.0, 0.5, 0.0], atol=1e-15)
    np.testing.assert_allclose(dphi, [0.0, -15.0, 0.0], atol=1e-12)  # -6 s (1 - s) / (R - a)


@pytest.mark.parametrize("outer", [0.08, 0.15, 0.19])
@pytest.mark.parametrize("U,gamma", [(0.2, 0.0), (0.3, 0.05), (1.5, -0.4)])
def test_volume_forces_of_potential_flow_whatever_the_ring(U, gamma, outer):
    """An exact solution of Navier-Stokes for any viscosity (its Laplacian vanishes): no drag, Kutta-Joukowski's
    lift, from the field away from the wall (the field slips: the benchmark's line integral has a drag)."""
    rho = 1.3
    drag, lift = volume_forces(flow_of(potential(U, gamma, rho)), CENTER, A, nu=0.1, rho=rho, outer=outer)
    assert drag == pytest.approx(0.0, abs=1e-12)
    assert lift == pytest.approx(rho * U * gamma, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("t", [0.0, 0.05, 0.1])
def test_volume_forces_of_an_accelerating_stream_need_the_time_derivative(t):
    rho, f, gamma = 1.3, 3.0, 0.05
    U = lambda t: 1.0 + 0.2 * jnp.sin(2 * jnp.pi * f * t)
    flow = flow_of(accelerating(U, gamma, rho), t)
    drag, lift = volume_forces(flow, CENTER, A, nu=0.01, rho=rho)
    assert drag == pytest.approx(2 * np.pi * rho * A**2 * float(jax.grad(U)(t)), rel=1e-10)
    assert lift == pytest.approx(rho * float(U(t)) * gamma, rel=1e-10)
    steady = lambda pts: {k: v for k, v in flow(pts).items() if not k.endswith("_t")}
    assert abs(volume_forces(steady, CENTER, A, nu=0.01, rho=rho)[0] - drag) > 0.01  # the u_t term counts


def test_volume_forces_of_a_field_that_is_no_solution_lack_its_residual():
    """The no-slip field of the test above, not a solution: the volume integral is the benchmark's line
    integral less the residual's moment, int R . (phi e_x) dx, R = rho (u . grad) u + grad p - rho nu lap u
    (by autodiff here, on a fine midpoint rule in the radius)."""
    P, nu, rho, outer = 2e-3, 0.02, 1.1, 0.15

    def fields(x, y):
        psi = lambda x, y: ((x - CENTER[0]) ** 2 + (y - CENTER[1]) ** 2 - A**2) ** 2 * (y - CENTER[1])
        return jax.grad(psi, 1)(x, y), -jax.grad(psi, 0)(x, y), P * (x - CENTER[0])

    u = lambda x, y: fields(x, y)[0]
    lap = lambda x, y: jax.grad(jax.grad(u, 0), 0)(x, y) + jax.grad(jax.grad(u, 1), 1)(x, y)
    residual = jax.vmap(lambda x, y: rho * (u(x, y) * jax.grad(u, 0)(x, y) + fields(x, y)[1] * jax.grad(u, 1)(x, y))
                        + P - rho * nu * lap(x, y))
    r = A + (outer - A) * (np.arange(2000) + 0.5) / 2000
    theta = 2 * np.pi * np.arange(64) / 64
    R, T = (a.ravel() for a in np.meshgrid(r, theta, indexing="ij"))
    values = np.asarray(residual(CENTER[0] + R * np.cos(T), CENTER[1] + R * np.sin(T)))
    moment = float(np.sum(values * cutoff(R, A, outer)[0] * R))
    moment *= (outer - A) / 2000 * 2 * np.pi / 64
    drag, lift = volume_forces(flow_of(fields), CENTER, A, nu=nu, rho=rho, outer=outer)
    assert abs(moment) > 0.1 * abs(drag)  # the residual's part is not lost in the sum
    assert drag == pytest.approx(8 * np.pi * rho * nu * A**4 - P * np.pi * A**2 - moment, rel=1e-6)
    assert lift == pytest.approx(0.0, abs=1e-12)


def test_coefficients_scale_forces_by_the_dynamic_pressure():
    c = Forces(0.5, -0.25, 1.0, 2.0).coefficients(rho=2.0, u_mean=0.5, diameter=0.1)
    assert c == pytest.approx({"c_D_surface": 20.0, "c_L_surface": -10.0, "c_D_stress": 40.0, "c_L_stress": 80.0})
    assert coefficient(0.5, rho=2.0, u_mean=0.5, diameter=0.1) == pytest.approx(20.0)


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


@pytest.mark.parametrize("length, most, whole", [(0.5, 2, 0), (0.9, 2, 1), (2.5, 2, 2), (2.5, 3, 3)])
def test_whole_periods_are_the_upward_crossings_less_one(length, most, whole):
    t = np.linspace(0.0, length, 500)
    assert whole_periods(t, np.sin(2 * np.pi * 1.5 * t - 0.3), most) == whole


def test_oscillation_needs_the_periods_it_is_asked_for():
    t = np.linspace(0.0, 1.0, 200)
    with pytest.raises(ValueError, match="2 periods need 3"):
        oscillation(t, np.sin(2 * np.pi * 1.5 * t), np.ones_like(t), 0.1, 1.0, periods=2)
