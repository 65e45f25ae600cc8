"""Derivative lookups that let residuals read like the PDE on paper.

A residual is plain Python over a :class:`Fields` object ``d``::

    d["w"]          # the field w
    d["w_xxyy"]     # ∂⁴w/∂x²∂y² (one letter per coordinate, repeated for the order)
    d.lap("w")      # Δw, a collapsed operator
    d.lap("u", over=("x", "y"))  # the Laplacian over some coordinates (space, not time)
    d.bilap("w")    # Δ²w
    d.x, d.coord("y")  # coordinates of the points

A field may be an *alias* of a derivative of a network output: with ``aliases={"u": ("psi", (0, 1), 1.0),
"v": ("psi", (1, 0), -1.0)}`` (a stream function, ``u = ψ_y``, ``v = -ψ_x``) ``d["u_xx"]`` reads
``ψ_xxy`` and ``d.lap("v")`` is the operator ``-∂_x Δ`` on ψ; the engine still gets one request set.

The solver first runs the residuals on a :class:`Recorder`, which returns zeros and notes every lookup;
the whole set of requests is then handed to :func:`sciml.autodiff.derivatives` in one call, and the residuals
run again on the real :class:`Fields`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

import jax.numpy as jnp

from sciml import autodiff as ad
from sciml.autodiff import LinearOperator, Request

# alias name -> (network output it derives from, multi-index of the derivative, coefficient)
Aliases = Mapping[str, tuple[str, tuple[int, ...], float]]


def split_key(key: str, names, coords: tuple[str, ...]) -> tuple[str, tuple[int, ...]]:
    """``"w_xxy"`` -> ("w", (2, 1)), checking the field is one of ``names``."""
    name, _, wrt = key.partition("_")
    if name not in names:
        raise KeyError(f"unknown field {name!r} in {key!r}; fields are {list(names)}")
    alpha = [0] * len(coords)
    for letter in wrt:
        if letter not in coords:
            raise KeyError(f"unknown coordinate {letter!r} in {key!r}; coordinates are {list(coords)}")
        alpha[coords.index(letter)] += 1
    return name, tuple(alpha)


def _shift(op: LinearOperator, beta, c: float) -> LinearOperator:
    """``c ∂^beta L``: every multi-index of ``L`` raised by ``beta``."""
    terms = {tuple(a + b for a, b in zip(alpha, beta)): c * w for alpha, w in op.terms}
    return LinearOperator.of(terms, f"{op.name}∘∂{beta}")


class Fields:
    """Values of fields and their derivatives at a batch of points (the nondimensional ones)."""

    def __init__(self, x, values: Mapping[Request, jnp.ndarray], fields, coords, aliases: Aliases | None = None):
        self.points, self._values, self.fields, self.coords = x, values, tuple(fields), tuple(coords)
        self.aliases = dict(aliases or {})

    @property
    def names(self) -> tuple[str, ...]:
        """Every field a residual may read: network outputs and aliases."""
        return self.fields + tuple(a for a in self.aliases if a not in self.fields)

    def _get(self, field: str, request: Request):
        return self._values[request][..., self.fields.index(field)]

    def _resolve(self, field: str, request: Request):
        """A request on ``field`` as ``(coefficient, network output, request)``."""
        if field in self.aliases:
            source, beta, c = self.aliases[field]
            if isinstance(request, LinearOperator):
                return 1.0, source, _shift(request, beta, c)
            return c, source, tuple(a + b for a, b in zip(request, beta))
        if field not in self.fields:
            raise KeyError(f"unknown field {field!r}; fields are {list(self.names)}")
        return 1.0, field, request

    def _lookup(self, field: str, request: Request):
        c, source, req = self._resolve(field, request)
        value = self._get(source, req)
        return value if c == 1.0 else c * value

    def __getitem__(self, key: str):
        name, alpha = split_key(key, self.names, self.coords)
        return self._lookup(name, alpha)

    def op(self, field: str, operator: LinearOperator):
        """``L field`` for a linear operator from :mod:`sciml.autodiff.operators`."""
        return self._lookup(field, operator)

    def _over(self, over) -> tuple[int, ...]:
        if over is None:
            return tuple(range(len(self.coords)))
        missing = [c for c in over if c not in self.coords]
        if missing:
            raise KeyError(f"unknown coordinates {missing}; coordinates are {list(self.coords)}")
        return tuple(self.coords.index(c) for c in over)

    def lap(self, field: str, over: tuple[str, ...] | None = None):
        """``Δ field`` over all coordinates, or over the coordinates ``over`` (e.g. space only)."""
        if over is None:
            return self.op(field, ad.laplacian_op(len(self.coords)))
        dim = len(self.coords)
        axes = self._over(over)
        return self.op(field, LinearOperator.of({ad.unit(dim, i, 2): 1.0 for i in axes},
                                                f"laplacian[{','.join(over)}]"))

    def bilap(self, field: str):
        return self.op(field, ad.biharmonic_op(len(self.coords)))

    def coord(self, name: str):
        return self.points[..., self.coords.index(name)]

    def __getattr__(self, name: str):
        coords = self.__dict__.get("coords", ())
        if name in coords:
            return self.points[..., coords.index(name)]
        raise AttributeError(name)


class Recorder(Fields):
    """A :class:`Fields` that answers zeros and records what was asked for."""

    def __init__(self, x, fields, coords, aliases: Aliases | None = None):
        super().__init__(x, {}, fields, coords, aliases)
        self.requests: dict[Request, None] = {}

    def _get(self, field, request):
        self.requests[request] = None
        return jnp.zeros(self.points.shape[:-1], self.points.dtype)


def collect(residual: Callable[[Fields], object], fields, coords, dtype=jnp.float32,
            aliases: Aliases | None = None) -> tuple[Request, ...]:
    """The requests a residual function makes (run once on a Recorder with one dummy point)."""
    rec = Recorder(jnp.zeros((1, len(coords)), dtype), fields, coords, aliases)
    residual(rec)
    return tuple(rec.requests)


def _padded(request, extra: int):
    """``request`` with ``extra`` zero orders appended (inputs that are not coordinates)."""
    if isinstance(request, LinearOperator):
        return LinearOperator.of({tuple(a) + (0,) * extra: c for a, c in request.terms}, request.name)
    return tuple(request) + (0,) * extra


def evaluator(net: Callable, requests, fields, coords, aliases: Aliases | None = None, extra: int = 0,
              **autodiff_options) -> Callable:
    """``x -> Fields`` computing all ``requests`` of ``net`` in one planned propagation.

    ``extra``: the last ``extra`` columns of ``x`` are further inputs of ``net`` that are not coordinates (a
    family's parameters): the derivatives are taken in the coordinates only and ``Fields.points`` holds the
    coordinates alone."""
    if not extra:
        run = ad.derivatives(net, requests, **autodiff_options)
        return lambda x: Fields(x, run(x), fields, coords, aliases)
    padded = {r: _padded(r, extra) for r in requests}
    run = ad.derivatives(net, tuple(padded.values()), **autodiff_options)
    dim = len(coords)

    def evaluate(x):
        values = run(x)
        return Fields(x[..., :dim], {r: values[p] for r, p in padded.items()}, fields, coords, aliases)
    return evaluate
