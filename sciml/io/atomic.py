"""Atomic file writes: write to a temporary file in the same folder, then ``os.replace`` it into place.

A reader never sees a half-written file, and a crash leaves the previous version intact (SIGKILL leaves at
most a hidden ``.NAME.*.tmp`` beside it). A write that runs out of room (``ENOSPC``, ``EDQUOT``, ``EFBIG``
anywhere in the exception's chain) removes its temporary file and raises :class:`DiskFull` naming the final
path: one line for the user, the previous version kept.

A file is created as ``open(path, "w")`` creates one, with mode ``0o666`` less the process's umask (not
``mkstemp``'s ``0o600``), so a run folder is as readable to the user's group as any file they write.

Every byte goes through :func:`_open` (HDF5 files too, through h5py's Python file-object driver), so a full
disk reaches Python as ``OSError(ENOSPC)`` (kept by the file's wrapper when h5py reports it as its own
error) and a test can simulate one by wrapping :func:`_open`.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
from collections.abc import Iterator
from typing import IO, cast

import h5py
import yaml

from ..errors import UserError

# errno -> what the user is told: the device (or the user's share of it) has no room for the file
_NO_ROOM = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
            errno.EFBIG: "file too large for the file system or the process's size limit"}


class DiskFull(UserError):
    """A write found no room; nothing was put under the final name and the previous version is kept."""


def _no_room(e: BaseException | None) -> str | None:
    """What :data:`_NO_ROOM` says of ``e`` or of an exception it was raised from (h5py wraps the original)."""
    while e is not None:
        if isinstance(e, OSError) and e.errno in _NO_ROOM:
            return _NO_ROOM[e.errno]
        e = e.__cause__ or e.__context__
    return None


@contextlib.contextmanager
def atomic_path(path: str, keep: str | None = None) -> Iterator[str]:
    """Yield a temporary path beside ``path``; on success it replaces ``path``, on error it is removed.

    ``keep``: the current ``path`` (if any) is first renamed to ``keep`` (one previous version kept).
    """
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = _new_file(folder, os.path.basename(path))
    try:
        yield tmp
        if keep is not None and os.path.exists(path):
            os.replace(path, keep)
        os.replace(tmp, path)
    except Exception as e:
        reason = _no_room(e)
        if reason is None:
            raise
        raise DiskFull(f"{path}: cannot write: {reason} (the previous version, if any, is intact); "
                       "free some space and run again") from None
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _new_file(folder: str, name: str) -> str:
    """An empty ``.NAME.<random>.tmp`` in ``folder``, made with ``O_EXCL`` and mode ``0o666`` (the kernel takes
    the umask off, as for any new file)."""
    while True:
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return tmp
        except FileExistsError:  # 2^-48 per try: another writer drew the same name
            continue


def _open(path: str, mode: str) -> IO:
    """The one place the writers here open a file (a test wraps it to simulate a full disk)."""
    return open(path, mode, encoding=None if "b" in mode else "utf-8")


class _Watched:
    """A file that remembers the error its ``write`` raised (h5py reports a failed write as its own
    ``OSError``, without the original's errno)."""

    def __init__(self, fh: IO):
        self._fh = fh
        self.error: OSError | None = None

    def write(self, data):
        try:
            return self._fh.write(data)
        except OSError as e:
            self.error = e
            raise

    def __getattr__(self, name):
        return getattr(self._fh, name)


@contextlib.contextmanager
def atomic_file(path: str, mode: str = "w", keep: str | None = None) -> Iterator[IO]:
    """An open file (text ``"w"`` or binary ``"wb"``) that becomes ``path`` when the block ends without error."""
    with atomic_path(path, keep) as tmp, _open(tmp, mode) as raw:
        fh = _Watched(raw)
        try:
            yield cast(IO, fh)  # a proxy of the open file
        except Exception:
            if fh.error is None:
                raise
            raise fh.error from None


@contextlib.contextmanager
def atomic_h5(path: str, keep: str | None = None) -> Iterator[h5py.File]:
    """A new HDF5 file that becomes ``path`` when the block ends without error."""
    with atomic_file(path, "w+b", keep) as fh, h5py.File(fh, "w") as f:
        yield f


def write_text(path: str, text: str) -> None:
    with atomic_file(path) as fh:
        fh.write(text)


def write_bytes(path: str, data: bytes) -> None:
    with atomic_file(path, "wb") as fh:
        fh.write(data)


def write_json(path: str, data) -> None:
    write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def write_yaml(path: str, data) -> None:
    write_text(path, yaml.safe_dump(data, sort_keys=False))
