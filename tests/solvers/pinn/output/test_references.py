"""A classical solver's reference where the equation has none (solvers/pinn/output/references.py): a plate on a
polygon, or on a rectangle with holes, gets finite elements on the evaluation grid, NaN outside, with the case's
load and edge conditions."""
import numpy as np

from sciml.config import build
from sciml.equations.plate import KirchhoffPlate, PlateConfig
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
