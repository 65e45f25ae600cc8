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
