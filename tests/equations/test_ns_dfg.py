"""The DFG cylinder check on a field whose forces are known, and which set-up it compares with."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.config import build
from sciml.equations import create
from sciml.equations.navier_stokes import NavierStokesConfig
from sciml.equations.ns_dfg import DFG, dfg_cylinder
from sciml.errors import Invalid
from sciml.solvers.pinn.geometry import Rectangle, SpaceTime

from dfg_fields import channel_stream, oscillating_potential

C, A = (0.2, 0.2), 0.05
PARTS = {"inlet": ["left"], "outlet": ["right"], "walls": ["bottom", "top"]}


def channel(center=C, radius=A, name="cylinder"):
    return Rectangle((0.0, 2.2), (0.0, 0.41), holes=[(center, radius, name)], parts=PARTS)


def make(domain, **cfg):
    raw = {"type": "navier_stokes", "conditions": {p: {} for p in domain.parts}, "checks": ["dfg_cylinder"], **cfg}
    return create(build(NavierStokesConfig, raw), domain)


def values_and_jacobians(fields):
    """``pts -> (fields, their Jacobians)`` at every point, compiled (the checks call it hundreds of times)."""
    return jax.jit(lambda pts: (jax.vmap(fields)(pts), jax.vmap(jax.jacfwd(fields))(pts)))


def predict_of(center, P):
    """psi = (r^2 - a^2)^2 (y - y_c) and p = P (x - x_c): no slip on the cylinder, drag 8 pi rho nu a^4 - P pi a^2
    (tests/equations/test_ns_forces.py), lift 0; p(front) - p(back) = -2 P a."""
    def fields(pt):
        psi = lambda q: (jnp.sum((q - jnp.asarray(center)) ** 2) - A**2) ** 2 * (q[1] - center[1])
        g = jax.grad(psi)(pt)
        return jnp.stack([g[1], -g[0], P * (pt[0] - center[0])])

    values = values_and_jacobians(fields)

    def predict(pts, of=None):
        val, jac = values(jnp.asarray(pts))
        out = {"u": val[:, 0], "v": val[:, 1], "p": val[:, 2]}
        if of is not None:
            out.update({"u_x": jac[:, 0, 0], "u_y": jac[:, 0, 1], "v_x": jac[:, 1, 0], "v_y": jac[:, 1, 1],
                        "p_x": jac[:, 2, 0], "p_y": jac[:, 2, 1]})
        else:
            out["vorticity"] = jac[:, 1, 0] - jac[:, 0, 1]
        return {k: np.asarray(v) for k, v in out.items()}

    return predict


def predict_potential(U, gamma, rho):
    """Potential flow past the cylinder with circulation (tests/equations/test_ns_forces.py): an exact solution
    of Navier-Stokes, drag 0, lift rho U gamma."""
    def fields(pt):
        z = (pt[0] - C[0]) + 1j * (pt[1] - C[1])
        dw = U * (1 - A**2 / z**2) + 1j * gamma / (2 * jnp.pi * z)
        u, v = jnp.real(dw), -jnp.imag(dw)
        return jnp.stack([u, v, 0.3 - rho / 2 * (u**2 + v**2)])

    values = values_and_jacobians(fields)

    def predict(pts, of=None):
        val, jac = values(jnp.asarray(pts))
        out = {"u": val[:, 0], "v": val[:, 1], "p": val[:, 2], "vorticity": jac[:, 1, 0] - jac[:, 0, 1]}
        if of is not None:
            out.update({"u_x": jac[:, 0, 0], "u_y": jac[:, 0, 1], "v_x": jac[:, 1, 0], "v_y": jac[:, 1, 1]})
        return {k: np.asarray(v) for k, v in out.items()}

    return predict


def test_dfg_2d1_quantities_and_errors_against_the_references():
    eq = make(channel(), Re=20, velocity=0.2, length=0.1)
    P = -2.0
    check = dfg_cylinder(eq, predict_of(C, P))
    m = check.metrics
    k = 2 / (eq.rho * 0.2**2 * 0.1)
    drag = 8 * np.pi * eq.rho * 1e-3 * A**4 - P * np.pi * A**2
    assert eq.nu == pytest.approx(1e-3)
    assert m["c_D_surface"] == pytest.approx(k * drag, rel=1e-10)
    assert m["c_D_stress"] == pytest.approx(k * drag, rel=1e-10)
    assert m["c_L_surface"] == pytest.approx(0.0, abs=1e-10) and m["c_L_stress"] == pytest.approx(0.0, abs=1e-10)
    assert abs(m["c_D"] - m["c_D_surface"]) > 0.01  # not a solution: the volume integral lacks its residual
    assert m["delta_p"] == pytest.approx(-2 * P * A, rel=1e-12)
    assert m["cylinder_slip"] == pytest.approx(0.0, abs=1e-12)
    refs = DFG["2D-1"].references
    for q in ("c_D", "c_L", "delta_p"):
        assert m[f"{q}_rel_error"] == pytest.approx(abs(m[q] - refs[q]) / refs[q], rel=1e-12)
    assert "DFG 2D-1" in check.notes[0]
    assert set(check.maps) == {"cylinder_p", "cylinder_vorticity"}
    near = check.maps["cylinder_p"]
    inside = np.isfinite(near["values"])
    r = np.hypot(near["X"] - C[0], near["Y"] - C[1])
    assert not inside[r < A - 1e-9].any() and inside[r > A + 1e-9].all()


def test_dfg_2d1_forces_by_the_volume_integral_away_from_the_wall():
    """A field that slips (potential flow), exact: c_D 0 and Kutta-Joukowski's c_L by the volume integral over
    the ring to 3 a (the channel's walls are 4 a away), where the line integral finds a drag."""
    eq = make(channel(), Re=20, velocity=0.2, length=0.1)
    check = dfg_cylinder(eq, predict_potential(0.3, 0.02, eq.rho))
    m, k = check.metrics, 2 / (eq.rho * 0.2**2 * 0.1)
    assert m["c_D"] == pytest.approx(0.0, abs=1e-10) and m["c_L"] == pytest.approx(k * eq.rho * 0.3 * 0.02, rel=1e-10)
    assert abs(m["c_D_surface"]) > 0.1
    assert m["c_D_rel_error"] == pytest.approx(1.0, rel=1e-9) and len(check.notes) == 1


def test_dfg_forces_by_the_surface_formula_where_the_ring_leaves_the_fluid():
    dom = Rectangle((0.0, 2.2), (0.0, 0.41), holes=[(C, A, "cylinder"), ((0.32, 0.2), 0.02, "probe")],
                    parts={**PARTS, "probe": ["probe"]})
    eq = make(dom, Re=20, velocity=0.2, length=0.1)
    check = dfg_cylinder(eq, predict_potential(0.3, 0.02, eq.rho))
    m = check.metrics
    assert (m["c_D"], m["c_L"]) == (m["c_D_surface"], m["c_L_surface"]) and abs(m["c_D"]) > 0.1
    assert "leaves the fluid" in check.notes[0]


@pytest.mark.parametrize("domain,cfg", [
    (lambda: channel(), {"Re": 30, "velocity": 0.3, "length": 0.1}),  # another Reynolds number
    (lambda: channel(center=(0.2, 0.205)), {"Re": 20, "velocity": 0.2, "length": 0.1}),  # the symmetric channel
])
def test_other_set_ups_report_the_quantities_without_a_comparison(domain, cfg):
    dom = domain()
    eq = make(dom, **cfg)
    check = dfg_cylinder(eq, predict_of(dom.sphere("cylinder")[0], 1.0))
    assert {"c_D", "c_L", "delta_p", "c_D_stress"} <= set(check.metrics)
    assert not any(k.endswith("_rel_error") for k in check.metrics)
    assert "no comparison" in check.notes[0]


def test_dfg_2d2_strouhal_number_and_maxima_of_an_oscillating_field():
    """Potential flow with circulation gamma in a stream of speed U(t) = 1 + e sin(2 pi f t) (unsteady Bernoulli,
    tests/equations/test_ns_forces.py): c_D(t) = k 2 pi rho a^2 U'(t), c_L(t) = k rho gamma U(t)
    (k = 2 / (rho U_mean^2 D)), three periods in the interval; the volume integral needs the time derivative."""
    f, T, e, gamma = 3.0, 1.05, 0.2, 0.05  # past t = 1, where an upward crossing falls on a sample
    eq = make(SpaceTime(channel(), (0.0, T)), Re=100, velocity=1.0, length=0.1)
    predict = oscillating_potential(f, e, gamma, eq.rho)

    check = dfg_cylinder(eq, predict)
    m, k = check.metrics, 2 / (eq.rho * 1.0**2 * 0.1)
    assert m["St"] == pytest.approx(f * 0.1 / 1.0, rel=1e-3)
    assert m["c_L_max"] == pytest.approx(k * eq.rho * gamma * (1 + e), rel=1e-3)
    assert m["c_D_max"] == pytest.approx(k * 2 * np.pi * eq.rho * A**2 * e * 2 * np.pi * f, rel=1e-3)
    assert m["St_rel_error"] == pytest.approx(abs(m["St"] - 0.3) / 0.3, rel=1e-12) and "DFG 2D-2" in check.notes[0]
    forces = check.series["cylinder_forces"]
    assert len(forces["t"]) == 201 and set(forces["curves"]) == {"c_D", "c_L", "c_D (surface)", "c_L (surface)"}
    np.testing.assert_allclose(forces["curves"]["c_L (surface)"], forces["curves"]["c_L"], rtol=1e-3)
    assert "t = 1" in check.maps["cylinder_vorticity"]["where"]
    assert m["periods"] == 2
    one = dfg_cylinder(make(SpaceTime(channel(), (0.1, 0.75)), Re=100, velocity=1.0, length=0.1), predict)
    assert one.metrics["periods"] == 1 and one.metrics["St"] == pytest.approx(f * 0.1 / 1.0, rel=1e-3)
    assert one.metrics["c_L_max"] == pytest.approx(m["c_L_max"], rel=1e-3)
    short = dfg_cylinder(make(SpaceTime(channel(), (0.0, 0.3)), Re=100, velocity=1.0, length=0.1), predict)
    assert "St" not in short.metrics and "no Strouhal number" in short.notes[0]


@pytest.mark.parametrize("e", [0.0, 0.03])
def test_dfg_2d2_mass_flux_through_the_sections_in_time(e):
    """A flow round the cylinder (a stream function constant on it) carrying ``Q(t) = H (1 + e sin 2 pi t)``:
    that flux through the inlet, the cylinder's section and the outlet at every time, and ``mass_flux_error``
    (against the inflow's ``U_mean H``) e."""
    eq = make(SpaceTime(channel(), (0.0, 1.0)), Re=100, velocity=1.0, length=0.1)
    check = dfg_cylinder(eq, channel_stream(e))
    flux = check.series["mass_flux"]
    exact = 0.41 * (1 + e * np.sin(2 * np.pi * flux["t"]))
    assert len(flux["curves"]) == 3 and "x = 0.2 (the cylinder)" in flux["curves"]
    for q in flux["curves"].values():
        np.testing.assert_allclose(q, exact, rtol=1e-5)
    assert check.metrics["mass_flux_error"] == pytest.approx(e, abs=1e-5)


@pytest.mark.parametrize("domain", [
    lambda: channel(name="hole"),
    lambda: Rectangle((0.0, 2.2), (0.0, 0.41), holes=[((0.2, 0.2), 0.05, "hole")], parts={"cylinder": ["left"]}),
])
def test_dfg_check_needs_a_circular_cylinder(domain):
    with pytest.raises(Invalid) as e:
        make(domain(), Re=20)
    assert e.value.key == "checks"
