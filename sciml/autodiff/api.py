"""The differential-operator API every solver and equation goes through.

All functions take a *pointwise* ``f``: it maps ``x`` of shape ``(..., d)`` to ``(..., m)`` or ``(...)``,
each row independently (an MLP applied to a batch of points is pointwise). Derivatives keep the shape of
``f(x)``. ``mode`` picks the implementation from the table ``MODES``:

- ``"taylor"`` (default): the Taylor-mode engine, one planned propagation for the whole request set;
- ``"nested"``: nested ``jax.jvp``, the reference the engine is validated against;
- ``"stochastic"``: unbiased randomized estimates of ``Δ``/``Δ²`` (needs ``key`` and ``samples``).

Everything returns ordinary JAX functions: they compose with ``jit``, ``vmap``, ``grad`` and sharding.
"""
from __future__ import annotations

from typing import Callable, Iterable, Mapping

import jax.numpy as jnp

from . import nested
from .operators import (
    LinearOperator,
    MultiIndex,
    Request,
    biharmonic_op,
    laplacian_op,
    multi_indices,
    unit,
    validate,
)

# mode name -> derivatives(f, requests, **options) -> (x -> {request: array}); engines register here.
MODES: dict[str, Callable] = {"nested": nested.derivatives}
DEFAULT_MODE = "taylor"


def register_mode(name: str, implementation: Callable) -> None:
    """Add an implementation of :func:`derivatives` under ``name``."""
    MODES[name] = implementation


def derivatives(f: Callable, requests: Iterable[Request], *, mode: str | None = None, **options) -> Callable:
    """``x -> {request: value}`` for a set of partials (multi-indices) and :class:`LinearOperator` s.

    The whole set is handed to the engine at once so that it can plan one propagation.
    """
    requests = tuple(dict.fromkeys(requests))
    mode = mode or DEFAULT_MODE
    if mode not in MODES:
        raise ValueError(f"unknown autodiff mode {mode!r}; choose one of {sorted(MODES)}")
    impl = MODES[mode]

    def evaluate(x):
        d = x.shape[-1]
        checked = tuple(validate(r, d) for r in requests)
        return impl(f, checked, **options)(x)

    return evaluate


def _single(f, request, mode, options) -> Callable:
    run = derivatives(f, (request,), mode=mode, **options)
    return lambda x: run(x)[request if isinstance(request, LinearOperator) else tuple(request)]


def partial(f: Callable, alpha: MultiIndex, *, mode: str | None = None, **options) -> Callable:
    """``x -> ∂^alpha f(x)``."""
    return _single(f, tuple(alpha), mode, options)


def linear_operator(f: Callable, coefficients: Mapping[MultiIndex, float] | LinearOperator, *,
                    mode: str | None = None, **options) -> Callable:
    """``x -> Σ_α c_α ∂^α f(x)``."""
    op = coefficients if isinstance(coefficients, LinearOperator) else LinearOperator.of(coefficients)
    return _single(f, op, mode, options)


def laplacian(f: Callable, *, mode: str | None = None, **options) -> Callable:
    """``x -> Δf(x)``."""
    return lambda x: _single(f, laplacian_op(x.shape[-1]), mode, options)(x)


def biharmonic(f: Callable, *, mode: str | None = None, **options) -> Callable:
    """``x -> Δ²f(x)``."""
    return lambda x: _single(f, biharmonic_op(x.shape[-1]), mode, options)(x)


def _stack_partials(f, order, mode, options, x):
    d = x.shape[-1]
    alphas = multi_indices(d, order)
    vals = derivatives(f, alphas, mode=mode, **options)(x)
    return d, vals


def jacobian(f: Callable, *, mode: str | None = None, **options) -> Callable:
    """``x -> J`` with ``J[..., i] = ∂_i f`` appended as the last axis (shape ``f(x).shape + (d,)``)."""

    def jac(x):
        d, vals = _stack_partials(f, 1, mode, options, x)
        return jnp.stack([vals[unit(d, i)] for i in range(d)], axis=-1)

    return jac


grad = jacobian  # for a scalar-valued f the Jacobian's last axis is the gradient


def hessian(f: Callable, *, mode: str | None = None, **options) -> Callable:
    """``x -> H`` with ``H[..., i, j] = ∂_i ∂_j f`` (two trailing axes)."""

    def hess(x):
        d, vals = _stack_partials(f, 2, mode, options, x)
        idx = lambda i, j: tuple(int(k == i) + int(k == j) for k in range(d))
        return jnp.stack([jnp.stack([vals[idx(i, j)] for j in range(d)], -1) for i in range(d)], -2)

    return hess


def divergence(f: Callable, *, mode: str | None = None, **options) -> Callable:
    """``x -> Σ_i ∂_i f_i(x)`` for ``f`` mapping ``(..., d)`` to ``(..., d)``."""

    def div(x):
        j = jacobian(f, mode=mode, **options)(x)
        return jnp.trace(j, axis1=-2, axis2=-1)

    return div
