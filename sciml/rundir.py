"""Run folders: ``runs/<case>/<timestamp>/`` with config, metrics, checkpoints, fields, plots and summary.

One run per folder: a run holds an exclusive ``fcntl.flock`` on ``<folder>/.lock`` (its PID written inside,
for the message) while it trains; a second run on the folder is refused with one line naming that PID.
The operating system releases the lock when the holder's process ends however it ends (even SIGKILL), so a
lock file left by a dead run blocks nothing.

``log.txt``: while a run trains, :func:`logging_to` copies into it (appended, line by line, so that a run that
dies keeps what it printed) everything written to standard output and error (the progress bar excepted: it
draws on :attr:`Log.console`), every warning, however the warnings module shows it, and the loop's own notes;
the run's error ends it, one line for a user's mistake, the traceback for a bug.
"""
from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import json
import os
import sys
import time
import traceback
import warnings
from collections.abc import Iterator
from typing import IO

from .errors import BadFile, Interrupted, UserError
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


def read_summary(folder: str) -> dict | None:
    """The run's ``summary.json`` as a dict, ``None`` while the run has not written one (it is still going); a
    damaged file (not JSON, or not a JSON object) is one :class:`~sciml.errors.BadFile` line naming it."""
    path = os.path.join(folder, "summary.json")
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            summary = json.load(fh)
    except (ValueError, UnicodeDecodeError) as e:
        raise BadFile(f"{path}: damaged summary file ({e})") from None
    if not isinstance(summary, dict):
        raise BadFile(f"{path}: damaged summary file (a JSON {type(summary).__name__}, not an object)")
    return summary


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


LOG = "log.txt"


class Log:
    """A run's ``log.txt`` open for appending (``path`` None: nothing is written, as on processes other than 0).

    :meth:`write` takes text as a stream does; :meth:`line` one line. ``console``: the standard error of the
    terminal, not copied into the log (the progress bar draws there). A write that fails (a full disk) closes
    the log with a warning on the console; the run goes on.
    """

    def __init__(self, path: str | None, console: IO):
        self.path, self.console = path, console
        self._fh = open(path, "a", encoding="utf-8") if path else None  # noqa: SIM115 (open for the run; close())

    def write(self, text: str) -> None:
        if self._fh is None or not text:
            return
        try:
            self._fh.write(text)
            self._fh.flush()
        except OSError as e:
            self.close()
            print(f"warning: {self.path}: cannot write ({e.strerror or e}); the run goes on without its log",
                  file=self.console, flush=True)

    def line(self, text: str) -> None:
        self.write(text.rstrip("\n") + "\n")

    def close(self) -> None:
        fh, self._fh = self._fh, None
        if fh is not None:
            with contextlib.suppress(OSError):
                fh.close()


class _Tee:
    """A text stream that also writes into a :class:`Log` (unless ``muted``)."""

    def __init__(self, stream: IO, log: Log):
        self._stream, self._log, self.muted = stream, log, False

    def write(self, text: str) -> int:
        n = self._stream.write(text)
        if not self.muted:
            self._log.write(text)
        return n

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def logging_to(folder: str | None) -> Iterator[Log]:
    """For the block, copy the console and every warning into ``<folder>/log.txt`` (``folder`` None: no file);
    standard output, error and the warnings hook are restored after. Yields the :class:`Log`."""
    out, err, show = sys.stdout, sys.stderr, warnings.showwarning
    log = Log(os.path.join(folder, LOG) if folder is not None else None, err)
    tee_out, tee_err = _Tee(out, log), _Tee(err, log)

    def shown(message, category, filename, lineno, file=None, line=None):
        log.write(warnings.formatwarning(message, category, filename, lineno, line))
        tee_err.muted = True  # the hook we replace may print it on standard error: logged once
        try:
            show(message, category, filename, lineno, file, line)
        finally:
            tee_err.muted = False

    sys.stdout, sys.stderr, warnings.showwarning = tee_out, tee_err, shown
    try:
        yield log
    except (UserError, Interrupted) as e:
        log.line(f"{'error: ' if isinstance(e, UserError) else ''}{e}")
        raise
    except BaseException:
        log.write(traceback.format_exc())
        raise
    finally:
        sys.stdout, sys.stderr, warnings.showwarning = out, err, show
        log.close()
