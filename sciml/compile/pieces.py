"""Calling a compiled function on many rows a piece at a time, each piece padded to one of a few sizes.

A jitted function compiles once per input shape. A run's evaluation and checks (grids, rings, sections, one
snapshot per time) and a user's ``sciml predict`` calls meet many point counts; padded to the sizes of
:func:`bucket` they compile a handful of programs, and a piece of at most ``most`` rows bounds the memory that a
call of a million points would take at once.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np


def bucket(n: int, most: int, least: int = 256) -> int:
    """The rows a piece of ``n`` rows is padded to: the least of ``least``, ``4 least``, ``16 least``, ... that
    holds them, at most ``most`` (the piece). Powers of four: a run's evaluation meets at most a handful, for at
    most four times the work of its smallest calls."""
    size = least
    while size < n:
        size *= 4
    return min(most, size)


def in_pieces(fn: Callable, x: np.ndarray, most: int, least: int | None = 256) -> dict:
    """``fn(x)`` (a dict of arrays with a leading row axis) for rows ``x (n, ...)``, ``most`` rows at a time, each
    piece padded to :func:`bucket` rows by repeating its last row (``fn`` must treat rows independently; ``least``
    None: not padded); the pieces' answers joined as NumPy arrays of ``n`` rows."""
    if len(x) == 0:
        return {k: np.asarray(v) for k, v in fn(x).items()}
    pieces = []
    for i in range(0, len(x), most):
        piece = x[i:i + most]
        n = len(piece)
        size = n if least is None else bucket(n, most, least)
        padded = np.concatenate([piece, np.repeat(piece[-1:], size - n, axis=0)])
        pieces.append((n, fn(padded)))
    return {k: np.concatenate([np.asarray(p[k])[:n] for n, p in pieces]) for k in pieces[0][1]}
