"""The dispatcher: which solver for which edges, clear errors, argument forms, output shapes."""
import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from sciml.equations.plate_reference import (EDGE_NAMES, choose_method, fd_plate, levy_plate, navier_plate,
                                     plate_solution)

SS, C, F = "simply_supported", "clamped", "free"
SQUARE = ((0.0, 1.0), (0.0, 1.0))


def edges(left, right, bottom, top):
    return dict(left=left, right=right, bottom=bottom, top=top)


def test_choice_over_all_81_combinations():
    for combo in itertools.product((SS, C, F), repeat=4):
        e = dict(zip(EDGE_NAMES, combo))
        pair = (e["left"] == e["right"] == SS) or (e["bottom"] == e["top"] == SS)
        if all(c == SS for c in combo):
            assert choose_method(e) == "navier"
        elif pair:
            assert choose_method(e) == "levy"
        elif F not in combo:
            assert choose_method(e) == "fd"
        else:
            with pytest.raises(ValueError, match="free edge needs"):
                choose_method(e)


@pytest.mark.parametrize("e,solver", [
    (edges(SS, SS, SS, SS), lambda b, e, *a, **k: navier_plate(b, *a, **k)),
    (edges(SS, SS, F, C), levy_plate),
    (edges(F, C, SS, SS), levy_plate),
    (edges(C, SS, C, SS), fd_plate),
])
def test_dispatches_to_the_solver(e, solver):
    x, y = np.array([0.3, 0.5]), np.array([0.6, 0.5])
    got = plate_solution(SQUARE, e, 2.0, 0.3, 1.5, x, y)
    want = solver(SQUARE, e, 2.0, 0.3, 1.5, x, y)
    assert set(got) == {"w", "mx", "my", "mxy", "qx", "qy"}
    for k in got:
        np.testing.assert_array_equal(got[k], want[k])


def test_methods_agree_where_they_overlap():
    x, y = np.array([0.3, 0.5, 0.8]), np.array([0.6, 0.5, 0.1])
    load = lambda x, y: 1 + x * y  # noqa: E731
    ref = plate_solution(SQUARE, SS, 1.0, 0.3, load, x, y, method="levy")
    for method, tol in (("navier", 1e-9), ("fd", 1e-6)):
        r = plate_solution(SQUARE, SS, 1.0, 0.3, load, x, y, method=method)
        np.testing.assert_allclose(r["w"], ref["w"], rtol=tol)


def test_clear_errors():
    with pytest.raises(ValueError, match="Navier series needs all four"):
        plate_solution(SQUARE, edges(SS, SS, C, SS), 1.0, 0.3, 1.0, 0.5, 0.5, method="navier")
    with pytest.raises(ValueError, match="opposite pair"):
        plate_solution(SQUARE, edges(C, SS, C, SS), 1.0, 0.3, 1.0, 0.5, 0.5, method="levy")
    with pytest.raises(ValueError, match="clamped and simply supported"):
        plate_solution(SQUARE, edges(SS, SS, C, F), 1.0, 0.3, 1.0, 0.5, 0.5, method="fd")
    with pytest.raises(ValueError, match="method must be"):
        plate_solution(SQUARE, SS, 1.0, 0.3, 1.0, 0.5, 0.5, method="fem")
    with pytest.raises(ValueError, match="condition must be one of"):
        plate_solution(SQUARE, edges(SS, SS, "hinged", SS), 1.0, 0.3, 1.0, 0.5, 0.5)
    with pytest.raises(ValueError, match="x1 > x0"):
        plate_solution(((1.0, 0.0), (0.0, 1.0)), SS, 1.0, 0.3, 1.0, 0.5, 0.5)
    with pytest.raises(ValueError, match="rigidity"):
        plate_solution(SQUARE, SS, -1.0, 0.3, 1.0, 0.5, 0.5)
    with pytest.raises(ValueError, match="not finite"):
        plate_solution(SQUARE, SS, 1.0, 0.3, lambda x, y: np.full_like(x, np.nan), 0.5, 0.5)


def test_argument_forms_and_shapes():
    obj = SimpleNamespace(left=SS, right=SS, bottom=F, top=F)
    X, Y = np.meshgrid(np.linspace(0, 1, 5), np.linspace(0, 1, 3))
    a = plate_solution(SQUARE, obj, 1.0, 0.3, 2, X, Y)                       # attributes, int load
    b = plate_solution(SQUARE, vars(obj), 1.0, 0.3, lambda x, y: 2.0 + 0 * x, X, Y)  # detected uniform
    c = plate_solution(SQUARE, vars(obj), 1.0, 0.3, 2.0, X.ravel(), Y.ravel())
    d = plate_solution(SQUARE, vars(obj), 1.0, 0.3, 2.0, 0.5, 0.5)
    for k in a:
        assert a[k].shape == X.shape and c[k].shape == (15,) and d[k].shape == ()
        np.testing.assert_array_equal(a[k], b[k])
        np.testing.assert_allclose(a[k].ravel(), c[k], rtol=1e-13, atol=1e-16)
    assert d["w"] == pytest.approx(a["w"][1, 2], rel=1e-13)
