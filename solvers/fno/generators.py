"""The classical solvers that make FNO datasets, and how their output becomes ``(inputs, outputs)``.

Each generator is a classical solver's ``generate(n_samples, resolution, seed, progress=None, **params)``,
which returns a dict of numpy arrays (:mod:`sciml.solvers.classical`; for ``plate``, Navier's series:
:mod:`sciml.equations.plate_reference.random_loads`). The entries here say which arrays are the operator's input and
output, how many spatial axes they have, and whether the grid includes both ends of [0, 1] (``closed``: Darcy,
Dirichlet boundary on the grid) or is periodic (``periodic``: x_j = j / n). Arrays become channels-last:
``(n, n_1..n_d, channels)``. A generator that can draw its inputs without solving them (``inputs``: Darcy's
coefficients) also serves ``data.n_physics``, the physics terms' unsolved inputs.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sciml.equations.plate_reference import random_loads

from ..classical import burgers, darcy, vorticity


def _channels_last(a: np.ndarray, dims: int) -> np.ndarray:
    """``(n, n_1..n_d)`` -> ``(n, n_1..n_d, 1)``; arrays that already have a channel axis pass."""
    return a[..., None] if a.ndim == dims + 1 else a


@dataclass(frozen=True)
class Generator:
    name: str
    generate: Callable | None  # the classical solver's generate(n_samples, resolution, seed, progress,
    # **params); None for a dataset from a file (DataConfig.source)
    dims: int  # spatial axes
    grid: str  # "closed" or "periodic"
    split: Callable | None  # (arrays dict, t_in, t_out) -> (inputs, outputs), channels last (None: a file's)
    trajectory: bool = False  # outputs are time steps in the channel axis (t_in -> t_out)
    inputs: Callable | None = None  # generate's inputs alone, the same draws, not solved (data.n_physics)
    edge_power: Callable[[dict], int] = lambda params: 1  # the edge factor's power its edges need
    validates: bool = False  # generate(0, ...) checks the parameters' values and costs nothing (config check)

    def parameters(self) -> dict[str, inspect.Parameter]:
        """Keyword parameters of ``generate`` beyond ``(n_samples, resolution, seed, progress)``."""
        assert self.generate is not None, "a generator's (a file's has no parameters)"
        sig = inspect.signature(self.generate)
        return {k: p for k, p in sig.parameters.items()
                if k not in ("n_samples", "resolution", "seed", "progress")
                and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}


def _pair(x_key: str, y_key: str, dims: int):
    """``(inputs, outputs)``; outputs None for arrays drawn without a solve (:attr:`Generator.inputs`)."""
    def split(arrays, t_in=None, t_out=None):
        y = _channels_last(np.asarray(arrays[y_key]), dims) if y_key in arrays else None
        return _channels_last(np.asarray(arrays[x_key]), dims), y
    return split


def _trajectory(key: str):
    def split(arrays, t_in, t_out):
        w = np.asarray(arrays[key])  # (n, s, s, T): vorticity at the recorded times
        if w.shape[-1] < t_in + t_out:
            raise ValueError(f"the generator recorded {w.shape[-1]} time steps; data.t_in + data.t_out = "
                             f"{t_in + t_out}")
        return w[..., :t_in], w[..., t_in:t_in + t_out]
    return split


GENERATORS = {
    "darcy": Generator("darcy", darcy.generate, 2, "closed", _pair("a", "u", 2), inputs=darcy.coefficients),
    "burgers": Generator("burgers", burgers.generate, 1, "periodic", _pair("a", "u", 1)),
    "vorticity": Generator("vorticity", vorticity.generate, 2, "periodic", _trajectory("w"), trajectory=True),
    "plate": Generator("plate", random_loads.generate, 2, "closed", _pair("q", "fields", 2),
                       edge_power=lambda params: 2 if params.get("edges") == "clamped" else 1, validates=True),
}


def subsample(a: np.ndarray, factor: int, dims: int) -> np.ndarray:
    """Every ``factor``-th point along the ``dims`` spatial axes after the sample axis."""
    return a[(slice(None),) + (slice(None, None, factor),) * dims]


def factor(fine: int, coarse: int, grid: str) -> int | None:
    """The stride that takes a grid of ``fine`` points to one of ``coarse`` points (None if none does)."""
    if grid == "closed":
        ok = coarse >= 2 and (fine - 1) % (coarse - 1) == 0
        return (fine - 1) // (coarse - 1) if ok else None
    return fine // coarse if fine % coarse == 0 else None


def coordinates(n: int, dims: int, grid: str) -> np.ndarray:
    """Grid points ``(n, ..., n, dims)`` in [0, 1]."""
    x = np.linspace(0.0, 1.0, n) if grid == "closed" else np.arange(n) / n
    return np.stack(np.meshgrid(*([x] * dims), indexing="ij"), axis=-1)
