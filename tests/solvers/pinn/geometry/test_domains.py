"""Boxes, disks, holes, space-time: samples lie inside and on their named parts only; configs name keys."""
import numpy as np
import pytest

from sciml.config import build
from sciml.errors import Invalid
from sciml.solvers.pinn.geometry import (Box, BoxConfig, Disk, Polygon, Rectangle, RectangleConfig, SpaceTime,
                                         build_geometry)

METHODS = ["uniform", "sobol", "halton", "lhs"]

DOMAINS = {
    "box": lambda: Box((0, 2), (-1, 1), (0, 0.5)),
    "disk": lambda: Disk((1.0, -1.0), 0.7),
    "rect_hole": lambda: Rectangle((0, 2.2), (0, 0.41), holes=[((0.2, 0.2), 0.05, "hole")],
                                   parts={"inlet": ["left"], "outlet": ["right"], "walls": ["bottom", "top"]}),
    "box_sphere": lambda: Box((-1, 1), (-1, 1), (-1, 1), holes=[((0.2, 0.0, -0.1), 0.4, "sphere")]),
    "disk_hole": lambda: Disk((0, 0), 1.0, holes=[((0.3, 0.1), 0.2, "hole")]),
    "spacetime": lambda: SpaceTime(Rectangle((0, 1), (0, 2), holes=[((0.5, 1.0), 0.25, "hole")]), (0.0, 3.0)),
    "spacetime3d": lambda: SpaceTime(Box((0, 1), (0, 1), (0, 1)), (1.0, 2.0)),
    "lshape": lambda: Polygon([(0, 0), (1, 0), (1, 0.5), (0.5, 0.5), (0.5, 1), (0, 1)]),
    "polygon_holes": lambda: Polygon([(0, 0), (0, 1), (1.5, 1.2), (2, 0)],  # clockwise
                                     holes=[([(0.2, 0.2), (0.6, 0.25), (0.4, 0.6)], "tri"), ((1.4, 0.5), 0.2, "circ")],
                                     names=["in", "top", "top", "out"]),
    "polygon_time": lambda: SpaceTime(Polygon([(0, 0), (1, 0), (1, 0.5), (0.5, 0.5), (0.5, 1), (0, 1)],
                                              names=["a", "a", "b", "b", "a", "a"]), (0.0, 1.0)),
}


def _normals_ok(dom, part, pts, normals):
    norms = np.linalg.norm(normals, axis=-1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-12)
    # a small step along -n goes into the domain, along +n leaves it
    eps = 1e-6
    assert dom.contains(pts - eps * normals, 0.0).all(), part
    assert not dom.contains(pts + eps * normals, 0.0).any(), part


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", list(DOMAINS))
def test_samples_inside_and_on_their_parts_only(name, method):
    dom = DOMAINS[name]()
    rng = np.random.default_rng(0)
    pts = dom.interior(200, rng, method)
    assert pts.shape == (200, dom.dim) and dom.contains(pts).all()
    assert not any(dom.on_part(p, pts, 1e-9).any() for p in dom.parts)  # interior points avoid the boundary
    for part in dom.parts:
        b, n = dom.boundary(part, 64, rng, method)
        assert b.shape == n.shape == (64, dom.dim)
        assert dom.on_part(part, b).all() and dom.contains(b, 1e-9).all(), part
        others = [o for o in dom.parts if o != part]
        interior_of_part = ~np.any([dom.on_part(o, b, 1e-9) for o in others], axis=0)
        assert interior_of_part.mean() > 0.9, part  # only shared edges/corners may touch other parts
        if part != "initial":
            _normals_ok(dom, part, b, n)


def test_holes_are_removed_and_have_inward_pointing_boundary():
    dom = DOMAINS["rect_hole"]()
    assert dom.parts == ("inlet", "outlet", "walls", "hole")
    pts = dom.interior(4000, np.random.default_rng(2), "sobol")
    assert np.min(np.linalg.norm(pts - [0.2, 0.2], axis=1)) >= 0.05
    b, n = dom.boundary("hole", 100, np.random.default_rng(3), "sobol")
    np.testing.assert_allclose(np.linalg.norm(b - [0.2, 0.2], axis=1), 0.05, atol=1e-12)
    np.testing.assert_allclose(n, -(b - [0.2, 0.2]) / 0.05, atol=1e-12)  # out of the fluid, into the hole
    # group "walls" spreads points over bottom and top in proportion to their lengths
    w, _ = dom.boundary("walls", 1000, np.random.default_rng(4), "sobol")
    assert abs(np.mean(w[:, 1] == 0.0) - 0.5) < 0.02


def test_near_points_lie_in_a_layer_along_the_part():
    dom = DOMAINS["rect_hole"]()
    pts = dom.near("hole", 500, 0.03, np.random.default_rng(0), "sobol")
    r = np.linalg.norm(pts - [0.2, 0.2], axis=1)
    assert pts.shape == (500, 2) and dom.contains(pts).all() and r.min() >= 0.05 and r.max() <= 0.08
    assert np.ptp(np.arctan2(pts[:, 1] - 0.2, pts[:, 0] - 0.2)) > 6.0  # all around the circle
    assert abs(np.mean(r < 0.065) - 0.5) < 0.05  # uniform in the distance from the part
    walls = dom.near("walls", 300, 0.05, np.random.default_rng(1), "uniform")
    assert np.all((walls[:, 1] <= 0.05) | (walls[:, 1] >= 0.36)) and dom.contains(walls).all()
    st = DOMAINS["spacetime"]()
    pts = st.near("hole", 200, 0.1, np.random.default_rng(2), "halton")
    r = np.linalg.norm(pts[:, :2] - [0.5, 1.0], axis=1)
    assert st.contains(pts).all() and r.min() >= 0.25 and r.max() <= 0.35 and np.ptp(pts[:, 2]) > 2.5


def test_box_points_lie_in_the_box_and_the_domain_over_the_whole_time():
    """``box(lower, upper, ...)``: points inside the domain (not in a hole the box covers) and the box of space,
    uniform in it; an unsteady domain's over its whole interval."""
    dom = DOMAINS["rect_hole"]()
    pts = dom.box([0.1, 0.1], [0.5, 0.3], 2000, np.random.default_rng(0), "sobol")
    assert pts.shape == (2000, 2) and dom.contains(pts).all()
    assert np.all((pts >= [0.1, 0.1]) & (pts <= [0.5, 0.3])) and np.linalg.norm(pts - 0.2, axis=1).min() >= 0.05
    assert abs(np.mean(pts[:, 0] < 0.3) - (0.2 * 0.2 - np.pi * 0.05**2) / (0.4 * 0.2 - np.pi * 0.05**2)) < 0.02
    st = DOMAINS["spacetime"]()
    pts = st.box([0.0, 0.5], [1.0, 1.5], 500, np.random.default_rng(1), "halton")
    lo, hi = st.time
    assert st.contains(pts).all() and np.all((pts[:, :2] >= [0.0, 0.5]) & (pts[:, :2] <= [1.0, 1.5]))
    assert np.linalg.norm(pts[:, :2] - [0.5, 1.0], axis=1).min() >= 0.25 and np.ptp(pts[:, 2]) > 0.9 * (hi - lo)
    assert not dom.in_box([3.0, 0.0], [4.0, 1.0], 256).any() and not dom.in_box([0.1, 0.1], [0.3, 0.3], 256).all()


def test_sphere_of_a_hole_part():
    assert DOMAINS["rect_hole"]().sphere("hole") == ((0.2, 0.2), 0.05)
    assert DOMAINS["spacetime"]().sphere("hole") == ((0.5, 1.0), 0.25)
    assert DOMAINS["rect_hole"]().sphere("walls") is None and DOMAINS["disk"]().sphere("circle") is None
    two = Rectangle((0, 2), (0, 1), holes=[((0.5, 0.5), 0.1, "h"), ((1.5, 0.5), 0.1, "h")])
    assert two.sphere("h") is None


def test_distances_to_the_pieces_of_a_part():
    dom = DOMAINS["rect_hole"]()
    pts = np.array([[0.2, 0.3], [1.0, 0.1], [2.2, 0.41]])
    (hole,) = dom.distances("hole")
    np.testing.assert_allclose(hole(pts), np.hypot(pts[:, 0] - 0.2, pts[:, 1] - 0.2) - 0.05, rtol=1e-12)
    bottom, top = dom.distances("walls")
    np.testing.assert_allclose(bottom(pts), pts[:, 1]) and np.testing.assert_allclose(top(pts), 0.41 - pts[:, 1])
    (rim,) = DOMAINS["disk"]().distances("circle")  # positive inside the disk
    np.testing.assert_allclose(rim(np.array([[1.0, -1.0], [1.7, -1.0]])), [0.7, 0.0], atol=1e-12)
    st = DOMAINS["spacetime"]()
    x = np.array([[0.5, 1.5, 2.0]])
    np.testing.assert_allclose(st.distances("hole")[0](x), 0.25) and np.testing.assert_allclose(
        st.distances("initial")[0](x), 2.0)


def test_disk_interior_is_uniform_in_area():
    dom = Disk((0, 0), 1.0)
    pts = dom.interior(20000, np.random.default_rng(0), "sobol")
    r = np.linalg.norm(pts, axis=1)
    assert abs(np.mean(r < np.sqrt(0.5)) - 0.5) < 0.01


def test_space_time_parts_and_initial():
    dom = DOMAINS["spacetime"]()
    assert dom.coords == ("x", "y", "t") and dom.parts[-1] == "initial" and dom.time == (0.0, 3.0)
    b, n = dom.boundary("initial", 100, np.random.default_rng(0), "sobol")
    assert np.all(b[:, 2] == 0.0) and np.all(n == [0, 0, -1]) and dom.space.contains(b[:, :2]).all()
    b, n = dom.boundary("left", 100, np.random.default_rng(0), "sobol")
    assert np.all(n == [-1, 0, 0]) and b[:, 2].min() >= 0 and b[:, 2].max() <= 3.0 and np.ptp(b[:, 2]) > 2.5


def test_periodic_offsets():
    np.testing.assert_allclose(Rectangle((0, 2), (0, 1)).periodic_offset("left", "right"), [2, 0])
    np.testing.assert_allclose(Box((0, 2), (0, 3), (1, 2)).periodic_offset("back", "front"), [0, -3, 0])
    np.testing.assert_allclose(DOMAINS["spacetime3d"]().periodic_offset("bottom", "top"), [0, 0, 1, 0])
    with pytest.raises(ValueError):
        Rectangle((0, 2), (0, 1)).periodic_offset("left", "top")


def test_evaluation_points_mask_the_holes():
    ev = DOMAINS["rect_hole"]().evaluation_points([45, 9])
    assert ev.points.shape == (45 * 9, 2) and ev.shape == (45, 9)
    inside = np.linalg.norm(ev.points - [0.2, 0.2], axis=1) >= 0.05
    np.testing.assert_array_equal(ev.mask, inside)
    ev = DOMAINS["spacetime3d"]().evaluation_points()
    assert ev.shape == (31, 31, 31, 11) and ev.coords == ("x", "y", "z", "t")


@pytest.mark.parametrize("raw,key", [
    ({"type": "rectangle", "x": [0, 1], "y": [0, 1], "parts": {"lid": ["topp"]}}, "parts.lid[0]"),
    ({"type": "rectangle", "x": [0, 1], "y": [0, 1], "parts": {"a": ["top"], "b": ["top"]}}, "parts.b[0]"),
    ({"type": "rectangle", "x": [0, 1], "y": [0, 1], "holes": [{"center": [0.9, 0.5], "radius": 0.2}]}, "holes[0]"),
    ({"type": "rectangle", "x": [0, 1], "y": [0, 1], "holes": [{"center": [0.5, 0.5, 0.5], "radius": 0.2}]},
     "holes[0].center"),
    ({"type": "rectangle", "x": [0, 1], "y": [0, 1], "time": [1, 0]}, "time"),
    ({"type": "rectangle", "x": [1, 0], "y": [0, 1]}, "x"),
])
def test_geometry_config_errors(raw, key):
    with pytest.raises(Invalid) as e:
        build(RectangleConfig, raw)
    assert e.value.key == key, e.value


def test_geometry_from_config():
    cfg = build(BoxConfig, {"type": "box", "x": [0, 1], "y": [0, 1], "z": [0, 1], "time": [0, 2],
                            "holes": [{"center": [0.5, 0.5, 0.5], "radius": 0.1}]})
    dom = build_geometry(cfg)
    assert dom.coords == ("x", "y", "z", "t") and "hole" in dom.parts and "initial" in dom.parts
