"""Loads a plate operator trained on ``grf`` loads (:mod:`.random_loads`) never saw, each by its exact double sine
coefficients, for scoring the operator and its error estimate against Navier's series (issue 72,
docs/notes/operator_estimate.md): new ``grf`` draws (in distribution), uniform patches of three sizes (the smallest
point-like), the uniform load, the hydrostatic load ``q = x``, and single sine modes."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import random_loads

PATCH_SIDES = {"patch_large": (0.3, 0.4), "patch_medium": (0.15, 0.25), "patch_point": (0.05, 0.1)}  # side bounds
MODES = ((3, 2), (1, 5), (1, 1), (2, 2))


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


def loads(s: int, seed: int = 1, terms: int = 128, grf: int = 12, patches: int = 3,
          modes: Sequence[tuple[int, int]] = MODES) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``[(kind, sine coefficients, load on the closed s-point grid)]``: ``grf`` new draws, ``patches`` single
    patches of each size of :data:`PATCH_SIDES` (the load sampled at the grid points, as the data's), the uniform
    and hydrostatic loads and the single ``modes`` (their series at the points), from ``seed``."""
    x = np.linspace(0.0, 1.0, s)
    X, Y = np.meshgrid(x, x, indexing="ij")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(grf):
        c, f = random_loads.grf(rng, terms)
        out.append(("grf", c, f(X, Y)))
    for name, sides in PATCH_SIDES.items():
        for _ in range(patches):
            c, f = random_loads.patches(rng, terms, patches=1, patch_width=sides, force=1.0)
            out.append((name, c, f(X, Y)))
    series = [("uniform", uniform(terms)), ("hydrostatic", hydrostatic(terms))]
    series += [(f"mode_{m}_{n}", mode(m, n, terms)) for m, n in modes]
    return out + [(name, c, on_grid(c, x)) for name, c in series]
