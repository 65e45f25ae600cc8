"""Faults injected into a real ``sciml`` process: a disk that fills up, a kill at a chosen moment.

In a test: ``monkeypatch.setattr(atomic, "_open", disk_with_room(n))``. As a wrapper around the command line
(a fresh process, as a user runs it)::

    python fault_injection.py full-disk N -- run CASE ...     # every file gets ENOSPC past N bytes
    python fault_injection.py kill-after-parts K -- datagen CASE ...   # SIGKILL while writing dataset part K
"""
import errno
import os
import signal
import sys


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
        return _Limited(open(path, mode, **({} if "b" in mode else {"encoding": "utf-8"})), room)
    return opener


def kill_at_part(k: int):
    """A replacement for :func:`sciml.io.atomic._open` that SIGKILLs the process as it starts writing the
    ``k``-th dataset part (0-based; parts before it are complete, part ``k`` is left as a temporary file)."""
    seen = []

    def opener(path, mode):
        fh = open(path, mode, **({} if "b" in mode else {"encoding": "utf-8"}))
        if os.path.basename(path).startswith(".part-"):
            seen.append(path)
            if len(seen) > k:
                fh.write(b"\x89HDF half-written")
                fh.flush()
                os.kill(os.getpid(), signal.SIGKILL)
        return fh
    return opener


if __name__ == "__main__":
    from sciml.cli import main
    from sciml.io import atomic

    fault, arg, sep, *argv = sys.argv[1:]
    assert sep == "--", sys.argv
    atomic._open = {"full-disk": disk_with_room, "kill-after-parts": kill_at_part}[fault](int(arg))
    sys.exit(main(argv))
