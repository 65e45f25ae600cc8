"""The Kirchhoff plate: nondimensional residuals vanish on exact solutions; edge rules; physical fields."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.config import build
from sciml.equations.fields import collect, evaluator
from sciml.equations.plate import KirchhoffPlate, PlateConfig
from sciml.solvers.pinn.geometry import Rectangle

STEEL = {"type": "kirchhoff_plate", "E": 201880.0e6, "nu": 0.25, "thickness": 0.01,
         "load": "980 * sin(pi * x / 2) * sin(pi * y / 3)"}
BOUNDS = ((0.0, 2.0), (0.0, 3.0))


def plate(**changes):
    return KirchhoffPlate(build(PlateConfig, {**STEEL, **changes}), Rectangle(*BOUNDS))


def evaluate(eq, fn, net, x, mode="taylor"):
    """``fn`` of the fields of ``net`` at ``x``, jitted as in training (op by op, the derivatives compile hundreds
    of small programs)."""
    req = collect(fn, eq.fields, eq.coords)
    return jax.jit(lambda x: fn(evaluator(net, req, eq.fields, eq.coords, mode=mode)(x)))(x)


def exact_hat(eq):
    """The exact sine solution in nondimensional variables: w/W = sin(pi x/a) sin(pi y/b)."""
    def net(xh):
        x = eq.to_physical(xh)
        return (jnp.sin(jnp.pi * x[..., 0] / eq.a) * jnp.sin(jnp.pi * x[..., 1] / eq.b))[..., None]
    return net


def test_rigidity_and_scales():
    eq = plate()
    assert eq.D == pytest.approx(201880.0e6 * 0.01**3 / (12 * (1 - 0.25**2)))
    assert eq.q0 == pytest.approx(980.0, rel=1e-3)  # max on a 101 x 101 grid, incl. the centre
    assert eq.c == pytest.approx(math.pi**4 * 1.5**4 * (1 / 4 + 1 / 9) ** 2)


@pytest.mark.parametrize("mode", ["taylor", "nested"])
def test_exact_solution_has_zero_residuals(mode):
    eq = plate()
    rng = np.random.default_rng(0)
    xh = jnp.asarray(eq.to_nondim(np.c_[2 * rng.random(50), 3 * rng.random(50)]))
    r = evaluate(eq, eq.interior, exact_hat(eq), xh, mode)["pde"]
    np.testing.assert_allclose(r, 0.0, atol=1e-10)
    for part, pts in {"left": [0.0, 1.1], "right": [2.0, 0.4], "bottom": [0.7, 0.0], "top": [1.3, 3.0]}.items():
        normal = {"left": [-1.0, 0.0], "right": [1.0, 0.0], "bottom": [0.0, -1.0], "top": [0.0, 1.0]}[part]
        xb = jnp.asarray(eq.to_nondim(np.array([pts])))
        res = evaluate(eq, lambda d: eq.boundary(part, d, jnp.asarray([normal])), exact_hat(eq), xb, mode)
        assert set(res) == {"w", "m"}
        for v in res.values():
            np.testing.assert_allclose(v, 0.0, atol=1e-10)


def test_edge_rules_match_hand_formulas():
    """Clamped and free rules on the top (n = +y) and left (n = -x) edges of a polynomial field."""
    eq = plate(edges={"top": "free", "left": "clamped"})
    nu = eq.nu
    c = np.random.default_rng(1).normal(size=(5, 5))

    def net(xh):
        x, y = xh[..., 0], xh[..., 1]
        return sum(c[i, j] * x**i * y**j for i in range(5) for j in range(5))[..., None]

    def poly(i0, j0, x, y):  # ∂x^i0 ∂y^j0 of the polynomial
        tot = 0.0
        for i in range(i0, 5):
            for j in range(j0, 5):
                tot += c[i, j] * math.perm(i, i0) * math.perm(j, j0) * x ** (i - i0) * y ** (j - j0)
        return tot

    x, y = 0.3, -0.6
    pt = jnp.asarray([[x, y]])
    top = evaluate(eq, lambda d: eq.boundary("top", d, jnp.asarray([[0.0, 1.0]])), net, pt)
    assert float(top["m"][0]) == pytest.approx(poly(0, 2, x, y) + nu * poly(2, 0, x, y), rel=1e-10)
    assert float(top["v"][0]) == pytest.approx(poly(0, 3, x, y) + (2 - nu) * poly(2, 1, x, y), rel=1e-10)
    left = evaluate(eq, lambda d: eq.boundary("left", d, jnp.asarray([[-1.0, 0.0]])), net, pt)
    assert float(left["w"][0]) == pytest.approx(poly(0, 0, x, y), rel=1e-10)
    assert float(left["dw"][0]) == pytest.approx(-poly(1, 0, x, y), rel=1e-10)


def test_free_corners():
    assert len(plate(edges={"top": "free", "right": "free"}).corners()) == 1
    assert len(plate(edges={"top": "free", "bottom": "free"}).corners()) == 0


def test_derived_fields_in_physical_units():
    eq = plate()
    X = np.array([[0.5, 1.2]])
    out = evaluate(eq, eq.derived, exact_hat(eq), jnp.asarray(eq.to_nondim(X)))
    a, b, D, nu = 2.0, 3.0, eq.D, 0.25
    A = 980 / (D * math.pi**4 * (1 / a**2 + 1 / b**2) ** 2)
    kx, ky, (x, y) = math.pi / a, math.pi / b, X[0]
    w = A * math.sin(kx * x) * math.sin(ky * y)
    assert float(out["w"][0]) == pytest.approx(w, rel=1e-9)
    assert float(out["mx"][0]) == pytest.approx(D * (kx**2 + nu * ky**2) * w, rel=1e-9)
    assert float(out["mxy"][0]) == pytest.approx(-D * (1 - nu) * A * kx * ky * math.cos(kx * x) * math.cos(ky * y), rel=1e-9)
    assert float(out["qx"][0]) == pytest.approx(D * (kx**2 + ky**2) * A * kx * math.cos(kx * x) * math.sin(ky * y), rel=1e-9)


def test_steel_and_unit_plate_train_alike():
    """Nondimensionalisation: the residuals of steel and D = 1 plates are the same functions."""
    steel, unit = plate(), plate(E=None, thickness=None, D=1.0, load="sin(pi * x / 2) * sin(pi * y / 3)")
    net = lambda xh: jnp.tanh(xh @ jnp.array([[0.3], [-0.7]]) + 0.1)
    xh = jnp.asarray([[0.1, 0.2], [-0.5, 0.9]])
    np.testing.assert_allclose(evaluate(steel, steel.interior, net, xh)["pde"],
                               evaluate(unit, unit.interior, net, xh)["pde"], rtol=1e-9)


@pytest.mark.parametrize("edges", [
    {},  # simply supported
    {"left": "clamped", "right": "clamped", "bottom": "clamped", "top": "clamped"},
    {"bottom": "free", "top": "free"},  # the 2 m x 1 m case: spans like a beam between the supported edges
])
def test_deflection_scale_follows_the_supports(edges):
    """Under a uniform load the reference deflection is of order W, whatever the edges (the network's output
    stays of order one: the 'all supported' formula would give max|w|/W of about 30 for free long edges)."""
    eq = KirchhoffPlate(build(PlateConfig, {**STEEL, "load": 1000.0, "edges": edges}),
                        Rectangle((-1.0, 1.0), (-0.5, 0.5)))
    x, y = np.meshgrid(np.linspace(-1, 1, 41), np.linspace(-0.5, 0.5, 21), indexing="ij")
    w = eq.reference(np.stack([x.ravel(), y.ravel()], axis=1))["w"]
    assert 0.2 < np.abs(w).max() / eq.W < 5.0


L_SHAPE = [(0, 0), (1, 0), (1, 0.5), (0.5, 0.5), (0.5, 1), (0, 1)]


@pytest.mark.parametrize("edges, geometry, changes, message", [
    (dict.fromkeys(("left", "right", "bottom", "top"), "free"), "rectangle", {}, "edges: a plate with every edge free"),
    ({"lefft": "clamped"}, "rectangle", {}, "edges.lefft: unknown part 'lefft' (did you mean 'left'?)"),
    ({"a.edge3": "free"}, "csg", {}, "edges.a.edge3: free edges need the corners of the plate's boundary"),
    ({}, "polygon", {"aspect": 2.0}, "aspect: a stretched plate is a rectangle"),
])
def test_the_edges_name_parts_of_the_geometry(edges, geometry, changes, message):
    from sciml.errors import Invalid
    from sciml.solvers.pinn.geometry import Csg, Polygon

    domain = Rectangle(*BOUNDS) if geometry == "rectangle" else Polygon(L_SHAPE) if geometry == "polygon" else \
        Csg("union", [("a", Polygon(L_SHAPE)), ("b", Rectangle((0.9, 1.2), (0.1, 0.2)))])
    with pytest.raises(Invalid) as e:
        KirchhoffPlate.check_geometry(build(PlateConfig, {**STEEL, **changes, "edges": edges}), domain)
    assert str(e.value).startswith(message), str(e.value)


def test_a_plate_on_a_polygon_is_simply_supported_where_not_named_and_has_no_series():
    from sciml.solvers.pinn.geometry import Polygon

    domain = Polygon(L_SHAPE, names=["a", "a", "b", "b", "a", "a"])
    config = build(PlateConfig, {**STEEL, "edges": {"b": "clamped"}})
    KirchhoffPlate.check_geometry(config, domain)
    eq = KirchhoffPlate(config, domain)
    assert (config.edge("a"), config.edge("b")) == ("simply_supported", "clamped")
    assert eq.reference(np.array([[0.25, 0.25]])) is None and len(eq.corners()) == 0




def test_free_edges_on_a_polygon_hold_the_corner_force_at_its_convex_corners():
    """A square turned by 30 degrees, one edge held and three free: the two corners between free edges carry the
    corner condition, half the jump of w_nt (w_uv at a right angle, in the square's own axes u, v), and the free
    edges' residuals are the rectangle's M_n and V_n along the turned normals; a polygonal hole's free corners
    (re-entrant, where the moments are singular) carry none."""
    from sciml.solvers.pinn.geometry import Polygon

    a = math.radians(30.0)
    e0, e1 = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    square = [0 * e0, e0, e0 + e1, e1]
    domain = Polygon(square, names=["held", "free", "free", "free"],
                     holes=[([[0.4, 0.4], [0.6, 0.4], [0.6, 0.6], [0.4, 0.6]] @ np.stack([e0, e1]), "slot")])
    config = build(PlateConfig, {**STEEL, "load": 1000.0, "edges": {"free": "free", "slot": "free"}})
    KirchhoffPlate.check_geometry(config, domain)
    eq = KirchhoffPlate(config, domain)
    points, fn = eq.point_sets()["corner"]
    np.testing.assert_allclose(points, [e0 + e1, e1], atol=1e-12)
    xh = jnp.asarray(eq.to_nondim(points))
    u, v = jnp.asarray(e0), jnp.asarray(e1)
    twist = lambda x: ((x @ u) * (x @ v))[..., None]  # w_uv = 1, w_uu = w_vv = 0
    bowl = lambda x: ((x @ u) ** 2 + (x @ v) ** 2)[..., None]  # w_uv = 0
    np.testing.assert_allclose(np.abs(evaluate(eq, fn, twist, xh)["mxy"]), 1.0, rtol=1e-12)
    np.testing.assert_allclose(evaluate(eq, fn, bowl, xh)["mxy"], 0.0, atol=1e-12)
    # the free edge's moment along its turned normal: edge1's normal is u, so M_n ~ w_uu + nu w_vv
    b, n = domain.boundary("free", 4, np.random.default_rng(0))
    res = evaluate(eq, lambda d: eq.boundary("free", d, jnp.asarray(n)), bowl, jnp.asarray(eq.to_nondim(b)))
    np.testing.assert_allclose(res["m"], 2 * (1 + config.nu), rtol=1e-12)


def test_errors_are_also_reported_away_from_the_re_entrant_corners():
    """Off the rectangle the plate names the region ``away``: the points farther than 0.05 of the longer side from
    every re-entrant corner (the L's, a polygonal hole's), where the moments are bounded; none on a rectangle or a
    polygon without such corners. evaluation.errors reports each field there as rel_l2_<field>_away."""
    from sciml.solvers.pinn.geometry import Polygon
    from sciml.solvers.pinn.output.evaluation import errors

    config = build(PlateConfig, {**STEEL, "load": 1000.0})
    L = KirchhoffPlate(config, Polygon(L_SHAPE, holes=[([[0.1, 0.1], [0.3, 0.1], [0.3, 0.3], [0.1, 0.3]], "sq")]))
    pts = np.array([[0.52, 0.52], [0.6, 0.45], [0.25, 0.75], [0.32, 0.32], [0.2, 0.35]])
    np.testing.assert_array_equal(L.error_regions(pts)["away"], [False, True, True, False, True])
    assert plate().error_regions(pts) == {}
    assert KirchhoffPlate(config, Polygon([(0, 0), (1, 0), (0.5, 1)])).error_regions(pts) == {}
    dom = Polygon(L_SHAPE)
    ev = dom.evaluation_points([5, 5])
    ref = {"mx": np.ones(ev.shape)}
    pred = {"mx": np.where(np.hypot(ev.points[:, 0] - 0.5, ev.points[:, 1] - 0.5) < 0.01, 3.0, 1.0).reshape(ev.shape)}
    _, m = errors(pred, ref, ev, regions=KirchhoffPlate(config, dom).error_regions(ev.points))
    assert m["rel_l2_mx"] > 0.3 and m["rel_l2_mx_away"] == 0.0


def test_a_free_circular_hole_reads_its_curvature():
    """On a hole's circle the Kirchhoff force turns with the edge: for radial w = f(r) about the hole's centre it is
    -d(Δw)/dr, so 0 for ln r and r^2 (no shear: the hole in a plate under uniform bending) and -9 for r^3; the
    straight-edge form alone would give 2 (1 - nu) / R^3 for ln r."""
    domain = Rectangle((0.0, 2.0), (0.0, 2.0), holes=[((1.0, 1.0), 0.25, "hole")])
    config = build(PlateConfig, {**STEEL, "load": 1000.0, "edges": {"hole": "free"}})
    KirchhoffPlate.check_geometry(config, domain)
    eq = KirchhoffPlate(config, domain)
    assert eq.L == 1.0 and eq.curvature("hole") == -4.0 and eq.curvature("left") == 0.0
    b, n = domain.boundary("hole", 16, np.random.default_rng(0))
    xh, nn = jnp.asarray(eq.to_nondim(b)), jnp.asarray(n)
    radius = lambda x: jnp.sqrt(jnp.sum(x * x, axis=-1))
    for f, want in ((lambda x: jnp.log(radius(x)), 0.0), (lambda x: jnp.sum(x * x, axis=-1), 0.0),
                    (lambda x: radius(x) ** 3, -9.0)):
        res = evaluate(eq, lambda d: eq.boundary("hole", d, nn), lambda x, f=f: f(x)[..., None], xh)
        np.testing.assert_allclose(res["v"], want, atol=1e-9)


# --- the energy form (form: energy) --------------------------------------------------------------------------------
def _gauss_square(n):
    """Gauss-Legendre points and weights on the nondimensional square [-1, 1]^2 (exact for the polynomials here)."""
    t, w = np.polynomial.legendre.leggauss(n)
    x, y = np.meshgrid(t, t, indexing="ij")
    return jnp.asarray(np.c_[x.ravel(), y.ravel()]), np.outer(w, w).ravel(), t, w


def _vertex(energy):
    """The vertex of the parabola ``energy(a)`` through a = 0.5, 1, 1.5, and its curvature."""
    e0, e1, e2 = energy(0.5), energy(1.0), energy(1.5)
    return 1.0 - 0.5 * (e2 - e0) / (2 * (e2 - 2 * e1 + e0)), e2 - 2 * e1 + e0


def test_the_energy_is_least_at_the_exact_solution():
    """The total potential energy of ``a`` times the exact sine solution, integrated on a Gauss grid, is a parabola
    in ``a`` whose vertex is ``a = 1``: its density is the equation's (rigidity, load and ``c`` scaled alike)."""
    eq = plate(form="energy")
    assert KirchhoffPlate.densities(eq.config) == ("energy",) and KirchhoffPlate.densities(plate().config) == ()
    t, wt = np.polynomial.legendre.leggauss(24)
    x, y = np.meshgrid(eq.to_nondim(np.c_[1 + t, np.zeros_like(t)])[:, 0],
                       eq.to_nondim(np.c_[np.zeros_like(t), 1.5 + 1.5 * t])[:, 1], indexing="ij")
    xh, weights = jnp.asarray(np.c_[x.ravel(), y.ravel()]), np.outer(wt, wt).ravel()
    energy = lambda a: float(np.sum(weights * np.asarray(evaluate(
        eq, eq.interior, lambda z: a * exact_hat(eq)(z), xh)["energy"])))
    vertex, curvature = _vertex(energy)
    assert vertex == pytest.approx(1.0, abs=1e-9) and curvature > 0


def test_the_energy_form_keeps_only_the_conditions_that_hold_w():
    eq = plate(form="energy", edges={"left": "clamped", "top": "free"})
    rng = np.random.default_rng(1)
    xb, n = jnp.asarray(rng.random((3, 2))), jnp.asarray([[1.0, 0.0]] * 3)
    keys = {part: set(evaluate(eq, lambda d, p=part: eq.boundary(p, d, n), exact_hat(eq), xb))
            for part in ("left", "right", "top")}
    assert keys == {"left": {"w", "dw"}, "right": {"w"}, "top": set()}
    assert set(evaluate(eq, eq.interior, exact_hat(eq), xb)) == {"energy"}
    assert plate(form="energy", edges={"top": "free", "right": "free"}).point_sets() == {}


def test_the_energy_s_first_variation_is_the_free_edges_conditions():
    r"""Green's identity behind the natural conditions: for any fields ``w``, ``v`` with ``v = 0`` at the corners,
    the bending energy's first variation :math:`\int \Delta w \Delta v - (1-\nu)(w_{xx} v_{yy} + w_{yy} v_{xx} -
    2 w_{xy} v_{xy})` equals :math:`\int v\,\Delta^2 w + \oint (m\,v_n - V\,v)\,ds` with ``m`` and ``V`` the free
    edge's residuals (:func:`_free`): so where the energy is least and ``v`` is free on an edge, those vanish."""
    eq = KirchhoffPlate(build(PlateConfig, {**STEEL, "load": 0.0, "form": "energy"}), Rectangle((0.0, 2.0), (0.0, 2.0)))
    free = KirchhoffPlate(build(PlateConfig, {**STEEL, "load": 0.0, "edges": {"left": "free"}}),
                          Rectangle((0.0, 2.0), (0.0, 2.0)))  # its left edge's rule, read along every edge
    nu, c = eq.nu, eq.c
    w = lambda z: (z[..., 0] ** 4 * z[..., 1] + 0.7 * z[..., 0] ** 2 * z[..., 1] ** 3 - 0.4 * z[..., 1] ** 5
                   + 0.9 * z[..., 0] ** 3 - 0.3 * z[..., 0] * z[..., 1] ** 2)[..., None]
    v = lambda z: ((1 - z[..., 0] ** 2 * z[..., 1] ** 2) * (1 + 0.3 * z[..., 0] + 0.2 * z[..., 1]
                                                          + 0.5 * z[..., 0] * z[..., 1]))[..., None]
    xh, weights, t, wt = _gauss_square(12)
    energy = lambda s: float(np.sum(weights * np.asarray(evaluate(
        eq, eq.interior, lambda z: w(z) + s * v(z), xh)["energy"])))
    variation = c * (energy(0.5) - energy(-0.5))  # exact: the energy is quadratic in s (no load)
    bilap = evaluate(eq, lambda d: {"b": d.bilap("w")}, w, xh)["b"]
    vin = np.asarray(v(xh))[:, 0]
    rhs = float(np.sum(weights * np.asarray(bilap) * vin))
    for normal, on in (((1.0, 0.0), lambda s: np.c_[np.ones_like(s), s]), ((-1.0, 0.0), lambda s: np.c_[-np.ones_like(s), s]),
                       ((0.0, 1.0), lambda s: np.c_[s, np.ones_like(s)]), ((0.0, -1.0), lambda s: np.c_[s, -np.ones_like(s)])):
        xb, n = jnp.asarray(on(t)), jnp.asarray([normal] * len(t))
        res = evaluate(free, lambda d: free.boundary("left", d, n), w, xb)
        dv = evaluate(eq, lambda d: {"vn": d["w_x"] * n[:, 0] + d["w_y"] * n[:, 1], "v": d["w"]}, v, xb)
        rhs += float(np.sum(wt * (np.asarray(res["m"]) * np.asarray(dv["vn"]) - np.asarray(res["v"]) * np.asarray(dv["v"]))))
    assert nu == 0.25 and variation == pytest.approx(rhs, rel=1e-10)


def test_a_stretched_plate_s_energy_is_least_at_its_exact_solution():
    """The same on the geometry's square [0, 2]^2 standing for the 2 m x 3 m plate (``aspect`` 1.5): the density's
    derivatives and area element are the plate's."""
    eq = KirchhoffPlate(build(PlateConfig, {**STEEL, "form": "energy", "aspect": 1.5}), Rectangle((0.0, 2.0), (0.0, 2.0)))
    xh, weights, _, _ = _gauss_square(24)  # the geometry's square is the nondimensional one here

    def exact(z):
        p = eq.to_physical(z)
        return (jnp.sin(jnp.pi * p[..., 0] / 2) * jnp.sin(jnp.pi * 1.5 * p[..., 1] / 3))[..., None]

    energy = lambda a: float(np.sum(weights * np.asarray(evaluate(eq, eq.interior, lambda z: a * exact(z), xh)["energy"])))
    vertex, curvature = _vertex(energy)
    assert vertex == pytest.approx(1.0, abs=1e-9) and curvature > 0
