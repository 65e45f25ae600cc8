"""Loads a plate operator trained on ``grf`` loads (:mod:`.random_loads`) never saw, each by its exact double sine
coefficients, for scoring the operator and its error estimate against Navier's series (issue 72,
docs/notes/operator_estimate.md): new ``grf`` draws (in distribution), uniform patches of three sizes (the smallest
point-like), the uniform load, the hydrostatic load ``q = x``, and single sine modes.

How a load is put on the grid (``sampling``; the operator reads the load at the grid points, and its physics
integrates the load's work by the grid's quadrature, ``sciml.solvers.fno.physics.Plate.weights``):

- ``values``: the load's values at the points (as the training data's);
- ``work``: at the interior points the values whose quadrature is the load's exact work against the grid's
  interpolant, ``q_ij = ∫∫ q ψ_i(x) ψ_j(y) / (W_i W_j)`` (:func:`work_values`; ``ψ`` the piecewise-quadratic
  Lagrange basis on pairs of intervals when their number is even, the rule being Simpson's, else the hat functions
  of the trapezoid rule; ``W_i = ∫ ψ_i``), from the load's sine series; at the edge points, where ``w = 0`` and the
  load does no work, its values. For a load with a jump (a patch) the values at the points are not what the
  grid's energy needs: its minimiser on the 17-point grid is 3-110 % off Navier's series with the values, 0.01-0.1 %
  with ``work`` (docs/notes/operator_refine_floor.py).

The uniform and hydrostatic loads are given by their values (1 and ``x``) in both: their series summed at the
points (128 terms) are 1-3 % low there, the truncation's ripple sampled at the same phase at every point, which was
the refinement's 1.5 % floor of docs/notes/operator_estimate.md.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

from sciml.errors import UserError

from . import random_loads

PATCH_SIDES = {"patch_large": (0.3, 0.4), "patch_medium": (0.15, 0.25), "patch_point": (0.05, 0.1)}  # side bounds
MODES = ((3, 2), (1, 5), (1, 1), (2, 2))
SAMPLINGS = ("values", "work")  # how a load is put on the grid (the module's docstring)


def uniform(terms: int) -> np.ndarray:
    """The sine coefficients ``(terms, terms)`` of ``q = 1``."""
    m = np.arange(1, terms + 1)
    c = np.where(m % 2 == 1, 4 / (np.pi * m), 0.0)
    return np.outer(c, c)


def hydrostatic(terms: int) -> np.ndarray:
    """The sine coefficients of ``q = x``."""
    m = np.arange(1, terms + 1)
    return np.outer(2 * (-1.0) ** (m + 1) / (np.pi * m), np.where(m % 2 == 1, 4 / (np.pi * m), 0.0))


def mode(m: int, n: int, terms: int) -> np.ndarray:
    """The sine coefficients of ``q = sin mπx sin nπy``."""
    c = np.zeros((terms, terms))
    c[m - 1, n - 1] = 1.0
    return c


def on_grid(q_mn: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The load of sine coefficients ``q_mn`` at the grid ``x × x`` (its series, summed)."""
    s = np.sin(np.pi * np.outer(x, np.arange(1, q_mn.shape[-1] + 1)))
    return s @ q_mn @ s.T


def basis_integrals(s: int, f: Callable[[np.ndarray], np.ndarray], points: int = 32) -> np.ndarray:
    """``∫ ψ_i(x) f(x) dx``, ``(s, ...)``, for the closed ``s``-point grid of [0, 1]: ``ψ_i`` the piecewise-quadratic
    Lagrange basis on pairs of intervals when ``s - 1`` is even (its integrals are Simpson's weights), else the hat
    functions (the trapezoid rule's); ``f(x (n,)) -> (n, ...)``, integrated by Gauss-Legendre with ``points`` points
    per piece."""
    degree = 2 if (s - 1) % 2 == 0 else 1
    h, (t, weights) = 1.0 / (s - 1), np.polynomial.legendre.leggauss(points)
    t = (t + 1) * degree / 2  # the piece in units of h, [0, degree]
    local = [(t - 1) * (t - 2) / 2, t * (2 - t), t * (t - 1) / 2] if degree == 2 else [1 - t, t]
    pieces = [(start, np.tensordot(np.stack(local) * (weights * h * degree / 2), f((start + t) * h), axes=1))
              for start in range(0, s - 1, degree)]
    out = np.zeros((s, *pieces[0][1].shape[1:]))
    for start, part in pieces:
        out[start:start + degree + 1] += part
    return out


def work_values(q_mn: np.ndarray, s: int) -> np.ndarray:
    """The load of sine coefficients ``q_mn`` on the closed ``s``-point grid as values whose quadrature is its exact
    work against the grid's interpolant (``sampling="work"``, the module's docstring): ``(A q_mn Aᵀ) / (W Wᵀ)``,
    ``A_im = ∫ ψ_i sin mπx``, ``W_i = ∫ ψ_i`` (:func:`basis_integrals`)."""
    m = np.arange(1, q_mn.shape[-1] + 1)
    A = basis_integrals(s, lambda x: np.sin(np.pi * np.outer(x, m)), points=32 + len(m))
    W = basis_integrals(s, lambda x: np.ones((len(x), 1)))[:, 0]
    return (A @ q_mn @ A.T) / np.outer(W, W)


def placed(q_mn: np.ndarray, values: np.ndarray, sampling: str) -> np.ndarray:
    """A load on the closed grid as ``sampling`` asks (:data:`SAMPLINGS`): its ``values (s, s)`` at the points, or
    :func:`work_values` inside and its values on the edges."""
    if sampling == "values":
        return values
    inner = work_values(q_mn, values.shape[0])
    edge = np.ones(values.shape, bool)
    edge[1:-1, 1:-1] = False
    return np.where(edge, values, inner)


def checked(sampling: str) -> str:
    """``sampling`` if it is one of :data:`SAMPLINGS`, else one line (:class:`~sciml.errors.UserError`)."""
    if sampling not in SAMPLINGS:
        raise UserError(f"sampling {sampling!r}: the loads are put on the grid by {' or '.join(SAMPLINGS)}")
    return sampling


def drawn(seed: int = 1, terms: int = 128, grf: int = 12, patches: int = 3,
          modes: Sequence[tuple[int, int]] = MODES) -> list[tuple[str, np.ndarray, Callable]]:
    """``[(kind, sine coefficients (terms, terms), load q(x, y))]``: ``grf`` new draws, ``patches`` single patches
    of each size of :data:`PATCH_SIDES`, the uniform and hydrostatic loads and the single ``modes``, from ``seed``."""
    rng = np.random.default_rng(seed)
    out = [("grf", *random_loads.grf(rng, terms)) for _ in range(grf)]
    out += [(name, *random_loads.patches(rng, terms, patches=1, patch_width=sides, force=1.0))
            for name, sides in PATCH_SIDES.items() for _ in range(patches)]
    out += [("uniform", uniform(terms), lambda x, y: np.ones(np.broadcast(x, y).shape)),
            ("hydrostatic", hydrostatic(terms), lambda x, y: np.broadcast_arrays(np.asarray(x, float), y)[0])]
    return out + [(f"mode_{m}_{n}", mode(m, n, terms), functools.partial(sine_mode, m, n)) for m, n in modes]


def sine_mode(m: int, n: int, x, y) -> np.ndarray:
    """``sin mπx sin nπy``."""
    return np.sin(m * np.pi * np.asarray(x, float)) * np.sin(n * np.pi * np.asarray(y, float))


def loads(s: int, seed: int = 1, terms: int = 128, grf: int = 12, patches: int = 3,
          modes: Sequence[tuple[int, int]] = MODES,
          sampling: str = "values") -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``[(kind, sine coefficients, load on the closed s-point grid)]``: the loads of :func:`drawn` put on the grid
    as ``sampling`` says (:data:`SAMPLINGS`, the module's docstring)."""
    checked(sampling)
    X, Y = np.meshgrid(np.linspace(0.0, 1.0, s), np.linspace(0.0, 1.0, s), indexing="ij")
    return [(name, c, placed(c, f(X, Y), sampling)) for name, c, f in drawn(seed, terms, grf, patches, modes)]
