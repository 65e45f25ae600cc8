"""Faults injected into files and into a real ``sciml`` process: damaged bytes, a truncated copy, a disk
that fills up, a kill at a chosen moment.

In a test: ``monkeypatch.setattr(atomic, "_open", disk_with_room(n))``. As a wrapper around the command line
(a fresh process, as a user runs it)::

    python fault_injection.py full-disk N -- run CASE ...     # every file gets ENOSPC past N bytes
    python fault_injection.py kill-after-parts K -- datagen CASE ...   # SIGKILL while writing dataset part K

and :func:`holder`: another live process holding a run folder.
"""
import errno
import os
import signal
import subprocess
import sys

import h5py

from sciml.io import atomic

_real_open = atomic._open


def truncate(path: str, keep: float = 0.5) -> None:
    """Cut ``path`` to a fraction of its size (an interrupted copy)."""
    with open(path, "r+b") as fh:
        fh.truncate(int(os.path.getsize(path) * keep))


def flip(path: str, offset: int, count: int = 4) -> None:
    """Invert ``count`` bytes of ``path`` from ``offset`` (a damaged disk block or copy)."""
    with open(path, "r+b") as fh:
        fh.seek(offset)
        data = fh.read(count)
        fh.seek(offset)
        fh.write(bytes(b ^ 0xFF for b in data))


def flip_array(path: str, name: str | None = None) -> None:
    """Damage the stored bytes of HDF5 dataset ``name`` (default: the largest one); the file still opens."""
    with h5py.File(path, "r") as f:
        found = []
        f.visititems(lambda k, v: found.append((v.nbytes, k)) if isinstance(v, h5py.Dataset) else None)
        ds = f[name or max(found)[1]]
        offset = ds.id.get_offset() if ds.chunks is None else ds.id.get_chunk_info(0).byte_offset
    flip(path, offset + 8)


class _Limited:
    """A file whose writes raise ``OSError(ENOSPC)`` once ``room`` bytes have gone into it."""

    def __init__(self, fh, room: int):
        self._fh, self._room = fh, room

    def write(self, data):
        if len(data) > self._room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._room -= len(data)
        return self._fh.write(data)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


def disk_with_room(room: int):
    """A replacement for :func:`sciml.io.atomic._open`: each file written has room for ``room`` bytes."""
    def opener(path, mode):
        return _Limited(_real_open(path, mode), room)
    return opener


def kill_at_part(k: int):
    """A replacement for :func:`sciml.io.atomic._open` that SIGKILLs the process as it starts writing the
    ``k``-th dataset part (0-based; parts before it are complete, part ``k`` is left as a temporary file)."""
    seen = []

    def opener(path, mode):
        fh = _real_open(path, mode)
        if os.path.basename(path).startswith(".part-"):
            seen.append(path)
            if len(seen) > k:
                fh.write(b"\x89HDF half-written")
                fh.flush()
                os.kill(os.getpid(), signal.SIGKILL)
        return fh
    return opener


_HOLD = """import sys, time
from sciml import rundir
with rundir.hold(sys.argv[1]):
    print("held", flush=True)
    time.sleep(600)
"""


def holder(folder: str) -> subprocess.Popen:
    """A process that holds run folder ``folder`` (as a live run does) until it is killed."""
    p = subprocess.Popen([sys.executable, "-c", _HOLD, folder], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "held\n"
    return p


if __name__ == "__main__":
    from sciml.cli import main

    fault, arg, sep, *argv = sys.argv[1:]
    assert sep == "--", sys.argv
    atomic._open = {"full-disk": disk_with_room, "kill-after-parts": kill_at_part}[fault](int(arg))
    sys.exit(main(argv))
