"""The finite-element plate reference (solvers/classical/fem): the mesher's facets and areas, Morley's and
Argyris' convergence against exact solutions (Navier's single-term square, Timoshenko's clamped square, Lévy's
series with free edges), the L-shaped clamped plate's reference and its symmetry, and bad input.
The measured numbers behind the thresholds: docs/notes/fem_reference.md."""
import numpy as np
import pytest

pytest.importorskip("skfem")
pytest.importorskip("triangle")

from sciml.equations.plate_reference import levy_plate  # noqa: E402
from sciml.solvers.classical.fem import Loop, Region, circle, mesh, plate, polygon, reference  # noqa: E402
from sciml.solvers.classical.fem.mesh import reentrant_corners  # noqa: E402

D, NU = 1.0, 0.3
L_SHAPE = [[0, 0], [1, 0], [1, 0.5], [0.5, 0.5], [0.5, 1], [0, 1]]
TIMOSHENKO_W = 0.00126532  # clamped square, centre deflection / (q a^4 / D), Timoshenko & Woinowsky-Krieger Table 35
TIMOSHENKO_MX = 0.0231  # its centre moment / (q a^2), same table (nu = 0.3)


def rel(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def grid(n, lo=0.0, hi=1.0):
    g = lo + (hi - lo) * (np.arange(n) + 0.5) / n
    X, Y = np.meshgrid(g, g, indexing="ij")
    return np.c_[X.ravel(), Y.ravel()]


def facet_lengths(m, facets):
    a, b = m.p[:, m.facets[0, facets]], m.p[:, m.facets[1, facets]]
    return np.linalg.norm(b - a, axis=0)


def element_areas(m):
    e1, e2 = m.p[:, m.t[1]] - m.p[:, m.t[0]], m.p[:, m.t[2]] - m.p[:, m.t[0]]
    return 0.5 * np.abs(e1[0] * e2[1] - e1[1] * e2[0])


# ---------------------------------------------------------------------------------------------------- the mesher

def test_mesh_facets_lengths_and_holes():
    outer = Loop(np.array(L_SHAPE, dtype=float), ("bottom", "right", "step", "step", "top", "left"))
    square_hole = Loop(np.array([[0.1, 0.1], [0.1, 0.3], [0.3, 0.3], [0.3, 0.1]]), ("sq",) * 4)  # clockwise
    region = Region((outer, square_hole, circle([0.7, 0.25], 0.1, 24, "hole")))
    m, edges = mesh(region, 0.05)
    assert set(edges) == {"bottom", "right", "step", "top", "left", "sq", "hole"}
    assert m.boundaries is not None and set(m.boundaries) == set(edges)
    # every boundary facet exactly once
    tagged = np.concatenate(list(edges.values()))
    assert len(tagged) == len(np.unique(tagged))
    np.testing.assert_array_equal(np.sort(tagged), np.sort(m.boundary_facets()))
    # total length per name = the polygon's edges of that name; each facet on its edge's line
    for loop in region.loops:
        for name in set(loop.names):
            want = sum(length for length, n in zip(loop.lengths, loop.names) if n == name)
            np.testing.assert_allclose(facet_lengths(m, edges[name]).sum(), want, rtol=1e-12)
    mid = m.p[:, m.facets[:, edges["top"]]].mean(axis=1)
    np.testing.assert_allclose(mid[1], 1.0)
    assert np.all((mid[0] > 0) & (mid[0] < 0.5))
    # the holes' areas are excluded
    hole_area = 0.04 + 0.5 * 24 * 0.1**2 * np.sin(2 * np.pi / 24)
    np.testing.assert_allclose(element_areas(m).sum(), 0.75 - hole_area, rtol=1e-12)
    np.testing.assert_allclose(region.area, 0.75 - hole_area, rtol=1e-12)
    # conforming: every interior facet has two elements, boundary ones one
    assert np.all(m.f2t[1, m.boundary_facets()] == -1)
    interior = np.setdiff1d(np.arange(m.facets.shape[1]), m.boundary_facets())
    assert np.all(m.f2t[1, interior] >= 0)
    # element size about h: no element larger than the area limit, mean side between h/2 and h
    assert element_areas(m).max() <= np.sqrt(3) / 4 * 0.05**2 * (1 + 1e-9)
    side = np.sqrt(element_areas(m).mean() * 4 / np.sqrt(3))
    assert 0.025 < side < 0.05


def test_mesh_grading_toward_reentrant_corner():
    region = polygon(L_SHAPE, "c")
    corners = reentrant_corners(region)
    assert len(corners) == 1 and np.allclose(corners[0][0], [0.5, 0.5])
    assert len(reentrant_corners(polygon([[0, 0], [1, 0], [1, 1], [0, 1]], "s"))) == 0
    uniform, _ = mesh(region, 0.05)
    graded, _ = mesh(region, 0.05, grading=2 / 3)
    near = lambda m: np.linalg.norm(m.p[:, m.t].mean(axis=1) - 0.5, axis=0) < 0.05  # noqa: E731
    assert element_areas(graded)[near(graded)].max() < 0.25 * element_areas(uniform)[near(uniform)].min()
    assert graded.t.shape[1] < 4 * uniform.t.shape[1]  # grading costs a constant factor


# ------------------------------------------------------------------------------------------ exact solutions

def sine_square(pts, q0=1.0):
    """Navier's single term: q = q0 sin(pi x) sin(pi y) on the simply supported unit square."""
    W = q0 / (4 * np.pi**4 * D)
    s = np.sin(np.pi * pts[:, 0]) * np.sin(np.pi * pts[:, 1])
    c = np.cos(np.pi * pts[:, 0]) * np.cos(np.pi * pts[:, 1])
    return {"w": W * s, "mx": D * (1 + NU) * np.pi**2 * W * s, "mxy": -D * (1 - NU) * np.pi**2 * W * c,
            "qx": 2 * np.pi**3 * D * W * np.cos(np.pi * pts[:, 0]) * np.sin(np.pi * pts[:, 1])}


def sine_load(x, y):
    return np.sin(np.pi * x) * np.sin(np.pi * y)


def test_simply_supported_square_morley_orders():
    """Morley: w converges at order 2 in L2 (measured 2.16, 2.08), the recovered moment mx at about 2 (1.74,
    1.90); the errors at h = 0.05 were 7.8e-3 (w) and 1.85e-2 (mx)."""
    square = polygon([[0, 0], [1, 0], [1, 1], [0, 1]], "s")
    pts = grid(20)
    exact = sine_square(pts)
    errors = []
    for h in (0.2, 0.1, 0.05):
        f = plate(square, {"s": "simply_supported"}, D, NU, sine_load, h).fields(pts)
        assert "qx" not in f
        errors.append([rel(f["w"], exact["w"]), rel(f["mx"], exact["mx"]), rel(f["mxy"], exact["mxy"])])
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(orders[:, 0] > 1.8), orders
    assert np.all(orders[:, 1] > 1.5), orders
    assert np.all(orders[:, 2] > 1.0), orders
    assert errors[-1][0] < 1e-2 and errors[-1][1] < 2.5e-2


def test_simply_supported_square_argyris():
    """Argyris: w, the moments and (from its third derivatives) the shear force; measured at h = 0.25:
    w 2.7e-6, mx 2.4e-4, qx 3.0e-3; at h = 0.125: w 3.1e-8, mx 1.3e-5, qx 3.6e-4."""
    square = polygon([[0, 0], [1, 0], [1, 1], [0, 1]], "s")
    pts = grid(20)
    exact = sine_square(pts)
    errors = []
    for h in (0.25, 0.125):
        f = plate(square, {"s": "simply_supported"}, D, NU, sine_load, h, element="argyris").fields(pts)
        errors.append({k: rel(f[k], exact[k]) for k in exact})
    assert errors[1]["w"] < 1e-7 and errors[1]["mx"] < 5e-5 and errors[1]["qx"] < 1e-3, errors
    assert all(errors[1][k] < errors[0][k] / 4 for k in exact), errors


def test_rotated_square_morley():
    """Morley on a square turned by 30 degrees (no edge along an axis): the same accuracy as the aligned one."""
    c, s = np.cos(np.pi / 6), np.sin(np.pi / 6)
    R = np.array([[c, -s], [s, c]])
    square = polygon(np.array([[0, 0], [1, 0], [1, 1], [0, 1]]) @ R.T, "s")
    to_local = lambda x, y: (c * x + s * y, -s * x + c * y)  # noqa: E731
    pts = grid(20) @ R.T
    exact = sine_square(grid(20))
    errors = []
    for h in (0.1, 0.05):
        f = plate(square, {"s": "simply_supported"}, D, NU, lambda x, y: sine_load(*to_local(x, y)), h).fields(pts)
        errors.append(rel(f["w"], exact["w"]))
    assert errors[1] < 1e-2 and np.log2(errors[0] / errors[1]) > 1.7, errors


def test_clamped_square_timoshenko():
    """Centre deflection against Timoshenko's 0.00126532 q a^4 / D: Morley 11.6 %, 2.8 %, 0.70 % at h = 0.1,
    0.05, 0.025 (from above); Argyris -2.9e-5 at h = 0.25."""
    square = polygon([[0, 0], [1, 0], [1, 1], [0, 1]], "c")
    centre = np.array([[0.5, 0.5]])
    errors = []
    for h in (0.1, 0.05, 0.025):
        f = plate(square, {"c": "clamped"}, D, NU, 1.0, h).fields(centre)
        errors.append(f["w"][0] / TIMOSHENKO_W - 1.0)
    assert errors[0] > errors[1] > errors[2] > 0, errors
    assert errors[2] < 1e-2, errors
    f = plate(square, {"c": "clamped"}, D, NU, 1.0, 0.25, element="argyris").fields(centre)
    assert abs(f["w"][0] / TIMOSHENKO_W - 1.0) < 1e-4
    assert abs(f["mx"][0] / TIMOSHENKO_MX - 1.0) < 1e-2  # the table gives 3 digits
    assert abs(f["mx"][0] - f["my"][0]) < 2e-3 * f["mx"][0] and abs(f["mxy"][0]) < 1e-3 * f["mx"][0]  # 8e-4, 4e-4


def test_a_rectangle_s_structured_mesh_holds_a_patch_s_jumps_and_the_clamped_square_is_timoshenko_s():
    """:func:`on_rectangle`: the clamped square under a uniform load at the centre within 1e-5 of Timoshenko's
    0.00126532 (h = 1/8: -3.7e-6); a point-like patch on the simply supported square within 1e-5 of Navier's series
    with its edges among the mesh's lines (h = 1/16: 1.0e-6) and 100 times farther without them (8.3e-2: the jump
    inside elements), the patch study's reference (docs/notes/fem_reference.md, "Patch loads")."""
    from sciml.equations.plate_reference import ood_loads
    from sciml.equations.plate_reference import random_loads as rl
    from sciml.solvers.classical.fem.mesh import rectangle
    from sciml.solvers.classical.fem.plate import on_rectangle

    uniform = on_rectangle((0, 1), (0, 1), "clamped", D, NU, lambda x, y: np.ones_like(x), 1 / 8)
    assert abs(uniform.fields(np.array([[0.5, 0.5]]))["w"][0] * D / TIMOSHENKO_W - 1) < 1e-5
    g = np.linspace(0.0, 1.0, 17)
    points = np.stack([a.ravel() for a in np.meshgrid(g, g, indexing="ij")], axis=1)
    q_mn, load = {k: (c, f) for k, c, f in ood_loads.drawn(grf=0, patches=1, terms=64)}["patch_point"]
    series = rl.solution(q_mn, g, D, NU)["w"].ravel()
    xs, ys = load.lines()
    error = [np.linalg.norm(on_rectangle(a, b, "simply_supported", D, NU, load, 1 / 16).fields(points)["w"] - series)
             / np.linalg.norm(series) for a, b in (((0, *xs, 1), (0, *ys, 1)), ((0, 1), (0, 1)))]
    assert error[0] < 1e-5 and error[1] > 100 * error[0], error
    m, edges = rectangle((0, *xs, 1), (0, *ys, 1), 1 / 16)
    lines = [np.unique(m.p[a]) for a in (0, 1)]
    assert all(np.isclose(lines[0], v).any() for v in xs) and all(np.isclose(lines[1], v).any() for v in ys)
    assert max(np.diff(lines[0]).max(), np.diff(lines[1]).max()) <= 1 / 16 + 1e-12
    assert len(edges["edge"]) == 2 * (len(lines[0]) - 1 + len(lines[1]) - 1)  # every boundary facet, one name
    with pytest.raises(ValueError, match="clamped or simply supported"):
        on_rectangle((0, 1), (0, 1), "free", D, NU, 1.0, 0.5)


def test_free_edges_against_levy():
    """Simply supported left and right, free bottom and top, uniform load: Lévy's series. Measured: Morley at
    h = 0.05 w 3.3e-3, my 2.5e-2; Argyris at h = 0.25 w 7.1e-7, my 9.9e-4."""
    square = polygon([[0, 0], [1, 0], [1, 1], [0, 1]], ["bottom", "right", "top", "left"])
    conditions = {"bottom": "free", "top": "free", "left": "simply_supported", "right": "simply_supported"}
    pts = grid(20)
    exact = levy_plate(((0, 1), (0, 1)), conditions, D, NU, 1.0, pts[:, 0], pts[:, 1])
    f = plate(square, conditions, D, NU, 1.0, 0.05).fields(pts)
    assert rel(f["w"], exact["w"]) < 5e-3 and rel(f["my"], exact["my"]) < 4e-2
    f = plate(square, conditions, D, NU, 1.0, 0.25, element="argyris").fields(pts)
    assert rel(f["w"], exact["w"]) < 2e-6 and rel(f["my"], exact["my"]) < 2e-3
    assert rel(f["qy"], exact["qy"]) < 5e-2


# ------------------------------------------------------------------------------------------- the L-shaped plate

def l_points(n=20):
    pts = grid(n)
    return pts[~((pts[:, 0] > 0.5) & (pts[:, 1] > 0.5))]


def swap(pts):
    return pts[:, ::-1]


def test_l_shaped_clamped_reference_converges_and_is_symmetric():
    """The reference (Argyris for these axis-aligned edges) halves h until w changes by under 1e-3; measured
    changes 1.9e-3, 1.6e-4 (elements 453, 1426, 5472). The plate is symmetric about y = x; the meshes are not."""
    region = polygon(L_SHAPE, "c")
    pts = l_points()
    both = np.concatenate([pts, swap(pts)])
    f, info = reference(region, {"c": "clamped"}, D, NU, 1.0, both, rtol=1e-3)
    assert info["element"] == "argyris"
    c = info["changes"]
    assert c[-1] < 1e-3 and all(b < a for a, b in zip(c, c[1:])), info
    assert len(info["h"]) == len(info["elements"]) == len(c) + 1 and info["wall_seconds"] > 0
    n = len(pts)
    assert rel(f["w"][:n], f["w"][n:]) < 2e-4
    far = np.linalg.norm(pts - 0.5, axis=1) > 0.05
    assert rel(f["mx"][:n][far], f["my"][n:][far]) < 2e-3
    assert rel(f["mxy"][:n][far], f["mxy"][n:][far]) < 2e-3
    # Morley on its own graded mesh agrees (measured 1.5e-2 at h = 0.025 against a finer Argyris reference)
    g = plate(region, {"c": "clamped"}, D, NU, 1.0, 0.025).fields(both)
    assert rel(g["w"], f["w"]) < 2.5e-2


def test_l_shaped_morley_reference_changes_fall():
    region = polygon(L_SHAPE, "c")
    f, info = reference(region, {"c": "clamped"}, D, NU, 1.0, l_points(10), rtol=3e-2, h0=0.1, element="morley")
    assert info["element"] == "morley" and info["changes"][-1] < 3e-2
    assert all(b < a / 2.5 for a, b in zip(info["changes"], info["changes"][1:])), info  # order ~2: ratio ~4
    with pytest.raises(ValueError, match="did not converge"):
        reference(region, {"c": "clamped"}, D, NU, 1.0, l_points(10), rtol=1e-6, h0=0.1, element="morley",
                  max_elements=5000)


# ---------------------------------------------------------------------------------------------------- bad input

def test_bad_conditions_name_the_problem():
    region = polygon([[0, 0], [1, 0], [1, 1], [0, 1]], ["bottom", "right", "top", "left"])
    good = {"bottom": "clamped", "right": "clamped", "top": "free", "left": "simply_supported"}
    with pytest.raises(ValueError, match="'top'"):
        plate(region, {k: v for k, v in good.items() if k != "top"}, D, NU, 1.0, 0.2)
    with pytest.raises(ValueError, match="'pinned'.*'left'"):
        plate(region, {**good, "left": "pinned"}, D, NU, 1.0, 0.2)
    with pytest.raises(ValueError, match="'side'"):
        plate(region, {**good, "side": "free"}, D, NU, 1.0, 0.2)
    with pytest.raises(ValueError, match="not held"):
        plate(region, dict.fromkeys(good, "free"), D, NU, 1.0, 0.2)
    with pytest.raises(ValueError, match="not held"):  # one simply supported line: the plate turns about it
        plate(region, {**dict.fromkeys(good, "free"), "left": "simply_supported"}, D, NU, 1.0, 0.2)
    with pytest.raises(ValueError, match="unknown element"):
        plate(region, good, D, NU, 1.0, 0.2, element="dkt")
    slanted = polygon([[0, 0], [1, 0], [0, 1]], ["a", "b", "c"])
    with pytest.raises(ValueError, match="'b'.*axis-aligned"):
        plate(slanted, dict.fromkeys("abc", "clamped"), D, NU, 1.0, 0.2, element="argyris")
    with pytest.raises(ValueError, match="outside"):
        plate(region, good, D, NU, 1.0, 0.2).fields(np.array([[0.5, 0.5], [1.5, 0.5]]))


def test_bad_regions():
    with pytest.raises(ValueError, match="3 edge names"):
        Loop(np.array([[0, 0], [1, 0], [0, 1]]), ("a", "b"))
    with pytest.raises(ValueError, match="cross"):  # a bow tie
        polygon([[0, 0], [1, 1], [1, 0], [0, 1]], "s")
    with pytest.raises(ValueError, match="not inside"):
        Region((polygon([[0, 0], [1, 0], [1, 1], [0, 1]], "s").loops[0], circle([2, 2], 0.1, 8, "h")))
    with pytest.raises(ValueError, match="positive"):
        mesh(polygon([[0, 0], [1, 0], [1, 1], [0, 1]], "s"), 0.0)
