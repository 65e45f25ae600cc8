r"""The plate data shared by the reference solvers: rectangle, rigidity, Poisson ratio, edge conditions, load.

A Kirchhoff plate occupies :math:`[x_0, x_0 + a] \times [y_0, y_0 + b]` and bends under a transverse load
:math:`q(x, y)` as :math:`D\,\Delta^2 w = q`. Its edges are named ``left`` (:math:`x = x_0`), ``right``
(:math:`x = x_0 + a`), ``bottom`` (:math:`y = y_0`) and ``top`` (:math:`y = y_0 + b`), each with one of the
conditions (Timoshenko & Woinowsky-Krieger, *Theory of Plates and Shells*, 2nd ed., §§21–22):

- ``simply_supported``: :math:`w = 0`, :math:`M_n = 0`;
- ``clamped``: :math:`w = 0`, :math:`\partial_n w = 0`;
- ``free``: :math:`M_n = 0` and the Kirchhoff edge force :math:`V_n = Q_n + \partial_t M_{nt} = 0`.

The fields every solver returns, in the sign convention of ``sciml.equations.plate``:
:math:`M_x = -D(w_{xx} + \nu w_{yy})`, :math:`M_y = -D(w_{yy} + \nu w_{xx})`, :math:`M_{xy} = -D(1-\nu) w_{xy}`,
:math:`Q_x = -D\,\partial_x \Delta w = \partial_x M_x + \partial_y M_{xy}`,
:math:`Q_y = -D\,\partial_y \Delta w = \partial_x M_{xy} + \partial_y M_y`, so that
:math:`\partial_x Q_x + \partial_y Q_y = -q`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

EDGE_NAMES = ("left", "right", "bottom", "top")
CONDITIONS = ("simply_supported", "clamped", "free")
FIELDS = ("w", "mx", "my", "mxy", "qx", "qy")


@dataclass(frozen=True)
class Plate:
    """A rectangular plate: ``bounds = ((x0, x1), (y0, y1))``, rigidity ``D``, Poisson ratio ``nu``, edges."""

    bounds: tuple
    D: float
    nu: float
    edges: Mapping

    @property
    def a(self) -> float:
        return self.bounds[0][1] - self.bounds[0][0]

    @property
    def b(self) -> float:
        return self.bounds[1][1] - self.bounds[1][0]

    def transposed(self) -> Plate:
        """The same plate with the roles of x and y exchanged (left/right <-> bottom/top)."""
        e = self.edges
        edges = {"left": e["bottom"], "right": e["top"], "bottom": e["left"], "top": e["right"]}
        return Plate((self.bounds[1], self.bounds[0]), self.D, self.nu, edges)


def make_plate(bounds, edges, D, nu) -> Plate:
    """Validate and normalise the plate data. ``edges`` is a mapping or an object with the four attributes."""
    (x0, x1), (y0, y1) = bounds
    bounds = ((float(x0), float(x1)), (float(y0), float(y1)))
    if not (bounds[0][1] > bounds[0][0] and bounds[1][1] > bounds[1][0]):
        raise ValueError(f"bounds must be ((x0, x1), (y0, y1)) with x1 > x0 and y1 > y0, got {bounds}")
    if not D > 0:
        raise ValueError(f"the flexural rigidity D must be positive, got {D}")
    if not -1.0 < nu < 0.5:
        raise ValueError(f"Poisson's ratio must lie in (-1, 0.5), got {nu}")
    if isinstance(edges, str):
        edges = dict.fromkeys(EDGE_NAMES, edges)
    get = edges.get if isinstance(edges, Mapping) else (lambda k: getattr(edges, k, None))
    norm = {}
    for name in EDGE_NAMES:
        cond = get(name)
        if cond not in CONDITIONS:
            raise ValueError(f"edge {name!r}: condition must be one of {CONDITIONS}, got {cond!r}")
        norm[name] = cond
    if isinstance(edges, Mapping) and set(edges) - set(EDGE_NAMES):
        raise ValueError(f"unknown edge names {sorted(set(edges) - set(EDGE_NAMES))}; use {EDGE_NAMES}")
    return Plate(bounds, float(D), float(nu), norm)


@dataclass(frozen=True)
class Load:
    """A transverse load: ``value`` for a uniform load, else a vectorised callable ``q(x, y) -> array``;
    ``coefficients(bounds, terms)``: its sine coefficients ``(terms, terms)`` on a plate where they are known in
    closed form (a patch, ``patch.py``), for Navier's series instead of quadrature."""

    func: Callable
    value: float | None = None
    coefficients: Callable | None = None

    @property
    def uniform(self) -> bool:
        return self.value is not None

    def __call__(self, x, y):
        x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
        if self.uniform:
            return np.full(x.shape, self.value)
        q = np.broadcast_to(np.asarray(self.func(x, y), dtype=float), x.shape)
        if not np.all(np.isfinite(q)):
            raise ValueError("the load is not finite at some quadrature or grid points")
        return q


def make_load(load, bounds, uniform: bool | None = None) -> Load:
    """Normalise ``load`` (a number, a callable ``q(x, y)``, or a :class:`Load` as it is) and decide whether it
    is uniform.

    ``uniform=None`` probes a callable on a 17 x 17 Gauss grid plus 64 pseudo-random points of the plate and
    treats it as uniform when every value is exactly the same, so that the series solvers use their
    closed-form coefficients; ``uniform=True`` takes the value at the centre; ``uniform=False`` never does.
    """
    if isinstance(load, Load):
        return load
    if np.isscalar(load) or (isinstance(load, np.ndarray) and load.ndim == 0):
        value = float(load)  # type: ignore[arg-type]  # numpy's isscalar lets str and bytes through as well
        return Load(lambda x, y: np.full(np.shape(x), value), value)
    if not callable(load):
        raise TypeError(f"the load must be a number or a callable q(x, y), got {type(load).__name__}")
    (x0, x1), (y0, y1) = bounds
    if uniform:
        q = np.asarray(load(np.array([(x0 + x1) / 2]), np.array([(y0 + y1) / 2])), float).ravel()[0]
        return Load(load, float(q))
    if uniform is None:
        g = (np.polynomial.legendre.leggauss(17)[0] + 1) / 2
        r = np.random.default_rng(12345).random((2, 64))
        px = np.concatenate([np.repeat(x0 + (x1 - x0) * g, 17), x0 + (x1 - x0) * r[0]])
        py = np.concatenate([np.tile(y0 + (y1 - y0) * g, 17), y0 + (y1 - y0) * r[1]])
        q = np.broadcast_to(np.asarray(load(px, py), float), px.shape)
        if np.all(q == q[0]) and np.isfinite(q[0]):
            return Load(load, float(q[0]))
    return Load(load)
