"""Derivative lookups that let residuals read like the PDE on paper.

A residual is plain Python over a :class:`Fields` object ``d``::

    d["w"]          # the field w
    d["w_xxyy"]     # ∂⁴w/∂x²∂y² (one letter per coordinate, repeated for the order)
    d.lap("w")      # Δw, a collapsed operator
    d.bilap("w")    # Δ²w
    d.x, d.coord("y")  # coordinates of the points

The solver first runs the residuals on a :class:`Recorder`, which returns zeros and notes every lookup;
the whole set of requests is then handed to :func:`sciml.autodiff.derivatives` in one call, and the residuals
run again on the real :class:`Fields`.
"""
from __future__ import annotations

from typing import Callable, Mapping

import jax.numpy as jnp

from sciml import autodiff as ad
from sciml.autodiff import LinearOperator, Request


def parse_key(key: str, fields: tuple[str, ...], coords: tuple[str, ...]) -> tuple[int, tuple[int, ...]]:
    """``"w_xxy"`` -> (index of w, multi-index (2, 1)); ``"w"`` -> (index, (0, 0))."""
    name, _, wrt = key.partition("_")
    if name not in fields:
        raise KeyError(f"unknown field {name!r} in {key!r}; fields are {list(fields)}")
    alpha = [0] * len(coords)
    for letter in wrt:
        if letter not in coords:
            raise KeyError(f"unknown coordinate {letter!r} in {key!r}; coordinates are {list(coords)}")
        alpha[coords.index(letter)] += 1
    return fields.index(name), tuple(alpha)


class Fields:
    """Values of fields and their derivatives at a batch of points (the nondimensional ones)."""

    def __init__(self, x, values: Mapping[Request, jnp.ndarray], fields, coords):
        self.points, self._values, self.fields, self.coords = x, values, tuple(fields), tuple(coords)

    def _get(self, field: str, request: Request):
        return self._values[request][..., self.fields.index(field)]

    def __getitem__(self, key: str):
        i, alpha = parse_key(key, self.fields, self.coords)
        return self._values[alpha][..., i]

    def op(self, field: str, operator: LinearOperator):
        """``L field`` for a linear operator from :mod:`sciml.autodiff.operators`."""
        if field not in self.fields:
            raise KeyError(f"unknown field {field!r}; fields are {list(self.fields)}")
        return self._get(field, operator)

    def lap(self, field: str):
        return self.op(field, ad.laplacian_op(len(self.coords)))

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

    def __init__(self, x, fields, coords):
        super().__init__(x, {}, fields, coords)
        self.requests: dict[Request, None] = {}

    def _get(self, field, request):
        self.requests[request] = None
        return jnp.zeros(self.points.shape[:-1], self.points.dtype)

    def __getitem__(self, key):
        i, alpha = parse_key(key, self.fields, self.coords)
        return self._get(self.fields[i], alpha)


def collect(residual: Callable[[Fields], object], fields, coords, dtype=jnp.float32) -> tuple[Request, ...]:
    """The requests a residual function makes (run once on a Recorder with one dummy point)."""
    rec = Recorder(jnp.zeros((1, len(coords)), dtype), fields, coords)
    residual(rec)
    return tuple(rec.requests)


def evaluator(net: Callable, requests, fields, coords, **autodiff_options) -> Callable:
    """``x -> Fields`` computing all ``requests`` of ``net`` in one planned propagation."""
    run = ad.derivatives(net, requests, **autodiff_options)
    return lambda x: Fields(x, run(x), fields, coords)
