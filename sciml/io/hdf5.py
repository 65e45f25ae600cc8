"""Reading the HDF5 files a user may hand us, and checksums of the arrays stored in them.

:func:`opened` is ``h5py.File(path, "r")`` whose every failure (missing, truncated, not HDF5, a group or
dataset missing, a block that fails its filter check) is one :class:`~sciml.errors.BadFile` line
``<path>: <what> <what is wrong>``, never a traceback; :func:`read` reads a whole file that way (a run's
``fields.h5``, through :func:`sciml.read_fields`).

:func:`digest` is the SHA-256 of a sequence of named arrays: for each, ``name|dtype|shape|`` then its bytes
(C order), so a changed value, shape, type, name or order changes it. Files store it in their attributes
(``sha256``) and readers recompute it from what they read.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Iterable, Iterator

import h5py
import numpy as np

from ..errors import BadFile

# h5py's reason (the part in parentheses) -> what the user is told; anything else is shown as h5py says it
_REASONS = [("file signature not found", "not an HDF5 file"),
            ("truncated file", "truncated (a damaged or unfinished copy)"),
            ("filter returned failure", "a stored block fails its check"),
            ("doesn't exist", None)]


def _reason(e: BaseException) -> str:
    text = str(e.args[0] if isinstance(e, KeyError) and e.args else e)
    inner = re.search(r"\((.*)\)\s*$", text)
    text = inner.group(1) if inner else text
    for needle, said in _REASONS:
        if needle in text:
            return said or text.replace("object ", "", 1)
    return text


@contextlib.contextmanager
def opened(path: str, what: str, remedy: str = "") -> Iterator[h5py.File]:
    """``path`` open for reading; failures inside the block (reads, missing keys) are ``BadFile`` too.

    ``what``: the kind of file, as the message names it ("checkpoint", "dataset"); ``remedy``: appended to
    the message (e.g. "; make it again with ...").
    """
    if not os.path.isfile(path):
        raise BadFile(f"{path}: no such {what}{remedy}")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise BadFile(f"{path}: unreadable {what}: {_reason(e)}{remedy}") from None
    with f:
        try:
            yield f
        except (OSError, KeyError) as e:
            raise BadFile(f"{path}: damaged {what}: {_reason(e)}{remedy}") from None


def read(path: str, what: str) -> dict:
    """Every dataset of ``path`` as nested dicts of arrays (groups become dicts)."""
    def tree(group: h5py.Group) -> dict:
        return {k: tree(v) if isinstance(v, h5py.Group) else v[()] for k, v in group.items()}

    with opened(path, what) as f:
        return tree(f)


def digest(arrays: Iterable[tuple[str, np.ndarray]]) -> str:
    """SHA-256 (hex) of named arrays, in order."""
    h = hashlib.sha256()
    for name, a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def symmetric_bits(a: np.ndarray) -> np.ndarray:
    """A square real matrix stored so that symmetry compresses, bit-exact: its upper triangle (with the diagonal)
    as it is, each element ``(i, j)`` below it the XOR of its bits with those of ``(j, i)`` (an unsigned view).
    Where the matrix is symmetric up to rounding (the inverse Hessian of BFGS) the lower triangle holds mostly
    zeros. The map is its own inverse: :func:`from_symmetric_bits` applies it again. Row blocks keep the work
    in cache and the memory to one copy."""
    bits = np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))
    out = bits.copy()
    n = len(bits)
    for r0 in range(0, n, 256):
        r1 = min(n, r0 + 256)
        block = bits[r0:r1, :r1]
        lower = np.arange(r1)[None, :] < np.arange(r0, r1)[:, None]
        out[r0:r1, :r1] = np.where(lower, block ^ bits[:r1, r0:r1].T, block)
    return out


def from_symmetric_bits(bits: np.ndarray, dtype) -> np.ndarray:
    """The matrix of dtype ``dtype`` that :func:`symmetric_bits` stored as ``bits``."""
    return symmetric_bits(bits).view(np.dtype(dtype))


def packs_symmetric(a: np.ndarray) -> bool:
    """Whether :func:`symmetric_bits` takes ``a``: a square real floating matrix."""
    return a.ndim == 2 and a.shape[0] == a.shape[1] > 1 and np.issubdtype(a.dtype, np.floating)
