"""A classical solver's reference where the equation has none (solvers/pinn/output/references.py): a plate on a
polygon, or on a rectangle with holes, gets finite elements on the evaluation grid, NaN outside, with the case's
load and edge conditions; a flow on a polygon gets Taylor-Hood elements, its obstacle's coefficients per mesh, and
a run's forces are scored on them; heat in a part from an STL file gets quadratic tetrahedra."""
import numpy as np
import pytest

from sciml.config import build
from sciml.equations.plate import KirchhoffPlate, PlateConfig
from sciml.errors import ConfigError
from sciml.solvers.pinn.geometry import Polygon, Rectangle
from sciml.solvers.pinn.output import references

L_SHAPE = [(0, 0), (1, 0), (1, 0.5), (0.5, 0.5), (0.5, 1), (0, 1)]


def plate(load, edges, domain):
    config = build(PlateConfig, {"type": "kirchhoff_plate", "D": 2.0, "nu": 0.3, "load": load, "edges": edges})
    return KirchhoffPlate(config, domain)


def test_a_plate_on_a_polygon_gets_finite_elements_on_the_grid():
    domain = Polygon(L_SHAPE, names=["a", "a", "b", "b", "a", "a"])
    ev = domain.evaluation_points([11, 11])
    clamped, info = references.on_grid(plate(1000.0, {"a": "clamped", "b": "clamped"}, domain), domain, ev, 1e-2)
    assert info["solver"] == "finite elements (argyris)" and info["change_of_w"] < 1e-2
    w, mask = clamped["w"], ev.mask.reshape(ev.shape)
    assert np.isnan(w[~mask]).all() and np.isfinite(w[mask]).all() and np.isnan(w[8, 8])  # (0.8, 0.8): outside
    assert np.nanmax(w) > 0 and np.all(w[mask] > -1e-12 * np.nanmax(w))  # deflected along the load, 0 on the edges
    np.testing.assert_allclose(w, w.T, atol=1e-4 * np.nanmax(w))  # symmetric about y = x (the mesh is not: 3e-5)
    doubled, _ = references.on_grid(plate("2000 + 0 * x", {"a": "clamped", "b": "clamped"}, domain), domain, ev,
                                     1e-2)
    np.testing.assert_allclose(doubled["w"][mask], 2 * w[mask], rtol=1e-9)  # the case's load, scaled
    softer, _ = references.on_grid(plate(1000.0, {"a": "clamped"}, domain), domain, ev, 1e-2)  # b simply supported
    assert np.nanmax(softer["w"]) > 1.05 * np.nanmax(w)  # 0.1272 against 0.1168


def test_a_rectangle_keeps_its_series_and_no_solver_is_asked():
    domain = Rectangle((0, 1), (0, 1))
    ev = domain.evaluation_points([5, 5])
    fields, info = references.on_grid(plate(1000.0, {}, domain), domain, ev, 1e-2)
    assert info == {} and fields is not None and np.isfinite(fields["w"]).all()


def flow(conditions, domain, Re=10.0):
    from sciml.equations.navier_stokes import NavierStokes, NavierStokesConfig
    config = build(NavierStokesConfig, {"type": "navier_stokes", "Re": Re, "conditions": conditions})
    return NavierStokes(config, domain)


CHANNEL = [(0, 0), (2, 0), (2, 1), (0, 1)]
CHANNEL_PARTS = ["walls", "outlet", "walls", "inlet"]
FLOW = {"inlet": {"u": "6 * y * (1 - y)", "v": 0}, "outlet": {"p": 0, "u_n": 0, "v_n": 0}, "walls": {"u": 0, "v": 0}}


def test_a_flow_on_a_polygon_gets_taylor_hood_elements_on_the_grid():
    domain = Polygon(CHANNEL, names=CHANNEL_PARTS)  # Poiseuille's flow: the elements hold it exactly
    ev = domain.evaluation_points([9, 5])
    eq = flow(FLOW, domain)
    assert references.available(eq, domain)
    fields, info = references.on_grid(eq, domain, ev, 1e-3)
    assert info["solver"] == "finite elements (taylor-hood P2/P1)" and info["change_of_velocity"] < 1e-10
    x, y = (ev.points[:, k].reshape(ev.shape) for k in (0, 1))
    np.testing.assert_allclose(fields["u"], 6 * y * (1 - y), atol=1e-10)
    np.testing.assert_allclose(fields["p"], eq.nu * 12 * (2 - x), atol=1e-9)  # nu = U L / Re = 0.1, rho = 1


def test_a_flow_past_an_airfoil_records_its_coefficients_and_refuses_a_slip_wall():
    from sciml.solvers.pinn.geometry.airfoil import naca4
    domain = Polygon([(-1, -1), (3, -1), (3, 1), (-1, 1)], holes=[(naca4("0012", angle=5.0, points=16), "airfoil")],
                     names=CHANNEL_PARTS)
    ev = domain.evaluation_points([9, 5])
    conditions = {**FLOW, "inlet": {"u": "1.5 * (1 - y**2)", "v": 0}, "airfoil": {"u": 0, "v": 0}}
    fields, info = references.on_grid(flow(conditions, domain), domain, ev, 5e-2)
    mask = ev.mask.reshape(ev.shape)
    assert np.isnan(fields["u"][~mask]).all() and np.isfinite(fields["u"][mask]).all()
    coefficients = info["airfoil_coefficients"]
    assert len(coefficients) >= 2 and coefficients[-1]["c_D"] > 0 and coefficients[-1]["c_L"] > 0  # nose up: lift
    slip = {**conditions, "walls": {"v": 0, "u_n": 0}}
    with pytest.raises(ConfigError, match="equation.conditions.walls: the finite-element reference takes"):
        references.on_grid(flow(slip, domain), domain, ev, 5e-2)


def test_a_parts_forces_are_scored_against_the_solvers_finest_mesh():
    info = {"solver": "finite elements", "airfoil_coefficients": [{"c_D": 0.9, "c_L": 0.6}, {"c_D": 0.8, "c_L": 0.5}]}
    errors = references.force_errors({"c_D_airfoil": 0.84, "c_L_airfoil": 0.45, "c_D_cylinder": 1.0}, info)
    assert errors == pytest.approx({"c_D_airfoil_rel_error": 0.05, "c_L_airfoil_rel_error": 0.1})
    assert references.force_errors({"c_D_airfoil": 0.84}, {}) == {}


def test_a_rectangle_with_a_free_hole_gets_finite_elements():
    """A hole takes the rectangle off the series: the solver's table answers, NaN in the hole, the free edge's
    plate symmetric as the domain is."""
    domain = Rectangle((0, 1), (0, 1), holes=[((0.5, 0.5), 0.2, "opening")])
    eq = plate(1000.0, {"opening": "free"}, domain)
    assert eq.reference(np.array([[0.1, 0.1]])) is None and references.available(eq, domain)
    ev = domain.evaluation_points([11, 11])
    fields, info = references.on_grid(eq, domain, ev, 1e-2)
    assert info["solver"] == "finite elements (argyris)"
    w = fields["w"]
    assert np.isnan(w[5, 5]) and np.isfinite(w[ev.mask.reshape(ev.shape)]).all()
    for twin in (w.T, w[::-1], w[:, ::-1]):
        np.testing.assert_allclose(twin, w, atol=1e-4 * np.nanmax(w))
    assert w[5, 3] > 0.8 * np.nanmax(w)  # the free rim (0.5, 0.3) deflects (a held rim would stay at 0)


def test_heat_in_a_mesh_part_gets_tetrahedra_under_the_domains_parts():
    pytest.importorskip("gmsh")
    from sciml.equations.heat import Heat, HeatConfig
    from sciml.solvers.pinn.geometry.mesh import Mesh, read

    rules = {"top": {"normal": [0, 0, 1]}, "bottom": {"normal": [0, 0, -1]}}
    domain = Mesh(*read("cases/parts/bracket.stl", 0.05), rules)
    config = build(HeatConfig, {"type": "heat", "k": 3.0, "conditions": {"top": {"u": 1}, "bottom": {"u": "0 * x"},
                                                                           "surface": {"flux": 0}}})
    eq = Heat(config, domain)
    assert references.available(eq, domain)
    ev = domain.evaluation_points([9, 9, 3])
    fields, info = references.on_grid(eq, domain, ev, 1e-2)
    assert info["solver"] == "finite elements (P2)" and info["change_of_u"] < 1e-8  # the solver's tolerance
    z, mask = ev.points[:, 2].reshape(ev.shape), ev.mask.reshape(ev.shape)
    assert np.isnan(fields["u"][~mask]).all() and mask.sum() > 100
    np.testing.assert_allclose(fields["u"][mask], 2 * z[mask], atol=1e-8)  # insulated sides: linear in z, exact
