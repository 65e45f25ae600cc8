"""Run folders: ``runs/<case>/<timestamp>/`` with config, metrics, checkpoints, fields, plots and summary.

One run per folder: a run holds an exclusive ``fcntl.flock`` on ``<folder>/.lock`` (its PID written inside,
for the message) while it trains; a second run on the folder is refused with one line naming that PID.
The operating system releases the lock when the holder's process ends however it ends (even SIGKILL), so a
lock file left by a dead run blocks nothing.
"""
from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import os
import time
from typing import Iterator

from .errors import BadFile, UserError
from .io import hdf5
from .io.atomic import write_text


def create(case: str, out: str | None = None, root: str = "runs") -> str:
    """Make (and return) the run folder: ``out`` if given, else a new timestamped one under ``root``."""
    if out is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        out = os.path.join(root, case, stamp)
        n = 1
        while os.path.exists(out):
            out = os.path.join(root, case, f"{stamp}-{n}")
            n += 1
    for sub in ("", "checkpoints", "plots"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    return out


def read_fields(folder: str) -> dict:
    """The run's ``fields.h5`` as nested dicts of arrays (e.g. ``fields["w"]["prediction"]``); a missing or
    damaged file is one :class:`~sciml.errors.BadFile` line naming it."""
    return hdf5.read(os.path.join(folder, "fields.h5"), "fields file")


LOCK = ".lock"


class FolderInUse(UserError):
    """Another live process holds the run folder."""


@contextlib.contextmanager
def hold(folder: str) -> Iterator[None]:
    """Hold run folder ``folder`` for the block (refused with :class:`FolderInUse` if a live run holds it)."""
    if not os.path.isdir(folder):
        raise UserError(f"{folder}: no such run folder")
    fd = os.open(os.path.join(folder, LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            raise FolderInUse(f"{folder}: in use by another run (PID {pid}); wait for it to end, stop it, or "
                              "give another --out") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # releases the lock


class Metrics:
    """Rows of ``metrics.csv``; the whole file is rewritten atomically after each row (it stays small)."""

    def __init__(self, path: str, rows: list[dict] | None = None):
        self.path, self.rows = path, list(rows or [])

    @staticmethod
    def read(path: str) -> list[dict]:
        if not os.path.exists(path):
            return []
        with open(path, newline="", encoding="utf-8") as fh:
            try:
                return [{k: float(v) if v not in ("", None) else float("nan") for k, v in r.items()}
                        for r in csv.DictReader(fh)]
            except (ValueError, TypeError, UnicodeDecodeError) as e:
                raise BadFile(f"{path}: damaged metrics file ({e})") from None

    def append(self, row: dict) -> None:
        self.rows.append(row)
        columns = list(dict.fromkeys(k for r in self.rows for k in r))
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=columns)
        writer.writeheader()
        for r in self.rows:
            writer.writerow({k: (f"{v:.8g}" if isinstance(v, float) else v) for k, v in r.items()})
        write_text(self.path, buf.getvalue())
