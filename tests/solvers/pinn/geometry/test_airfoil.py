"""NACA four-digit profiles (solvers/pinn/geometry/airfoil.py): the thickness formula's closed trailing edge and
largest thickness, the camber line, the angle of attack, the profile as a polygon's hole named in the case file,
and bad input in one line."""
import numpy as np
import pytest

from sciml.config import build
from sciml.errors import Invalid
from sciml.polygons import signed_area
from sciml.solvers.pinn.geometry import GeometryConfig, build_geometry
from sciml.solvers.pinn.geometry.airfoil import naca4


def test_naca0012_thickness_closed_trailing_edge_and_spacing():
    v = naca4("0012", points=64)
    assert v.shape == (128, 2)
    np.testing.assert_array_equal(v[0], [1.0, 0.0])  # the trailing edge, closed (-0.1036)
    np.testing.assert_allclose(v[64], [0.0, 0.0], atol=1e-15)  # the leading edge
    np.testing.assert_allclose(v[1:64, 0], v[65:][::-1, 0])  # symmetric: the same stations on both surfaces
    np.testing.assert_allclose(v[1:64, 1], -v[65:][::-1, 1])
    thickness = 2 * v[1:64, 1]
    assert abs(thickness.max() - 0.12) < 2e-4 and abs(v[1 + np.argmax(thickness), 0] - 0.3) < 0.02
    assert signed_area(v) > 0  # counter-clockwise: the upper surface first, from the trailing edge
    exact = 10 * 0.12 * (0.2969 * 2 / 3 - 0.1260 / 2 - 0.3516 / 3 + 0.2843 / 4 - 0.1036 / 5)  # integral of 2 y_t
    np.testing.assert_allclose(signed_area(v), exact, rtol=1e-3)  # the polygon inscribed: 5e-4 less
    edges = np.linalg.norm(np.diff(v, axis=0), axis=1)
    assert edges[63] < edges[31] / 4 and edges[0] < edges[31] / 10  # cosine spacing: fine at both ends


def test_camber_angle_chord_and_position():
    v = naca4("2412", chord=2.0, angle=0.0, points=40)
    mean = (v[1:40] + v[41:][::-1]) / 2  # the two surfaces' stations meet on the camber line, normal to it
    assert np.max(mean[:, 1]) == pytest.approx(2 * 0.02, rel=2e-3)  # m c at p = 0.4
    turned = naca4("0012", chord=1.0, angle=5.0, leading_edge=(1.0, 2.0))
    np.testing.assert_allclose(turned[0], [1 + np.cos(np.radians(5)), 2 - np.sin(np.radians(5))], atol=1e-15)
    np.testing.assert_allclose(turned[64], [1.0, 2.0], atol=1e-15)  # turned about the leading edge, nose up


def test_an_airfoil_hole_in_a_channel_from_the_case_file():
    cfg = build(GeometryConfig, {"type": "polygon", "vertices": [[-1, -1], [4, -1], [4, 1], [-1, 1]],
                                 "names": ["walls", "outlet", "walls", "inlet"],
                                 "holes": [{"naca": {"digits": "0012", "angle": 5.0, "points": 32},
                                            "name": "airfoil"}]}, "geometry")
    dom = build_geometry(cfg)
    assert set(dom.parts) == {"walls", "outlet", "inlet", "airfoil"}
    loops = dom.loops()
    assert len(loops[1][0]) == 64 and set(loops[1][1]) == {"airfoil"}
    rng = np.random.default_rng(0)
    pts, normals = dom.boundary("airfoil", 200, rng, "sobol")
    assert not dom.contains(pts + 1e-6 * normals, 0.0).any()  # the normals point into the profile
    inside = dom.interior(2000, rng, "sobol")
    assert not any(np.hypot(*(inside - [0.3, 0.0]).T) < 0.02)  # no points in the profile's thickest part


@pytest.mark.parametrize("naca, message", [
    ({"digits": 12}, "geometry.holes[0].naca.digits"),
    ({"digits": "012"}, "geometry.holes[0].naca.digits: expected four digits"),
    ({"digits": "2012"}, "geometry.holes[0].naca.digits: 2012: give both the camber and its position"),
    ({"digits": "0000"}, "geometry.holes[0].naca.digits: 0000: the thickness"),
    ({"points": 4}, "geometry.holes[0].naca.points: must lie in [8, 4096]"),
    ({"leading_edge": [3.5, 0.0]}, "geometry.holes[0]: must lie strictly inside the polygon"),
])
def test_bad_airfoils_are_named_in_one_line(naca, message):
    with pytest.raises(Invalid) as e:
        build(GeometryConfig, {"type": "polygon", "vertices": [[-1, -1], [4, -1], [4, 1], [-1, 1]],
                               "holes": [{"naca": naca}]}, "geometry")
    assert str(e.value).startswith(message), str(e.value)
