"""Handlers for SIGTERM and SIGINT (the signals that ask a long command to stop) over a block of code."""
from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


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
