"""Handlers for SIGTERM and SIGINT (the signals that ask a long command to stop) over a block of code, and
:class:`Deferred`: the first asks the work to stop at its next safe point, a second acts at once."""
from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
_D = TypeVar("_D", bound="Deferred")


@contextlib.contextmanager
def handling(handler: Callable) -> Iterator[None]:
    """``handler`` for SIGTERM and SIGINT inside the block, the previous handlers restored after it. Nothing
    changes outside the main thread, where Python delivers no signals (the block runs without handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, before in previous.items():
            signal.signal(s, before if before is not None else signal.SIG_DFL)


class Deferred:
    """SIGTERM and SIGINT inside the block: the first is kept in ``signum`` (0 while none came) for the work to
    stop at its next safe point (the end of a chunk, after writing where it stands), and makes a second one act
    at once (SIGTERM's default action, ``KeyboardInterrupt`` for SIGINT). Main thread only (:func:`handling`);
    the previous handlers come back after the block."""

    def __enter__(self: _D) -> _D:
        self.signum, self._handlers = 0, handling(self._first)
        self._handlers.__enter__()
        return self

    def _first(self, signum, frame) -> None:
        self.signum = signum
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def __exit__(self, *exc) -> None:
        self._handlers.__exit__(*exc)
