"""Rectangle sampling: inside, on the named edge, outward normals, reproducible."""
import numpy as np
import pytest

from sciml.solvers.pinn.geometry import Rectangle, unit_cube


@pytest.mark.parametrize("method", ["uniform", "sobol", "halton", "lhs", "grid"])
def test_samples_inside_and_on_parts(method):
    r = Rectangle((0.0, 2.0), (-1.0, 0.5))
    pts = r.interior(100, np.random.default_rng(0), method)
    assert pts.shape == (100, 2) and r.contains(pts).all()
    for part, normal in zip(r.parts, [(-1, 0), (1, 0), (0, -1), (0, 1)]):
        b, n = r.boundary(part, 30, np.random.default_rng(1), method)
        assert b.shape == (30, 2) and r.on_part(part, b).all()
        others = [p for p in r.parts if p != part]
        assert not any(r.on_part(o, b[1:-1]).all() for o in others)
        np.testing.assert_array_equal(n, np.broadcast_to(normal, (30, 2)))


def test_quasi_random_is_more_uniform_and_reproducible():
    a = unit_cube(256, 2, np.random.default_rng(5), "sobol")
    np.testing.assert_array_equal(a, unit_cube(256, 2, np.random.default_rng(5), "sobol"))
    counts = np.histogram2d(a[:, 0], a[:, 1], bins=4)[0]
    assert counts.min() >= 12 and counts.max() <= 20  # 16 per cell for a balanced Sobol' set
