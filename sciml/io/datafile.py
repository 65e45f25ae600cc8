"""A user's dataset file as arrays, samples first: HDF5, MATLAB v5 and MATLAB v7.3, told apart by their content.

- **HDF5** (``.h5``, ``.hdf5``; PDEBench's files): a dataset per key, a group's by its path (``grid/x``).
- **MATLAB v7.3** (``.mat``): an HDF5 file behind a 512-byte header that begins ``MATLAB 7.3``. MATLAB writes
  its arrays column-major, so HDF5 holds each with its axes reversed; it is read with them reversed back, as
  MATLAB shows it (``(samples, x, y)`` for the FNO paper's ``coeff`` and ``sol``).
- **MATLAB v5** (and v4; ``.mat``, scipy.io): a variable per key.

A key may index its array, samples first, with numpy's basic indexing (integers, slices, ``...``): PDEBench's
1D files hold ``tensor`` as ``(samples, t, x)``, so ``tensor[:, 0]`` is the initial states and ``tensor[:, -1]``
the last ones; an HDF5 file reads only the part indexed. ``*/PATH`` stacks the array at ``PATH`` of every
top-level group as the samples (PDEBench's 2D files with a group per sample: ``*/data[:, 0]`` is each sample's
first time); ``sciml data info`` shows such a file's arrays so, one line each.

:func:`read` gives one key's array as stored (float64 for numbers); :func:`entries` lists every numeric array
with its shape, type, range and NaN count (what ``sciml data info FILE`` prints, :func:`info`). Every failure
(no such file, a file of none of these kinds, a truncated or damaged one, a missing key, an array of strings)
is one :class:`~sciml.errors.BadFile` line naming the file and, where one is asked for, the key.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np

from ..config import suggest
from ..errors import BadFile
from . import hdf5

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
MATLAB_73 = b"MATLAB 7.3"
BLOCK = 2 ** 24  # bytes read at a time for a range (a large array is not loaded whole to describe it)
EACH = "*/"  # a key's prefix: the array at the rest of the path in every top-level group, stacked as samples
_KEY = re.compile(r"^\s*(?P<name>[^\[\]]+?)\s*(?:\[(?P<index>[^\[\]]*)\])?\s*$")


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
    k, named = kind(path), {key: _parse(path, key, what) for key, what in wanted.items()}
    if k == "matlab":
        variables = _matlab(path)
        for key, what in wanted.items():
            if named[key][0] not in variables:
                _missing(path, named[key][0], list(variables), what)
        return {key: _numbers(path, key, _take(path, key, variables[name], index)) for key, (name, index) in
                named.items()}
    stored = {}
    with hdf5.opened(path, "dataset file") as f:
        for key, what in wanted.items():
            name, index = named[key]
            if name.startswith(EACH):
                stored[key] = _stacked(path, f, key, what, index)
                continue
            node = f.get(name)
            if node is None or not hasattr(node, "shape"):
                _missing(path, name, _h5_keys(f), what)
            stored[key] = _take(path, key, node, index, reverse=k == "matlab7.3")
    return {key: _numbers(path, key, a) for key, a in stored.items()}


def entries(path: str, ranges: bool = True) -> list[Entry]:
    """Every numeric array of the file (:class:`Entry`; ``ranges``: False leaves ``low``, ``high``, ``nans`` as
    NaN, NaN, 0 and reads no values of an HDF5 file)."""
    k = kind(path)
    if k == "matlab":
        return [_entry(key, a, ranges) for key, a in _matlab(path).items() if _numeric(a)]
    out = []
    with hdf5.opened(path, "dataset file") as f:
        for key in _h5_keys(f):
            nodes = [g[key[len(EACH):]] for g in f.values()] if key.startswith(EACH) else [f[key]]
            node = nodes[0]
            if not np.issubdtype(node.dtype, np.number) or node.shape is None:
                continue
            shape = tuple(reversed(node.shape)) if k == "matlab7.3" else tuple(node.shape)
            if key.startswith(EACH):
                shape = (len(nodes), *shape)
            low, high, nans = _merged([_range(n) for n in nodes]) if ranges else (np.nan, np.nan, 0)
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
    """The paths of an HDF5 file's arrays; a file with a group per sample (:func:`_per_sample`) as ``*/PATH``."""
    each = _per_sample(f)
    if each is not None:
        return [EACH + p for p in each]
    found: list[str] = []
    f.visititems(lambda name, node: found.append(name) if hasattr(node, "shape") else None)
    return found


def _per_sample(f) -> list[str] | None:
    """The array paths every top-level group holds when the file is a group per sample (two groups or more, only
    groups at the top, each with the same arrays of the same shapes), else None."""
    groups = list(f.values())
    if len(groups) < 2 or not all(hasattr(g, "visititems") for g in groups):
        return None

    def arrays(g) -> dict:
        found: dict = {}
        g.visititems(lambda name, node: found.update({name: node.shape}) if hasattr(node, "shape") else None)
        return found

    first = arrays(groups[0])
    return list(first) if first and all(arrays(g) == first for g in groups[1:]) else None


def _parse(path: str, key: str, what: str) -> tuple[str, tuple]:
    """``(name, index)`` of a key ``NAME`` or ``NAME[INDEX]`` (numpy's basic indexing: integers, slices, ``...``)."""
    m = _KEY.match(key)
    try:
        if m is None:
            raise ValueError
        if m["index"] is None:
            return m["name"], ()
        return m["name"], tuple(_item(part) for part in m["index"].split(","))
    except ValueError:
        asked = f"{what}: " if what else ""
        raise BadFile(f"{path}: {asked}{key!r} is not an array's key with an index such as tensor[:, -1] "
                      f"(integers, slices a:b:c and ... only)") from None


def _item(text: str):
    text = text.strip()
    if text == "...":
        return Ellipsis
    if ":" in text:
        parts = text.split(":")
        if len(parts) > 3:
            raise ValueError(text)
        return slice(*(int(p) if p.strip() else None for p in parts))
    return int(text)


def _full(index: tuple, ndim: int) -> tuple:
    """``index`` with its ``...`` (or its end) filled by whole slices to ``ndim`` axes."""
    at = index.index(Ellipsis) if Ellipsis in index else len(index)
    rest = [i for i in index if i is not Ellipsis]
    return (*rest[:at], *[slice(None)] * (ndim - len(rest)), *rest[at:])


def _take(path: str, key: str, a, index: tuple, reverse: bool = False) -> np.ndarray:
    """``a[index]`` of an array or HDF5 dataset (only that part read); ``reverse``: MATLAB v7.3's, stored with its
    axes reversed and indexed as MATLAB shows it."""
    try:
        if reverse:
            return np.asarray(a[tuple(reversed(_full(index, a.ndim)))] if a.ndim else a[()]).T
        return np.asarray(a[index] if index else a[()])
    except (IndexError, ValueError, TypeError) as e:
        shape = tuple(reversed(a.shape)) if reverse else tuple(a.shape)
        raise BadFile(f"{path}: {key}: cannot index an array of shape {shape}: {e}") from None


def _stacked(path: str, f, key: str, what: str, index: tuple) -> np.ndarray:
    """The array ``*/PATH[index]``: ``PATH`` of each top-level group, the groups as the first axis."""
    name = _parse(path, key, what)[0][len(EACH):]
    groups = [g for g in f.values() if hasattr(g, "visititems") and hasattr(g.get(name), "shape")]
    if not groups:
        _missing(path, EACH + name, _h5_keys(f), what)
    full = _full(index, 1 + groups[0][name].ndim)
    try:
        chosen = np.arange(len(groups))[full[0]]
    except (IndexError, TypeError) as e:
        raise BadFile(f"{path}: {key}: cannot index {len(groups)} groups: {e}") from None
    if np.ndim(chosen) == 0:
        return _take(path, key, groups[int(chosen)][name], full[1:])
    return np.stack([_take(path, key, groups[i][name], full[1:]) for i in chosen])


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
    return _merged([_stats(node[i:i + rows]) for i in range(0, node.shape[0], rows)])


def _merged(parts: list[tuple[float, float, int]]) -> tuple[float, float, int]:
    """The finite range and NaN count of the parts' together (NaN, NaN where none has a finite value)."""
    finite = [(lo, hi) for lo, hi, _ in parts if np.isfinite(lo)]
    nans = sum(n for _, _, n in parts)
    return (min(lo for lo, _ in finite), max(hi for _, hi in finite), nans) if finite else (np.nan, np.nan, nans)
