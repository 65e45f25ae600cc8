"""A user's dataset file as arrays, samples first: HDF5, MATLAB v5 and MATLAB v7.3, told apart by their content.

- **HDF5** (``.h5``, ``.hdf5``; PDEBench's files): a dataset per key, a group's by its path (``grid/x``).
- **MATLAB v7.3** (``.mat``): an HDF5 file behind a 512-byte header that begins ``MATLAB 7.3``. MATLAB writes
  its arrays column-major, so HDF5 holds each with its axes reversed; it is read with them reversed back, as
  MATLAB shows it (``(samples, x, y)`` for the FNO paper's ``coeff`` and ``sol``).
- **MATLAB v5** (and v4; ``.mat``, scipy.io): a variable per key.

:func:`read` gives one key's array as stored (float64 for numbers); :func:`entries` lists every numeric array
with its shape, type, range and NaN count (what ``sciml data info FILE`` prints, :func:`info`). Every failure
(no such file, a file of none of these kinds, a truncated or damaged one, a missing key, an array of strings)
is one :class:`~sciml.errors.BadFile` line naming the file and, where one is asked for, the key.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..config import suggest
from ..errors import BadFile
from . import hdf5

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
MATLAB_73 = b"MATLAB 7.3"
BLOCK = 2 ** 24  # bytes read at a time for a range (a large array is not loaded whole to describe it)


@dataclass(frozen=True)
class Entry:
    """One numeric array of a file: its ``key``, ``shape`` and ``dtype`` as :func:`read` gives it, its finite
    ``low`` and ``high`` (NaN when none is finite) and the count of ``nans``."""

    key: str
    shape: tuple[int, ...]
    dtype: str
    low: float
    high: float
    nans: int

    def line(self) -> str:
        where = f"{self.low:.6g} .. {self.high:.6g}" if np.isfinite(self.low) else "no finite value"
        nans = f", {self.nans} NaN" if self.nans else ""
        return f"{self.key:<24} {str(self.shape):<22} {self.dtype:<8} {where}{nans}"


def kind(path: str) -> str:
    """``hdf5``, ``matlab7.3`` or ``matlab``: the file's kind by its first bytes (HDF5's signature at 0, or at
    512 behind MATLAB 7.3's header; else a MATLAB file if its name says so)."""
    if not os.path.isfile(path):
        raise BadFile(f"{path}: no such dataset file")
    with open(path, "rb") as fh:
        head = fh.read(520)
    if head.startswith(HDF5_SIGNATURE):
        return "hdf5"
    if head[512:520] == HDF5_SIGNATURE:
        return "matlab7.3" if head.startswith(MATLAB_73) else "hdf5"
    if path.lower().endswith(".mat") or head.startswith(b"MATLAB"):
        return "matlab"
    raise BadFile(f"{path}: not a dataset file (HDF5 or MATLAB .mat)")


def keys(path: str) -> list[str]:
    """The keys of the file's numeric arrays, in the file's order."""
    return [e.key for e in entries(path, ranges=False)]


def read(path: str, key: str, what: str = "") -> np.ndarray:
    """The array at ``key`` (MATLAB v7.3's with its axes reversed); ``what`` (a case's key, e.g.
    ``data.inputs``) names what asked for it in the message of a missing key."""
    return arrays(path, {key: what})[key]


def arrays(path: str, wanted: dict[str, str]) -> dict[str, np.ndarray]:
    """The arrays at the keys of ``wanted``, read in one opening of the file (a MATLAB v5 file is loaded
    whole once); each key's value names what asked for it, as :func:`read`'s ``what``."""
    k = kind(path)
    if k == "matlab":
        variables = _matlab(path)
        for key, what in wanted.items():
            if key not in variables:
                _missing(path, key, list(variables), what)
        return {key: _numbers(path, key, variables[key]) for key in wanted}
    stored = {}
    with hdf5.opened(path, "dataset file") as f:
        for key, what in wanted.items():
            node = f.get(key)
            if node is None or not hasattr(node, "shape"):
                _missing(path, key, _h5_keys(f), what)
            stored[key] = node[()]
    return {key: _numbers(path, key, a.T if k == "matlab7.3" else a) for key, a in stored.items()}


def entries(path: str, ranges: bool = True) -> list[Entry]:
    """Every numeric array of the file (:class:`Entry`; ``ranges``: False leaves ``low``, ``high``, ``nans`` as
    NaN, NaN, 0 and reads no values of an HDF5 file)."""
    k = kind(path)
    if k == "matlab":
        return [_entry(key, a, ranges) for key, a in _matlab(path).items() if _numeric(a)]
    out = []
    with hdf5.opened(path, "dataset file") as f:
        for key in _h5_keys(f):
            node = f[key]
            if not np.issubdtype(node.dtype, np.number) or node.shape is None:
                continue
            shape = tuple(reversed(node.shape)) if k == "matlab7.3" else tuple(node.shape)
            low, high, nans = _range(node) if ranges else (np.nan, np.nan, 0)
            out.append(Entry(key, shape, str(node.dtype), low, high, nans))
    return out


def info(path: str) -> str:
    """What ``sciml data info FILE`` prints: the file's kind, then a line per numeric array (key, shape as
    :func:`read` gives it, type, finite range, NaN count)."""
    found = entries(path)
    said = {"hdf5": "HDF5", "matlab7.3": "MATLAB v7.3 (HDF5; arrays shown as MATLAB shows them, axes reversed)",
            "matlab": "MATLAB v5"}[kind(path)]
    lines = [f"{path}: {said}, {len(found)} numeric array{'s' * (len(found) != 1)}",
             f"{'key':<24} {'shape':<22} {'dtype':<8} range"]
    return "\n".join(lines + [e.line() for e in found])


def _matlab(path: str) -> dict[str, np.ndarray]:
    from scipy import io  # on use: scipy.io loads MATLAB v4/v5 files

    try:
        data = io.loadmat(path)
    except Exception as e:  # scipy raises ValueError, TypeError, OSError, MatReadError ... for broken files
        raise BadFile(f"{path}: unreadable MATLAB file: {str(e).splitlines()[0] if str(e) else type(e).__name__}") \
            from None
    return {k: v for k, v in data.items() if not k.startswith("__")}


def _h5_keys(f) -> list[str]:
    found: list[str] = []
    f.visititems(lambda name, node: found.append(name) if hasattr(node, "shape") else None)
    return found


def _numeric(a) -> bool:
    return isinstance(a, np.ndarray) and np.issubdtype(a.dtype, np.number)


def _numbers(path: str, key: str, array) -> np.ndarray:
    array = np.asarray(array)
    if not np.issubdtype(array.dtype, np.number):
        raise BadFile(f"{path}: {key}: holds {array.dtype} values, not numbers")
    return array


def _missing(path: str, key: str, known: list[str], what: str):
    asked = f"{what}: " if what else ""
    raise BadFile(f"{path}: {asked}no array {key!r}" + suggest(key, known, f"; its arrays are {known}"))


def _entry(key: str, a: np.ndarray, ranges: bool) -> Entry:
    low, high, nans = _stats(a) if ranges else (np.nan, np.nan, 0)
    return Entry(key, tuple(a.shape), str(a.dtype), low, high, nans)


def _stats(a: np.ndarray) -> tuple[float, float, int]:
    a = np.asarray(a, float)
    finite = a[np.isfinite(a)]
    return (float(finite.min()), float(finite.max()), int(np.isnan(a).sum())) if finite.size else \
        (np.nan, np.nan, int(np.isnan(a).sum()))


def _range(node) -> tuple[float, float, int]:
    """The finite range and NaN count of an HDF5 dataset, read a block of leading rows at a time."""
    if node.ndim == 0 or node.size == 0:
        return _stats(np.asarray(node[()]))
    rows = max(1, BLOCK // max(1, node.size // node.shape[0] * node.dtype.itemsize))
    low, high, nans = np.inf, -np.inf, 0
    for i in range(0, node.shape[0], rows):
        lo, hi, n = _stats(node[i:i + rows])
        low, high, nans = (min(low, lo), max(high, hi), nans + n) if np.isfinite(lo) else (low, high, nans + n)
    return (low, high, nans) if np.isfinite(low) else (np.nan, np.nan, nans)
