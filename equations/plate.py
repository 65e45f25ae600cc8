r"""Kirchhoff plate bending: :math:`D\,\Delta^2 w = q` on a rectangle.

Nondimensionalisation (done here, so a steel plate trains like ``D = 1``): with the plate's centre
:math:`x_c`, half the longer side :math:`L`, the load scale :math:`q_0 = \max|q|` (the section's ``q0``
when it gives one: ``load`` is then the load's shape, scaled to that peak) and the deflection scale
:math:`W = q_0 / (D \pi^4 (\kappa_x^2 + \kappa_y^2)^2)`, put :math:`x = x_c + L \hat x`, :math:`w = W \hat w`. The
wavenumbers follow the supports: :math:`\kappa_x = 1/a` when both edges across :math:`x` are supported (simply
supported or clamped), :math:`1/(2a)` when one is (a cantilever spans like a beam of twice its length), 0
when both are free (no stiffness from that direction); likewise :math:`\kappa_y`. For a simply supported plate
:math:`W` is the first mode's amplitude under a sine load of height :math:`q_0`; for the 2 m × 1 m plate with
free long edges it is within 30% of the beam deflection :math:`5 q a^4 / 384 D`, where the all-supported
formula would be 25 times too small and leave the network to grow an output of order 30. Then

.. math:: \hat\Delta^2 \hat w = c\, \hat q, \qquad c = \frac{q_0 L^4}{D W} = \pi^4 L^4 (\kappa_x^2 + \kappa_y^2)^2,

and the residual is written divided by ``c`` so that every term is of order one.

Edge conditions, for an edge with outward normal :math:`n` and tangent :math:`t` (Timoshenko §§21–22):

- simply supported: :math:`w = 0`, :math:`M_n \propto w_{nn} + \nu w_{tt} = 0`;
- clamped: :math:`w = 0`, :math:`w_n = 0`;
- free: :math:`M_n = 0`, :math:`V_n \propto w_{nnn} + (2-\nu) w_{ntt} = 0`, and at a corner where two free
  edges meet the corner force :math:`2 M_{xy} \propto w_{xy} = 0`.

**A stretched plate** (``aspect`` :math:`s`, 1 by default; a family's parameter, ``parameters: {aspect: ...}``):
the plate is the geometry's rectangle with its y side :math:`s` times as long, the point :math:`(x, y)` of the
geometry standing for the plate's :math:`(x, y_0 + s (y - y_0))`. The coordinates (the network's inputs, the
evaluation grid, ``sciml predict``'s columns) stay the geometry's, and the equation applies the chain rule,
:math:`\partial_y \to s^{-1} \partial_y`: :math:`\Delta^2 \to \partial_x^4 + 2 s^{-2} \partial_x^2 \partial_y^2 +
s^{-4} \partial_y^4`, a normal or tangent :math:`(n_x, n_y) \to (n_x, n_y / s)` in the edge conditions; the
deflection scale :math:`W` and :math:`c` take the stretched side :math:`b = s (y_1 - y_0)` (:math:`L` stays the
geometry's). Every number here is computed arithmetically from :math:`s`, so it may be a per-point array. The load
is an expression of the plate's (stretched) coordinates; its peak (the scale when ``q0`` is not given) is taken
over the geometry's rectangle as it is.

**A patch load** (``patch`` instead of ``load``): the pressure ``q0`` on the rectangle of centre
:math:`(x_c, y_c)` and sides :math:`u \times v` (``x``, ``y``, ``width``, ``height``), which must lie on the plate.
The reference (so ``sciml datagen``) takes the patch exactly: Navier's series from its closed-form coefficients
(``plate_reference/patch.py``), the other solvers from the indicator. Its derivatives in :math:`x_c, y_c, u, v`
vanish at fixed collocation points, so training uses a patch convolved with a Gaussian of std :math:`\sigma`
(``smoothing``, default a quarter of the shorter side), a product of erf differences (:func:`pulse`). Convolving
adds :math:`\sigma^2` to the second moments, so the patch convolved is the narrower one of sides
:math:`u' = (u^2 - 12\sigma^2)^{1/2}`, :math:`v'` likewise, at the pressure that keeps the force:

.. math:: q_\sigma = q_0 \frac{u v}{u' v'}\, P(x; x_c, u')\, P(y; y_c, v'), \qquad
          P(x; c, u) = \tfrac12\Big[\operatorname{erf}\frac{x - c + u/2}{\sqrt2\,\sigma}
                                   - \operatorname{erf}\frac{x - c - u/2}{\sqrt2\,\sigma}\Big],

which has the exact patch's total force :math:`q_0 u v`, centroid and second moments (to the Gaussian's tails
beyond the edges, nothing for a patch :math:`3\sigma` inside); :math:`\sigma < \min(u, v)/\sqrt{12}`. The
deflection it causes differs from the exact patch's by little far from it: fitting the smoothed model's Navier
series to the exact patch's deflections at the 25 sensors of ``cases/plate_load_locate.yaml`` (0.4 m x 0.6 m on
the 2 m x 3 m plate) is off by -0.09 % in ``q0`` and 0.03 % of the side in the centre at :math:`\sigma` = 0.1 m
(-0.02 %, 0.007 % at 0.04 m), where the plain Gaussian convolution, widening the moments, is off by +0.47 % and
0.08 % already at 0.04 m. Its numbers may be unknowns (``unknowns: {patch.x: ...}``) and ``q0`` with them; the
load scale is ``q0``.

**A varying rigidity** :math:`D(x, y) = D\,s(x, y)` (a damaged zone, ``damage``, :mod:`.plate_damage`; or a field
unknown, ``unknowns: {D: {field: ...}}``): the moments :math:`M_x = -D(w_{xx} + \nu w_{yy})`, :math:`M_y = -D(w_{yy}
+ \nu w_{xx})`, :math:`M_{xy} = -D(1-\nu) w_{xy}` balance the load, :math:`\partial_{xx} M_x + 2\partial_{xy} M_{xy}
+ \partial_{yy} M_y = -q`, so in the nondimensional variables (:math:`D` scaled by the section's value, the
scales :math:`W, c` of that value)

.. math:: s\,\hat\Delta^2 \hat w + 2 (s_x \partial_x + s_y \partial_y) \hat\Delta \hat w
          + s_{xx} (\hat w_{xx} + \nu \hat w_{yy}) + 2(1-\nu) s_{xy} \hat w_{xy} + s_{yy}(\hat w_{yy} + \nu \hat w_{xx})
          = c\,\hat q,

that is :math:`\nabla^2(s \Delta w) - (1-\nu)(s_{xx} w_{yy} - 2 s_{xy} w_{xy} + s_{yy} w_{xx})`. The factor
:math:`s` is a *coefficient field* (:meth:`~sciml.equations.Equation.coefficients`): a function of the points that
the engine differentiates together with the network's :math:`w`, so the residual reads ``d["s_xy"]`` as it reads
``d["w_xy"]``. A simply supported or clamped edge's conditions are those of a constant :math:`D` (:math:`M_n = 0`
with :math:`s > 0`); a free edge's force gains :math:`s`'s slopes, :math:`V_n \propto s(w_{nnn} + (2-\nu) w_{ntt}) +
s_n (w_{nn} + \nu w_{tt}) + 2(1-\nu) s_t w_{nt}`; the shear forces gain them likewise, and the derived fields
include ``D`` (N m). The plate is then not stretched (``aspect`` 1).

**The energy form** (``form: energy``): the interior term is the density of the total potential energy
(:func:`energy`), whose mean over uniform points the PINN minimises (Ritz); an edge keeps only the conditions that
hold ``w`` (:data:`HELD_RULES`), the moments, a free edge's force and the corner forces being the energy's natural
conditions, and only second derivatives of ``w`` are read.

Derived fields in physical units: :math:`M_x = -D(w_{xx} + \nu w_{yy})`, :math:`M_y = -D(w_{yy} + \nu w_{xx})`,
:math:`M_{xy} = -D(1-\nu) w_{xy}`, :math:`Q_x = \partial_x M_x + \partial_y M_{xy}`
(:math:`-D\,\partial_x \Delta w` for a constant :math:`D`), :math:`Q_y = \partial_x M_{xy} + \partial_y M_y`.
"""
from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import jax.numpy as jnp
import numpy as np
from jax.scipy.special import erf

from sciml import expr
from sciml.config import spec, suggest
from sciml.errors import Invalid

from . import plate_corners, plate_damage
from .base import Equation
from .domain import Domain
from .fields import Fields
from .plate_damage import DamageConfig

EdgeCondition = Literal["simply_supported", "clamped", "free"]


RECTANGLE = ("left", "right", "bottom", "top")  # a rectangle's edges
SUPPORTED = "simply_supported"  # the condition of an edge the case does not name
CORNER_RADIUS = 0.05  # of the longer side: the errors' region "away" leaves out discs this size at re-entrant corners


@dataclass
class PatchConfig:
    """A pressure ``q0`` on a rectangle inside the plate (module notes: exact for the reference, smoothed in
    training); its numbers may be unknowns (``unknowns: {patch.x: ...}``)."""

    x: float = spec(help="the patch's centre, x in m")
    y: float = spec(help="the patch's centre, y in m")
    width: float = spec(gt=0.0, help="its side along x in m")
    height: float = spec(gt=0.0, help="its side along y in m")
    smoothing: float | None = spec(None, gt=0.0, help="training: the std in m of the Gaussian the patch is smoothed "
                                                       "with, below 0.29 of its shorter side (default: a quarter of "
                                                       "it); the reference keeps the patch exact")

    def check(self):
        if self.smoothing is not None and not self.smoothing < min(self.width, self.height) / math.sqrt(12.0):
            raise Invalid("smoothing", f"{self.smoothing:g} m: the smoothed patch keeps the patch's second moments "
                                       f"only below its shorter side / sqrt(12) = "
                                       f"{min(self.width, self.height) / math.sqrt(12.0):.4g} m")


@dataclass
class PlateConfig:
    """Case-file section ``equation`` for ``type: kirchhoff_plate``. Give ``D``, or ``E`` and ``thickness``;
    give ``load``, or ``patch`` with ``q0``."""

    type: Literal["kirchhoff_plate"]
    load: str | float | None = spec(None, help="load q(x, y) in Pa: a number or an expression of x and y")
    patch: PatchConfig | None = spec(None, help="instead of load: q0 on a rectangle, e.g. {x: 1.3, y: 1.1, "
                                                "width: 0.4, height: 0.6, smoothing: 0.04}")
    nu: float = spec(0.3, ge=0.0, lt=0.5, help="Poisson's ratio")
    E: float | None = spec(None, gt=0.0, help="Young's modulus in Pa")
    thickness: float | None = spec(None, gt=0.0, help="plate thickness in m")
    D: float | None = spec(None, gt=0.0, help="flexural rigidity E h^3 / (12 (1 - nu^2)) in N m")
    q0: float | None = spec(None, gt=0.0, help="the load's peak in Pa: load is then its shape, scaled to peak "
                                               "q0 (default: load as it is)")
    edges: dict[str, EdgeCondition] = spec(factory=dict, help="the condition on each boundary part (a rectangle's "
                                                               "left, right, bottom, top; a polygon's edge0, ... or "
                                                               "its named parts); simply_supported where not named")
    aspect: float = spec(1.0, gt=0.0, help="the y side's stretch: the plate is the geometry's rectangle with its y "
                                           "side this many times as long (module notes); a family's parameter")
    damage: DamageConfig | None = spec(None, help="a zone of lower rigidity: D times 1 - drop in a disc with a "
                                                  "smooth rim, e.g. {x: 1.3, y: 1.9, radius: 0.3, drop: 0.3}")
    form: Literal["strong", "energy"] = spec("strong", help="strong: the plate equation's residual and every edge's "
                                                            "conditions; energy: the total potential energy "
                                                            "(Ritz), only the held edges' w (and w_n) left as "
                                                            "conditions, the moments and forces its natural ones")
    singular_corners: bool = spec(False, help="the energy form with exact clamped edges: each re-entrant corner "
                                              "between two clamped edges multiplies the network by its singular "
                                              "function r^(1+lambda) F (Williams; module plate_corners)")

    def check(self):
        if self.D is None and (self.E is None or self.thickness is None):
            raise Invalid("D", "give either D, or both E and thickness")
        if self.D is not None and (self.E is not None or self.thickness is not None):
            raise Invalid("D", "give either D, or E and thickness, not both")
        if self.load is not None and self.patch is not None:
            raise Invalid("patch", "give the load or a patch, not both")
        if self.load is None and self.patch is None:
            raise Invalid("load", "missing; give the load (a number or an expression of x and y), or a patch")
        if self.patch is not None and self.q0 is None:
            raise Invalid("q0", "a patch load needs q0, its pressure in Pa")
        if self.damage is not None and self.aspect != 1:
            raise Invalid("damage", "a damaged plate is not stretched: leave aspect at 1")
        if self.singular_corners and self.form != "energy":
            raise Invalid("singular_corners", "needs form: energy (the strong form's fourth derivatives of the "
                                              "corner's r^(1+lambda) are not square-integrable)")
        if self.load is not None:
            try:
                expr.parse(self.load, ("x", "y"))
            except ValueError as e:
                raise Invalid("load", str(e)) from None

    def edge(self, part: str) -> str:
        """The condition on ``part``."""
        return self.edges.get(part, SUPPORTED)

    @property
    def rigidity(self) -> float:
        if self.D is not None:
            return self.D
        E, h = self.E, self.thickness
        assert E is not None and h is not None, "check(): D, or both E and thickness"
        return E * h**3 / (12.0 * (1.0 - self.nu**2))


def moments(D, nu, wxx, wyy, wxy, r=1.0) -> dict:
    """The bending moments of curvatures ``w_xx, w_yy, w_xy``: :math:`M_x = -D(w_{xx} + \nu w_{yy})`, :math:`M_y =
    -D(w_{yy} + \nu w_{xx})`, :math:`M_{xy} = -D(1 - \nu) w_{xy}` (``r``: a stretched plate's ``d/dy`` over its
    geometry's, the ``y`` derivatives given in the geometry's coordinates). The one definition the PINN's
    :meth:`KirchhoffPlate.derived` and the operators' plate (``sciml.solvers.fno.physics.Plate``) read."""
    r2 = r * r
    return {"mx": -D * (wxx + nu * r2 * wyy), "my": -D * (r2 * wyy + nu * wxx), "mxy": -D * (1 - nu) * r * wxy}


def check_edges(config: PlateConfig, domain: Domain) -> None:
    """The plate's domain and edges (:meth:`KirchhoffPlate.check_geometry`): a plane domain, ``edges`` naming its
    parts, not all free; off a rectangle not stretched, and free edges only where the domain knows its corners."""
    if tuple(domain.coords) != ("x", "y"):
        raise Invalid("type", f"kirchhoff_plate needs a plane domain (x, y), got {list(domain.coords)}")
    for part in config.edges:
        if part not in domain.parts:
            raise Invalid(f"edges.{part}", f"unknown part {part!r}{suggest(part, domain.parts)}; the "
                                           f"geometry's parts are {list(domain.parts)}")
    if all(config.edge(p) == "free" for p in domain.parts):
        raise Invalid("edges", "a plate with every edge free is not supported anywhere; support an edge")
    if config.singular_corners and not plate_corners.reentrant_clamped(domain, _clamped(config)):
        raise Invalid("singular_corners", "the plate has no re-entrant corner between two clamped edges")
    if not rectangular(domain):
        if config.aspect != 1:
            raise Invalid("aspect", "a stretched plate is a rectangle: leave aspect at 1 on this geometry")
        free = [p for p in domain.parts if config.edge(p) == "free"]
        for part in free:  # a curved edge's free conditions need its curvature: one hole's circle, by its part
            curved = [getattr(domain.pieces[p], "sphere", None) is not None for p in domain.groups[part]]
            if any(curved) and domain.sphere(part) is None:
                raise Invalid(f"edges.{part}", "a free part with a hole's circle must be that circle alone (its "
                                               "conditions read its curvature): give the hole a part of its own")
        if free and domain.corners() is None:
            raise Invalid(f"edges.{free[0]}", "free edges need the corners of the plate's boundary (their corner "
                                              "conditions), which a rectangle or a polygon gives and this "
                                              "geometry does not: clamp or support it")


def _clamped(config: PlateConfig) -> Callable[[str], bool]:
    return lambda part: config.edge(part) == "clamped"


def check_zones(config: PlateConfig, domain: Domain) -> None:
    """A patch load and a damaged zone lie on the plate (:meth:`KirchhoffPlate.check_geometry`)."""
    p = config.patch
    if p is not None:
        (x0, x1), (y0, y1) = domain.bounds
        y1 = y0 + config.aspect * (y1 - y0)  # the plate's (stretched) side
        for key, c, size, lo, hi in (("x", p.x, p.width, x0, x1), ("y", p.y, p.height, y0, y1)):
            if not lo <= c - size / 2 <= c + size / 2 <= hi:
                raise Invalid(f"patch.{key}", f"the patch spans {key} = [{c - size / 2:g}, {c + size / 2:g}] "
                                              f"(centre {c:g}, side {size:g}), outside the plate's [{lo:g}, {hi:g}]")
    z = config.damage
    if z is not None:
        for key, c, (lo, hi) in (("x", z.x, domain.bounds[0]), ("y", z.y, domain.bounds[1])):
            if not lo < c < hi:
                raise Invalid(f"damage.{key}", f"the zone's centre {c:g} is outside the plate's [{lo:g}, {hi:g}]")


def free_corners(config: PlateConfig, domain: Domain) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Off a rectangle: the convex corners of the domain (:meth:`Domain.corners`) where two free edges meet,
    ``(points (k, 2), normals before (k, 2), normals after (k, 2))``. There the corner force vanishes, the jump
    of the twisting moment :math:`M_{nt} \propto w_{nt}` from the edge before to the edge after (tangents the
    normals turned by +90 degrees, as in :func:`edge`): :math:`\tfrac12(w_{n_2 t_2} - w_{n_1 t_1}) = 0`, which
    is :math:`w_{xy} = 0` at a right angle between axis-aligned edges. A re-entrant corner (a polygonal hole's)
    has none: its moments are singular there (:math:`w \sim r^{1+\lambda}`, :math:`\lambda < 1`), what no
    network represents, so no point condition is set."""
    found = [c for c in (domain.corners() or []) if config.edge(c.before) == "free"
             and config.edge(c.after) == "free" and c.angle < math.pi * (1 - 1e-9)]
    pick = lambda f: np.array([f(c) for c in found], float).reshape(-1, 2)
    return pick(lambda c: c.point), pick(lambda c: c.normal_before), pick(lambda c: c.normal_after)


def away_from_corners(domain: Domain, points: np.ndarray) -> dict[str, np.ndarray]:
    """``{"away": mask}``: the points farther than :data:`CORNER_RADIUS` of the longer side from each re-entrant
    corner of the domain (an L's, a polygonal hole's), where the moments are bounded; ``{}`` without such corners."""
    corners = [c.point for c in (domain.corners() or []) if c.angle > math.pi * (1 + 1e-9)]
    if not corners:
        return {}
    side = max(hi - lo for lo, hi in domain.bounds)
    gap = np.min(np.linalg.norm(np.asarray(points, float)[:, None, :2] - np.array(corners)[None], axis=-1), axis=1)
    return {"away": gap > CORNER_RADIUS * side}


def rectangular(domain: Domain) -> bool:
    """Whether the plate is a plain rectangle: its parts and pieces are the four edges (the series and finite
    differences of :mod:`.plate_reference` solve it)."""
    return tuple(domain.parts) == RECTANGLE and set(domain.pieces) == set(RECTANGLE)


def _components(v) -> tuple:
    """The components ``(N,)`` of per-point vectors ``v (N, dim)``, each sliced once (a slice is an equation of the
    trace) for all the terms that read it."""
    return tuple(v[..., i] for i in range(v.shape[-1]))


def _contract(d: Fields, field: str, vectors) -> jnp.ndarray | float:
    """``Σ v1_i v2_j ... ∂_ij... field``: the derivative along the given per-point vectors, each as its
    :func:`_components`."""
    total = 0.0
    for idx in itertools.product(range(len(d.coords)), repeat=len(vectors)):
        key = field + "_" + "".join(d.coords[i] for i in idx)
        weight = 1.0
        for c, i in zip(vectors, idx):
            weight = weight * c[i]
        total = total + weight * d[key]
    return total


def _expression_shape(load: str | float | None, bounds):
    """``(shape, peak)`` of a load expression: ``shape(x, y)`` its values (jax.numpy), ``peak`` its largest
    magnitude on a 101 x 101 grid of the plate (1 where it is zero)."""
    q = expr.parse(load if load is not None else 0.0, ("x", "y"))
    (x0, x1), (y0, y1) = bounds
    gx, gy = np.meshgrid(np.linspace(x0, x1, 101), np.linspace(y0, y1, 101), indexing="ij")
    values = np.broadcast_to(np.asarray(q(np, x=gx, y=gy), dtype=float), gx.shape)
    if not np.all(np.isfinite(values)):
        raise ValueError("the load is not finite everywhere on the plate")
    return (lambda x, y: q(jnp, x=x, y=y)), float(np.max(np.abs(values))) or 1.0


def pulse(x, centre, size, sigma):
    r"""The unit pulse of width ``size`` at ``centre`` convolved with a Gaussian of std ``sigma``:
    :math:`\tfrac12[\operatorname{erf}((x - c + u/2)/\sqrt2\sigma) - \operatorname{erf}((x - c - u/2)/\sqrt2\sigma)]`
    (jax.numpy; any argument may be traced)."""
    s = math.sqrt(2.0) * sigma
    return 0.5 * (erf((x - centre + size / 2) / s) - erf((x - centre - size / 2) / s))


def _patch_shape(p: PatchConfig):
    """``(shape, 1)`` of a patch: the smoothed patch for a pressure of 1 (module notes; its numbers may be
    traced)."""
    sigma = p.smoothing if p.smoothing is not None else jnp.minimum(p.width, p.height) / 4
    u, v = (jnp.sqrt(side**2 - 12 * sigma**2) for side in (p.width, p.height))  # the narrower patch smoothed
    scale = p.width * p.height / (u * v)
    return (lambda x, y: scale * pulse(x, p.x, u, sigma) * pulse(y, p.y, v, sigma)), 1.0


def _factor_at(damage: DamageConfig, x):
    """The damaged zone's rigidity factor at physical points ``x (N, 2)`` (jax.numpy)."""
    return plate_damage.factor(damage, x[..., 0], x[..., 1], xp=jnp)


def _wavenumber(first: str, second: str, span: float) -> float:
    """The deflection scale's wavenumber across a span from the conditions on its two edges (module notes)."""
    supported = (first != "free") + (second != "free")
    return supported / (2.0 * span)


def _free(d: Fields, n, t, nu, varying: bool, curvature=0.0) -> dict:
    r"""A free edge: :math:`M_n = 0` and the Kirchhoff force :math:`V_n = Q_n + \partial_s M_{nt} = 0` (with a
    varying rigidity's slopes, module notes). On a curved edge (``curvature`` :math:`\kappa`, signed so that
    :math:`\partial_s n = \kappa t`: :math:`1/R` on a disk's rim, :math:`-1/R` on a hole's circle) the normal and
    tangent turn along it, :math:`\partial_s (n^T H t) = w_{ntt} + \kappa (w_{tt} - w_{nn})`, so :math:`V_n \propto
    w_{nnn} + (2 - \nu) w_{ntt} + (1 - \nu)\kappa (w_{tt} - w_{nn})`."""
    m = _contract(d, "w", (n, n)) + nu * _contract(d, "w", (t, t))
    v = _contract(d, "w", (n, n, n)) + (2 - nu) * _contract(d, "w", (n, t, t))
    if not (isinstance(curvature, (int, float)) and curvature == 0):
        v = v + (1 - nu) * curvature * (_contract(d, "w", (t, t)) - _contract(d, "w", (n, n)))
    if varying:
        twist = _contract(d, "w", (n, t))
        v = d["s"] * v + _contract(d, "s", (n,)) * m + 2 * (1 - nu) * _contract(d, "s", (t,)) * twist
    return {"m": m, "v": v}


# condition -> residuals (in nondimensional form) on an edge with normal n and tangent t; varying: the rigidity
# is the coefficient field s (a simply supported or clamped edge's conditions do not read it, module notes)
# condition -> the residuals that hold w (the essential conditions): all the energy form keeps of an edge's; the
# others (a moment, a free edge's force, its corners') are the energy's natural conditions
HELD_RULES = {
    "simply_supported": lambda d, n: {"w": d["w"]},
    "clamped": lambda d, n: {"w": d["w"], "dw": _contract(d, "w", (n,))},
    "free": lambda d, n: {},
}
EDGE_RULES = {
    "simply_supported": lambda d, n, t, nu, varying, curvature=0.0: {
        **HELD_RULES["simply_supported"](d, n), "m": _contract(d, "w", (n, n)) + nu * _contract(d, "w", (t, t))},
    "clamped": lambda d, n, t, nu, varying, curvature=0.0: HELD_RULES["clamped"](d, n),
    "free": _free,
}


# --- the plate's statements over the partials of w: the PINN's residuals (KirchhoffPlate) and the operators'
# (sciml.solvers.fno.physics.Plate, on the decoded field) read these, each in its own variables -----------------
def unstretched(aspect) -> bool:
    """Whether ``aspect`` is the plain number 1 (not a per-point array): a plate whose y side is not stretched."""
    return isinstance(aspect, (int, float)) and aspect == 1


def bilaplacian(d: Fields, aspect=1.0):
    r""":math:`\Delta^2 w` in the plate's coordinates from the partials ``d`` in the geometry's: for a stretched plate
    (``aspect`` :math:`s`) :math:`\partial_x^4 + 2 s^{-2} \partial_x^2 \partial_y^2 + s^{-4} \partial_y^4` (module
    notes)."""
    if unstretched(aspect):
        return d.bilap("w")
    r = 1.0 / aspect**2
    return d["w_xxxx"] + 2 * r * d["w_xxyy"] + r * r * d["w_yyyy"]


def divergence(d: Fields, nu):
    r"""The moments' divergence over :math:`-D` for the rigidity :math:`D s` (``s`` a coefficient field of ``d``):
    :math:`\partial_{xx}(s\kappa_x) + 2(1-\nu)\partial_{xy}(s w_{xy}) + \partial_{yy}(s\kappa_y)`, expanded
    (module notes; :math:`\kappa_x = w_{xx} + \nu w_{yy}`; not stretched)."""
    slopes = d["s_x"] * (d["w_xxx"] + d["w_xyy"]) + d["s_y"] * (d["w_xxy"] + d["w_yyy"])
    return (d["s"] * d.bilap("w") + 2 * slopes + d["s_xx"] * (d["w_xx"] + nu * d["w_yy"])
            + 2 * (1 - nu) * d["s_xy"] * d["w_xy"] + d["s_yy"] * (d["w_yy"] + nu * d["w_xx"]))


def energy(d: Fields, nu, q, c=1.0, aspect=1.0, varying: bool = False):
    r"""The density of the plate's total potential energy over the rigidity, in the variables of :func:`residual`
    (``q`` the load, ``c`` the factor the equation is divided by):
    :math:`\frac{s}{2c}\big[(\Delta w)^2 - 2(1-\nu)(w_{xx} w_{yy} - w_{xy}^2)\big] - q\,w`, ``s`` the rigidity's
    factor with ``varying`` (else 1), in the plate's coordinates for a stretched plate (``aspect``, the
    derivatives and the area element :math:`dx\,dy = s^{-1}\,dx\,d(sy)` taken over: the density per area of the
    geometry). Its integral is stationary exactly where the plate equation holds inside and the natural
    conditions (``M_n = 0``, and on free edges ``V_n = 0`` with the corner forces) hold on every edge where ``w``
    is not held; the Gaussian-curvature term, which integrates to edge terms, is what puts the right twisting
    moment into a free edge's conditions."""
    r = 1.0 if unstretched(aspect) else 1.0 / aspect
    wxx, wyy, wxy = d["w_xx"], r * r * d["w_yy"], r * d["w_xy"]
    bend = jnp.square(wxx + wyy) - 2 * (1 - nu) * (wxx * wyy - jnp.square(wxy))
    density = (d["s"] if varying else 1.0) * bend / (2 * c) - q * d["w"]
    return density if unstretched(aspect) else density * aspect


def bending(d: Fields, nu, aspect=1.0, varying: bool = False):
    """The bending operator on ``w`` over the rigidity: :func:`bilaplacian` (a constant rigidity, the plate
    stretched by ``aspect``), or with ``varying`` the :func:`divergence` of a rigidity ``D s``."""
    return divergence(d, nu) if varying else bilaplacian(d, aspect)


def residual(bend, q, D=1.0, c=1.0):
    r"""The plate equation's residual :math:`D\,\mathcal{B}w / c - q`: ``bend`` the bending operator on ``w``
    (:func:`bending`), ``q`` the load, ``D`` the rigidity and ``c`` the factor the nondimensional equation is
    divided by (module notes); in physical variables ``c = 1``: :math:`D\,\Delta^2 w - q`."""
    return D * bend / c - q


def edge(kind: str, d: Fields, normal, nu, aspect=1.0, varying: bool = False, curvature=0.0) -> dict:
    """The residuals of an edge of condition ``kind`` (:data:`EDGE_RULES`) with outward unit normals ``normal
    (..., 2)``: its tangent turned from the normal, both as the plate's directions in the geometry's coordinates
    (a stretched plate's y components over ``aspect``)."""
    tangent = jnp.stack([-normal[..., 1], normal[..., 0]], axis=-1)
    if not unstretched(aspect):
        stretch = lambda v: jnp.stack([v[..., 0], v[..., 1] / aspect], axis=-1)
        normal, tangent = stretch(normal), stretch(tangent)
    return EDGE_RULES[kind](d, _components(normal), _components(tangent), nu, varying, curvature)


def potential(D, bend, work):
    r"""The total potential energy :math:`\Pi(w) = \frac D2 \int (\Delta w)^2\,dx - \int q\,w\,dx` (Ritz) from
    its integrals ``bend`` :math:`= \int (\Delta w)^2` and ``work`` :math:`= \int q\,w`, each by a quadrature of its
    own. It is the whole Kirchhoff energy for fields that vanish on a polygon's edges: the Gaussian-curvature part
    :math:`(1-\nu)\int (w_{xy}^2 - w_{xx} w_{yy})` integrates to 0 there. Among such fields its minimiser is the
    solution with simply supported edges (``M_n = 0`` is the natural condition) or, with ``w_n = 0`` imposed too,
    with clamped ones; it is bounded below only among them. For the solution :math:`w^*`,
    :math:`\Pi(w) - \Pi(w^*) = \frac D2 \|\Delta(w - w^*)\|^2`."""
    return 0.5 * D * bend - work


@dataclass
class _Check:
    """What :meth:`KirchhoffPlate.checks` reports (the fields :meth:`Equation.checks` describes)."""

    metrics: dict
    notes: list = field(default_factory=list)
    profiles: dict = field(default_factory=dict)
    maps: dict = field(default_factory=dict)
    series: dict = field(default_factory=dict)


class KirchhoffPlate(Equation):
    """The plate problem in nondimensional variables, with its physical scales."""

    fields = ("w",)
    coords = ("x", "y")
    units = {"x": "m", "y": "m", "w": "m", "mx": "N m/m", "my": "N m/m", "mxy": "N m/m", "qx": "N/m", "qy": "N/m",
             "D": "N m"}
    field_coefficients = {"D": "s"}  # D may vary: the residuals then read s = D(x, y) / D (module notes)

    @classmethod
    def densities(cls, section: PlateConfig) -> tuple[str, ...]:
        return ("energy",) if section.form == "energy" else ()

    @classmethod
    def check_geometry(cls, config: PlateConfig, domain: Domain) -> None:
        """A plain rectangle (edges left, right, bottom, top; no holes, time or regrouping), or any other plane
        domain without a time axis (a polygon, a rectangle or disk with holes), its y side then not stretched and
        its edges free only where it knows its corners (:meth:`free_corners`); ``edges`` names parts of the domain,
        not all of them free."""
        check_edges(config, domain)
        check_zones(config, domain)

    def __init__(self, config: PlateConfig, domain: Domain):
        (x0, x1), (y0, y1) = domain.bounds
        self.config, self.bounds = config, ((float(x0), float(x1)), (float(y0), float(y1)))
        self.s = config.aspect  # a number, or per-point values (a family's parameter)
        self.a, self.b = x1 - x0, self.s * (y1 - y0)  # the plate's sides (b stretched)
        self.D, self.nu = config.rigidity, config.nu
        self.center = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        self.L = max(x1 - x0, y1 - y0) / 2  # the geometry's (the network's coordinates)
        # the load's shape in training (x, y -> values, jax.numpy), and its peak
        self.shape, self.peak = _patch_shape(config.patch) if config.patch is not None else \
            _expression_shape(config.load, self.bounds)
        self.q0 = self.peak if config.q0 is None else config.q0  # of the load
        e = config.edge if rectangular(domain) else (lambda part: SUPPORTED)
        kx, ky = _wavenumber(e("left"), e("right"), self.a), _wavenumber(e("bottom"), e("top"), self.b)
        modal = math.pi**4 * (kx**2 + ky**2) ** 2
        self.W = self.q0 / (self.D * modal)
        self.c = modal * self.L**4
        # nondimensional points -> the rigidity's factor s (a varying rigidity, module notes), or None
        damage = config.damage
        self.stiffness: Callable | None = None if damage is None else \
            (lambda xh: _factor_at(damage, self.to_physical(xh)))
        if config.singular_corners:  # w's exact factor carries each re-entrant clamped corner's r^(1+lambda)
            self.enrichment = {"w": plate_corners.enrichment(domain, _clamped(config), self.to_physical)}

    @property
    def varying(self) -> bool:
        """Whether the rigidity varies over the plate (a coefficient field ``s``)."""
        return self.stiffness is not None

    def coefficients(self) -> Mapping[str, Callable]:
        return {"s": self.stiffness} if self.stiffness is not None else {}

    def with_coefficients(self, fns: Mapping[str, Callable]) -> KirchhoffPlate:
        out = copy.copy(self)
        out.stiffness = fns["s"]
        return out

    @property
    def stretched(self) -> bool:
        """Whether the y side is stretched (module notes): any aspect but the plain number 1."""
        return not unstretched(self.s)

    def place(self, points):
        """The plate's physical points ``(N, 2)`` of the geometry's ``points`` (the y side stretched)."""
        y0 = self.bounds[1][0]
        return np.stack([points[:, 0], y0 + self.s * (points[:, 1] - y0)], axis=-1)

    # --- scales -------------------------------------------------------------------------------
    def to_nondim(self, x):
        return (x - self.center) / self.L

    def to_physical(self, xh):
        return self.center + self.L * xh

    def scaling(self):
        return self.center, np.full(2, self.L)

    def load_hat(self, xh):
        x = self.to_physical(xh)
        y0 = self.bounds[1][0]
        y = x[..., 1] if not self.stretched else y0 + self.s * (x[..., 1] - y0)
        return self.shape(x[..., 0], y) / self.peak + 0.0 * xh[..., 0]

    def error_scales(self) -> dict[str, tuple[str, float]]:
        """A patch's position and sides, a damaged zone's centre and size, against the plate's side along them
        (``patch.x_side_error``, ``damage.x_side_error``)."""
        a, b = float(self.a), float(np.max(self.b))
        out = {}
        if self.config.patch is not None:
            out.update({"patch.x": ("side", a), "patch.width": ("side", a), "patch.y": ("side", b),
                        "patch.height": ("side", b)})
        if self.config.damage is not None:
            out.update({"damage.x": ("side", a), "damage.y": ("side", b), "damage.radius": ("side", min(a, b)),
                        "damage.width": ("side", min(a, b))})
        return out

    # --- residuals ----------------------------------------------------------------------------
    def interior(self, d: Fields) -> dict:
        """The plate equation (:func:`residual`), divided by ``c``; in the energy form its :func:`energy` density."""
        if self.config.form == "energy":
            return {"energy": energy(d, self.nu, self.load_hat(d.points), self.c, self.s, self.varying)}
        return {"pde": residual(bending(d, self.nu, self.s, self.varying), self.load_hat(d.points), c=self.c)}

    def boundary(self, part: str, d: Fields, normal) -> dict:
        """An edge's conditions (:func:`edge`); in the energy form those that hold ``w`` (:data:`HELD_RULES`)."""
        kind = self.config.edge(part)
        if self.config.form == "energy":
            return HELD_RULES[kind](d, _components(normal))
        return edge(kind, d, normal, self.nu, self.s, self.varying, self.curvature(part))

    def curvature(self, part: str) -> float:
        """The signed curvature of ``part`` in the nondimensional coordinates (:func:`_free`): ``-L/R`` on a hole's
        circle (its normals point to the centre), 0 on straight edges."""
        circle = None if rectangular(self.domain) else self.domain.sphere(part)
        return 0.0 if circle is None else -self.L / circle[1]

    def corners(self):
        """Corners (physical points) where two free edges meet; there ``w_xy = 0`` (a rectangle), or the twisting
        moments of the two edges agree (:meth:`free_corners`)."""
        if not rectangular(self.domain):
            return self.free_corners()[0]
        (x0, x1), (y0, y1) = self.bounds
        e = self.config.edge
        table = {(x0, y0): (e("left"), e("bottom")), (x1, y0): (e("right"), e("bottom")),
                 (x0, y1): (e("left"), e("top")), (x1, y1): (e("right"), e("top"))}
        return np.array([p for p, conds in table.items() if conds == ("free", "free")]).reshape(-1, 2)

    @staticmethod
    def corner(d: Fields) -> dict:
        return {"mxy": d["w_xy"]}

    def free_corners(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Off a rectangle: :func:`free_corners` of the domain."""
        return free_corners(self.config, self.domain)

    def point_sets(self) -> dict:
        """``name -> (physical points, residual)``: the free corners (none in the energy form: natural there)."""
        corners = self.corners()
        if not len(corners) or self.config.form == "energy":
            return {}
        if rectangular(self.domain):
            return {"corner": (corners, self.corner)}
        _, before, after = self.free_corners()
        turn = lambda n: np.stack([-n[:, 1], n[:, 0]], axis=-1)
        n1, t1, n2, t2 = (_components(jnp.asarray(v)) for v in (before, turn(before), after, turn(after)))
        return {"corner": (corners, lambda d: {"mxy": 0.5 * (_contract(d, "w", (n2, t2))
                                                            - _contract(d, "w", (n1, t1)))})}

    # --- physical output ----------------------------------------------------------------------
    @property
    def derived_names(self) -> tuple[str, ...]:
        return ("w", "mx", "my", "mxy", "qx", "qy") + (("D",) if self.varying else ())

    def derived(self, d: Fields) -> dict:
        """Deflection (m), moments (N m / m) and shear forces (N / m) in physical units; a varying rigidity's
        ``D`` (N m) besides."""
        if self.varying:
            return self._derived_varying(d)
        D, nu, W, L = self.D, self.nu, self.W, self.L
        m = D * W / L**2
        r = 1.0 / self.s if self.stretched else 1.0  # d/dy (plate) = r d/dy (geometry)
        r2 = r * r
        return {
            "w": W * d["w"],
            **moments(m, nu, d["w_xx"], d["w_yy"], d["w_xy"], r),
            "qx": -m / L * (d["w_xxx"] + r2 * d["w_xyy"]),
            "qy": -m / L * r * (d["w_xxy"] + r2 * d["w_yyy"]),
        }

    def _derived_varying(self, d: Fields) -> dict:
        r""":meth:`derived` with the rigidity :math:`D s` (not stretched): the moments times ``s``, the shear
        forces :math:`Q_x = \partial_x M_x + \partial_y M_{xy}`, :math:`Q_y = \partial_x M_{xy} + \partial_y M_y`."""
        nu, W, L, s = self.nu, self.W, self.L, d["s"]
        m = self.D * W / L**2
        kx, ky = d["w_xx"] + nu * d["w_yy"], d["w_yy"] + nu * d["w_xx"]
        twist = (1 - nu) * d["w_xy"]
        return {
            "w": W * d["w"], "D": self.D * s,
            "mx": -m * s * kx, "my": -m * s * ky, "mxy": -m * s * twist,
            "qx": -m / L * (s * (d["w_xxx"] + d["w_xyy"]) + d["s_x"] * kx + d["s_y"] * twist),
            "qy": -m / L * (s * (d["w_xxy"] + d["w_yyy"]) + d["s_x"] * twist + d["s_y"] * ky),
        }

    def field_summary(self, name: str, points: np.ndarray, values: np.ndarray) -> tuple[dict, dict]:
        """An identified rigidity's zone (:func:`.plate_damage.zone`: centre, drop, undamaged level) and its
        ``damage_centre_error`` (fraction of the side) and ``damage_drop_error`` (percentage points) against the
        section's ``damage`` (none: an undamaged plate)."""
        found = plate_damage.zone(points, values)
        truth = self.config.damage
        return {"zone": found, "truth": None if truth is None else {"centre": [truth.x, truth.y],
                                                                    "drop": truth.drop}}, \
            plate_damage.scores(found, truth, (float(self.a), float(np.max(self.b))))

    def error_regions(self, points: np.ndarray) -> dict[str, np.ndarray]:
        """Off a rectangle, :func:`away_from_corners` (``rel_l2_mx_away``, ...); none on a rectangle."""
        return {} if rectangular(self.domain) else away_from_corners(self.domain, points)

    def reference(self, points: np.ndarray) -> dict | None:
        """Fields from the classical reference solver (series or finite differences) at the geometry's points
        (the plate's, stretched, for ``aspect`` other than 1); a damaged plate's by the finite differences of a
        varying rigidity (:mod:`.plate_reference.variable`), simply supported edges only (else None)."""
        from .plate_reference import plate_solution  # on use: its SciPy (0.8 s) is not needed to train
        from .plate_reference.patch import patch_load

        if not rectangular(self.domain):
            return None  # no series here: a solver's reference of the same domain (sciml.solvers.classical.fem)
        edges = {part: self.config.edge(part) for part in RECTANGLE}
        p, text = self.config.patch, self.config.load
        load: Any
        if p is not None:  # exact: the patch itself (Navier: its closed-form coefficients)
            load = patch_load(self.q0, (p.x, p.y), (p.width, p.height))
        else:
            factor, shape = self.q0 / self.peak, expr.parse(text if text is not None else 0.0, ("x", "y"))
            load = lambda xx, yy: factor * np.broadcast_to(np.asarray(shape(np, x=xx, y=yy), float), np.shape(xx))
        (x0, x1), (y0, _) = self.bounds
        pts = self.place(np.asarray(points, float))
        if self.config.damage is not None:  # finite differences of the divergence form, simply supported edges
            from .plate_reference.variable import variable_plate

            if set(edges.values()) != {"simply_supported"}:
                return None
            z = self.config.damage
            D = lambda xx, yy: self.D * plate_damage.factor(z, xx, yy)
            out = variable_plate(self.bounds, D, self.nu, load, pts[:, 0], pts[:, 1])
            return {**out, "D": D(pts[:, 0], pts[:, 1])}
        return plate_solution(((x0, x1), (y0, y0 + float(self.b))), edges, self.D, self.nu, load,
                              pts[:, 0], pts[:, 1])

    def checks(self, predict) -> list:
        """The centre's deflection and moments against the reference (relative errors ``center_<f>_err``) and
        as Timoshenko's coefficients (Table 8 for a uniform load): ``alpha = w D / (q0 a^4)``, ``beta = M_x /
        (q0 a^2)``, ``beta1 = M_y / (q0 a^2)``, ``a`` the x side."""
        centre = self.center[None]
        pred = {k: float(np.asarray(v).reshape(-1)[0]) for k, v in predict(centre).items()}
        ref = self.reference(centre)
        metrics: dict[str, float] = {}
        scale = {"w": self.D / (self.q0 * self.a**4), "mx": 1 / (self.q0 * self.a**2), "my": 1 / (self.q0 * self.a**2)}
        names = {"w": "alpha", "mx": "beta", "my": "beta1"}
        for f in ("w", "mx", "my"):
            if ref is None or f not in pred:
                continue
            r = float(np.asarray(ref[f]).reshape(-1)[0])
            metrics[f"center_{f}_err"] = abs(pred[f] - r) / max(abs(r), 1e-300)
            metrics[names[f]] = pred[f] * float(scale[f])
        return [_Check(metrics)]
