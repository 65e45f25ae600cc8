"""Plane polygons (sciml/polygons.py): the shoelace area's sign and size, and the even-odd test on an L."""
import numpy as np

from sciml.polygons import encloses, signed_area

L_SHAPE = np.array([(0, 0), (1, 0), (1, 0.5), (0.5, 0.5), (0.5, 1), (0, 1)], float)


def test_the_area_is_signed_by_orientation():
    assert signed_area(L_SHAPE) == 0.75 and signed_area(L_SHAPE[::-1]) == -0.75


def test_points_inside_an_l_and_outside_its_notch():
    pts = np.array([[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75], [1.5, 0.25], [-0.1, 0.5]])
    np.testing.assert_array_equal(encloses(L_SHAPE, pts), [True, True, True, False, False, False])
    np.testing.assert_array_equal(encloses(L_SHAPE[::-1], pts), encloses(L_SHAPE, pts))
