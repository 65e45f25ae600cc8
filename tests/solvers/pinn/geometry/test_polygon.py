"""Polygons (solvers/pinn/geometry/polygon.py): the edges' distance functions and their derivatives to fourth
order against nested jax.jacfwd, up to the edge; the shape's measures; bad polygons named in one line."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import autodiff as ad
from sciml.config import build
from sciml.errors import Invalid
from sciml.solvers.pinn.geometry import GeometryConfig, Polygon

L_SHAPE = [(0, 0), (1, 0), (1, 0.5), (0.5, 0.5), (0.5, 1), (0, 1)]


def test_edge_distance_is_zero_on_its_edge_positive_elsewhere_with_unit_slope():
    dom = Polygon(L_SHAPE)
    rng = np.random.default_rng(0)
    inside = dom.interior(2000, rng, "sobol")
    for name, piece in dom.pieces.items():
        b, n = dom.boundary(name, 50, rng, "sobol")
        d = lambda x, piece=piece: piece.distance(x)
        np.testing.assert_allclose(d(jnp.asarray(b)), 0.0, atol=1e-15)
        assert np.min(np.asarray(d(jnp.asarray(inside)))) > 0.0, name
        slope = ad.derivatives(d, [(1, 0), (0, 1)])(jnp.asarray(b))
        inward = -(slope[(1, 0)] * n[:, 0] + slope[(0, 1)] * n[:, 1])
        np.testing.assert_allclose(inward, 1.0, rtol=1e-12)  # the distance's first order, from inside
        # the edge's line crosses the domain at the re-entrant corner: d stays positive there (trimmed)
        far = inside[np.asarray(d(jnp.asarray(inside))) > 0.3]
        assert len(far), name


def test_engine_partials_of_the_distance_match_nested_jax():
    dom = Polygon(L_SHAPE)
    piece = dom.pieces["edge2"]  # (1, 0.5) -> (0.5, 0.5): its line runs across the domain
    pts = np.array([[0.2, 0.3], [0.3, 0.8], [0.75, 0.25], [0.25, 0.5],  # inside, on the line's extension
                    [0.7, 0.5 - 1e-6], [0.9, 0.49], [0.51, 0.499],  # near the edge
                    [0.7, 0.5], [0.95, 0.5]])  # on it
    reqs = [tuple(a) for k in range(5) for a in ad.multi_indices(2, k)]
    # both jitted, as in training (one program each; op by op, the orders up to 4 compile hundreds of small ones)
    got = jax.jit(ad.derivatives(piece.distance, reqs))(jnp.asarray(pts))
    ref = jax.jit(ad.derivatives(piece.distance, reqs, mode="nested"))(jnp.asarray(pts))
    for r in reqs:
        assert np.all(np.isfinite(np.asarray(got[r]))), r
        np.testing.assert_allclose(got[r], ref[r], rtol=1e-9, atol=1e-9 * (1 + np.max(np.abs(ref[r]))), err_msg=str(r))


def test_measures_normals_and_holes_of_a_clockwise_polygon():
    dom = Polygon([(0, 0), (0, 2), (3, 2), (3, 0)], holes=[([(1, 0.5), (2, 0.5), (1.5, 1.5)], "tri"),
                                                         ((2.5, 1.5), 0.25, "circ")])
    assert dom.parts == ("edge0", "edge1", "edge2", "edge3", "tri", "circ")
    assert dom.measure("edge0") == 2.0 and dom.measure("edge1") == 3.0
    np.testing.assert_allclose(dom.measure("tri"), 1.0 + 2 * np.hypot(0.5, 1.0))
    _, n = dom.boundary("edge0", 4, np.random.default_rng(0), "uniform")
    np.testing.assert_array_equal(n, np.broadcast_to([-1.0, 0.0], (4, 2)))  # x = 0: outward is -x
    pts = dom.interior(20000, np.random.default_rng(1), "sobol")
    inside_tri = (pts[:, 1] > 0.5) & (np.abs(pts[:, 0] - 1.5) < 0.5 * (1.5 - pts[:, 1]))
    assert not inside_tri.any()
    # the area by the samples' share of the box: 6 - 0.5 - pi/16 = 5.3037
    box = np.random.default_rng(2).random((200000, 2)) * [3, 2]
    np.testing.assert_allclose(6 * dom.contains(box).mean(), 6 - 0.5 - np.pi / 16, rtol=1e-2)
    loops = dom.loops()
    assert [len(x) for x in loops] == [2, 2, 3] and loops[1][1] == ("tri",) * 3 and loops[2][2] == "circ"


@pytest.mark.parametrize("geometry, message", [
    ({"vertices": [[0, 0], [1, 1], [1, 0], [0, 1]]},
     "geometry.vertices: the polygon intersects itself: edge 0 ([0.0, 0.0] to [1.0, 1.0]) meets edge 2"),
    ({"vertices": [[0, 0], [1, 0]]}, "geometry.vertices: a polygon needs at least 3 vertices, got 2"),
    ({"vertices": [[0, 0], [1, 0], [1, 1], [0, 0]]}, "geometry.vertices: the loop closes itself"),
    ({"vertices": [[0, 0], [1, 0], [1, 1], [1, 0], [0, 1]]}, "geometry.vertices: vertices 1 and 3 are the same"),
    ({"vertices": [[0, 0], [2, 0], [1, 0], [1, 1]]}, "geometry.vertices: edges 0 and 1 fold back"),
    ({"vertices": L_SHAPE, "holes": [{"center": [0.75, 0.75], "radius": 0.1}]},
     "geometry.holes[0]: must lie strictly inside the polygon"),
    ({"vertices": L_SHAPE, "holes": [{"vertices": [[0.9, 0.4], [0.4, 0.9], [0.3, 0.3]]}]},  # corners in, an edge out
     "geometry.holes[0]: must lie strictly inside the polygon"),
    ({"vertices": L_SHAPE, "holes": [{"center": [0.2, 0.2], "radius": 0.1},
                                     {"vertices": [[0.25, 0.25], [0.4, 0.25], [0.4, 0.4]]}]},
     "geometry.holes[1]: overlaps hole 0"),
    ({"vertices": L_SHAPE, "holes": [{"center": [0.2, 0.2]}]}, "geometry.holes[0].radius: a circular hole needs"),
    ({"vertices": L_SHAPE, "holes": [{"name": "h"}]}, "geometry.holes[0].vertices: give a hole either vertices"),
    ({"vertices": L_SHAPE, "names": ["a", "b"]}, "geometry.names: 2 names for the polygon's 6 edges"),
    ({"vertices": L_SHAPE, "parts": {"clamped": ["edge0", "edge9"]}},
     "geometry.parts.clamped[1]: unknown part 'edge9'"),
])
def test_bad_polygons_are_named_in_one_line(geometry, message):
    with pytest.raises(Invalid) as e:
        build(GeometryConfig, {"type": "polygon", **geometry}, "geometry")
    assert str(e.value).startswith(message), str(e.value)


def test_corners_run_with_the_domain_on_the_left_whichever_way_the_loops_are_given():
    """Each corner's edges in order along the boundary (outer counter-clockwise, holes clockwise), their parts and
    outward normals, and the interior angle: 270 degrees at the L's re-entrant corner and at a hole's corners."""
    from sciml.solvers.pinn.geometry import Disk, Rectangle

    hole = [(0.1, 0.1), (0.3, 0.1), (0.3, 0.3), (0.1, 0.3)]
    names = ["a", "b", "c", "d", "e", "f"]
    for outer, square in ((L_SHAPE, hole), (L_SHAPE[::-1], hole[::-1])):
        dom = Polygon(outer, names=names if outer is L_SHAPE else names[::-1][1:] + names[::-1][:1],
                      holes=[(square, "sq"), ((0.7, 0.2), 0.1, "bolt")])
        found = {tuple(np.round(c.point, 9)): c for c in dom.corners()}
        assert len(found) == 10
        c = found[(0.5, 0.5)]  # edge c (right to left at y = 0.5) then d (down to up at x = 0.5)
        assert (c.before, c.after) == ("c", "d") and np.isclose(c.angle, 1.5 * np.pi)
        np.testing.assert_allclose(c.normal_before, [0, 1], atol=1e-12)
        np.testing.assert_allclose(c.normal_after, [1, 0], atol=1e-12)
        assert np.isclose(found[(1.0, 0.0)].angle, 0.5 * np.pi) and found[(1.0, 0.0)].before == "a"
        h = found[(0.1, 0.1)]  # the hole run clockwise: its bottom edge leftward, then its left edge upward
        assert h.before == h.after == "sq" and np.isclose(h.angle, 1.5 * np.pi)
        np.testing.assert_allclose(h.normal_before, [0, 1], atol=1e-12)  # into the hole
        np.testing.assert_allclose(h.normal_after, [1, 0], atol=1e-12)
    rect = Rectangle((0, 2), (0, 1), holes=[((1, 0.5), 0.2, "hole")], parts={"held": ["left", "right"]}).corners()
    assert [(c.before, c.after) for c in rect] == [("held", "bottom"), ("bottom", "held"), ("held", "top"),
                                                     ("top", "held")]
    assert Disk([0, 0], 1.0).corners() is None  # its rim is curved: a plate's free rim is not built
