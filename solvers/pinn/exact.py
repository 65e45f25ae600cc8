r"""Boundary conditions imposed exactly in the network's output (``conditions.enforce: {part: exact}``).

Each network output :math:`f` becomes (Sukumar & Srivastava, CMAME 389, 2022)

.. math:: u_f = g_f + \phi_f\, N_f, \qquad \phi_f = \prod_{p \in P_f} \phi_p^{m_p}, \qquad
          \phi_p = \prod_{\text{pieces of } p} \bigl(1 - e^{-d/\ell}\bigr),

:math:`N_f` the network's output, :math:`P_f` the exact parts whose condition fixes :math:`f`, :math:`d` the
distance to a piece's line, plane or circle (positive inside; smooth, so the engine differentiates the
transform to any order) and :math:`\ell` ``conditions.length``. Outputs no exact part fixes are the network's.

**What can be exact** is found by probing the equation's boundary residuals (not by name), per part:

- a *value* of a network output, ``f = g(x)``: the residual is ``f - g(x)`` (unit coefficient, no derivative
  of any field, no dependence on the normal), with ``g`` read off the residual of a zero network at any point,
  so that it must be defined off the part as well (an expression of the coordinates, a constant, an exact
  solution): ``m_p = 1``;
- when every value the part fixes is 0, a further quantity that vanishes for every output ``φ_p² N`` (the
  clamped edge's ``∂w/∂n = 0``): ``m_p = 2``.

Every other quantity stays a penalty in the loss (the moment of a simply supported edge, Neumann and traction
conditions, the velocity of a stream function, which is a derivative of an output); a part with none that
can be exact is refused (:class:`~sciml.errors.ConfigError` at ``conditions.enforce.<part>``), and so is a
time window's initial part (its data are the previous window's network).

**Data** ``g_f`` extends the parts' values inside from the boundary alone (the interior solution never leaks in,
even where a value is ``exact``): zero when every value is 0 on its part (the plate's edges, walls, a ball's
sphere where ``u = u*`` and ``u*`` vanishes); otherwise the transfinite (Coons) interpolant of the values on the
faces of the bounding box, the Boolean sum ``I - Π_a (I - P_a)`` of one projector per axis with exact faces
(linear between two opposite faces, constant from one), exact on each face where the values agree at the
corners, times ``Z / (Z + F)`` when zero-valued circles or spheres are exact too (``Z``, ``F``: the products of
their and the faces' factors; 0 on a circle, 1 on a face, and no singularity, as a hole lies strictly inside).
Refused: non-zero values on a circle or sphere, exact initial values beside an exact hole of a space-time domain
without ``conditions.spacing`` (the hole meets the initial time, where ``Z / (Z + F)`` is ``0 / 0``), and a clamped
derivative beside non-zero values (``∂g/∂n`` would not vanish).

**Initial values on a grid** (``conditions.spacing: h``). The initial values ``u_0`` of an output ``f`` become

.. math:: u_f = g_o + \phi_o \bigl(S + \phi_t N_f\bigr), \qquad S \approx \frac{u_0 - g_o}{\phi_o}
          \text{ at } t_0,

``g_o`` and ``\phi_o`` those of the other exact parts fixing ``f`` (walls, a cylinder), ``\phi_t`` the initial
face's factor and ``S`` the C² cubic spline (:mod:`.spline`) of ``(u_0 - g_o) / \phi_o`` at the centres of the
cells of size about ``h`` of the spatial box at :math:`t_0`: exact at those nodes, 0 on the other parts at every
time, and differentiable by the engine. Nodes outside the domain or within ``h`` of the other parts' pieces (where
the quotient is 0/0) take the value of the nearest node that is not. This is how the initial values can be exact
beside a hole, and in a time window after the first (``u_0`` the previous window's fields on the nodes; the
window's ``initial`` function). With ``conditions.fit: {method: least_squares}`` (:data:`FITS`) ``S`` is fitted
instead: the spline whose ``g_o + phi_o S`` is closest to ``u_0`` at ``refine`` points per cell and axis inside the
domain, smoothed (:func:`.spline.least_squares`): no quotient, so no node needs filling. With
``enforce: {initial: base}`` the spline is the output's *base* instead,
``u_f = g_o + \phi_o (S + N_f)`` (no ``\phi_t``), and the initial values stay penalties: the network learns the
change from the start and the corrections the start needs. A start flow's lattice data do not satisfy the
incompressible equations near a cylinder (the lattice Boltzmann field's divergence is 1-2 within 0.01 of it, 0.02
far away), so an exact start leaves a continuity residual at :math:`t_0` that no network can remove; a base does not.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
import numpy as np
from scipy import ndimage

from sciml.equations.fields import Fields
from sciml.errors import ConfigError

from . import spline
from .config import FitConfig

INITIAL = "initial"  # the part of a space-time domain at its first time


class _Constant(Fields):
    """Fields whose outputs are the constants ``values`` and every derivative ``slope``: a probe of residuals."""

    def __init__(self, x, values: dict[str, float], slope: float, fields, coords, aliases=None):
        super().__init__(x, {}, fields, coords, aliases)
        self._constants, self._slope = values, slope

    def _get(self, field, request):
        order0 = isinstance(request, tuple) and not any(request)
        value = self._constants.get(field, 0.0) if order0 else self._slope
        return jnp.full(self.points.shape[:-1], value, self.points.dtype)


@dataclass(frozen=True)
class Part:
    """An exact part: ``values`` (output -> g(eq, xh)), which of them are 0, ``order`` ``m_p``, ``phi(xh)``
    (the product of its pieces' factors) and the exact quantities."""

    name: str
    values: dict[str, Callable]
    zero: bool
    order: int
    phi: Callable
    quantities: frozenset[str]


def _data(eq, part: str, q: str) -> Callable:
    """``(equation, nondimensional points) -> g``: the value the condition on ``part`` sets for output ``q``."""
    def g(equation, xh):
        zero = _Constant(xh, {}, 0.0, equation.fields, equation.coords, equation.aliases or None)
        return -equation.boundary(part, zero, jnp.zeros_like(xh))[q]
    return g


def _values(eq, part: str, xh, normals) -> dict[str, Callable]:
    """The outputs whose condition on ``part`` is a value ``f = g(x)`` (module notes), with their ``g``."""
    def probe(values, slope=0.0, n=normals):
        return eq.boundary(part, _Constant(xh, values, slope, eq.fields, eq.coords, eq.aliases or None), n)

    base, flat = probe({}), probe({}, n=jnp.zeros_like(xh))
    mixed = {f: 2.0 + i for i, f in enumerate(eq.fields)}
    spread = probe(mixed, 3.7)
    tol = 1e3 * float(jnp.finfo(xh.dtype).eps)
    out = {}
    for q in (q for q in base if q in eq.fields):
        tests = (probe({q: 1.0})[q] - base[q] - 1.0, spread[q] - base[q] - mixed[q], flat[q] - base[q])
        size = 1.0 + np.max(np.abs(np.asarray(base[q])))
        if all(np.max(np.abs(np.asarray(t))) <= tol * size for t in tests):
            out[q] = _data(eq, part, q)
    return out


def _factor(eq, distances, length: float) -> Callable:
    """``xh -> prod (1 - exp(-d / length))`` over the distance functions (of physical points)."""
    def phi(xh):
        x = eq.to_physical(xh)
        return _product(1.0 - jnp.exp(-d(x) / length) for d in distances) + 0.0 * x[..., 0]
    return phi


class Exact:
    """The exact parts of a case and the output transform ``u = g + phi N`` (module notes).

    ``probe(part) -> (points, normals, residuals(net))``: the part's nondimensional boundary points and normals
    and the residuals of its condition for a network ``net(xh) -> (N, fields)`` there (the engine's
    derivatives); ``inside``: nondimensional points inside (the size a part's values are 0 against); ``key``:
    the dotted key of the parts' settings, for errors.
    """

    def __init__(self, eq, geometry, parts: list[str], length: float, probe: Callable, inside, key: str,
                 spacing: float | None = None, initial: Callable | None = None, base: bool = False,
                 fit: FitConfig | None = None):
        self.fields = tuple(eq.fields)
        self._length = length
        self.parts = {p: self._part(eq, geometry, p, probe, inside, f"{key}.{p}") for p in parts}
        self.quantities = {p: c.quantities for p, c in self.parts.items()}
        self._fixing = {f: [c for c in self.parts.values() if f in c.values] for f in self.fields}
        self._enrichment = dict(eq.enrichment)
        for f in self._enrichment:
            if not self._fixing[f]:
                raise ConfigError(f"the equation adds a singular shape to {f!r}'s exact factor, and no exact part "
                                  f"fixes {f!r}: make its edges exact", key=key)
        start = None if spacing is None or geometry.time is None else \
            self._part(eq, geometry, INITIAL, probe, inside, f"{key}.{INITIAL}") if base else self.parts.get(INITIAL)
        fit = FitConfig() if fit is None else fit
        nodes = None if start is None or spacing is None else \
            _Nodes.of(eq, geometry, spacing, inside.dtype, initial, fit.refine)
        self._data = {f: _Grid.of(eq, geometry, self._fixing[f], f, length, key, start, nodes, fit)
                      if start is not None and nodes is not None and f in start.values else
                      _Coons.of(eq, geometry, self._fixing[f], f, length, key) for f in self.fields}

    def _part(self, eq, geometry, p, probe, inside, key) -> Part:
        xh, normals, residuals = probe(p)
        values = _values(eq, p, xh, normals)
        if not values:
            raise ConfigError(f"no condition on {p!r} can be imposed exactly (only a value of a network output "
                              f"{list(eq.fields)} can, and a clamped derivative with it); use penalty", key=key)
        if any(piece.distance is None for piece in geometry.pieces_of(p)):
            raise ConfigError(f"{p!r} has no distance function to impose it by (a mesh's faces have none yet, nor a "
                              "csg piece whose line, plane or circle runs into the domain): use penalty", key=key)
        phi = _factor(eq, [piece.distance for piece in geometry.pieces_of(p)], self._length)
        zero = all(_vanishes(g(eq, xh), g(eq, inside)) for g in values.values())
        vanishing = {m: self._vanishing(residuals, phi, m, values, xh) for m in (1, 2)} if zero else {1: set()}
        order = 2 if zero and vanishing[2] > vanishing[1] else 1
        return Part(p, values, zero, order, phi, frozenset(values) | vanishing[order])

    def _vanishing(self, residuals, phi, order, values, xh) -> set[str]:
        """The quantities of a part that vanish for outputs ``phi^order s`` of the fields it fixes to 0 (``s``
        smooth, non-constant and non-zero), measured against their size for ``s`` itself."""
        fixed = jnp.asarray([f in values for f in self.fields], xh.dtype)
        weights = jnp.arange(1.0, len(self.fields) + 1.0, dtype=xh.dtype)
        s = lambda x: 1.0 + 0.3 * jnp.sin((x @ jnp.linspace(0.7, 1.3, x.shape[-1], dtype=x.dtype))[..., None]
                                          * weights + 0.4)
        held = residuals(lambda x: s(x) * (1.0 + fixed * (phi(x)[..., None] ** order - 1.0)))
        free = residuals(s)
        return {q for q in held if q not in values and _vanishes(held[q], free[q])}

    def transform(self, eq, net: Callable, dim: int | None = None) -> Callable:
        """``xh -> g + phi net(xh)``, output by output, with the value functions of the equation ``eq``.

        ``dim``: the network's inputs have further columns after the ``dim`` coordinates (a family's
        parameters, :mod:`.features.parameters`); ``eq`` is then a function of the inputs giving the equation at them,
        and ``g`` and ``phi`` read the coordinates."""
        def out(z):
            xh, equation = (z, eq) if dim is None else (z[..., :dim], eq(z))
            n = net(z)
            columns = []
            for i, f in enumerate(self.fields):
                fixing = self._fixing[f]
                phi = _held(fixing, xh)
                if f in self._enrichment:
                    phi = phi + self._enrichment[f](xh)
                columns.append(self._data[f](equation, xh) + phi * n[..., i])
            return jnp.stack(columns, -1)
        return out


class _Coons:
    """``g_f``: zero, or the Boolean sum of the box's face projectors, times ``Z / (Z + F)`` (module notes)."""

    def __init__(self, faces: dict, nondim: dict, zero_phi: Callable | None, face_phi: Callable):
        self.faces, self.nondim, self.zero_phi, self.face_phi = faces, nondim, zero_phi, face_phi

    @classmethod
    def of(cls, eq, geometry, fixing: list[Part], f: str, length: float, key: str):
        _meet_at_start(geometry, fixing, key)
        if all(c.zero for c in fixing):
            return lambda equation, xh: 0.0
        faces: dict[tuple[int, int], Callable] = {}
        round_pieces, face_pieces = [], []
        for c in fixing:
            if c.order == 2:
                raise ConfigError(f"the clamped derivative of {c.name!r} is exact only when every exact value of "
                                  f"{f!r} is 0; use penalty", key=f"{key}.{c.name}")
            for piece in geometry.pieces_of(c.name):
                if piece.face is None and not c.zero:
                    raise ConfigError(f"non-zero values are exact only on faces of the box (edges, faces, the "
                                      f"initial time); {c.name!r} has another piece (a circle, a sphere, a "
                                      "slanted edge): use penalty", key=f"{key}.{c.name}")
                if piece.face is None:
                    round_pieces.append(piece.distance)
                else:
                    faces.setdefault(piece.face, c.values[f])
                    face_pieces.append(piece.distance)
        centre = np.array([(lo + hi) / 2 for lo, hi in geometry.bounds])
        nondim = {}
        for axis, side in faces:
            point = centre.copy()
            point[axis] = geometry.bounds[axis][side]
            nondim[axis, side] = float(np.asarray(eq.to_nondim(point[None]))[0, axis])
        zero_phi = _factor(eq, round_pieces, length) if round_pieces else None
        return cls(faces, nondim, zero_phi, _factor(eq, face_pieces, length))

    def __call__(self, eq, xh):
        axes = sorted({a for a, _ in self.faces})
        g = 0.0
        for size in range(1, len(axes) + 1):
            for subset in itertools.combinations(axes, size):
                g = g + (-1.0) ** (size + 1) * self._projected(eq, xh, subset)
        if self.zero_phi is None:
            return g
        z = self.zero_phi(xh)
        return g * z / (z + self.face_phi(xh))

    def _projected(self, eq, xh, subset):
        """``Π_{a in subset} P_a`` of the data: a weighted sum of values at points moved onto faces."""
        total = 0.0
        for sides in itertools.product(*[[s for s in (0, 1) if (a, s) in self.faces] for a in subset]):
            weight, columns = 1.0, [xh[..., i] for i in range(xh.shape[-1])]
            for a, s in zip(subset, sides):
                lo, hi = self.nondim.get((a, 0)), self.nondim.get((a, 1))
                if lo is not None and hi is not None:
                    t = (xh[..., a] - lo) / (hi - lo)
                    weight = weight * (t if s else 1.0 - t)
                columns[a] = 0.0 * xh[..., a] + self.nondim[a, s]
            value = self.faces[subset[0], sides[0]](eq, jnp.stack(columns, -1))
            total = total + weight * value
        return total


@dataclass(frozen=True)
class _Nodes:
    """The grid of ``conditions.spacing`` at the first time: ``cells`` per axis (the spline's), the physical
    points ``pts`` (time last) of its data (the nodes, or ``refine`` per cell and axis) and their nondimensional
    ``xh``, and ``given``, a time window's initial values there (else None: the initial part's own), evaluated
    once for every output."""

    spacing: float
    cells: list[int]
    refine: int
    pts: np.ndarray
    xh: Any
    given: dict | None

    @classmethod
    def of(cls, eq, geometry, spacing: float, dtype, values: Callable | None, refine: int = 1) -> _Nodes:
        """``values``: ``physical points -> {field: values}`` (a time window's initial values) or None."""
        space, t0 = geometry.bounds[:-1], geometry.time[0]
        cells = [max(4, round((hi - lo) / spacing)) for lo, hi in space]
        mesh = np.stack(np.meshgrid(*spline.nodes(space, [refine * n for n in cells]), indexing="ij"), -1)
        mesh = mesh.reshape(-1, len(space))
        pts = np.concatenate([mesh, np.full((len(mesh), 1), t0)], -1)
        return cls(spacing, cells, refine, pts, jnp.asarray(eq.to_nondim(pts), dtype),
                   None if values is None else values(pts))


def _interpolated(geometry, others: list[Part], nodes: _Nodes, b, g, phi, fit) -> spline.Spline:
    """The spline through ``(b - g) / phi`` at the nodes; the nodes outside the domain or within a cell of the
    other parts take the nearest other node's value (module notes)."""
    pts, cells, spacing = nodes.pts, nodes.cells, nodes.spacing
    near = ~np.asarray(geometry.space.contains(pts[:, :-1], 0.0))  # outside the domain, or
    for piece in (piece for c in others for piece in geometry.pieces_of(c.name)):  # within a cell of the others
        near |= np.asarray(piece.distance(pts)) < spacing
    if near.all():
        raise ConfigError(f"a grid of {spacing:g} leaves no node a cell away from the exact parts "
                          f"{[c.name for c in others]}", key="conditions.spacing")
    with np.errstate(divide="ignore", invalid="ignore"):
        target = (b - g) / phi
    if near.any():  # the value of the nearest node away from them
        _, index = ndimage.distance_transform_edt(near.reshape(cells), return_indices=True)
        target = target.reshape(cells)[tuple(index)]
    return spline.fit(target.reshape(cells), geometry.bounds[:-1])


def _least_squares(geometry, others: list[Part], nodes: _Nodes, b, g, phi, fit) -> spline.Spline:
    """The spline ``S`` whose ``g + phi S`` is closest to ``b`` at the data points inside the domain, smoothed
    (:func:`.spline.least_squares`): no quotient, so no node needs filling by the other parts."""
    inside = np.asarray(geometry.space.contains(nodes.pts[:, :-1], 0.0))
    if inside.sum() < 16:
        raise ConfigError(f"a grid of {nodes.spacing:g} refined {nodes.refine} times puts {int(inside.sum())} data "
                          f"points inside the domain; the fit needs more", key="conditions.fit.refine")
    return spline.least_squares(nodes.pts[inside, :-1], (b - g)[inside], geometry.bounds[:-1], nodes.cells,
                                fit.smoothing, phi[inside])


FITS: dict[str, Callable[..., spline.Spline]] = {"interpolate": _interpolated, "least_squares": _least_squares}


class _Grid:
    """``g_f`` of an output the initial part fixes, with ``conditions.spacing``: ``g_o + phi_o S`` (module
    notes), ``g_o`` and ``phi_o`` those of the other exact parts, ``S`` fitted by ``conditions.fit`` (:data:`FITS`)."""

    def __init__(self, others: Callable, phi: Callable, start: spline.Spline):
        self.others, self.phi, self.start = others, phi, start

    @classmethod
    def of(cls, eq, geometry, fixing: list[Part], f: str, length: float, key: str, initial: Part, nodes: _Nodes,
           fit: FitConfig):
        others = [c for c in fixing if c is not initial]
        g = _Coons.of(eq, geometry, others, f, length, key)
        phi = lambda xh: _held(others, xh) + 0.0 * xh[..., 0]
        xh = nodes.xh
        at = lambda v: np.broadcast_to(np.asarray(v, float), (len(nodes.pts),))
        b = at(nodes.given[f] if nodes.given is not None else initial.values[f](eq, xh))
        fitted = FITS[fit.method](geometry, others, nodes, b, at(g(eq, xh) + 0.0 * xh[..., 0]), at(phi(xh)), fit)
        return cls(g, phi, fitted)

    def __call__(self, eq, xh):
        x = eq.to_physical(xh)[..., :-1]
        return self.others(eq, xh) + self.phi(xh) * spline.value(self.start, x)


def _meet_at_start(geometry, fixing: list[Part], key: str) -> None:
    """Refuses exact initial values beside an exact hole without ``conditions.spacing`` (module notes): the hole
    spans every time, so it meets the initial face. Refused whatever the values, since a start's data are stand-in
    zeros while a case is checked."""
    if geometry.time is None:
        return
    clock = len(geometry.bounds) - 1
    pieces = {c.name: geometry.pieces_of(c.name) for c in fixing}
    start = [c for c in fixing if any(p.face is not None and p.face[0] == clock for p in pieces[c.name])]
    holes = [c for c in fixing if any(p.face is None for p in pieces[c.name])]
    if start and holes:
        raise ConfigError(f"the exact values of {start[0].name!r} and of the hole {holes[0].name!r} meet where the "
                          f"hole meets the initial time (Z / (Z + F) is 0 / 0 there): give conditions.spacing (the "
                          f"initial values a spline on that grid) or make one of them a penalty",
                          key=f"{key}.{start[0].name}")


def _vanishes(values, against) -> bool:
    """Whether ``values`` are 0 to round-off, against the size of ``against`` (the same function elsewhere)."""
    size = lambda a: float(np.max(np.abs(np.asarray(a))))
    return size(values) <= 1e3 * float(jnp.finfo(jnp.asarray(values).dtype).eps) * max(1.0, size(against))


def _held(parts: list[Part], xh):
    """``phi_f``: the product of the parts' factors, each to its order."""
    return _product(c.phi(xh) ** c.order for c in parts)


def _product(factors):
    out = 1.0
    for f in factors:
        out = out * f
    return out
