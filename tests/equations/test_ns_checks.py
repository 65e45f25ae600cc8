"""The ghia1982 check: Ghia's own profiles score zero, a known perturbation scores its size, at every
tabulated Re; an untabulated Re is refused when the case is checked."""
import os

import numpy as np
import pytest

from sciml.config import build
from sciml.equations import create
from sciml.equations.navier_stokes import NavierStokesConfig
from sciml.equations.ns_checks import ghia1982
from sciml.errors import Invalid
from sciml.solvers.pinn.geometry import Rectangle

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "equations", "data")


def cavity(re, velocity=1.0, size=1.0):
    dom = Rectangle((0.0, size), (0.0, size))
    cfg = build(NavierStokesConfig, {"type": "navier_stokes", "Re": re, "velocity": velocity, "length": size,
                                     "conditions": {p: {} for p in dom.parts}, "checks": ["ghia1982"]})
    return create(cfg, dom)


def table(re, q):
    """Ghia's grid index, centreline coordinate and value, read straight from the CSV file."""
    with open(os.path.join(DATA, f"ghia1982_re{re}_{q}.csv"), encoding="utf-8") as fh:
        lines = [line for line in fh if not line.startswith("#")]
    assert lines[0].split(",")[2:] == ["y_exact" if q == "u" else "x_exact", f"{q}\n"], lines[0]
    a = np.loadtxt(lines[1:], delimiter=",")
    return a[:, 0], a[:, 2], a[:, 3]


def interpolating(re, size=1.0, velocity=1.0, bump=None):
    """``predict`` that interpolates Ghia's profiles (u along y, v along x), plus ``bump[q](index)`` at his
    grid points."""
    bump = bump or {}
    tables = {q: table(re, q) for q in "uv"}

    def predict(pts):
        out = {}
        for q, col in (("u", 1), ("v", 0)):
            index, s, ref = tables[q]
            values = ref + bump.get(q, lambda i: 0.0 * i)(index)
            out[q] = velocity * np.interp(pts[:, col] / size, s, values)
        return out

    return predict


@pytest.mark.parametrize("re", [100, 400, 1000, 3200])
def test_ghia_profiles_themselves_score_zero(re):
    m = ghia1982(cavity(re), interpolating(re)).metrics
    for k in ("ghia_u_rel_l2", "ghia_v_rel_l2", "ghia_u_max_abs", "ghia_v_max_abs"):
        assert m[k] < 1e-12, (k, m[k])


@pytest.mark.parametrize("re", [100, 400, 1000, 3200])
def test_a_perturbation_scores_its_size_over_the_interior_points(re):
    """``pred = ref + d`` at the 15 interior points: rel-L2 = d sqrt(15) / ||ref (interior)||; the walls
    (indices 1 and 129) are not scored, so a change there costs nothing."""
    d = 0.01
    bump = {"u": lambda i: np.where(np.isin(i, (1, 129)), 0.5, d), "v": lambda i: np.where(i % 2 == 0, d, -d)}
    # a physical cavity: the check works in units of the cavity and the lid speed
    m = ghia1982(cavity(re, velocity=2.0, size=3.0), interpolating(re, size=3.0, velocity=2.0, bump=bump)).metrics
    for q in "uv":
        index, _, ref = table(re, q)
        inner = (index > 1) & (index < 129)
        if re == 400 and q == "v":
            inner &= index != 117  # the misprint (see the file's header)
        assert inner.sum() == (14 if re == 400 and q == "v" else 15)
        expected = d * np.sqrt(inner.sum()) / np.linalg.norm(ref[inner])
        np.testing.assert_allclose(m[f"ghia_{q}_rel_l2"], expected, rtol=1e-9)
        np.testing.assert_allclose(m[f"ghia_{q}_max_abs"], d, rtol=1e-9)


def test_the_re400_misprint_is_not_scored():
    bump = {"v": lambda i: np.where(i == 117, 0.3, 0.0)}
    assert ghia1982(cavity(400), interpolating(400, bump=bump)).metrics["ghia_v_rel_l2"] < 1e-12
    bump = {"v": lambda i: np.where(i == 111, 0.3, 0.0)}  # its neighbour is
    assert ghia1982(cavity(400), interpolating(400, bump=bump)).metrics["ghia_v_rel_l2"] > 0.1


def test_the_table_is_that_of_the_case_re():
    """Re 1000's profiles against a Re 400 case are far off (the tables differ)."""
    m = ghia1982(cavity(400), interpolating(1000)).metrics
    assert m["ghia_u_rel_l2"] > 0.1 and m["ghia_v_rel_l2"] > 0.1


def test_an_untabulated_re_is_refused_naming_the_tables():
    with pytest.raises(Invalid, match=r"ghia1982 has tables for Re = 100, 400, 1000, 3200 only; this case has "
                                      r"Re = 2000"):
        cavity(2000)


def test_forces_on_a_part_poiseuille_walls_and_a_pressure_gradient_on_an_airfoil():
    """``equation.forces``: the walls of Poiseuille's channel feel the shear rho nu u'(wall) along the flow, the
    pressures on them cancel; a pressure p = -G x (without shear) pushes a profile along x by G times its area."""
    from sciml.equations.ns_checks import forces
    from sciml.polygons import signed_area
    from sciml.solvers.pinn.geometry import Polygon
    from sciml.solvers.pinn.geometry.airfoil import naca4

    profile = naca4("0012", angle=5.0, points=32)
    dom = Polygon([(-1, -1), (3, -1), (3, 1), (-1, 1)], holes=[(profile, "airfoil")],
                  names=["walls", "outlet", "walls", "inlet"])
    cfg = build(NavierStokesConfig, {"type": "navier_stokes", "Re": 50.0, "velocity": 2.0, "length": 0.5,
                                     "rho": 3.0, "conditions": {p: {} for p in dom.parts},
                                     "forces": ["walls", "airfoil"]})
    eq = create(cfg, dom)
    U, H, G = 1.5, 2.0, 0.7  # the centre speed, the channel's height, the pressure gradient

    def predict(pts, of=None):
        x, y = pts[:, 0], pts[:, 1]
        zero = 0.0 * x
        return {"u": U * (1 - y**2), "v": zero, "p": -G * x, "u_x": zero, "u_y": -2 * U * y, "v_x": zero,
                "v_y": zero, "p_x": -G + zero, "p_y": zero}

    check = forces(eq, predict)
    m = check.metrics
    k = 2 / (eq.rho * eq.U**2 * 0.5)
    shear = 2 * eq.rho * eq.nu * 2 * U / (H / 2) * 4.0  # both walls, 4 long: rho nu |u'(+-1)|
    np.testing.assert_allclose([m["c_D_walls"], m["c_D_walls_surface"]], k * shear, rtol=1e-9)
    np.testing.assert_allclose(m["c_L_walls"], 0.0, atol=1e-9)
    assert check.notes == ["forces: walls meets another boundary; c_D_walls, c_L_walls by the line integral"]
    area = signed_area(profile)
    no_shear = lambda pts, of=None: {**predict(pts), "u_y": 0.0 * pts[:, 0]}  # noqa: E731
    m = forces(eq, no_shear).metrics
    np.testing.assert_allclose([m["c_D_airfoil_surface"], m["c_D_airfoil_stress"]], k * G * area, rtol=2e-4)
    np.testing.assert_allclose([m["c_L_airfoil_surface"], m["c_L_airfoil_stress"]], 0.0, atol=2e-4 * k * G * area)


def test_forces_on_an_airfoil_by_the_volume_integral_equal_the_line_integral_for_a_solution():
    """Kovasznay's flow solves the steady Navier-Stokes equations (without no slip on the profile): the volume
    integral over the band around the profile gives the force of the line integral of the full stress (for a
    divergence-free field it equals the volume form's rho nu du/dn - p n), to the band's quadrature error."""
    from sciml.equations.ns_checks import forces
    from sciml.solvers.pinn.geometry import Polygon
    from sciml.solvers.pinn.geometry.airfoil import naca4

    dom = Polygon([(-1, -1), (3, -1), (3, 1), (-1, 1)], holes=[(naca4("0012", angle=5.0, points=32), "airfoil")],
                  names=["walls", "outlet", "walls", "inlet"])
    eq = create(build(NavierStokesConfig, {"type": "navier_stokes", "Re": 40.0, "conditions": {p: {} for p in dom.parts},
                                           "forces": ["airfoil"]}), dom)
    lam = 20.0 - np.sqrt(400.0 + 4 * np.pi**2)

    def predict(pts, of=None):
        x, y = pts[:, 0], pts[:, 1]
        e, c, s = np.exp(lam * x), np.cos(2 * np.pi * y), np.sin(2 * np.pi * y)
        return {"u": 1 - e * c, "v": lam / (2 * np.pi) * e * s, "p": 0.5 * (1 - e**2), "u_x": -lam * e * c,
                "u_y": 2 * np.pi * e * s, "v_x": lam**2 / (2 * np.pi) * e * s, "v_y": lam * e * c}

    check = forces(eq, predict)
    m = check.metrics
    assert check.notes == [] and abs(m["c_D_airfoil_stress"] - m["c_D_airfoil_surface"]) > 0.02 * m["c_D_airfoil"]
    assert abs(m["c_D_airfoil"] - m["c_D_airfoil_stress"]) < 1e-3 * m["c_D_airfoil_stress"]
    assert abs(m["c_L_airfoil"] - m["c_L_airfoil_stress"]) < 1e-3 * m["c_D_airfoil_stress"]


def test_forces_on_an_unknown_part_are_refused():
    dom = Rectangle((0.0, 1.0), (0.0, 1.0))
    with pytest.raises(Invalid) as e:
        create(build(NavierStokesConfig, {"type": "navier_stokes", "Re": 10.0,
                                          "conditions": {p: {} for p in dom.parts}, "forces": ["airfoil"]}), dom)
    assert str(e.value).startswith("forces[0]: unknown boundary part 'airfoil'"), str(e.value)
