"""The finite-element flow reference (solvers/classical/fem/flow.py): Poiseuille's channel flow exactly (P2/P1
hold it, with the do-nothing outflow and the density), DFG 2D-1's drag, lift and pressure difference on two
coarse meshes with the drag's error falling at the expected rate, and bad conditions.
The measured numbers behind the thresholds: docs/notes/fem_reference.md."""
import numpy as np
import pytest

pytest.importorskip("skfem")
pytest.importorskip("triangle")

from sciml.equations.ns_dfg import DFG  # noqa: E402
from sciml.solvers.classical.fem import Loop, Region, circle, polygon, steady  # noqa: E402
from sciml.solvers.classical.fem.flow import reference  # noqa: E402

DFG_INFLOW = lambda x, y: 4 * 0.3 * y * (0.41 - y) / 0.41**2  # noqa: E731
DFG_CONDITIONS = {"walls": (0, 0), "outlet": "do_nothing", "inlet": (DFG_INFLOW, 0), "cylinder": (0, 0)}


def dfg_region(h: float) -> Region:
    """The DFG channel and its cylinder as a polygon whose sides are half the element side near it (h / 4)."""
    n = int(4 * np.ceil(2 * np.pi * 0.05 / (h / 8) / 4))
    outer = Loop(np.array([[0, 0], [2.2, 0], [2.2, 0.41], [0, 0.41]]), ("walls", "outlet", "walls", "inlet"))
    return Region((outer, circle([0.2, 0.2], 0.05, n, "cylinder")))


def test_poiseuille_flow_is_exact():
    nu, rho, U, H, L = 0.05, 2.0, 1.5, 1.0, 2.0
    channel = polygon([[0, 0], [L, 0], [L, H], [0, H]], ["wall", "outlet", "wall", "inlet"])
    parabola = lambda x, y: 4 * U * y * (H - y) / H**2  # noqa: E731
    sol = steady(channel, {"wall": (0, 0), "outlet": "do_nothing", "inlet": (parabola, 0)}, nu, 0.25, rho=rho)
    pts = np.random.default_rng(0).uniform([0, 0], [L, H], (200, 2))
    f = sol.fields(pts)
    np.testing.assert_allclose(f["u"], parabola(*pts.T), atol=1e-10)
    np.testing.assert_allclose(f["v"], 0.0, atol=1e-10)
    # nu u'' = p_x / rho, and the do-nothing outflow nu du/dn - p / rho = 0 sets p = 0 at x = L
    np.testing.assert_allclose(f["p"], rho * nu * 8 * U / H**2 * (L - pts[:, 0]), atol=1e-9)
    np.testing.assert_allclose(f["vorticity"], -4 * U * (H - 2 * pts[:, 1]) / H**2, atol=1e-9)
    assert sol.info["iterations"] <= 2 and sol.info["residual"] < 1e-12


def test_dfg_2d1_drag_lift_and_pressure_difference_converge():
    ref = DFG["2D-1"].references
    errors = []
    for h in (0.08, 0.04):  # 747 and 2463 elements; 1 s and 4 s on a quiet core
        sol = steady(dfg_region(h), DFG_CONDITIONS, 1e-3, h, near="cylinder")
        c = sol.coefficients("cylinder", 0.2, 0.1)
        p = sol.fields(np.array([[0.15, 0.2], [0.25, 0.2]]))["p"]
        errors.append({"c_D": abs(c["c_D"] / ref["c_D"] - 1), "c_L": abs(c["c_L"] / ref["c_L"] - 1),
                       "delta_p": abs((p[0] - p[1]) / ref["delta_p"] - 1)})
    coarse, fine = errors
    # measured: c_D 3.9e-3 then 5.7e-4 (order 2.8), c_L 1.2e-2 then 4.4e-2, delta_p 4.1e-3 then 6.7e-3
    assert coarse["c_D"] < 6e-3 and fine["c_D"] < 1e-3 and fine["c_D"] < coarse["c_D"] / 4
    assert fine["c_L"] < 0.06 and fine["delta_p"] < 0.01


def test_forces_are_the_discrete_residual_and_reference_records_them():
    square = Loop(np.array([[0.4, 0.4], [0.6, 0.4], [0.6, 0.6], [0.4, 0.6]]), ("block",) * 4)
    outer = Loop(np.array([[0, 0], [2, 0], [2, 1], [0, 1]], float), ("wall", "outlet", "wall", "inlet"))
    region = Region((outer, square))
    cond = {"wall": (0, 0), "outlet": "do_nothing", "inlet": (lambda x, y: 6 * y * (1 - y), 0), "block": (0, 0)}
    points = np.array([[1.0, 0.25], [1.5, 0.5]])
    fields, info = reference(region, cond, 0.1, points, rtol=2e-2, h0=0.2, near="block", scales=(1.0, 0.2))
    assert info["changes"][-1] < 2e-2 and len(info["coefficients"]) == len(info["h"]) >= 2
    c_d = [c["c_D"] for c in info["coefficients"]]
    assert c_d[-1] > 0 and abs(c_d[-1] / c_d[-2] - 1) < 0.02  # dragged along the flow, settling
    assert abs(info["coefficients"][-1]["c_L"]) < 0.02 * c_d[-1]  # a block on the axis: no lift but the mesh's
    assert fields["u"][1] > 0 and set(fields) == {"u", "v", "p", "vorticity", "speed"}


@pytest.mark.parametrize("conditions, message", [
    ({"wall": (0, 0)}, "no condition for edge name(s) ['out']"),
    ({"wall": (0, 0), "out": "do_nothing", "lid": (1, 0)}, "condition(s) for edge name(s) ['lid']"),
    ({"wall": (0, 0), "out": "slip"}, "unknown condition 'slip' for edge 'out'"),
    ({"wall": (0, 0, 0), "out": "do_nothing"}, "the velocity of edge 'wall' must be a pair"),
    ({"wall": "do_nothing", "out": "do_nothing"}, "no edge has a velocity"),
])
def test_bad_conditions(conditions, message):
    square = polygon([[0, 0], [1, 0], [1, 1], [0, 1]], ["wall", "out", "wall", "wall"])
    with pytest.raises(ValueError) as e:
        steady(square, conditions, 0.1, 0.5)
    assert str(e.value).startswith(message), str(e.value)
