"""Extruded polygons (solvers/pinn/geometry/extrude.py): points inside and on each part, outward normals, the
parts' measures, the walls' and caps' distances (0 on their piece, positive inside, their engine derivatives
against nested JAX), and bad sections named in one line."""
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import autodiff as ad
from sciml.config import build
from sciml.errors import Invalid
from sciml.solvers.pinn.geometry import GeometryConfig, build_geometry

L_SHAPE = [[0, 0], [1, 0], [1, 0.5], [0.5, 0.5], [0.5, 1], [0, 1]]
SECTION = {"type": "extrude", "z": [-0.5, 1.5],
           "polygon": {"vertices": L_SHAPE, "names": ["a", "a", "step", "step", "a", "a"],
                       "holes": [{"vertices": [[0.1, 0.1], [0.3, 0.1], [0.2, 0.3]], "name": "slot"},
                                 {"center": [0.75, 0.25], "radius": 0.1, "name": "bolt"}]}}


def prism(**changes):
    return build_geometry(build(GeometryConfig, {**SECTION, **changes}, "geometry"))


def test_parts_samples_normals_and_measures():
    dom = prism()
    assert dom.coords == ("x", "y", "z") and dom.parts == ("bottom", "top", "a", "step", "slot", "bolt")
    assert dom.bounds == ((0.0, 1.0), (0.0, 1.0), (-0.5, 1.5))
    rng = np.random.default_rng(0)
    area = 0.75 - 0.5 * 0.2 * 0.2 - np.pi * 0.01
    expected = {"bottom": area, "top": area, "a": 3.0 * 2, "step": 1.0 * 2,
                "slot": (0.2 + 2 * np.hypot(0.1, 0.2)) * 2, "bolt": 2 * np.pi * 0.1 * 2}
    for part, measure in expected.items():
        np.testing.assert_allclose(dom.measure(part), measure, rtol=1e-12, err_msg=part)
        x, n = dom.boundary(part, 512, rng, "sobol")
        assert dom.contains(x, 1e-9).all() and dom.on_part(part, x).all(), part
        np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0, rtol=1e-12)
        # outward: a step along the normal leaves the prism, a step against it stays (but near edges and corners)
        eps = 1e-4
        assert dom.contains(x - eps * n, 0.0).mean() > 0.97 and dom.contains(x + eps * n, 0.0).mean() < 0.03, part
    _, n = dom.boundary("top", 8, rng)
    np.testing.assert_array_equal(n, np.tile([0.0, 0.0, 1.0], (8, 1)))
    x, n = dom.boundary("bolt", 64, rng)  # into the hole: toward the axis
    np.testing.assert_allclose(n[:, :2], -(x[:, :2] - [0.75, 0.25]) / 0.1, atol=1e-12)
    assert np.all(n[:, 2] == 0.0)
    inside = dom.interior(20000, rng, "sobol")
    assert dom.contains(inside).all() and inside[:, 2].min() < -0.49 and inside[:, 2].max() > 1.49
    box = np.random.default_rng(2).random((200000, 3)) * [1, 1, 2] - [0, 0, 0.5]
    np.testing.assert_allclose(2 * dom.contains(box).mean(), dom.volume(), rtol=1e-2)
    assert dom.corners() is None


def test_distances_vanish_on_their_piece_and_their_engine_partials_match_nested_jax():
    dom = prism()
    rng = np.random.default_rng(1)
    inside = jnp.asarray(dom.interior(2000, rng, "sobol"))
    for name, piece in dom.pieces.items():
        b, _, valid = piece.map(np.random.default_rng(3).random((40, 2)))
        np.testing.assert_allclose(piece.distance(jnp.asarray(b[valid])), 0.0, atol=1e-14, err_msg=name)
        assert np.min(np.asarray(piece.distance(inside))) > 0.0, name
    pts = jnp.asarray([[0.2, 0.3, 0.0], [0.75, 0.4, 1.2], [0.7, 0.5 - 1e-6, -0.4], [0.3, 0.8, 1.49]])
    reqs = [tuple(a) for k in range(5) for a in ad.multi_indices(3, k)]
    for name in ("edge2", "top", "bolt#1"):
        d = dom.pieces[name].distance
        got, ref = ad.derivatives(d, reqs)(pts), ad.derivatives(d, reqs, mode="nested")(pts)
        for r in reqs:
            np.testing.assert_allclose(got[r], ref[r], rtol=1e-9, atol=1e-9 * (1 + np.max(np.abs(ref[r]))),
                                       err_msg=f"{name} {r}")


@pytest.mark.parametrize("changes, message", [
    ({"z": [1.0, 1.0]}, "geometry.z: needs z0 < z1"),
    ({"polygon": {"vertices": [[0, 0], [1, 1], [1, 0], [0, 1]]}},
     "geometry.polygon.vertices: the polygon intersects itself"),
    ({"polygon": {"vertices": L_SHAPE, "time": [0, 1]}}, "geometry.polygon.time: the extruded section is a polygon"),
    ({"polygon": {"vertices": L_SHAPE, "names": ["top"] * 6}}, "geometry.polygon.names: 'top' names the prism's"),
    ({"parts": {"walls": ["edge0"]}}, "geometry.parts.walls[0]: unknown part 'edge0'"),
])
def test_bad_sections_are_named_in_one_line(changes, message):
    with pytest.raises(Invalid) as e:
        prism(**changes)
    assert str(e.value).startswith(message), str(e.value)
