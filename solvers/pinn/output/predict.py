"""A PINN problem's predictions: the equation's derived fields (or any function of the fields) at physical points.

:class:`Outputs` is what :class:`~sciml.solvers.pinn.problem.Problem` answers for ``predict``, ``output``,
``inputs``, ``derived`` and ``network_fields``: one jitted function per function of the fields, evaluated in
pieces padded to a few sizes (:func:`sciml.compile.pieces.bucket`) so that a run's many evaluations compile a few
shapes.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MethodType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from sciml.compile.pieces import in_pieces
from sciml.equations.fields import Fields
from sciml.errors import UserError

from ..derivatives import Derivatives


@dataclass
class Outputs:
    """The predictions of a problem: ``net(params)`` (nondimensional inputs to the differentiated fields),
    ``equation_at(params, z)`` (the equation at the unknowns' values and a family's inputs ``z``), ``equation``
    (the case's), ``probe`` (the one requests are collected from), ``derivs``, ``names`` (the fields the
    residuals read), ``family`` (a family's :class:`~sciml.solvers.pinn.parameters.Parameters` or None),
    ``varies`` (whether the equation's numbers vary: unknowns or a family), ``dtype``, ``constants`` (a curriculum
    stage's number, ``{dotted name: array}``, or None: an argument of the jitted functions, so that every stage's
    problem compiles the same programs)."""

    net: Callable
    equation_at: Callable
    equation: Any
    probe: Any
    derivs: Derivatives
    names: tuple[str, ...]
    family: Any
    varies: bool
    dtype: Any
    constants: dict | None = None  # a curriculum stage's number: an argument of the jitted functions
    _jitted: dict = field(default_factory=dict)
    derived: Callable = field(init=False)  # (params, nondimensional points) -> the equation's derived fields

    def __post_init__(self):
        self.derived = self.output(self.equation.derived)

    def network_fields(self, d: Fields) -> dict:
        """Every field the residuals read (network outputs and aliases), nondimensional: with
        ``predict(..., of=problem.network_fields)``, what a next time window's initial condition matches."""
        return {q: d[q] for q in self.names}

    def output(self, of: Callable) -> Callable:
        """``(params, nondimensional points) -> of(fields there)``, jitted once per function ``of`` (the
        :attr:`constants` an argument of it)."""
        if of not in self._jitted:
            own = getattr(of, "__self__", None) is self.equation
            req = self.derivs.requests(MethodType(of.__func__, self.probe) if own else of)  # type: ignore[attr-defined]
            self._jitted[of] = jax.jit(lambda p, xh, c: self._at(p, of, xh, c)(self.derivs.at(self.net(p, c), req, xh)))
        return functools.partial(self._jitted[of], c=self.constants)

    def _at(self, params, of: Callable, z=None, constants: dict | None = None) -> Callable:
        """``of``, or the same method of the equation at the unknowns' values (and a family's parameters at the
        inputs ``z``; a curriculum stage's ``constants``) when ``of`` is the case equation's (its derived fields:
        the plate's deflection scale follows the identified ``D``)."""
        if not (self.varies or constants) or getattr(of, "__self__", None) is not self.equation:
            return of
        return MethodType(of.__func__, self.equation_at(params, z, constants))  # type: ignore[attr-defined]

    def inputs(self, points, values: dict | None = None) -> np.ndarray:
        """The network's inputs at physical ``points (N, D)``: the nondimensional coordinates, and for a family
        the encoded ``values`` (name -> a number or ``(N,)`` values; :class:`UserError` outside the ranges)."""
        points = np.asarray(points, float)
        xh = np.asarray(self.equation.to_nondim(points), float)
        if self.family is None:
            return xh
        if values is None:
            raise UserError(f"a family needs the values of its parameters {list(self.family.names)}")
        return np.concatenate([xh, self.family.encode(values, len(xh))], axis=-1)

    def predict(self, params, points, chunk: int = 16384, of: Callable | None = None,
                values: dict | None = None) -> dict:
        """``{field: values (N,)}``: the derived fields at physical ``points (N, D)``, ``chunk`` at a time;
        ``of``: another function of the fields to report (e.g. the equation's physical gradients); ``values``:
        a family's parameters (:meth:`inputs`). Each piece is padded to one of a few sizes
        (:func:`~sciml.compile.pieces.bucket`), so that the many calls of a run's evaluation and checks (grids,
        rings, sections; one snapshot per time) compile a few shapes, not one per point count."""
        xh = np.asarray(self.inputs(points, values), float)
        fn = self.derived if of is None else self.output(of)
        return in_pieces(lambda piece: fn(params, jnp.asarray(piece, self.dtype)), xh, chunk)
