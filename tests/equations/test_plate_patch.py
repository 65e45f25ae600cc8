"""The plate's patch load: the smoothed patch of training against the exact one (force, centroid, spread), its
derivative in the centre, the exact patch in the reference, the position errors' scale."""
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.config import build
from sciml.equations.plate import KirchhoffPlate, PlateConfig
from sciml.equations.plate_reference import navier_plate
from sciml.equations.plate_reference.patch import patch_load
from sciml.solvers.pinn.geometry import Rectangle

PATCH = {"x": 1.3, "y": 1.1, "width": 0.4, "height": 0.6, "smoothing": 0.04}
SECTION = {"type": "kirchhoff_plate", "D": 2.0, "nu": 0.25, "q0": 500.0, "patch": PATCH}
BOUNDS = ((0.0, 2.0), (0.0, 3.0))


def plate(section=None):
    return KirchhoffPlate(section or build(PlateConfig, SECTION), Rectangle(*BOUNDS))


def load(eq, x, y):
    """The training load in Pa at physical points."""
    return eq.q0 * eq.load_hat(eq.to_nondim(jnp.stack([x, y], -1)))


def test_the_smoothed_patch_keeps_the_force_and_the_centroid():
    """Midpoint sums on a fine grid: total force q0 u v, centroid (x_c, y_c) and second moments u²/12, v²/12 as
    the exact patch's (a narrower patch smoothed, pressed harder); the peak a little above q0."""
    eq, h = plate(), 0.0025
    x, y = np.meshgrid(np.arange(h / 2, 2, h), np.arange(h / 2, 3, h), indexing="ij")
    q = np.asarray(load(eq, jnp.asarray(x), jnp.asarray(y)))
    force = q.sum() * h * h
    assert force == pytest.approx(500.0 * 0.4 * 0.6, rel=1e-9)
    cx, cy = (float((q * c).sum() * h * h / force) for c in (x, y))
    assert (cx, cy) == (pytest.approx(1.3, abs=1e-9), pytest.approx(1.1, abs=1e-9))
    var = [float((q * (c - m) ** 2).sum() * h * h / force) for c, m in ((x, 1.3), (y, 1.1))]
    assert var == [pytest.approx(0.4**2 / 12, rel=1e-6), pytest.approx(0.6**2 / 12, rel=1e-6)]
    assert 500 < q.max() < 500 * 0.4 * 0.6 / np.sqrt((0.4**2 - 12 * 0.04**2) * (0.6**2 - 12 * 0.04**2))


def test_the_default_smoothing_is_a_quarter_of_the_shorter_side():
    """σ = 0.1 for a 0.4 m side: the same load as given explicitly, and a different one from σ = 0.04."""
    x, y = jnp.linspace(0.9, 1.7, 9), jnp.full(9, 1.2)
    smoothed = lambda s: load(plate(build(PlateConfig, {**SECTION, "patch": {**PATCH, "smoothing": s}})), x, y)
    np.testing.assert_allclose(smoothed(None), smoothed(0.1), rtol=1e-14)
    assert np.abs(np.asarray(smoothed(None) - smoothed(0.04))).max() > 10


def test_the_load_moves_with_the_centre():
    """d(load)/d(x_c) at fixed points is non-zero (the indicator's is zero almost everywhere) and is the
    negative x-derivative of the load, matching a central difference."""
    section = build(PlateConfig, SECTION)
    pts = jnp.array([[1.1, 1.1], [1.5, 0.9], [1.3, 1.1], [0.5, 2.5]])

    def at(xc):
        moved = dataclasses.replace(section, patch=dataclasses.replace(section.patch, x=xc))
        return load(plate(moved), pts[:, 0], pts[:, 1])

    grad = np.asarray(jax.jacfwd(at)(1.3))
    fd = (np.asarray(at(1.3 + 1e-5)) - np.asarray(at(1.3 - 1e-5))) / 2e-5
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)
    assert grad[0] < -1000 and grad[1] > 1000  # the left edge uncovers, the right edge covers
    assert abs(grad[2]) < 1e-6 * 500 and abs(grad[3]) < 1e-6  # the centre (symmetric), far away


def test_the_reference_takes_the_exact_patch():
    eq = plate()
    pts = np.array([[1.3, 1.1], [0.4, 2.2]])
    want = navier_plate(BOUNDS, 2.0, 0.25, patch_load(500.0, (1.3, 1.1), (0.4, 0.6)), pts[:, 0], pts[:, 1])
    got = eq.reference(pts)
    for k in ("w", "mx", "qy"):
        np.testing.assert_allclose(got[k], want[k], rtol=1e-12)
    assert eq.peak == 1.0 and eq.q0 == 500.0


def test_position_errors_are_measured_against_the_side():
    assert plate().error_scales() == {"patch.x": ("side", 2.0), "patch.width": ("side", 2.0),
                                      "patch.y": ("side", 3.0), "patch.height": ("side", 3.0)}
    assert plate(build(PlateConfig, {**SECTION, "patch": None, "load": 1.0})).error_scales() == {}
