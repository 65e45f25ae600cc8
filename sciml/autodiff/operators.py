"""Differential operators as data: multi-indices and linear combinations of partials.

A *request* is either a multi-index ``alpha`` (a tuple of ints, one per input coordinate, meaning
``∂^alpha = ∂_1^alpha_1 ... ∂_d^alpha_d``) or a :class:`LinearOperator` ``Σ_α c_α ∂^α``. Requests are
hashable, so a set of them is a plan the engine can compute in one propagation.

``Δ`` and ``Δ²`` are :class:`Polyharmonic` operators: held as ``(power, dim)``, their terms (``d`` multi-indices
of ``d`` entries for ``Δ``, ``d(d+1)/2`` for ``Δ²``: a ``d × d`` object, ``d³/2`` for ``Δ²``) are listed only when
an exact engine asks for them, so that a request for ``Δu`` in ``d = 10⁵`` dimensions costs nothing until it is
evaluated, and the stochastic mode never lists them.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

MultiIndex = tuple[int, ...]


@dataclass(frozen=True)
class LinearOperator:
    """``L f = Σ_α c_α ∂^α f``; ``terms`` is a tuple of ``(alpha, c)`` pairs with distinct ``alpha``."""

    terms: tuple[tuple[MultiIndex, float], ...]
    name: str = "L"

    @staticmethod
    def of(coefficients: Mapping[MultiIndex, float], name: str = "L") -> LinearOperator:
        terms = tuple(sorted((tuple(int(i) for i in a), float(c)) for a, c in coefficients.items() if c != 0))
        if not terms:
            raise ValueError("a linear operator needs at least one non-zero term")
        dims = {len(a) for a, _ in terms}
        if len(dims) != 1:
            raise ValueError(f"multi-indices of {name} have different lengths: {sorted(dims)}")
        return LinearOperator(terms, name)

    @property
    def dim(self) -> int:
        return len(self.terms[0][0])

    @property
    def orders(self) -> tuple[int, ...]:
        return tuple(sorted({sum(a) for a, _ in self.terms}))

    @property
    def homogeneous(self) -> bool:
        """True when every term has the same order (what collapsed Taylor mode needs)."""
        return len(self.orders) == 1

    def __repr__(self) -> str:
        return f"LinearOperator({self.name})"


Request = MultiIndex | LinearOperator


def unit(dim: int, i: int, k: int = 1) -> MultiIndex:
    """The multi-index ``k e_i`` in ``dim`` dimensions."""
    return tuple(k if j == i else 0 for j in range(dim))


def multi_indices(dim: int, order: int) -> list[MultiIndex]:
    """All multi-indices of ``dim`` components with ``|alpha| == order``, in lexicographic order."""
    return sorted(
        (a for a in itertools.product(range(order + 1), repeat=dim) if sum(a) == order), reverse=True
    )


def _laplacian_terms(dim: int) -> dict[MultiIndex, float]:
    return {unit(dim, i, 2): 1.0 for i in range(dim)}


def _biharmonic_terms(dim: int) -> dict[MultiIndex, float]:
    coeffs: dict[MultiIndex, float] = {unit(dim, i, 4): 1.0 for i in range(dim)}
    for i, j in itertools.combinations(range(dim), 2):
        coeffs[tuple(2 if k in (i, j) else 0 for k in range(dim))] = 2.0
    return coeffs


# power -> (name, its terms in dim coordinates)
POWERS = {1: ("laplacian", _laplacian_terms), 2: ("biharmonic", _biharmonic_terms)}


class Polyharmonic(LinearOperator):
    """``Δ^power`` on ``dim`` coordinates (``power`` 1: the Laplacian, 2: the biharmonic operator), known by
    ``(power, dim)``; :attr:`terms` are listed on first use (see the module notes). Equal to another
    ``Polyharmonic`` of the same power and dimension only."""

    power: int
    _dim: int

    def __init__(self, power: int, dim: int):
        if power not in POWERS:
            raise ValueError(f"Polyharmonic powers are {sorted(POWERS)}, not {power!r}")
        if dim < 1:
            raise ValueError(f"dimension must be positive, not {dim!r}")
        object.__setattr__(self, "power", int(power))
        object.__setattr__(self, "_dim", int(dim))
        object.__setattr__(self, "name", POWERS[power][0])

    @cached_property
    def terms(self) -> tuple[tuple[MultiIndex, float], ...]:
        return LinearOperator.of(POWERS[self.power][1](self._dim), self.name).terms

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def orders(self) -> tuple[int, ...]:
        return (2 * self.power,)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Polyharmonic):
            return NotImplemented
        return (self.power, self._dim) == (other.power, other._dim)

    def __hash__(self) -> int:
        return hash(("Polyharmonic", self.power, self._dim))


def laplacian_op(dim: int) -> Polyharmonic:
    """``Δ = Σ_i ∂_i²``."""
    return Polyharmonic(1, dim)


def biharmonic_op(dim: int) -> Polyharmonic:
    """``Δ² = Σ_i ∂_i⁴ + 2 Σ_{i<j} ∂_i² ∂_j²``."""
    return Polyharmonic(2, dim)


def validate(request: Request, dim: int) -> Request:
    """Check a request against the input dimension and normalise multi-indices to tuples of ints."""
    if isinstance(request, LinearOperator):
        if request.dim != dim:
            raise ValueError(f"{request.name} acts on {request.dim} coordinates, the input has {dim}")
        return request
    alpha = tuple(int(a) for a in request)
    if len(alpha) != dim or any(a < 0 for a in alpha):
        raise ValueError(f"multi-index {request!r} does not fit an input of dimension {dim}")
    return alpha
